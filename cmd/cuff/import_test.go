package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// A Claude Code transcript: a prompt, a Bash call whose output holds a
// token, a Task whose sub-agent runs inline, and a record type from the
// future.
var claudeTranscript = strings.Join([]string{
	`{"type":"summary","summary":"Check the deploy","leafUuid":"l1"}`,
	`{"parentUuid":null,"isSidechain":false,"cwd":"/home/dev/app","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","version":"2.1.40","gitBranch":"main","type":"user","message":{"role":"user","content":"why does the deploy fail?"},"uuid":"u1","timestamp":"2026-02-01T10:00:00.000Z"}`,
	`{"parentUuid":"u1","isSidechain":false,"cwd":"/home/dev/app","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_bash1","name":"Bash","input":{"command":"cat deploy.env","description":"Show deploy settings"}}],"usage":{"input_tokens":5,"output_tokens":20}},"uuid":"a1","timestamp":"2026-02-01T10:00:02.000Z"}`,
	`{"parentUuid":"a1","isSidechain":false,"cwd":"/home/dev/app","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_bash1","content":"Exit code 3\nGITHUB_TOKEN=ghp_Zx9Kq2Lm4Np6Rs8Tu0Vw1Xy3Za5Bc7De9Fg1Hj","is_error":true}]},"toolUseResult":{"stdout":"GITHUB_TOKEN=ghp_Zx9Kq2Lm4Np6Rs8Tu0Vw1Xy3Za5Bc7De9Fg1Hj\n","stderr":"deploy: missing region","interrupted":false},"uuid":"r1","timestamp":"2026-02-01T10:00:03.000Z"}`,
	`{"parentUuid":"r1","isSidechain":false,"cwd":"/home/dev/app","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","type":"assistant","message":{"id":"msg_2","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_task1","name":"Task","input":{"description":"Find region","prompt":"Find where the region is set.","subagent_type":"Explore"}}]},"uuid":"a2","timestamp":"2026-02-01T10:00:04.000Z"}`,
	`{"parentUuid":null,"isSidechain":true,"cwd":"/home/dev/app","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","type":"user","message":{"role":"user","content":"Find where the region is set."},"uuid":"s1","timestamp":"2026-02-01T10:00:05.000Z"}`,
	`{"parentUuid":"s1","isSidechain":true,"cwd":"/home/dev/app","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","type":"assistant","message":{"id":"msg_3","role":"assistant","content":[{"type":"tool_use","id":"toolu_grep1","name":"Grep","input":{"pattern":"REGION"}}]},"uuid":"s2","timestamp":"2026-02-01T10:00:06.000Z"}`,
	`{"parentUuid":"s2","isSidechain":true,"cwd":"/home/dev/app","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_grep1","content":"No matches found"}]},"uuid":"s3","timestamp":"2026-02-01T10:00:07.000Z"}`,
	`{"parentUuid":"s3","isSidechain":true,"cwd":"/home/dev/app","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","type":"assistant","message":{"id":"msg_4","role":"assistant","content":[{"type":"text","text":"REGION is never set."}]},"uuid":"s4","timestamp":"2026-02-01T10:00:08.000Z"}`,
	`{"parentUuid":"a2","isSidechain":false,"cwd":"/home/dev/app","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_task1","content":[{"type":"text","text":"REGION is never set."}]}]},"uuid":"r2","timestamp":"2026-02-01T10:00:09.000Z"}`,
	`{"type":"time-travel","sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b"}`,
}, "\n") + "\n"

// A Codex rollout: one exec_command that exits 2.
var codexRollout = strings.Join([]string{
	`{"timestamp":"2026-03-01T08:00:00.000Z","type":"session_meta","payload":{"id":"0199ffff-0000-7000-8000-000000000abc","timestamp":"2026-03-01T08:00:00.000Z","cwd":"/srv/site","originator":"codex_cli_rs","cli_version":"0.125.0","git":{"branch":"dev"}}}`,
	`{"timestamp":"2026-03-01T08:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"run the linter"}}`,
	`{"timestamp":"2026-03-01T08:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"make lint\"}","call_id":"call_lint"}}`,
	`{"timestamp":"2026-03-01T08:00:04.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_lint","output":"Chunk ID: a\nWall time: 2.0000 seconds\nProcess exited with code 2\nOutput:\nlint: 3 problems\n"}}`,
}, "\n") + "\n"

var sessionIDPattern = regexp.MustCompile(`^\d{8}_\d{6}_[0-9a-f]{8}-[0-9a-f]{4}$`)

// writeTemp writes content to a file in a fresh temp dir.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sessionEvents reads the events of a session of the project in dir, and
// its raw bytes.
func sessionEvents(t *testing.T, dir, id string) ([]*transcript.Event, string) {
	t.Helper()
	path := filepath.Join(dir, ".cuff", "recordings", "sessions", id+".jsonl")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var events []*transcript.Event
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		ev, err := transcript.Decode(sc.Bytes())
		if err != nil {
			t.Fatalf("session line: %v\n%s", err, sc.Text())
		}
		events = append(events, ev)
	}
	return events, string(raw)
}

func TestImportClaudeTranscript(t *testing.T) {
	dir := gitProject(t)
	file := writeTemp(t, "5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b.jsonl", claudeTranscript)
	r := cuff(t, dir, "", "import", file)
	if r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	if !sessionIDPattern.MatchString(id) || !strings.HasPrefix(id, "20260201_100000_") {
		t.Fatalf("printed %q, want a new session id from the transcript's start", r.stdout)
	}
	if !strings.Contains(r.stderr, "Claude Code transcript") || !strings.Contains(r.stderr, "time-travel") {
		t.Errorf("stderr %q should name the format and the skipped record type", r.stderr)
	}

	events, raw := sessionEvents(t, dir, id)
	if strings.Contains(raw, "ghp_Zx9Kq2Lm4Np6Rs8Tu0Vw1Xy3Za5Bc7De9Fg1Hj") || !strings.Contains(raw, "[REDACTED]") {
		t.Errorf("the token was not redacted on import")
	}
	start, ok := events[0].Body.(*transcript.SessionStart)
	if !ok || start.Agent != "claude-code" || start.Source != "claude" || start.Title != "why does the deploy fail?" ||
		start.WorkingDirectory != "/home/dev/app" || start.Git == nil || start.Git.Branch != "main" {
		t.Fatalf("session_start %+v", events[0].Body)
	}
	// A Claude Code transcript never says it ended: the session is left open.
	if _, ok := events[len(events)-1].Body.(*transcript.SessionEnd); ok {
		t.Errorf("the import ended a session whose transcript did not")
	}
	kinds := map[transcript.Type]int{}
	var run *transcript.BashRun
	for i, ev := range events {
		kinds[ev.Type]++
		if ev.SessionID != id || ev.Seq != int64(i+1) {
			t.Errorf("event %d: session %s seq %d", i, ev.SessionID, ev.Seq)
		}
		switch b := ev.Body.(type) {
		case *transcript.BashRun:
			run = b
			if ev.CallID != "toolu_bash1" || !ev.TS.Equal(time.Date(2026, 2, 1, 10, 0, 3, 0, time.UTC)) {
				t.Errorf("bash_run call %s at %v: the transcript's id and time must be kept", ev.CallID, ev.TS)
			}
		case *transcript.ToolCall:
			if ev.CallID != "toolu_grep1" || ev.AgentID == transcript.MainAgent || ev.ParentCallID != "toolu_task1" {
				t.Errorf("sub-agent's tool call: %+v", ev.Envelope)
			}
		}
	}
	want := map[transcript.Type]int{transcript.TypeSessionStart: 1, transcript.TypeChatTurn: 4, transcript.TypeBashStart: 1,
		transcript.TypeBashRun: 1, transcript.TypeDelegation: 2, transcript.TypeToolCall: 1, transcript.TypeToolResult: 1}
	for k, n := range want {
		if kinds[k] != n {
			t.Errorf("%d %s events, want %d (all: %v)", kinds[k], k, n, kinds)
		}
	}
	if run == nil || run.ExitCode == nil || *run.ExitCode != 3 || run.Stderr != "deploy: missing region" {
		t.Errorf("bash_run %+v", run)
	}

	// The imported session is an ordinary session of the store.
	r = cuff(t, dir, "", "record", "show", id, "--format", "json")
	if r.code != 0 || !strings.Contains(r.stdout, `"commands"`) {
		t.Errorf("record show: %+v", r)
	}
}

func TestImportCodexJSON(t *testing.T) {
	dir := gitProject(t)
	file := writeTemp(t, "rollout-2026-03-01T08-00-00-0199ffff-0000-7000-8000-000000000abc.jsonl", codexRollout)
	r := cuff(t, dir, "", "import", file, "--format", "json")
	if r.code != 0 {
		t.Fatalf("import: %+v", r)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out) != 2 {
		t.Fatalf("json output %q: %v", r.stdout, err)
	}
	id, _ := out["session_id"].(string)
	n, _ := out["events"].(float64)
	events, _ := sessionEvents(t, dir, id)
	if !sessionIDPattern.MatchString(id) || int(n) != len(events) || len(events) != 4 { // start, prompt, bash_start, bash_run
		t.Fatalf("printed %v; the session has %d events", out, len(events))
	}
	start := events[0].Body.(*transcript.SessionStart)
	if start.Agent != "codex" || start.Source != "codex" || start.Title != "run the linter" || start.Git.Branch != "dev" {
		t.Errorf("session_start %+v", start)
	}
	run, ok := events[3].Body.(*transcript.BashRun)
	if !ok || events[3].CallID != "call_lint" || run.ExitCode == nil || *run.ExitCode != 2 || run.Command != "make lint" {
		t.Errorf("event 4: %s %+v", events[3].Type, events[3].Body)
	}
}

func TestImportStdinAndSubAgentFile(t *testing.T) {
	dir := gitProject(t)
	sub := `{"parentUuid":null,"isSidechain":true,"sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","agentId":"b42","type":"user","message":{"role":"user","content":"List the files."},"uuid":"x1","timestamp":"2026-02-01T11:00:00.000Z"}
{"parentUuid":"x1","isSidechain":true,"sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","agentId":"b42","type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_ls","name":"Bash","input":{"command":"ls"}}]},"uuid":"x2","timestamp":"2026-02-01T11:00:01.000Z"}
{"parentUuid":"x2","isSidechain":true,"sessionId":"5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b","agentId":"b42","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_ls","content":"a.go"}]},"toolUseResult":{"stdout":"a.go","stderr":"","interrupted":false},"uuid":"x3","timestamp":"2026-02-01T11:00:02.000Z"}
`
	r := cuff(t, dir, sub, "import", "-")
	if r.code != 0 {
		t.Fatalf("import -: %+v", r)
	}
	events, _ := sessionEvents(t, dir, strings.TrimSpace(r.stdout))
	var agents []string
	delegations := 0
	for _, ev := range events {
		if ev.Type == transcript.TypeDelegation {
			delegations++
		}
		if ev.Type == transcript.TypeBashRun {
			agents = append(agents, ev.AgentID)
		}
	}
	if delegations != 2 || len(agents) != 1 || agents[0] != "b42" {
		t.Errorf("sub-agent file alone: %d delegation events, runs by %v", delegations, agents)
	}
}

func TestImportErrors(t *testing.T) {
	dir := gitProject(t)
	notes := writeTemp(t, "notes.jsonl", `{"name":"not a transcript"}`+"\n")
	empty := writeTemp(t, "empty.jsonl", "")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"import"}, exitUsage, "missing FILE"},
		{[]string{"import", filepath.Join(dir, "nope.jsonl")}, exitUsage, "no such file"},
		{[]string{"import", dir}, exitUsage, "is a directory"},
		{[]string{"import", notes}, exitError, "not a Claude Code transcript, a Codex rollout or a cuff session"},
		{[]string{"import", empty}, exitError, "the transcript is empty"},
		{[]string{"import", notes, "--format", "yaml"}, exitUsage, `unknown format "yaml"`},
	}
	for _, c := range cases {
		r := cuff(t, dir, "", c.args...)
		// Every error names the problem and the way out (a hint, or the usage line).
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "\n\n") || r.stdout != "" {
			t.Errorf("%v: code %d, stderr %q, stdout %q", c.args, r.code, r.stderr, r.stdout)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".cuff", "recordings", "sessions")); len(entries) != 0 {
		t.Errorf("failed imports left %d files", len(entries))
	}
}

// TestImportJSONExportRoundTrip: what record export --format json writes,
// import reads back into a session with the same events.
func TestImportJSONExportRoundTrip(t *testing.T) {
	dir := gitProject(t)
	if r := cuff(t, dir, "", "exec", "sh", "-c", "echo first; echo second >&2"); r.code != 0 {
		t.Fatalf("exec: %+v", r)
	}
	list := cuff(t, dir, "", "record", "list", "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(list.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("list: %v %s", err, list.stdout)
	}
	id := rows[0]["session_id"].(string)
	file := filepath.Join(t.TempDir(), "s.json")
	if r := cuff(t, dir, "", "record", "export", id, "--format", "json", "--output", file); r.code != 0 {
		t.Fatalf("export: %+v", r)
	}
	other := gitProject(t)
	r := cuff(t, other, "", "import", file)
	// start, bash_start, bash_run: the exported session had not ended, nor does the import
	if r.code != 0 || r.stderr != "Imported cuff session: 3 events\n" {
		t.Fatalf("import: %+v", r)
	}
	events, _ := sessionEvents(t, other, strings.TrimSpace(r.stdout))
	if len(events) != 3 {
		t.Fatalf("%d events", len(events))
	}
	run, ok := events[2].Body.(*transcript.BashRun)
	if !ok || run.Stdout != "first\n" || run.Stderr != "second\n" {
		t.Errorf("bash_run %+v", events[2].Body)
	}
}

// TestImportTwiceIsOneSession: importing the same transcript again updates
// the session the first import made (same id, the new events in), and the
// status is what the transcript shows: a Claude Code transcript never
// says it ended, so the session is idle, not complete; a cuff session that
// ended keeps its status.
func TestImportTwiceIsOneSession(t *testing.T) {
	dir := gitProject(t)
	lines := strings.SplitAfter(claudeTranscript, "\n")
	file := writeTemp(t, "5e1f0c2a-3b4d-4e5f-8a6b-7c8d9e0f1a2b.jsonl", strings.Join(lines[:4], ""))
	first := cuff(t, dir, "", "import", file)
	if first.code != 0 {
		t.Fatalf("import: %+v", first)
	}
	id := strings.TrimSpace(first.stdout)
	before, _ := sessionEvents(t, dir, id)
	if err := os.WriteFile(file, []byte(claudeTranscript), 0o600); err != nil { // the conversation went on
		t.Fatal(err)
	}
	second := cuff(t, dir, "", "import", file)
	if second.code != 0 || strings.TrimSpace(second.stdout) != id {
		t.Fatalf("second import printed %q, want the same session %s: %+v", second.stdout, id, second)
	}
	after, _ := sessionEvents(t, dir, id)
	if len(after) <= len(before) {
		t.Errorf("the second import did not bring the new events: %d then %d", len(before), len(after))
	}
	for _, ev := range after {
		if _, ended := ev.Body.(*transcript.SessionEnd); ended {
			t.Errorf("a session_end in a session whose transcript never ended")
		}
	}
	list := cuff(t, dir, "", "record", "list", "--source", "cuff", "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(list.stdout), &rows); err != nil {
		t.Fatalf("list: %v %s", err, list.stdout)
	}
	if len(rows) != 1 || rows[0]["session_id"] != id || rows[0]["status"] != "idle" {
		t.Errorf("list after two imports: %v, want one idle session %s", rows, id)
	}

	// A cuff session that ended: its status stands, and importing it twice
	// is one session too.
	ended := writeTemp(t, "s.jsonl", `{"v":1,"type":"session_start","id":"e_20260301_090000_0123abcd-0001_1","session_id":"20260301_090000_0123abcd-0001","seq":1,"ts":"2026-03-01T09:00:00Z","agent_id":"main","agent":"cuff-exec","source":"exec"}
{"v":1,"type":"session_end","id":"e_20260301_090000_0123abcd-0001_2","session_id":"20260301_090000_0123abcd-0001","seq":2,"ts":"2026-03-01T09:00:05Z","agent_id":"main","status":"shutdown"}
`)
	var ids []string
	for range 2 {
		r := cuff(t, dir, "", "import", ended)
		if r.code != 0 {
			t.Fatalf("import: %+v", r)
		}
		ids = append(ids, strings.TrimSpace(r.stdout))
	}
	if ids[0] != ids[1] {
		t.Errorf("the same cuff session imported twice became %v", ids)
	}
	evs, _ := sessionEvents(t, dir, ids[0])
	if end, ok := evs[len(evs)-1].Body.(*transcript.SessionEnd); !ok || end.Status != transcript.StatusShutdown || len(evs) != 2 {
		t.Errorf("events %d, last %+v: want the source's end with its status", len(evs), evs[len(evs)-1].Body)
	}
}
