// Package gitindex reads the paths a git index file tracks (versions 2, 3
// and 4), for the gate to tell a tracked file from an untracked one
// without running git.
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

// Paths returns every path the index data lists, in index order, for a
// repository whose object names are hashSize bytes long. Entries of a
// split index's shared part and a sparse index's collapsed directories
// are not expanded: the caller takes what is missing as untracked.
func Paths(data []byte, hashSize int) ([]string, error) {
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
	paths := make([]string, 0, count)
	off, prev := 12, ""
	fixed := 40 + hashSize + 2
	for n := uint32(0); n < count; n++ {
		if off+fixed > len(data) {
			return nil, fmt.Errorf("git index entry %d: cut short at byte %d", n, off)
		}
		flags := binary.BigEndian.Uint16(data[off+fixed-2:])
		head := fixed
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, fmt.Errorf("git index entry %d: extended flags in a version 2 index", n)
			}
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
		paths = append(paths, name)
		prev = name
	}
	return paths, nil
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
