package tui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/browser"
	"github.com/cuff-dev/cuff/tui/dialog"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
)

// cmdWait is how long a test waits for commands' messages when it expects
// no decision; timers (ticks, refreshes) take longer and are left out.
// decisionWait bounds the wait for the decisions an answer sets off,
// however slow the machine.
const (
	cmdWait      = 50 * time.Millisecond
	decisionWait = 10 * time.Second
)

// brokerStandIn answers like the approval broker: it keeps the answers, may
// fail, and reports the rule an "always" adds.
type brokerStandIn struct {
	Approver
	mu   sync.Mutex
	got  []string
	fail error
}

func (b *brokerStandIn) Decide(_ context.Context, id string, d Decision) (*transcript.ApprovalDecision, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail != nil {
		return nil, b.fail
	}
	if d.Approve {
		b.got = append(b.got, id+" approve "+d.Scope)
		dec := &transcript.ApprovalDecision{RequestID: id, Decision: transcript.DecisionApprove, Scope: d.Scope, By: "tui"}
		if d.Scope == transcript.ScopeAlways {
			dec.RuleAdded = "allow exact `make deploy` in /p/.cuff/policy.yml"
		}
		return dec, nil
	}
	b.got = append(b.got, id+" deny: "+d.Reason)
	return &transcript.ApprovalDecision{RequestID: id, Decision: transcript.DecisionDeny, By: "tui", Reason: d.Reason}, nil
}

func (b *brokerStandIn) answers() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.got...)
}

// messages runs a command and what it batches, all at once, and returns
// the messages that came back: within cmdWait, or, when decisions > 0,
// once that many decidedMsg have come (within decisionWait).
func messages(cmd tea.Cmd, decisions int) []tea.Msg {
	if cmd == nil {
		return nil
	}
	results := make(chan tea.Msg, 64)
	var run func(c tea.Cmd)
	run = func(c tea.Cmd) {
		go func() { results <- c() }()
	}
	run(cmd)
	outstanding := 1
	timeout := time.After(cmdWait)
	if decisions > 0 {
		timeout = time.After(decisionWait)
	}
	var out []tea.Msg
	for outstanding > 0 {
		select {
		case msg := <-results:
			outstanding--
			if batch, ok := msg.(tea.BatchMsg); ok {
				for _, c := range batch {
					if c != nil {
						run(c)
						outstanding++
					}
				}
				continue
			}
			out = append(out, msg)
			if _, ok := msg.(decidedMsg); ok {
				decisions--
				if decisions == 0 {
					return out
				}
			}
		case <-timeout:
			return out // what is left are timers
		}
	}
	return out
}

// step hands the model a message and then the results of the commands it
// returns that answer approvals, as the program would.
func step(t *testing.T, m Model, msg tea.Msg) Model {
	t.Helper()
	before := len(m.answered)
	next, cmd := m.Update(msg)
	m = next.(Model)
	answers := 0
	if m.opts.Approver != nil {
		answers = max(0, len(m.answered)-before) // each sets off a decision
	}
	for _, out := range messages(cmd, answers) {
		if d, ok := out.(decidedMsg); ok {
			next, _ = m.Update(d)
			m = next.(Model)
		}
	}
	return m
}

func typeKeys(t *testing.T, m Model, keys ...string) Model {
	t.Helper()
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		default:
			for _, r := range k {
				m = step(t, m, tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		m = step(t, m, msg)
	}
	return m
}

// request is a pending request created at t, expiring five minutes on.
func request(id, command string, t time.Time) Request {
	return Request{ID: id, SessionID: fixture.ID, Project: "/p", Agent: "claude-code", Tool: "Bash", Command: command,
		WorkingDirectory: "/p/src", Verdict: transcript.Verdict{Decision: "ask", Tier: "network", Reasons: []string{"talks to other machines"}},
		CreatedAt: t, ExpiresAt: t.Add(5 * time.Minute)}
}

func requested(r Request) ApprovalMsg { return ApprovalMsg{Kind: ApprovalRequested, Request: r} }

// openPrompt is the request id of the prompt on top, or "".
func openPrompt(m Model) string {
	if a, ok := m.dialogs.Top().(*dialog.Approval); ok {
		return a.ID()
	}
	return ""
}

func screen(m Model) string { return ansi.Strip(m.View().Content) }

// feedModel is the session list of a store with an approval feed.
func feedModel(t *testing.T, ap Approver, ck *clock) Model {
	t.Helper()
	s := store(t, fixture.Session().JSONL())
	m := New(Options{Sources: []session.Source{s.Source()}, Approver: ap, ApprovalFeed: true, Now: ck.now, Location: time.UTC})
	return drive(m, tea.WindowSizeMsg{Width: 120, Height: 40}, browser.List(context.Background(), m.opts.Sources)())
}

// TestApprovalQueue: two requests queue oldest first; the first is
// approved, the second denied with a typed reason; a third is put off
// with esc and reopened with a, then always allowed.
func TestApprovalQueue(t *testing.T) {
	ck := newClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	ap := &brokerStandIn{}
	m := feedModel(t, ap, ck)
	t0 := ck.now()
	// The newer one arrives first: the queue still starts with the oldest.
	m = step(t, m, requested(request("r2", "curl https://example.com", t0.Add(time.Second))))
	m = step(t, m, requested(request("r1", "git push origin main", t0)))
	m = step(t, m, requested(request("r1", "git push origin main", t0))) // reported twice
	if m.queue.len() != 2 {
		t.Fatalf("queue of %d", m.queue.len())
	}
	if openPrompt(m) != "r2" {
		t.Fatalf("the first request to arrive did not pop up: %q", openPrompt(m))
	}
	v := screen(m)
	for _, want := range []string{"Approval requested · 1 more waiting", "$ curl https://example.com", "⚠ 2 pending", "in /p/src", "gated:  network"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
	m = typeKeys(t, m, "a") // in the grace period: ignored
	if got := ap.answers(); len(got) != 0 || openPrompt(m) != "r2" {
		t.Fatalf("a key in the grace period answered: %v", got)
	}
	ck.add(dialog.GracePeriod)
	m = typeKeys(t, m, "a")
	if got := ap.answers(); strings.Join(got, "|") != "r2 approve once" {
		t.Fatalf("answers %v", got)
	}
	if openPrompt(m) != "r1" || m.queue.len() != 1 || !strings.Contains(screen(m), "Approved (once)") {
		t.Fatalf("the next request did not follow: prompt %q, queue %d\n%s", openPrompt(m), m.queue.len(), screen(m))
	}
	m = typeKeys(t, m, "d") // the next prompt popped up on its own: grace again
	if a := m.dialogs.Top().(*dialog.Approval); a.Typing() {
		t.Fatal("a key in the next prompt's grace period was taken")
	}
	ck.add(dialog.GracePeriod)
	m = typeKeys(t, m, "d", "use the mirror: asA") // letters that answer elsewhere are text here
	if len(ap.answers()) != 1 {
		t.Fatalf("typing the reason answered: %v", ap.answers())
	}
	m = typeKeys(t, m, "enter")
	if got := ap.answers(); len(got) != 2 || got[1] != "r1 deny: use the mirror: asA" {
		t.Fatalf("answers %v", got)
	}
	if m.dialogs.Len() != 0 || m.queue.len() != 0 || strings.Contains(screen(m), "pending") {
		t.Fatalf("the queue is not empty:\n%s", screen(m))
	}
	// The broker reports the decisions made here: no "elsewhere" toast.
	for _, id := range []string{"r1", "r2"} {
		m = step(t, m, ApprovalMsg{Kind: ApprovalDecided, Request: Request{ID: id},
			Decision: &transcript.ApprovalDecision{RequestID: id, Decision: "approve", By: "tui"}})
	}
	if strings.Contains(screen(m), "elsewhere") {
		t.Error("a decision made here is reported as made elsewhere")
	}

	// esc leaves a request for later; a reopens it, with no grace.
	m = step(t, m, requested(request("r3", "make deploy", ck.now())))
	ck.add(dialog.GracePeriod)
	m = typeKeys(t, m, "esc")
	if m.dialogs.Len() != 0 || m.queue.len() != 1 {
		t.Fatalf("esc: dialogs %d, queue %d", m.dialogs.Len(), m.queue.len())
	}
	v = screen(m)
	if !strings.Contains(v, "Left for later: press a to answer it") || !strings.Contains(v, "⚠ 1 pending") {
		t.Errorf("esc:\n%s", v)
	}
	ck.add(toastDuration)
	m = step(t, m, tickMsg{})
	if v := screen(m); !strings.Contains(v, "a answer 1 pending") {
		t.Errorf("the footer does not offer the pending request:\n%s", v)
	}
	m = typeKeys(t, m, "a")
	if openPrompt(m) != "r3" {
		t.Fatal("a does not reopen the request")
	}
	m = typeKeys(t, m, "A")
	if got := ap.answers(); got[len(got)-1] != "r3 approve always" {
		t.Fatalf("answers %v", got)
	}
	if v := screen(m); !strings.Contains(v, "Always allowed: added the policy rule allow exact `make deploy`") {
		t.Errorf("the rule added is not shown:\n%s", v)
	}
}

// TestApprovalDecidedElsewhereVanishes: a request decided by someone
// else, withdrawn, or timed out leaves the queue with a toast, and the next
// one takes its place.
func TestApprovalDecidedElsewhereVanishes(t *testing.T) {
	ck := newClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	ap := &brokerStandIn{}
	m := feedModel(t, ap, ck)
	t0 := ck.now()
	m = step(t, m, requested(request("r1", "git push", t0)))
	m = step(t, m, requested(request("r2", "curl x", t0.Add(time.Second))))
	m = step(t, m, requested(request("r3", "wget y", t0.Add(2*time.Second))))
	m = step(t, m, ApprovalMsg{Kind: ApprovalDecided, Request: Request{ID: "r1"},
		Decision: &transcript.ApprovalDecision{RequestID: "r1", Decision: "approve", Scope: "once", By: "cli"}})
	if openPrompt(m) != "r2" || m.queue.len() != 2 {
		t.Fatalf("prompt %q, queue %d", openPrompt(m), m.queue.len())
	}
	if v := screen(m); !strings.Contains(v, "Decided elsewhere (approved by cli): git push") {
		t.Errorf("no toast:\n%s", v)
	}
	m = step(t, m, ApprovalMsg{Kind: ApprovalWithdrawn, Request: Request{ID: "r3"}})
	if openPrompt(m) != "r2" || m.queue.len() != 1 || !strings.Contains(screen(m), "Request withdrawn: wget y") {
		t.Fatalf("withdrawn: prompt %q, queue %d\n%s", openPrompt(m), m.queue.len(), screen(m))
	}
	// A late report of a request already closed does not bring it back.
	m = step(t, m, requested(request("r1", "git push", t0)))
	if m.queue.len() != 1 {
		t.Fatal("a decided request came back")
	}
	ck.add(6 * time.Minute)
	m = step(t, m, tickMsg{})
	if m.dialogs.Len() != 0 || m.queue.len() != 0 || !strings.Contains(screen(m), "timed out (denied): curl x") {
		t.Fatalf("expired: dialogs %d, queue %d\n%s", m.dialogs.Len(), m.queue.len(), screen(m))
	}
	if len(ap.answers()) != 0 {
		t.Errorf("answers %v", ap.answers())
	}
}

// TestApprovalAnswerFails: an answer the broker refuses leaves the request
// pending, for a to try again.
func TestApprovalAnswerFails(t *testing.T) {
	ck := newClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	ap := &brokerStandIn{fail: errors.New("the request names no agent session")}
	m := feedModel(t, ap, ck)
	m = step(t, m, requested(request("r1", "git push", ck.now())))
	ck.add(dialog.GracePeriod)
	m = typeKeys(t, m, "s")
	if m.dialogs.Len() != 0 || m.queue.len() != 1 {
		t.Fatalf("dialogs %d, queue %d", m.dialogs.Len(), m.queue.len())
	}
	if v := screen(m); !strings.Contains(v, "Could not answer: the request names no agent session (press a to try again)") {
		t.Errorf("no error:\n%s", v)
	}
	ap.fail = nil
	m = typeKeys(t, m, "a", "a")
	if got := ap.answers(); len(got) != 1 || got[0] != "r1 approve once" {
		t.Errorf("answers %v", got)
	}
}

// TestApprovalPopsOverAnyPage: a request pops up over the session on
// screen and over the help; the timeline does not pop prompts of its own
// when a feed is there.
func TestApprovalPopsOverAnyPage(t *testing.T) {
	ck := newClock(time.Now().UTC())
	b := fixture.NewBuilder()
	b.TS = ck.now()
	b.Add(&transcript.SessionStart{Agent: "claude-code"}, "", "")
	b.Add(&transcript.ApprovalRequest{RequestID: "r1", Tool: "Bash", Command: "git push origin main"}, "c1", "")
	s := store(t, b.JSONL())
	m := New(Options{Sources: []session.Source{s.Source()}, Approver: &brokerStandIn{}, ApprovalFeed: true, Now: ck.now})
	hs := run(t, m, 120, 40)
	hs.waitFor(t, "1 session")
	hs.key("enter")
	hs.waitFor(t, "git push origin main", "waiting")
	time.Sleep(100 * time.Millisecond)
	hs.key("?")
	hs.waitFor(t, "Keys: session view")
	hs.tm.Send(requested(request("r1", "git push origin main", ck.now())))
	frame := hs.waitFor(t, "Approval requested", "the session on screen", "⚠ 1 pending")
	if strings.Count(frame, "Approval requested") != 2 { // the timeline's item and the prompt
		t.Errorf("the prompt is not over the session:\n%s", frame)
	}
	ck.add(dialog.GracePeriod)
	hs.key("a")
	hs.waitFor(t, "Keys: session view", "Approved (once)")
	hs.key("esc")
	fm := hs.quit(t)
	if fm.dialogs.Len() != 0 || fm.queue.len() != 0 {
		t.Errorf("dialogs %d, queue %d", fm.dialogs.Len(), fm.queue.len())
	}
}

func TestElsewhereText(t *testing.T) {
	r := Request{Command: "curl -s https://example.com"}
	for _, c := range []struct {
		msg  ApprovalMsg
		want string
	}{
		{ApprovalMsg{Kind: ApprovalWithdrawn}, "Request withdrawn: curl"},
		{ApprovalMsg{Decision: &transcript.ApprovalDecision{Decision: transcript.DecisionTimeout, By: "timeout"}}, "Request timed out (denied): curl"},
		{ApprovalMsg{Decision: &transcript.ApprovalDecision{Decision: transcript.DecisionDeny, By: "agent"}}, "The agent stopped waiting (withdrawn): curl"},
		{ApprovalMsg{Decision: &transcript.ApprovalDecision{Decision: transcript.DecisionApprove, By: "cli"}}, "Decided elsewhere (approved by cli): curl"},
	} {
		if got := elsewhereText(r, c.msg); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: %q, want %q…", c.msg, got, c.want)
		}
	}
}
