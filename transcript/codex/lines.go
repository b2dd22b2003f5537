package codex

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// rolloutLine is one line of a rollout: a timestamp, a type and a payload.
type rolloutLine struct {
	Timestamp string  `json:"timestamp"`
	Type      string  `json:"type"`
	Payload   payload `json:"payload"`
}

// payload holds the fields of every payload type; each type fills its own.
// Every field is optional.
type payload struct {
	Type string `json:"type"`

	// session_meta, turn_context
	ID        string   `json:"id"`
	Timestamp string   `json:"timestamp"`
	CWD       string   `json:"cwd"`
	Git       *gitInfo `json:"git"`
	Model     string   `json:"model"`

	// message, reasoning
	Role    string `json:"role"`
	Content items  `json:"content"`
	Summary items  `json:"summary"`

	// function_call, custom_tool_call, local_shell_call, web_search_call and outputs
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	Arguments any             `json:"arguments"` // a JSON string, decoded as a string in one pass
	Input     any             `json:"input"`
	CallID    string          `json:"call_id"`
	Output    any             `json:"output"`
	Status    string          `json:"status"`
	Action    json.RawMessage `json:"action"`

	// event_msg and compacted
	Message          string          `json:"message"`
	Text             string          `json:"text"`
	Info             *tokenInfo      `json:"info"`
	ExitCode         *int            `json:"exit_code"`
	Stdout           string          `json:"stdout"`
	Stderr           string          `json:"stderr"`
	AggregatedOutput string          `json:"aggregated_output"`
	Command          json.RawMessage `json:"command"`
	Duration         json.RawMessage `json:"duration"`
	Reason           string          `json:"reason"`
	Query            string          `json:"query"`
	Success          *bool           `json:"success"`
	Invocation       *invocation     `json:"invocation"`
	Result           json.RawMessage `json:"result"`
	Item             *completedItem  `json:"item"`
}

// completedItem is the item of an item_completed event: how a tool call
// ended, as Codex tells its UI.
type completedItem struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Status string `json:"status"`
	Result *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
}

// failed reports whether the item is a call that Codex marked failed.
func (it *completedItem) failed() bool {
	return it.Status == "failed" || (it.Result != nil && it.Result.IsError)
}

type gitInfo struct {
	CommitHash string `json:"commit_hash"`
	Branch     string `json:"branch"`
}

// item is one element of a message's content or a reasoning summary.
type item struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// items is a list of content items; anything else (null, a string such as
// turn_context's summary setting) decodes as empty.
type items []item

// UnmarshalJSON accepts an array and ignores anything else.
func (it *items) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '[' {
		return nil
	}
	return json.Unmarshal(b, (*[]item)(it))
}

// imagePlaceholder stands for an image in text.
const imagePlaceholder = "[image]"

// text joins the text items, images as a placeholder.
func (it items) text() string {
	var parts []string
	for _, x := range it {
		switch x.Type {
		case "input_image", "image":
			parts = append(parts, imagePlaceholder)
		default:
			if x.Text != "" {
				parts = append(parts, x.Text)
			}
		}
	}
	return strings.Join(parts, "\n")
}

type tokenInfo struct {
	Total *tokenUsage `json:"total_token_usage"`
}

// tokenUsage is a cumulative token count of a session.
type tokenUsage struct {
	InputTokens       int64 `json:"input_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
}

type invocation struct {
	Server    string          `json:"server"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// action is a local_shell_call's or web_search_call's action.
type action struct {
	Type             string   `json:"type"`
	Command          []string `json:"command"`
	TimeoutMS        int64    `json:"timeout_ms"`
	WorkingDirectory string   `json:"working_directory"`
	Query            string   `json:"query"`
}

// shellArgs are the arguments of the shell tools: shell (argv),
// shell_command (a string), exec_command (cmd) and write_stdin.
type shellArgs struct {
	Command   json.RawMessage `json:"command"`
	Cmd       string          `json:"cmd"`
	Workdir   string          `json:"workdir"`
	TimeoutMS int64           `json:"timeout_ms"`
	Shell     string          `json:"shell"`
	SessionID json.RawMessage `json:"session_id"`
}

// jsonText returns the text a raw JSON value holds: a string unquoted,
// anything else as written.
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
}

// valueText returns the text a decoded JSON value holds: a string as it
// is, nothing for null, anything else as JSON.
func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// argv reads a command given as an array of strings; ok is false when it
// is not one.
func argv(raw json.RawMessage) (args []string, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	if json.Unmarshal(raw, &args) != nil {
		return nil, false
	}
	return args, true
}

// idText normalises an id given as a number or a string.
func idText(raw json.RawMessage) string {
	s := strings.TrimSpace(jsonText(raw))
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return strings.TrimSuffix(s, ".0")
	}
	return s
}

// durationMS reads a duration written as {secs, nanos}, as a number of
// seconds, or as a Go-style string ("1.5s").
func durationMS(raw json.RawMessage) int64 {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return 0
	}
	switch raw[0] {
	case '{':
		var d struct {
			Secs  int64 `json:"secs"`
			Nanos int64 `json:"nanos"`
		}
		if json.Unmarshal(raw, &d) == nil {
			return d.Secs*msPerSecond + d.Nanos/nsPerMS
		}
	case '"':
		s := jsonText(raw)
		if f, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64); err == nil && f >= 0 {
			return int64(f * msPerSecond)
		}
	default:
		if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f >= 0 {
			return int64(f * msPerSecond)
		}
	}
	return 0
}

const (
	msPerSecond = 1000
	nsPerMS     = 1_000_000
)
