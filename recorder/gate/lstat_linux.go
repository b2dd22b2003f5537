//go:build linux && (amd64 || arm64)

package gate

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatPath is lstat(2) of p into st, with p made a C string in the
// analysis's own buffer rather than a new one each call (unix.Lstat
// allocates one): the gate looks up about two paths a command.
func (a *analysis) lstatPath(p string, st *unix.Stat_t) error {
	if strings.IndexByte(p, 0) >= 0 {
		return unix.EINVAL
	}
	a.cpath = append(append(a.cpath[:0], p...), 0)
	dirfd := unix.AT_FDCWD
	_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&a.cpath[0])),
		uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
