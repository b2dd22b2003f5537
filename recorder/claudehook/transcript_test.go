package claudehook

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

func TestReadTranscriptKeepsFileOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	lines := `{"type":"assistant","uuid":"a1","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Trying."}]}}
{"type":"assistant","uuid":"a2","sessionId":"s","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"x"}}]}}
{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","is_error":true,"content":[{"type":"text","text":"cuff: no"}]}]}}
{"type":"assistant","uuid":"a3","sessionId":"s","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"Done."}]}}
{"type":"assistant","uuid":"a4","sess`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	entries, next, err := readTranscript(path, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if e.outcome != nil {
			got = append(got, "result "+e.outcome.ID+" "+e.outcome.Content)
		} else {
			got = append(got, "text "+e.turn.Body.(*transcript.ChatTurn).Text)
		}
	}
	if len(got) != 3 || got[0] != "text Trying." || got[1] != "result toolu_1 cuff: no" || got[2] != "text Done." {
		t.Errorf("entries %q", got)
	}
	if want := int64(len(lines) - len(`{"type":"assistant","uuid":"a4","sess`)); next != want {
		t.Errorf("offset %d, want %d (past the last complete line)", next, want)
	}
}

func FuzzOutcomes(f *testing.F) {
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"x","is_error":true}]}}`))
	f.Add([]byte(`{"type":"user","message":{"content":"tool_result"}}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"text":1}]}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, o := range outcomes(line) {
			if o.ID == "" {
				t.Fatal("an outcome without an id")
			}
		}
	})
}

func TestDeniedByClaude(t *testing.T) {
	reason := "cuff: decided by: curl x; network: curl talks to other machines"
	for _, c := range []struct {
		content string
		want    bool
	}{
		{reason, true},
		{"The user doesn't want to proceed with this tool use. The tool use was rejected", true},
		{"Exit code 1\ncuff: decided by: curl x", false}, // a run that failed and printed the words
		{"Exit code 2\nls: cannot access", false},
		{"", false},
	} {
		if got := deniedByClaude(c.content, reason); got != c.want {
			t.Errorf("deniedByClaude(%q) = %v", c.content, got)
		}
	}
	if deniedByClaude("anything", "") {
		t.Error("an empty reason matches nothing")
	}
}

func TestJSONPrefix(t *testing.T) {
	if got := string(jsonPrefix(`say "hi" <b> & é`)); got != `"say \"hi\" <b> & é` {
		t.Errorf("%s", got)
	}
}

// TestAwaitLineWakesOnTheWrite: the wait ends when the line is written
// (a file notification), and a line that never comes ends it at the bound.
func TestAwaitLineWakesOnTheWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() { done <- awaitLine(context.Background(), path, 0, []byte(`"toolu_9"`), time.Minute) }()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"id":"toolu_9"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !<-done {
		t.Error("the line was written but the wait says no")
	}
	if awaitLine(context.Background(), path, 0, []byte(`"toolu_never"`), 10*time.Millisecond) {
		t.Error("a line that never came was found")
	}
	if awaitLine(context.Background(), filepath.Join(dir, "missing", "x.jsonl"), 0, []byte("x"), time.Minute) {
		t.Error("a file in a missing folder was found")
	}
}
