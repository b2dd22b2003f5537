package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

const (
	shellRollout = "rollout-2026-01-05T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"
	execRollout  = "rollout-2026-05-01T08-00-00-019e0000-1111-7222-8333-444444444444.jsonl"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// runs indexes the bash_run events by call id.
func runs(events []*transcript.Event) map[string]*transcript.BashRun {
	out := map[string]*transcript.BashRun{}
	for _, ev := range events {
		if r, ok := ev.Body.(*transcript.BashRun); ok {
			out[ev.CallID] = r
		}
	}
	return out
}

// results indexes the tool_result events by call id.
func results(events []*transcript.Event) map[string]*transcript.ToolResult {
	out := map[string]*transcript.ToolResult{}
	for _, ev := range events {
		if r, ok := ev.Body.(*transcript.ToolResult); ok {
			out[ev.CallID] = r
		}
	}
	return out
}

func exit(r *transcript.BashRun) any {
	if r == nil || r.ExitCode == nil {
		return nil
	}
	return *r.ExitCode
}

// TestShellRollout decodes a rollout shaped like Codex 0.58's: shell calls
// with argv arrays and outputs as JSON strings with exit code metadata,
// messages recorded twice, cumulative token counts, a custom tool, a local
// shell call, a web search, a compaction, unknown types and a bad line.
func TestShellRollout(t *testing.T) {
	data := readFixture(t, shellRollout)
	events, st := decodeAll(t, data)
	streamtest.Invariants(t, events, "codex:")
	streamtest.ExactlyOnce(t, rawCallIDs(data), streamtest.CallIDs(events))

	want := map[transcript.Type]int{transcript.TypeSessionStart: 1, transcript.TypeChatTurn: 8,
		transcript.TypeBashStart: 3, transcript.TypeBashRun: 3, transcript.TypeToolCall: 3, transcript.TypeToolResult: 3}
	if got := streamtest.Kinds(events); !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	wantUnknown := map[string]int{"event_msg/future_event": 1}
	if st.Unknown != 1 || !reflect.DeepEqual(st.UnknownTypes, wantUnknown) || st.Malformed != 1 || st.MalformedLines[0] != 32 {
		t.Errorf("unknown %d %v, malformed %d %v", st.Unknown, st.UnknownTypes, st.Malformed, st.MalformedLines)
	}

	start := events[0]
	wantStart := transcript.SessionStart{Agent: "codex", Source: "codex", Title: "add a health endpoint", WorkingDirectory: "/home/dev/api",
		Git: &transcript.Git{Branch: "feature/health", SHA: "3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a49"}}
	if got := *start.Body.(*transcript.SessionStart); !reflect.DeepEqual(got, wantStart) {
		t.Errorf("session_start %+v, want %+v", got, wantStart)
	}
	if start.SessionID != "codex:0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee" || !start.TS.Equal(time.Date(2026, 1, 5, 8, 59, 59, 500e6, time.UTC)) {
		t.Errorf("session %s at %v", start.SessionID, start.TS)
	}

	r := runs(events)
	cases := []struct {
		id      string
		exit    any
		command string
		argv    []string
		stdout  string
		ms      int64
	}{
		{"call_1", 0, "ls", []string{"bash", "-lc", "ls"}, "main.go\nroutes.go\n", 100},
		{"call_2", 2, "ls lib/ai", []string{"bash", "-lc", "ls lib/ai"}, "ls: cannot access 'lib/ai': No such file or directory\n", 100},
		{"call_5", 0, "go test ./...", []string{"go", "test", "./..."}, "ok  \tapi\t0.2s\n", 1500},
	}
	for _, c := range cases {
		run := r[c.id]
		if run == nil {
			t.Errorf("%s: no bash_run", c.id)
			continue
		}
		if exit(run) != c.exit || run.Command != c.command || !reflect.DeepEqual(run.Argv, c.argv) ||
			run.Stdout != c.stdout || run.DurationMS != c.ms || run.WorkingDirectory != "/home/dev/api" {
			t.Errorf("%s: %+v (exit %v)", c.id, run, exit(run))
		}
	}
	if r["call_2"].TimeoutSeconds != 30 || r["call_1"].Shell != "bash" {
		t.Errorf("timeout %d, shell %q", r["call_2"].TimeoutSeconds, r["call_1"].Shell)
	}

	res := results(events)
	if p := res["call_4"]; p == nil || p.Tool != "apply_patch" || p.IsError || !strings.HasPrefix(p.Output, "Success.") {
		t.Errorf("apply_patch result %+v", p)
	}
	if p := res["call_3"]; p == nil || p.Tool != "update_plan" || p.Output != "Plan updated" {
		t.Errorf("update_plan result %+v", p)
	}
	searches := 0
	for id, p := range res {
		if p.Tool == "web_search" {
			searches++
			if p.Output != "go http health check" || !streamtest.Generated(id) {
				t.Errorf("web search %s: %+v", id, p)
			}
		}
	}
	if searches != 1 {
		t.Errorf("%d web searches", searches)
	}

	// Messages recorded twice are written once; injected context is a
	// system turn; reasoning summaries are thinking turns.
	var turns []string
	var total transcript.Usage
	for _, ev := range events {
		turn, ok := ev.Body.(*transcript.ChatTurn)
		if !ok {
			continue
		}
		key := turn.Role
		if turn.Thinking {
			key += "/thinking"
		}
		turns = append(turns, key+":"+firstWords(turn.Text))
		if turn.Usage != nil {
			total.InputTokens += turn.Usage.InputTokens
			total.OutputTokens += turn.Usage.OutputTokens
			total.CacheReadTokens += turn.Usage.CacheReadTokens
		}
		if turn.Role == transcript.RoleAssistant && turn.Model != "gpt-5.1-codex" {
			t.Errorf("assistant turn without the turn's model: %+v", turn)
		}
	}
	wantTurns := []string{"system:<environment_context>", "user:add a health endpoint", "assistant/thinking:**Looking at the routes**",
		"assistant/thinking:**Checking the router**", "assistant/thinking:**Looking for an ai package**",
		"assistant:Added /health.", "system:Summary: added a health endpoint to the api.", "assistant:"}
	if !reflect.DeepEqual(turns, wantTurns) {
		t.Errorf("turns\n %q\nwant\n %q", turns, wantTurns)
	}
	// The token counts are cumulative: the usage written adds up to the last count.
	if want := (transcript.Usage{InputTokens: 3000, CacheReadTokens: 1000, OutputTokens: 90}); total != want {
		t.Errorf("usage adds up to %+v, want %+v", total, want)
	}
}

func firstWords(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// TestExecRollout decodes a rollout shaped like Codex Desktop 0.128's:
// exec_command calls with plain-text outputs, a command that goes on in a
// unified-exec session until a write_stdin sees it exit, exec_command_end
// events (one for a command with no call item), an MCP tool and an abort.
func TestExecRollout(t *testing.T) {
	data := readFixture(t, execRollout)
	events, st := decodeAll(t, data)
	streamtest.Invariants(t, events, "codex:")
	streamtest.ExactlyOnce(t, rawCallIDs(data), streamtest.CallIDs(events))
	want := map[transcript.Type]int{transcript.TypeSessionStart: 1, transcript.TypeChatTurn: 4,
		transcript.TypeBashStart: 6, transcript.TypeBashRun: 6, transcript.TypeToolCall: 2, transcript.TypeToolResult: 2}
	if got := streamtest.Kinds(events); !reflect.DeepEqual(got, want) {
		t.Errorf("kinds %v, want %v", got, want)
	}
	if st.Unknown != 0 || st.Malformed != 0 {
		t.Errorf("stats %+v", st)
	}
	ss := events[0].Body.(*transcript.SessionStart)
	if ss.Title != "summarize the notes" || ss.WorkingDirectory != "/Users/dev/site" || ss.Git != nil {
		t.Errorf("session_start %+v", ss)
	}

	r := runs(events)
	cases := []struct {
		id             string
		exit           any
		command        string
		stdout, stderr string
		ms             int64
		interrupted    bool
	}{
		{"call_a", 0, "wc -l notes.txt", "  42 notes.txt\n", "", 10, false},
		{"call_b", 1, "rg -n TODO notes.txt", "", "", 200, false},
		{"call_d", 0, "npm run build", "building...\ndone\n", "", 6100, false},
		{"call_f", 3, "make lint", "lint ok\n", "warning: unused import\n", 2500, false},
		{"call_g", 0, "git status --short", " M notes.txt\n", "", 1, false},
		{"call_h", nil, "./deploy.sh", "", "", 4000, true},
	}
	for _, c := range cases {
		run := r[c.id]
		if run == nil {
			t.Errorf("%s: no bash_run", c.id)
			continue
		}
		if exit(run) != c.exit || run.Command != c.command || run.Stdout != c.stdout || run.Stderr != c.stderr ||
			run.DurationMS != c.ms || run.Interrupted != c.interrupted {
			t.Errorf("%s: %+v (exit %v)", c.id, run, exit(run))
		}
	}
	if g := r["call_g"]; !reflect.DeepEqual(g.Argv, []string{"/bin/zsh", "-lc", "git status --short"}) || g.Shell != "zsh" {
		t.Errorf("command the person ran: %+v", g)
	}
	res := results(events)
	if js := res["call_c"]; js == nil || js.Tool != "mcp__node_repl__js" || js.Output != "Browser Use rejected this action." || js.DurationMS != 2500 {
		t.Errorf("MCP tool result %+v", js)
	}
	if w := res["call_e"]; w == nil || w.Tool != "write_stdin" || w.Output != "done\n" {
		t.Errorf("write_stdin result %+v", w)
	}
}

// TestOutputFormats reads each output shape Codex versions have written.
func TestOutputFormats(t *testing.T) {
	cases := []struct {
		name    string
		raw     string
		body    string
		exit    any
		ms      int64
		running string
		failed  bool
	}{
		{"metadata JSON", `"{\"output\":\"hi\\n\",\"metadata\":{\"exit_code\":4,\"duration_seconds\":0.25}}"`, "hi\n", 4, 250, "", false},
		{"header", `"Chunk ID: x\nWall time: 1.5000 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nok"`, "ok", 0, 1500, "", false},
		{"old header", `"Exit code: 2\nWall time: 0.1 seconds\nOutput:\nno such file"`, "no such file", 2, 100, "", false},
		{"running", `"Chunk ID: y\nWall time: 1.0 seconds\nProcess running with session ID 12\nOutput:\nstarting"`, "starting", nil, 1000, "12", false},
		{"plain", `"Plan updated"`, "Plan updated", nil, 0, "", false},
		{"items", `[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:"}]`, "a\n[image]", nil, 0, "", false},
		{"failure object", `{"content":"sandbox denied","success":false}`, "sandbox denied", nil, 0, "", true},
		{"empty", ``, "", nil, 0, "", false},
		{"number", `42`, "42", nil, 0, "", false},
		{"header then text", "\"Wall time: 2 seconds\\nsomething else\"", "something else", nil, 2000, "", false},
	}
	for _, c := range cases {
		var v any
		if c.raw != "" {
			if err := json.Unmarshal([]byte(c.raw), &v); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		o := parseOutput(v)
		var code any
		if o.exitCode != nil {
			code = *o.exitCode
		}
		if o.body != c.body || code != c.exit || o.durationMS != c.ms || o.sessionID != c.running || o.running != (c.running != "") || o.failed != c.failed {
			t.Errorf("%s: %+v (exit %v)", c.name, o, code)
		}
	}
}

// TestWrongFieldTypes decodes lines whose fields have unexpected types.
func TestWrongFieldTypes(t *testing.T) {
	in := strings.Join([]string{
		`{"timestamp":5,"type":"session_meta","payload":{"id":["x"],"cwd":{},"git":"none"}}`,
		`{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":{"command":"ls"},"call_id":"c1"}}`,
		`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":{"weird":true}}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":"not a list"}}`,
		`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":"many"}}}`,
		`{"type":"event_msg","payload":{"type":"exec_command_end","call_id":"c2","command":"ls -l","exit_code":"zero","duration":"fast"}}`,
		`{"type":"response_item","payload":"nothing"}`,
		`{"type":"event_msg"}`,
		`"just a string"`,
	}, "\n") + "\n"
	events, st := decodeAll(t, []byte(in))
	streamtest.Basics(t, events, "codex:")
	if st.Malformed != 1 {
		t.Errorf("malformed %d, want 1", st.Malformed)
	}
	r := runs(events)
	if r["c1"] == nil || r["c2"] == nil || r["c2"].Command != "ls -l" {
		t.Errorf("runs %v", r)
	}
}

// TestLongLines decodes an output far longer than any read buffer.
func TestLongLines(t *testing.T) {
	big := strings.Repeat("y", 3<<20)
	in := `{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"yes | head\"}","call_id":"c1"}}` + "\n" +
		`{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Exit code: 0\nWall time: 1 seconds\nOutput:\n` + big + `"}}` + "\n"
	events, _ := decodeAll(t, []byte(in))
	streamtest.Invariants(t, events, "codex:")
	if run := runs(events)["c1"]; run == nil || len(run.Stdout) != len(big) || run.Command != "yes | head" {
		t.Errorf("long output not kept")
	}
}

// TestOutputErrorStops checks that an error from the consumer ends the
// decode and is returned as it is.
func TestOutputErrorStops(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	_, err := Decode(bytes.NewReader(readFixture(t, execRollout)), func(*transcript.Event) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("err %v after %d events", err, n)
	}
}

const mcpRollout = "rollout-2026-11-02T10-00-00-019f0000-aaaa-7bbb-8ccc-0169cccccccc.jsonl"

// TestCodex0169Rollout decodes a rollout shaped like Codex 0.169's, with
// calls to cuff's MCP server: the tools are named as the MCP tools they
// are, the calls Codex reported failed are errors, injected context is
// context and not the person's words, the token counts land on the
// answers they belong to (no empty turn at the end), and the line types
// 0.169 writes are known.
func TestCodex0169Rollout(t *testing.T) {
	data := readFixture(t, mcpRollout)
	events, st := decodeAll(t, data)
	streamtest.Invariants(t, events, "codex:")
	if st.Unknown != 0 || st.Malformed != 0 {
		t.Errorf("unknown %d %v, malformed %d", st.Unknown, st.UnknownTypes, st.Malformed)
	}
	res := results(events)
	for id, wantErr := range map[string]bool{"call_ok": false, "call_fail": true, "call_denied": true} {
		r := res[id]
		if r == nil {
			t.Errorf("%s: no tool_result", id)
			continue
		}
		if r.Tool != "mcp__cuff__bash_recorder_execute" || r.IsError != wantErr {
			t.Errorf("%s: tool %q is_error %v, want mcp__cuff__bash_recorder_execute %v", id, r.Tool, r.IsError, wantErr)
		}
	}
	var users, contexts []string
	var total transcript.Usage
	for _, ev := range events {
		turn, ok := ev.Body.(*transcript.ChatTurn)
		if !ok {
			continue
		}
		switch {
		case turn.Context != "":
			contexts = append(contexts, turn.Role+"/"+turn.Context)
		case turn.Role == transcript.RoleUser:
			users = append(users, turn.Text)
		}
		if turn.UsageOnly() {
			t.Errorf("seq %d: a turn with no text (usage only)", ev.Seq)
		}
		if u := turn.Usage; u != nil {
			total.InputTokens += u.InputTokens
			total.OutputTokens += u.OutputTokens
		}
	}
	if want := []string{"check the build"}; !reflect.DeepEqual(users, want) {
		t.Errorf("user turns %q, want %q", users, want)
	}
	if want := []string{"developer/skills", "system/environment"}; !reflect.DeepEqual(contexts, want) {
		t.Errorf("context turns %q, want %q", contexts, want)
	}
	if want := (transcript.Usage{InputTokens: 400, OutputTokens: 40}); total != want {
		t.Errorf("usage in all %+v, want %+v (the last cumulative count)", total, want)
	}
	last := events[len(events)-1].Body.(*transcript.ChatTurn)
	if last.Text != "The build passes; vet fails." || last.Usage == nil {
		t.Errorf("last event %+v: want the final answer with its tokens", last)
	}
	if start := events[0].Body.(*transcript.SessionStart); start.Title != "check the build" {
		t.Errorf("title %q", start.Title)
	}
}
