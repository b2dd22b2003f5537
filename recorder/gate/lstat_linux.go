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
	return a.fstatat(st, unix.AT_SYMLINK_NOFOLLOW)
}

// statPath is stat(2) of p (links followed) into st, the path made a C
// string as lstatPath makes it.
func (a *analysis) statPath(p string, st *unix.Stat_t) error {
	if strings.IndexByte(p, 0) >= 0 {
		return unix.EINVAL
	}
	a.cpath = append(append(a.cpath[:0], p...), 0)
	return a.fstatat(st, 0)
}

// statIn is stat(2) of dir + "/" + name into st (links followed), the
// path made a C string as lstatPath makes it.
func (a *analysis) statIn(dir, name string, st *unix.Stat_t) error {
	if strings.IndexByte(dir, 0) >= 0 || strings.IndexByte(name, 0) >= 0 {
		return unix.EINVAL
	}
	a.cpath = append(append(append(append(a.cpath[:0], dir...), '/'), name...), 0)
	return a.fstatat(st, 0)
}

// fstatat is fstatat(2) of the C string in a.cpath.
func (a *analysis) fstatat(st *unix.Stat_t, flags int) error {
	dirfd := unix.AT_FDCWD
	_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(dirfd), uintptr(unsafe.Pointer(&a.cpath[0])),
		uintptr(unsafe.Pointer(st)), uintptr(flags), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
