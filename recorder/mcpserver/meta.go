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
//
// Codex sends threadId (its session, the rollout's id), callId (the
// rollout's call_id), itemId (the function call's item) and the turn in
// x-codex-turn-metadata: they become the conversation, the call, the step
// and the task, so that a run joins the rollout's call.
func correlation(meta map[string]any) recorder.Correlation {
	// cuff's own names first, then plain names, then those known clients use.
	c := recorder.Correlation{
		AgentID:        first(meta, "cuff/agent_id", "agent_id", "agentId"),
		ConversationID: first(meta, "cuff/conversation_id", "conversation_id", "conversationId", "threadId", "session_id", "sessionId"),
		ToolCallID:     first(meta, "cuff/tool_call_id", "tool_call_id", "toolCallId", "claudecode/toolUseId", "tool_use_id", "callId"),
		RunID:          first(meta, "cuff/run_id", "run_id"),
		TaskID:         first(meta, "cuff/task_id", "task_id"),
		StepID:         first(meta, "cuff/step_id", "step_id", "itemId"),
	}
	if c.TaskID == "" {
		if turn, ok := meta[codexTurnMeta].(map[string]any); ok {
			c.TaskID = first(turn, "turn_id")
		}
	}
	return c
}

// codexTurnMeta is the _meta key under which Codex describes the turn a
// call belongs to.
const codexTurnMeta = "x-codex-turn-metadata"

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
