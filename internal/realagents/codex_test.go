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
