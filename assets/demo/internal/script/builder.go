// Package script builds cuff's demo session: a recorded Claude Code session
// that fixes a bug in a small Go project, with every kind of event. It is
// deterministic (fixed clock, ids derived from labels), so the committed
// assets/demo/session.jsonl can be regenerated and checked byte for byte.
package script

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// SessionID is the demo session's id.
const SessionID = "20260118_143052_a7b3c9d2-e4f5"

// conversationID is Claude Code's own id for the conversation.
const conversationID = "b51f0c6e-3a2d-4e8f-9c17-6d4a2e9b0f53"

// startTime is when the demo session starts.
var startTime = time.Date(2026, time.January, 18, 14, 30, 52, 104381000, time.UTC)

// builder appends events with consecutive seq numbers on a simulated clock.
type builder struct {
	now    time.Time
	events []*transcript.Event
	agent  string // agent_id of the events being written
	parent string // call_id of the delegation they happen inside
	err    error  // first error; later calls do nothing
}

func newBuilder() *builder {
	return &builder{now: startTime, agent: transcript.MainAgent}
}

// wait advances the clock by ms milliseconds plus a few microseconds that
// vary from event to event, so timestamps look measured.
func (b *builder) wait(ms int64) {
	jitter := time.Duration((int64(len(b.events))*7919+131)%997) * time.Microsecond
	b.now = b.now.Add(time.Duration(ms)*time.Millisecond + jitter)
}

// fail records the first error of the story.
func (b *builder) fail(err error) {
	if b.err == nil && err != nil {
		b.err = err
	}
}

// emit appends an event with the current clock, agent and delegation.
func (b *builder) emit(body transcript.Body, callID string) *transcript.Event {
	seq := int64(len(b.events) + 1)
	ev := transcript.New(SessionID, b.now, body)
	ev.Seq = seq
	ev.ID = transcript.EventID(SessionID, seq)
	ev.AgentID = b.agent
	ev.ParentCallID = b.parent
	ev.ConversationID = conversationID
	ev.CallID = callID
	b.events = append(b.events, ev)
	return ev
}

// idAlphabet is the base-62 alphabet of Anthropic's message and tool ids.
const idAlphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// anthropicID returns a stable id in the style of Claude's ids
// (prefix + "01" + 22 base-62 characters) derived from label.
func anthropicID(prefix, label string) string {
	sum := sha256.Sum256([]byte(prefix + label))
	n := new(big.Int).SetBytes(sum[:])
	base := big.NewInt(int64(len(idAlphabet)))
	out := make([]byte, 22)
	mod := new(big.Int)
	for i := range out {
		n.DivMod(n, base, mod)
		out[i] = idAlphabet[mod.Int64()]
	}
	return prefix + "01" + string(out)
}

// uuidFrom returns a stable UUID-shaped id derived from label.
func uuidFrom(label string) string {
	sum := sha256.Sum256([]byte(label))
	h := hex.EncodeToString(sum[:])
	return h[0:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:32]
}

// model is one assistant message: turns that share it carry its id and usage.
type model struct {
	id    string
	name  string
	usage transcript.Usage
}

// Models of the session.
const (
	mainModel = "claude-sonnet-4-5-20250929"
	subModel  = "claude-haiku-4-5-20251001"
)

// message starts a new assistant message.
func (b *builder) message(name string, u transcript.Usage) *model {
	return &model{id: anthropicID("msg_", fmt.Sprint(len(b.events))), name: name, usage: u}
}

// user writes a user turn.
func (b *builder) user(text string) {
	b.emit(&transcript.ChatTurn{Role: transcript.RoleUser, Text: text}, "")
}

// say writes an assistant turn of message m.
func (b *builder) say(m *model, text string) {
	u := m.usage
	b.emit(&transcript.ChatTurn{Role: transcript.RoleAssistant, Text: text, Model: m.name, MessageID: m.id, Usage: &u}, "")
}

// think writes an assistant reasoning block of message m.
func (b *builder) think(m *model, text string) {
	u := m.usage
	b.emit(&transcript.ChatTurn{Role: transcript.RoleAssistant, Text: text, Thinking: true, Model: m.name,
		MessageID: m.id, Usage: &u}, "")
}

// callID returns a fresh Claude tool_use id.
func (b *builder) callID() string { return anthropicID("toolu_", fmt.Sprint("call", len(b.events))) }

// tool writes a tool call and, ms later, its result.
func (b *builder) tool(name string, input any, ms int64, output string, isErr bool) {
	raw, err := marshalInput(input)
	if err != nil {
		b.fail(fmt.Errorf("%s input: %w", name, err))
		return
	}
	id := b.callID()
	b.emit(&transcript.ToolCall{Tool: name, Input: raw}, id)
	b.wait(ms)
	b.emit(&transcript.ToolResult{Tool: name, Output: output, IsError: isErr, DurationMS: ms}, id)
}

// marshalInput encodes a tool's input without HTML escaping, as Claude
// Code writes it.
func marshalInput(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSpace(buf.Bytes())), nil
}

// run describes one Bash tool invocation and what came of it.
type run struct {
	command     string
	description string
	timeoutMS   int64 // the Bash tool's timeout; 0 means its default
	ms          int64 // how long it ran
	exit        int
	timedOut    bool
	stdout      string
	stderr      string
	keep        int // when > 0, stdout is cut to this many bytes at each end
}

// bashDefaultTimeoutMS is the Bash tool's default timeout.
const bashDefaultTimeoutMS = 120000

// bash writes a command's start and, after it ran, its outcome. callID is
// the tool_use id (given when an approval came first), or empty for a new one.
func (b *builder) bash(r run, callID string) {
	if callID == "" {
		callID = b.callID()
	}
	b.emit(&transcript.BashStart{Command: r.command, WorkingDirectory: projectDir}, callID)
	b.wait(r.ms)
	timeout := r.timeoutMS
	if timeout == 0 {
		timeout = bashDefaultTimeoutMS
	}
	br := &transcript.BashRun{
		Command: r.command, Description: r.description, WorkingDirectory: projectDir, Shell: "/bin/bash",
		TimeoutSeconds: timeout / 1000, TimedOut: r.timedOut, Stdout: r.stdout, Stderr: r.stderr,
		DurationMS: r.ms,
	}
	if !r.timedOut {
		code := r.exit
		br.ExitCode = &code
	}
	if r.keep > 0 {
		out, omitted := headTail(r.stdout, r.keep)
		if omitted > 0 {
			total := int64(len(r.stdout) + len(r.stderr)) // output_truncated_bytes is the original size
			br.Stdout, br.OutputTruncated, br.OutputTruncatedBytes = out, true, &total
		}
	}
	b.emit(br, callID)
}

// approvalTimeout is how long an approval request waits for a person.
const approvalTimeout = 300 * time.Second

// ask writes an approval request for a Bash command and returns its call id.
func (b *builder) ask(command string, verdict transcript.Verdict, taint []string) (callID, requestID string) {
	callID = b.callID()
	requestID = uuidFrom("approval " + callID)
	expires := b.now.Add(approvalTimeout)
	b.emit(&transcript.ApprovalRequest{RequestID: requestID, Tool: "Bash", Command: command, Verdict: &verdict,
		Taint: taint, ExpiresAt: &expires}, callID)
	return callID, requestID
}

// decide writes the person's answer to an approval request.
func (b *builder) decide(callID, requestID, decision, reason string) {
	d := &transcript.ApprovalDecision{RequestID: requestID, Decision: decision, By: "tui", Reason: reason}
	if decision == transcript.DecisionApprove {
		d.Scope = transcript.ScopeOnce
	}
	b.emit(d, callID)
}

// delegate writes a delegation's start (the Task tool's call, recorded as
// the delegation itself) and switches to the sub-agent.
func (b *builder) delegate(agentType, prompt, subAgent string) string {
	id := b.callID()
	b.emit(&transcript.Delegation{Phase: transcript.PhaseStart, AgentType: agentType, Task: prompt, SubAgentID: subAgent}, id)
	b.agent, b.parent = subAgent, id
	return id
}

// endDelegation switches back to the main agent and writes the result.
func (b *builder) endDelegation(callID, agentType, subAgent, result string) {
	b.agent, b.parent = transcript.MainAgent, ""
	ok := true
	b.emit(&transcript.Delegation{Phase: transcript.PhaseEnd, AgentType: agentType, SubAgentID: subAgent,
		Result: result, Success: &ok}, callID)
}

// counts summarises the events the way cuff's session writer does.
func counts(events []*transcript.Event) *transcript.Counts {
	var t transcript.Tally
	for _, ev := range events {
		t.Add(ev)
	}
	return &transcript.Counts{Events: t.Events + 1, // + the session_end itself
		Turns: t.Turns, ToolCalls: t.ToolCalls, Commands: t.Commands, Failures: t.Failures(),
		TimedOut: t.CommandsTimedOut, Approvals: t.Approvals}
}

// Generate returns the demo session as JSONL. Every line is checked to
// decode back into an event of its kind.
func Generate() ([]byte, error) {
	b := newBuilder()
	story(b)
	if b.err != nil {
		return nil, fmt.Errorf("demo story: %w", b.err)
	}
	b.wait(1800)
	b.emit(&transcript.SessionEnd{Status: transcript.StatusComplete, Counts: counts(b.events)}, "")
	var out bytes.Buffer
	for _, ev := range b.events {
		line, err := json.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("encode event %d: %w", ev.Seq, err)
		}
		if _, err := transcript.Decode(line); err != nil {
			return nil, fmt.Errorf("event %d does not decode: %w", ev.Seq, err)
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}
