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
// moving the clock, which needs privilege, could). That holds on the local
// filesystems whose times the kernel sets itself, and only there: procfs,
// sysfs and the like list new names without moving their times, and FUSE
// or network filesystems report the times they are given, so listings are
// kept only on the filesystems keptFilesystem names. A listing is kept
// only when its ctime and mtime were already older than settleTime when it
// was read, so that a later change, stamped with the coarse clock of the
// filesystem, cannot carry the same time. What files hold is never kept:
// a write through a shared memory mapping changes a file without a stamp.
type dirCache struct {
	mu     sync.Mutex
	m      map[string]keptDir
	weight int // the entries kept, and one per listing
}

// dirKey is one state of a directory: any change to the names in it, or
// its replacement, gives another key.
type dirKey struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds since 1970
}

// keptDir is a listing and the state of its directory when it was read.
type keptDir struct {
	key     dirKey
	entries []dirEntry // shared, never changed
}

// settleTime is how old a directory's change times must be, when it is
// read, for its listing to be kept: more than the coarsest timestamp
// granularity of the filesystems kept (ext4 with small inodes stamps whole
// seconds), so that a later change cannot carry the same time.
const settleTime = 3 * time.Second

// maxKeptWeight bounds what a dirCache keeps, in directory entries (each
// weighs one, and each listing one more): about 10 MB of listings. Past
// it, the cache starts over.
const maxKeptWeight = 200_000

// dirKeyOf is the state of a directory as stat(2) gives it.
func dirKeyOf(st *unix.Stat_t) dirKey {
	return dirKey{dev: uint64(st.Dev), ino: uint64(st.Ino), size: int64(st.Size), mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// settled reports whether both change times of k lie more than
// settleTime before now.
func (k dirKey) settled(now time.Time) bool {
	limit := now.Add(-settleTime).UnixNano()
	return k.ctime < limit && k.mtime < limit
}

// get returns the listing kept for p when its directory is in state k.
func (c *dirCache) get(p string, k dirKey) ([]dirEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.m[p]
	if !ok || d.key != k {
		return nil, false
	}
	return d.entries, true
}

// put keeps the listing of p, read while its directory was in state k,
// when k is settled (now being read before the state was); what was kept
// for p is dropped otherwise.
func (c *dirCache) put(p string, k dirKey, entries []dirEntry, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[p]; ok {
		c.weight -= len(old.entries) + 1
		delete(c.m, p)
	}
	w := len(entries) + 1
	if !k.settled(now) || w > maxKeptWeight {
		return
	}
	if c.m == nil || c.weight+w > maxKeptWeight {
		c.m, c.weight = map[string]keptDir{}, 0
	}
	c.m[p] = keptDir{key: k, entries: entries}
	c.weight += w
}
