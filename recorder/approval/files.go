package approval

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Permissions of everything the broker writes: requests and decisions may
// name secrets, and a file another user could write must never count.
const (
	dirMode  = 0o700
	fileMode = 0o600
)

// maxFileBytes bounds what the broker reads from one state file.
const maxFileBytes = 8 << 20

// tempPrefix starts the names of files being written; readers skip them.
const tempPrefix = ".tmp-"

// errUntrusted marks a state file the broker ignores: not a regular file,
// owned by another user, or readable or writable by others.
var errUntrusted = errors.New("not trusted")

// ensureDir creates d (0700) or tightens an existing looser directory. A
// directory owned by another user is refused.
func ensureDir(d string) error {
	fi, err := os.Lstat(d)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(d, dirMode); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
		// MkdirAll applies the umask; make sure of the mode.
		if err := os.Chmod(d, dirMode); err != nil {
			return fmt.Errorf("set permissions of %s: %w", d, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", d, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory: move it away so cuff can keep approvals there", d)
	}
	if uid, ok := ownerOf(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%s belongs to user %d, not to you: cuff keeps approvals only in a directory of your own (set CUFF_STATE_DIR)", d, uid)
	}
	if fi.Mode().Perm()&^dirMode != 0 {
		if err := os.Chmod(d, dirMode); err != nil {
			return fmt.Errorf("tighten permissions of %s: %w", d, err)
		}
	}
	return nil
}

func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// trusted reports whether fi is a regular file of the current user that no
// one else may read or write.
func trusted(fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&^fileMode != 0 {
		return false
	}
	uid, ok := ownerOf(fi)
	return ok && uid == os.Getuid()
}

// distrust says why fi is not trusted.
func distrust(fi fs.FileInfo) string {
	if !fi.Mode().IsRegular() {
		return "not a regular file"
	}
	if uid, ok := ownerOf(fi); !ok || uid != os.Getuid() {
		return fmt.Sprintf("owned by user %d, not by you", uid)
	}
	return fmt.Sprintf("mode %04o is looser than 0600", fi.Mode().Perm())
}

// readTrusted reads a state file, refusing symbolic links, files of other
// users and files with permissions looser than 0600. The returned FileInfo
// is that of the file that was read.
func readTrusted(p string) ([]byte, fs.FileInfo, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, nil, fmt.Errorf("%s: a symbolic link: %w", p, errUntrusted)
		}
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("stat %s: %w", p, err)
	}
	if !trusted(fi) {
		return nil, fi, fmt.Errorf("%s: %s: %w", p, distrust(fi), errUntrusted)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fi, fmt.Errorf("read %s: %w", p, err)
	}
	if len(data) > maxFileBytes {
		return nil, fi, fmt.Errorf("%s: larger than %d bytes: %w", p, maxFileBytes, errUntrusted)
	}
	return data, fi, nil
}

// writeTemp writes data to a new 0600 file in dir, synced, and returns its
// path.
func writeTemp(dir string, data []byte) (string, error) {
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("create a file in %s: %w", dir, err)
	}
	name := f.Name()
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(name)
		return "", err
	}
	if err := f.Chmod(fileMode); err != nil {
		return fail(fmt.Errorf("set permissions of %s: %w", name, err))
	}
	if _, err := f.Write(data); err != nil {
		return fail(fmt.Errorf("write %s: %w", name, err))
	}
	if err := f.Sync(); err != nil {
		return fail(fmt.Errorf("sync %s: %w", name, err))
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return "", fmt.Errorf("close %s: %w", name, err)
	}
	return name, nil
}

// writeAtomic replaces p with data: readers see the old file or the whole
// new one, never a part.
func writeAtomic(p string, data []byte) error {
	tmp, err := writeTemp(filepath.Dir(p), data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("replace %s: %w", p, err)
	}
	return nil
}

// createExclusive creates p with data only if p does not exist yet, and
// atomically: the whole file appears at once or not at all. It reports
// fs.ErrExist when another writer created p first.
func createExclusive(p string, data []byte) error {
	tmp, err := writeTemp(filepath.Dir(p), data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fs.ErrExist
		}
		return fmt.Errorf("create %s: %w", p, err)
	}
	return nil
}

// quarantine removes the untrusted file judged by bad from p, so that a
// trusted file can take its place. If another writer replaced it in the
// meantime, that file is put back.
func quarantine(p string, bad fs.FileInfo) error {
	aside := p + ".untrusted-" + randomHex(4)
	if err := os.Rename(p, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("move untrusted %s aside: %w", p, err)
	}
	moved, err := os.Lstat(aside)
	if err == nil && bad != nil && !os.SameFile(moved, bad) {
		// Not the file we judged: restore it unless a new one appeared.
		if err := os.Link(aside, p); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("restore %s: %w", p, err)
		}
	}
	if err := os.Remove(aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", aside, err)
	}
	return nil
}

// listJSON returns the names (without .json) of the files in dir whose name
// passes valid; a missing directory is empty.
func listJSON(dir string, valid func(string) bool) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var names []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if ok && valid(name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// randomHex returns n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b)
}
