package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/recorder/sandbox"
)

// hookAnswer is the part of a PreToolUse answer these tests read.
type hookAnswer struct {
	HookSpecificOutput *struct {
		PermissionDecision string          `json:"permissionDecision"`
		UpdatedInput       json.RawMessage `json:"updatedInput"`
	} `json:"hookSpecificOutput"`
}

// preToolUse sends a Bash PreToolUse to the hook and returns its answer.
func (e *sandboxEnv) preToolUse(t *testing.T, env []string, id string, input map[string]any) hookAnswer {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{"session_id": "0b7c1a2e-5d6f-4a3b-9c8d-1e2f3a4b5c6d", "transcript_path": "",
		"cwd": e.proj, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": input})
	r := cuffEnv(t, e.proj, string(payload), append(append([]string(nil), e.env...), env...), "hook", "claude")
	if r.code != 0 {
		t.Fatalf("hook: %+v", r)
	}
	var a hookAnswer
	if strings.TrimSpace(r.stdout) != "" {
		if err := json.Unmarshal([]byte(r.stdout), &a); err != nil {
			t.Fatalf("hook answer %q: %v", r.stdout, err)
		}
	}
	return a
}

// claudeRun runs a Bash tool input the way Claude Code 2.x does: bash -c -l
// with the command eval'd and, when it succeeds, the working directory
// written to a file, which the next command starts in.
type claudeShell struct {
	e   *sandboxEnv
	cwd string
	// snapshot, when set, is sourced first, as Claude Code sources its
	// snapshot of the user's shell functions, aliases and options.
	snapshot string
	// shell runs the line ("bash" when empty).
	shell string
}

type shellRun struct {
	stdout, stderr string
	code           int
}

func (s *claudeShell) run(t *testing.T, command string) shellRun {
	t.Helper()
	cwdFile := filepath.Join(s.e.tmp, "claude-cwd")
	os.Remove(cwdFile)
	script := "eval " + sandbox.Quote(command) + " && pwd -P >| " + sandbox.Quote(cwdFile)
	if s.snapshot != "" {
		script = "source " + sandbox.Quote(s.snapshot) + " 2>/dev/null || true && " + script
	}
	shell := s.shell
	if shell == "" {
		shell = "bash"
	}
	cmd := exec.Command(shell, "-c", "-l", script)
	cmd.Dir = s.cwd
	cmd.Env = append(os.Environ(), s.e.env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	cmd.Stdin = null
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(cwdFile); err == nil {
		s.cwd = strings.TrimSpace(string(b))
	}
	return shellRun{out.String(), errOut.String(), code}
}

// rewritten asks the hook about command and returns what Claude Code would
// run: the updatedInput's command when cuff allows it sandboxed.
func (s *claudeShell) rewritten(t *testing.T, command string) string {
	t.Helper()
	a := s.e.preToolUse(t, nil, "toolu_x", map[string]any{"command": command, "description": "d", "timeout": 120000})
	if a.HookSpecificOutput == nil || a.HookSpecificOutput.PermissionDecision != "allow" {
		t.Fatalf("%q: not allowed: %+v", command, a)
	}
	var in struct {
		Command     string `json:"command"`
		Description string `json:"description"`
		Timeout     int    `json:"timeout"`
	}
	if err := json.Unmarshal(a.HookSpecificOutput.UpdatedInput, &in); err != nil || in.Command == "" {
		t.Fatalf("%q: no updatedInput: %s", command, a.HookSpecificOutput.UpdatedInput)
	}
	if in.Description != "d" || in.Timeout != 120000 {
		t.Errorf("updatedInput lost the other fields: %s", a.HookSpecificOutput.UpdatedInput)
	}
	return in.Command
}

// TestHookRewriteKeepsClaudeCodesShellSemantics: an allowed command comes
// back as updatedInput that runs it in the sandbox; run the way Claude Code
// runs it, a cd still moves the next command, exit codes and the two
// output streams are the command's, and a write outside the work tree
// fails with nothing changed.
func TestHookRewriteKeepsClaudeCodesShellSemantics(t *testing.T) {
	e := newSandboxEnv(t)
	sub := filepath.Join(e.proj, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	sh := &claudeShell{e: e, cwd: e.proj}

	r := sh.run(t, sh.rewritten(t, "cd sub"))
	if r.code != 0 || sh.cwd != sub {
		t.Fatalf("cd sub: %+v, cwd %s", r, sh.cwd)
	}
	r = sh.run(t, sh.rewritten(t, "pwd"))
	if r.code != 0 || r.stdout != sub+"\n" {
		t.Errorf("pwd after cd sub: %+v", r)
	}
	r = sh.run(t, sh.rewritten(t, "cd .. && ls -d sub && echo to-stderr >&2"))
	if r.code != 0 || r.stdout != "sub\n" || r.stderr != "to-stderr\n" || sh.cwd != e.proj {
		t.Errorf("cd .. && ls: %+v, cwd %s", r, sh.cwd)
	}
	r = sh.run(t, sh.rewritten(t, "ls no-such-file"))
	if r.code != 2 || !strings.Contains(r.stderr, "No such file") {
		t.Errorf("a failing command keeps its exit code: %+v", r)
	}
	r = sh.run(t, sh.rewritten(t, "cat <<'EOF'\nline 'one'\n  $HOME \"two\"\nEOF\ngrep -c x <<< \"x\""))
	if r.code != 0 || r.stdout != "line 'one'\n  $HOME \"two\"\n1\n" {
		t.Errorf("here-documents and quotes: %+v", r)
	}
	// The gate asks about a write it can see; code it cannot read (a
	// makefile's recipe) is what the sandbox stops.
	bashrc := filepath.Join(e.home, ".bashrc")
	if err := os.WriteFile(filepath.Join(e.proj, "Makefile"), []byte("all:\n\techo a > in-tree\n\tls > $(HOME)/.bashrc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = sh.run(t, sh.rewritten(t, "make"))
	if r.code == 0 || !strings.Contains(r.stderr, "Permission denied") {
		t.Errorf("a write to ~/.bashrc went through: %+v", r)
	}
	if _, err := os.Stat(bashrc); err == nil {
		t.Error("~/.bashrc was written")
	}
	if _, err := os.Stat(filepath.Join(e.proj, "in-tree")); err != nil {
		t.Errorf("the write in the work tree: %v", err)
	}
	// A background process does not hold the command up, as without cuff.
	r = sh.run(t, sh.rewritten(t, "(sleep 30 >/dev/null 2>&1 &) ; echo started"))
	if r.code != 0 || r.stdout != "started\n" {
		t.Errorf("background: %+v", r)
	}
}

// TestHookWithoutSandboxLeavesCodeToTheAgent: without Landlock (simulated),
// a command that runs code the agent may have written gets no decision,
// while a read-only command is still allowed, unrewritten; cuff health
// says the sandbox is off and why.
func TestHookWithoutSandboxLeavesCodeToTheAgent(t *testing.T) {
	e := newSandboxEnv(t)
	off := []string{sandbox.SimulateEnv + "=0"}
	for _, cmd := range []string{"go test ./...", "make", "npm test", "./gradlew build", "pytest"} {
		if a := e.preToolUse(t, off, "toolu_1", map[string]any{"command": cmd}); a.HookSpecificOutput != nil {
			t.Errorf("%q without a sandbox: %s, want no decision", cmd, a.HookSpecificOutput.PermissionDecision)
		}
		a := e.preToolUse(t, nil, "toolu_2", map[string]any{"command": cmd})
		if a.HookSpecificOutput == nil || a.HookSpecificOutput.PermissionDecision != "allow" || len(a.HookSpecificOutput.UpdatedInput) == 0 {
			t.Errorf("%q with the sandbox: %+v, want allow with updatedInput", cmd, a.HookSpecificOutput)
		}
	}
	a := e.preToolUse(t, off, "toolu_3", map[string]any{"command": "git status"})
	if a.HookSpecificOutput == nil || a.HookSpecificOutput.PermissionDecision != "allow" || len(a.HookSpecificOutput.UpdatedInput) != 0 {
		t.Errorf("git status without a sandbox: %+v", a.HookSpecificOutput)
	}
	r := cuffEnv(t, e.proj, "", append(e.env, off...), "health", "--format", "text")
	if !strings.Contains(r.stdout, "sandbox: off (gate.sandbox: auto): Landlock limited to ABI 0") {
		t.Errorf("health: %+v", r)
	}
	r = cuffEnv(t, e.proj, "", append(e.env, off...), "check", "make")
	if r.code != 3 || !strings.Contains(r.stdout, "outside the sandbox: Landlock limited to ABI 0") {
		t.Errorf("check: %+v", r)
	}
	r = e.run(t, e.proj, "health", "--format", "json")
	if !strings.Contains(r.stdout, `"on": true`) {
		t.Errorf("health with the sandbox: %+v", r)
	}
	userSettings := func(yml string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(e.home, ".config", "cuff"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(e.home, ".config", "cuff", "settings.yml"), []byte(yml), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// gate.sandbox: off is the same as no Landlock.
	userSettings("gate:\n  sandbox: off\n")
	if a := e.preToolUse(t, nil, "toolu_5", map[string]any{"command": "make"}); a.HookSpecificOutput != nil {
		t.Errorf("make with gate.sandbox off: %s, want no decision", a.HookSpecificOutput.PermissionDecision)
	}
	if r := e.run(t, e.proj, "health", "--format", "text"); !strings.Contains(r.stdout, "sandbox: off (gate.sandbox: off): gate.sandbox is off") {
		t.Errorf("health with gate.sandbox off: %+v", r)
	}
	// gate.sandbox: always asks instead of allowing without a sandbox.
	userSettings("gate:\n  sandbox: always\n")
	if a := e.preToolUse(t, off, "toolu_4", map[string]any{"command": "git status"}); a.HookSpecificOutput == nil || a.HookSpecificOutput.PermissionDecision != "ask" {
		t.Errorf("gate.sandbox always without a sandbox: %+v", a.HookSpecificOutput)
	}
	r = cuffEnv(t, e.proj, "", append(e.env, off...), "health", "--format", "text")
	if r.code == 0 || !strings.Contains(r.stdout, "unhealthy") {
		t.Errorf("health with gate.sandbox always and no sandbox: %+v", r)
	}
}

// TestHookRecordsWhatTheSandboxStopped: the result of a command the hook
// sent into the sandbox is recorded as confined, with the write the
// sandbox stopped read from its error output.
func TestHookRecordsWhatTheSandboxStopped(t *testing.T) {
	e := newSandboxEnv(t)
	bashrc := filepath.Join(e.home, ".bashrc")
	command := "make"
	a := e.preToolUse(t, nil, "toolu_make", map[string]any{"command": command})
	if a.HookSpecificOutput == nil || len(a.HookSpecificOutput.UpdatedInput) == 0 {
		t.Fatalf("make not sent into the sandbox: %+v", a)
	}
	// Claude Code reports the input it ran: the rewrite.
	var ran map[string]any
	if err := json.Unmarshal(a.HookSpecificOutput.UpdatedInput, &ran); err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"session_id": "0b7c1a2e-5d6f-4a3b-9c8d-1e2f3a4b5c6d", "transcript_path": "",
		"cwd": e.proj, "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": "toolu_make",
		"tool_input": ran, "error": "Exit code 2\n/bin/sh: 1: cannot create " + bashrc + ": Permission denied\nmake: *** [Makefile:2: all] Error 2"})
	if r := cuffEnv(t, e.proj, string(payload), e.env, "hook", "claude"); r.code != 0 {
		t.Fatalf("PostToolUseFailure: %+v", r)
	}
	run := lastBashRun(t, e.proj)
	if run.Sandbox == nil || !run.Sandbox.Confined || len(run.Sandbox.Denied) != 1 || run.Sandbox.Denied[0].Path != bashrc {
		t.Errorf("recorded sandbox: %+v", run.Sandbox)
	}
	if run.Error == nil || run.Error.Code != sandbox.CodeDenied || !strings.Contains(run.Error.Message, "write "+bashrc) {
		t.Errorf("recorded error: %+v", run.Error)
	}
}

// TestHookRewriteCannotRedirectClaudeCodesCwdFile: after every command,
// Claude Code's own shell (outside the sandbox) writes its working
// directory to $TMPDIR/claude-ID-cwd, a name the command can read from its
// ancestors' command lines. A sandboxed command that plants a link of that
// name in the shared temporary directory, and ends in a directory whose
// name is a shell command, would have Claude Code write that command into
// ~/.bashrc: code that runs outside the sandbox at the next login. Shared
// temporary folders take no links, and nothing changes outside.
func TestHookRewriteCannotRedirectClaudeCodesCwdFile(t *testing.T) {
	e := newSandboxEnv(t)
	bashrc := filepath.Join(e.home, ".bashrc")
	if err := os.WriteFile(bashrc, []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(e.proj, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh := &claudeShell{e: e, cwd: e.proj}
	// What a command needs a temporary folder for still works: its TMPDIR
	// is a folder of its own, where links, sockets and pipes can be made.
	write("Makefile", "all:\n\t@cd \"$$(mktemp -d)\" && ln -s f l && mkfifo p && echo \"$$TMPDIR\"\n")
	r := sh.run(t, sh.rewritten(t, "make"))
	if r.code != 0 || strings.TrimSpace(r.stdout) != filepath.Join(e.home, ".cache", "cuff", "sandbox-tmp") {
		t.Errorf("links in the sandbox's own TMPDIR: %+v", r)
	}

	marker := filepath.Join(e.home, "pwned")
	write("plant.sh", `pid=$$
while [ "$pid" -gt 1 ]; do
  f=$(tr '\0' '\n' < /proc/$pid/cmdline | sed -n "s/.*pwd -P >| '\{0,1\}\([^' ]*claude[^' ]*\).*/\1/p" | head -n 1)
  [ -n "$f" ] && break
  pid=$(awk '{print $4}' /proc/$pid/stat)
done
echo "cwd file: $f"
ln -s "$HOME/.bashrc" "$f"
d="$PWD/x
touch `+marker+`;#"
mkdir -p "$d" && printf %s "$d" > .d
`)
	write("Makefile", "all:\n\t@sh plant.sh\n")
	r = sh.run(t, sh.rewritten(t, `make && cd "$(cat .d)"`))
	if !strings.Contains(r.stdout, "cwd file: "+filepath.Join(e.tmp, "claude-cwd")) {
		t.Fatalf("the attack did not find Claude Code's cwd file: %+v", r)
	}
	if b, _ := os.ReadFile(bashrc); string(b) != "# mine\n" {
		t.Errorf("~/.bashrc is now %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(e.tmp, "claude-cwd")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		t.Error("a link was planted in the shared temporary directory")
	}
	if !strings.Contains(r.stderr, "Permission denied") {
		t.Errorf("the link should fail with a permission error: %+v", r)
	}
}

// postToolUse sends a Bash PostToolUse for the command that ran.
func (e *sandboxEnv) postToolUse(t *testing.T, id, command string) {
	t.Helper()
	payload, _ := json.Marshal(map[string]any{"session_id": "0b7c1a2e-5d6f-4a3b-9c8d-1e2f3a4b5c6d", "transcript_path": "",
		"cwd": e.proj, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id,
		"tool_input": map[string]any{"command": command}, "tool_response": map[string]any{"stdout": "", "stderr": ""}})
	if r := cuffEnv(t, e.proj, string(payload), e.env, "hook", "claude"); r.code != 0 {
		t.Fatalf("PostToolUse: %+v", r)
	}
}

// TestHookRecordsWhatRanNotWhatLooksLikeARewrite: a command the agent
// shaped like cuff's rewrite (a "cuff sandbox --shell 'ls'" that is only
// an echo, and a curl) is not sandboxed by anyone; once it ran (a person
// approved it, or Claude Code's own flow let it through) the recording
// must show it as it ran, unconfined, not as the harmless line inside.
// cuff's own rewrite is still recorded as the agent's command, confined.
func TestHookRecordsWhatRanNotWhatLooksLikeARewrite(t *testing.T) {
	e := newSandboxEnv(t)
	fake := `{ __cuff_cd=$(echo sandbox --shell 'ls' >/dev/null; touch "$HOME/pwned"); } 4>&1`
	a := e.preToolUse(t, nil, "toolu_fake", map[string]any{"command": fake})
	if a.HookSpecificOutput != nil && a.HookSpecificOutput.PermissionDecision == "allow" && len(a.HookSpecificOutput.UpdatedInput) == 0 {
		t.Fatalf("allowed unconfined: %+v", a.HookSpecificOutput)
	}
	e.postToolUse(t, "toolu_fake", fake)
	run := lastBashRun(t, e.proj)
	if run.Command != fake || run.Sandbox != nil {
		t.Errorf("recorded %q, sandbox %+v; want the command as it ran, unconfined", run.Command, run.Sandbox)
	}

	// The same without a PreToolUse (the hook was installed mid-call).
	e.postToolUse(t, "toolu_unseen", fake)
	if run := lastBashRun(t, e.proj); run.Command != fake || run.Sandbox != nil {
		t.Errorf("unseen call: recorded %q, sandbox %+v", run.Command, run.Sandbox)
	}

	// cuff's own rewrite: the agent's command, confined.
	sh := &claudeShell{e: e, cwd: e.proj}
	wrapped := sh.rewritten(t, "make")
	e.postToolUse(t, "toolu_x", wrapped)
	if run := lastBashRun(t, e.proj); run.Command != "make" || run.Sandbox == nil || !run.Sandbox.Confined {
		t.Errorf("cuff's rewrite: recorded %q, sandbox %+v", run.Command, run.Sandbox)
	}
	// Answered with the rewrite, but what ran was the command itself (the
	// rewrite was not applied): not confined.
	sh.rewritten(t, "make")
	e.postToolUse(t, "toolu_x", "make")
	if run := lastBashRun(t, e.proj); run.Command != "make" || run.Sandbox != nil {
		t.Errorf("the rewrite not applied: recorded %q, sandbox %+v", run.Command, run.Sandbox)
	}
}
