package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Anthropic is a scripted mock of the Anthropic Messages API, as Claude
// Code uses it: HEAD / answers 200, POST /v1/messages answers each
// conversation turn from the script, streamed as server-sent events
// (message_start, content_block_start/delta/stop, message_delta,
// message_stop) when the request asks for a stream. Requests that offer no
// tools (titles, summaries, quota checks) get plain text.
type Anthropic struct{ *mock }

// NewAnthropic serves the conversations on 127.0.0.1 until the test ends.
// The first conversation is the main agent's: its Prompt is (part of) the
// prompt given to claude -p.
func NewAnthropic(t testing.TB, script ...Conversation) *Anthropic {
	a := &Anthropic{}
	a.mock = newMock(t, script, http.HandlerFunc(a.serve))
	a.start()
	return a
}

// messagesRequest is the part of a Messages API request the mock reads.
type messagesRequest struct {
	Stream bool   `json:"stream"`
	Model  string `json:"model"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// block is a content block of a request message.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// blocks reads a message's content: a string or a list of blocks.
func blocks(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// flatText is a tool result's content as text: a string, or the text of
// its blocks.
func flatText(raw json.RawMessage) string {
	var parts []string
	for _, b := range blocks(raw) {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// parseMessages reads a Messages API request into what the mock needs:
// the first user text (context reminders left out), the number of model
// replies in it, the tool results and the tools offered.
func parseMessages(body []byte) (firstUser string, turn int, results []ToolResult, tools []string, stream bool, err error) {
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return "", 0, nil, nil, false, fmt.Errorf("request is not a Messages API request: %w", err)
	}
	first := true
	for _, msg := range req.Messages {
		switch msg.Role {
		case "assistant":
			turn++
		case "user":
			for _, b := range blocks(msg.Content) {
				switch {
				case b.Type == "tool_result":
					results = append(results, ToolResult{ID: b.ToolUseID, Output: flatText(b.Content), IsError: b.IsError})
				case first && b.Type == "text" && !strings.HasPrefix(strings.TrimSpace(b.Text), "<system-reminder>"):
					firstUser = strings.TrimSpace(firstUser + "\n" + b.Text)
				}
			}
			first = false
		}
	}
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	return firstUser, turn, results, tools, req.Stream, nil
}

func (a *Anthropic) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodHead || r.Method == http.MethodGet && r.URL.Path == "/":
		w.WriteHeader(http.StatusOK)
		return
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		_, _ = io.WriteString(w, `{"input_tokens":100}`)
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1/messages":
		http.Error(w, a.problem("unexpected request %s %s", r.Method, r.URL), http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	firstUser, turn, results, tools, stream, err := parseMessages(body)
	if err != nil {
		anthropicError(w, a.problem("%v", err))
		return
	}
	req := Request{Conversation: -1, Turn: turn, Results: results, Tools: tools}
	if len(tools) == 0 { // a side request: answer it, it is no conversation turn
		req.Side = true
		a.logRequest(req)
		writeMessage(w, stream, "msg_side", Reply{Text("Side answer")})
		return
	}
	req.Conversation = a.match(firstUser)
	a.logRequest(req)
	reply, bad := a.reply(req.Conversation, turn, firstUser)
	if bad != "" {
		anthropicError(w, bad)
		return
	}
	reply = a.withIDs(reply, req.Conversation, turn)
	writeMessage(w, stream, fmt.Sprintf("msg_e2e_%d_%d", req.Conversation, turn), a.hold(r.Context(), reply))
}

// withIDs gives every tool call of a reply its id.
func (a *Anthropic) withIDs(r Reply, c, n int) Reply {
	out := make(Reply, len(r))
	for i, p := range r {
		if p.kind == "tool" {
			p.id = p.callID("toolu", c, n, i)
		}
		out[i] = p
	}
	return out
}

func anthropicError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
	_, _ = w.Write(b)
}

// contentBlock is a reply part as a Messages API content block.
func contentBlock(p Part) (start map[string]any, delta map[string]any, full map[string]any, err error) {
	switch p.kind {
	case "text":
		return map[string]any{"type": "text", "text": ""},
			map[string]any{"type": "text_delta", "text": p.text},
			map[string]any{"type": "text", "text": p.text}, nil
	case "thinking":
		return map[string]any{"type": "thinking", "thinking": ""},
			map[string]any{"type": "thinking_delta", "thinking": p.text},
			map[string]any{"type": "thinking", "thinking": p.text, "signature": "e2e"}, nil
	default:
		in, err := p.inputJSON()
		if err != nil {
			return nil, nil, nil, err
		}
		return map[string]any{"type": "tool_use", "id": p.id, "name": p.tool, "input": map[string]any{}},
			map[string]any{"type": "input_json_delta", "partial_json": in},
			map[string]any{"type": "tool_use", "id": p.id, "name": p.tool, "input": json.RawMessage(in)}, nil
	}
}

// writeMessage answers with the reply as one assistant message, streamed
// or whole.
func writeMessage(w http.ResponseWriter, stream bool, id string, r Reply) {
	stop := "end_turn"
	if r.hasTool() {
		stop = "tool_use"
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	msg := map[string]any{"id": id, "type": "message", "role": "assistant", "model": "claude-e2e-mock",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
	if !stream {
		var content []any
		for _, p := range r {
			_, _, full, err := contentBlock(p)
			if err != nil {
				anthropicError(w, err.Error())
				return
			}
			content = append(content, full)
		}
		msg["content"], msg["stop_reason"] = content, stop
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(msg)
		_, _ = w.Write(b)
		return
	}
	s := newSSE(w)
	send := func(name string, v map[string]any) {
		v["type"] = name
		b, _ := json.Marshal(v)
		s.event(name, b)
	}
	send("message_start", map[string]any{"message": msg})
	for i, p := range r {
		start, delta, _, err := contentBlock(p)
		if err != nil {
			send("error", map[string]any{"error": map[string]any{"type": "invalid_request_error", "message": err.Error()}})
			return
		}
		send("content_block_start", map[string]any{"index": i, "content_block": start})
		send("content_block_delta", map[string]any{"index": i, "delta": delta})
		if p.kind == "thinking" {
			send("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "signature_delta", "signature": "e2e"}})
		}
		send("content_block_stop", map[string]any{"index": i})
	}
	send("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10}})
	send("message_stop", map[string]any{})
}
