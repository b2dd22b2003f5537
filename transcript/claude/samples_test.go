package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// decodeAll decodes a whole transcript.
func decodeAll(t testing.TB, data []byte) ([]*transcript.Event, Stats) {
	t.Helper()
	var events []*transcript.Event
	st, err := Decode(bytes.NewReader(data), func(ev *transcript.Event) error {
		events = append(events, ev)
		return nil
	})
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return events, st
}

// rawToolUseIDs collects the id of every tool_use block anywhere in a
// transcript file, nested records included.
func rawToolUseIDs(data []byte) map[string]bool {
	ids := map[string]bool{}
	streamtest.WalkJSONL(data, func(obj map[string]any) {
		if typ, _ := obj["type"].(string); typ == "tool_use" || typ == "server_tool_use" {
			if id, _ := obj["id"].(string); id != "" {
				ids[id] = true
			}
		}
	})
	return ids
}

// TestRealSamples decodes the real transcripts kept beside the checkout:
// no panic, every tool_use of the file decoded exactly once, complete
// pairing and nesting.
func TestRealSamples(t *testing.T) {
	dir := streamtest.SamplesDir(t, "claude")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Skipf("no samples in %s", dir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			events, st := decodeAll(t, data)
			streamtest.Invariants(t, events, "claude:")
			streamtest.ExactlyOnce(t, rawToolUseIDs(data), streamtest.CallIDs(events))
			if st.Malformed != 0 {
				t.Errorf("%d malformed lines in a real file", st.Malformed)
			}
			t.Logf("lines %d, events %d (%s), skipped %d, unknown %d %v",
				st.Lines, st.Events, streamtest.KindsString(events), st.Skipped, st.Unknown, st.UnknownTypes)
			// read in place, where no sub-agent's file lies beside it: the same
			if a, b := encodeAll(t, events), encodeAll(t, decodePath(t, f)); a != b {
				t.Error("read with its path, the sample decodes differently")
			}
		})
	}
}
