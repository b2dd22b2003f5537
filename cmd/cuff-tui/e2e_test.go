package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/cuff-dev/cuff/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/dialog"
)

// binDir holds cuff and cuff-tui side by side, built once for the
// end-to-end tests: cuff starts cuff-tui from beside itself.
var binDir string

func TestMain(m *testing.M) {
	testenv.Scrub() // the tester's own cuff, Claude Code and Codex set-up stays out
	dir, err := os.MkdirTemp("", "cuff-tui-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	for _, b := range [][2]string{{"cuff", "../cuff"}, {"cuff-tui", "."}} {
		build := exec.Command("go", "build", "-o", filepath.Join(dir, b[0]), b[1])
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build", b[1], err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// screenWait bounds how long an end-to-end test waits for the screen or
// for the agent's answer.
const screenWait = 30 * time.Second

const e2eID = "20260118_143052_a7b3c9d2-e4f5"

// project is a project store with one recorded session, and a per-user
// state directory for the approval broker.
type project struct {
	root, dir, state string
	home             string // HOME for cuff; a new one per start when empty
	env              string // more VAR=value words for cuff's environment
}

func newProject(t *testing.T) project {
	t.Helper()
	root := t.TempDir()
	p := project{root: root, dir: filepath.Join(root, ".cuff"), state: filepath.Join(t.TempDir(), "state")}
	sessions := filepath.Join(p.dir, "recordings", "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	now := time.Now().UTC()
	for i, body := range []transcript.Body{
		&transcript.SessionStart{Agent: "claude-code", Title: "approvals end to", WorkingDirectory: root},
		&transcript.ChatTurn{Role: "assistant", Text: "I will fetch the page."},
	} {
		ev := transcript.New(e2eID, now, body)
		ev.Seq = int64(i + 1)
		ev.ID = transcript.EventID(e2eID, ev.Seq)
		line, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(sessions, e2eID+".jsonl"), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// start runs cuff (the session browser) on the project in tmux.
func (p project) start(t *testing.T) *tmuxtest.Session { return p.startSized(t, 120, 40) }

// startSized runs cuff on the project in a terminal of width×height.
func (p project) startSized(t *testing.T, width, height int, args ...string) *tmuxtest.Session {
	home := p.home
	if home == "" {
		home = t.TempDir()
	}
	env := fmt.Sprintf("env HOME=%s XDG_STATE_HOME=%s/xdg-state XDG_CONFIG_HOME=%s/config CUFF_STATE_DIR=%s TERM=xterm-256color CUFF_DIR= CUFF_TUI= TZ=UTC",
		home, home, home, p.state)
	if p.env != "" {
		env += " " + p.env
	}
	return tmuxtest.StartSized(t, width, height, fmt.Sprintf("%s %s --dir %s %s", env, filepath.Join(binDir, "cuff"), p.dir, strings.Join(args, " ")))
}

// agentAsk files a request from another goroutine, as an agent's hook does,
// once the TUI has announced itself, and returns where its decision will
// come.
func (p project) agentAsk(t *testing.T, command string) (*approval.Broker, <-chan *approval.Decision) {
	t.Helper()
	b := approval.New(p.state)
	deadline := time.Now().Add(screenWait)
	for !b.AnyWatcher() {
		if time.Now().After(deadline) {
			t.Fatal("the TUI never announced itself to requesters")
		}
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan *approval.Decision, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, d, err := b.Ask(ctx, &approval.Request{CallID: "toolu_e2e", Session: approval.SessionRef{Dir: p.dir,
			Recordings: filepath.Join(p.dir, "recordings"), ID: e2eID}, AgentSession: "claude:e2e", Agent: "claude-code",
			Tool: "Bash", Command: command, WorkingDirectory: p.root,
			Verdict: transcript.Verdict{Decision: "ask", Tier: "network", Reasons: []string{"reaches other machines"}}})
		if err != nil && ctx.Err() == nil {
			t.Errorf("ask: %v", err)
		}
		out <- d
	}()
	t.Cleanup(func() { cancel(); <-done })
	return b, out
}

func decision(t *testing.T, ch <-chan *approval.Decision) *approval.Decision {
	t.Helper()
	select {
	case d := <-ch:
		if d == nil {
			t.Fatal("no decision")
		}
		return d
	case <-time.After(screenWait):
		t.Fatal("the agent never got an answer")
		return nil
	}
}

// decisionFile reads the broker's decision file of request id.
func decisionFile(t *testing.T, state, id string) *approval.Decision {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(state, "approvals", "decided", id+".json"))
	if err != nil {
		t.Fatalf("no decision file: %v", err)
	}
	d, err := approval.ParseDecision(data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// pastGrace waits out the prompt's grace period, after which keys count.
func pastGrace() { time.Sleep(dialog.GracePeriod + 200*time.Millisecond) }

// TestTUIApprovalApprove: while cuff shows the session list, an agent
// asks through the broker; the prompt pops up with the command, a approves
// it, the agent gets the approval, the decision file says tui, and the
// session shows the decision in its timeline.
func TestTUIApprovalApprove(t *testing.T) {
	p := newProject(t)
	ts := p.start(t)
	ts.WaitScreen("1 session", "approvals end to")
	b, answer := p.agentAsk(t, "curl -s https://example.com/e2e-approve")
	ts.WaitScreen("Approval requested", "$ curl -s https://example.com/e2e-approve", "reaches other machines", "⚠ 1 pending",
		"claude-code · session 143052_a7b3c9d2 · project")
	pastGrace()
	ts.Keys("a")
	d := decision(t, answer)
	if !d.Approved() || d.Scope != transcript.ScopeOnce || d.By != approval.ByTUI {
		t.Errorf("the agent got %+v", d)
	}
	if f := decisionFile(t, p.state, d.RequestID); f.By != "tui" || f.Decision != "approve" || !f.Recorded {
		t.Errorf("decision file %+v", f)
	}
	if pending, _ := b.Pending(); len(pending) != 0 {
		t.Errorf("still pending: %v", pending)
	}
	ts.WaitFor("Approved (once), and the request no longer counted", func(s string) bool {
		return strings.Contains(s, "Approved (once)") && !strings.Contains(s, "⚠ 1 pending")
	})
	ts.Keys("Enter")
	ts.WaitScreen("⚠ Approval requested", "✓ approved once by tui")
	ts.Keys("q")
}

// TestTUIApprovalDenyWithReason: the prompt pops up over the session on
// screen; d asks for a reason, which goes back to the agent.
func TestTUIApprovalDenyWithReason(t *testing.T) {
	p := newProject(t)
	ts := p.start(t)
	ts.WaitScreen("1 session")
	ts.Keys("Enter")
	ts.WaitScreen("I will fetch the page.")
	_, answer := p.agentAsk(t, "wget https://example.com/e2e-deny")
	ts.WaitScreen("Approval requested", "$ wget https://example.com/e2e-deny", "the session on screen")
	pastGrace()
	ts.Keys("d")
	ts.WaitScreen("the reason goes back to the agent")
	ts.Type("use the internal mirror")
	ts.WaitScreen("use the internal mirror")
	ts.Keys("Enter")
	d := decision(t, answer)
	if d.Approved() || d.Reason != "use the internal mirror" || d.By != approval.ByTUI {
		t.Errorf("the agent got %+v", d)
	}
	if f := decisionFile(t, p.state, d.RequestID); f.By != "tui" || f.Decision != "deny" || f.Reason != "use the internal mirror" {
		t.Errorf("decision file %+v", f)
	}
	ts.WaitScreen("✗ denied by tui", "reason: use the internal mirror")
	ts.Keys("q")
}
