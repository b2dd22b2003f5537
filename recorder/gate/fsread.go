package gate

import (
	"github.com/cuff-dev/cuff/recorder/gate/internal/gitignore"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// readFileInto reads the file at p (its links followed) into buf, which it
// returns grown, reading at most limit+1 bytes (all of it when limit is
// negative). It reads with plain open, read and close: os.Open also puts
// the descriptor into non-blocking mode and tries to add it to the
// network poller, five more system calls for a regular file, which cost
// more than the read itself for the small files the gate looks at (go.mod,
// .git/config). It opens non-blocking, which changes nothing for a
// regular file, so that a named pipe put in a file's place is read at once
// (as empty, or an error) instead of waiting for a writer.
func readFileInto(p string, buf []byte, limit int) ([]byte, error) {
	return readFileSized(p, buf, limit, -1)
}

// readFileSized is readFileInto for a file that stat(2) just said holds
// size bytes (buf empty): once it has read that many it stops, without the
// read that would find the end. What it returns is the file as it was when
// looked at; a file that grows after that is like one changed after it was
// read, which the gate cannot see either. A size of 0 says nothing (files
// of /proc report it and hold text): then it reads to the end.
func readFileSized(p string, buf []byte, limit int, size int64) ([]byte, error) {
	fd, err := openRetry(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK)
	if err != nil {
		return buf, err
	}
	defer unix.Close(fd)
	if size <= 0 {
		size = -1
	} else if limit < 0 || size <= int64(limit) {
		buf = slices.Grow(buf, int(size)+1)
	}
	for {
		if size > 0 && int64(len(buf)) == size {
			return buf, nil
		}
		if limit >= 0 && len(buf) > limit {
			return buf, nil
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, max(512, cap(buf)))
		}
		room := buf[len(buf):cap(buf)]
		if limit >= 0 && len(room) > limit+1-len(buf) {
			room = room[:limit+1-len(buf)]
		}
		n, err := unix.Read(fd, room)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return buf, err
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// openRetry is open(2), tried again when a signal interrupts it.
func openRetry(p string, flags int) (int, error) {
	for {
		fd, err := unix.Open(p, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// readFile is the whole file at p, read as readFileInto reads it; nil
// when it cannot be read.
func readFile(p string) ([]byte, error) { return readFileInto(p, nil, -1) }

// dirEntry is one name in a directory listing, with its type as the
// directory reports it: the gitignore walk's entry, so that a walk takes
// the line's listings as they are.
type dirEntry = gitignore.Entry

// maxDirEntries bounds the names read from one directory: every caller
// gives up on a directory with more than maxGlobEntries names, so reading
// further would change nothing.
const maxDirEntries = maxGlobEntries + 1

// readDir lists the directory p (its links followed) in name order, as
// os.ReadDir would, reading no more than maxDirEntries names; a
// directory is listed once per command line (the listing is kept for the
// analysis of this line only: the next line lists it again). ok is false
// when it cannot be read.
func (a *analysis) readDir(p string) (entries []dirEntry, ok bool) {
	if l, ok := a.dirs[p]; ok {
		return l.entries, l.ok
	}
	entries, err := a.listDir(p)
	if a.dirs == nil {
		a.dirs = map[string]dirListing{}
	}
	a.dirs[p] = dirListing{entries, err == nil}
	return entries, err == nil
}

// dirListing is a directory's listing as readDir read it.
type dirListing struct {
	entries []dirEntry
	ok      bool
}

// sortEntries puts a listing in name order, as os.ReadDir returns it.
func sortEntries(entries []dirEntry) {
	slices.SortFunc(entries, func(x, y dirEntry) int { return strings.Compare(x.Name, y.Name) })
}

// maxScratch is the largest scratch buffer an analysis keeps for the next
// command line.
const maxScratch = 64 << 10

// keepScratch is b emptied, to be used again, or nil when it grew too
// large to keep.
func keepScratch(b []byte) []byte {
	if cap(b) > maxScratch {
		return nil
	}
	return b[:0]
}
