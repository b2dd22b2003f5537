//go:build unix && !linux

package runner

import (
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
