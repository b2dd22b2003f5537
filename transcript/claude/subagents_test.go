package claude

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// Synthetic Claude Code 2.1 transcripts in the shape of real ones: a parent
// <session>.jsonl and its sub-agents' subagents/agent-<id>.jsonl.

const (
	testSession = "5e551011-aaaa-4bbb-8ccc-000000000001"
	testCWD     = "/home/dev/shop"
	testBase    = "2026-03-05T10:00:00Z"
)

// at is a record time, s seconds (and tenths) after testBase.
func at(s float64) string {
	t, _ := time.Parse(time.RFC3339, testBase)
	return t.Add(time.Duration(s * float64(time.Second))).UTC().Format("2006-01-02T15:04:05.000Z")
}

// script builds the records of one transcript: the main agent's, or a
// sub-agent's when agentID is set.
type script struct {
	session string
	agentID string
	recs    []map[string]any
	prev    any // the previous record's uuid: parentUuid chains records
}

func newScript(session, agentID string) *script { return &script{session: session, agentID: agentID} }

func (s *script) rec(typ, ts string, extra map[string]any) map[string]any {
	uuid := fmt.Sprintf("%s-%s-%03d", typ, s.agentID, len(s.recs))
	r := map[string]any{"parentUuid": s.prev, "isSidechain": s.agentID != "", "userType": "external", "cwd": testCWD,
		"sessionId": s.session, "version": "2.1.39", "gitBranch": "main", "type": typ, "uuid": uuid, "timestamp": ts}
	if s.agentID != "" {
		r["agentId"] = s.agentID
	}
	for k, v := range extra {
		r[k] = v
	}
	s.prev = uuid
	s.recs = append(s.recs, r)
	return r
}

func (s *script) prompt(ts, text string) map[string]any {
	return s.rec("user", ts, map[string]any{"message": map[string]any{"role": "user", "content": text}})
}

// assistant writes one streamed block of message msgID.
func (s *script) assistant(ts, msgID string, block map[string]any) map[string]any {
	return s.rec("assistant", ts, map[string]any{"requestId": "req_" + msgID, "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
		"content": []any{block}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 4, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 500, "output_tokens": 30}}})
}

func (s *script) text(ts, msgID, text string) map[string]any {
	return s.assistant(ts, msgID, map[string]any{"type": "text", "text": text})
}

func (s *script) bash(ts, msgID, id, command string) map[string]any {
	return s.assistant(ts, msgID, map[string]any{"type": "tool_use", "id": id, "name": "Bash",
		"input": map[string]any{"command": command, "description": "run " + command}})
}

func (s *script) read(ts, msgID, id, path string) map[string]any {
	return s.assistant(ts, msgID, map[string]any{"type": "tool_use", "id": id, "name": "Read",
		"input": map[string]any{"file_path": path}})
}

func (s *script) agent(ts, msgID, id, prompt string) map[string]any {
	return s.assistant(ts, msgID, map[string]any{"type": "tool_use", "id": id, "name": "Agent",
		"input": map[string]any{"description": "delegate", "prompt": prompt, "subagent_type": "Explore"}})
}

func (s *script) result(ts, id, out string, tur any) map[string]any {
	extra := map[string]any{"message": map[string]any{"role": "user", "content": []any{
		map[string]any{"tool_use_id": id, "type": "tool_result", "content": out}}}}
	if tur != nil {
		extra["toolUseResult"] = tur
	}
	return s.rec("user", ts, extra)
}

func (s *script) bashResult(ts, id, out string) map[string]any {
	return s.result(ts, id, out, map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false})
}

// agentResult is the tool_result of a delegation, naming the sub-agent.
func (s *script) agentResult(ts, id, agentID, answer string) map[string]any {
	extra := map[string]any{"message": map[string]any{"role": "user", "content": []any{
		map[string]any{"tool_use_id": id, "type": "tool_result", "content": []any{map[string]any{"type": "text", "text": answer}}}}},
		"toolUseResult": map[string]any{"status": "completed", "prompt": "p", "agentId": agentID,
			"content": []any{map[string]any{"type": "text", "text": answer}}, "totalDurationMs": 9000, "totalTokens": 900, "totalToolUseCount": 2}}
	return s.rec("user", ts, extra)
}

// progress nests a sub-agent's record in an agent_progress record.
func (s *script) progress(ts, agentID, parentCall string, nested map[string]any) {
	s.rec("progress", ts, map[string]any{"data": map[string]any{"type": "agent_progress", "agentId": agentID,
		"prompt": "p", "message": nested}, "toolUseID": "agent_msg_" + fmt.Sprint(len(s.recs)), "parentToolUseID": parentCall})
}

func (s *script) bytes() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, r := range s.recs {
		if err := enc.Encode(r); err != nil {
			panic(err)
		}
	}
	return buf.Bytes()
}

// parallelSession is a parent that starts two sub-agents in parallel
// with a Bash call of its own, and the two sub-agents' transcripts. With
// progress, the parent also carries agent_progress copies of sub-agent A's
// records, as Claude Code 2.1 writes them.
func parallelSession(progress bool) (parent, subA, subB *script) {
	parent = newScript(testSession, "")
	subA, subB = newScript(testSession, "a1f00d1"), newScript(testSession, "b2f00d2")

	parent.prompt(at(0), "Audit the shop for races and dead code.")
	parent.text(at(1), "msg_p1", "Two agents will look while I run the tests.")
	parent.agent(at(1), "msg_p1", "toolu_A", "Look for data races in cart.go.")
	parent.agent(at(1), "msg_p1", "toolu_B", "Look for dead code in pay.go.")
	parent.bash(at(1), "msg_p1", "toolu_P", "go test ./...")

	a := []map[string]any{
		subA.prompt(at(2), "Look for data races in cart.go."),
		subA.bash(at(4), "msg_a1", "toolu_A_bash", "grep -n mutex cart.go"),
		subA.bashResult(at(5), "toolu_A_bash", "12:\tmu sync.Mutex"),
		subA.text(at(9), "msg_a2", "No races in cart.go."),
	}
	subB.prompt(at(2.5), "Look for dead code in pay.go.")
	subB.read(at(3.5), "msg_b1", "toolu_B_read", "/home/dev/shop/pay.go")
	subB.result(at(6), "toolu_B_read", "package pay", map[string]any{"type": "text"})
	subB.text(at(11), "msg_b2", "refund() is never called.")

	if progress {
		for _, r := range a {
			parent.progress(r["timestamp"].(string), "a1f00d1", "toolu_A", r)
		}
	}
	parent.bashResult(at(3), "toolu_P", "ok  \tshop\t0.2s")
	parent.agentResult(at(10), "toolu_A", "a1f00d1", "No races in cart.go.")
	parent.agentResult(at(12), "toolu_B", "b2f00d2", "refund() is never called.")
	parent.text(at(13), "msg_p2", "No races; refund() is dead code.")
	return parent, subA, subB
}

// writeSession writes a parent as <dir>/<session>.jsonl and its sub-agents
// in the 2.1 layout; it returns the parent's path.
func writeSession(t testing.TB, dir string, parent *script, subs ...*script) string {
	t.Helper()
	path := filepath.Join(dir, parent.session+".jsonl")
	writeFile(t, path, parent.bytes())
	for _, s := range subs {
		writeFile(t, filepath.Join(dir, parent.session, "subagents", "agent-"+s.agentID+".jsonl"), s.bytes())
	}
	return path
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// decodePath decodes the transcript at path with its sub-agents' files.
func decodePath(t testing.TB, path string) []*transcript.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []*transcript.Event
	st, err := stream.Run(f, NewDecoder(Options{Path: path}), func(ev *transcript.Event) error {
		events = append(events, ev)
		return nil
	})
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	if st.Events != len(events) {
		t.Errorf("stats count %d events, %d passed", st.Events, len(events))
	}
	return events
}

// toolUseIDs is every tool_use id of the given transcripts.
func toolUseIDs(files ...[]byte) map[string]bool {
	ids := map[string]bool{}
	for _, data := range files {
		for id := range rawToolUseIDs(data) {
			ids[id] = true
		}
	}
	return ids
}

// checkNested checks that the events of each sub-agent carry its id and
// its delegation's call id and come between that delegation's start and
// end, and that the delegation's end names the sub-agent.
func checkNested(t *testing.T, events []*transcript.Event, agentOf map[string]string) {
	t.Helper()
	pos := map[string][2]int{} // call id → positions of start and end
	for i, ev := range events {
		if d, ok := ev.Body.(*transcript.Delegation); ok {
			p := pos[ev.CallID]
			if d.Phase == transcript.PhaseStart {
				p[0] = i
			} else {
				p[1] = i
				if want := agentOf[ev.CallID]; want != "" && d.SubAgentID != want {
					t.Errorf("delegation %s ends naming %q, want %q", ev.CallID, d.SubAgentID, want)
				}
			}
			pos[ev.CallID] = p
		}
	}
	counts := map[string]int{}
	for i, ev := range events {
		if ev.AgentID == transcript.MainAgent {
			continue
		}
		want, ok := agentOf[ev.ParentCallID]
		if !ok || ev.AgentID != want {
			t.Errorf("%s at seq %d: agent %q inside %q", ev.Type, ev.Seq, ev.AgentID, ev.ParentCallID)
			continue
		}
		if p := pos[ev.ParentCallID]; i <= p[0] || i >= p[1] {
			t.Errorf("%s of %s at %d is outside its delegation (%d..%d)", ev.Type, ev.AgentID, i, p[0], p[1])
		}
		counts[ev.AgentID]++
	}
	for call, agent := range agentOf {
		if counts[agent] == 0 {
			t.Errorf("no events of %s inside %s", agent, call)
		}
	}
}

// checkTimeOrder checks that events after the session_start never go back
// in time.
func checkTimeOrder(t *testing.T, events []*transcript.Event) {
	t.Helper()
	for i := 2; i < len(events); i++ {
		if events[i].TS.Before(events[i-1].TS) {
			t.Errorf("%s at seq %d (%v) comes after %s at seq %d (%v)", events[i].Type, events[i].Seq,
				events[i].TS.Format("05.0"), events[i-1].Type, events[i-1].Seq, events[i-1].TS.Format("05.0"))
		}
	}
}

// TestSubAgentFilesNested reads a parent without agent_progress whose two
// parallel sub-agents wrote their own files: their work appears inside
// their delegations, interleaved by time with the parent's, once.
func TestSubAgentFilesNested(t *testing.T) {
	parent, subA, subB := parallelSession(false)
	path := writeSession(t, t.TempDir(), parent, subA, subB)
	events := decodePath(t, path)

	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, toolUseIDs(parent.bytes(), subA.bytes(), subB.bytes()), streamtest.CallIDs(events))
	checkNested(t, events, map[string]string{"toolu_A": "a1f00d1", "toolu_B": "b2f00d2"})
	checkTimeOrder(t, events)
	if id := events[0].SessionID; id != "claude:"+testSession {
		t.Errorf("session id %q", id)
	}
	if title := events[0].Body.(*transcript.SessionStart).Title; title != "Audit the shop for races and dead code." {
		t.Errorf("title %q: a sub-agent's prompt must not name the session", title)
	}

	// The whole sequence, as kinds with the agent that did each.
	var got []string
	for _, ev := range events[1:] {
		s := string(ev.Type)
		if d, ok := ev.Body.(*transcript.Delegation); ok {
			s += "/" + d.Phase + " " + ev.CallID
		}
		if ev.AgentID != transcript.MainAgent {
			s = ev.AgentID + " " + s
		}
		got = append(got, s)
	}
	want := []string{
		"chat_turn",                // 0 s prompt
		"chat_turn",                // 1 s text, with the message's usage
		"delegation/start toolu_A", // 1 s
		"delegation/start toolu_B", // 1 s
		"bash_start",               // 1 s
		"a1f00d1 chat_turn",        // 2 s prompt of A
		"b2f00d2 chat_turn",        // 2.5 s prompt of B
		"bash_run",                 // 3 s the parent's tests
		"b2f00d2 chat_turn",        // 3.5 s usage of B's tool-only message
		"b2f00d2 tool_call",        // 3.5 s
		"a1f00d1 chat_turn",        // 4 s usage of A's tool-only message
		"a1f00d1 bash_start",       // 4 s
		"a1f00d1 bash_run",         // 5 s
		"b2f00d2 tool_result",      // 6 s
		"a1f00d1 chat_turn",        // 9 s A's answer
		"delegation/end toolu_A",   // 10 s
		"b2f00d2 chat_turn",        // 11 s B's answer
		"delegation/end toolu_B",   // 12 s
		"chat_turn",                // 13 s
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if u := usageByMessage(events); len(u) != 6 || u["msg_a1"].OutputTokens != 30 {
		t.Errorf("usage %v: want each of the 6 messages once", u)
	}

	// Read alone, the parent has only its own events, in the same order.
	alone, _ := decodeAll(t, parent.bytes())
	streamtest.Invariants(t, alone, "claude:")
	if len(alone) != len(events)-10 {
		t.Errorf("%d events alone, %d with the sub-agents: want 10 more", len(alone), len(events))
	}
}

// TestSubAgentFileWithProgress reads a parent that carries agent_progress
// for one sub-agent and not the other: the first is decoded from the
// parent, only the second from its file, and nothing twice.
func TestSubAgentFileWithProgress(t *testing.T) {
	parent, subA, subB := parallelSession(true)
	path := writeSession(t, t.TempDir(), parent, subA, subB)
	events := decodePath(t, path)
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, toolUseIDs(parent.bytes(), subB.bytes()), streamtest.CallIDs(events))
	checkNested(t, events, map[string]string{"toolu_A": "a1f00d1", "toolu_B": "b2f00d2"})
	perAgent := map[string]int{}
	for _, ev := range events {
		perAgent[ev.AgentID]++
	}
	if perAgent["a1f00d1"] != 5 || perAgent["b2f00d2"] != 5 {
		t.Errorf("events by agent %v: want 5 of each sub-agent, the one with progress not doubled", perAgent)
	}
}

// TestSubAgentFileBesideProgressFixture reads the agent_progress fixture
// with its sub-agent's file in place: the result is what the parent alone
// gives.
func TestSubAgentFileBesideProgressFixture(t *testing.T) {
	dir := t.TempDir()
	const uuid = "cccccccc-dddd-4eee-8fff-000000000000"
	path := filepath.Join(dir, uuid+".jsonl")
	writeFile(t, path, readFixture(t, "progress.jsonl"))
	writeFile(t, filepath.Join(dir, uuid, "subagents", "agent-a7f3c21.jsonl"), readFixture(t, "subagents/agent-a7f3c21.jsonl"))
	withFile := decodePath(t, path)
	alone, _ := decodeAll(t, readFixture(t, "progress.jsonl"))
	if a, b := encodeAll(t, alone), encodeAll(t, withFile); a != b {
		t.Errorf("with the sub-agent file beside it:\n%s\nalone:\n%s", b, a)
	}
}

// encodeAll is the events as native JSONL.
func encodeAll(t *testing.T, events []*transcript.Event) string {
	t.Helper()
	var b strings.Builder
	for _, ev := range events {
		line, err := ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestSubAgentFileMissing reads parents whose sub-agent files are missing,
// unreadable, or named by an id that would leave the folder: no error, the
// parent's events as they are.
func TestSubAgentFileMissing(t *testing.T) {
	parent, _, subB := parallelSession(false)
	dir := t.TempDir()
	path := writeSession(t, dir, parent, subB)
	// A's file is a folder, not a file.
	if err := os.MkdirAll(filepath.Join(dir, testSession, "subagents", "agent-a1f00d1.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	events := decodePath(t, path)
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, toolUseIDs(parent.bytes(), subB.bytes()), streamtest.CallIDs(events))
	checkNested(t, events, map[string]string{"toolu_B": "b2f00d2"})

	// No sub-agent files at all: exactly the parent alone.
	bare := filepath.Join(t.TempDir(), testSession+".jsonl")
	writeFile(t, bare, parent.bytes())
	alone, _ := decodeAll(t, parent.bytes())
	if a, b := encodeAll(t, alone), encodeAll(t, decodePath(t, bare)); a != b {
		t.Errorf("without sub-agent files:\n%s\nwant:\n%s", b, a)
	}

	// An agent id that is a path is never followed.
	evil := newScript(testSession, "")
	evil.prompt(at(0), "go")
	evil.agent(at(1), "msg_e", "toolu_E", "x")
	evil.agentResult(at(2), "toolu_E", "x/../../outside", "done")
	dir = t.TempDir()
	path = writeSession(t, dir, evil)
	intruder := newScript(testSession, "x/../../outside")
	intruder.bash(at(1.5), "msg_i", "toolu_I", "rm -rf /")
	// where <session>/subagents/agent-x/../../outside.jsonl leads
	writeFile(t, filepath.Join(dir, testSession, "outside.jsonl"), intruder.bytes())
	for _, ev := range decodePath(t, path) {
		if ev.CallID == "toolu_I" {
			t.Errorf("a file outside the sub-agents' folder was read: %s", ev.Type)
		}
	}
}

// TestSubAgentFileOldLayout reads a Claude Code 2.0 parent whose sub-agent
// file lies beside it in the project folder, next to another session's
// file of the same name pattern that must not be taken.
func TestSubAgentFileOldLayout(t *testing.T) {
	parent, subA, subB := parallelSession(false)
	dir := t.TempDir()
	path := filepath.Join(dir, testSession+".jsonl")
	writeFile(t, path, parent.bytes())
	writeFile(t, filepath.Join(dir, "agent-a1f00d1.jsonl"), subA.bytes())
	other := newScript("0ther000-aaaa-4bbb-8ccc-000000000009", "b2f00d2")
	other.prompt(at(2), "Someone else's task.")
	other.bash(at(3), "msg_o", "toolu_O", "true")
	writeFile(t, filepath.Join(dir, "agent-b2f00d2.jsonl"), other.bytes())

	events := decodePath(t, path)
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, toolUseIDs(parent.bytes(), subA.bytes()), streamtest.CallIDs(events))
	checkNested(t, events, map[string]string{"toolu_A": "a1f00d1"})
	_ = subB
}

// TestSubAgentFileResumed reads a parent that resumes a sub-agent in a
// second delegation (Task's resume, Claude Code 2.0): the sub-agent's file
// holds both runs, and each run is nested in the delegation it did it for.
func TestSubAgentFileResumed(t *testing.T) {
	parent := newScript(testSession, "")
	sub := newScript(testSession, "a1f00d1")
	parent.prompt(at(0), "Review, then review again.")
	parent.agent(at(1), "msg_1", "toolu_R1", "Review cart.go.")
	sub.prompt(at(2), "Review cart.go.")
	sub.bash(at(3), "msg_s1", "toolu_S1", "go vet ./cart")
	sub.bashResult(at(4), "toolu_S1", "")
	sub.text(at(5), "msg_s2", "Clean.")
	parent.agentResult(at(6), "toolu_R1", "a1f00d1", "Clean.")
	parent.assistant(at(7), "msg_2", map[string]any{"type": "tool_use", "id": "toolu_R2", "name": "Task",
		"input": map[string]any{"description": "again", "prompt": "Look again.", "resume": "a1f00d1"}})
	sub.prompt(at(8), "Look again.")
	sub.bash(at(9), "msg_s3", "toolu_S2", "go test ./cart")
	sub.bashResult(at(10), "toolu_S2", "ok")
	parent.agentResult(at(11), "toolu_R2", "a1f00d1", "Still clean.")
	path := writeSession(t, t.TempDir(), parent, sub)
	events := decodePath(t, path)
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, toolUseIDs(parent.bytes(), sub.bytes()), streamtest.CallIDs(events))
	checkNested(t, events, map[string]string{"toolu_R1": "a1f00d1", "toolu_R2": "a1f00d1"})
	checkTimeOrder(t, events)
	calls := byCall(events)
	if a, b := calls["toolu_S1"][transcript.TypeBashStart], calls["toolu_S2"][transcript.TypeBashStart]; a == nil || b == nil ||
		a.ParentCallID != "toolu_R1" || b.ParentCallID != "toolu_R2" {
		t.Errorf("the first run's command is inside %v, the second's inside %v", a, b)
	}
	if d := calls["toolu_R2"][transcript.TypeDelegation].Body.(*transcript.Delegation); d.AgentType != "Explore" {
		t.Errorf("the resumed delegation's agent type %q, want the first's", d.AgentType)
	}
}

// TestSubAgentFileAloneWithPath reads a sub-agent's file on its own, as
// `cuff import agent-<id>.jsonl` does, with its path known: the same as
// without.
func TestSubAgentFileAloneWithPath(t *testing.T) {
	_, subA, _ := parallelSession(false)
	dir := t.TempDir()
	path := filepath.Join(dir, testSession, "subagents", "agent-a1f00d1.jsonl")
	writeFile(t, path, subA.bytes())
	alone, _ := decodeAll(t, subA.bytes())
	got := decodePath(t, path)
	if a, b := encodeAll(t, alone), encodeAll(t, got); a != b {
		t.Errorf("with its path:\n%s\nwithout:\n%s", b, a)
	}
	if got[0].SessionID != "claude:"+testSession+"/agent-a1f00d1" {
		t.Errorf("session id %q", got[0].SessionID)
	}
}

// TestSubAgentFileFollowed feeds a parent line by line as a follower does,
// flushing after every line: nothing waits for a delegation to end, and the
// sub-agent's events still come once, before its delegation's end.
func TestSubAgentFileFollowed(t *testing.T) {
	parent, subA, subB := parallelSession(false)
	path := writeSession(t, t.TempDir(), parent, subA, subB)
	d := NewDecoder(Options{Path: path})
	var events []*transcript.Event
	out := func(ev *transcript.Event) error { events = append(events, ev); return nil }
	for i, line := range bytes.Split(bytes.TrimSpace(parent.bytes()), []byte{'\n'}) {
		if err := d.Line(line, out); err != nil {
			t.Fatal(err)
		}
		if err := d.Flush(out); err != nil {
			t.Fatal(err)
		}
		if i == 5 { // the parent's Bash result: both delegations still open
			last := events[len(events)-1]
			if _, ok := last.Body.(*transcript.BashRun); !ok {
				t.Errorf("after the Bash result, the last event is %s: held back by an open delegation", last.Type)
			}
		}
	}
	if err := d.Close(out); err != nil {
		t.Fatal(err)
	}
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, toolUseIDs(parent.bytes(), subA.bytes(), subB.bytes()), streamtest.CallIDs(events))
	checkNested(t, events, map[string]string{"toolu_A": "a1f00d1", "toolu_B": "b2f00d2"})
}

// TestSubAgentFileHeldBound reads a delegation open over more events than
// are ever held back: they are passed on in batches, and the sub-agent's
// events still come once, inside the delegation.
func TestSubAgentFileHeldBound(t *testing.T) {
	parent, subA, subB := parallelSession(false)
	path := writeSession(t, t.TempDir(), parent, subA, subB)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d := NewDecoder(Options{Path: path})
	d.files.limit = 3
	var events []*transcript.Event
	if _, err := stream.Run(f, d, func(ev *transcript.Event) error { events = append(events, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, toolUseIDs(parent.bytes(), subA.bytes(), subB.bytes()), streamtest.CallIDs(events))
	checkNested(t, events, map[string]string{"toolu_A": "a1f00d1", "toolu_B": "b2f00d2"})
}

// update rewrites the nested fixture from parallelSession.
var update = flag.Bool("update", false, "rewrite testdata/nested from the builder")

// nestedFixture is a parent and its sub-agents' files in Claude Code 2.1's
// layout, for the tests of packages that read sessions from folders.
const nestedFixture = "testdata/nested"

// TestNestedFixtureUpToDate keeps testdata/nested what parallelSession
// builds (go test -run NestedFixture -update rewrites it).
func TestNestedFixtureUpToDate(t *testing.T) {
	parent, subA, subB := parallelSession(false)
	files := map[string][]byte{
		testSession + ".jsonl": parent.bytes(),
		filepath.Join(testSession, "subagents", "agent-a1f00d1.jsonl"): subA.bytes(),
		filepath.Join(testSession, "subagents", "agent-b2f00d2.jsonl"): subB.bytes(),
	}
	for name, want := range files {
		path := filepath.Join(nestedFixture, name)
		if *update {
			writeFile(t, path, want)
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what the builder writes (%v); run go test -run NestedFixture -update", path, err)
		}
	}
}

// TestFixturesWithPath reads every fixture from a folder where no
// sub-agent's file lies beside it: knowing its path changes nothing.
func TestFixturesWithPath(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) < 3 {
		t.Fatalf("fixtures: %v %v", files, err)
	}
	for _, name := range files {
		data := readFixture(t, filepath.Base(name))
		path := filepath.Join(t.TempDir(), testSession+".jsonl")
		writeFile(t, path, data)
		alone, _ := decodeAll(t, data)
		if a, b := encodeAll(t, alone), encodeAll(t, decodePath(t, path)); a != b {
			t.Errorf("%s read with its path:\n%s\nalone:\n%s", name, b, a)
		}
	}
}
