package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// FuzzClaude feeds the decoder arbitrary input: it must never panic or
// fail, and what it yields must keep the promises of any decode.
func FuzzClaude(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join("testdata", "subagents", "*.jsonl"))
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, seed := range []string{
		"",
		"\n\n",
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x"}]}}` + "\n",
		`{"type":"assistant","isSidechain":true,"message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Task","input":{"prompt":"p"}}]}}` + "\n",
		`{"type":"user","isSidechain":true,"parentUuid":"nope","message":{"content":"p"}}` + "\n",
		`{"type":"progress","data":{"type":"agent_progress","message":{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash"}]}}}}` + "\n",
		`{"type":"system","subtype":"api_error","error":{"status":500}}` + "\n",
		`{"type":"assistant","message":{"content":"plain"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var events []*transcript.Event
		st, err := Decode(bytes.NewReader(data), func(ev *transcript.Event) error {
			events = append(events, ev)
			return nil
		})
		if err != nil {
			t.Fatalf("decode failed: %v", err)
		}
		if st.Events != len(events) || len(events) == 0 {
			t.Fatalf("stats count %d events, %d passed", st.Events, len(events))
		}
		streamtest.Basics(t, events, "claude:")
	})
}
