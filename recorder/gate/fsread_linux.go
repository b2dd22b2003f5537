//go:build linux

package gate

import (
	"encoding/binary"
	"time"

	"golang.org/x/sys/unix"
)

// listDir reads the directory p with getdents64 into the analysis's
// buffer: the names land in one string, and the types come from the
// entries themselves (an entry of unknown type is looked up, as
// os.ReadDir does). Opened with O_DIRECTORY, anything else than a
// directory fails at once (os.ReadDir would block opening a FIFO). A gate
// that decides many lines keeps the listings (dirCache): a kept one is
// used while a stat finds its directory unchanged.
func (a *analysis) listDir(p string) ([]dirEntry, error) {
	var st unix.Stat_t
	if a.keepListings && a.statPath(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if entries, ok := a.g.listings.get(p, dirKeyOf(&st)); ok {
			return entries, nil
		}
	}
	fd, err := openRetry(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if !a.keepListings {
		return a.readEntries(fd)
	}
	// The clock is read before the directory's state: a change after it
	// is stamped later than anything settled then (dirCache).
	now := time.Now()
	if err := unix.Fstat(fd, &st); err != nil {
		return a.readEntries(fd)
	}
	entries, err := a.readEntries(fd)
	var fs unix.Statfs_t
	if err == nil && unix.Fstatfs(fd, &fs) == nil && keptFilesystem(uint32(fs.Type)) {
		a.g.listings.put(p, dirKeyOf(&st), entries, now)
	}
	return entries, err
}

// keptFilesystem reports the filesystems whose directories the kernel
// stamps with the time of every change to their names (dirCache): local
// disk filesystems and tmpfs. procfs, sysfs, cgroupfs and devpts list new
// names without moving their times; FUSE and network filesystems report
// the times they are given; overlayfs shows a name added to a lower layer
// without stamping the merged directory (a user namespace may mount one).
func keptFilesystem(magic uint32) bool {
	switch magic {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC, unix.F2FS_SUPER_MAGIC,
		unix.BCACHEFS_SUPER_MAGIC, zfsSuperMagic:
		return true
	}
	return false
}

// zfsSuperMagic is OpenZFS's f_type (x/sys/unix does not name it).
const zfsSuperMagic = 0x2fc12fc1

// readEntries reads the open directory fd in name order.
func (a *analysis) readEntries(fd int) ([]dirEntry, error) {
	if cap(a.dirBuf) < 8192 {
		a.dirBuf = make([]byte, 8192)
	}
	buf := a.dirBuf[:cap(a.dirBuf)]
	type raw struct {
		start, end int // in names
		typ        byte
	}
	var rawBuf [64]raw
	raws := rawBuf[:0]
	names := a.nameBuf[:0]
	defer func() { a.nameBuf = keepScratch(names) }()
read:
	for len(raws) < maxDirEntries {
		n, err := unix.ReadDirent(fd, buf)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, err
		case n == 0:
			break read
		}
		// struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16,
		// d_type u8, d_name (NUL-terminated).
		for b := buf[:n]; len(b) >= 19 && len(raws) < maxDirEntries; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			typ, name := b[18], b[19:reclen]
			b = b[reclen:]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			if string(name) == "." || string(name) == ".." {
				continue
			}
			start := len(names)
			names = append(names, name...)
			raws = append(raws, raw{start, len(names), typ})
		}
	}
	if len(raws) == 0 {
		return nil, nil
	}
	all := string(names)
	entries := make([]dirEntry, 0, len(raws))
	for _, r := range raws {
		e := dirEntry{Name: all[r.start:r.end]}
		typ := r.typ
		if typ == unix.DT_UNKNOWN {
			// The filesystem does not say: look, as os.ReadDir does
			// (skipping a name gone meanwhile).
			var st unix.Stat_t
			switch err := unix.Fstatat(fd, e.Name, &st, unix.AT_SYMLINK_NOFOLLOW); {
			case err == unix.ENOENT:
				continue
			case err != nil:
				return nil, err
			}
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFDIR:
				typ = unix.DT_DIR
			case unix.S_IFLNK:
				typ = unix.DT_LNK
			}
		}
		e.Dir, e.Link = typ == unix.DT_DIR, typ == unix.DT_LNK
		entries = append(entries, e)
	}
	sortEntries(entries)
	return entries, nil
}
