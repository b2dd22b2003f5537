package export

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// fixtureStore is a store in a temporary folder; writes skip fsync.
func fixtureStore(t testing.TB) *session.Store {
	t.Helper()
	s := session.Open(filepath.Join(t.TempDir(), ".cuff"))
	s.NoSync = true
	return s
}

// recordSession writes one finished session through the session API and
// returns its id. build appends the events; it gets a helper that stamps
// them a second apart.
func recordSession(t testing.TB, s *session.Store, at time.Time, build func(add func(b transcript.Body, callID, parent string) *transcript.Event)) string {
	t.Helper()
	w, err := s.Create(&transcript.SessionStart{Agent: "claude-code", Source: transcript.SourceClaudeHook,
		WorkingDirectory: "/home/dev/proj", CuffVersion: "0.1.0",
		Host: &transcript.Host{OS: "linux", Arch: "amd64", Hostname: "devbox"}}, at)
	if err != nil {
		t.Fatal(err)
	}
	var events []*transcript.Event
	ts := at
	add := func(b transcript.Body, callID, parent string) *transcript.Event {
		ts = ts.Add(time.Second)
		ev := transcript.New(w.ID(), ts, b)
		ev.CallID, ev.ParentCallID = callID, parent
		if parent != "" {
			ev.AgentID = "agent_" + parent
		}
		events = append(events, ev)
		return ev
	}
	build(add)
	if err := w.Append(events...); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(transcript.StatusComplete); err != nil {
		t.Fatal(err)
	}
	return w.ID()
}

// addFunc appends one event to a session being recorded.
type addFunc = func(b transcript.Body, callID, parent string) *transcript.Event

// fixtureTime is the start of the i-th of several sessions, an hour apart.
func fixtureTime(i int) time.Time { return time.Now().Add(time.Duration(i-24) * time.Hour) }

func itoa(i int) string { return fmt.Sprint(i) }

func ptrInt(i int) *int       { return &i }
func ptrInt64(i int64) *int64 { return &i }
func ptrBool(b bool) *bool    { return &b }

// everyKind records a session with every event kind: paired and unpaired
// calls, a nested delegation, failures, an approval, and a kind this
// version does not know.
func everyKind(add func(b transcript.Body, callID, parent string) *transcript.Event) {
	add(&transcript.ChatTurn{Role: "user", Text: "Fix the test, please."}, "", "")
	add(&transcript.ChatTurn{Role: "assistant", Text: "Looking.", Model: "claude-x",
		Usage: &transcript.Usage{InputTokens: 1200, OutputTokens: 30}}, "", "")
	add(&transcript.ToolCall{Tool: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)}, "t1", "")
	add(&transcript.ToolResult{Tool: "Read", Output: "package a\n", DurationMS: 5}, "t1", "")
	add(&transcript.BashStart{Command: "go test ./...", WorkingDirectory: "/home/dev/proj"}, "b1", "")
	add(&transcript.BashRun{Command: "go test ./...", WorkingDirectory: "/home/dev/proj", ExitCode: ptrInt(1),
		Stdout: "--- FAIL\n", Stderr: "exit status 1\n", DurationMS: 2300, Argv: []string{"go", "test", "./..."},
		OutputTruncated: true, OutputTruncatedBytes: ptrInt64(5000)}, "b1", "")
	add(&transcript.BashRun{Command: "git status", ExitCode: ptrInt(0), Stdout: "clean\n", DurationMS: 12}, "b2", "")
	add(&transcript.Delegation{Phase: "start", AgentType: "tester", Task: "run the race detector"}, "d1", "")
	add(&transcript.BashRun{Command: "go test -race ./...", TimedOut: true, TimeoutSeconds: 60, DurationMS: 60000}, "b3", "d1")
	add(&transcript.Delegation{Phase: "end", Result: "timed out", Success: ptrBool(false)}, "d1", "")
	add(&transcript.ApprovalRequest{RequestID: "r1", Tool: "Bash", Command: "curl https://example.com",
		Verdict: &transcript.Verdict{Decision: "ask", Tier: "risky", Reasons: []string{"network"}}, Taint: []string{"untrusted"}}, "a1", "")
	add(&transcript.ApprovalDecision{RequestID: "r1", Decision: "deny", Scope: "once", By: "tui", Reason: "no"}, "a1", "")
	add(&transcript.ToolCall{Tool: "WebFetch", Input: json.RawMessage(`{"url":"https://x"}`)}, "t2", "")
	unknown := add(&transcript.SessionEnd{}, "", "")
	unknown.Body, unknown.Type = nil, "future_kind"
	unknown.Raw = json.RawMessage(`{"v":1,"type":"future_kind","nested":{"k":[1,2]}}`)
}

// readAll returns the events of session id as the store reads them back.
func readAll(t testing.TB, s *session.Store, id string) []*transcript.Event {
	t.Helper()
	var out []*transcript.Event
	if _, err := s.ReadEvents(id, func(ev *transcript.Event) error { out = append(out, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// infos returns the listing information of the store's sessions, oldest
// first as an export of "all" has them.
func infos(t testing.TB, s *session.Store) []session.Info {
	t.Helper()
	all, err := s.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]session.Info, 0, len(all))
	for i := len(all) - 1; i >= 0; i-- {
		out = append(out, s.InfoOf(all[i]))
	}
	return out
}

// exportTo runs a whole export of the store's sessions through sink.
func exportTo(t testing.TB, s *session.Store, sink Sink) Result {
	t.Helper()
	res, err := WriteSessions(context.Background(), sink, infos(t, s), s.ReadEvents)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// bigSession records a session of n events mixing every common kind, with
// outputs of realistic size, for benchmarks.
func bigSession(t testing.TB, s *session.Store, n int) string {
	out := strings.Repeat("ok  github.com/x/y 0.01s\n", 20)
	return recordSession(t, s, time.Now().Add(-time.Hour), func(add func(transcript.Body, string, string) *transcript.Event) {
		for i := 0; i < n; i += 4 {
			id := fmt.Sprintf("c%d", i)
			add(&transcript.ChatTurn{Role: "assistant", Text: "Running the **tests** again."}, "", "")
			add(&transcript.ToolCall{Tool: "Read", Input: json.RawMessage(`{"file_path":"main.go"}`)}, "t"+id, "")
			add(&transcript.ToolResult{Tool: "Read", Output: out, DurationMS: 3}, "t"+id, "")
			add(&transcript.BashRun{Command: "go test ./...", ExitCode: ptrInt(i % 3), Stdout: out, DurationMS: int64(i)}, "b"+id, "")
		}
	})
}
