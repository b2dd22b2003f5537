// Package metrics computes cuff's operational figures from the recordings:
// Prometheus text for `cuff metrics` and the health report of `cuff health`.
package metrics

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"golang.org/x/sys/unix"
)

// durationBuckets are the upper bounds, in seconds, of the command
// duration histogram.
var durationBuckets = []float64{0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

// Kinds of recording errors found in the recordings: lines a crash or a
// full disk cut short, and sessions whose writer died mid-command.
const (
	errMalformedLine      = "malformed_line"
	errInterruptedSession = "interrupted_session"
)

// Figures are the counters, gauges and histogram of the recordings.
type Figures struct {
	Commands        map[[2]string]int64 // (exit_code, timed_out) → count
	DurationCounts  []int64             // per bucket, not cumulative
	DurationSum     float64
	DurationCount   int64
	RecordingErrors map[string]int64 // error_type → count
	ActiveSessions  int64
	Entries         int64
	OutputBytes     int64
	Truncated       int64
}

// Collect reads every session of the store.
func Collect(s *session.Store) (*Figures, error) {
	all, err := s.Sessions()
	if err != nil {
		return nil, err
	}
	f := &Figures{Commands: map[[2]string]int64{}, DurationCounts: make([]int64, len(durationBuckets)+1),
		RecordingErrors: map[string]int64{}}
	for _, m := range all {
		f.Entries += m.EntryCount
		if m.Live {
			f.ActiveSessions++
		}
		if m.Malformed > 0 {
			f.RecordingErrors[errMalformedLine] += m.Malformed
		}
		if m.Status == transcript.StatusInterrupted {
			f.RecordingErrors[errInterruptedSession]++
		}
		if m.AllCommands() == 0 {
			continue
		}
		_, err := s.ReadEvents(m.SessionID, func(ev *transcript.Event) error {
			b, ok := ev.Body.(*transcript.BashRun)
			if !ok {
				return nil
			}
			code := "none"
			if b.ExitCode != nil {
				code = strconv.Itoa(*b.ExitCode)
			}
			f.Commands[[2]string{code, strconv.FormatBool(b.TimedOut)}]++
			secs := float64(b.DurationMS) / 1000
			f.DurationSum += secs
			f.DurationCount++
			f.DurationCounts[sort.SearchFloat64s(durationBuckets, secs)]++
			f.OutputBytes += int64(len(b.Stdout) + len(b.Stderr))
			if b.OutputTruncated {
				f.Truncated++
			}
			return nil
		})
		var nf *session.NotFoundError
		if err != nil && !errors.As(err, &nf) {
			return nil, err
		}
	}
	return f, nil
}

// WritePrometheus prints the figures in the Prometheus text format.
func (f *Figures) WritePrometheus(w io.Writer) error {
	p := &promWriter{w: w}
	p.header("bash_recorder_commands_total", "counter", "Total commands executed.")
	keys := make([][2]string, 0, len(f.Commands))
	for k := range f.Commands {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		p.line("bash_recorder_commands_total", fmt.Sprintf(`{exit_code=%q,timed_out=%q}`, k[0], k[1]), f.Commands[k])
	}
	p.header("bash_recorder_command_duration_seconds", "histogram", "Command execution duration.")
	var cum int64
	for i, le := range durationBuckets {
		cum += f.DurationCounts[i]
		p.line("bash_recorder_command_duration_seconds_bucket", fmt.Sprintf(`{le="%g"}`, le), cum)
	}
	cum += f.DurationCounts[len(durationBuckets)]
	p.line("bash_recorder_command_duration_seconds_bucket", `{le="+Inf"}`, cum)
	p.printf("bash_recorder_command_duration_seconds_sum %g\n", f.DurationSum)
	p.line("bash_recorder_command_duration_seconds_count", "", f.DurationCount)
	p.header("bash_recorder_recording_errors_total", "counter", "Recording failures found in the recordings.")
	for _, t := range []string{errMalformedLine, errInterruptedSession} {
		p.line("bash_recorder_recording_errors_total", fmt.Sprintf(`{error_type=%q}`, t), f.RecordingErrors[t])
	}
	p.header("bash_recorder_active_sessions", "gauge", "Number of active (live) recording sessions.")
	p.line("bash_recorder_active_sessions", "", f.ActiveSessions)
	p.header("bash_recorder_entries_recorded_total", "counter", "Total recording entries written.")
	p.line("bash_recorder_entries_recorded_total", "", f.Entries)
	p.header("bash_recorder_output_bytes_total", "counter", "Total bytes of output captured.")
	p.line("bash_recorder_output_bytes_total", "", f.OutputBytes)
	p.header("bash_recorder_output_truncated_total", "counter", "Commands with truncated output.")
	p.line("bash_recorder_output_truncated_total", "", f.Truncated)
	return p.err
}

type promWriter struct {
	w   io.Writer
	err error
}

func (p *promWriter) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *promWriter) header(name, kind, help string) {
	p.printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
}

func (p *promWriter) line(name, labels string, v int64) { p.printf("%s%s %d\n", name, labels, v) }

// MinFreeBytes is the free space below which the disk is not OK.
const MinFreeBytes = 100 << 20

// Health is the health report.
type Health struct {
	Healthy           bool     `json:"healthy"`
	RecordingEnabled  bool     `json:"recording_enabled"`
	DirectoryWritable bool     `json:"directory_writable"`
	DiskSpaceOK       bool     `json:"disk_space_ok"`
	FreeBytes         uint64   `json:"free_bytes"`
	CurrentSession    *string  `json:"current_session"`
	EntriesRecorded   int64    `json:"entries_recorded"`
	Directory         string   `json:"directory"`
	Problems          []string `json:"problems,omitempty"`
	// Sandbox says whether the commands cuff allows run in its kernel
	// sandbox; set by the caller, which knows the gate's settings.
	Sandbox *SandboxHealth `json:"sandbox,omitempty"`
}

// SandboxHealth says whether the commands cuff allows run in the kernel
// sandbox, and why not.
type SandboxHealth struct {
	Mode        string `json:"mode"` // gate.sandbox: auto, always or off
	On          bool   `json:"on"`
	LandlockABI int    `json:"landlock_abi"`
	Reason      string `json:"reason,omitempty"`
}

// Check reports whether recording can work: the recordings directory (or
// the nearest folder that would hold it) is writable and has space.
func Check(s *session.Store, enabled bool) *Health {
	h := &Health{RecordingEnabled: enabled, Directory: s.Recordings}
	dir := s.Recordings
	for !exists(dir) && filepath.Dir(dir) != dir {
		dir = filepath.Dir(dir)
	}
	if f, err := os.CreateTemp(dir, ".cuff-health-*"); err == nil {
		f.Close()
		os.Remove(f.Name())
		h.DirectoryWritable = true
	} else {
		h.Problems = append(h.Problems, fmt.Sprintf("cannot write in %s: %v", dir, errors.Unwrap(err)))
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err == nil {
		h.FreeBytes = st.Bavail * uint64(st.Bsize)
		h.DiskSpaceOK = h.FreeBytes >= MinFreeBytes
		if !h.DiskSpaceOK {
			h.Problems = append(h.Problems, fmt.Sprintf("only %d bytes free where recordings are kept", h.FreeBytes))
		}
	} else {
		h.Problems = append(h.Problems, fmt.Sprintf("cannot read free space of %s: %v", dir, err))
	}
	if all, err := s.Sessions(); err == nil {
		for _, m := range all {
			if m.Live || (!m.Ended && m.Status != transcript.StatusInterrupted) {
				id := m.SessionID
				h.CurrentSession, h.EntriesRecorded = &id, m.EntryCount
				break
			}
		}
	} else {
		h.Problems = append(h.Problems, fmt.Sprintf("cannot list sessions: %v", err))
	}
	h.Healthy = h.DirectoryWritable && h.DiskSpaceOK
	return h
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
