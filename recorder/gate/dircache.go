package gate

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// dirCache keeps the directory listings a gate read, for a gate that
// decides many command lines (the MCP server's gates, policy dry runs and
// replays, bulk classification): a listing is used again only while a
// stat of its directory finds the same directory with the same change
// times it had when it was read. A gate deciding one line, as the hook's
// does, keeps nothing (it lists as before and pays for no stat).
//
// Why that is enough: adding, removing or renaming a name in a directory
// sets its change time (ctime) to the time of the change, and no process of
// the agent's user can set a ctime back (utimensat sets it to now; only
// moving the clock, which needs privilege, could). A listing is kept only
// when its ctime and mtime were already older than settleTime when it was
// read, so that a later change, stamped with the coarse clock of the
// filesystem (up to two seconds on some), cannot carry the same time. A
// directory replaced by another one has another device and inode number.
type dirCache = keptCache[[]dirEntry]

// keptCache keeps, by path, what a gate read from a file or directory
// with its state when it was read (dirCache says why a state tells a
// change); the values are shared and never changed.
type keptCache[T any] struct {
	mu     sync.Mutex
	m      map[string]kept[T]
	weight int // the entries or lines kept, summed
}

// dirKey is one state of a directory or file: any change to the names in
// it (or to a file's content), or its replacement, gives another key.
type dirKey struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since 1970
}

// kept is what was read and the state it was read in.
type kept[T any] struct {
	key    dirKey
	value  T
	weight int
}

// settleTime is how old a directory's change times must be, when it is
// read, for its listing to be kept: more than the coarsest timestamp
// granularity of the filesystems Linux mounts (FAT's two seconds), so that
// a later change cannot carry the same time.
const settleTime = 3 * time.Second

// maxKeptWeight bounds what a keptCache keeps, in directory entries or
// lines (each weighs one, and each path one more): about 10 MB of
// listings. Past it, the cache starts over.
const maxKeptWeight = 200_000

// dirKeyOf is the state of a directory or file as stat(2) gives it.
func dirKeyOf(st *unix.Stat_t) dirKey {
	return dirKey{dev: uint64(st.Dev), ino: uint64(st.Ino), size: int64(st.Size), mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// settled reports whether both change times of k lie more than
// settleTime before now.
func (k dirKey) settled(now time.Time) bool {
	limit := now.Add(-settleTime).UnixNano()
	return k.ctime < limit && k.mtime < limit
}

// get returns what was kept for p when p is in state k.
func (c *keptCache[T]) get(p string, k dirKey) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[p]
	if !ok || d.key != k {
		var zero T
		return zero, false
	}
	return d.value, true
}

// put keeps v, read from p while p was in state k, when k is settled
// (now being read before the state was); what was kept for p is dropped
// otherwise. n is how many entries or lines v holds.
func (c *keptCache[T]) put(p string, k dirKey, v T, n int, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[p]; ok {
		c.weight -= old.weight
		delete(c.m, p)
	}
	if !k.settled(now) {
		return
	}
	w := n + 1
	if w > maxKeptWeight {
		return
	}
	if c.m == nil || c.weight+w > maxKeptWeight {
		c.m, c.weight = map[string]kept[T]{}, 0
	}
	c.m[p] = kept[T]{key: k, value: v, weight: w}
	c.weight += w
}
