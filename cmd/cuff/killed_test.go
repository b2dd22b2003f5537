package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/cuff-dev/cuff/internal/testenv"
)

// TestKilledExecTakesItsCommandAlong: kill -9 of `cuff exec` must not leave
// the command's process group running (re-parented to init), grandchildren
// included.
func TestKilledExecTakesItsCommandAlong(t *testing.T) {
	dir := gitProject(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	home := t.TempDir()
	cmd := exec.Command(cuffBin, "exec", "--shell", "echo $$ > "+pidFile+"; sleep 300 & sleep 300")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, ".state"), "CUFF_DIR=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pgid := pidOf(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	if len(testenv.LiveGroupMembers(pgid)) == 0 {
		t.Fatalf("the command's group %d is not seen running", pgid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	testenv.WaitGroupGone(t, pgid, "after kill -9 of cuff exec")
}

// TestKilledMCPTakesItsCommandsAlong: the same for `cuff mcp` with a call
// running.
func TestKilledMCPTakesItsCommandsAlong(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	pgid := r.startSleeping(t)
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	if len(testenv.LiveGroupMembers(pgid)) == 0 {
		t.Fatalf("the command's group %d is not seen running", pgid)
	}
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-r.done
	r.done <- err
	testenv.WaitGroupGone(t, pgid, "after kill -9 of cuff mcp")
}
