// Package atomicfile writes files that appear at their path only once they
// are complete, and leave nothing behind when the writer is killed.
//
// Where the filesystem allows (Linux, O_TMPFILE: ext4, xfs, btrfs, tmpfs)
// the file being written has no name at all: a killed writer leaves only an
// inode the kernel frees. Commit links it into place. Elsewhere it is a
// hidden temporary file named after the target and the writer's pid
// (.NAME.PID-RANDOM.cuff-tmp) — as is, for an instant, a file that replaces
// another on Commit. CleanStale removes those whose writer is gone; Create
// does for its own target when it has to use one.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// tempSuffix ends the name of every named temporary file.
const tempSuffix = ".cuff-tmp"

// staleAfter is the age past which a named temporary file is removed even
// if a process with its writer's pid runs (the pid was reused).
const staleAfter = 24 * time.Hour

// File is a file being written. Write to File (an *os.File), then Commit or
// Abort.
type File struct {
	*os.File
	// NoSync skips the fsync on Commit: for caches, which are checked when
	// read and rebuilt when lost.
	NoSync bool
	path   string
	named  string // the temporary name; "" while the file has none
	done   bool
}

// Create starts a file that will appear at path with mode perm.
func Create(path string, perm os.FileMode) (*File, error) { return create(path, perm, true) }

// create is Create; unnamed false skips O_TMPFILE (for tests of the named
// way).
func create(path string, perm os.FileMode, unnamed bool) (*File, error) {
	if unnamed {
		if f, err := openUnnamed(path, perm); err == nil {
			return &File{File: f, path: path}, nil
		}
	}
	// A named temporary file: the ones a killed writer left for the same
	// target go first.
	CleanStale(filepath.Dir(path), filepath.Base(path))
	name := tempName(path)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if err := f.Chmod(perm); err != nil { // the umask may have narrowed it; exactly perm
		f.Close()
		os.Remove(name)
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{File: f, path: path, named: name}, nil
}

// tempName is a fresh temporary name beside path.
func tempName(path string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(filepath.Dir(path),
		fmt.Sprintf(".%s.%d-%s%s", filepath.Base(path), os.Getpid(), hex.EncodeToString(b[:]), tempSuffix))
}

// CreateNamed is Create for a file that a library must open by name while
// it is written (SQLite resolves /proc/self/fd links to the unnamed file's
// would-be name): always a named temporary file; see TempPath.
func CreateNamed(path string, perm os.FileMode) (*File, error) { return create(path, perm, false) }

// Path is where the file appears on Commit.
func (f *File) Path() string { return f.path }

// TempPath is the temporary name of a file made by CreateNamed ("" for an
// unnamed one), valid until Commit or Abort.
func (f *File) TempPath() string { return f.named }

// Commit makes the file durable and puts it at its path, replacing any
// file there, then closes it.
func (f *File) Commit() error { return f.commit(true) }

// CommitNew is Commit that never replaces: when path exists it fails with
// an error that wraps fs.ErrExist, and nothing changes.
func (f *File) CommitNew() error { return f.commit(false) }

func (f *File) commit(replace bool) error {
	if f.done {
		return errors.New("atomicfile: already committed or aborted")
	}
	defer f.Abort() // whatever is left unnamed or temporary
	if !f.NoSync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", f.path, err)
		}
	}
	if f.named == "" {
		if !replace {
			if err := linkUnnamed(f.File, f.path); err != nil {
				return fmt.Errorf("create %s: %w", f.path, err)
			}
			return f.close()
		}
		name := tempName(f.path)
		if err := linkUnnamed(f.File, name); err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		f.named = name
	}
	if replace {
		if err := os.Rename(f.named, f.path); err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
	} else {
		if err := os.Link(f.named, f.path); err != nil {
			return fmt.Errorf("create %s: %w", f.path, err)
		}
		_ = os.Remove(f.named)
	}
	f.named = ""
	return f.close()
}

func (f *File) close() error {
	f.done = true
	if err := f.File.Close(); err != nil {
		return fmt.Errorf("close %s: %w", f.path, err)
	}
	return nil
}

// Abort throws the file away; after Commit it does nothing.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	_ = f.File.Close()
	if f.named != "" {
		_ = os.Remove(f.named)
	}
}

// CleanStale removes the temporary files in dir whose writer is gone (or
// that are older than a day): those for the file named base, or all of
// them when base is "".
func CleanStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if pid, ok := tempOf(e.Name(), base); ok && stale(filepath.Join(dir, e.Name()), pid) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// IsTemp reports whether name is a temporary file of this package.
func IsTemp(name string) bool {
	_, ok := tempOf(name, "")
	return ok
}

// tempOf parses .BASE.PID-RANDOM.cuff-tmp, returning the writer's pid.
func tempOf(name, base string) (int, bool) {
	rest, ok := strings.CutSuffix(name, tempSuffix)
	if !ok || !strings.HasPrefix(rest, ".") {
		return 0, false
	}
	if base != "" {
		if rest, ok = strings.CutPrefix(rest, "."+base+"."); !ok {
			return 0, false
		}
	} else if i := strings.LastIndexByte(rest, '.'); i > 0 {
		rest = rest[i+1:]
	} else {
		return 0, false
	}
	pidText, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// stale reports whether the temporary file at path, written by pid, is
// left over.
func stale(path string, pid int) bool {
	if pid == os.Getpid() {
		return false // one of ours, being written
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	fi, err := os.Lstat(path)
	return err == nil && time.Since(fi.ModTime()) > staleAfter
}
