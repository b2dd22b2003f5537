package claude

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// byCall indexes the events that carry a call id by call id and kind.
func byCall(events []*transcript.Event) map[string]map[transcript.Type]*transcript.Event {
	out := map[string]map[transcript.Type]*transcript.Event{}
	for _, ev := range events {
		if ev.CallID == "" {
			continue
		}
		if out[ev.CallID] == nil {
			out[ev.CallID] = map[transcript.Type]*transcript.Event{}
		}
		out[ev.CallID][ev.Type] = ev
	}
	return out
}

// usageByMessage collects the usage written for each message id.
func usageByMessage(events []*transcript.Event) map[string]transcript.Usage {
	out := map[string]transcript.Usage{}
	for _, ev := range events {
		if turn, ok := ev.Body.(*transcript.ChatTurn); ok && turn.Usage != nil {
			out[turn.MessageID] = *turn.Usage
		}
	}
	return out
}

func intp(n int) *int { return &n }

// TestStreamedSession decodes a Claude Code 2.1 session shaped like a real
// one: blocks of one message streamed over several lines, hook progress
// between them, rejected calls, an interrupt, slash commands, a compaction,
// an API error, an unknown record type, a malformed line and a torn tail.
func TestStreamedSession(t *testing.T) {
	data := readFixture(t, "streamed.jsonl")
	events, st := decodeAll(t, data)
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, rawToolUseIDs(data), streamtest.CallIDs(events))

	want := map[transcript.Type]int{transcript.TypeSessionStart: 1, transcript.TypeChatTurn: 13,
		transcript.TypeBashStart: 5, transcript.TypeBashRun: 5, transcript.TypeToolCall: 2, transcript.TypeToolResult: 2}
	if got := streamtest.Kinds(events); !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	if st.Unknown != 1 || st.UnknownTypes["quantum-entanglement"] != 1 {
		t.Errorf("unknown %d %v, want the one quantum-entanglement record", st.Unknown, st.UnknownTypes)
	}
	if st.Malformed != 1 || !reflect.DeepEqual(st.MalformedLines, []int{28}) || st.Truncated != 1 {
		t.Errorf("malformed %d at %v, truncated %d; want line 28 and the torn tail", st.Malformed, st.MalformedLines, st.Truncated)
	}
	if st.Lines != 34 || st.Events != len(events) {
		t.Errorf("lines %d, events %d (got %d)", st.Lines, st.Events, len(events))
	}

	start := events[0]
	if start.SessionID != "claude:11111111-2222-4333-8444-555555555555" {
		t.Errorf("session id %q", start.SessionID)
	}
	ss := start.Body.(*transcript.SessionStart)
	wantStart := transcript.SessionStart{Agent: "claude-code", Source: "claude", Title: "the tests fail on CI, can you look?",
		WorkingDirectory: "/home/dev/shop", Git: &transcript.Git{Branch: "main"}}
	if !reflect.DeepEqual(*ss, wantStart) {
		t.Errorf("session_start %+v, want %+v", *ss, wantStart)
	}
	if want := time.Date(2026, 3, 1, 10, 0, 0, 100e6, time.UTC); !start.TS.Equal(want) {
		t.Errorf("session starts at %v, want %v (the first record's time)", start.TS, want)
	}

	calls := byCall(events)
	runs := map[string]*transcript.BashRun{}
	for id, evs := range calls {
		if ev := evs[transcript.TypeBashRun]; ev != nil {
			runs[id] = ev.Body.(*transcript.BashRun)
		}
	}
	cases := []struct {
		id          string
		exit        *int
		errCode     string
		interrupted bool
		stdout      string
		stderr      string
	}{
		{"toolu_A1", nil, ErrRejected, false, "", ""},
		{"toolu_B1", intp(1), "", false, "--- FAIL: TestCart (0.00s)\nFAIL\n", "WARNING: DATA RACE"},
		{"toolu_D1", nil, "", true, "", ""},
		{"toolu_E1", nil, ErrBackground, false, "", ""},
		{"toolu_F1", intp(0), "", false, "", ""},
	}
	for _, c := range cases {
		r := runs[c.id]
		if r == nil {
			t.Errorf("%s: no bash_run", c.id)
			continue
		}
		if !reflect.DeepEqual(r.ExitCode, c.exit) {
			t.Errorf("%s: exit code %v, want %v", c.id, deref(r.ExitCode), deref(c.exit))
		}
		if code := errCode(r); code != c.errCode {
			t.Errorf("%s: error %q, want %q", c.id, code, c.errCode)
		}
		if r.Interrupted != c.interrupted || r.Stdout != c.stdout || r.Stderr != c.stderr {
			t.Errorf("%s: interrupted %v stdout %q stderr %q", c.id, r.Interrupted, r.Stdout, r.Stderr)
		}
		// A command left in the background has not failed: its outcome is unknown.
		if wantFailed := c.errCode != ErrBackground && (c.exit == nil || *c.exit != 0); r.Failed() != wantFailed {
			t.Errorf("%s: Failed() = %v", c.id, r.Failed())
		}
	}
	if r := runs["toolu_A1"]; r.Command != "go test ./..." || r.Description != "Run tests" || r.TimeoutSeconds != 120 ||
		r.WorkingDirectory != "/home/dev/shop" {
		t.Errorf("toolu_A1 run %+v", r)
	}
	if r := runs["toolu_B1"]; r.DurationMS != 7000 {
		t.Errorf("toolu_B1 took %d ms, want 7000 (call to result)", r.DurationMS)
	}
	if res := calls["toolu_A2"][transcript.TypeToolResult].Body.(*transcript.ToolResult); !res.IsError || res.Tool != "Glob" {
		t.Errorf("rejected Glob result %+v", res)
	}
	// A Bash call is a bash_start/bash_run pair only, never also a tool call.
	for _, ev := range events {
		if tc, ok := ev.Body.(*transcript.ToolCall); ok && tc.Tool == "Bash" {
			t.Errorf("Bash recorded as a tool_call at seq %d", ev.Seq)
		}
	}

	wantUsage := map[string]transcript.Usage{
		"msg_A": {InputTokens: 3, OutputTokens: 61, CacheReadTokens: 900, CacheWriteTokens: 100}, // the last record's count
		"msg_B": {InputTokens: 10, OutputTokens: 40, CacheReadTokens: 1000, CacheWriteTokens: 200},
		"msg_C": {InputTokens: 4, OutputTokens: 30},
		"msg_F": {InputTokens: 2, OutputTokens: 12},
		"msg_G": {InputTokens: 20, OutputTokens: 15},
	}
	if got := usageByMessage(events); !reflect.DeepEqual(got, wantUsage) {
		t.Errorf("usage %v, want %v", got, wantUsage)
	}

	roles := map[string]int{}
	for _, ev := range events {
		if turn, ok := ev.Body.(*transcript.ChatTurn); ok {
			key := turn.Role
			if turn.Thinking {
				key += "/thinking"
			}
			if turn.Text == "" {
				key += "/usage-only"
			}
			roles[key]++
		}
	}
	// The /model echo is the person's command, shown as typed.
	wantRoles := map[string]int{"user": 3, "assistant": 3, "assistant/thinking": 1, "assistant/usage-only": 2, "system": 4}
	if !reflect.DeepEqual(roles, wantRoles) {
		t.Errorf("turns by role %v, want %v", roles, wantRoles)
	}
	var commands []string
	for _, ev := range events {
		if turn, ok := ev.Body.(*transcript.ChatTurn); ok && turn.Context == transcript.ContextCommand {
			commands = append(commands, turn.Role+" "+turn.Text)
		}
	}
	if want := []string{"user /model"}; !reflect.DeepEqual(commands, want) {
		t.Errorf("commands %q, want %q", commands, want)
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func errCode(r *transcript.BashRun) string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}

// TestInlineSidechains decodes a Claude Code 1.0 session whose sub-agents
// are written inline: two Task calls in parallel, their sidechains in the
// file in the other order, linked by prompt.
func TestInlineSidechains(t *testing.T) {
	data := readFixture(t, "sidechains.jsonl")
	events, st := decodeAll(t, data)
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, rawToolUseIDs(data), streamtest.CallIDs(events))
	want := map[transcript.Type]int{transcript.TypeSessionStart: 1, transcript.TypeChatTurn: 10,
		transcript.TypeDelegation: 4, transcript.TypeBashStart: 2, transcript.TypeBashRun: 2,
		transcript.TypeToolCall: 1, transcript.TypeToolResult: 1}
	if got := streamtest.Kinds(events); !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	if st.Unknown != 0 || st.Malformed != 0 {
		t.Errorf("stats %+v", st)
	}
	if title := events[0].Body.(*transcript.SessionStart).Title; title != "/build a todo app" {
		t.Errorf("title %q, want the slash command as typed", title)
	}
	if git := events[0].Body.(*transcript.SessionStart).Git; git != nil {
		t.Errorf("git %+v for an empty branch", git)
	}

	// Each sub-agent's events sit inside the Task whose prompt it got.
	agentOf := map[string]string{} // delegation call id → agent id
	for _, ev := range events {
		if ev.AgentID == transcript.MainAgent {
			continue
		}
		if prev, ok := agentOf[ev.ParentCallID]; ok && prev != ev.AgentID {
			t.Errorf("delegation %s holds agents %s and %s", ev.ParentCallID, prev, ev.AgentID)
		}
		agentOf[ev.ParentCallID] = ev.AgentID
		if turn, ok := ev.Body.(*transcript.ChatTurn); ok && turn.Role == transcript.RoleUser {
			wantPrompt := map[string]string{"toolu_T1": "Create the project skeleton.", "toolu_T2": "Write the TypeScript types."}[ev.ParentCallID]
			if turn.Text != wantPrompt {
				t.Errorf("prompt %q inside %s, want %q", turn.Text, ev.ParentCallID, wantPrompt)
			}
		}
	}
	if len(agentOf) != 2 || agentOf["toolu_T1"] == agentOf["toolu_T2"] {
		t.Errorf("sub-agents by delegation: %v", agentOf)
	}
	calls := byCall(events)
	for id, agent := range agentOf {
		start := calls[id][transcript.TypeDelegation]
		end := lastDelegation(events, id)
		if start == nil || end == nil {
			t.Fatalf("delegation %s incomplete", id)
		}
		s := start.Body.(*transcript.Delegation)
		e := end.Body.(*transcript.Delegation)
		if s.AgentType != "general-purpose" || e.SubAgentID != agent || e.Success == nil || !*e.Success {
			t.Errorf("delegation %s: start %+v end %+v", id, s, e)
		}
	}
	if e := lastDelegation(events, "toolu_T2").Body.(*transcript.Delegation); e.Result != "Types written." {
		t.Errorf("result %q", e.Result)
	}
	r := calls["toolu_S1B"][transcript.TypeBashRun].Body.(*transcript.BashRun)
	if r.ExitCode != nil || errCode(r) != ErrNoExitCode || !strings.HasPrefix(r.Stderr, "ls: cannot access") {
		t.Errorf("failed run without exit code: %+v", r)
	}
	if res := calls["toolu_S2W"][transcript.TypeToolResult].Body.(*transcript.ToolResult); !res.IsError {
		t.Errorf("tool_use_error result %+v", res)
	}
	if got := calls["toolu_S2B"][transcript.TypeBashRun].Body.(*transcript.BashRun); got.ExitCode == nil || *got.ExitCode != 0 {
		t.Errorf("successful run %+v", got)
	}
}

// lastDelegation is the delegation end of a call.
func lastDelegation(events []*transcript.Event, callID string) *transcript.Event {
	for _, ev := range events {
		if d, ok := ev.Body.(*transcript.Delegation); ok && ev.CallID == callID && d.Phase == transcript.PhaseEnd {
			return ev
		}
	}
	return nil
}

// TestAgentProgress decodes a Claude Code 2.1 parent whose sub-agent's
// records arrive nested in agent_progress records, one of them twice.
func TestAgentProgress(t *testing.T) {
	data := readFixture(t, "progress.jsonl")
	events, _ := decodeAll(t, data)
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, rawToolUseIDs(data), streamtest.CallIDs(events))
	want := map[transcript.Type]int{transcript.TypeSessionStart: 1, transcript.TypeChatTurn: 6,
		transcript.TypeDelegation: 2, transcript.TypeBashStart: 1, transcript.TypeBashRun: 1}
	if got := streamtest.Kinds(events); !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	inside := 0
	for _, ev := range events {
		if ev.AgentID == "a7f3c21" {
			inside++
			if ev.ParentCallID != "toolu_AG1" {
				t.Errorf("%s of the sub-agent inside %q", ev.Type, ev.ParentCallID)
			}
		}
	}
	if inside != 5 { // prompt, usage of the tool-only message, bash_start, bash_run, answer
		t.Errorf("%d events of the sub-agent, want 5", inside)
	}
	end := lastDelegation(events, "toolu_AG1").Body.(*transcript.Delegation)
	if end.SubAgentID != "a7f3c21" || end.AgentType != "code-reviewer" || end.Result != "No races found." {
		t.Errorf("delegation end %+v", end)
	}
	if u := usageByMessage(events); len(u) != 4 || u["msg_sub1"].OutputTokens != 25 {
		t.Errorf("usage %v", u)
	}
}

// TestSubAgentFileAlone decodes a sub-agent's own file without its parent:
// it gets a session of its own and a delegation around its work.
func TestSubAgentFileAlone(t *testing.T) {
	data := readFixture(t, "subagents/agent-a7f3c21.jsonl")
	events, _ := decodeAll(t, data)
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, rawToolUseIDs(data), streamtest.CallIDs(events))
	if id := events[0].SessionID; id != "claude:cccccccc-dddd-4eee-8fff-000000000000/agent-a7f3c21" {
		t.Errorf("session id %q", id)
	}
	if title := events[0].Body.(*transcript.SessionStart).Title; title != "Review cart.go for races." {
		t.Errorf("title %q", title)
	}
	want := map[transcript.Type]int{transcript.TypeSessionStart: 1, transcript.TypeChatTurn: 3,
		transcript.TypeDelegation: 2, transcript.TypeBashStart: 1, transcript.TypeBashRun: 1}
	if got := streamtest.Kinds(events); !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	start, end := events[1].Body.(*transcript.Delegation), events[len(events)-1].Body.(*transcript.Delegation)
	if start.Phase != transcript.PhaseStart || start.SubAgentID != "a7f3c21" || start.Task != "Review cart.go for races." ||
		end.Phase != transcript.PhaseEnd || end.Result != "No races found." || events[1].CallID != events[len(events)-1].CallID {
		t.Errorf("delegation around the file: %+v … %+v", start, end)
	}
}

// TestLongLines decodes records far longer than any read buffer.
func TestLongLines(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	var buf bytes.Buffer
	buf.WriteString(`{"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}` + "\n")
	buf.WriteString(`{"type":"assistant","sessionId":"s1","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat big"}}]}}` + "\n")
	buf.WriteString(`{"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + big + `"}]},"toolUseResult":{"stdout":"` + big + `","stderr":""}}` + "\n")
	events, st := decodeAll(t, buf.Bytes())
	streamtest.Invariants(t, events, "claude:")
	run := byCall(events)["t1"][transcript.TypeBashRun].Body.(*transcript.BashRun)
	if len(run.Stdout) != len(big) || st.Malformed != 0 {
		t.Errorf("stdout of %d bytes, want %d; stats %+v", len(run.Stdout), len(big), st)
	}
}

// TestWrongFieldTypes decodes records whose fields have unexpected types:
// the fields are ignored, the records still count.
func TestWrongFieldTypes(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"user","sessionId":7,"timestamp":12,"message":{"role":"user","content":{"not":"a list"}}}`,
		`{"type":"user","sessionId":"s1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hello"},"toolUseResult":[1,2]}`,
		`{"type":"assistant","message":{"id":5,"content":[{"type":"tool_use","id":"t1","name":"Bash","input":"not an object"}],"usage":"lots"}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":42,"is_error":"yes"}]}}`,
		`{"type":"assistant","message":null}`,
		`{"type":"progress","data":"nothing"}`,
		`{"type":"system","subtype":"api_error","error":"plain string"}`,
		`[1,2,3]`,
		`{"no":"type"}`,
	}, "\n") + "\n"
	events, st := decodeAll(t, []byte(in))
	streamtest.Basics(t, events, "claude:")
	if st.Malformed != 1 || st.Unknown != 1 {
		t.Errorf("malformed %d (want the array), unknown %d (want the record without a type)", st.Malformed, st.Unknown)
	}
	if events[0].SessionID != "claude:s1" {
		t.Errorf("session id %q", events[0].SessionID)
	}
	calls := byCall(events)
	if calls["t1"][transcript.TypeBashStart] == nil || calls["t1"][transcript.TypeBashRun] == nil {
		t.Errorf("the Bash call with bad fields is not recorded: %v", calls)
	}
}

// TestOutputErrorStops checks that an error from the consumer ends the
// decode and is returned as it is.
func TestOutputErrorStops(t *testing.T) {
	stop := errors.New("disk full")
	n := 0
	_, err := Decode(bytes.NewReader(readFixture(t, "streamed.jsonl")), func(*transcript.Event) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("err %v after %d events, want %v after 3", err, n, stop)
	}
}

// TestFollowFlush feeds a transcript line by line, as a follower does: the
// blocks of a message that is still streaming wait until Flush.
func TestFollowFlush(t *testing.T) {
	d := NewDecoder(Options{FallbackUUID: "live"})
	var got []*transcript.Event
	out := func(ev *transcript.Event) error { got = append(got, ev); return nil }
	lines := []string{
		`{"type":"user","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"Hello"}],"usage":{"input_tokens":1,"output_tokens":2}}}`,
	}
	for _, l := range lines {
		if err := d.Line([]byte(l), out); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 { // session_start and the prompt; the answer may still grow
		t.Fatalf("%d events before Flush, want 2", len(got))
	}
	if err := d.Flush(out); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[2].Body.(*transcript.ChatTurn).Text != "Hello" || got[0].SessionID != "claude:live" {
		t.Fatalf("after Flush: %d events", len(got))
	}
	if err := d.Close(out); err != nil || len(got) != 3 {
		t.Errorf("Close: %v, %d events", err, len(got))
	}
}

// TestSlashCommands decodes what Claude Code writes for slash commands and
// shell escapes: the command is the person's turn as typed, what it
// expanded to and what it printed are context, never the raw XML.
func TestSlashCommands(t *testing.T) {
	events, _ := decodeAll(t, readFixture(t, "commands.jsonl"))
	streamtest.Invariants(t, events, "claude:")
	var got []string
	for _, ev := range events {
		if turn, ok := ev.Body.(*transcript.ChatTurn); ok {
			if strings.Contains(turn.Text, "<command-") || strings.Contains(turn.Text, "<local-command") || strings.Contains(turn.Text, "<bash-") {
				t.Errorf("seq %d shows raw XML: %q", ev.Seq, turn.Text)
			}
			got = append(got, fmt.Sprintf("%s/%s %s", turn.Role, turn.Context, strings.TrimSpace(turn.Text)))
		}
	}
	want := []string{
		"user/command /review src/main.go",
		"system/command_prompt ## Review\nLook at src/main.go and list the bugs.",
		"assistant/ Two bugs.",
		"system/reminder Caveat: The messages below were generated by the user while running local commands.",
		"user/command /model",
		"system/command_output Set model to claude-test",
		"user/command !git status",
		"system/command_output On branch main",
		"system/reminder <system-reminder>\nThe file changed.\n</system-reminder>",
		"user/ fix them please",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("turns:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if start := events[0].Body.(*transcript.SessionStart); start.Title != "/review src/main.go" {
		t.Errorf("title %q", start.Title)
	}
}
