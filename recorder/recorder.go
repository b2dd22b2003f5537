// Package recorder owns producing events: it records the runs cuff starts (runner, gate, approval, hooks, MCP below it).
// It may import session, transcript, assets and internal; never export, tui or cmd.
package recorder

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// Session grouping modes: how runs are gathered into sessions.
const (
	ModePerConversation = "per_conversation"
	ModePerDay          = "per_day"
	ModeContinuous      = "continuous"
)

// Correlation ties a run to the agent, conversation and task that asked for it.
type Correlation struct {
	AgentID        string
	ConversationID string
	RunID          string
	TaskID         string
	StepID         string
	ToolCallID     string
}

// Options configures a Recorder.
type Options struct {
	Store *session.Store
	// Mode is the session grouping mode; per_conversation falls back to
	// per_day when a run has no conversation id.
	Mode string
	// Agent and Source go into the start event of sessions the recorder starts.
	Agent, Source    string
	WorkingDirectory string
	CuffVersion      string
	// Disabled records nothing.
	Disabled bool
	// StateDir is the per-user state directory, where a failed recording
	// leaves a marker so that the next process starts a fresh session.
	StateDir string
	// Warn receives problems with recording; the command runs regardless.
	Warn func(string)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Recorder writes bash_start and bash_run events for commands run by cuff.
// Recording never stops a command: when the store cannot be written, the
// recorder warns, lets the command run, and once writing works again it
// starts a new session and marks the old one interrupted.
type Recorder struct {
	opts     Options
	w        *session.Writer
	key      string
	degraded bool
	lastID   string // session that was being written when recording failed
}

// New returns a Recorder.
func New(opts Options) *Recorder {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Mode == "" {
		opts.Mode = ModePerConversation
	}
	return &Recorder{opts: opts}
}

// SessionID is the session the recorder writes to, "" before the first run.
func (r *Recorder) SessionID() string {
	if r.w == nil {
		return ""
	}
	return r.w.ID()
}

// Degraded reports whether the last write failed.
func (r *Recorder) Degraded() bool { return r.degraded }

func (r *Recorder) warn(format string, args ...any) {
	if r.opts.Warn != nil {
		r.opts.Warn(fmt.Sprintf(format, args...))
	}
}

// groupKey names the session a run belongs to under the grouping mode.
func (r *Recorder) groupKey(c Correlation) string {
	return GroupKey(r.opts.Mode, r.opts.Source, r.opts.Now(), c)
}

// GroupKey names the session that collects a run of source at time now
// under a grouping mode: one per conversation (per day without one), one
// per day, or one in all. Anything that records into the same sessions as
// a Recorder (an approval request made before the run) uses it.
func GroupKey(mode, source string, now time.Time, c Correlation) string {
	switch {
	case mode == ModeContinuous:
		return source + ":continuous"
	case (mode == ModePerConversation || mode == "") && c.ConversationID != "":
		return source + ":conversation:" + c.ConversationID
	}
	return source + ":day:" + now.Format("2006-01-02")
}

// writerFor returns the writer of the session that collects key.
func (r *Recorder) writerFor(key string, c Correlation) (*session.Writer, error) {
	if r.w != nil && key == r.key && !r.degraded {
		return r.w, nil
	}
	marker := r.markerPath()
	fresh := r.degraded
	if prev := readMarker(marker); prev != "" {
		fresh, r.lastID = true, prev
	}
	if r.w != nil {
		r.w.Detach()
		r.w = nil
	}
	start := &transcript.SessionStart{Agent: r.opts.Agent, Source: r.opts.Source,
		WorkingDirectory: r.opts.WorkingDirectory, CuffVersion: r.opts.CuffVersion,
		Host: hostInfo()}
	w, _, err := r.opts.Store.Current(key, session.CurrentOptions{Start: start, ConversationID: c.ConversationID,
		Fresh: fresh, Now: r.opts.Now()})
	if err != nil {
		return nil, err
	}
	if fresh {
		r.recovered(w.ID())
	}
	r.w, r.key = w, key
	return w, nil
}

// recovered closes the session that was cut off by a failed write and says so.
func (r *Recorder) recovered(newID string) {
	if r.lastID != "" && r.lastID != newID {
		if old, err := r.opts.Store.Resume(r.lastID); err == nil {
			if err := old.Close(transcript.StatusInterrupted); err != nil {
				r.warn("could not mark session %s interrupted: %v", r.lastID, err)
			}
		}
	}
	if m := r.markerPath(); m != "" {
		_ = os.Remove(m)
	}
	r.warn("recording recovered: writing to new session %s", newID)
	r.degraded, r.lastID = false, ""
}

// fail notes a failed write: warn, remember the session, leave a marker.
func (r *Recorder) fail(err error) {
	if !r.degraded {
		r.warn("recording failed, the command runs unrecorded: %v", err)
	}
	r.degraded = true
	if r.w != nil {
		r.lastID = r.w.ID()
		r.w.Detach()
		r.w = nil
	}
	if m := r.markerPath(); m != "" && r.lastID != "" {
		if os.MkdirAll(filepath.Dir(m), 0o700) == nil {
			_ = os.WriteFile(m, []byte(r.lastID), 0o600)
		}
	}
}

// markerPath is where a failed recording is remembered across processes:
// in the user state directory, keyed by the recordings directory.
func (r *Recorder) markerPath() string {
	if r.opts.StateDir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(r.opts.Store.Recordings))
	return filepath.Join(r.opts.StateDir, "degraded", hex.EncodeToString(sum[:8]))
}

func readMarker(path string) string {
	if path == "" {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	id := string(data)
	if !session.ValidID(id) {
		return ""
	}
	return id
}

// Pending is a run whose start is recorded and whose end is not yet.
type Pending struct {
	r      *Recorder
	corr   Correlation
	callID string
	key    string // the session the start went to: a run that spans midnight ends there too
}

// Begin records that a command is about to run. It never fails: problems
// are warned about and the run goes on unrecorded.
func (r *Recorder) Begin(c Correlation, start *transcript.BashStart) *Pending {
	p := &Pending{r: r, corr: c, callID: c.ToolCallID, key: r.groupKey(c)}
	if p.callID == "" {
		p.callID = transcript.NewCallID()
	}
	if r.opts.Disabled {
		return p
	}
	w, err := r.writerFor(p.key, c)
	if err != nil {
		r.fail(err)
		return p
	}
	if err := w.Append(p.event(start)); err != nil {
		r.fail(err)
	}
	return p
}

func (p *Pending) event(body transcript.Body) *transcript.Event {
	ev := transcript.New("", p.r.opts.Now(), body)
	ev.CallID = p.callID
	if p.corr.AgentID != "" {
		ev.AgentID = p.corr.AgentID
	}
	ev.ConversationID = p.corr.ConversationID
	ev.RunID, ev.TaskID, ev.StepID = p.corr.RunID, p.corr.TaskID, p.corr.StepID
	return ev
}

// Finish records the run's outcome and returns the id of the bash_run event
// ("" when it could not be recorded).
func (p *Pending) Finish(run *transcript.BashRun) string {
	r := p.r
	if r.opts.Disabled {
		return ""
	}
	w, err := r.writerFor(p.key, p.corr)
	if err != nil {
		r.fail(err)
		return ""
	}
	ev := p.event(run)
	if err := w.Append(ev); err != nil {
		r.fail(err)
		return ""
	}
	return ev.ID
}

// Close releases the session without ending it (a grouped session stays
// open for the next run), or ends it when status is not empty.
func (r *Recorder) Close(status string) error {
	if r.w == nil {
		return nil
	}
	w := r.w
	r.w = nil
	if status == "" {
		return w.Detach()
	}
	return w.Close(status)
}

// hostInfo describes this machine for session_start.
func hostInfo() *transcript.Host {
	h := &transcript.Host{OS: runtime.GOOS, Arch: runtime.GOARCH}
	h.Hostname, _ = os.Hostname()
	return h
}
