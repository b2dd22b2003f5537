package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// genTranscript writes a synthetic Claude Code transcript of n exchanges,
// shaped like real ones: a prompt, an answer streamed over four records
// (thinking, text, a Bash call, a Read call) with usage, and two results
// with structured output.
func genTranscript(n int) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	out := strings.Repeat("ok  \tgithub.com/example/pkg\t0.012s\n", 60)
	file := strings.Repeat("     1→func main() { fmt.Println(\"hello, world\") }\n", 80)
	rec := func(typ, uuid, parent, ts string, extra map[string]any) {
		r := map[string]any{"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/home/dev/project",
			"sessionId": "b3f1c2d4-0000-4000-8000-000000000001", "version": "2.1.40", "gitBranch": "main",
			"type": typ, "uuid": uuid, "timestamp": ts}
		for k, v := range extra {
			r[k] = v
		}
		_ = enc.Encode(r) // encoding maps of strings cannot fail
	}
	usage := map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 1200, "cache_read_input_tokens": 40000, "output_tokens": 250}
	for i := range n {
		ts := fmt.Sprintf("2026-03-01T%02d:%02d:%02d.000Z", i/3600%24, i/60%60, i%60)
		id := func(s string) string { return fmt.Sprintf("%s-%06d", s, i) }
		msg := func(block map[string]any) map[string]any {
			return map[string]any{"message": map[string]any{"model": "claude-opus-4-6", "id": id("msg"), "type": "message",
				"role": "assistant", "content": []any{block}, "usage": usage}, "requestId": id("req")}
		}
		rec("user", id("u"), id("p"), ts, map[string]any{"message": map[string]any{"role": "user", "content": "please run the tests and read main.go"}})
		rec("assistant", id("a1"), id("u"), ts, msg(map[string]any{"type": "thinking", "thinking": "The user wants the tests run first, then the file read.", "signature": strings.Repeat("A", 300)}))
		rec("assistant", id("a2"), id("a1"), ts, msg(map[string]any{"type": "text", "text": "Running the tests, then reading main.go."}))
		rec("assistant", id("a3"), id("a2"), ts, msg(map[string]any{"type": "tool_use", "id": id("toolu_b"), "name": "Bash", "input": map[string]any{"command": "go test ./...", "description": "Run tests"}}))
		rec("assistant", id("a4"), id("a3"), ts, msg(map[string]any{"type": "tool_use", "id": id("toolu_r"), "name": "Read", "input": map[string]any{"file_path": "/home/dev/project/main.go"}}))
		rec("user", id("r1"), id("a3"), ts, map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id("toolu_b"), "content": out}}},
			"toolUseResult": map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}})
		rec("user", id("r2"), id("a4"), ts, map[string]any{"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id("toolu_r"), "content": file}}},
			"toolUseResult": map[string]any{"type": "text", "file": map[string]any{"filePath": "/home/dev/project/main.go", "content": file, "numLines": 80}}})
	}
	return buf.Bytes()
}

// benchSize is about how large the generated transcript is (20 MB).
const benchExchanges = 2000

func BenchmarkDecodeClaude(b *testing.B) {
	data := genTranscript(benchExchanges)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := Decode(bytes.NewReader(data), func(*transcript.Event) error { n++; return nil }); err != nil || n == 0 {
			b.Fatalf("decode: %v, %d events", err, n)
		}
	}
}

// BenchmarkCompactLines is the floor to compare with: validating and
// compacting each line (what `jq -c .` does), no decoding.
func BenchmarkCompactLines(b *testing.B) {
	data := genTranscript(benchExchanges)
	b.SetBytes(int64(len(data)))
	var dst bytes.Buffer
	for b.Loop() {
		lr := transcript.NewLineReader(bytes.NewReader(data))
		for {
			line, _, err := lr.Next()
			if err != nil {
				break
			}
			dst.Reset()
			if err := json.Compact(&dst, stream.TrimSpace(line)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
