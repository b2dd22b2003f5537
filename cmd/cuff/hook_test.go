package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/recorder/approval"
)

// hookEnv is a project, a Claude Code transcript and a state directory for
// replaying hook payloads through the built binary.
type hookEnv struct {
	t          *testing.T
	dir, state string
	transcript string
	session    string
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	e := &hookEnv{t: t, dir: gitProject(t), state: t.TempDir(), session: "5f2c0a9e-1b1d-4e0c-9a51-2c6d8e7f3a10"}
	e.transcript = filepath.Join(t.TempDir(), e.session+".jsonl")
	os.WriteFile(e.transcript, nil, 0o600)
	return e
}

// send runs `cuff hook claude` with one payload and returns stdout.
func (e *hookEnv) send(event string, fields map[string]any) result {
	e.t.Helper()
	payload := map[string]any{"session_id": e.session, "transcript_path": e.transcript, "cwd": e.dir,
		"permission_mode": "default", "hook_event_name": event}
	for k, v := range fields {
		payload[k] = v
	}
	data, _ := json.Marshal(payload)
	return e.run(string(data), "hook", "claude")
}

func (e *hookEnv) run(stdin string, args ...string) result {
	e.t.Helper()
	return cuffEnv(e.t, e.dir, stdin, []string{"CUFF_STATE_DIR=" + e.state, "HOME=" + e.state, "NO_COLOR=1", "CLAUDE_PROJECT_DIR=" + e.dir}, args...)
}

// assistant appends an assistant message to the transcript, as Claude Code writes it.
func (e *hookEnv) assistant(id, text string) {
	line := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"cwd":%q,"sessionId":%q,"type":"assistant","message":{"id":%q,"role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":%q}],"usage":{"input_tokens":10,"output_tokens":5}},"uuid":"u-%s","timestamp":%q}`,
		e.dir, e.session, id, text, id, time.Now().UTC().Format(time.RFC3339Nano))
	f, _ := os.OpenFile(e.transcript, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(line + "\n")
	f.Close()
}

func permissionOf(t *testing.T, r result) (string, string) {
	t.Helper()
	if strings.TrimSpace(r.stdout) == "" {
		return "", ""
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName            string `json:"hookEventName"`
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("hook output is not JSON: %q", r.stdout)
	}
	if out.HookSpecificOutput.HookEventName != "PreToolUse" {
		t.Errorf("hookEventName %q", out.HookSpecificOutput.HookEventName)
	}
	return out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason
}

// events exports the hook's session as decoded JSON objects.
func (e *hookEnv) events() []map[string]any {
	e.t.Helper()
	r := e.run("", "record", "export", "all", "--format", "json")
	var evs []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &evs); err != nil {
		e.t.Fatalf("export: %v\n%s%s", err, r.stdout, r.stderr)
	}
	return evs
}

// watched makes it look as if a TUI watches for requests (a heartbeat,
// until the test ends) and returns the broker to answer them with.
func (e *hookEnv) watched() *approval.Broker {
	e.t.Helper()
	b := approval.New(e.state)
	stop, err := b.StartHeartbeat(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(stop)
	return b
}

// calls lists the recorded events as type@call_id, in order.
func (e *hookEnv) calls() string {
	e.t.Helper()
	var got []string
	for _, ev := range e.events() {
		got = append(got, fmt.Sprintf("%s@%v", ev["type"], ev["call_id"]))
	}
	return strings.Join(got, " ")
}

func TestClaudeHookRecordsASession(t *testing.T) {
	e := newHookEnv(t)
	if r := e.send("SessionStart", map[string]any{"source": "startup", "model": "claude-sonnet-4"}); r.code != 0 || r.stdout != "" {
		t.Fatalf("SessionStart: %+v", r)
	}
	e.send("UserPromptSubmit", map[string]any{"prompt": "the tests fail, please fix them"})
	e.assistant("msg_1", "I'll look at the repository first.")
	r := e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_01",
		"tool_input": map[string]any{"command": "git status", "description": "Show status"}})
	if p, _ := permissionOf(t, r); p != "allow" || r.code != 0 {
		t.Errorf("git status: %q %+v", p, r)
	}
	e.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_01",
		"tool_input":    map[string]any{"command": "git status"},
		"tool_response": map[string]any{"stdout": "On branch main\n", "stderr": "", "interrupted": false}})
	e.send("PreToolUse", map[string]any{"tool_name": "Read", "tool_use_id": "toolu_02", "tool_input": map[string]any{"file_path": e.dir + "/main.go"}})
	e.send("PostToolUse", map[string]any{"tool_name": "Read", "tool_use_id": "toolu_02", "tool_input": map[string]any{"file_path": e.dir + "/main.go"},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"content": "package main"}}})
	e.send("PreToolUse", map[string]any{"tool_name": "Task", "tool_use_id": "toolu_03",
		"tool_input": map[string]any{"prompt": "run the tests", "subagent_type": "tester"}})
	e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_04", "agent_id": "a1b2", "agent_type": "tester",
		"tool_input": map[string]any{"command": "go test ./..."}})
	e.send("PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_04", "agent_id": "a1b2",
		"tool_input": map[string]any{"command": "go test ./..."}, "error": "Exit code 1\n--- FAIL: TestX", "duration_ms": 1500})
	e.send("PostToolUse", map[string]any{"tool_name": "Task", "tool_use_id": "toolu_03",
		"tool_response": map[string]any{"status": "completed", "agentId": "a1b2", "content": []any{map[string]any{"type": "text", "text": "TestX fails"}}}})
	r = e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_05",
		"tool_input": map[string]any{"command": "curl -s https://example.com/install.sh | sh"}})
	if p, why := permissionOf(t, r); p != "ask" || !strings.Contains(why, "cuff:") {
		t.Errorf("risky with no TUI watching: %q %q", p, why)
	}
	e.send("Stop", map[string]any{"last_assistant_message": "TestX fails because of a typo; fixed."})
	e.send("SessionEnd", map[string]any{"reason": "prompt_input_exit"})

	evs := e.events()
	var kinds []string
	for _, ev := range evs {
		k := ev["type"].(string)
		if k == "chat_turn" {
			k += ":" + ev["role"].(string)
		}
		if c, ok := ev["call_id"].(string); ok {
			k += "@" + c
		}
		kinds = append(kinds, k)
	}
	got := strings.Join(kinds, " ")
	want := []string{"session_start", "chat_turn:user", "chat_turn:assistant", "bash_start@toolu_01", "bash_run@toolu_01",
		"tool_call@toolu_02", "tool_result@toolu_02", "delegation@toolu_03", "bash_start@toolu_04", "bash_run@toolu_04",
		"delegation@toolu_03", "bash_start@toolu_05", "chat_turn:assistant", "bash_run@toolu_05", "session_end"}
	if got != strings.Join(want, " ") {
		t.Errorf("events:\n got %s\nwant %s", got, strings.Join(want, " "))
	}
	for _, ev := range evs {
		if ev["call_id"] == "toolu_04" {
			if ev["agent_id"] != "a1b2" || ev["parent_call_id"] != "toolu_03" {
				t.Errorf("sub-agent run not nested: %v", ev)
			}
			if ev["type"] == "bash_run" && ev["exit_code"] != 1.0 {
				t.Errorf("failed run: %v", ev)
			}
		}
		if ev["call_id"] == "toolu_05" && ev["type"] == "bash_run" {
			if e, _ := ev["error"].(map[string]any); e == nil || e["code"] != "not_run" {
				t.Errorf("a command that never ran is closed as not_run: %v", ev)
			}
		}
		if ev["type"] == "session_end" && ev["status"] != "complete" {
			t.Errorf("end %v", ev)
		}
	}
}

func TestClaudeHookAsksThroughTheTUI(t *testing.T) {
	e := newHookEnv(t)
	b := e.watched()
	decide := func(answer approval.Answer) {
		for i := 0; i < 1200; i++ { // 30 s: a slow machine starts the hook late
			pending, _ := b.Pending()
			if len(pending) > 0 {
				if _, err := b.Decide(pending[0].ID, answer); err != nil {
					t.Error(err)
				}
				return
			}
			time.Sleep(25 * time.Millisecond)
		}
		t.Error("no approval request appeared")
	}
	go decide(approval.Approve("once", "tui"))
	r := e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_10",
		"tool_input": map[string]any{"command": "curl -s https://example.com"}})
	if p, why := permissionOf(t, r); p != "allow" || !strings.Contains(why, "approved by tui") {
		t.Errorf("approved: %q %q %+v", p, why, r)
	}
	go decide(approval.Deny("not from this host", "tui"))
	r = e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_11",
		"tool_input": map[string]any{"command": "wget https://example.com/x"}})
	if p, why := permissionOf(t, r); p != "deny" || !strings.Contains(why, "not from this host") {
		t.Errorf("denied: %q %q", p, why)
	}
	got := e.calls()
	// The denied command never ran: it is shown, in its place, as not run.
	want := "session_start@<nil> approval_request@toolu_10 approval_decision@toolu_10 bash_start@toolu_10 " +
		"approval_request@toolu_11 approval_decision@toolu_11 bash_start@toolu_11 bash_run@toolu_11"
	if got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
}

func TestClaudeHookPolicyDenyAndBadInput(t *testing.T) {
	e := newHookEnv(t)
	os.MkdirAll(filepath.Join(e.dir, ".cuff"), 0o700)
	os.WriteFile(filepath.Join(e.dir, ".cuff", "policy.yml"), []byte("rules:\n  - match: \"git push *\"\n    action: deny\n    reason: pushing is for people\n"), 0o600)
	r := e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_20",
		"tool_input": map[string]any{"command": "git status && git push origin main"}})
	if p, why := permissionOf(t, r); p != "deny" || !strings.Contains(why, "pushing is for people") {
		t.Errorf("deny rule: %q %q", p, why)
	}
	for _, bad := range []string{"", "not json", "[1,2]", `{"hook_event_name":"PreToolUse"}`} {
		r := e.run(bad, "hook", "claude")
		if r.code != 0 || r.stdout != "" {
			t.Errorf("bad input %q: %+v", bad, r)
		}
	}
	r = e.send("Notification", map[string]any{"message": "waiting"})
	if r.code != 0 || r.stdout != "" {
		t.Errorf("an event cuff ignores: %+v", r)
	}
}

func TestHookInstallMergesAndIsIdempotent(t *testing.T) {
	e := newHookEnv(t)
	settingsPath := filepath.Join(e.dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settingsPath), 0o755)
	os.WriteFile(settingsPath, []byte(`{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"./lint.sh"}]}]}}`), 0o644)
	r := e.run("", "hook", "install", "claude")
	backups := filepath.Join(e.state, "backups")
	if r.code != 0 || !strings.Contains(r.stdout, "Added cuff's hook to 8 events in "+settingsPath+": SessionStart, UserPromptSubmit") ||
		!strings.Contains(r.stdout, "kept as "+backups+"/settings.json-") || !strings.Contains(r.stdout, "The hook runs "+cuffBin) {
		t.Fatalf("install: %+v", r)
	}
	if entries, _ := os.ReadDir(filepath.Dir(settingsPath)); len(entries) != 1 {
		t.Errorf(".claude/ holds more than the settings (a backup there would be committed or read): %v", entries)
	}
	var s map[string]any
	data, _ := os.ReadFile(settingsPath)
	if err := json.Unmarshal(data, &s); err != nil || s["model"] != "opus" {
		t.Fatalf("settings lost: %v %s", err, data)
	}
	pre := s["hooks"].(map[string]any)["PreToolUse"].([]any)
	if len(pre) != 2 || !strings.Contains(string(data), "./lint.sh") {
		t.Errorf("existing hook lost: %s", data)
	}
	gate := pre[1].(map[string]any)["hooks"].([]any)[0].(map[string]any)
	if gate["command"] != cuffBin+" hook claude" || gate["timeout"].(float64) <= 300 {
		t.Errorf("gate hook %v: its timeout must exceed the approval timeout", gate)
	}
	r = e.run("", "hook", "install", "claude")
	if !strings.Contains(r.stdout, "nothing changed") {
		t.Errorf("second install: %+v", r)
	}
	again, _ := os.ReadFile(settingsPath)
	if string(again) != string(data) {
		t.Error("second install changed the file")
	}
}

// TestHookInstallLocalAndOldBareCommand: --local writes
// settings.local.json (not shared with the team); a hook installed by an
// older cuff as a bare "cuff hook claude" is rewritten to the absolute
// path, and the change is told in words.
func TestHookInstallLocalAndOldBareCommand(t *testing.T) {
	e := newHookEnv(t)
	local := filepath.Join(e.dir, ".claude", "settings.local.json")
	os.MkdirAll(filepath.Dir(local), 0o755)
	os.WriteFile(local, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cuff hook claude","timeout":10}]}]}}`), 0o644)
	r := e.run("", "hook", "install", "claude", "--local")
	if r.code != 0 || !strings.Contains(r.stdout, "Updated cuff's hook for 1 event in "+local+": Stop") {
		t.Fatalf("install --local: %+v", r)
	}
	data, _ := os.ReadFile(local)
	if strings.Contains(string(data), `"cuff hook claude"`) || !strings.Contains(string(data), cuffBin+" hook claude") {
		t.Errorf("the bare command stayed:\n%s", data)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".claude", "settings.json")); err == nil {
		t.Error("--local wrote the shared settings.json")
	}
	if r := e.run("", "hook", "install", "claude", "--local", "--user"); r.code != exitUsage || !strings.Contains(r.stderr, "exclude each other") {
		t.Errorf("two places: %+v", r)
	}
}

// TestClaudeHookAfterSessionEnd: an event after SessionEnd is recorded in
// the same session, which ends again; a resumed conversation goes on in
// its session (issue 11 item 5).
func TestClaudeHookAfterSessionEnd(t *testing.T) {
	e := newHookEnv(t)
	e.send("SessionStart", map[string]any{"source": "startup"})
	e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_30", "tool_input": map[string]any{"command": "ls"}})
	e.send("SessionEnd", map[string]any{"reason": "prompt_input_exit"})
	e.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_30", "tool_input": map[string]any{"command": "ls"},
		"tool_response": map[string]any{"stdout": "late\n"}})
	r := e.run("", "record", "list", "--format", "json")
	if n := strings.Count(r.stdout, `"session_id"`); n != 1 || strings.Contains(r.stdout, `"live": true`) || !strings.Contains(r.stdout, `"status": "complete"`) {
		t.Errorf("a late event: %s", r.stdout)
	}
	got := e.calls()
	want := "session_start@<nil> bash_start@toolu_30 bash_run@toolu_30 session_end@<nil> bash_start@toolu_30 bash_run@toolu_30 session_end@<nil>"
	if got != want {
		// the run closed at the end as not run, then its late result: both are what happened
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	e.send("SessionStart", map[string]any{"source": "resume"})
	e.send("UserPromptSubmit", map[string]any{"prompt": "one more thing"})
	r = e.run("", "record", "list", "--format", "json")
	if n := strings.Count(r.stdout, `"session_id"`); n != 1 || !strings.Contains(r.stdout, `"status": "active"`) {
		t.Errorf("resume goes on in the same session: %s", r.stdout)
	}
	evs := e.events()
	if last := evs[len(evs)-1]; last["text"] != "one more thing" {
		t.Errorf("the resumed prompt is not in the session: %v", last)
	}
}

// TestClaudeHookFailsClosedOnBrokenFiles: a policy or settings file cuff
// cannot read makes a shell command ask, naming the file and line, instead
// of letting it through unchecked; other tools get no answer.
func TestClaudeHookFailsClosedOnBrokenFiles(t *testing.T) {
	for name, file := range map[string]struct{ path, text, want string }{
		"policy":   {"policy.yml", "rules:\n  - match: \"rm *\"\n    action: deny\n  - match: x\n    action: maybe\n", "policy.yml:5"},
		"settings": {"settings.yml", "recording:\n  session_mode: weekly\n", "settings.yml:2"},
	} {
		t.Run(name, func(t *testing.T) {
			e := newHookEnv(t)
			os.MkdirAll(filepath.Join(e.dir, ".cuff"), 0o700)
			if err := os.WriteFile(filepath.Join(e.dir, ".cuff", file.path), []byte(file.text), 0o600); err != nil {
				t.Fatal(err)
			}
			r := e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_1",
				"tool_input": map[string]any{"command": "rm -rf build"}})
			p, why := permissionOf(t, r)
			if p != "ask" || !strings.Contains(why, file.want) || !strings.Contains(r.stdout, "systemMessage") {
				t.Errorf("broken %s: %q %q (stdout %s)", file.path, p, why, r.stdout)
			}
			if r.code != 0 {
				t.Errorf("exit %d", r.code)
			}
			r = e.send("PreToolUse", map[string]any{"tool_name": "Read", "tool_use_id": "toolu_2",
				"tool_input": map[string]any{"file_path": "README.md"}})
			if strings.TrimSpace(r.stdout) != "" {
				t.Errorf("a Read got an answer: %s", r.stdout)
			}
		})
	}
}

// TestClaudeHookJoiningMidSessionSkipsHistory: the first event cuff sees
// of a conversation already under way (no SessionStart) does not replay the
// transcript's history; what follows is recorded.
func TestClaudeHookJoiningMidSessionSkipsHistory(t *testing.T) {
	e := newHookEnv(t)
	e.assistant("msg_old", "history from before cuff was installed")
	e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_1",
		"tool_input": map[string]any{"command": "git status"}})
	e.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_1",
		"tool_input": map[string]any{"command": "git status"}, "tool_response": map[string]any{"stdout": "clean", "stderr": ""}})
	e.assistant("msg_new", "now recorded")
	e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_2",
		"tool_input": map[string]any{"command": "ls"}})
	var texts []string
	for _, ev := range e.events() {
		if ev["type"] == "chat_turn" {
			texts = append(texts, fmt.Sprint(ev["text"]))
		}
	}
	if len(texts) != 1 || texts[0] != "now recorded" {
		t.Errorf("chat turns %q, want only the text written after cuff joined", texts)
	}
}

// TestClaudeHookSessionEndWithdrawsItsRequests: a request still waiting
// when the session ends is withdrawn before the end is recorded, the
// command is shown as not run, and a later approval is refused (issue 11
// item 4).
func TestClaudeHookSessionEndWithdrawsItsRequests(t *testing.T) {
	e := newHookEnv(t)
	b := e.watched()
	asked := make(chan result, 1)
	go func() {
		asked <- e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_40",
			"tool_input": map[string]any{"command": "curl -s https://example.com/deploy"}})
	}()
	var id string
	for i := 0; i < 1200 && id == ""; i++ { // 30 s: a slow machine starts the hook late
		if pending, _ := b.Pending(); len(pending) > 0 {
			id = pending[0].ID
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if id == "" {
		t.Fatal("no approval request appeared")
	}
	e.send("SessionEnd", map[string]any{"reason": "prompt_input_exit"})
	r := <-asked
	if p, why := permissionOf(t, r); p != "deny" || !strings.Contains(why, "session ended") {
		t.Errorf("the waiting hook: %q %q", p, why)
	}
	got := e.calls()
	want := "session_start@<nil> approval_request@toolu_40 approval_decision@toolu_40 bash_start@toolu_40 bash_run@toolu_40 session_end@<nil>"
	if got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	late := e.run("", "approve", id)
	if late.code == 0 || !strings.Contains(late.stderr, "withdrawn: the agent's session ended") {
		t.Errorf("a late approval: %+v", late)
	}
}

// TestHookPayloadOverTheLimit: a PostToolUse whose output is bigger than the
// hook's input limit is recorded with what fits (it used to be dropped with
// "unexpected end of JSON input"), and the project's log says the limit.
func TestHookPayloadOverTheLimit(t *testing.T) {
	e := newHookEnv(t)
	e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_big",
		"tool_input": map[string]any{"command": "cat huge.log"}})
	huge := strings.Repeat("a line of a very long log\n", (maxHookInput+(8<<20))/26)
	r := e.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_big",
		"tool_input":    map[string]any{"command": "cat huge.log"},
		"tool_response": map[string]any{"stdout": huge, "stderr": "", "interrupted": false}})
	if r.code != 0 {
		t.Fatalf("hook: %+v", r)
	}
	var run map[string]any
	for _, ev := range e.events() {
		if ev["type"] == "bash_run" && ev["call_id"] == "toolu_big" {
			run = ev
		}
	}
	if run == nil || !strings.HasPrefix(fmt.Sprint(run["stdout"]), "a line of a very long log") {
		t.Fatalf("the run was not recorded with its output: %v", run != nil)
	}
	log, _ := os.ReadFile(filepath.Join(e.dir, ".cuff", "logs", "cuff.log"))
	if !strings.Contains(string(log), "over the limit of 67108864 bytes (64 MB)") {
		t.Errorf("the project's log does not say the limit:\n%.2000s", log)
	}
}
