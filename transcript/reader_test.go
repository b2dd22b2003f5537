package transcript

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func readAll(t *testing.T, r *Reader) (events []*Event, lineErrs []*LineError) {
	t.Helper()
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events, lineErrs
		}
		var le *LineError
		if errors.As(err, &le) {
			lineErrs = append(lineErrs, le)
			continue
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		events = append(events, ev)
	}
}

func TestReaderReportsMalformedLineAndGoesOn(t *testing.T) {
	in := `{"v":1,"type":"chat_turn","seq":1,"role":"user","text":"hi"}
not json at all
{"v":1,"type":"chat_turn","seq":2,"role":"assistant","text":"hello"}

{"v":1,"seq":3}
{"v":1,"type":"bash_run","seq":4,"exit_code":"zero"}
{"v":1,"type":"chat_turn","seq":5,"role":"user","text":"bye"}
`
	r := NewReader(strings.NewReader(in))
	events, errs := readAll(t, r)
	if len(events) != 3 {
		t.Fatalf("got %d events, want 3", len(events))
	}
	wantLines := []int{2, 5, 6}
	if len(errs) != len(wantLines) {
		t.Fatalf("got %d line errors (%v), want %d", len(errs), errs, len(wantLines))
	}
	for i, le := range errs {
		if le.Line != wantLines[i] {
			t.Errorf("error %d on line %d, want %d", i, le.Line, wantLines[i])
		}
	}
	if got := events[2].Body.(*ChatTurn).Text; got != "bye" {
		t.Errorf("last text %q, want bye", got)
	}
	if st := r.Stats(); st.Malformed != 3 || st.Lines != 7 {
		t.Errorf("stats %+v, want 3 malformed of 7 lines", st)
	}
}

func TestReaderSkipsTruncatedFinalLine(t *testing.T) {
	in := `{"v":1,"type":"chat_turn","seq":1,"role":"user","text":"hi"}
{"v":1,"type":"chat_turn","seq":2,"role":"assis`
	r := NewReader(strings.NewReader(in))
	events, errs := readAll(t, r)
	if len(events) != 1 || len(errs) != 0 {
		t.Fatalf("got %d events, %d errors; want 1, 0", len(events), len(errs))
	}
	if r.Stats().Truncated != 1 {
		t.Errorf("truncated = %d, want 1", r.Stats().Truncated)
	}
}

func TestReaderKeepsUnknownTypesRaw(t *testing.T) {
	line := `{"v":1,"type":"future_thing","seq":1,"weird":{"nested":[1,2,3]},"z":"last"}`
	events, _ := readAll(t, NewReader(strings.NewReader(line+"\n")))
	if len(events) != 1 {
		t.Fatalf("got %d events", len(events))
	}
	ev := events[0]
	if ev.Body != nil || ev.Type != "future_thing" {
		t.Fatalf("body %T type %q, want nil body of future_thing", ev.Body, ev.Type)
	}
	out, err := ev.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != line {
		t.Errorf("re-encoded %s\nwant        %s", out, line)
	}
}

func TestReaderAcceptsHugeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB line")
	}
	text := strings.Repeat("x", 50<<20)
	var buf bytes.Buffer
	buf.WriteString(`{"v":1,"type":"tool_result","seq":1,"call_id":"c1","output":"`)
	buf.WriteString(text)
	buf.WriteString("\"}\n")
	buf.WriteString(`{"v":1,"type":"chat_turn","seq":2,"role":"user","text":"after"}` + "\n")
	events, errs := readAll(t, NewReader(&buf))
	if len(errs) != 0 || len(events) != 2 {
		t.Fatalf("got %d events, %d errors", len(events), len(errs))
	}
	if got := len(events[0].Body.(*ToolResult).Output); got != len(text) {
		t.Errorf("output length %d, want %d", got, len(text))
	}
}

func TestReaderSurvivesInvalidUTF8(t *testing.T) {
	in := "{\"v\":1,\"type\":\"bash_run\",\"seq\":1,\"command\":\"cat bin\",\"stdout\":\"\xff\xfe\x80ok\",\"exit_code\":0}\n"
	events, errs := readAll(t, NewReader(strings.NewReader(in)))
	if len(errs) != 0 || len(events) != 1 {
		t.Fatalf("got %d events, %d errors", len(events), len(errs))
	}
	if out := events[0].Body.(*BashRun).Stdout; !strings.HasSuffix(out, "ok") {
		t.Errorf("stdout %q lost its text", out)
	}
}

func TestRoundTripEveryKind(t *testing.T) {
	ts := time.Date(2026, 1, 18, 14, 30, 52, 123456000, time.UTC)
	code := 2
	ok := true
	bodies := []Body{
		&SessionStart{Agent: "claude-code", Source: SourceExec, WorkingDirectory: "/w", Host: &Host{OS: "linux"}},
		&ChatTurn{Role: RoleAssistant, Text: "# Hi\n```go\nx := 1\n```", Model: "m", Usage: &Usage{InputTokens: 3}},
		&ToolCall{Tool: "Read", Input: []byte(`{"file_path":"/a"}`)},
		&ToolResult{Tool: "Read", Output: "text", IsError: true, DurationMS: 5},
		&Delegation{Phase: PhaseEnd, AgentType: "tester", Result: "ok", Success: &ok},
		&BashStart{Command: "go test ./...", Argv: []string{"go", "test", "./..."}},
		&BashRun{Command: "false", ExitCode: &code, Stderr: "boom", Usage: &ResourceUsage{MaxRSSKB: 1}},
		&ApprovalRequest{RequestID: "r1", Command: "curl x", Verdict: &Verdict{Decision: "ask", Reasons: []string{"network"}}},
		&ApprovalDecision{RequestID: "r1", Decision: DecisionDeny, By: "tui", Reason: "no"},
		&SessionEnd{Status: StatusComplete, Counts: &Counts{Events: 9}},
	}
	for i, b := range bodies {
		ev := New("20260118_143052_a7b3c9d2-e4f5", ts, b)
		ev.Seq = int64(i + 1)
		ev.CallID = "c"
		line, err := ev.MarshalJSON()
		if err != nil {
			t.Fatalf("%s: %v", b.EventType(), err)
		}
		got, err := Decode(line)
		if err != nil {
			t.Fatalf("%s: decode %s: %v", b.EventType(), line, err)
		}
		again, err := got.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(line, again) {
			t.Errorf("%s: round trip changed the line\n%s\n%s", b.EventType(), line, again)
		}
		if !got.TS.Equal(ts) || got.Seq != int64(i+1) || got.Type != b.EventType() {
			t.Errorf("%s: envelope %+v", b.EventType(), got.Envelope)
		}
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(`{"v":1,"type":"chat_turn","seq":1,"role":"user","text":"hi"}` + "\n"))
	f.Add([]byte("{\"type\":\"bash_run\",\"exit_code\":null}\n{\"type\":"))
	f.Add([]byte("\n\n{}\n[1]\n\"s\"\n{\"type\":\"x\"}"))
	f.Add([]byte("{\"type\":\"tool_call\",\"input\":\"\xff\"}\n"))
	f.Add([]byte(`{"type":"delegation","success":"yes"}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		lines := 0
		for {
			ev, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var le *LineError
			if err != nil && !errors.As(err, &le) {
				t.Fatalf("unexpected error %v", err)
			}
			if ev != nil {
				if _, err := ev.MarshalJSON(); err != nil {
					t.Fatalf("re-encode: %v", err)
				}
			}
			lines++
			if lines > len(data)+1 {
				t.Fatal("reader does not advance")
			}
		}
		raw := NewReader(bytes.NewReader(data))
		for {
			_, err := raw.NextRaw()
			if errors.Is(err, io.EOF) {
				break
			}
		}
		if raw.Stats().Lines != r.Stats().Lines {
			t.Fatalf("NextRaw saw %d lines, Next %d", raw.Stats().Lines, r.Stats().Lines)
		}
	})
}

func TestDecodeWhenNestedTypeComesFirst(t *testing.T) {
	line := `{"input":{"type":"chat_turn","text":"x"},"type":"tool_call","seq":3,"call_id":"c","tool":"Edit"}`
	ev, err := Decode([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	tc, ok := ev.Body.(*ToolCall)
	if !ok || ev.Type != TypeToolCall || tc.Tool != "Edit" || ev.Seq != 3 || ev.CallID != "c" {
		t.Fatalf("decoded %T %+v", ev.Body, ev.Envelope)
	}
	if string(tc.Input) != `{"type":"chat_turn","text":"x"}` {
		t.Errorf("input %s", tc.Input)
	}
}
