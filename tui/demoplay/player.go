// Package demoplay plays a recorded session into a temporary store at
// human pace, so that `cuff demo` shows the TUI following a live session
// with no set-up. Each approval request of the session is filed for real
// with an approval broker (in a temporary state directory), and the demo
// goes on as the decision says: an approved command's run plays, a denied
// or timed-out one is skipped.
package demoplay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// Pacing at speed 1: the recorded gap between two events, clamped.
const (
	MinGap = 250 * time.Millisecond
	MaxGap = 2500 * time.Millisecond
	// ApprovalWait is how long a request waits for an answer, as the
	// gate's own default timeout; with no answer it is denied by timeout.
	ApprovalWait = 5 * time.Minute
)

// Banner is the first line of the demo's screen: what it is.
const Banner = "▶ cuff demo: a replay of a recorded session — nothing runs on your machine"

// Note is the line the approval prompt shows during the demo.
const Note = "Demo: a real request, filed with a broker in a temporary folder. Approve and the command's run plays; deny and it is skipped. Nothing runs."

// Player writes a session's events into a store one by one.
type Player struct {
	id     string
	store  *session.Store
	events []*transcript.Event
	speed  float64
	now    func() time.Time
	broker *approval.Broker
	agent  string
	cwd    string
}

// New prepares to play the JSONL session data into a store in dir (a .cuff
// directory, created if needed) at the given speed (2 is twice as fast),
// filing its approval requests with broker.
func New(data []byte, dir string, speed float64, broker *approval.Broker) (*Player, error) {
	if speed <= 0 {
		return nil, fmt.Errorf("speed %v: it must be more than 0 (1 is human pace, 2 twice as fast)", speed)
	}
	if broker == nil {
		return nil, errors.New("the demo needs an approval broker for its requests")
	}
	var events []*transcript.Event
	if _, err := session.ReadAll(bytes.NewReader(data), func(ev *transcript.Event) error {
		events = append(events, ev)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the demo session: %w", err)
	}
	if len(events) == 0 {
		return nil, errors.New("the demo session has no events")
	}
	id := events[0].SessionID
	if !session.ValidID(id) {
		return nil, fmt.Errorf("the demo session's id %q is not a session id", id)
	}
	store := session.Open(dir)
	if err := os.MkdirAll(store.SessionsDir(), session.DirMode); err != nil {
		return nil, fmt.Errorf("create the demo store: %w", err)
	}
	if err := os.WriteFile(store.EventsPath(id), nil, transcript.FileMode); err != nil {
		return nil, fmt.Errorf("create the demo session: %w", err)
	}
	p := &Player{id: id, store: store, events: events, speed: speed, now: time.Now, broker: broker}
	if s, ok := events[0].Body.(*transcript.SessionStart); ok {
		p.agent, p.cwd = s.Agent, s.WorkingDirectory
	}
	return p, nil
}

// Info describes the session being played.
func (p *Player) Info() session.Info {
	info := session.Info{ID: p.id, Source: session.NativeSourceName, Path: p.Path(), Live: true, Status: transcript.StatusActive,
		Agent: p.agent, WorkingDirectory: p.cwd}
	info.Title = "cuff demo"
	return info
}

// Path is the session file being written.
func (p *Player) Path() string { return p.store.EventsPath(p.id) }

// Run plays every event, then returns; the file stays for the TUI. An
// approval request waits for its real decision; the session's own
// decision is replaced by it.
func (p *Player) Run(ctx context.Context) error {
	app, err := transcript.OpenAppender(p.Path(), p.id, transcript.AppendOptions{NoSync: true})
	if err != nil {
		return fmt.Errorf("open the demo session: %w", err)
	}
	defer app.Close()
	skip := map[int]bool{}
	denied := map[string]bool{}
	var prev time.Time
	for i, ev := range p.events {
		if skip[i] || (denied[ev.CallID] && (ev.Type == transcript.TypeBashStart || ev.Type == transcript.TypeBashRun)) {
			continue
		}
		if i > 0 {
			if err := p.sleep(ctx, p.gap(prev, ev.TS)); err != nil {
				return nil
			}
		}
		prev = ev.TS
		req, ok := ev.Body.(*transcript.ApprovalRequest)
		if !ok {
			if err := p.write(app, ev); err != nil {
				return err
			}
			continue
		}
		d, err := p.ask(ctx, ev, req)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		if j := p.findDecision(i, req.RequestID); j >= 0 {
			skip[j] = true
		}
		if !d.Approved() {
			denied[ev.CallID] = true
		}
	}
	return nil
}

// ask files the request of event ev with the broker, which records it in
// the session, and waits for its decision (recorded by whoever decides).
func (p *Player) ask(ctx context.Context, ev *transcript.Event, req *transcript.ApprovalRequest) (*approval.Decision, error) {
	r := &approval.Request{
		CallID:       ev.CallID,
		Session:      approval.SessionRef{Dir: p.store.Dir, Recordings: p.store.Recordings, ID: p.id},
		AgentSession: "demo:" + p.id, Agent: p.agent, AgentID: ev.AgentID, ParentCallID: ev.ParentCallID,
		Tool: req.Tool, Command: req.Command, WorkingDirectory: p.cwd, Taint: req.Taint, Diff: req.Diff,
	}
	if req.Verdict != nil {
		r.Verdict = *req.Verdict
	}
	_, d, err := p.broker.Ask(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("ask for %q: %w", req.Command, err)
	}
	return d, nil
}

// gap is the pause before an event recorded at ts after one at prev.
func (p *Player) gap(prev, ts time.Time) time.Duration {
	d := min(max(ts.Sub(prev), MinGap), MaxGap)
	return time.Duration(float64(d) / p.speed)
}

func (p *Player) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// findDecision finds the recorded decision of a request after event i.
func (p *Player) findDecision(i int, requestID string) int {
	for j := i + 1; j < len(p.events); j++ {
		if d, ok := p.events[j].Body.(*transcript.ApprovalDecision); ok && d.RequestID == requestID {
			return j
		}
	}
	return -1
}

// write appends one event, stamped with the time it is played; the
// appender numbers it after whatever the broker recorded meanwhile.
func (p *Player) write(app *transcript.Appender, ev *transcript.Event) error {
	e := *ev
	e.TS = p.now().UTC()
	if err := app.Append(&e); err != nil {
		return fmt.Errorf("write demo event %d: %w", ev.Seq, err)
	}
	return nil
}
