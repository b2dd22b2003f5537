package claude

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// FuzzClaude feeds the decoder arbitrary input, read whole and brief: it must never panic or
// fail, and what it yields must keep the promises of any decode.
func FuzzClaude(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	more, _ := filepath.Glob(filepath.Join("testdata", "subagents", "*.jsonl"))
	nested, _ := filepath.Glob(filepath.Join(nestedFixture, "*", "subagents", "*.jsonl"))
	top, _ := filepath.Glob(filepath.Join(nestedFixture, "*.jsonl"))
	files = append(append(append(files, more...), nested...), top...)
	for _, name := range files {
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
		events = events[:0]
		if _, err := stream.Run(bytes.NewReader(data), NewDecoder(Options{Brief: true}), func(ev *transcript.Event) error {
			events = append(events, ev)
			return nil
		}); err != nil {
			t.Fatalf("brief decode failed: %v", err)
		}
		streamtest.Basics(t, events, "claude:")
	})
}

// FuzzClaudeSubAgents feeds a parent transcript and a sub-agent file, both
// arbitrary, read together as a session whose sub-agent wrote its own
// file: no panic, no failure, every invocation once, and nothing of the
// parent read alone lost.
func FuzzClaudeSubAgents(f *testing.F) {
	seed := func(progress bool) (parent, sub []byte) {
		p, a, _ := parallelSession(progress)
		for _, r := range p.recs {
			if tur, ok := r["toolUseResult"].(map[string]any); ok && tur["agentId"] == "a1f00d1" {
				tur["agentId"] = fuzzAgent
			}
		}
		return p.bytes(), a.bytes()
	}
	for _, progress := range []bool{false, true} {
		parent, sub := seed(progress)
		f.Add(parent, sub)
	}
	f.Add(readFixture(f, "progress.jsonl"), readFixture(f, "subagents/agent-a7f3c21.jsonl"))
	f.Add([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Task","input":{"prompt":"p"}}]}}`+"\n"+
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t"}]},"toolUseResult":{"agentId":"`+fuzzAgent+`"}}`+"\n"),
		[]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Task","input":{"prompt":"p"}}]}}`+"\n"))
	f.Fuzz(func(t *testing.T, parent, sub []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, testSession+".jsonl")
		if err := os.WriteFile(path, parent, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{filepath.Join(dir, testSession, "subagents", "agent-"+fuzzAgent+".jsonl"),
			filepath.Join(dir, "agent-"+fuzzAgent+".jsonl")} {
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, sub, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		events := decodePath(t, path)
		if len(events) == 0 {
			t.Fatal("no events")
		}
		streamtest.Basics(t, events, "claude:")
		with := map[string]bool{}
		for _, ev := range events {
			if streamtest.IsCallStart(ev) {
				with[ev.CallID] = true
			}
		}
		alone, _ := decodeAll(t, parent)
		for _, ev := range alone {
			if streamtest.IsCallStart(ev) && !with[ev.CallID] {
				t.Errorf("call %s of the parent is lost when its sub-agent's file is read", ev.CallID)
			}
		}
	})
}

// fuzzAgent is the sub-agent id FuzzClaudeSubAgents files its sub-agent under.
const fuzzAgent = "afuzz01"
