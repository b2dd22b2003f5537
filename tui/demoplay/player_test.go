package demoplay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/assets/demo"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui"
)

// fast plays the demo in well under a second.
const fast = 1000

func played(t *testing.T, path string) []*transcript.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []*transcript.Event
	if _, err := session.ReadAll(f, func(ev *transcript.Event) error {
		events = append(events, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return events
}

// answerAll answers every request the player waits on with d, until ctx
// ends.
func answerAll(ctx context.Context, p *Player, d tui.Decision) {
	for ctx.Err() == nil {
		p.mu.Lock()
		id := p.waiting
		p.mu.Unlock()
		if id != "" {
			_ = p.Decide(ctx, id, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func play(t *testing.T, d *tui.Decision) []*transcript.Event {
	t.Helper()
	p, err := New(demo.Session(), filepath.Join(t.TempDir(), ".cuff"), fast)
	if err != nil {
		t.Fatal(err)
	}
	p.Wait = 200 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if d != nil {
		go answerAll(ctx, p, *d)
	}
	if err := p.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if info := p.Info(); info.ID != demo.SessionID || info.Path != p.Path() || !info.Live {
		t.Errorf("info %+v", info)
	}
	return played(t, p.Path())
}

func decisions(events []*transcript.Event) []string {
	var out []string
	for _, ev := range events {
		if d, ok := ev.Body.(*transcript.ApprovalDecision); ok {
			out = append(out, d.Decision+" by "+d.By)
		}
	}
	return out
}

func commands(events []*transcript.Event) string {
	var out []string
	for _, ev := range events {
		if r, ok := ev.Body.(*transcript.BashRun); ok {
			out = append(out, r.Command)
		}
	}
	return strings.Join(out, "\n")
}

func TestPlayApproved(t *testing.T) {
	events := play(t, &tui.Decision{Approve: true, Scope: "once"})
	if got := decisions(events); strings.Join(got, ",") != "approve by tui,approve by tui" {
		t.Errorf("decisions %v", got)
	}
	if !strings.Contains(commands(events), "gh issue view 42") {
		t.Error("the approved command's run is missing")
	}
	if events[len(events)-1].Type != transcript.TypeSessionEnd {
		t.Error("the demo did not play to its end")
	}
	if age := time.Since(events[0].TS); age < 0 || age > time.Minute {
		t.Errorf("events are not stamped with the time they were played: %v", events[0].TS)
	}
}

func TestPlayDenied(t *testing.T) {
	events := play(t, &tui.Decision{Reason: "not now"})
	if got := decisions(events); strings.Join(got, ",") != "deny by tui,deny by tui" {
		t.Errorf("decisions %v", got)
	}
	if strings.Contains(commands(events), "gh issue view 42") {
		t.Error("a denied command still ran")
	}
}

func TestPlayUnanswered(t *testing.T) {
	events := play(t, nil)
	if got := decisions(events); strings.Join(got, ",") != "timeout by timeout,timeout by timeout" {
		t.Errorf("decisions %v", got)
	}
	for _, ev := range events {
		if r, ok := ev.Body.(*transcript.ApprovalRequest); ok && r.ExpiresAt == nil {
			t.Error("a request has no expiry")
		}
	}
}

func TestDecideWhenNotWaiting(t *testing.T) {
	p, err := New(demo.Session(), filepath.Join(t.TempDir(), ".cuff"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Decide(context.Background(), "nope", tui.Decision{Approve: true}); err == nil {
		t.Error("an answer to no pending request was accepted")
	}
}

func TestBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".cuff")
	if _, err := New(demo.Session(), dir, 0); err == nil || !strings.Contains(err.Error(), "more than 0") {
		t.Errorf("speed 0: %v", err)
	}
	if _, err := New([]byte("not json\n"), dir, 1); err == nil {
		t.Error("a session with no events was accepted")
	}
	bad := strings.Replace(string(demo.Session()), demo.SessionID, "../../etc", -1)
	if _, err := New([]byte(bad), dir, 1); err == nil || !strings.Contains(err.Error(), "not a session id") {
		t.Errorf("a bad id: %v", err)
	}
}

func TestStopsWithContext(t *testing.T) {
	p, err := New(demo.Session(), filepath.Join(t.TempDir(), ".cuff"), 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run does not stop when its context ends")
	}
	if n := len(played(t, p.Path())); n == 0 || n > 3 {
		t.Errorf("%d events played in 100 ms at human pace", n)
	}
}
