// Package gitindex reads the paths a git index file tracks (versions 2, 3
// and 4), with the stat data git keeps for each, for the gate to tell a
// tracked file from an untracked one, and a changed one from one that is
// not, without running git.
package gitindex

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Hash sizes of git's object formats.
const (
	SHA1   = 20
	SHA256 = 32
)

// Entry is one path the index tracks, with the stat data git compares
// with the file's to tell whether the work tree's copy changed (each
// truncated to 32 bits, as git stores it).
type Entry struct {
	Path                string
	CtimeSec, CtimeNsec uint32
	MtimeSec, MtimeNsec uint32
	Ino, Size           uint32
	ID                  []byte // the object name of the contents the index holds (a part of the data read)
	AssumeValid         bool   // git takes the file as unchanged
	SkipWorktree        bool   // likewise (sparse checkout)
	IntentToAdd         bool   // git add -N: a placeholder for the file
}

// Paths returns every path the index data lists, in index order, for a
// repository whose object names are hashSize bytes long. Entries of a
// split index's shared part and a sparse index's collapsed directories
// are not expanded: the caller takes what is missing as untracked.
func Paths(data []byte, hashSize int) ([]string, error) {
	entries, err := Entries(data, hashSize)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.Path
	}
	return paths, nil
}

// Entries returns every entry the index data lists, as Paths does, with
// its stat data.
func Entries(data []byte, hashSize int) ([]Entry, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("not a git index: no DIRC signature")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("git index version %d is not one this reader knows (2, 3, 4)", version)
	}
	count := binary.BigEndian.Uint32(data[8:12])
	if uint64(count) > uint64(len(data))/8 {
		return nil, fmt.Errorf("git index claims %d entries in %d bytes", count, len(data))
	}
	entries := make([]Entry, 0, count)
	off, prev := 12, ""
	fixed := 40 + hashSize + 2
	for n := uint32(0); n < count; n++ {
		if off+fixed > len(data) {
			return nil, fmt.Errorf("git index entry %d: cut short at byte %d", n, off)
		}
		u32 := func(at int) uint32 { return binary.BigEndian.Uint32(data[off+at:]) }
		e := Entry{CtimeSec: u32(0), CtimeNsec: u32(4), MtimeSec: u32(8), MtimeNsec: u32(12), Ino: u32(20), Size: u32(36),
			ID: data[off+40 : off+40+hashSize : off+40+hashSize]}
		flags := binary.BigEndian.Uint16(data[off+fixed-2:])
		e.AssumeValid = flags&0x8000 != 0
		head := fixed
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, fmt.Errorf("git index entry %d: extended flags in a version 2 index", n)
			}
			if off+head+2 > len(data) {
				return nil, fmt.Errorf("git index entry %d: cut short at byte %d", n, off)
			}
			ext := binary.BigEndian.Uint16(data[off+head:])
			e.SkipWorktree, e.IntentToAdd = ext&0x4000 != 0, ext&0x2000 != 0
			head += 2
		}
		start := off + head
		if start > len(data) {
			return nil, fmt.Errorf("git index entry %d: cut short at byte %d", n, off)
		}
		var name string
		if version == 4 {
			strip, used := varint(data[start:])
			if used == 0 || strip > uint64(len(prev)) {
				return nil, fmt.Errorf("git index entry %d: bad path prefix at byte %d", n, start)
			}
			start += used
			end := indexByte(data, start)
			if end < 0 {
				return nil, fmt.Errorf("git index entry %d: path not terminated", n)
			}
			name = prev[:len(prev)-int(strip)] + string(data[start:end])
			off = end + 1
		} else {
			end := indexByte(data, start)
			if end < 0 {
				return nil, fmt.Errorf("git index entry %d: path not terminated", n)
			}
			name = string(data[start:end])
			off += (head + len(name) + 8) &^ 7
			if off > len(data) {
				return nil, fmt.Errorf("git index entry %d: padding runs past the end", n)
			}
		}
		e.Path = name
		entries = append(entries, e)
		prev = name
	}
	return entries, nil
}

func indexByte(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == 0 {
			return i
		}
	}
	return -1
}

// varint decodes git's offset varint (used for index v4 path prefixes);
// used is 0 when it is cut short or overflows.
func varint(b []byte) (v uint64, used int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v = uint64(c & 127)
	used = 1
	for c&128 != 0 {
		if used >= len(b) || used > 9 {
			return 0, 0
		}
		v++
		c = b[used]
		used++
		v = v<<7 + uint64(c&127)
	}
	return v, used
}
