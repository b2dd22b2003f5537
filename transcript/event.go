// Package transcript owns cuff's event model: the event types, their JSON codec, the reader and the appender.
// It imports nothing of cuff; its sub-packages (redact, claude, codex, foreign) import only transcript and each other.
package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// SchemaVersion is the value of the "v" field that cuff writes.
const SchemaVersion = 1

// Type names the kind of an event.
type Type string

// The event kinds of schema v1.
const (
	TypeSessionStart     Type = "session_start"
	TypeChatTurn         Type = "chat_turn"
	TypeToolCall         Type = "tool_call"
	TypeToolResult       Type = "tool_result"
	TypeDelegation       Type = "delegation"
	TypeBashStart        Type = "bash_start"
	TypeBashRun          Type = "bash_run"
	TypeApprovalRequest  Type = "approval_request"
	TypeApprovalDecision Type = "approval_decision"
	TypeSessionEnd       Type = "session_end"
)

// KnownTypes lists the kinds this version of cuff understands, in schema order.
func KnownTypes() []Type {
	return []Type{TypeSessionStart, TypeChatTurn, TypeToolCall, TypeToolResult, TypeDelegation,
		TypeBashStart, TypeBashRun, TypeApprovalRequest, TypeApprovalDecision, TypeSessionEnd}
}

// MainAgent is the agent_id of the top-level agent of a session.
const MainAgent = "main"

// Envelope holds the fields every event line carries. Readers order events
// by Seq (append order); TS is when the thing itself happened.
type Envelope struct {
	V              int       `json:"v"`
	Type           Type      `json:"type"`
	ID             string    `json:"id"`
	SessionID      string    `json:"session_id"`
	Seq            int64     `json:"seq"`
	TS             time.Time `json:"ts"`
	AgentID        string    `json:"agent_id,omitempty"`
	ConversationID string    `json:"conversation_id,omitempty"`
	CallID         string    `json:"call_id,omitempty"`
	ParentCallID   string    `json:"parent_call_id,omitempty"`
	RunID          string    `json:"run_id,omitempty"`
	TaskID         string    `json:"task_id,omitempty"`
	StepID         string    `json:"step_id,omitempty"`
}

// EventID is the id of the event with sequence number seq in a session:
// unique across sessions.
func EventID(sessionID string, seq int64) string {
	return "e_" + sessionID + "_" + strconv.FormatInt(seq, 10)
}

// Event is one line of a transcript: the envelope, the typed body of its kind
// (nil for a kind this version does not know) and, for events that were read,
// the exact bytes of the line so that unknown fields survive export.
type Event struct {
	Envelope
	Body Body
	Raw  json.RawMessage
}

// Body is the kind-specific part of an event.
type Body interface {
	// EventType names the kind the body belongs to.
	EventType() Type
}

// New returns an event of body's kind stamped with ts; Seq and ID are
// assigned when it is appended.
func New(sessionID string, ts time.Time, body Body) *Event {
	return &Event{
		Envelope: Envelope{V: SchemaVersion, Type: body.EventType(), SessionID: sessionID, TS: ts.UTC(), AgentID: MainAgent},
		Body:     body,
	}
}

// MarshalJSON writes the envelope and the body as one flat object. An event
// with no body but raw bytes (an unknown kind that was read) is written back
// as it was read.
func (e *Event) MarshalJSON() ([]byte, error) {
	if e.Body == nil {
		if len(e.Raw) > 0 {
			return e.Raw, nil
		}
		return json.Marshal(&e.Envelope)
	}
	var buf bytes.Buffer
	buf.Grow(encodedSizeHint(e.Body))
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep <, > and & readable; the output is never HTML
	if err := enc.Encode(&e.Envelope); err != nil {
		return nil, fmt.Errorf("encode %s envelope: %w", e.Type, err)
	}
	envEnd := buf.Len() - 1 // without the newline Encode adds
	body, big := splitBigStrings(e.Body)
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("encode %s body: %w", e.Type, err)
	}
	out := buf.Bytes()
	bodyJSON := out[envEnd+1 : len(out)-1]
	if len(bodyJSON) <= 2 && len(big) == 0 { // "{}"
		return out[:envEnd], nil
	}
	// {env}\n{body}\n becomes {env,body} in place.
	out[envEnd-1] = ','
	n := copy(out[envEnd:], bodyJSON[1:])
	out = out[:envEnd+n]
	if len(big) == 0 {
		return out, nil
	}
	// The big strings go last: {env,body,"stdout":"…"}.
	out = out[:len(out)-1]
	for _, f := range big {
		if out[len(out)-1] != '{' {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, f.name...)
		out = append(out, '"', ':')
		out = appendJSONString(out, f.value)
	}
	return append(out, '}'), nil
}

// bigField is a text field encoded apart from the rest of a body.
type bigField struct{ name, value string }

// splitBigStrings takes the megabyte-sized text fields out of a body (a
// copy; the event is not changed) so that they can be escaped straight
// into the line.
func splitBigStrings(b Body) (Body, []bigField) {
	switch b := b.(type) {
	case *BashRun:
		if len(b.Stdout) < bigString && len(b.Stderr) < bigString {
			return b, nil
		}
		c := *b
		var big []bigField
		if len(b.Stdout) >= bigString {
			c.Stdout, big = "", append(big, bigField{"stdout", b.Stdout})
		}
		if len(b.Stderr) >= bigString {
			c.Stderr, big = "", append(big, bigField{"stderr", b.Stderr})
		}
		return &c, big
	case *ToolResult:
		if len(b.Output) >= bigString {
			c := *b
			c.Output = ""
			return &outputLess{&c}, []bigField{{"output", b.Output}}
		}
	}
	return b, nil
}

// outputLess encodes a tool result without its output field, which
// splitBigStrings writes itself (Output has no omitempty).
type outputLess struct{ *ToolResult }

func (o *outputLess) EventType() Type { return TypeToolResult }

func (o *outputLess) MarshalJSON() ([]byte, error) {
	type noOutput struct {
		Tool            string `json:"tool,omitempty"`
		OutputTruncated bool   `json:"output_truncated,omitempty"`
		IsError         bool   `json:"is_error,omitempty"`
		DurationMS      int64  `json:"duration_ms,omitempty"`
	}
	t := o.ToolResult
	return json.Marshal(noOutput{t.Tool, t.OutputTruncated, t.IsError, t.DurationMS})
}

// envelopeSize is about what an encoded envelope takes.
const envelopeSize = 512

// encodedSizeHint guesses how long an event's line will be, so that one
// buffer holds it: growing a buffer of a megabyte step by step costs more
// than the encoding itself.
func encodedSizeHint(b Body) int {
	n := 0
	switch b := b.(type) {
	case *BashRun:
		n = len(b.Stdout) + len(b.Stderr) + len(b.Command)
	case *ToolResult:
		n = len(b.Output)
	case *ChatTurn:
		n = len(b.Text)
	case *ToolCall:
		n = len(b.Input)
	case *Delegation:
		n = len(b.Task) + len(b.Result)
	}
	return envelopeSize + n + n/8 // escapes (\n, \") make the text a little longer
}

// errNotObject is the error for a line that is not a JSON object.
var errNotObject = errors.New("not a JSON object")

// Decode parses one line into an Event. The line's bytes are kept in Raw
// (copied, so the caller may reuse its buffer). A line whose type is not
// known decodes with a nil Body; a known type whose fields do not fit its
// body type is an error.
func Decode(line []byte) (*Event, error) {
	// What cannot be an object is turned away before it is copied: a long
	// garbage line costs nothing more than it did to read.
	if t := bytes.TrimSpace(line); len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return nil, errNotObject
	}
	ev := &Event{Raw: append(json.RawMessage(nil), line...)}
	if body, err := decodeOnePass(ev.Raw, &ev.Envelope, peekType(ev.Raw)); err == nil && body != nil && ev.Type == body.EventType() {
		ev.Body = body
		return ev, nil
	}
	ev.Envelope = Envelope{}
	if err := json.Unmarshal(ev.Raw, &ev.Envelope); err != nil {
		return nil, err
	}
	if ev.Type == "" {
		return nil, fmt.Errorf("no \"type\" field")
	}
	body := newBody(ev.Type)
	if body == nil {
		return ev, nil
	}
	if err := json.Unmarshal(ev.Raw, body); err != nil {
		return nil, fmt.Errorf("%s fields: %w", ev.Type, err)
	}
	ev.Body = body
	return ev, nil
}

// decodeOnePass fills the envelope and the body of kind t with one pass
// over the line. It returns a nil body for an unknown t.
func decodeOnePass(raw []byte, env *Envelope, t Type) (Body, error) {
	switch t {
	case TypeSessionStart:
		b := &SessionStart{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*SessionStart
		}{env, b})
	case TypeChatTurn:
		b := &ChatTurn{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*ChatTurn
		}{env, b})
	case TypeToolCall:
		b := &ToolCall{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*ToolCall
		}{env, b})
	case TypeToolResult:
		b := &ToolResult{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*ToolResult
		}{env, b})
	case TypeDelegation:
		b := &Delegation{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*Delegation
		}{env, b})
	case TypeBashStart:
		b := &BashStart{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*BashStart
		}{env, b})
	case TypeBashRun:
		b := &BashRun{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*BashRun
		}{env, b})
	case TypeApprovalRequest:
		b := &ApprovalRequest{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*ApprovalRequest
		}{env, b})
	case TypeApprovalDecision:
		b := &ApprovalDecision{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*ApprovalDecision
		}{env, b})
	case TypeSessionEnd:
		b := &SessionEnd{}
		return b, json.Unmarshal(raw, &struct {
			*Envelope
			*SessionEnd
		}{env, b})
	}
	return nil, nil
}

// peekType finds the value of the first "type" key cheaply. It is a guess:
// a nested "type" key may come first in lines cuff did not write, so Decode
// checks it against the decoded envelope.
func peekType(line []byte) Type {
	const key = `"type":"`
	i := bytes.Index(line, []byte(key))
	if i < 0 {
		return ""
	}
	rest := line[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return Type(rest[:j])
}

// newBody returns a pointer to an empty body of kind t, or nil if t is unknown.
func newBody(t Type) Body {
	switch t {
	case TypeSessionStart:
		return &SessionStart{}
	case TypeChatTurn:
		return &ChatTurn{}
	case TypeToolCall:
		return &ToolCall{}
	case TypeToolResult:
		return &ToolResult{}
	case TypeDelegation:
		return &Delegation{}
	case TypeBashStart:
		return &BashStart{}
	case TypeBashRun:
		return &BashRun{}
	case TypeApprovalRequest:
		return &ApprovalRequest{}
	case TypeApprovalDecision:
		return &ApprovalDecision{}
	case TypeSessionEnd:
		return &SessionEnd{}
	}
	return nil
}
