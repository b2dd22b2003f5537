package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRunCapturesOutputAndExitCode(t *testing.T) {
	res := run(t, Command{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 0"}})
	wantNoError(t, res)
	if res.Stdout.Text != "out\n" || res.Stderr.Text != "err\n" {
		t.Fatalf("stdout %q stderr %q", res.Stdout.Text, res.Stderr.Text)
	}
	if !res.Success() || res.ExitStatus() != 0 || res.PID == 0 || res.StartTime.IsZero() || res.Duration <= 0 {
		t.Fatalf("bad result %+v", res)
	}
	if res.Stdout.OriginalBytes != 4 || res.Stdout.KeptBytes != 4 || res.Stdout.Truncated {
		t.Fatalf("bad sizes %+v", res.Stdout)
	}
}

func TestRunNonZeroExitIsProcessFailed(t *testing.T) {
	res := run(t, Command{Argv: []string{"sh", "-c", "echo partial; exit 42"}})
	wantCode(t, res, CodeProcessFailed)
	if res.ExitCode == nil || *res.ExitCode != 42 || res.ExitStatus() != 42 || res.Success() {
		t.Fatalf("want exit 42, got %+v", res)
	}
	if res.Stdout.Text != "partial\n" {
		t.Fatalf("partial output lost: %q", res.Stdout.Text)
	}
	if !strings.Contains(res.Err.Message, "42") {
		t.Fatalf("message should name the status: %q", res.Err.Message)
	}
}

func TestRunNotFound(t *testing.T) {
	for _, name := range []string{"cuff-no-such-program-7f3a", "./no-such-file", "/no/such/dir/prog"} {
		res := run(t, Command{Argv: []string{name, "x"}, Dir: t.TempDir()})
		wantCode(t, res, CodeNotFound)
		if res.Started() || res.ExitStatus() != ExitNotFound {
			t.Fatalf("%s: want not started and 127, got %+v", name, res)
		}
		if !strings.Contains(res.Err.Message, name) {
			t.Fatalf("message should name %q: %s", name, res.Err.Message)
		}
		if strings.Contains(res.Err.Message, "/usr/bin") || strings.Contains(res.Err.Message, os.TempDir()) {
			t.Fatalf("message leaks host paths: %s", res.Err.Message)
		}
	}
}

func TestRunUsesChildPATH(t *testing.T) {
	bin := t.TempDir()
	writeFile(t, bin, "cuff-test-tool", "#!/bin/sh\necho from-tool\n", 0o755)
	res := run(t, Command{
		Argv: []string{"cuff-test-tool"},
		Env:  Env{Overrides: map[string]string{"PATH": bin + ":/usr/bin:/bin"}},
	})
	wantNoError(t, res)
	if res.Stdout.Text != "from-tool\n" {
		t.Fatalf("got %q", res.Stdout.Text)
	}
}

func TestRunPermissionDenied(t *testing.T) {
	dir := t.TempDir()
	script := writeFile(t, dir, "script.sh", "#!/bin/sh\necho hi\n", 0o644)
	bin := t.TempDir()
	writeFile(t, bin, "cuff-noexec-tool", "#!/bin/sh\necho hi\n", 0o644)
	cases := map[string]Command{
		"path not executable": {Argv: []string{script}},
		"relative path":       {Argv: []string{"./script.sh"}, Dir: dir},
		"a directory":         {Argv: []string{dir}},
		"found on PATH but not executable": {
			Argv: []string{"cuff-noexec-tool"},
			Env:  Env{Mode: EnvReplace, Overrides: map[string]string{"PATH": bin}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			res := run(t, c)
			wantCode(t, res, CodePermissionDenied)
			if res.Started() || res.ExitStatus() != ExitNotExecutable {
				t.Fatalf("want not started and 126, got %+v", res)
			}
		})
	}
}

func TestRunStartFailures(t *testing.T) {
	dir := t.TempDir()
	badInterp := writeFile(t, dir, "bad-interp", "#!/no/such/interpreter\n", 0o755)
	badFormat := writeFile(t, dir, "bad-format", "\x7fELF not really\x00\x01", 0o755)
	res := run(t, Command{Argv: []string{badInterp}})
	wantCode(t, res, CodeNotFound)
	if !strings.Contains(res.Err.Message, "interpreter") || res.ExitStatus() != ExitNotFound {
		t.Fatalf("bad interpreter: %+v", res.Err)
	}
	if !errors.Is(res.Err, os.ErrNotExist) {
		t.Fatalf("error should wrap the OS error: %v", res.Err.Unwrap())
	}
	res = run(t, Command{Argv: []string{badFormat}})
	wantCode(t, res, CodePermissionDenied)
	if res.ExitStatus() != ExitNotExecutable {
		t.Fatalf("bad format: want 126, got %d", res.ExitStatus())
	}
}

func TestRunSignalDeath(t *testing.T) {
	res := run(t, Command{Argv: []string{"sh", "-c", "echo before; kill -SEGV $$"}})
	wantCode(t, res, CodeProcessFailed)
	if res.ExitCode != nil || res.Signal != "SIGSEGV" || res.ExitStatus() != 128+11 {
		t.Fatalf("want SIGSEGV death (139), got %+v", res)
	}
	if res.Stdout.Text != "before\n" {
		t.Fatalf("output before the crash lost: %q", res.Stdout.Text)
	}
	wantGroupGone(t, res.PID)
}

func TestShellModeVersusArgvMode(t *testing.T) {
	res := run(t, Command{Shell: "/bin/sh", Script: `x=3; echo "$((x+1))" | tr 4 y; echo $HOME_TEST`,
		Env: Env{Overrides: map[string]string{"HOME_TEST": "expanded"}}})
	wantNoError(t, res)
	if res.Stdout.Text != "y\nexpanded\n" {
		t.Fatalf("shell mode: got %q", res.Stdout.Text)
	}
	if got := strings.Join(res.Argv, " "); !strings.HasPrefix(got, "/bin/sh -c ") {
		t.Fatalf("shell mode argv: %q", got)
	}

	res = run(t, Command{Argv: []string{"echo", "$HOME", "a|b", "$(id)"}})
	wantNoError(t, res)
	if res.Stdout.Text != "$HOME a|b $(id)\n" {
		t.Fatalf("argv mode must not expand: got %q", res.Stdout.Text)
	}

	res = run(t, Command{Argv: []string{"echo hi; id"}})
	wantCode(t, res, CodeInvalid)
	if res.Started() || res.ExitStatus() != ExitOwnFailure {
		t.Fatalf("metacharacters must be rejected before start: %+v", res)
	}

	res = run(t, Command{Shell: "/no/such/shell", Script: "true"})
	wantCode(t, res, CodeNotFound)
	if res.Err.Field != "shell" {
		t.Fatalf("field should be shell, got %q", res.Err.Field)
	}
}

func TestWorkingDirectory(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "sub"), filepath.Join(root, "inside-link")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, "file.txt", "x", 0o644)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}

	res := run(t, Command{Argv: []string{"pwd", "-P"}, Root: root, Dir: "sub/deep"})
	wantNoError(t, res)
	if want := filepath.Join(realRoot, "sub", "deep") + "\n"; res.Stdout.Text != want || res.Dir+"\n" != want {
		t.Fatalf("pwd: got %q, dir %q, want %q", res.Stdout.Text, res.Dir, want)
	}
	res = run(t, Command{Argv: []string{"pwd", "-P"}, Root: root})
	wantNoError(t, res)
	if res.Stdout.Text != realRoot+"\n" {
		t.Fatalf("default dir should be the root: %q", res.Stdout.Text)
	}
	res = run(t, Command{Argv: []string{"pwd", "-P"}, Root: root, Dir: "inside-link"})
	wantNoError(t, res)

	bad := map[string]string{
		"missing":                 "nope",
		"a file":                  "file.txt",
		"symlink escaping root":   "escape",
		"dot-dot escaping root":   "../",
		"absolute outside root":   outside,
		"through escaping link":   "escape/.",
		"missing below a symlink": "escape/nope",
	}
	for name, dir := range bad {
		t.Run(name, func(t *testing.T) {
			res := run(t, Command{Argv: []string{"true"}, Root: root, Dir: dir})
			wantCode(t, res, CodeBadWorkDir)
			if res.Started() || res.ExitStatus() != ExitOwnFailure {
				t.Fatalf("must not start: %+v", res)
			}
			if strings.Contains(res.Err.Message, realRoot) || strings.Contains(res.Err.Message, outside) && dir != outside {
				t.Fatalf("message leaks a resolved path: %s", res.Err.Message)
			}
		})
	}
}

func TestWorkingDirectoryPermissionDenied(t *testing.T) {
	root := t.TempDir()
	locked := filepath.Join(root, "locked")
	if err := os.Mkdir(locked, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(locked, 0o600); err != nil {
			t.Fatal(err)
		}
		res := run(t, Command{Argv: []string{"true"}, Root: root, Dir: "locked"})
		wantCode(t, res, CodePermissionDenied)
		return
	}
	// Root enters any directory, so the check runs in a copy of this test binary
	// started as an unprivileged user.
	for _, d := range []string{filepath.Dir(root), root} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	bin := writeFile(t, root, "runner.test", string(data), 0o755)
	cmd := exec.Command(bin, "-test.run=^TestHelperDirPermission$")
	cmd.Env = append(os.Environ(), helperEnv+"="+root)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper as uid %d failed: %v\n%s", nobody, err, out)
	}
	if !strings.Contains(string(out), "code="+string(CodePermissionDenied)) {
		t.Fatalf("helper output: %s", out)
	}
}

const (
	helperEnv = "CUFF_RUNNER_TEST_LOCKED_ROOT"
	nobody    = 65534
)

// TestHelperDirPermission runs only inside TestWorkingDirectoryPermissionDenied's
// unprivileged child and prints the error code it gets.
func TestHelperDirPermission(t *testing.T) {
	root := os.Getenv(helperEnv)
	if root == "" {
		t.Skip("helper for TestWorkingDirectoryPermissionDenied")
	}
	res := run(t, Command{Argv: []string{"true"}, Root: root, Dir: "locked"})
	if res.Err == nil {
		t.Fatal("no error")
	}
	fmt.Printf("code=%s\n", res.Err.Code)
}

func TestEnvironmentFilteringSeenByChild(t *testing.T) {
	host := []string{"PATH=/usr/bin:/bin", "HOME=/home/u", "PWD=/somewhere/else",
		"GITHUB_TOKEN=secret1", "KEEP_TOKEN=kept", "AWS_SECRET=secret2", "PLAIN=1", "PLAIN=2"}
	base := Env{Host: host, Exclude: []string{"*_TOKEN"}, Include: []string{"KEEP_TOKEN", "PATH"},
		Deny: []string{"AWS_*"}, Overrides: map[string]string{"ADDED": "yes"}}
	dir := t.TempDir()
	realDir, _ := filepath.EvalSymlinks(dir)

	res := run(t, Command{Argv: []string{"env"}, Env: base, Dir: dir})
	wantNoError(t, res)
	got := envOf(res.Stdout.Text)
	for k, want := range map[string]string{"PATH": "/usr/bin:/bin", "HOME": "/home/u",
		"KEEP_TOKEN": "kept", "ADDED": "yes", "PLAIN": "2", "PWD": realDir} {
		if got[k] != want {
			t.Errorf("inherit: %s = %q, want %q (env %v)", k, got[k], want, got)
		}
	}
	for _, k := range []string{"GITHUB_TOKEN", "AWS_SECRET"} {
		if _, ok := got[k]; ok {
			t.Errorf("inherit: %s reached the child", k)
		}
	}
	if strings.Join(res.EnvRemoved, ",") != "AWS_SECRET,GITHUB_TOKEN" {
		t.Errorf("EnvRemoved = %v", res.EnvRemoved)
	}

	clean := base
	clean.Mode = EnvReplace
	clean.Include = []string{"PATH", "AWS_*"}
	res = run(t, Command{Argv: []string{"env"}, Env: clean})
	wantNoError(t, res)
	got = envOf(res.Stdout.Text)
	if len(got) != 2 || got["PATH"] != "/usr/bin:/bin" || got["ADDED"] != "yes" {
		t.Errorf("replace: child env %v, want only PATH and ADDED (deny beats include)", got)
	}

	denied := base
	denied.Overrides = map[string]string{"AWS_KEY_ID": "x"}
	wantCode(t, run(t, Command{Argv: []string{"env"}, Env: denied}), CodeInvalid)
}

func TestCaptureModes(t *testing.T) {
	script := []string{"sh", "-c", "echo out; echo err >&2"}
	cases := []struct {
		mode             CaptureMode
		wantOut, wantErr string
	}{
		{CaptureAll, "out\n", "err\n"},
		{CaptureStdout, "out\n", ""},
		{CaptureStderr, "", "err\n"},
		{CaptureNone, "", ""},
	}
	for _, tc := range cases {
		t.Run(string(tc.mode), func(t *testing.T) {
			var liveOut, liveErr bytes.Buffer
			res := run(t, Command{Argv: script, Capture: tc.mode, Stdout: &liveOut, Stderr: &liveErr})
			wantNoError(t, res)
			if res.Stdout.Text != tc.wantOut || res.Stderr.Text != tc.wantErr {
				t.Fatalf("captured %q / %q", res.Stdout.Text, res.Stderr.Text)
			}
			if res.Stdout.Captured != (tc.wantOut != "") || res.Stderr.Captured != (tc.wantErr != "") {
				t.Fatalf("captured flags %v / %v", res.Stdout.Captured, res.Stderr.Captured)
			}
			if liveOut.String() != "out\n" || liveErr.String() != "err\n" {
				t.Fatalf("live streams must get everything: %q / %q", liveOut.String(), liveErr.String())
			}
			if res.Stdout.OriginalBytes != 4 || res.Stderr.OriginalBytes != 4 {
				t.Fatalf("streamed bytes must be counted: %+v %+v", res.Stdout, res.Stderr)
			}
		})
	}
	// Not captured and not streamed: the child writes to /dev/null.
	res := run(t, Command{Argv: script, Capture: CaptureNone})
	wantNoError(t, res)
	if res.Stdout.OriginalBytes != 0 || res.Stdout.Captured {
		t.Fatalf("discarded stream: %+v", res.Stdout)
	}
}

func TestLiveWriterFailureKeepsCapturing(t *testing.T) {
	res := run(t, Command{Argv: []string{"sh", "-c", "echo one; echo two"}, Stdout: failWriter{}})
	wantNoError(t, res)
	if res.Stdout.Text != "one\ntwo\n" {
		t.Fatalf("capture must go on: %q", res.Stdout.Text)
	}
	if !errors.Is(res.StreamErr, errWriteFailed) {
		t.Fatalf("StreamErr = %v", res.StreamErr)
	}
}

func TestStdin(t *testing.T) {
	res := run(t, Command{Argv: []string{"cat"}, Stdin: strings.NewReader("from stdin")})
	wantNoError(t, res)
	if res.Stdout.Text != "from stdin" {
		t.Fatalf("got %q", res.Stdout.Text)
	}
	res = run(t, Command{Argv: []string{"cat"}})
	wantNoError(t, res)
	if res.Stdout.Text != "" {
		t.Fatalf("nil stdin must be empty: %q", res.Stdout.Text)
	}
}

func TestResourceUsage(t *testing.T) {
	res := run(t, Command{Argv: []string{"dd", "if=/dev/zero", "of=/dev/null", "bs=32M", "count=4"}})
	wantNoError(t, res)
	if res.Usage.MaxRSSKB < 32*1024 && !(res.Usage.MaxRSSKB == 0 && ownPeakRSSKB() >= 32*1024) {
		t.Fatalf("dd with a 32 MiB buffer reported max RSS %d KiB (the test's own peak %d KiB)", res.Usage.MaxRSSKB, ownPeakRSSKB())
	}
	res = run(t, Command{Shell: "/bin/sh", Script: "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"})
	wantNoError(t, res)
	if res.Usage.UserMS+res.Usage.SysMS == 0 {
		t.Fatalf("a busy loop reported no CPU time: %+v", res.Usage)
	}
}

func TestResourceLimits(t *testing.T) {
	res := run(t, Command{Shell: "/bin/sh", Script: "sleep 0.1; exec dd if=/dev/zero of=/dev/null bs=256M count=1",
		Limits: Limits{MemoryMB: 64}})
	if res.Success() {
		t.Fatalf("dd allocating 256 MiB under a 64 MiB limit succeeded: %+v", res)
	}
	if !strings.Contains(res.Stderr.Text, "memory") {
		t.Fatalf("want dd's memory error, got %q", res.Stderr.Text)
	}
	res = run(t, Command{Shell: "/bin/sh", Script: "sleep 0.1; while :; do :; done", Limits: Limits{CPUSeconds: 1}})
	if res.Signal != "SIGXCPU" && res.Signal != "SIGKILL" {
		t.Fatalf("want death by SIGXCPU, got %+v", res)
	}
	wantCode(t, res, CodeProcessFailed)
	wantGroupGone(t, res.PID)
}

func TestResultJSON(t *testing.T) {
	res := run(t, Command{Argv: []string{"sh", "-c", "exit 3"}})
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back["exit_code"] != float64(3) || back["error"].(map[string]any)["code"] != string(CodeProcessFailed) {
		t.Fatalf("json: %s", data)
	}
}

func TestRunnerLimitsConcurrency(t *testing.T) {
	r := NewRunner(1)
	lock := filepath.Join(t.TempDir(), "lock")
	c := Command{Shell: "/bin/sh",
		Script: `mkdir "$LOCK" 2>/dev/null || { echo overlap; exit 1; }; sleep 0.1; rmdir "$LOCK"`,
		Env:    Env{Overrides: map[string]string{"LOCK": lock}}}
	done := make(chan Result, 3)
	for range 3 {
		go func() { done <- r.Run(t.Context(), c) }()
	}
	for range 3 {
		wantNoError(t, <-done) // an overlap would exit 1
	}
}

// TestMaxRSSNotTheRecorders: the kernel counts the starting process's
// memory in the peak of what it starts, so a small command reported the
// recorder's own peak as its max RSS; now a figure not above the
// recorder's own is "not known" (0).
func TestMaxRSSNotTheRecorders(t *testing.T) {
	own := ownPeakRSSKB()
	if own == 0 {
		t.Skip("no /proc/self/status here")
	}
	res := run(t, Command{Argv: []string{"true"}})
	wantNoError(t, res)
	if res.Usage.MaxRSSKB != 0 {
		t.Errorf("true reported max RSS %d KiB; the recorder's own peak is %d KiB, and true uses far less", res.Usage.MaxRSSKB, own)
	}
}
