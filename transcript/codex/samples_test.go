package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// decodeAll decodes a whole rollout.
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

// rawCallIDs collects the call id of every call item in a rollout, and of
// every exec_command_end (a command may have no call item).
func rawCallIDs(data []byte) map[string]bool {
	ids := map[string]bool{}
	streamtest.WalkJSONL(data, func(obj map[string]any) {
		switch obj["type"] {
		case "function_call", "custom_tool_call", "local_shell_call", "exec_command_end":
			if id, _ := obj["call_id"].(string); id != "" {
				ids[id] = true
			}
		}
	})
	return ids
}

// TestRealSamples decodes the real rollouts kept beside the checkout: no
// panic, every call of the file decoded exactly once, complete pairing.
func TestRealSamples(t *testing.T) {
	dir := streamtest.SamplesDir(t, "codex")
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
			streamtest.Invariants(t, events, "codex:")
			streamtest.ExactlyOnce(t, rawCallIDs(data), streamtest.CallIDs(events))
			if st.Malformed != 0 {
				t.Errorf("%d malformed lines in a real file", st.Malformed)
			}
			t.Logf("lines %d, events %d (%s), skipped %d, unknown %d %v",
				st.Lines, st.Events, streamtest.KindsString(events), st.Skipped, st.Unknown, st.UnknownTypes)
		})
	}
}
