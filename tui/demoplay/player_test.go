package demoplay

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/assets/demo"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
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

// broker is a real approval broker in a temporary state directory, whose
// requests time out after wait.
func broker(t *testing.T, wait time.Duration) *approval.Broker {
	t.Helper()
	b := approval.New(filepath.Join(t.TempDir(), "state"))
	b.Timeout = wait
	b.PollInterval = 20 * time.Millisecond
	return b
}

// answerAll answers every request filed with b with ans, as the TUI does,
// until ctx ends.
func answerAll(ctx context.Context, t *testing.T, b *approval.Broker, ans approval.Answer) {
	for ctx.Err() == nil {
		pending, err := b.Pending()
		if err != nil {
			t.Error(err)
			return
		}
		for _, r := range pending {
			if _, err := b.Decide(r.ID, ans); err != nil {
				t.Errorf("decide %s: %v", r.ID, err)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func play(t *testing.T, ans *approval.Answer) []*transcript.Event {
	t.Helper()
	// Answered requests get a minute, however slow the machine; unanswered
	// ones time out at once.
	wait := time.Minute
	if ans == nil {
		wait = 300 * time.Millisecond
	}
	b := broker(t, wait)
	p, err := New(demo.Session(), filepath.Join(t.TempDir(), ".cuff"), fast, b)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if ans != nil {
			answerAll(ctx, t, b, *ans)
		}
	}()
	err = p.Run(ctx)
	cancel()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if info := p.Info(); info.ID != demo.SessionID || info.Path != p.Path() || !info.Live {
		t.Errorf("info %+v", info)
	}
	events := played(t, p.Path())
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d (%s) has seq %d: the player and the broker number events together", i, ev.Type, ev.Seq)
		}
	}
	if pending, _ := b.Pending(); len(pending) != 0 {
		t.Errorf("%d requests left pending", len(pending))
	}
	return events
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
	ans := approval.Approve("once", approval.ByTUI)
	events := play(t, &ans)
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
	ans := approval.Deny("not now", approval.ByTUI)
	events := play(t, &ans)
	if got := decisions(events); strings.Join(got, ",") != "deny by tui,deny by tui" {
		t.Errorf("decisions %v", got)
	}
	for _, ev := range events {
		if d, ok := ev.Body.(*transcript.ApprovalDecision); ok && d.Reason != "not now" {
			t.Errorf("the reason given is not recorded: %+v", d)
		}
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

func TestBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".cuff")
	b := broker(t, time.Second)
	if _, err := New(demo.Session(), dir, 0, b); err == nil || !strings.Contains(err.Error(), "more than 0") {
		t.Errorf("speed 0: %v", err)
	}
	if _, err := New(demo.Session(), dir, 1, nil); err == nil || !strings.Contains(err.Error(), "broker") {
		t.Errorf("no broker: %v", err)
	}
	if _, err := New([]byte("not json\n"), dir, 1, b); err == nil {
		t.Error("a session with no events was accepted")
	}
	bad := strings.Replace(string(demo.Session()), demo.SessionID, "../../etc", -1)
	if _, err := New([]byte(bad), dir, 1, b); err == nil || !strings.Contains(err.Error(), "not a session id") {
		t.Errorf("a bad id: %v", err)
	}
}

func TestStopsWithContext(t *testing.T) {
	p, err := New(demo.Session(), filepath.Join(t.TempDir(), ".cuff"), 1, broker(t, time.Minute))
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

// TestStopsWhileAsking: quitting the demo while a request waits withdraws
// the request, so no prompt is left for a demo that is gone.
func TestStopsWhileAsking(t *testing.T) {
	b := broker(t, time.Minute)
	p, err := New(demo.Session(), filepath.Join(t.TempDir(), ".cuff"), fast, b)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	var id string
	for deadline := time.Now().Add(10 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if pending, _ := b.Pending(); len(pending) > 0 {
			id = pending[0].ID
		}
	}
	if id == "" {
		t.Fatal("the demo never filed its request")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if d := b.Decision(id); d == nil || d.Approved() {
		t.Errorf("the request of a stopped demo is not withdrawn: %+v", d)
	}
}

// TestFirstSecondsShowWork: at human pace the first 18 s of the demo play
// the prompt, the agent's reasoning and answer, and its first tool calls —
// no long wait before anything happens.
func TestFirstSecondsShowWork(t *testing.T) {
	b := approval.New(filepath.Join(t.TempDir(), "state"))
	p, err := New(demo.Session(), filepath.Join(t.TempDir(), ".cuff"), 1, b)
	if err != nil {
		t.Fatal(err)
	}
	var at time.Duration
	kinds := map[transcript.Type]int{}
	for i, ev := range p.events {
		if i > 0 {
			at += p.gap(p.events[i-1].TS, ev.TS)
		}
		if at > 18*time.Second {
			break
		}
		kinds[ev.Type]++
	}
	if kinds[transcript.TypeChatTurn] < 3 || kinds[transcript.TypeToolCall] < 2 {
		t.Errorf("the first 18 s play only %v", kinds)
	}
}
