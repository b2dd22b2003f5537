package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// genDelegations writes a parent of n delegations, each running while the
// parent runs a command of its own, and each sub-agent's file of m
// exchanges (a Bash call and a Read call with their outputs, an answer),
// in Claude Code 2.1's layout under dir. It returns the parent's path and
// the bytes written in all.
func genDelegations(b *testing.B, dir string, n, m int) (string, int64) {
	out := strings.Repeat("ok  \tgithub.com/example/pkg\t0.012s\n", 60)
	file := strings.Repeat("     1→func main() { fmt.Println(\"hello, world\") }\n", 80)
	parent := newScript(testSession, "")
	var subs []*script
	t := 0.0
	tick := func() string { t += 0.5; return at(t) }
	for i := range n {
		agentID := fmt.Sprintf("a%06x", i)
		call, own := fmt.Sprintf("toolu_T%d", i), fmt.Sprintf("toolu_P%d", i)
		msg := fmt.Sprintf("msg_p%d", i)
		parent.prompt(tick(), "Explore the package and run the tests.")
		parent.agent(tick(), msg, call, "Explore the package.")
		parent.bash(tick(), msg, own, "go test ./...")
		sub := newScript(testSession, agentID)
		sub.prompt(tick(), "Explore the package.")
		for j := range m {
			id := fmt.Sprintf("%s_%d", agentID, j)
			sub.bash(tick(), "msg_b"+id, "toolu_b"+id, "go vet ./...")
			sub.bashResult(tick(), "toolu_b"+id, out)
			sub.read(tick(), "msg_r"+id, "toolu_r"+id, "/home/dev/shop/main.go")
			sub.result(tick(), "toolu_r"+id, file, map[string]any{"type": "text"})
			if j == m/2 {
				parent.bashResult(tick(), own, out)
			}
		}
		sub.text(tick(), "msg_e"+agentID, "The package is fine.")
		parent.agentResult(tick(), call, agentID, "The package is fine.")
		subs = append(subs, sub)
	}
	path := writeSession(b, dir, parent, subs...)
	total := int64(len(parent.bytes()))
	for _, s := range subs {
		total += int64(len(s.bytes()))
	}
	return path, total
}

// decodeFileBench decodes the transcript at path with opts, b.N times.
func decodeFileBench(b *testing.B, path string, opts Options, bytes int64) {
	b.SetBytes(bytes)
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		if _, err := stream.Run(f, NewDecoder(opts), func(*transcript.Event) error { n++; return nil }); err != nil || n == 0 {
			b.Fatalf("decode: %v, %d events", err, n)
		}
		f.Close()
	}
}

// BenchmarkDecodeClaudeSubAgentFiles reads a session of 40 delegations
// whose sub-agents (50 exchanges each) wrote their own files: the rate
// over all the bytes read, to compare with BenchmarkDecodeClaude.
func BenchmarkDecodeClaudeSubAgentFiles(b *testing.B) {
	path, total := genDelegations(b, b.TempDir(), 40, 50)
	b.Run("with-files", func(b *testing.B) { decodeFileBench(b, path, Options{Path: path}, total) })
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parent-alone", func(b *testing.B) { decodeFileBench(b, path, Options{}, fi.Size()) })
	// the floor: the parent and each sub-agent's file decoded on its own
	files, err := filepath.Glob(filepath.Join(filepath.Dir(path), testSession, "subagents", "*.jsonl"))
	if err != nil || len(files) != 40 {
		b.Fatal(err, len(files))
	}
	b.Run("each-file-alone", func(b *testing.B) {
		b.SetBytes(total)
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range append([]string{path}, files...) {
				f, err := os.Open(p)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := stream.Run(f, NewDecoder(Options{}), func(*transcript.Event) error { return nil }); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		}
	})
}

// BenchmarkDecodeClaudePath decodes the transcript of BenchmarkDecodeClaude
// from a file, with and without its path: knowing where sub-agents' files
// would be costs nothing when there are no delegations.
func BenchmarkDecodeClaudePath(b *testing.B) {
	data := genTranscript(benchExchanges)
	path := filepath.Join(b.TempDir(), testSession+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	b.Run("path", func(b *testing.B) { decodeFileBench(b, path, Options{Path: path}, int64(len(data))) })
	b.Run("no-path", func(b *testing.B) { decodeFileBench(b, path, Options{}, int64(len(data))) })
}
