package scripts

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/recorder/runner"
)

// run prepares and runs a request for real.
func run(t *testing.T, s *Set, req Request) (runner.Command, runner.Result, error) {
	t.Helper()
	c, _, err := s.Command(req, runner.Env{})
	if err != nil {
		return c, Refused(err), err
	}
	return c, runner.Run(context.Background(), c), nil
}

func TestRunAScriptWithArgsEnvAndWorkingDirectory(t *testing.T) {
	dir := tree(t, map[string]string{
		"scripts/show.sh": "#!/bin/sh\n# Show\necho \"args=$*\"; echo \"pwd=$(pwd)\"; echo \"CI=$CI LEVEL=$LEVEL EXTRA=$EXTRA\"\n",
		"work/.keep":      "",
	})
	cfg := Config{Root: dir, Patterns: []string{"scripts/*.sh"}, Environment: map[string]string{"CI": "true", "LEVEL": "info"}}
	s := mustLoad(t, cfg)
	c, res, err := run(t, s, Request{Script: "script_scripts_show", Args: []string{"a b", "--flag=1", "x.txt"},
		Env: map[string]string{"LEVEL": "debug", "EXTRA": "yes"}})
	if err != nil || !res.Success() {
		t.Fatalf("run: %v %+v", err, res.Err)
	}
	want := "args=a b --flag=1 x.txt\npwd=" + dir + "\nCI=true LEVEL=debug EXTRA=yes\n"
	if real, _ := filepath.EvalSymlinks(dir); real != dir {
		want = strings.Replace(want, dir, real, 1)
	}
	if res.Stdout.Text != want {
		t.Errorf("stdout %q, want %q", res.Stdout.Text, want)
	}
	if got := strings.Join(c.Argv, " "); got != "/bin/sh ./scripts/show.sh a b --flag=1 x.txt" {
		t.Errorf("argv %q", got)
	}
	if c.Timeout != DefaultTimeout {
		t.Errorf("timeout %v", c.Timeout)
	}
	// working_directory is relative to the base directory.
	cfg.WorkingDirectory = "work"
	s = mustLoad(t, cfg)
	c, res, _ = run(t, s, Request{Script: "scripts/show.sh"})
	if !strings.Contains(res.Stdout.Text, "/work\n") || c.Argv[1] != filepath.Join(dir, "scripts/show.sh") {
		t.Errorf("working directory: %q argv %q", res.Stdout.Text, c.Argv)
	}
	// A working directory outside the project is refused by the runner.
	cfg.WorkingDirectory = "/"
	s = mustLoad(t, cfg)
	_, res, _ = run(t, s, Request{Script: "scripts/show.sh"})
	if res.Err == nil || res.Err.Code != runner.CodeBadWorkDir || res.Started() {
		t.Errorf("outside working directory: %+v", res.Err)
	}
}

func TestInterpretersRunForReal(t *testing.T) {
	dir := tree(t, map[string]string{
		// the shebang beats the .sh default (/bin/sh), and passes its argument
		"a.sh": "#!/bin/sh -u\necho \"shebang ${0##*/}\"\n",
		// configured multi-word interpreter; no shebang, no execute bit
		"b.task": "echo \"configured $1\"\n",
		// extension default, not executable
		"c.sh": "echo \"default sh\"\n",
		// direct execution of an executable without extension
		"d": "#!/bin/sh\necho direct\n",
	})
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"*"}, Interpreters: map[string]string{".task": "/bin/sh -e"}})
	for ref, want := range map[string]string{"a.sh": "shebang a.sh\n", "b.task": "configured x\n", "c.sh": "default sh\n", "d": "direct\n"} {
		c, res, err := run(t, s, Request{Script: ref, Args: []string{"x"}})
		if err != nil || res.Stdout.Text != want {
			t.Errorf("%s: argv %q, stdout %q, err %v %+v", ref, c.Argv, res.Stdout.Text, err, res.Err)
		}
	}
	c, _, _ := s.Command(Request{Script: "b.task"}, runner.Env{})
	if c.Argv[0] != "/bin/sh" || c.Argv[1] != "-e" || c.Argv[2] != "./b.task" {
		t.Errorf("multi-word interpreter argv %q", c.Argv)
	}
}

func TestRunFailuresHaveTheDocumentedMessages(t *testing.T) {
	dir := tree(t, map[string]string{
		"scripts/fail.sh":   "#!/bin/sh\necho out; echo err >&2; exit 3\n",
		"scripts/slow.sh":   "#!/bin/sh\necho started; sleep 30\n",
		"scripts/plain":     "echo not executable\n",
		"scripts/noexec.sh": "echo fine through its interpreter\n",
		"scripts/gone.py":   "#!/nonexistent/cuff-no-such-interpreter\n",
	})
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"scripts/*"}})
	c, res, _ := run(t, s, Request{Script: "scripts/fail.sh"})
	if o := Outcome(&c, &res); o == nil || o.Message != "Script failed with exit code 3" || o.Kind != KindFailed ||
		res.Stdout.Text != "out\n" || res.Stderr.Text != "err\n" {
		t.Errorf("non-zero exit: %v %+v", o, res)
	}
	c, res, _ = run(t, s, Request{Script: "scripts/slow.sh", Timeout: time.Second})
	if o := Outcome(&c, &res); o == nil || o.Message != "Script timed out after 1 seconds" || !res.TimedOut || res.Stdout.Text != "started\n" {
		t.Errorf("timeout: %v %+v", o, res)
	}
	c, res, _ = run(t, s, Request{Script: "scripts/slow.sh", Timeout: 1500 * time.Millisecond})
	if o := Outcome(&c, &res); o == nil || o.Message != "Script timed out after 1.5 seconds" {
		t.Errorf("fractional timeout: %v", o)
	}
	_, res, err := run(t, s, Request{Script: "scripts/plain"})
	if kindOf(err) != KindPermission || err.Error() != "Permission denied: scripts/plain" || res.ExitStatus() != runner.ExitNotExecutable {
		t.Errorf("not executable, no interpreter: %v", err)
	}
	if _, res, err := run(t, s, Request{Script: "scripts/noexec.sh"}); err != nil || !res.Success() {
		t.Errorf("not executable but with an interpreter: %v %+v", err, res.Err)
	}
	c, res, _ = run(t, s, Request{Script: "scripts/gone.py"})
	if o := Outcome(&c, &res); o == nil || o.Kind != KindStart || res.ExitStatus() != runner.ExitNotFound {
		t.Errorf("missing interpreter: %v %+v", o, res.Err)
	}
	c, res, _ = run(t, s, Request{Script: "scripts/fail.sh", Args: []string{"$(id)"}})
	if res.Started() || res.Err == nil || res.Err.Message != "Argument contains dangerous characters: {'$', '(', ')'}" {
		t.Errorf("dangerous argument ran: %+v", res)
	}
	if c.Argv[0] != "/bin/sh" || c.Argv[len(c.Argv)-1] != "$(id)" {
		t.Errorf("refused command not filled in for the record: %q", c.Argv)
	}
	_, res, _ = run(t, s, Request{Script: "scripts/fail.sh", Env: map[string]string{"LD_PRELOAD": "/tmp/x.so"}})
	if res.Started() || res.Err.Message != "Blocked environment variables: {'LD_PRELOAD'}" {
		t.Errorf("blocked env ran: %+v", res)
	}
	if _, _, err := run(t, s, Request{Script: "scripts/fail.sh", Timeout: -time.Second}); kindOf(err) != KindInvalid {
		t.Errorf("negative timeout: %v", err)
	}
}

func TestRequireExecutableRefusesScriptsWithoutTheBit(t *testing.T) {
	dir := tree(t, map[string]string{"scripts/a.sh": "echo a\n", "scripts/b.sh": "#!/bin/sh\necho b\n"})
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"scripts/*.sh"}, RequireExecutable: true})
	_, _, err := run(t, s, Request{Script: "script_scripts_a"})
	if kindOf(err) != KindPermission || err.Error() != "Permission denied: scripts/a.sh" || !strings.Contains(err.(*Error).Hint, "chmod +x scripts/a.sh") {
		t.Errorf("require_executable: %v", err)
	}
	if _, res, err := run(t, s, Request{Script: "script_scripts_b"}); err != nil || res.Stdout.Text != "b\n" {
		t.Errorf("executable script: %v %q", err, res.Stdout.Text)
	}
}

func TestTimeoutEndsTheScriptsWholeProcessGroup(t *testing.T) {
	dir := tree(t, map[string]string{"bg.sh": "#!/bin/sh\nsleep 100 &\necho $! > child.pid\nsleep 100\n"})
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"*.sh"}, DefaultTimeout: 500 * time.Millisecond})
	_, res, _ := run(t, s, Request{Script: "bg.sh"})
	if !res.TimedOut {
		t.Fatalf("not timed out: %+v", res)
	}
	data, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(data))
	if _, err := os.Stat("/proc/" + pid); err == nil {
		stat, _ := os.ReadFile("/proc/" + pid + "/stat")
		if !strings.Contains(string(stat), ") Z ") {
			t.Errorf("background child %s outlived the timeout", pid)
		}
	}
}

func TestDryRunDescribesTheCommand(t *testing.T) {
	dir := tree(t, map[string]string{"x.sh": "#!/bin/bash\n"})
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"*.sh"}, Environment: map[string]string{"CI": "1"}})
	c, _, err := s.Command(Request{Script: "x.sh", Args: []string{"a b"}, Timeout: 90 * time.Second}, runner.Env{})
	if err != nil {
		t.Fatal(err)
	}
	got := DryRun(&c)
	want := "/bin/bash ./x.sh 'a b'\n  working directory: " + dir + "\n  timeout: 90 seconds\n  environment: CI\n"
	if got != want {
		t.Errorf("dry run:\n%s\nwant\n%s", got, want)
	}
}
