package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
)

// measured is one run of the binary with its peak resident memory.
type measured struct {
	result
	maxRSSMB int64
}

// cuffRSS runs the binary in dir like cuff does, and reports its peak RSS.
//
// The binary is started by a measurer (this test binary started afresh, see
// runMeasurer), not by this process: a child's peak RSS as wait4 reports it
// starts at the peak of the process it was forked from (Linux keeps the old
// memory's high-water mark through exec), so measured from here it was never
// below what the tests before had made this process use — 442 MB in a second
// round of -count=2, every limit failed.
func cuffRSS(t *testing.T, dir string, args ...string) measured {
	t.Helper()
	home := t.TempDir()
	report := filepath.Join(t.TempDir(), "maxrss")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r, _ := programProcess(t, self, dir, "", []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, ".state"), "CUFF_DIR=", "NO_COLOR=1",
		measurerEnv + "=" + report}, append([]string{cuffBin}, args...)...)
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the measurer of cuff %v reported nothing: %v\n%s", args, err, r.stderr)
	}
	kb, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		t.Fatalf("the measurer of cuff %v reported %q", args, data)
	}
	return measured{r, kb >> 10}
}

// measurerEnv names the file where the test binary, started with it set,
// writes the peak RSS (KiB) of the command its arguments name.
const measurerEnv = "CUFF_TEST_MEASURE_RSS"

// runMeasurer makes the test binary a measurer when measurerEnv is set: it
// runs its arguments as a command with its own standard files and
// environment (measurerEnv left out), writes the command's peak RSS to the
// file measurerEnv names and exits as the command did. Started afresh, it
// is small: the reading is the child's own peak, or the measurer's start
// (about 20 MB) when that is more, whatever ran in the test process before.
func runMeasurer() {
	report := os.Getenv(measurerEnv)
	if report == "" {
		return
	}
	os.Unsetenv(measurerEnv)
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, "measurer:", err)
		os.Exit(125)
	}
	kb := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if err := os.WriteFile(report, []byte(strconv.FormatInt(kb, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "measurer:", err)
		os.Exit(125)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		os.Exit(128 + int(ws.Signal()))
	}
	os.Exit(cmd.ProcessState.ExitCode())
}

// sessionWithTail is a project whose one session file (returned, with its
// id) ends in a torn tail of size NUL bytes, as a crash can leave.
func sessionWithTail(t *testing.T, size int64) (dir, id, path string) {
	t.Helper()
	dir = gitProject(t)
	continuousSessions(t, dir) // the execs that follow append to this session, healing its tail
	if r := cuff(t, dir, "", "exec", "echo", "hello"); r.code != 0 {
		t.Fatalf("exec: %+v", r)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, ".cuff", "recordings", "sessions", "*.jsonl"))
	if len(paths) != 1 {
		t.Fatalf("sessions: %v", paths)
	}
	path = paths[0]
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()+size); err != nil {
		t.Fatal(err)
	}
	return dir, strings.TrimSuffix(filepath.Base(path), ".jsonl"), path
}

// TestHugeTornTailCostsNoMemory: after a crash left a 400 MB NUL tail, the
// next exec, listing, show, runs and every export run in a few tens of MB
// (they took 0.4-2 GB).
func TestHugeTornTailCostsNoMemory(t *testing.T) {
	dir, id, _ := sessionWithTail(t, 400<<20)
	const limitMB = 120
	for _, args := range [][]string{
		{"record", "list"}, {"record", "show", id}, {"runs", "list"}, {"record", "stats"},
		{"record", "export", id, "--format", "json"}, {"record", "export", id, "--format", "jsonl"},
		{"record", "export", id, "--format", "csv"}, {"record", "export", id, "--format", "markdown"},
		{"record", "export", id, "--format", "html"},
		{"exec", "sh", "-c", "exit 9"}, // heals the tail: last, so the others see it torn
	} {
		m := cuffRSS(t, dir, args...)
		want := 0
		if args[0] == "exec" {
			want = 9
		}
		if m.code != want || m.maxRSSMB > limitMB {
			t.Errorf("cuff %v: exit %d (want %d), peak RSS %d MB (limit %d)\n%s", args, m.code, want, m.maxRSSMB, limitMB, m.stderr)
		}
	}
	if m := cuffRSS(t, dir, "record", "show", id); m.code != 0 || !strings.Contains(m.stdout, "Commands: 2") || m.maxRSSMB > limitMB {
		t.Errorf("after the exec the session holds both runs: %d MB\n%s%s", m.maxRSSMB, m.stdout, m.stderr)
	}
}

// TestSessionFileNotRegularIsRefusedEverywhere: a session file that is a
// link to /dev/zero (or a named pipe) is refused the same way by the
// writer, the CLI and the TUI, at once and in bounded memory; cuff exec
// still runs the command and exits with its code.
func TestSessionFileNotRegularIsRefusedEverywhere(t *testing.T) {
	for _, kind := range []string{"link to /dev/zero", "named pipe"} {
		dir, id, path := sessionWithTail(t, 0)
		os.Remove(path)
		if kind == "named pipe" {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
		m := cuffRSS(t, dir, "exec", "sh", "-c", "exit 9")
		if m.code != 9 || m.maxRSSMB > 60 || !strings.Contains(m.stderr, "not a regular file") {
			t.Errorf("%s: exec: exit %d, %d MB, stderr %q", kind, m.code, m.maxRSSMB, m.stderr)
		}
		for _, args := range [][]string{{"record", "show", id}, {"record", "export", id, "--format", "jsonl"}} {
			m := cuffRSS(t, dir, args...)
			if m.code == 0 || !strings.Contains(m.stderr, "("+path+")") || !strings.Contains(m.stderr, "not a regular file") {
				t.Errorf("%s: %v: exit %d, stderr %q", kind, args, m.code, m.stderr)
			}
		}
		m = cuffRSS(t, dir, "record", "list")
		if m.code != 0 || strings.Count(m.stderr, "not a regular file") != 1 || strings.Contains(m.stdout, id) { // said once (the listing reads the store twice)
			t.Errorf("%s: record list: exit %d\n%s%s", kind, m.code, m.stdout, m.stderr)
		}
		ts := tmuxtest.Start(t, fmt.Sprintf("%s %s --dir %s watch %s; echo watch-exited-$?; sleep 60", envLine(t), cuffBin, filepath.Join(dir, ".cuff"), id[16:]))
		ts.WaitScreen("not a regular file")
		ts.Keys("q")
		ts.WaitScreen("watch-exited-")
	}
}

// TestHostileStoreFilesNeverHangOrExhaust: the small files beside the
// sessions — settings, policy, index, the session map, lock files — replaced
// by a link to /dev/zero, a named pipe or a dangling link (a cloned
// repository or a crash can leave anything) cost an error or a rebuild,
// never a hang, all memory, or a file created outside the store.
func TestHostileStoreFilesNeverHangOrExhaust(t *testing.T) {
	dir, _, _ := sessionWithTail(t, 0)
	rec := filepath.Join(dir, ".cuff", "recordings")
	outside := filepath.Join(t.TempDir(), "created-through-a-link")
	for path, make := range map[string]func(string) error{
		filepath.Join(rec, "index.json"):   func(p string) error { return os.Symlink("/dev/zero", p) },
		filepath.Join(rec, "current.json"): func(p string) error { return syscall.Mkfifo(p, 0o600) },
		filepath.Join(rec, "index.lock"):   func(p string) error { return os.Symlink(outside, p) },
	} {
		os.Remove(path)
		if err := make(path); err != nil {
			t.Fatal(err)
		}
	}
	metas, _ := filepath.Glob(filepath.Join(rec, "sessions", "*.meta.json"))
	for _, m := range metas {
		os.Remove(m)
		syscall.Mkfifo(m, 0o600)
	}
	for _, args := range [][]string{{"record", "list"}, {"exec", "sh", "-c", "exit 9"}, {"runs", "list"}} {
		m := cuffGuarded(t, dir, args...)
		t.Logf("cuff %v: exit %d, %d MB\n%s", args, m.code, m.maxRSSMB, m.stderr)
		if args[0] == "exec" && m.code != 9 {
			t.Errorf("exec: exit %d, want the command's 9", m.code)
		}
		if m.maxRSSMB > 60 {
			t.Errorf("cuff %v: peak RSS %d MB", args, m.maxRSSMB)
		}
	}
	if _, err := os.Lstat(outside); err == nil {
		t.Error("a lock file's link created a file outside the store")
	}
	// Settings and policy: an error that says what is wrong, at once.
	cuffDir := filepath.Join(dir, ".cuff")
	os.Remove(filepath.Join(cuffDir, "settings.yml"))
	if err := os.Symlink("/dev/zero", filepath.Join(cuffDir, "settings.yml")); err != nil {
		t.Fatal(err)
	}
	m := cuffGuarded(t, dir, "record", "list")
	if m.code == 0 || !strings.Contains(m.stderr, "not a regular file") || m.maxRSSMB > 60 {
		t.Errorf("settings.yml linked to /dev/zero: exit %d, %d MB\n%s", m.code, m.maxRSSMB, m.stderr)
	}
	os.Remove(filepath.Join(cuffDir, "settings.yml"))
	syscall.Mkfifo(filepath.Join(cuffDir, "policy.yml"), 0o600)
	m = cuffGuarded(t, dir, "check", "ls")
	if m.code == 0 || !strings.Contains(m.stderr, "not a regular file") {
		t.Errorf("policy.yml a named pipe: exit %d\n%s", m.code, m.stderr)
	}
}

// cuffGuarded is cuffRSS with a hang guard: a run that has not ended after
// two minutes is killed and fails the test.
func cuffGuarded(t *testing.T, dir string, args ...string) measured {
	t.Helper()
	done := make(chan measured, 1)
	go func() { done <- cuffRSS(t, dir, args...) }()
	select {
	case m := <-done:
		return m
	case <-time.After(2 * time.Minute):
		t.Fatalf("cuff %v hangs", args)
		return measured{}
	}
}
