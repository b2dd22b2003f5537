//go:build unix

package runner

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// signalGroup sends sig to every process of the group. A group that is already gone
// is not an error.
func signalGroup(pgid int, sig syscall.Signal) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, sig) // ESRCH: nothing left to signal
	}
}

// groupAlive reports whether any process (zombies included) is still in the group.
func groupAlive(pgid int) bool {
	return pgid > 0 && syscall.Kill(-pgid, 0) != syscall.ESRCH
}

// reapGroup collects the exit status of every finished process of the group that has
// become this process's child (orphans, when this process is their subreaper), so that
// none lingers as a zombie. It must only run after the group leader has been waited for.
func reapGroup(pgid int) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}

func signalName(s syscall.Signal) string {
	if name := unix.SignalName(s); name != "" {
		return name
	}
	return "signal " + s.String()
}
