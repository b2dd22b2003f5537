// Package realagents is the end-to-end suite with the real Claude Code and
// Codex (see internal/agenttest): each test scripts a conversation, runs
// the agent with cuff's hook or MCP server, and checks what a person sees
// in cuff. Run it alone with `go test ./internal/realagents/`.
package realagents

import (
	"testing"

	"github.com/cuff-dev/cuff/internal/agenttest"
)

func TestMain(m *testing.M) { agenttest.Main(m) }

// claudeOK runs Claude Code to its end and fails the test unless it exited 0.
func claudeOK(t *testing.T, e *agenttest.Env, m *agenttest.Anthropic, prompt string, args ...string) *agenttest.ClaudeRun {
	t.Helper()
	return finishedOK(t, e, e.StartClaude(m, prompt, args...))
}

// finishedOK waits for a started Claude Code and fails the test unless it
// exited 0.
func finishedOK(t *testing.T, e *agenttest.Env, p *agenttest.Proc) *agenttest.ClaudeRun {
	t.Helper()
	r := e.ClaudeResult(p)
	if r.Code != 0 {
		t.Fatalf("claude exit %d\n%s", r.Code, r.Stderr)
	}
	return r
}
