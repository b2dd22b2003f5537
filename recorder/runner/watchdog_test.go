//go:build linux

package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/testenv"
)

// helperParentEnv makes this test binary the process that runs a command
// (see TestHelperRunnerParent), so that a test can kill it.
const helperParentEnv = "CUFF_TEST_RUNNER_PARENT"

// TestHelperRunnerParent is not a test: run with helperParentEnv set to a
// file name, it runs a shell that writes its group id there and sleeps.
func TestHelperRunnerParent(t *testing.T) {
	pidFile := os.Getenv(helperParentEnv)
	if pidFile == "" {
		t.Skip("helper process for TestRunnerKilledEndsGroup")
	}
	Run(context.Background(), Command{Shell: "/bin/sh", Script: "echo $$ > " + pidFile + "; sleep 300 & sleep 300",
		Timeout: 10 * time.Minute})
	os.Exit(0)
}

// TestRunnerKilledEndsGroup: a process killed with SIGKILL while it runs a
// command takes the command's whole group along (its watchdog ends it).
func TestRunnerKilledEndsGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pgid")
	parent := exec.Command(os.Args[0], "-test.run=^TestHelperRunnerParent$")
	parent.Env = append(os.Environ(), helperParentEnv+"="+pidFile)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = parent.Wait(); close(done) }()
	pgid := waitPID(t, pidFile, done)
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	if len(testenv.LiveGroupMembers(pgid)) == 0 {
		t.Fatalf("group %d not seen running", pgid)
	}
	_ = parent.Process.Kill()
	<-done
	testenv.WaitGroupGone(t, pgid, "after the runner's process was killed")
}

// TestWatchdogLeavesNothingBehind: after a run, its watchdog is gone.
func TestWatchdogLeavesNothingBehind(t *testing.T) {
	before := watchdogChildren()
	for range 3 {
		wantNoError(t, run(t, Command{Argv: []string{"true"}}))
	}
	for _, pid := range watchdogChildren() {
		if !slices.Contains(before, pid) {
			t.Errorf("watchdog %d left running after its run", pid)
		}
	}
}

// watchdogChildren lists the running watchdogs that are children of this
// process (a watchdog whose runner was killed in another test is adopted
// here while it ends its group).
func watchdogChildren() []int {
	var pids []int
	for _, p := range testenv.Procs() {
		if p.PPID == os.Getpid() && p.Running() && p.Comm == watchdogName {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// waitPID waits for the number a helper writes to path; done closing first
// means the helper died without writing it.
func waitPID(t *testing.T, path string, done <-chan struct{}) int {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		if data, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(data), "\n") {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				return pid
			}
		}
		select {
		case <-done:
			t.Fatal("the helper exited before it started its command")
		case <-deadline:
			t.Fatal("the helper did not start its command")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestPrivilegedProgramRunsUntraced: a set-user-ID program is started
// running (a traced one would lose its privileges), and still runs.
func TestPrivilegedProgramRunsUntraced(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "true-setuid")
	data, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Skip("no /bin/true")
	}
	os.WriteFile(prog, data, 0o755)
	if err := os.Chmod(prog, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	if !privileged(prog) || privileged("/bin/sh") {
		t.Fatalf("privileged(%s) = %v, privileged(/bin/sh) = %v", prog, privileged(prog), privileged("/bin/sh"))
	}
	wantNoError(t, run(t, Command{Argv: []string{prog}}))
}

// TestLimitsHoldFromTheFirstInstruction: the command is held at its start
// until its resource limits are set, so even its first instruction runs
// under them.
func TestLimitsHoldFromTheFirstInstruction(t *testing.T) {
	res := run(t, Command{Shell: "/bin/sh", Script: "ulimit -t", Limits: Limits{CPUSeconds: 7}})
	wantNoError(t, res)
	if strings.TrimSpace(res.Stdout.Text) != "7" {
		t.Errorf("the shell saw a CPU limit of %q, want 7", res.Stdout.Text)
	}
}
