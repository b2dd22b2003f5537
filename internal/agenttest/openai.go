package agenttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Responses is a scripted mock of the OpenAI Responses API, as Codex uses
// it (wire_api = "responses"): POST /v1/responses answers each turn from
// the script as server-sent events (response.created,
// response.output_item.added/done, response.output_text.delta,
// response.completed).
type Responses struct{ *mock }

// NewResponses serves the conversations on 127.0.0.1 until the test ends.
func NewResponses(t testing.TB, script ...Conversation) *Responses {
	r := &Responses{}
	r.mock = newMock(t, script, http.HandlerFunc(r.serve))
	r.start()
	return r
}

// responseItem is an input item of a Responses API request.
type responseItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	CallID  string          `json:"call_id"`
	Output  json.RawMessage `json:"output"`
}

// modelItem reports whether an input item is one the model produced.
func (it responseItem) modelItem() bool {
	switch it.Type {
	case "message":
		return it.Role == "assistant"
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "reasoning", "tool_search_call":
		return true
	}
	return false
}

// text is the text of a message item's content.
func (it responseItem) text() string {
	var s string
	if json.Unmarshal(it.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(it.Content, &parts)
	var out []string
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return strings.Join(out, "\n")
}

// outputText is a tool output: a string, or the text of its parts.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return strings.Join(out, "\n")
	}
	return string(raw)
}

// parseResponses reads a Responses API request: the first user text that
// is not injected context (<environment_context>, instructions), the
// number of model replies in it, and the tool outputs.
func parseResponses(body []byte) (firstUser string, turn int, results []ToolResult, tools []string, err error) {
	var req struct {
		Input []responseItem `json:"input"`
		Tools []struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return "", 0, nil, nil, fmt.Errorf("request is not a Responses API request: %w", err)
	}
	prevModel := false
	for _, it := range req.Input {
		m := it.modelItem()
		if m && !prevModel {
			turn++
		}
		prevModel = m
		switch {
		case it.Type == "function_call_output" || it.Type == "custom_tool_call_output":
			results = append(results, ToolResult{ID: it.CallID, Output: outputText(it.Output)})
		case it.Type == "message" && it.Role == "user" && firstUser == "":
			if text := strings.TrimSpace(it.text()); !strings.HasPrefix(text, "<") && !strings.HasPrefix(text, "# AGENTS.md") {
				firstUser = text
			}
		}
	}
	for _, t := range req.Tools {
		tools = append(tools, t.Name)
	}
	return firstUser, turn, results, tools, nil
}

func (r *Responses) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/responses" {
		http.Error(w, r.problem("unexpected request %s %s", req.Method, req.URL), http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return
	}
	firstUser, turn, results, tools, err := parseResponses(body)
	if err != nil {
		http.Error(w, r.problem("%v", err), http.StatusBadRequest)
		return
	}
	rq := Request{Conversation: r.match(firstUser), Turn: turn, Results: results, Tools: tools}
	r.logRequest(rq)
	reply, bad := r.reply(rq.Conversation, turn, firstUser)
	if bad != "" {
		http.Error(w, bad, http.StatusBadRequest)
		return
	}
	writeResponse(w, fmt.Sprintf("resp_e2e_%d_%d", rq.Conversation, turn), r.hold(req.Context(), reply), rq.Conversation, turn)
}

// responseOutput is a reply part as a Responses API output item.
func responseOutput(p Part, id string) (map[string]any, error) {
	switch p.kind {
	case "text":
		return map[string]any{"type": "message", "id": id, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": p.text, "annotations": []any{}}}}, nil
	case "thinking":
		return map[string]any{"type": "reasoning", "id": id,
			"summary": []any{map[string]any{"type": "summary_text", "text": p.text}}}, nil
	default:
		in, err := p.inputJSON()
		if err != nil {
			return nil, err
		}
		item := map[string]any{"type": "function_call", "id": id, "call_id": p.id, "name": p.tool,
			"arguments": in, "status": "completed"}
		if p.namespace != "" {
			item["namespace"], item["name"] = p.namespace, strings.TrimPrefix(p.tool, p.namespace+"__")
		}
		return item, nil
	}
}

func writeResponse(w http.ResponseWriter, id string, reply Reply, c, n int) {
	s := newSSE(w)
	send := func(name string, v map[string]any) {
		v["type"] = name
		b, _ := json.Marshal(v)
		s.event(name, b)
	}
	send("response.created", map[string]any{"response": map[string]any{"id": id, "status": "in_progress"}})
	for i, p := range reply {
		if p.kind == "tool" {
			p.id = p.callID("call", c, n, i)
		}
		itemID := fmt.Sprintf("item_e2e_%d_%d_%d", c, n, i)
		item, err := responseOutput(p, itemID)
		if err != nil {
			send("response.failed", map[string]any{"response": map[string]any{"id": id, "error": map[string]any{"message": err.Error()}}})
			return
		}
		send("response.output_item.added", map[string]any{"output_index": i, "item": item})
		if p.kind == "text" {
			send("response.output_text.delta", map[string]any{"item_id": itemID, "output_index": i, "content_index": 0, "delta": p.text})
		}
		send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	send("response.completed", map[string]any{"response": map[string]any{"id": id, "status": "completed",
		"usage": map[string]any{"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 10, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 110}}})
}
