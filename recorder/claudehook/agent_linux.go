package claudehook

import (
	"time"

	"golang.org/x/sys/unix"
)

// processExit opens a pidfd on pid: exited waits up to d for the process to
// end and reports whether it has. ok is false when the kernel has no pidfd
// (before Linux 5.3).
func processExit(pid int) (exited func(d time.Duration) bool, closeFn func(), ok bool) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil, nil, false
	}
	exited = func(d time.Duration) bool {
		// A pidfd is readable once its process has ended.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(d/time.Millisecond))
		return err == nil && n > 0
	}
	return exited, func() { _ = unix.Close(fd) }, true
}
