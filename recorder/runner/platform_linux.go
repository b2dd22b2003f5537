package runner

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for output pipes: fewer, larger reads.
const pipeSize = 1 << 20

// enableSubreaper makes this process adopt orphaned descendants, so that processes of
// an ended group can be reaped here even where the init process does not reap (some
// containers). Failure only means zombies are left for init to collect.
func enableSubreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// setPipeSize enlarges a pipe; best effort, since the default size only costs speed.
func setPipeSize(f *os.File) {
	sc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = sc.Control(func(fd uintptr) {
		_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
	})
}

// applyLimits sets the child's resource limits. The child has already called exec, so
// the limits cover everything but the first instructions of the new program.
func applyLimits(pid int, l Limits) error {
	if l.MemoryMB > 0 {
		bytes := uint64(l.MemoryMB) << 20
		lim := unix.Rlimit{Cur: bytes, Max: bytes}
		if err := unix.Prlimit(pid, unix.RLIMIT_AS, &lim, nil); err != nil {
			return err
		}
	}
	if l.CPUSeconds > 0 {
		// The soft limit sends SIGXCPU; the hard limit a second later sends SIGKILL.
		lim := unix.Rlimit{Cur: uint64(l.CPUSeconds), Max: uint64(l.CPUSeconds) + 1}
		if err := unix.Prlimit(pid, unix.RLIMIT_CPU, &lim, nil); err != nil {
			return err
		}
	}
	return nil
}

// maxRSSKB converts ru_maxrss, which Linux reports in KiB.
func maxRSSKB(ru *syscall.Rusage) int64 { return ru.Maxrss }
