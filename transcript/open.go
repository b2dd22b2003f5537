package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// NotRegularError is a session file that is not a regular file: a symbolic
// link, a directory, a device, a named pipe or a socket. Nothing cuff does
// makes one, and following it could mean reading /dev/zero without end,
// blocking on a pipe, or writing wherever a link points; so the writer and
// every reader refuse it, with this error.
type NotRegularError struct {
	Path string
	Kind string // "a symbolic link", "a directory", ...
	// What the file is for ("session file" when empty, "settings file", ...).
	What string
}

func (e *NotRegularError) Error() string {
	if e.What == "" {
		return fmt.Sprintf("a session file that is %s, not a regular file, is refused: cuff neither reads nor writes a session through it (%s)", e.Kind, e.Path)
	}
	return fmt.Sprintf("%s is %s, not a regular file: cuff refuses it as its %s", e.Path, e.Kind, e.What)
}

// Hint tells the user the way out.
func (e *NotRegularError) Hint() string {
	return "Hint: Give cuff a regular file; a session file of cuff's own store that is not one can be moved out of the way, and cuff starts a new session in its place"
}

// kindOf names what a file mode is, for NotRegularError.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// Open opens the session file at path for reading. Anything but a regular
// file is refused with a *NotRegularError, a symbolic link included.
func Open(path string) (*os.File, error) { return openRegular(path, unix.O_RDONLY, 0) }

// openRegular opens path with flag (O_NOFOLLOW added) and perm, refusing
// anything but a regular file without blocking on it: a named pipe is
// opened non-blocking, looked at and closed.
func openRegular(path string, flag int, perm uint32) (*os.File, error) {
	return OpenRegular(path, flag, perm, false)
}

// OpenRegular opens path with flag and perm, refusing with a
// *NotRegularError anything but a regular file, without blocking on it (a
// named pipe is opened non-blocking, looked at and closed). A symbolic link
// is followed when follow is set, refused otherwise.
func OpenRegular(path string, flag int, perm uint32, follow bool) (*os.File, error) {
	extra := unix.O_NONBLOCK | unix.O_CLOEXEC
	if !follow {
		extra |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flag|extra, perm)
	if err != nil {
		switch {
		case errors.Is(err, unix.ELOOP) && !follow:
			return nil, &NotRegularError{Path: path, Kind: "a symbolic link"}
		case errors.Is(err, unix.EISDIR):
			return nil, &NotRegularError{Path: path, Kind: "a directory"}
		case errors.Is(err, unix.ENXIO): // a socket, or a pipe with no reader
			if fi, serr := os.Lstat(path); serr == nil {
				return nil, &NotRegularError{Path: path, Kind: kindOf(fi.Mode())}
			}
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG { // Mode is uint16 on Darwin
		unix.Close(fd)
		return nil, &NotRegularError{Path: path, Kind: kindOfStat(uint32(st.Mode))}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// kindOfStat names a stat mode, for NotRegularError.
func kindOfStat(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a named pipe (FIFO)"
	case unix.S_IFSOCK:
		return "a socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "a device"
	case unix.S_IFLNK:
		return "a symbolic link"
	}
	return "not a regular file"
}
