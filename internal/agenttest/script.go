package agenttest

import (
	"encoding/json"
	"fmt"
)

// Part is one piece of a model reply: text, thinking or a tool call.
type Part struct {
	kind      string // "text", "thinking", "tool"
	text      string
	tool      string
	namespace string // Codex: the namespace of an MCP tool (mcp__<server>)
	input     any
	inputFn   func() any // the input, made when the reply is sent (see Tool's WithInput)
	id        string
	after     string          // an After part: the call whose result the reply waits for
	until     <-chan struct{} // an Until part: closed when the reply may go
}

// After holds the reply it is part of until the agent has sent the model
// the result of tool call id (of any conversation): it orders what agents
// that run at once do, e.g. a main agent that goes on talking while its
// sub-agent works in the background. It is no part of what the model says.
func After(id string) Part { return Part{kind: "after", after: id} }

// Until holds the reply it is part of until ch is closed: the test decides
// when the model answers (e.g. once it follows the session live). It is no
// part of what the model says.
func Until(ch <-chan struct{}) Part { return Part{kind: "after", until: ch} }

// Text is a text block of a reply.
func Text(s string) Part { return Part{kind: "text", text: s} }

// Thinking is a thinking (reasoning) block of a reply.
func Thinking(s string) Part { return Part{kind: "thinking", text: s} }

// Tool is a call of the named tool with input (anything that encodes to a
// JSON object). The call's id is made up unless given with WithID.
func Tool(name string, input any) Part { return Part{kind: "tool", tool: name, input: input} }

// Bash is a call of Claude Code's Bash tool.
func Bash(command string) Part {
	return Tool("Bash", map[string]any{"command": command, "description": "run " + command})
}

// Delegate is a call of Claude Code's delegation tool (named Agent in the
// API, Task in stream-json and older transcripts). The sub-agent's own
// requests carry prompt as their first user text: script them as a
// Conversation with that Prompt.
func Delegate(agentType, description, prompt string) Part {
	return Tool("Agent", map[string]any{"subagent_type": agentType, "description": description, "prompt": prompt})
}

// Exec is a call of Codex's shell tool (exec_command).
func Exec(command string) Part {
	return Tool("exec_command", map[string]any{"cmd": command, "yield_time_ms": 10000})
}

// MCP is a call of tool on the MCP server named server: for Claude Code
// the tool mcp__<server>__<tool>; for Codex, which offers MCP tools as a
// namespace, tool in the namespace mcp__<server>.
func MCP(server, tool string, input any) Part {
	p := Tool("mcp__"+server+"__"+tool, input)
	p.namespace = "mcp__" + server
	return p
}

// WithInput makes the tool call's input when the reply is sent, from what
// the conversation has shown by then (an id the agent made up, read from
// an earlier tool result).
func (p Part) WithInput(fn func() any) Part { p.inputFn = fn; return p }

// WithID gives a tool call a fixed id (tool_use id for Claude Code, call_id
// for Codex), so a test can look the call up afterwards.
func (p Part) WithID(id string) Part { p.id = id; return p }

// Reply is one model turn: what the model "says" in one response. A reply
// with a tool call ends with stop_reason tool_use; the agent runs the tool
// and asks again, which the script answers with its next reply.
type Reply []Part

// Conversation is the script of one agent: the main agent (the prompt given
// on the command line) or a sub-agent (the prompt of its delegation). A
// request belongs to the conversation whose Prompt its first user text
// contains; its turn is the number of model replies already in it.
type Conversation struct {
	Prompt  string
	Replies []Reply
}

// Say is a conversation of replies for prompt.
func Say(prompt string, replies ...Reply) Conversation {
	return Conversation{Prompt: prompt, Replies: replies}
}

// Turn builds a reply from parts.
func Turn(parts ...Part) Reply { return Reply(parts) }

// callID is the id of part i of turn n in conversation c: the given one, or
// a made-up one unique within a mock.
func (p Part) callID(prefix string, c, n, i int) string {
	if p.id != "" {
		return p.id
	}
	return fmt.Sprintf("%s_e2e_%d_%d_%d", prefix, c, n, i)
}

// inputJSON is the tool input as JSON.
func (p Part) inputJSON() (string, error) {
	if p.inputFn != nil {
		p.input = p.inputFn()
	}
	if p.input == nil {
		return "{}", nil
	}
	b, err := json.Marshal(p.input)
	if err != nil {
		return "", fmt.Errorf("tool %s input: %w", p.tool, err)
	}
	return string(b), nil
}

func (r Reply) hasTool() bool {
	for _, p := range r {
		if p.kind == "tool" {
			return true
		}
	}
	return false
}
