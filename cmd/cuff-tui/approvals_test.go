package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui"
)

// feedWait bounds each wait for a message from the approval feed.
const feedWait = 10 * time.Second

// serve runs serveApprovals on a broker in a temporary state directory;
// stop ends it and reports whether it returned.
func serve(t *testing.T, b *approval.Broker) (msgs <-chan tea.Msg, stop func() bool) {
	t.Helper()
	ch := make(chan tea.Msg, 16)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		serveApprovals(ctx, b, func(m tea.Msg) { ch <- m }, slog.New(slog.NewTextHandler(io.Discard, nil)))
	})
	stop = func() bool {
		cancel()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
			return true
		case <-time.After(feedWait):
			return false
		}
	}
	t.Cleanup(func() { stop() })
	return ch, stop
}

func next(t *testing.T, msgs <-chan tea.Msg) tea.Msg {
	t.Helper()
	select {
	case m := <-msgs:
		return m
	case <-time.After(feedWait):
		t.Fatal("no message from the approval feed")
		return nil
	}
}

func newBroker(t *testing.T) *approval.Broker {
	b := approval.New(filepath.Join(t.TempDir(), "state"))
	b.PollInterval = 50 * time.Millisecond
	return b
}

// TestServeApprovals: the TUI is announced while it runs, requests and
// decisions come through as the TUI's messages, answers go to the broker
// as "tui", and everything stops with the context.
func TestServeApprovals(t *testing.T) {
	b := newBroker(t)
	msgs, stop := serve(t, b)
	deadline := time.Now().Add(feedWait)
	for !b.AnyWatcher() {
		if time.Now().After(deadline) {
			t.Fatal("the TUI is not announced as a watcher")
		}
		time.Sleep(10 * time.Millisecond)
	}
	req, err := b.Submit(&approval.Request{CallID: "toolu_1", Session: approval.SessionRef{Dir: "/home/dev/proj/.cuff"},
		AgentSession: "claude:1", Agent: "claude-code", Tool: "Bash", Command: "curl -s https://example.com",
		WorkingDirectory: "/home/dev/proj", Taint: []string{"untrusted"}, Diff: "+x",
		Verdict: transcript.Verdict{Decision: "ask", Tier: "network", Rule: "curl *", Reasons: []string{"talks to other machines"}}})
	if err != nil {
		t.Fatal(err)
	}
	got, ok := next(t, msgs).(tui.ApprovalMsg)
	if !ok || got.Kind != tui.ApprovalRequested {
		t.Fatalf("first message %#v", got)
	}
	want := tui.Request{ID: req.ID, Project: "/home/dev/proj", Agent: "claude-code", Tool: "Bash", Command: "curl -s https://example.com",
		WorkingDirectory: "/home/dev/proj", Verdict: req.Verdict, Taint: []string{"untrusted"}, Diff: "+x",
		CreatedAt: req.CreatedAt, ExpiresAt: req.ExpiresAt}
	if g := got.Request; g.ID != want.ID || g.Project != want.Project || g.Command != want.Command || g.Agent != want.Agent ||
		g.WorkingDirectory != want.WorkingDirectory || g.Verdict.Rule != "curl *" || strings.Join(g.Taint, ",") != "untrusted" ||
		g.Diff != "+x" || !g.ExpiresAt.Equal(want.ExpiresAt) || !g.CreatedAt.Equal(want.CreatedAt) {
		t.Errorf("request\n got %+v\nwant %+v", g, want)
	}
	dec, err := brokerApprover{b: b}.Decide(context.Background(), req.ID, tui.Decision{Reason: "use the mirror"})
	if err != nil || dec.Decision != transcript.DecisionDeny || dec.By != approval.ByTUI || dec.Reason != "use the mirror" {
		t.Fatalf("decide: %+v %v", dec, err)
	}
	if d := b.Decision(req.ID); d == nil || d.By != approval.ByTUI || d.Reason != "use the mirror" {
		t.Errorf("the decision file says %+v", d)
	}
	got, ok = next(t, msgs).(tui.ApprovalMsg)
	if !ok || got.Kind != tui.ApprovalDecided || got.Request.ID != req.ID || got.Decision == nil || got.Decision.By != "tui" {
		t.Fatalf("decided %#v", got)
	}
	if _, err := (brokerApprover{b: b}).Decide(context.Background(), req.ID, tui.Decision{Approve: true, Scope: "once"}); err == nil {
		t.Error("a second answer was accepted")
	}
	if !stop() {
		t.Fatal("the approval feed does not stop with its context")
	}
	if b.AnyWatcher() {
		t.Error("the heartbeat outlives the TUI")
	}
}

// TestServeApprovalsHeartbeatFails: a heartbeat that cannot be written is
// shown, and requests are still fed.
func TestServeApprovalsHeartbeatFails(t *testing.T) {
	b := newBroker(t)
	if err := os.MkdirAll(b.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.Dir, "watchers"), nil, 0o600); err != nil { // a file where the folder goes
		t.Fatal(err)
	}
	msgs, stop := serve(t, b)
	n, ok := next(t, msgs).(tui.NoticeMsg)
	if !ok || !n.Err || !strings.Contains(n.Text, "could not announce this TUI") {
		t.Fatalf("notice %#v", n)
	}
	if _, err := b.Submit(&approval.Request{CallID: "c", Command: "make deploy"}); err != nil {
		t.Fatal(err)
	}
	if m, ok := next(t, msgs).(tui.ApprovalMsg); !ok || m.Request.Command != "make deploy" {
		t.Fatalf("request %#v", m)
	}
	if !stop() {
		t.Fatal("the approval feed does not stop with its context")
	}
}

func TestBrokerNotice(t *testing.T) {
	if n := brokerNotice(os.ErrPermission); !n.Err || !strings.Contains(n.Text, "Approvals are off") {
		t.Errorf("%#v", n)
	}
}
