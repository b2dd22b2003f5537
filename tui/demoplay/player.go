// Package demoplay plays a recorded session into a temporary store at
// human pace, so that `cuff demo` shows the TUI following a live session
// with no set-up. Approval requests wait for an answer from the TUI; the
// answer only changes what the demo shows.
package demoplay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui"
)

// Pacing at speed 1: the recorded gap between two events, clamped.
const (
	MinGap = 250 * time.Millisecond
	MaxGap = 2500 * time.Millisecond
	// ApprovalWait is how long a request waits for an answer, as the
	// gate's own default timeout; with no answer it is denied by timeout.
	ApprovalWait = 5 * time.Minute
)

// Note is the line the approval prompt shows during the demo.
const Note = "Demo: the session waits for your answer, which only changes what the demo shows; nothing runs."

// Player writes a session's events into a file one by one.
type Player struct {
	id     string
	path   string
	events []*transcript.Event
	speed  float64
	now    func() time.Time
	// Wait is how long an approval request waits for an answer.
	Wait time.Duration

	mu      sync.Mutex
	waiting string // the request waiting for an answer
	answers chan answer
}

type answer struct {
	id string
	d  tui.Decision
}

// New prepares to play the JSONL session data into a store in dir (a .cuff
// directory, created if needed) at the given speed (2 is twice as fast).
func New(data []byte, dir string, speed float64) (*Player, error) {
	if speed <= 0 {
		return nil, fmt.Errorf("speed %v: it must be more than 0 (1 is human pace, 2 twice as fast)", speed)
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
	path := store.EventsPath(id)
	if err := os.WriteFile(path, nil, transcript.FileMode); err != nil {
		return nil, fmt.Errorf("create the demo session: %w", err)
	}
	return &Player{id: id, path: path, events: events, speed: speed, now: time.Now, Wait: ApprovalWait, answers: make(chan answer, 1)}, nil
}

// Info describes the session being played.
func (p *Player) Info() session.Info {
	info := session.Info{ID: p.id, Source: session.NativeSourceName, Path: p.path, Live: true, Status: transcript.StatusActive}
	if s, ok := p.events[0].Body.(*transcript.SessionStart); ok {
		info.Agent, info.WorkingDirectory = s.Agent, s.WorkingDirectory
	}
	info.Title = "cuff demo"
	return info
}

// Path is the session file being written.
func (p *Player) Path() string { return p.path }

var _ tui.Approver = (*Player)(nil)

// Decide answers the approval request the demo waits on.
func (p *Player) Decide(ctx context.Context, requestID string, d tui.Decision) error {
	p.mu.Lock()
	waiting := p.waiting
	p.mu.Unlock()
	if waiting != requestID {
		return fmt.Errorf("the demo is not waiting for request %s any more", requestID)
	}
	select {
	case p.answers <- answer{id: requestID, d: d}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run plays every event, then returns; the file stays for the TUI.
func (p *Player) Run(ctx context.Context) error {
	f, err := os.OpenFile(p.path, os.O_WRONLY|os.O_APPEND, transcript.FileMode)
	if err != nil {
		return fmt.Errorf("open the demo session: %w", err)
	}
	defer f.Close()
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
		if err := p.write(f, ev, p.now()); err != nil {
			return err
		}
		req, ok := ev.Body.(*transcript.ApprovalRequest)
		if !ok {
			continue
		}
		a, answered := p.await(ctx, req.RequestID)
		if ctx.Err() != nil {
			return nil
		}
		dec := &transcript.Event{Envelope: ev.Envelope} // no recorded decision: reuse the request's envelope
		if j := p.findDecision(i, req.RequestID); j >= 0 {
			skip[j] = true
			dec = p.events[j]
		}
		body := transcript.ApprovalDecision{RequestID: req.RequestID, Decision: transcript.DecisionTimeout, By: "timeout",
			Reason: "no answer in time"}
		switch {
		case answered && a.d.Approve:
			body = transcript.ApprovalDecision{RequestID: req.RequestID, Decision: transcript.DecisionApprove, Scope: a.d.Scope, By: "tui"}
		case answered:
			body = transcript.ApprovalDecision{RequestID: req.RequestID, Decision: transcript.DecisionDeny, By: "tui", Reason: a.d.Reason}
		}
		if body.Decision != transcript.DecisionApprove {
			denied[ev.CallID] = true
		}
		d := *dec
		d.Type, d.Body, d.CallID = transcript.TypeApprovalDecision, &body, ev.CallID
		if err := p.write(f, &d, p.now()); err != nil {
			return err
		}
	}
	return nil
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

// await waits for the answer to a request, for ApprovalWait at most.
func (p *Player) await(ctx context.Context, id string) (answer, bool) {
	p.mu.Lock()
	p.waiting = id
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.waiting = ""
		p.mu.Unlock()
	}()
	t := time.NewTimer(p.Wait)
	defer t.Stop()
	for {
		select {
		case a := <-p.answers:
			if a.id == id {
				return a, true
			}
		case <-t.C:
			return answer{}, false
		case <-ctx.Done():
			return answer{}, false
		}
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

// write appends one event, stamped with the time it is played, as one
// line in one write.
func (p *Player) write(f *os.File, ev *transcript.Event, now time.Time) error {
	e := *ev
	e.TS = now.UTC()
	if req, ok := e.Body.(*transcript.ApprovalRequest); ok {
		r := *req
		exp := e.TS.Add(p.Wait)
		r.ExpiresAt = &exp
		e.Body = &r
	}
	line, err := e.MarshalJSON()
	if err != nil {
		return fmt.Errorf("encode demo event %d: %w", e.Seq, err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(p.path), err)
	}
	return nil
}
