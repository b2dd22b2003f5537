// Package claudehook is cuff's Claude Code hook: it reads a hook event,
// records what it says (prompts, assistant text, tool calls, Bash runs,
// delegations), gates Bash commands and answers PreToolUse with a
// permission decision. Every field of the input is optional, as older
// Claude Code versions send fewer of them.
package claudehook

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Hook event names.
const (
	EventSessionStart       = "SessionStart"
	EventUserPromptSubmit   = "UserPromptSubmit"
	EventPreToolUse         = "PreToolUse"
	EventPostToolUse        = "PostToolUse"
	EventPostToolUseFailure = "PostToolUseFailure"
	EventStop               = "Stop"
	EventSubagentStop       = "SubagentStop"
	EventSessionEnd         = "SessionEnd"
)

// Input is one hook event as Claude Code sends it on stdin.
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	AgentID        string          `json:"agent_id"`
	AgentType      string          `json:"agent_type"`
	Model          string          `json:"model"`
	Source         string          `json:"source"`
	Prompt         string          `json:"prompt"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	Error          string          `json:"error"`
	IsInterrupt    bool            `json:"is_interrupt"`
	DurationMS     int64           `json:"duration_ms"`
	LastMessage    string          `json:"last_assistant_message"`
	Reason         string          `json:"reason"`
	SessionTitle   string          `json:"session_title"`
	// AgentTranscriptPath is a sub-agent's own transcript (SubagentStop).
	AgentTranscriptPath string `json:"agent_transcript_path"`
}

// Parse reads a hook event. Anything that is not a JSON object is an error;
// missing fields are not.
func Parse(data []byte) (*Input, error) {
	var in Input
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("hook input is not a JSON object: %w", err)
	}
	return &in, nil
}

// bashInput is the Bash tool's input.
type bashInput struct {
	Command     string `json:"command"`
	Description string `json:"description"`
	Timeout     int64  `json:"timeout"` // milliseconds
	Background  bool   `json:"run_in_background"`
}

// bashResponse is the Bash tool's response on PostToolUse.
type bashResponse struct {
	Stdout      string `json:"stdout"`
	Stderr      string `json:"stderr"`
	Interrupted bool   `json:"interrupted"`
	ExitCode    *int   `json:"exit_code"`
	// BackgroundTaskID is set when the command went on in the background.
	BackgroundTaskID string `json:"backgroundTaskId"`
}

// taskInput is the Task / Agent tool's input: a delegation.
type taskInput struct {
	Prompt       string `json:"prompt"`
	Description  string `json:"description"`
	SubagentType string `json:"subagent_type"`
}

// statusAsyncLaunched is the Agent tool's status when the sub-agent goes on
// in the background (Claude Code 2.1.2xx and later): it reports back at its
// SubagentStop.
const statusAsyncLaunched = "async_launched"

// taskResponse is the Task / Agent tool's response.
type taskResponse struct {
	Status  string `json:"status"`
	AgentID string `json:"agentId"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// isBash reports whether a tool runs shell commands.
func isBash(tool string) bool { return tool == "Bash" || tool == "PowerShell" }

// isDelegation reports whether a tool starts a sub-agent.
func isDelegation(tool string) bool { return tool == "Task" || tool == "Agent" }

// exitCodeOf reads the "Exit code N" Claude Code puts first in a failed
// Bash run's error.
func exitCodeOf(errText string) *int {
	first, _, _ := strings.Cut(strings.TrimSpace(errText), "\n")
	n, ok := strings.CutPrefix(first, "Exit code ")
	if !ok {
		return nil
	}
	code, err := strconv.Atoi(strings.TrimSpace(n))
	if err != nil {
		return nil
	}
	return &code
}

// text of a JSON value for a tool result: strings as they are, anything
// else as compact JSON.
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
