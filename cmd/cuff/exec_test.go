package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// gitProject is an empty project folder (a git root) for exec tests.
func gitProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// continuousSessions makes the project in dir record every run in one
// session: by default runs without a conversation go to the day's session,
// so a test whose runs fall on both sides of midnight finds two.
func continuousSessions(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, ".cuff"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"), []byte("recording:\n  session_mode: continuous\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runsJSON lists the recorded runs of a project.
func runsJSON(t *testing.T, dir string) []map[string]any {
	t.Helper()
	r := cuff(t, dir, "", "runs", "list", "--format", "json", "--limit", "0")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("runs list json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	return rows
}

func TestExecRunsRecordsAndExitsWithTheCommandsCode(t *testing.T) {
	dir := gitProject(t)
	continuousSessions(t, dir) // one session for all runs, even across midnight
	cases := []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"exec", "echo", "hello", "world"}, 0, "hello world\n", ""},
		{[]string{"exec", "sh", "-c", "echo oops >&2; exit 3"}, 3, "", "oops\n"},
		{[]string{"exec", "--shell", "echo $((6*7))"}, 0, "42\n", ""},
		{[]string{"exec", "no-such-command-xyz"}, 127, "", "CUFF-EXE-001"},
		{[]string{"exec", "--cwd", "/", "--", "true"}, 125, "", "CUFF-EXE-005"},
		{[]string{"exec", "--timeout", "3", "--", "sh", "-c", "echo started; sleep 30"}, 124, "started\n", "timed out"}, // 3 s: the echo must come first even on a loaded machine
		{[]string{"exec", "sh", "-c", "kill -9 $$"}, 137, "", ""},
	}
	for _, c := range cases {
		r := cuff(t, dir, "", c.args...)
		if r.code != c.code || !strings.Contains(r.stdout, c.stdout) || !strings.Contains(r.stderr, c.stderr) {
			t.Errorf("cuff %q: code %d (want %d)\nstdout %q (want %q)\nstderr %q (want %q)", c.args, r.code, c.code,
				r.stdout, c.stdout, r.stderr, c.stderr)
		}
	}
	rows := runsJSON(t, dir)
	if len(rows) != len(cases) {
		t.Fatalf("%d runs recorded, want %d: %v", len(rows), len(cases), rows)
	}
	byCmd := map[string]map[string]any{}
	for _, r := range rows {
		byCmd[r["command"].(string)] = r
	}
	if r := byCmd["echo hello world"]; r == nil || r["exit_code"] != 0.0 || r["success"] != true {
		t.Errorf("echo run %v", r)
	}
	if r := byCmd["no-such-command-xyz"]; r == nil || !strings.HasPrefix(r["error"].(string), "CUFF-EXE-001") {
		t.Errorf("failed start not recorded with its code: %v", r)
	}
	if r := byCmd["true"]; r == nil || !strings.HasPrefix(r["error"].(string), "CUFF-EXE-005") {
		t.Errorf("validation failure not recorded: %v", r)
	}
	var timedOut map[string]any
	for k, r := range byCmd {
		if strings.Contains(k, "sleep 30") {
			timedOut = r
		}
	}
	if timedOut == nil || timedOut["timed_out"] != true || timedOut["exit_code"] != nil {
		t.Errorf("timeout run %v", timedOut)
	}
	// all runs went into one session
	sessions := map[any]bool{}
	for _, r := range rows {
		sessions[r["session_id"]] = true
	}
	if len(sessions) != 1 {
		t.Errorf("runs spread over %d sessions", len(sessions))
	}
}

func TestExecFlagsStopAtTheCommand(t *testing.T) {
	dir := gitProject(t)
	r := cuff(t, dir, "", "exec", "ls", "-la", "--timeout", "5")
	if r.code == 0 || !strings.Contains(r.stderr, "--timeout") {
		// ls itself gets --timeout and rejects it: cuff did not take it
		t.Errorf("ls got cuff's flag? %+v", r)
	}
	r = cuff(t, dir, "", "exec", "go test ./...")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--shell") {
		t.Errorf("one spaced argument: %+v", r)
	}
	r = cuff(t, dir, "", "exec")
	if r.code != exitUsage || !strings.Contains(r.stderr, "missing the command") {
		t.Errorf("no command: %+v", r)
	}
	r = cuff(t, dir, "", "exec", "--env", "NOEQUALS", "--", "true")
	if r.code != exitUsage {
		t.Errorf("bad --env: %+v", r)
	}
	r = cuff(t, dir, "", "exec", "--env", "GREETING=hi there", "--", "sh", "-c", "echo $GREETING")
	if r.stdout != "hi there\n" {
		t.Errorf("--env: %+v", r)
	}
}

func TestExecCorrelationAndConversationSessions(t *testing.T) {
	dir := gitProject(t)
	cuff(t, dir, "", "exec", "--conversation-id", "conv-a", "--run-id", "run-1", "--task-id", "task-9", "--", "true")
	cuff(t, dir, "", "exec", "--conversation-id", "conv-a", "--", "true")
	cuff(t, dir, "", "exec", "--conversation-id", "conv-b", "--", "true")
	rows := runsJSON(t, dir)
	bySession := map[any][]map[string]any{}
	for _, r := range rows {
		bySession[r["session_id"]] = append(bySession[r["session_id"]], r)
	}
	if len(bySession) != 2 {
		t.Fatalf("conversations a and b should have one session each: %v", bySession)
	}
	r := cuff(t, dir, "", "runs", "list", "--run-id", "run-1", "--format", "json")
	var one []map[string]any
	json.Unmarshal([]byte(r.stdout), &one)
	if len(one) != 1 || one[0]["task_id"] != "task-9" || one[0]["conversation_id"] != "conv-a" {
		t.Errorf("--run-id filter: %s", r.stdout)
	}
}

func TestExecInterruptIsForwardedAndRecorded(t *testing.T) {
	dir := gitProject(t)
	cmd := exec.Command(cuffBin, "exec", "--", "sh", "-c", "trap 'echo got-int; exit 130' INT; echo ready; sleep 30 & wait")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "NO_COLOR=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "ready") {
		t.Fatalf("child did not start: %q", buf[:n])
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("cuff exec did not end after SIGINT")
	}
	rows := runsJSON(t, dir)
	if len(rows) != 1 {
		t.Fatalf("runs %v", rows)
	}
	r := cuff(t, dir, "", "runs", "show", rows[0]["id"].(string), "--json")
	if !strings.Contains(r.stdout, `"interrupted": true`) {
		t.Errorf("interrupt not recorded: %s", r.stdout)
	}
}

func TestRunsShowPruneStats(t *testing.T) {
	dir := gitProject(t)
	cuff(t, dir, "", "exec", "--run-id", "old", "--", "sh", "-c", "seq 1 100")
	cuff(t, dir, "", "exec", "--run-id", "keep", "--", "false")
	rows := runsJSON(t, dir)
	var id string
	for _, r := range rows {
		if r["run_id"] == "old" {
			id = r["id"].(string)
		}
	}
	r := cuff(t, dir, "", "runs", "show", id)
	if !strings.Contains(r.stdout, "Command: sh -c 'seq 1 100'") || !strings.Contains(r.stdout, "… 80 more lines") {
		t.Errorf("show:\n%s", r.stdout)
	}
	r = cuff(t, dir, "", "runs", "show", id[len(id)-4:], "--full-output")
	if !strings.Contains(r.stdout, "\n100\n") {
		t.Errorf("show by suffix with full output:\n%s%s", r.stdout, r.stderr)
	}
	r = cuff(t, dir, "", "runs", "show", "e_nope")
	if r.code == 0 || !strings.Contains(r.stderr, "Run 'e_nope' not found") {
		t.Errorf("missing run: %+v", r)
	}
	r = cuff(t, dir, "", "runs", "list", "--failed", "--format", "json")
	if strings.Count(r.stdout, `"id"`) != 1 || !strings.Contains(r.stdout, `"command": "false"`) {
		t.Errorf("--failed: %s", r.stdout)
	}
	r = cuff(t, dir, "", "runs", "list", "--command", "sh -c*", "--format", "json")
	if strings.Count(r.stdout, `"id"`) != 1 {
		t.Errorf("--command glob: %s", r.stdout)
	}
	r = cuff(t, dir, "", "runs", "stats")
	if !strings.Contains(r.stdout, "Total Commands: 2") || !strings.Contains(r.stdout, "Storage:") {
		t.Errorf("stats:\n%s", r.stdout)
	}
	r = cuff(t, dir, "", "runs", "prune", "--run-id", "old", "--dry-run")
	if !strings.Contains(r.stdout, "would delete 1 run ") {
		t.Errorf("prune dry run: %+v", r)
	}
	r = cuff(t, dir, "", "runs", "prune", "--run-id", "old", "--force")
	if !strings.Contains(r.stdout, "Deleted 1 run ") {
		t.Errorf("prune: %+v", r)
	}
	rows = runsJSON(t, dir)
	if len(rows) != 1 || rows[0]["run_id"] != "keep" {
		t.Errorf("after prune: %v", rows)
	}
	// the session still takes appends after its file was rewritten
	cuff(t, dir, "", "exec", "true")
	if rows = runsJSON(t, dir); len(rows) != 2 {
		t.Errorf("append after prune: %v", rows)
	}
	// one run, by the id runs list shows
	r = cuff(t, dir, "", "runs", "prune", "--run-id", rows[0]["id"].(string), "--force")
	if !strings.Contains(r.stdout, "Deleted 1 run ") {
		t.Errorf("prune by the run's own id: %+v", r)
	}
	if rows = runsJSON(t, dir); len(rows) != 1 || rows[0]["run_id"] != "keep" {
		t.Errorf("after pruning one run: %v", rows)
	}
}

func TestExecUseShellSetting(t *testing.T) {
	dir := gitProject(t)
	os.MkdirAll(filepath.Join(dir, ".cuff"), 0o700)
	os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"), []byte("execution:\n  use_shell: true\n"), 0o600)
	// Until trusted, the loosening does not apply: argv mode runs "echo" with
	// the words as they are.
	if r := cuff(t, dir, "", "exec", "echo $((2+3)) | sed s/5/five/"); r.stdout == "five\n" {
		t.Errorf("an untrusted use_shell applied: %+v", r)
	}
	trustProject(t, dir)
	r := cuff(t, dir, "", "exec", "echo $((2+3)) | sed s/5/five/")
	if r.code != 0 || r.stdout != "five\n" {
		t.Errorf("use_shell: %+v", r)
	}
	// several words keep their quoting: no splitting, no injection
	r = cuff(t, dir, "", "exec", "touch", "my file")
	if _, err := os.Stat(filepath.Join(dir, "my file")); err != nil || r.code != 0 {
		t.Errorf("a spaced argument was split: %+v", r)
	}
	r = cuff(t, dir, "", "exec", "echo", "a;echo injected")
	if r.stdout != "a;echo injected\n" {
		t.Errorf("an argument ran as shell: %q", r.stdout)
	}
}

// TestExecRunsWhenItCannotRecord: a settings file cuff cannot read, or a
// .cuff that is a file, costs the recording, never the command.
func TestExecRunsWhenItCannotRecord(t *testing.T) {
	for name, breakIt := range map[string]func(dir string) error{
		"bad settings": func(dir string) error {
			os.Mkdir(filepath.Join(dir, ".cuff"), 0o700)
			return os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"), []byte("recording:\n  session_mode: weekly\n"), 0o600)
		},
		".cuff is a file": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, ".cuff"), []byte("not a store"), 0o600)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := gitProject(t)
			if err := breakIt(dir); err != nil {
				t.Fatal(err)
			}
			r := cuff(t, dir, "", "exec", "sh", "-c", "echo still-runs; exit 3")
			if r.code != 3 || r.stdout != "still-runs\n" || !strings.Contains(r.stderr, "this run is not recorded") {
				t.Errorf("%+v", r)
			}
		})
	}
}

// TestExecSaysWhichVariablesItWithheld: a failing command is told which
// secret-looking variables it did not get; a succeeding one is left alone.
func TestExecSaysWhichVariablesItWithheld(t *testing.T) {
	dir := gitProject(t)
	run := func(script string) result {
		return cuffEnv(t, dir, "", []string{"HOME=" + t.TempDir(), "NO_COLOR=1", "GH_TOKEN=ghp_secret", "MY_API_KEY=k"},
			"exec", "sh", "-c", script)
	}
	r := run(`echo "[$GH_TOKEN]"; exit 4`)
	if r.code != 4 || r.stdout != "[]\n" || !strings.Contains(r.stderr, "not passed to the command: GH_TOKEN, MY_API_KEY") {
		t.Errorf("failing run: %+v", r)
	}
	if r := run("true"); r.code != 0 || r.stderr != "" {
		t.Errorf("succeeding run: %+v", r)
	}
}

// TestRunsShowIsInert: control characters and escape sequences a command
// printed are shown as text, never sent to the terminal.
func TestRunsShowIsInert(t *testing.T) {
	dir := gitProject(t)
	if r := cuff(t, dir, "", "exec", "printf", `evil\rgood\bX\033]0;owned\007Y\033[31mred\n`); r.code != 0 {
		t.Fatalf("exec: %+v", r)
	}
	rows := runsJSON(t, dir)
	if len(rows) != 1 {
		t.Fatalf("runs %v", rows)
	}
	r := cuff(t, dir, "", "runs", "show", rows[0]["id"].(string))
	if strings.ContainsAny(r.stdout, "\r\b\x07\x1b") {
		t.Errorf("raw control characters reach the terminal: %q", r.stdout)
	}
	if !strings.Contains(r.stdout, `evil\x0dgood\x08X\x1b]0;owned\x07Y\x1b[31mred`) {
		t.Errorf("the output is not shown as text: %q", r.stdout)
	}
}
