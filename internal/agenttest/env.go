package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RunTimeout bounds one agent run: only reached when something hangs, on a
// loaded 2-core machine.
const RunTimeout = 3 * time.Minute

// Env is a private world for one test: a home of its own (Claude Code's
// and Codex's configuration, cuff's state directory under it), a project
// (a git repository the agent works in) and a temporary directory. Nothing
// reaches the network beyond 127.0.0.1: proxies point at a closed port.
type Env struct {
	t testing.TB
	// Home is HOME; Claude Code's config is Home/.claude, Codex's
	// Home/.codex, cuff's state Home/.local/state/cuff.
	Home string
	// Project is the agent's working directory, a git repository.
	Project string
	// Tmp is TMPDIR.
	Tmp string
	// Vars are extra environment variables for every program started.
	Vars []string
}

// New makes a private world for a test.
func New(t testing.TB) *Env {
	t.Helper()
	root := t.TempDir()
	e := &Env{t: t, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project"), Tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{e.Home, e.Project, e.Tmp, e.ClaudeDir(), e.CodexHome()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	e.WriteFile(filepath.Join(e.Home, ".gitconfig"), "[user]\n\tname = e2e\n\temail = e2e@example.invalid\n[init]\n\tdefaultBranch = main\n")
	if out, err := e.Command("git", "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return e
}

// ClaudeDir is CLAUDE_CONFIG_DIR.
func (e *Env) ClaudeDir() string { return filepath.Join(e.Home, ".claude") }

// CodexHome is CODEX_HOME.
func (e *Env) CodexHome() string { return filepath.Join(e.Home, ".codex") }

// StateDir is cuff's per-user state directory (approvals, watchers).
func (e *Env) StateDir() string { return filepath.Join(e.Home, ".local", "state", "cuff") }

// Store is the project's cuff store.
func (e *Env) Store() string { return filepath.Join(e.Project, ".cuff") }

// Environ is the environment of every program the test starts: the built
// cuff first on PATH, private home and temp, telemetry and updates off,
// proxies at a closed port so nothing leaves 127.0.0.1.
func (e *Env) Environ() []string {
	path := "/usr/local/bin:/usr/bin:/bin"
	if p := os.Getenv("PATH"); p != "" {
		path = p
	}
	if cfg.cuff != "" {
		path = cfg.cuff + string(os.PathListSeparator) + path
	}
	env := []string{
		"PATH=" + path, "HOME=" + e.Home, "TMPDIR=" + e.Tmp, "USER=e2e", "LOGNAME=e2e", "SHELL=/bin/bash",
		"LANG=C.UTF-8", "TZ=UTC", "TERM=xterm-256color", "NO_COLOR=1", "GIT_CONFIG_NOSYSTEM=1",
		"CLAUDE_CONFIG_DIR=" + e.ClaudeDir(), "CODEX_HOME=" + e.CodexHome(),
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9",
		"https_proxy=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
	return append(env, e.Vars...)
}

// EnvLine is Environ as an `env -i …` shell prefix, for a command line run
// in tmux.
func (e *Env) EnvLine() string {
	words := []string{"env", "-i"}
	for _, kv := range e.Environ() {
		words = append(words, quote(e.t, kv))
	}
	return strings.Join(words, " ")
}

// Command is a program run in the project with the test's environment.
func (e *Env) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = e.Project
	cmd.Env = e.Environ()
	return cmd
}

// WriteFile writes a file, making its directory.
func (e *Env) WriteFile(path, content string) {
	e.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// Output is what one program run printed, and how it ended.
type Output struct {
	Stdout, Stderr string
	Code           int
}

// Cuff runs the built cuff in the project and returns what it printed.
func (e *Env) Cuff(args ...string) Output {
	e.t.Helper()
	return e.run(e.Command(CuffBin(e.t), args...), "")
}

// CuffStdin is Cuff with stdin.
func (e *Env) CuffStdin(stdin string, args ...string) Output {
	e.t.Helper()
	return e.run(e.Command(CuffBin(e.t), args...), stdin)
}

func (e *Env) run(cmd *exec.Cmd, stdin string) Output {
	e.t.Helper()
	var out, errOut bytes.Buffer
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		e.t.Fatalf("run %v: %v", cmd.Args, err)
	}
	return Output{out.String(), errOut.String(), code}
}

// Proc is an agent started in the background.
type Proc struct {
	t      testing.TB
	cmd    *exec.Cmd
	out    bytes.Buffer
	errOut bytes.Buffer
	done   chan struct{}
	cancel context.CancelFunc
}

// start runs cmd until it exits or RunTimeout passes; the test's end kills
// it if it still runs.
func (e *Env) start(vars []string, name string, args ...string) *Proc {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = e.Project, append(e.Environ(), vars...)
	cmd.WaitDelay = 5 * time.Second
	p := &Proc{t: e.t, cmd: cmd, done: make(chan struct{}), cancel: cancel}
	cmd.Stdout, cmd.Stderr = &p.out, &p.errOut
	if err := cmd.Start(); err != nil {
		cancel()
		e.t.Fatalf("start %s: %v", name, err)
	}
	go func() { _ = cmd.Wait(); close(p.done) }()
	e.t.Cleanup(func() { p.cancel(); <-p.done })
	return p
}

// Pid is the agent's process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the agent has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Wait waits for the agent to exit and returns what it printed.
func (p *Proc) Wait() Output {
	p.t.Helper()
	<-p.done
	if errors.Is(p.cmd.Err, context.DeadlineExceeded) {
		p.t.Fatalf("%s did not finish within %v:\n%s\n%s", p.cmd.Path, RunTimeout, p.out.String(), p.errOut.String())
	}
	return Output{p.out.String(), p.errOut.String(), p.cmd.ProcessState.ExitCode()}
}

// Kill ends the agent at once (SIGKILL), as a crash would.
func (p *Proc) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// decodeLines decodes JSON lines, skipping what is not JSON.
func decodeLines(s string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(s, "\n") {
		var v map[string]any
		if json.Unmarshal([]byte(line), &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// str reads a string field from decoded JSON, "" when absent.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// mustJSON encodes v or fails the test.
func (e *Env) mustJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		e.t.Fatalf("encode %T: %v", v, err)
	}
	return string(b)
}
