package session

import (
	"os"
	"strconv"
	"strings"

	"github.com/cuff-dev/cuff/transcript"
)

// SelfRecorder describes this process as the recorder of a run (for
// transcript.BashStart.Recorder); nil where it cannot be told (no /proc).
func SelfRecorder() *transcript.RecorderProcess { return ProcessOf(os.Getpid()) }

// ProcessOf describes the running process pid; nil where it cannot be told.
func ProcessOf(pid int) *transcript.RecorderProcess {
	start, ok := startTicks(pid)
	boot := bootID()
	if !ok || boot == "" {
		return nil
	}
	return &transcript.RecorderProcess{PID: pid, Start: start, BootID: boot}
}

// RecorderGone reports whether the recorder p is known to have ended (on
// this machine, in this boot).
func RecorderGone(p *transcript.RecorderProcess) bool {
	gone, known := recorderGone(p)
	return gone && known
}

// recorderGone reports whether the recorder p has ended. known is false
// when that cannot be told here: no recorder named, or one of another boot
// or machine (the store may be shared).
func recorderGone(p *transcript.RecorderProcess) (gone, known bool) {
	if p == nil || p.PID <= 0 || p.BootID == "" || p.BootID != bootID() {
		return false, false
	}
	start, ok := startTicks(p.PID)
	return !ok || start != p.Start, true
}

// startTicks is when process pid started, in clock ticks since boot;
// false when there is no such process, or only its zombie.
func startTicks(pid int) (uint64, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// "pid (comm) state ppid ...": comm may hold anything, so the fields
	// are counted from after its last ')'. starttime is field 22, the
	// 20th after comm.
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0, false
	}
	v, err := strconv.ParseUint(f[19], 10, 64)
	return v, err == nil
}

// bootID names this boot of this machine; "" where it cannot be read.
func bootID() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// OpenRuns follows the runs of a session that started and have not ended,
// in the order they started. The zero value is ready to use.
type OpenRuns struct {
	order  []string
	starts map[string]*transcript.Event
}

// Note updates the open runs with one event.
func (o *OpenRuns) Note(ev *transcript.Event) {
	switch ev.Body.(type) {
	case *transcript.BashStart:
		if ev.CallID == "" {
			return
		}
		if o.starts == nil {
			o.starts = map[string]*transcript.Event{}
		}
		if _, dup := o.starts[ev.CallID]; !dup {
			o.order = append(o.order, ev.CallID)
		}
		o.starts[ev.CallID] = ev
	case *transcript.BashRun:
		delete(o.starts, ev.CallID)
	}
}

// died returns the ends of the open runs whose recorder has died, in the
// order they started, and forgets them. Where the recorder is not known
// (a run recorded by a hook or an older cuff), sessionOver decides: a
// session that ended, or that no writer holds and nothing was appended to
// for a while, will not see the end of its runs.
func (o *OpenRuns) died(sessionOver bool) []*transcript.Event {
	var out []*transcript.Event
	kept := o.order[:0]
	for _, id := range o.order {
		start := o.starts[id]
		if start == nil {
			continue // ended
		}
		gone, known := recorderGone(start.Body.(*transcript.BashStart).Recorder)
		if gone || !known && sessionOver {
			out = append(out, DiedRun(start))
			delete(o.starts, id)
			continue
		}
		kept = append(kept, id)
	}
	o.order = kept
	return out
}

// DiedRun is the end of a run whose recorder died: the bash_run that
// readers add after the bash_start, interrupted, with the code and message
// that say so. It has no seq: it is not in the file. Its id is the start's,
// so that the run can be named (runs show, runs prune).
func DiedRun(start *transcript.Event) *transcript.Event {
	b := start.Body.(*transcript.BashStart)
	run := &transcript.BashRun{Command: b.Command, Argv: b.Argv, WorkingDirectory: b.WorkingDirectory, Interrupted: true,
		Error: &transcript.RunError{Code: transcript.RecorderDiedCode, Message: transcript.RecorderDiedMessage}}
	ev := transcript.New(start.SessionID, start.TS, run)
	ev.Envelope = start.Envelope
	ev.Type = transcript.TypeBashRun
	ev.Seq = 0
	return ev
}
