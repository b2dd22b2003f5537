package codex

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// responseItem handles a model-visible history item; it reports whether
// the item's type is known.
func (d *Decoder) responseItem(p *payload, ts time.Time) bool {
	switch p.Type {
	case "message":
		d.message(p, ts)
	case "reasoning":
		for _, s := range p.Summary {
			d.chat(transcript.RoleAssistant, s.Text, "", true, false, ts, p.ID)
		}
		for _, c := range p.Content {
			d.chat(transcript.RoleAssistant, c.Text, "", true, false, ts, p.ID)
		}
	case "function_call":
		d.functionCall(p, ts)
	case "custom_tool_call":
		d.customToolCall(p, ts)
	case "local_shell_call":
		d.localShellCall(p, ts)
	case "function_call_output", "custom_tool_call_output":
		d.callOutput(p, ts)
	case "web_search_call":
		d.webSearchCall(p, ts)
	case "ghost_snapshot", "compaction", "compaction_summary", "other":
	default:
		d.stats.AddUnknown("response_item/" + p.Type)
		return false
	}
	return true
}

// eventMsg handles a UI event; it reports whether the event's type is
// known. Most repeat what response items say and are skipped.
func (d *Decoder) eventMsg(p *payload, ts time.Time) bool {
	switch p.Type {
	case "user_message":
		d.userMessage(p.Message, ts)
	case "agent_message":
		d.chat(transcript.RoleAssistant, p.Message, "", false, true, ts, "")
	case "agent_reasoning", "agent_reasoning_raw_content":
		d.chat(transcript.RoleAssistant, p.Text, "", true, true, ts, "")
	case "token_count":
		d.tokenCount(p)
	case "exec_command_end":
		d.execCommandEnd(p, ts)
	case "patch_apply_end", "mcp_tool_call_end", "web_search_end":
		d.toolEnd(p, ts)
	case "turn_aborted":
		d.turnAborted(p, ts)
	case "item_completed":
		if it := p.Item; it != nil && it.ID != "" && it.failed() && !d.ended[it.ID] {
			d.failedCalls[it.ID] = true // its output, which follows, is an error
		}
	case "error", "stream_error", "warning":
		if p.Message != "" {
			d.push(d.event(ts, &transcript.ChatTurn{Role: transcript.RoleSystem, Text: p.Type + ": " + p.Message}, ""))
		}
	case "task_started", "task_complete", "turn_started", "turn_complete", "context_compacted",
		"entered_review_mode", "exited_review_mode", "undo_started", "undo_completed",
		"exec_command_begin", "exec_command_output_delta", "patch_apply_begin", "web_search_begin",
		"mcp_tool_call_begin", "turn_diff", "plan_update", "background_event",
		"agent_reasoning_section_break", "session_configured", "thread_name_updated",
		"item_started", "view_image_tool_call", "shutdown_complete", "thread_settings_applied",
		"agent_message_delta", "agent_reasoning_delta", "user_message_delta":
	default:
		d.stats.AddUnknown("event_msg/" + p.Type)
		return false
	}
	return true
}

// message handles a message item. Context Codex injects (its
// environment, AGENTS.md, permissions, skills) is written as what it is.
func (d *Decoder) message(p *payload, ts time.Time) {
	text := p.Content.text()
	role := p.Role
	context := contextOf(text)
	switch role {
	case transcript.RoleUser:
		if context != "" {
			role = transcript.RoleSystem
		}
	case transcript.RoleDeveloper, transcript.RoleSystem:
		if context == "" {
			context = transcript.ContextInstructions
		}
	case transcript.RoleAssistant:
		context = ""
	default:
		role = transcript.RoleSystem
	}
	d.chat(role, text, context, false, false, ts, p.ID)
}

// userMessage handles the UI's record of a user message: context Codex
// injected is written as such (it is matched with the response item that
// records it too).
func (d *Decoder) userMessage(text string, ts time.Time) {
	if context := contextOf(text); context != "" {
		d.chat(transcript.RoleSystem, text, context, false, true, ts, "")
		return
	}
	d.chat(transcript.RoleUser, text, "", false, true, ts, "")
}

// contextPrefixes start the messages that Codex writes itself, by what
// they are.
var contextPrefixes = []struct{ prefix, context string }{
	{"<environment_context", transcript.ContextEnvironment},
	{"<skills_instructions", transcript.ContextSkills},
	{"<skill", transcript.ContextSkills},
	{"<user_instructions", transcript.ContextInstructions},
	{"# AGENTS.md", transcript.ContextInstructions},
	{"<permissions", transcript.ContextInstructions},
	{"<INSTRUCTIONS>", transcript.ContextInstructions},
	{"<collaboration_mode", transcript.ContextInstructions},
	{"<developer_instructions", transcript.ContextInstructions},
	{"<apps_instructions", transcript.ContextInstructions},
	{"<user_shell_command>", transcript.ContextCommand},
	{"<turn_aborted>", transcript.ContextReminder},
}

// contextOf names the context a message is, "" for a message of the
// person or the model.
func contextOf(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, c := range contextPrefixes {
		if strings.HasPrefix(t, c.prefix) {
			return c.context
		}
	}
	return ""
}

// chat writes a chat turn once: a rollout records most messages twice, as
// a response item and as a UI event, in either order, so a message is
// skipped when the other record of it has already been written.
func (d *Decoder) chat(role, text, context string, thinking, fromEvent bool, ts time.Time, id string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	key := messageKey(role, thinking, text)
	mine, other := d.fromItems, d.fromEvents
	if fromEvent {
		mine, other = other, mine
	}
	if other[key] > 0 {
		other[key]--
		if other[key] == 0 {
			delete(other, key)
		}
		return // written already, from the other record
	}
	mine[key]++
	turn := &transcript.ChatTurn{Role: role, Text: text, Thinking: thinking, Context: context}
	ev := d.event(ts, turn, "")
	if role == transcript.RoleAssistant {
		turn.Model = d.model
		if d.usage != (transcript.Usage{}) {
			d.giveUsage(turn, id)
		}
		if !thinking {
			// The token count of this answer's response follows it.
			d.hold(ev)
			return
		}
	}
	d.push(ev)
	if role == transcript.RoleUser && context == "" && d.title == "" {
		d.title = stream.Title(promptOf(text))
	}
}

// giveUsage writes the tokens counted so far on turn.
func (d *Decoder) giveUsage(turn *transcript.ChatTurn, id string) {
	u := d.usage
	d.usage = transcript.Usage{}
	if turn.Usage != nil {
		u.InputTokens += turn.Usage.InputTokens
		u.OutputTokens += turn.Usage.OutputTokens
		u.CacheReadTokens += turn.Usage.CacheReadTokens
		u.CacheWriteTokens += turn.Usage.CacheWriteTokens
	}
	turn.Usage = &u
	if turn.MessageID == "" {
		turn.MessageID = d.messageID(id)
	}
}

// messageKey identifies a message's content for de-duplication.
func messageKey(role string, thinking bool, text string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(role))
	if thinking {
		h.Write([]byte{1})
	}
	h.Write([]byte{0})
	h.Write([]byte(strings.TrimSpace(text)))
	return h.Sum64()
}

// messageID is the id of a turn that carries usage: the item's own id, or
// one made from the line number (Codex records none on most items).
func (d *Decoder) messageID(id string) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("cuff_codex_%d", d.stats.Lines)
}

// requestMarker precedes the person's words in prompts that mention files.
const requestMarker = "## My request for Codex:"

// promptOf is the part of a prompt that makes a title.
func promptOf(text string) string {
	if _, after, ok := strings.Cut(text, requestMarker); ok && strings.TrimSpace(after) != "" {
		return after
	}
	return text
}

// tokenCount turns a cumulative token count into the usage of the next
// assistant turn: the growth since the last count (repeated counts add
// nothing).
func (d *Decoder) tokenCount(p *payload) {
	if p.Info == nil || p.Info.Total == nil {
		return
	}
	t := *p.Info.Total
	prev := d.lastTotal
	if t.InputTokens < prev.InputTokens || t.OutputTokens < prev.OutputTokens || t.CachedInputTokens < prev.CachedInputTokens {
		prev = tokenUsage{} // a new count (e.g. after a resume): take it whole
	}
	d.lastTotal = t
	cached := t.CachedInputTokens - prev.CachedInputTokens
	input := t.InputTokens - prev.InputTokens - cached
	d.usage.InputTokens += max(input, 0)
	d.usage.CacheReadTokens += cached
	d.usage.OutputTokens += t.OutputTokens - prev.OutputTokens
	if d.held != nil && d.usage != (transcript.Usage{}) {
		d.giveUsage(d.held.Body.(*transcript.ChatTurn), "")
		d.release()
	}
}
