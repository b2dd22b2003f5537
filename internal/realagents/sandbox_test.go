package realagents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	at "github.com/cuff-dev/cuff/internal/agenttest"
	"github.com/cuff-dev/cuff/recorder/sandbox"
)

// TestClaudeRunsAllowedCommandsInTheSandbox: the real Claude Code, with
// cuff's hook, runs what cuff allows inside cuff's sandbox (the hook's
// updatedInput) and keeps its own shell semantics: cd sub, then pwd,
// prints sub; an allowed go test runs and passes; an allowed make whose
// recipe writes ~/.bashrc fails with a permission error, the file is left
// alone, and the recording says the sandbox stopped it.
func TestClaudeRunsAllowedCommandsInTheSandbox(t *testing.T) {
	if st := sandbox.Probe(os.Getenv); !st.Available() {
		t.Skipf("no sandbox on this machine: %s", st.Reason)
	}
	e := hooked(t)
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		e.Vars = append(e.Vars, k+"="+strings.TrimSpace(string(out)))
	}
	e.Vars = append(e.Vars, "GOTOOLCHAIN=local", "GOFLAGS=")
	bashrc := filepath.Join(e.Home, ".bashrc")
	e.WriteFile(bashrc, "# mine\n")
	e.WriteFile(filepath.Join(e.Project, "sub", "keep"), "")
	e.WriteFile(filepath.Join(e.Project, "go.mod"), "module example.com/m\n\ngo 1.21\n")
	e.WriteFile(filepath.Join(e.Project, "m_test.go"), "package m\n\nimport \"testing\"\n\nfunc TestOne(t *testing.T) {}\n")
	e.WriteFile(filepath.Join(e.Project, "Makefile"), "all:\n\techo pwned >> "+bashrc+"\n")

	m := at.NewAnthropic(t, at.Say("work in sub",
		at.Turn(at.Bash("cd sub").WithID("toolu_cd")),
		at.Turn(at.Bash("pwd").WithID("toolu_pwd")),
		at.Turn(at.Bash("cd .. && go test ./...").WithID("toolu_test")),
		at.Turn(at.Bash("make").WithID("toolu_make")),
		at.Turn(at.Text("Done.")),
	))
	r := e.RunClaude(m, "work in sub")
	if r.Code != 0 {
		t.Fatalf("claude exit %d\n%s", r.Code, r.Stderr)
	}
	if res, ok := m.Result("toolu_pwd"); !ok || res.IsError || strings.TrimSpace(res.Output) != filepath.Join(e.Project, "sub") {
		t.Errorf("pwd after cd sub: %+v", res)
	}
	if res, ok := m.Result("toolu_test"); !ok || res.IsError || !strings.Contains(res.Output, "ok  \texample.com/m") {
		t.Errorf("go test: %+v", res)
	}
	if res, ok := m.Result("toolu_make"); !ok || !res.IsError || !strings.Contains(res.Output, "Permission denied") {
		t.Errorf("make writing ~/.bashrc: %+v", res)
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# mine\n" {
		t.Errorf("~/.bashrc is now %q", b)
	}
	_, evs := e.Recording(r.SessionID)
	var confined, stopped int
	for _, ev := range evs {
		if ev.Type() != "bash_run" {
			continue
		}
		if cmd := ev.Str("command"); strings.Contains(cmd, "__cuff_cd") {
			t.Errorf("recorded the rewrite, not the agent's command: %s", cmd)
		}
		sb, _ := ev["sandbox"].(map[string]any)
		if sb == nil {
			continue
		}
		confined++
		if denied, _ := sb["denied"].([]any); len(denied) > 0 {
			if d, _ := denied[0].(map[string]any); d["path"] == bashrc {
				stopped++
			}
		}
	}
	if confined != 4 || stopped != 1 {
		t.Errorf("recorded: %d runs confined (want 4), %d stopped writing ~/.bashrc (want 1)", confined, stopped)
	}
}

// TestCodexMCPMakeRunsInTheSandbox: Codex calls cuff mcp's execute with an
// allowed make whose recipe writes ~/.bashrc: it runs in the sandbox, the
// write fails, the model is told what the sandbox stopped, and the
// recording says so.
func TestCodexMCPMakeRunsInTheSandbox(t *testing.T) {
	if st := sandbox.Probe(os.Getenv); !st.Available() {
		t.Skipf("no sandbox on this machine: %s", st.Reason)
	}
	e := at.New(t)
	bashrc := filepath.Join(e.Home, ".bashrc")
	e.WriteFile(bashrc, "# mine\n")
	e.WriteFile(filepath.Join(e.Project, "Makefile"), "all:\n\techo pwned >> "+bashrc+"\n")
	m := at.NewResponses(t, at.Say("build it",
		at.Turn(at.MCP("cuff", "bash_recorder_execute", map[string]any{"command": "make"}).WithID("call_make")),
		at.Turn(at.Text("The build was stopped.")),
	))
	e.CodexConfig(m, at.MCPServer{Name: "cuff", Command: at.CuffBin(t), Args: []string{"mcp"},
		Approved: []string{"bash_recorder.execute"}})
	r := e.RunCodex("build it")
	if r.Code != 0 {
		t.Fatalf("codex exit %d\n%s", r.Code, r.Stderr)
	}
	// Codex hands the model the structured result: the denial is in it.
	if res, ok := m.Result("call_make"); !ok || !strings.Contains(res.Output, `"sandbox":{"confined":true,"denied":[{"op":"write","path":"`+bashrc+`"`) {
		t.Errorf("the model got %+v", res)
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# mine\n" {
		t.Errorf("~/.bashrc is now %q", b)
	}
	stopped := false
	for _, s := range e.Sessions() {
		for _, ev := range e.Events(s.Str("session_id")) {
			if sb, _ := ev["sandbox"].(map[string]any); ev.Type() == "bash_run" && sb != nil {
				if denied, _ := sb["denied"].([]any); len(denied) > 0 {
					stopped = denied[0].(map[string]any)["path"] == bashrc
				}
			}
		}
	}
	if !stopped {
		t.Error("the recording does not say the sandbox stopped the write to ~/.bashrc")
	}
}

// TestCodexMCPMakeApprovedInTUIRunsOutsideTheSandbox: the same make, asked
// about by a project rule and approved by a person in cuff's TUI, runs
// outside the sandbox, exactly as approved: its recipe's write outside the
// work tree goes through.
func TestCodexMCPMakeApprovedInTUIRunsOutsideTheSandbox(t *testing.T) {
	if st := sandbox.Probe(os.Getenv); !st.Available() {
		t.Skipf("no sandbox on this machine: %s", st.Reason)
	}
	e := at.New(t)
	built := filepath.Join(e.Home, "built")
	e.WriteFile(filepath.Join(e.Project, "Makefile"), "all:\n\techo built > "+built+"\n")
	e.WriteFile(filepath.Join(e.Store(), "policy.yml"), "rules:\n  - match: \"make\"\n    action: ask\n    reason: \"a person approves builds\"\n")
	m := at.NewResponses(t, at.Say("build it",
		at.Turn(at.MCP("cuff", "bash_recorder_execute", map[string]any{"command": "make"}).WithID("call_make")),
		at.Turn(at.Text("Built.")),
	))
	e.CodexConfig(m, at.MCPServer{Name: "cuff", Command: at.CuffBin(t), Args: []string{"mcp"},
		Approved: []string{"bash_recorder.execute"}})
	ts := e.StartTUI(t)
	p := e.StartCodex("build it")
	ts.WaitScreen("make", promptHelp)
	press(t, ts, "a", "")
	r := e.CodexResult(p)
	if r.Code != 0 {
		t.Fatalf("codex exit %d\n%s", r.Code, r.Stderr)
	}
	if b, err := os.ReadFile(built); err != nil || string(b) != "built\n" {
		t.Errorf("the approved make did not write outside the work tree: %q %v", b, err)
	}
	if res, ok := m.Result("call_make"); !ok || strings.Contains(res.Output, `"sandbox"`) {
		t.Errorf("the approved run reads as sandboxed: %+v", res)
	}
}

// TestClaudeMakeApprovedInTUIRunsOutsideTheSandbox: through the hook too,
// a command a person approved in the TUI runs as approved, unconfined.
func TestClaudeMakeApprovedInTUIRunsOutsideTheSandbox(t *testing.T) {
	if st := sandbox.Probe(os.Getenv); !st.Available() {
		t.Skipf("no sandbox on this machine: %s", st.Reason)
	}
	e := hooked(t)
	built := filepath.Join(e.Home, "built")
	e.WriteFile(filepath.Join(e.Project, "Makefile"), "all:\n\techo built > "+built+"\n")
	e.WriteFile(filepath.Join(e.Store(), "policy.yml"), "rules:\n  - match: \"make\"\n    action: ask\n    reason: \"a person approves builds\"\n")
	m := at.NewAnthropic(t, at.Say("build it",
		at.Turn(at.Bash("make").WithID("toolu_make")),
		at.Turn(at.Text("Built.")),
	))
	ts := e.StartTUI(t)
	p := e.StartClaude(m, "build it")
	ts.WaitScreen("make", promptHelp)
	press(t, ts, "a", "")
	r := e.ClaudeResult(p)
	if r.Code != 0 || len(r.Denials()) != 0 {
		t.Fatalf("claude exit %d, denials %v\n%s", r.Code, r.Denials(), r.Stderr)
	}
	if b, err := os.ReadFile(built); err != nil || string(b) != "built\n" {
		t.Errorf("the approved make did not write outside the work tree: %q %v", b, err)
	}
	_, evs := e.Recording(r.SessionID)
	for _, ev := range evs {
		if ev.Type() == "bash_run" && ev["sandbox"] != nil {
			t.Errorf("the approved run is recorded as sandboxed: %v", ev)
		}
	}
}

// TestClaudeOwnDenyRulesStillApply: cuff's sandbox rewrite must not hide a
// command from Claude Code's own permission rules (which Claude Code checks
// against the rewritten input): a command one of them may match is left
// to Claude Code, whose rule then denies it, from a settings file or from
// its command line.
func TestClaudeOwnDenyRulesStillApply(t *testing.T) {
	if st := sandbox.Probe(os.Getenv); !st.Available() {
		t.Skipf("no sandbox on this machine: %s", st.Reason)
	}
	for _, c := range []struct {
		name string
		args []string
	}{{"settings file", nil}, {"command line", []string{"--disallowedTools", "Bash(ls:*)"}}} {
		t.Run(c.name, func(t *testing.T) {
			e := hooked(t)
			if c.args == nil {
				e.WriteFile(filepath.Join(e.Project, ".claude", "settings.json"), `{"permissions":{"deny":["Bash(ls:*)"]}}`)
			}
			m := at.NewAnthropic(t, at.Say("list",
				at.Turn(at.Bash("ls -a").WithID("toolu_ls"), at.Bash("pwd").WithID("toolu_pwd")),
				at.Turn(at.Text("ok")),
			))
			r := e.RunClaude(m, "list", c.args...)
			if r.Code != 0 {
				t.Fatalf("claude exit %d\n%s", r.Code, r.Stderr)
			}
			if res, ok := m.Result("toolu_ls"); !ok || !res.IsError || !strings.Contains(res.Output, "denied") {
				t.Errorf("ls under a deny rule: %+v", res)
			}
			if res, ok := m.Result("toolu_pwd"); !ok || res.IsError || strings.TrimSpace(res.Output) != e.Project {
				t.Errorf("pwd, which no rule names: %+v", res)
			}
		})
	}
}

// TestClaudePlantedRuleDoesNotTakeACommandOutOfTheSandbox: an allowed
// make, sandboxed, writes an ask rule for make into the project's
// .claude/settings.local.json (the work tree is writable in the sandbox).
// Claude Code read its settings at start and does not see it; cuff's hook
// does, and must not answer by leaving make to Claude Code's own flow,
// which here (an allow rule for make on its command line) would run the
// next make unconfined: it asks instead, and the write outside the work
// tree never happens.
func TestClaudePlantedRuleDoesNotTakeACommandOutOfTheSandbox(t *testing.T) {
	if st := sandbox.Probe(os.Getenv); !st.Available() {
		t.Skipf("no sandbox on this machine: %s", st.Reason)
	}
	e := hooked(t)
	escaped := filepath.Join(e.Home, "escaped")
	e.WriteFile(filepath.Join(e.Project, "rule.json"), `{"permissions": {"ask": ["Bash(make:*)"]}}`)
	e.WriteFile(filepath.Join(e.Project, "Makefile"), "all:\n\tmkdir -p .claude && cp rule.json .claude/settings.local.json\n\ttouch "+escaped+"\n")
	m := at.NewAnthropic(t, at.Say("build twice",
		at.Turn(at.Bash("make").WithID("toolu_1")),
		at.Turn(at.Bash("make").WithID("toolu_2")),
		at.Turn(at.Text("Done.")),
	))
	claudeOK(t, e, m, "build twice", "--allowedTools", "Bash(make:*)")
	if res, ok := m.Result("toolu_1"); !ok || !res.IsError || !strings.Contains(res.Output, "Permission denied") {
		t.Errorf("the first make, sandboxed: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(e.Project, ".claude", "settings.local.json")); err != nil {
		t.Fatalf("the rule was not planted: %v", err)
	}
	res, _ := m.Result("toolu_2")
	if _, err := os.Stat(escaped); err == nil {
		t.Errorf("the second make ran outside the sandbox: %+v", res)
	}
}
