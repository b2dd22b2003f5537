package search

import (
	"strings"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/cuff-dev/cuff/transcript/redact"
)

// Kind is the part of a session a hit's text comes from.
type Kind uint8

// Kinds of hit.
const (
	KindPrompt   Kind = iota + 1 // a person's prompt
	KindAnswer                   // an assistant's answer
	KindThinking                 // an assistant's reasoning
	KindCommand                  // a shell command
	KindOutput                   // what a shell command printed
	KindTool                     // a tool's input, a sub-agent's task
	KindResult                   // a tool's result, a sub-agent's answer
)

// kindNames are the names of the kinds, as --type and field queries take
// them and JSON writes them.
var kindNames = [...]string{"", "prompt", "answer", "thinking", "command", "output", "tool", "result"}

// kindAliases are other names a kind is known by.
var kindAliases = map[string]Kind{"cmd": KindCommand, "out": KindOutput, "input": KindTool, "reasoning": KindThinking}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// KindNames are the names --type takes.
func KindNames() []string { return append([]string(nil), kindNames[1:]...) }

// ParseKind reads a kind's name (or alias).
func ParseKind(s string) (Kind, bool) {
	s = strings.ToLower(s)
	for k, name := range kindNames {
		if k > 0 && name == s {
			return Kind(k), true
		}
	}
	k, ok := kindAliases[s]
	return k, ok
}

// Text bounds: what is indexed of one long text (its start and its end,
// as a build's failure is at the end of its log), and the cut made while
// decoding, before anything else, so that a transcript's megabyte outputs
// cost what their indexed part costs.
const (
	textHead = 8 << 10
	textTail = 2 << 10
)

// clip is how a transcript is cut while it is decoded for the index.
var clip = stream.ClipOptions{Head: textHead, Tail: textTail}

// doc is one text the index holds, and what a hit shows of it.
type doc struct {
	kind   Kind
	ts     int64 // unix nanoseconds
	seq    int64 // the event's seq: exact in cuff's own sessions
	failed bool
	call   string // a command's call id, to mark it failed when its run fails
	tool   string
	text   string
}

// extractor turns events into docs, remembering across one read which
// commands it has seen start.
type extractor struct {
	redactor *redact.Redactor
	started  map[string]bool
}

func newExtractor(r *redact.Redactor) *extractor {
	return &extractor{redactor: r, started: map[string]bool{}}
}

// docs returns what of ev the index holds, redacted as the store redacts:
// prompts, answers and reasoning, commands and their output, tool inputs
// and results, sub-agents' tasks and answers. failedCall names a command
// whose run just failed, for a command doc indexed before.
func (x *extractor) docs(ev *transcript.Event) (out []doc, failedCall string) {
	base := doc{ts: ev.TS.UnixNano(), seq: ev.Seq}
	add := func(kind Kind, text string, failed bool, tool string) {
		text = strings.TrimSpace(text)
		if text == "" {
			return
		}
		d := base
		d.kind, d.text, d.failed, d.tool = kind, x.redact(text), failed, tool
		out = append(out, d)
	}
	switch b := ev.Body.(type) {
	case *transcript.ChatTurn:
		if b.Context != "" || b.UsageOnly() {
			return nil, "" // instructions the agent injected, or token usage alone
		}
		switch {
		case b.Thinking:
			add(KindThinking, b.Text, false, "")
		case b.Role == transcript.RoleUser:
			add(KindPrompt, b.Text, false, "")
		case b.Role == transcript.RoleAssistant:
			add(KindAnswer, b.Text, false, "")
		}
	case *transcript.BashStart:
		add(KindCommand, b.Command, false, "")
		if len(out) > 0 && ev.CallID != "" {
			out[0].call = ev.CallID
			x.started[ev.CallID] = true
		}
	case *transcript.BashRun:
		failed := b.Failed()
		if ev.CallID == "" || !x.started[ev.CallID] {
			add(KindCommand, b.Command, failed, "")
		} else if failed {
			failedCall = ev.CallID
		}
		delete(x.started, ev.CallID)
		output := b.Stdout
		if b.Stderr != "" {
			output += "\n" + b.Stderr
		}
		add(KindOutput, output, failed, "")
	case *transcript.ToolCall:
		input := string(b.Input)
		if x.redactor != nil && len(b.Input) > 0 {
			input = string(x.redactor.ValidJSON(b.Input))
		}
		add(KindTool, b.Tool+" "+input, false, b.Tool)
	case *transcript.ToolResult:
		add(KindResult, b.Output, b.IsError, b.Tool)
		if b.IsError {
			failedCall = ev.CallID // a command's result read apart from its command (an update later)
		}
	case *transcript.Delegation:
		if b.Phase == transcript.PhaseEnd {
			add(KindResult, b.Result, b.Success != nil && !*b.Success, b.AgentType)
		} else {
			add(KindTool, b.Task, false, b.AgentType)
		}
	}
	return out, failedCall
}

// redact applies the store's redaction to a text; the tool inputs, which
// are JSON, get it as JSON before (so that a key's name counts).
func (x *extractor) redact(text string) string {
	if x.redactor == nil {
		return text
	}
	return x.redactor.String(text)
}
