package mcpserver

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cuff-dev/cuff/recorder/gate"
)

// TestRunOutsideSandboxForgetsGates: a gate kept for a working directory
// read the user's git configuration once; a command that ran outside the
// sandbox (here every command: the tests run without one) may have changed
// it, so the next command gets a new gate, which sees the change.
func TestRunOutsideSandboxForgetsGates(t *testing.T) {
	// A person would approve the write to ~/.gitconfig; here the setting
	// lets asked commands run when no TUI watches.
	p := newProject(t, "approvals:\n  mcp_no_watcher: allow\n")
	home := t.TempDir()
	t.Setenv("HOME", home)
	if out, err := exec.Command("git", "init", "-q", p.root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	hooks := filepath.Join(home, "hooks")
	if err := os.MkdirAll(hooks, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	ts := serve(t, p, func(o *Options) { o.Home = home }, nil, "")
	if res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "true"}, nil); res.IsError {
		t.Fatalf("first run: %s", text(res))
	}
	ts.srv.mu.Lock()
	c := ts.srv.cfg
	ts.srv.mu.Unlock()
	before, err := c.gate(p.root, home)
	if err != nil {
		t.Fatal(err)
	}
	commit := func(g *gate.Gate) gate.Verdict {
		return g.Decide(t.Context(), "git commit -m x", gate.Input{}).Verdict
	}
	if v := commit(before); v != gate.VerdictAllow {
		t.Fatalf("git commit with no hook: %s, want allow", v)
	}
	// The run (outside the sandbox) points git at a hooks folder.
	cfg := "printf '[core]\\n\\thooksPath = " + hooks + "\\n' > " + filepath.Join(home, ".gitconfig")
	if res := ts.call(t, "bash_recorder.execute", map[string]any{"command": cfg}, nil); res.IsError {
		t.Fatalf("run: %s", text(res))
	}
	if _, err := os.Stat(filepath.Join(home, ".gitconfig")); err != nil {
		t.Fatalf("the run wrote no git configuration: %v", err)
	}
	after, err := c.gate(p.root, home)
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Fatal("the gate kept from before the run is used again")
	}
	if v := commit(after); v != gate.VerdictNone {
		t.Errorf("git commit, which now runs %s/pre-commit: %s, want none (agent code outside the sandbox)", hooks, v)
	}
}
