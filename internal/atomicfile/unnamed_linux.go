package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openUnnamed opens an unnamed file in path's directory that can later be
// linked: it fails where O_TMPFILE is not supported or /proc is not there
// to link it.
func openUnnamed(path string, perm os.FileMode) (*os.File, error) {
	fd, err := unix.Open(filepath.Dir(path), unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	if _, err := os.Stat(procPath(f)); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func procPath(f *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }

// linkUnnamed gives the unnamed file f the name path (which must not exist).
func linkUnnamed(f *os.File, path string) error {
	err := unix.Linkat(unix.AT_FDCWD, procPath(f), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if err != nil {
		return &fs.PathError{Op: "link", Path: path, Err: err}
	}
	return nil
}
