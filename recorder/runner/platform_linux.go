package runner

import (
	"os"
	"strconv"
	"strings"
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

// maxRSSKB converts ru_maxrss, which Linux reports in KiB, or 0 when it
// is not above this process's own peak: a child started from this process
// inherits its memory's high-water mark at exec (the kernel records the
// replaced memory's peak), so such a figure is this process's, not the
// command's.
func maxRSSKB(ru *syscall.Rusage) int64 {
	if own := ownPeakRSSKB(); own > 0 && ru.Maxrss <= own {
		return 0
	}
	return ru.Maxrss
}

// ownPeakRSSKB is this process's VmHWM in KiB, 0 when unknown.
func ownPeakRSSKB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
