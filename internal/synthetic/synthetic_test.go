package synthetic

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Every line written is a JSON object, and the size asked for is reached.
func TestWriteClaudeIsJSONL(t *testing.T) {
	var buf bytes.Buffer
	tr, err := WriteClaude(&buf, ClaudeOptions{Bytes: 2 << 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Bytes < 2<<20 || int64(buf.Len()) != tr.Bytes {
		t.Fatalf("wrote %d bytes, reported %d, asked 2 MB", buf.Len(), tr.Bytes)
	}
	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != tr.Lines {
		t.Fatalf("%d lines, reported %d", len(lines), tr.Lines)
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
	}
	if tr.Prompts == 0 || tr.Commands == 0 || tr.Failed == 0 || tr.ToolCalls <= tr.Commands {
		t.Fatalf("a 2 MB transcript without variety: %+v", tr)
	}
}

// The same seed writes the same bytes.
func TestWriteClaudeRepeatable(t *testing.T) {
	var a, b bytes.Buffer
	if _, err := WriteClaude(&a, ClaudeOptions{Bytes: 100 << 10, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteClaude(&b, ClaudeOptions{Bytes: 100 << 10, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two runs with one seed differ")
	}
}
