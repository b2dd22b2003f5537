package export

import (
	"sort"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// Recorded gathers the shell commands of recorded sessions for policy
// generation: how often each command ran, in which sessions and working
// directories, and which commands a person refused. It is a Sink, so
// sessions stream through it with WriteSessions; only the distinct commands
// are kept.
type Recorded struct {
	sessions int
	runs     int64
	commands map[string]*recordedCommand
	denied   map[string]bool

	// per session
	sessionIdx int
	startDir   string
	requests   map[string]string // approval call_id → command
	bashDirs   map[string]string // bash_start call_id → working directory
}

// recordedCommand is one distinct command line.
type recordedCommand struct {
	command  string
	count    int64
	sessions []int            // indexes of the sessions it ran in, ascending
	dirs     map[string]int64 // working directory → runs
}

var _ Sink = (*Recorded)(nil)

// NewRecorded returns an empty collection.
func NewRecorded() *Recorded {
	return &Recorded{commands: map[string]*recordedCommand{}, denied: map[string]bool{}}
}

// BeginSession implements Sink.
func (r *Recorded) BeginSession(info session.Info) error {
	r.sessions++
	r.sessionIdx = r.sessions
	r.startDir = info.WorkingDirectory
	r.requests, r.bashDirs = map[string]string{}, map[string]string{}
	return nil
}

// Write implements Sink: a bash run counts its command; an approval that was
// denied or timed out marks its command as refused.
func (r *Recorded) Write(ev *transcript.Event) error {
	if r.requests == nil {
		_ = r.BeginSession(session.Info{ID: ev.SessionID})
	}
	switch b := ev.Body.(type) {
	case *transcript.SessionStart:
		if b.WorkingDirectory != "" {
			r.startDir = b.WorkingDirectory
		}
	case *transcript.BashStart:
		if ev.CallID != "" && b.WorkingDirectory != "" {
			r.bashDirs[ev.CallID] = b.WorkingDirectory
		}
	case *transcript.BashRun:
		dir := b.WorkingDirectory
		if dir == "" {
			dir = r.bashDirs[ev.CallID]
		}
		if dir == "" {
			dir = r.startDir
		}
		delete(r.bashDirs, ev.CallID)
		r.add(b, dir)
	case *transcript.ApprovalRequest:
		if ev.CallID != "" && b.Command != "" {
			r.requests[ev.CallID] = b.Command
		}
	case *transcript.ApprovalDecision:
		if cmd, ok := r.requests[ev.CallID]; ok && (b.Decision == transcript.DecisionDeny || b.Decision == transcript.DecisionTimeout) {
			r.denied[cmd] = true
		}
	}
	return nil
}

func (r *Recorded) add(b *transcript.BashRun, dir string) {
	if b.Command == "" || (b.Error != nil && b.ExitCode == nil) { // never started: nothing ran
		return
	}
	r.runs++
	c := r.commands[b.Command]
	if c == nil {
		c = &recordedCommand{command: b.Command, dirs: map[string]int64{}}
		r.commands[b.Command] = c
	}
	c.count++
	c.dirs[dir]++
	if n := len(c.sessions); n == 0 || c.sessions[n-1] != r.sessionIdx {
		c.sessions = append(c.sessions, r.sessionIdx)
	}
}

// Close implements Sink.
func (r *Recorded) Close() (Result, error) { return Result{Events: r.runs}, nil }

// Sessions is how many sessions were read.
func (r *Recorded) Sessions() int { return r.sessions }

// Runs is how many command runs were counted.
func (r *Recorded) Runs() int64 { return r.runs }

// Distinct is how many different command lines ran.
func (r *Recorded) Distinct() int { return len(r.commands) }

// sorted returns the commands, most frequent first.
func (r *Recorded) sorted() []*recordedCommand {
	out := make([]*recordedCommand, 0, len(r.commands))
	for _, c := range r.commands {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].count != out[j].count {
			return out[i].count > out[j].count
		}
		return out[i].command < out[j].command
	})
	return out
}
