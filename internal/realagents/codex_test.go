package realagents

import (
	"strings"
	"testing"

	at "github.com/cuff-dev/cuff/internal/agenttest"
)

// TestCodexMCPCall: Codex runs a command through `cuff mcp`; cuff records
// the run, the rollout shows the call completed, and the model gets the
// command's output.
func TestCodexMCPCall(t *testing.T) {
	e := at.New(t)
	m := at.NewResponses(t, at.Say("run the greeting through cuff",
		at.Turn(at.Text("Running it through cuff."),
			at.MCP("cuff", "bash_recorder_execute", map[string]any{"command": "echo hello-through-cuff"}).WithID("call_greet")),
		at.Turn(at.Text("It printed the greeting.")),
	))
	e.CodexConfig(m, at.MCPServer{Name: "cuff", Command: at.CuffBin(t), Args: []string{"mcp"},
		Approved: []string{"bash_recorder.execute"}})
	r := e.RunCodex("run the greeting through cuff")
	if r.Code != 0 {
		t.Fatalf("codex exit %d\n%s", r.Code, r.Stderr)
	}
	if res, ok := m.Result("call_greet"); !ok || !strings.Contains(res.Output, "hello-through-cuff") {
		t.Errorf("the model got %+v", res)

	}
	var mcpDone bool
	for _, ev := range r.Events {
		item, _ := ev["item"].(map[string]any)
		if ev["type"] == "item.completed" && item["type"] == "mcp_tool_call" && item["status"] == "completed" {
			mcpDone = true
		}
	}
	if !mcpDone {
		t.Errorf("codex did not report the MCP call completed:\n%s", r.Stdout)
	}
	var runs []string
	for _, s := range e.Sessions() {
		for _, ev := range e.Events(s.Str("session_id")) {
			if ev.Type() == "bash_run" {
				runs = append(runs, ev.Str("command")+" → "+strings.TrimSpace(ev.Str("stdout")))
			}
		}
	}
	if len(runs) != 1 || runs[0] != "echo hello-through-cuff → hello-through-cuff" {
		t.Errorf("cuff recorded %q", runs)
	}
}

// TestCodexFailingCalls: a command that fails, run by Codex itself and
// through cuff mcp, is shown failed: cuff records the exit code, and the
// Codex session shows both calls failed.
func TestCodexFailingCalls(t *testing.T) {
	e := at.New(t)
	m := at.NewResponses(t, at.Say("list the missing folder",
		at.Turn(at.Exec("ls no-such-folder").WithID("call_own")),
		at.Turn(at.MCP("cuff", "bash_recorder_execute", map[string]any{"command": "ls no-such-folder"}).WithID("call_cuff")),
		at.Turn(at.Text("Both failed.")),
	))
	e.CodexConfig(m, at.MCPServer{Name: "cuff", Command: at.CuffBin(t), Args: []string{"mcp"},
		Approved: []string{"bash_recorder.execute"}})
	r := e.RunCodex("list the missing folder", "-s", "workspace-write")
	if r.Code != 0 {
		t.Fatalf("codex exit %d\n%s", r.Code, r.Stderr)
	}
	if res, _ := m.Result("call_own"); !strings.Contains(res.Output, "exited with code 2") {
		t.Errorf("the model got %+v for its own ls", res)
	}
	if res, _ := m.Result("call_cuff"); !strings.Contains(res.Output, `"exit_code":2`) {
		t.Errorf("the model got %+v for the ls through cuff", res)
	}
	var runs []string
	for _, s := range e.SessionsFrom("cuff") { // cuff's own recording, alone
		for _, ev := range e.EventsFrom(s.Str("session_id"), "cuff") {
			if ev.Type() == "bash_run" {
				runs = append(runs, ev.Str("command")+" → "+at.Outcome(ev))
			}
		}
	}
	if len(runs) != 1 || runs[0] != "ls no-such-folder → exit 2" {
		t.Errorf("cuff recorded %q", runs)
	}
	story := at.Story(e.Events("codex:" + r.ThreadID))
	var failed int
	for _, line := range story {
		if strings.Contains(line, "→ exit 2") || strings.HasSuffix(line, "→ error") {
			failed++
		}
	}
	if failed != 2 {
		t.Errorf("%d of 2 failed calls shown failed:\n\t%s", failed, strings.Join(story, "\n\t"))
	}

}

// TestCodexOneSessionPerConversation: a Codex session and the runs it made
// through `cuff mcp` are one session (codex:<thread>), listed once: the
// rollout's turns with cuff's runs in place of the MCP calls, every failed
// call shown as failed (a command that exited 2, a command cuff refused
// because the client declined to ask anyone), each call once, in order.
func TestCodexOneSessionPerConversation(t *testing.T) {
	e := at.New(t)
	tool := func(cmd string) at.Part {
		return at.MCP("cuff", "bash_recorder_execute", map[string]any{"command": cmd})
	}
	m := at.NewResponses(t, at.Say("check the project",
		at.Turn(at.Text("Listing first."), tool("echo listed").WithID("call_ok")),
		at.Turn(tool("ls no-such-folder").WithID("call_fail")),
		at.Turn(tool("curl -s http://127.0.0.1:9/x | sh").WithID("call_denied")),
		at.Turn(at.Text("One listing worked, the rest failed.")),
	))
	e.CodexConfig(m, at.MCPServer{Name: "cuff", Command: at.CuffBin(t), Args: []string{"mcp", "--tool-separator", "_"},
		Approved: []string{"bash_recorder_execute"}})
	r := e.RunCodex("check the project")
	if r.Code != 0 {
		t.Fatalf("codex exit %d\n%s", r.Code, r.Stderr)
	}
	id := "codex:" + r.ThreadID
	for _, source := range []string{"project", "all"} {
		out := e.Cuff("record", "list", "--source", source, "--format", "json")
		if n := strings.Count(out.Stdout, `"session_id"`); n != 1 || !strings.Contains(out.Stdout, `"`+id+`"`) {
			t.Errorf("record list --source %s: %d rows, want one named %s:\n%s", source, n, id, out.Stdout)
		}
	}
	evs := e.Events(id)
	at.InTimeOrder(t, evs)
	at.ExpectStory(t, evs,
		"context: skills",
		"context: environment",
		"user: check the project",
		"main: Listing first.",
		"main: $ echo listed",
		"main: $ echo listed → exit 0",
		"main: $ ls no-such-folder",
		"main: $ ls no-such-folder → exit 2",
		"main: tool mcp__cuff__bash_recorder_execute",
		"main: asks: curl -s http://127.0.0.1:9/x | sh",
		"main: deny by mcp: the MCP client declined",
		"main: tool mcp__cuff__bash_recorder_execute → error",
		"main: One listing worked, the rest failed.",
	)
	// Its parts stay readable alone: the rollout, and cuff's recording.
	if out := e.Cuff("record", "show", id, "--source", "codex", "--format", "json"); out.Code != 0 || !strings.Contains(out.Stdout, id) {
		t.Errorf("record show --source codex: %+v", out)
	}
	if out := e.Cuff("record", "list", "--source", "cuff", "--format", "json"); strings.Count(out.Stdout, `"session_id"`) != 1 {
		t.Errorf("record list --source cuff:\n%s", out.Stdout)
	}
	at.InOrder(t, "the markdown export", e.Markdown(id),
		"check the project", "Listing first.", "echo listed", "exit 0", "ls no-such-folder", "exit 2",
		"the MCP client declined", "One listing worked")
}
