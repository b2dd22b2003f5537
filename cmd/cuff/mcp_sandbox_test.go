package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/recorder/sandbox"
	"github.com/cuff-dev/cuff/transcript"
)

// sandboxedMCPProject is an MCP project whose temporary directory is its
// own, so that the sandbox can keep the home and state directories out.
func sandboxedMCPProject(t *testing.T, policy string) *mcpProject {
	t.Helper()
	if st := sandbox.Probe(os.Getenv); !st.Available() {
		t.Skipf("no sandbox on this machine: %s", st.Reason)
	}
	p := newMCPProject(t, "", policy)
	tmp := filepath.Join(filepath.Dir(p.root), "tmp")
	for _, d := range []string{tmp, p.home, filepath.Join(p.root, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p.env = []string{"TMPDIR=" + tmp}
	return p
}

// makefile writes its target outside the work tree, as a planted recipe
// would.
func makefile(t *testing.T, p *mcpProject, target string) {
	t.Helper()
	mk := "all:\n\techo built > " + target + "\n"
	if err := os.WriteFile(filepath.Join(p.root, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lastRun is the newest bash_run of a session.
func lastRun(t *testing.T, p *mcpProject, session string) *transcript.BashRun {
	t.Helper()
	var run *transcript.BashRun
	for _, ev := range p.sessionEvents(t, session) {
		if b, ok := ev.Body.(*transcript.BashRun); ok {
			run = b
		}
	}
	if run == nil {
		t.Fatal("no bash_run recorded")
	}
	return run
}

// TestMCPAllowedMakeRunsInTheSandbox: make is allowed, so it runs in the
// sandbox: its recipe's write outside the work tree fails, nothing is
// written, and the run is recorded as stopped by the sandbox.
func TestMCPAllowedMakeRunsInTheSandbox(t *testing.T) {
	p := sandboxedMCPProject(t, "")
	target := filepath.Join(p.home, "planted")
	makefile(t, p, target)
	s := p.connect(t)
	res, out := s.execute(t, map[string]any{"command": "make"})
	if !res.IsError || out.ExitCode == nil || *out.ExitCode == 0 {
		t.Fatalf("make succeeded outside the work tree: %s", resultText(res))
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the recipe wrote outside the work tree")
	}
	if !strings.Contains(resultText(res), "cuff's sandbox stopped: write "+target) {
		t.Errorf("the agent is not told what the sandbox stopped: %s", resultText(res))
	}
	run := lastRun(t, p, *out.SessionID)
	if run.Sandbox == nil || !run.Sandbox.Confined || len(run.Sandbox.Denied) == 0 || run.Sandbox.Denied[0].Path != target {
		t.Errorf("recorded sandbox: %+v", run.Sandbox)
	}
	if run.Error == nil || run.Error.Code != sandbox.CodeDenied {
		t.Errorf("recorded error: %+v", run.Error)
	}
	// A write inside the work tree goes through the same sandbox.
	res, out = s.execute(t, map[string]any{"command": "echo ok > inside && cat inside"})
	if res.IsError || out.Stdout != "ok\n" {
		t.Errorf("write in the work tree: %s", resultText(res))
	}
}

// TestMCPApprovedMakeRunsOutsideTheSandbox: the same make, asked about by
// a project rule and approved in the TUI, runs outside the sandbox, exactly
// as approved.
func TestMCPApprovedMakeRunsOutsideTheSandbox(t *testing.T) {
	p := sandboxedMCPProject(t, "rules:\n  - match: \"make\"\n    action: ask\n    reason: \"the test asks\"\n")
	target := filepath.Join(p.home, "built")
	makefile(t, p, target)
	decide(t, p.state, approval.Approve("once", approval.ByTUI))
	s := p.connect(t)
	res, out := s.execute(t, map[string]any{"command": "make"})
	if res.IsError {
		t.Fatalf("approved make: %s", resultText(res))
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "built\n" {
		t.Errorf("approved make did not write: %q %v", b, err)
	}
	if run := lastRun(t, p, *out.SessionID); run.Sandbox != nil {
		t.Errorf("an approved run is recorded as sandboxed: %+v", run.Sandbox)
	}
}

// TestMCPWithoutLandlockCodeRunningCommandsGetNoAllow: with no Landlock
// (simulated), make is not allowed by cuff; the MCP client's own approval
// stays in charge, and the command runs unconfined.
func TestMCPWithoutLandlock(t *testing.T) {
	p := sandboxedMCPProject(t, "")
	p.env = append(p.env, sandbox.SimulateEnv+"=0")
	target := filepath.Join(p.root, "built")
	makefile(t, p, target)
	s := p.connect(t)
	res, out := s.execute(t, map[string]any{"command": "make"})
	if res.IsError {
		t.Fatalf("make: %s", resultText(res))
	}
	if run := lastRun(t, p, *out.SessionID); run.Sandbox != nil {
		t.Errorf("recorded as sandboxed without Landlock: %+v", run.Sandbox)
	}
}
