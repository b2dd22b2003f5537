//go:build unix && !linux

package runner

import (
	"os/exec"
	"syscall"
	"time"
)

// watchdog is Linux only: elsewhere a command's group outlives a runner
// that is killed without ending it.
type watchdog struct{}

func startWatchdog(time.Duration) *watchdog { return nil }

func (*watchdog) watch(int) {}

func (*watchdog) release() {}

// childAttr puts the command in a process group of its own.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// startHeld starts the command newCmd makes and calls before with its pid.
func startHeld(newCmd func() *exec.Cmd, _ string, before func(pid int)) (*exec.Cmd, error) {
	cmd := newCmd()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	before(cmd.Process.Pid)
	return cmd, nil
}
