package codex

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// FuzzCodex feeds the decoder arbitrary input: it must never panic or
// fail, and what it yields must keep the promises of any decode.
func FuzzCodex(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, seed := range []string{
		"",
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"x","output":"Process running with session ID 1"}}` + "\n",
		`{"type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":1}","call_id":"y"}}` + "\n",
		`{"type":"event_msg","payload":{"type":"turn_aborted"}}` + "\n",
		`{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"z","command":["a"],"duration":{"secs":1}}}` + "\n",
		`{"type":"response_item","payload":{"type":"local_shell_call","action":{"command":["ls"]}}}`,
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
		streamtest.Basics(t, events, "codex:")
		events = events[:0]
		if _, err := stream.Run(bytes.NewReader(data), NewDecoder(Options{Brief: true}), func(ev *transcript.Event) error {
			events = append(events, ev)
			return nil
		}); err != nil {
			t.Fatalf("brief decode failed: %v", err)
		}
		streamtest.Basics(t, events, "codex:")
	})
}
