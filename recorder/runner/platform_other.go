//go:build unix && !linux

package runner

import (
	"errors"
	"os"
	"syscall"
)

func enableSubreaper() {}

func setPipeSize(*os.File) {}

func applyLimits(_ int, l Limits) error {
	if l.MemoryMB > 0 || l.CPUSeconds > 0 {
		return errors.New("resource limits are only supported on Linux")
	}
	return nil
}

// maxRSSKB converts ru_maxrss, which BSD-derived systems report in bytes.
func maxRSSKB(ru *syscall.Rusage) int64 { return ru.Maxrss / 1024 }

// ownPeakRSSKB is this process's peak resident memory in KiB; not read
// here (0), so maxRSSKB reports what the kernel says.
func ownPeakRSSKB() int64 { return 0 }
