package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ClaudeRun is a finished `claude -p` run: its exit and its stream-json
// output.
type ClaudeRun struct {
	Output
	// SessionID is Claude Code's session id (from the init line).
	SessionID string
	// Lines are the stream-json lines, decoded.
	Lines []map[string]any
	// Result is the final "result" line.
	Result map[string]any
	env    *Env
}

// ClaudeSettings writes Claude Code's user settings.json (in the private
// CLAUDE_CONFIG_DIR).
func (e *Env) ClaudeSettings(settings any) {
	e.t.Helper()
	e.WriteFile(filepath.Join(e.ClaudeDir(), "settings.json"), e.mustJSON(settings))
}

// ClaudeVars point Claude Code at the mock.
func ClaudeVars(m *Anthropic) []string {
	return []string{"ANTHROPIC_BASE_URL=" + m.URL(), "ANTHROPIC_API_KEY=sk-ant-e2e-mock"}
}

// StartClaude starts `claude -p prompt` in the project against the mock
// and returns at once; Proc.Wait and ClaudeResult read how it ended.
func (e *Env) StartClaude(m *Anthropic, prompt string, args ...string) *Proc {
	e.t.Helper()
	bin := Bin(e.t, Claude)
	return e.start(ClaudeVars(m), bin, append([]string{"-p", prompt, "--output-format", "stream-json", "--verbose"}, args...)...)
}

// RunClaude runs `claude -p prompt --output-format stream-json --verbose`
// (plus args) in the project against the mock, to its end.
func (e *Env) RunClaude(m *Anthropic, prompt string, args ...string) *ClaudeRun {
	e.t.Helper()
	return e.ClaudeResult(e.StartClaude(m, prompt, args...))
}

// ClaudeResult waits for a started Claude Code and reads its output.
func (e *Env) ClaudeResult(p *Proc) *ClaudeRun {
	e.t.Helper()
	r := &ClaudeRun{Output: p.Wait(), env: e}
	r.Lines = decodeLines(r.Stdout)
	for _, l := range r.Lines {
		switch str(l, "type") {
		case "system":
			if r.SessionID == "" {
				r.SessionID = str(l, "session_id")
			}
		case "result":
			r.Result = l
		}
	}
	if r.SessionID == "" {
		e.t.Fatalf("claude printed no session id (exit %d)\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
	}
	return r
}

// Transcript is the path of the run's main transcript
// (<config>/projects/<project>/<session>.jsonl).
func (r *ClaudeRun) Transcript(t testing.TB) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(r.env.ClaudeDir(), "projects", "*", r.SessionID+".jsonl"))
	if len(matches) != 1 {
		t.Fatalf("the transcript of %s: found %v", r.SessionID, matches)
	}
	return matches[0]
}

// Denials are the tool_use ids Claude Code reports as denied.
func (r *ClaudeRun) Denials() []string {
	var ids []string
	ds, _ := r.Result["permission_denials"].([]any)
	for _, d := range ds {
		if m, ok := d.(map[string]any); ok {
			ids = append(ids, str(m, "tool_use_id"))
		}
	}
	return ids
}

// HookSettings is a Claude Code settings object that runs command for
// every hook event cuff handles (the shape `cuff hook install` writes),
// for tests that hook in something of their own.
func HookSettings(command string, timeoutSeconds int) map[string]any {
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse",
		"PostToolUseFailure", "Stop", "SubagentStop", "SessionEnd"} {
		group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": timeoutSeconds}}}
		if strings.Contains(ev, "ToolUse") {
			group["matcher"] = "*"
		}
		hooks[ev] = []any{group}
	}
	return map[string]any{"hooks": hooks}
}

// TranscriptLines reads a Claude Code transcript (or any JSON-lines file).
func TranscriptLines(t testing.TB, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return decodeLines(string(data))
}
