package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
)

// genRollout writes a synthetic Codex rollout of n turns, shaped like real
// ones: turn context, reasoning (as event and item), a cumulative token
// count, an exec_command call with a plain-text output, a shell call with
// a JSON output, and an answer recorded twice.
func genRollout(n int) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	line := func(ts, typ string, payload any) {
		_ = enc.Encode(map[string]any{"timestamp": ts, "type": typ, "payload": payload}) // cannot fail for these values
	}
	out := strings.Repeat("src/handlers/routes.go:42:\tfunc health(w http.ResponseWriter, r *http.Request) {\n", 30)
	meta, _ := json.Marshal(map[string]any{"output": out, "metadata": map[string]any{"exit_code": 0, "duration_seconds": 0.1}})
	line("2026-01-05T09:00:00.000Z", "session_meta", map[string]any{"id": "0199aaaa-0000-7000-8000-000000000001", "timestamp": "2026-01-05T09:00:00.000Z",
		"cwd": "/home/dev/api", "originator": "codex_cli_rs", "cli_version": "0.125.0", "source": "cli", "model_provider": "openai",
		"base_instructions": map[string]any{"text": strings.Repeat("You are Codex, a coding agent. ", 400)}})
	for i := range n {
		ts := fmt.Sprintf("2026-01-05T%02d:%02d:%02d.000Z", 9+i/3600%12, i/60%60, i%60)
		id := func(s string) string { return fmt.Sprintf("%s_%06d", s, i) }
		line(ts, "turn_context", map[string]any{"cwd": "/home/dev/api", "approval_policy": "on-request", "model": "gpt-5.1-codex", "effort": "medium", "summary": "auto",
			"sandbox_policy": map[string]any{"type": "workspace-write", "writable_roots": []string{"/home/dev/api"}, "network_access": false}})
		line(ts, "event_msg", map[string]any{"type": "agent_reasoning", "text": "**Searching the handlers**"})
		line(ts, "event_msg", map[string]any{"type": "token_count", "info": map[string]any{"total_token_usage": map[string]any{"input_tokens": 1000 * (i + 1), "cached_input_tokens": 800 * i, "output_tokens": 50 * (i + 1)}}})
		line(ts, "response_item", map[string]any{"type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": "**Searching the handlers**"}}, "encrypted_content": strings.Repeat("g", 800)})
		line(ts, "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"rg -n health src","yield_time_ms":1000}`, "call_id": id("call_e")})
		line(ts, "response_item", map[string]any{"type": "function_call_output", "call_id": id("call_e"), "output": "Chunk ID: ab12\nWall time: 0.0500 seconds\nProcess exited with code 0\nOriginal token count: 900\nOutput:\n" + out})
		line(ts, "response_item", map[string]any{"type": "function_call", "name": "shell", "arguments": `{"command":["bash","-lc","go test ./..."],"workdir":"/home/dev/api"}`, "call_id": id("call_s")})
		line(ts, "response_item", map[string]any{"type": "function_call_output", "call_id": id("call_s"), "output": string(meta)})
		line(ts, "response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "The health handler is in routes.go."}}})
		line(ts, "event_msg", map[string]any{"type": "agent_message", "message": "The health handler is in routes.go."})
	}
	return buf.Bytes()
}

// benchTurns makes a rollout of about 20 MB.
const benchTurns = 3000

func BenchmarkDecodeCodex(b *testing.B) {
	data := genRollout(benchTurns)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := Decode(bytes.NewReader(data), func(*transcript.Event) error { n++; return nil }); err != nil || n == 0 {
			b.Fatalf("decode: %v, %d events", err, n)
		}
	}
}
