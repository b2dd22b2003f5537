package mcpserver

import (
	"fmt"
	"strings"

	"github.com/cuff-dev/cuff/recorder"
)

// maxIDLength bounds a correlation id taken from a request.
const maxIDLength = 200

// correlation reads the agent, conversation and tool call ids of a request
// from its _meta, where the client put them. Values that are not short
// printable strings (or numbers) are ignored.
func correlation(meta map[string]any) recorder.Correlation {
	// cuff's own names first, then plain names, then those known clients use.
	return recorder.Correlation{
		AgentID:        first(meta, "cuff/agent_id", "agent_id", "agentId"),
		ConversationID: first(meta, "cuff/conversation_id", "conversation_id", "conversationId", "session_id", "sessionId"),
		ToolCallID:     first(meta, "cuff/tool_call_id", "tool_call_id", "toolCallId", "claudecode/toolUseId", "tool_use_id"),
		RunID:          first(meta, "cuff/run_id", "run_id"),
		TaskID:         first(meta, "cuff/task_id", "task_id"),
		StepID:         first(meta, "cuff/step_id", "step_id"),
	}
}

// first is the value of the first of keys that holds a usable id.
func first(meta map[string]any, keys ...string) string {
	for _, k := range keys {
		if v := idValue(meta[k]); v != "" {
			return v
		}
	}
	return ""
}

func idValue(v any) string {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case float64:
		s = fmt.Sprint(x)
	default:
		return ""
	}
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxIDLength || strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) >= 0 {
		return ""
	}
	return s
}
