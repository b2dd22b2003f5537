// Package gitobj reads objects of a git repository without running git
// (whose configuration can make it run programs): enough to find which
// object a path has in the commit HEAD names, so that the gate can tell a
// change the index stages from what is committed already. It reads loose
// objects and version 2 pack indexes with their packs (deltas included);
// anything else (alternates, a reftable) is an error, which callers take
// as "not known".
package gitobj

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Hash sizes of git's object formats.
const (
	SHA1   = 20
	SHA256 = 32
)

// Object types as packs number them.
const (
	typeCommit   = 1
	typeTree     = 2
	typeBlob     = 3
	typeTag      = 4
	typeOfsDelta = 6
	typeRefDelta = 7
)

// Bounds on what is read: larger objects, longer delta chains or deeper
// paths are errors.
const (
	maxObject     = 16 << 20 // commits and trees; a root tree of 100,000 files is about 4 MB
	maxDeltaDepth = 64
	maxPathDepth  = 256
)

// Repo reads the objects of one repository.
type Repo struct {
	common   string // the common git directory (objects, refs)
	hashSize int    // 20 (SHA-1) or 32 (SHA-256)
	packs    []*pack
	scanned  bool
}

// Open reads the repository whose common git directory is common, with
// object names of hashSize bytes.
func Open(common string, hashSize int) *Repo {
	return &Repo{common: common, hashSize: hashSize}
}

// Head is the commit HEAD names in the git directory gitDir (a linked
// worktree's own HEAD; refs are read from the common directory).
func (r *Repo) Head(gitDir string) ([]byte, error) {
	data, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	ref := strings.TrimSpace(string(data))
	for range 8 { // symbolic refs may chain
		name, ok := strings.CutPrefix(ref, "ref: ")
		if !ok {
			return r.parseID(ref)
		}
		if ref, err = r.readRef(gitDir, strings.TrimSpace(name)); err != nil {
			return nil, err
		}
	}
	return nil, errors.New("HEAD: too many symbolic refs")
}

// readRef is the value of the ref name: its loose file (in gitDir for a
// worktree's own refs, else in the common directory), else packed-refs.
func (r *Repo) readRef(gitDir, name string) (string, error) {
	if strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("ref %q is not a ref name", name)
	}
	for _, dir := range []string{gitDir, r.common} {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
			return strings.TrimSpace(string(data)), nil
		}
	}
	if _, err := os.Stat(filepath.Join(r.common, "reftable")); err == nil {
		return "", errors.New("the repository keeps its refs in a reftable, which this reader does not read")
	}
	data, err := os.ReadFile(filepath.Join(r.common, "packed-refs"))
	if err != nil {
		return "", fmt.Errorf("ref %s not found", name)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if id, n, ok := strings.Cut(line, " "); ok && n == name {
			return id, nil
		}
	}
	return "", fmt.Errorf("ref %s not found", name) // an unborn branch
}

// parseID reads a hex object name.
func (r *Repo) parseID(s string) ([]byte, error) {
	id, err := hex.DecodeString(s)
	if err != nil || len(id) != r.hashSize {
		return nil, fmt.Errorf("%q is not an object name", s)
	}
	return id, nil
}

// TreeEntry is the object name the file at path (slash-separated) has in
// the tree of commit; found is false when the commit has no such path.
func (r *Repo) TreeEntry(commit []byte, path string) (id []byte, found bool, err error) {
	typ, data, err := r.Read(commit)
	if err != nil {
		return nil, false, err
	}
	if typ != typeCommit {
		return nil, false, errors.New("HEAD does not name a commit")
	}
	line, _, _ := bytes.Cut(data, []byte("\n"))
	t, ok := bytes.CutPrefix(line, []byte("tree "))
	if !ok {
		return nil, false, errors.New("a commit without a tree line")
	}
	tree, err := r.parseID(string(t))
	if err != nil {
		return nil, false, err
	}
	parts := strings.Split(path, "/")
	if len(parts) > maxPathDepth {
		return nil, false, errors.New("path too deep")
	}
	for i, name := range parts {
		typ, data, err := r.Read(tree)
		if err != nil {
			return nil, false, err
		}
		if typ != typeTree {
			return nil, false, nil // a file where the path goes on
		}
		entry, isTree, ok, err := r.findEntry(data, name)
		if err != nil || !ok {
			return nil, false, err
		}
		if i == len(parts)-1 {
			if isTree {
				return nil, false, nil
			}
			return entry, true, nil
		}
		if !isTree {
			return nil, false, nil
		}
		tree = entry
	}
	return nil, false, nil
}

// findEntry looks name up in the tree data: "mode name\0id" entries.
func (r *Repo) findEntry(data []byte, name string) (id []byte, isTree, found bool, err error) {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || nul+1+r.hashSize > len(data) {
			return nil, false, false, errors.New("a damaged tree")
		}
		mode, n := data[:sp], data[sp+1:nul]
		id := data[nul+1 : nul+1+r.hashSize]
		data = data[nul+1+r.hashSize:]
		if string(n) == name {
			return id, string(mode) == "40000", true, nil
		}
	}
	return nil, false, false, nil
}

// Read returns the type and contents of the object id.
func (r *Repo) Read(id []byte) (int, []byte, error) {
	return r.read(id, 0)
}

func (r *Repo) read(id []byte, depth int) (int, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, errors.New("delta chain too long")
	}
	if len(id) != r.hashSize {
		return 0, nil, errors.New("an object name of the wrong length")
	}
	h := hex.EncodeToString(id)
	if f, err := os.Open(filepath.Join(r.common, "objects", h[:2], h[2:])); err == nil {
		defer f.Close()
		return readLoose(f)
	}
	if err := r.scanPacks(); err != nil {
		return 0, nil, err
	}
	for _, p := range r.packs {
		if off, ok := p.find(id); ok {
			return r.readPacked(p, off, depth)
		}
	}
	return 0, nil, fmt.Errorf("object %s not found", h)
}

// readLoose reads a zlib-compressed "type size\0contents" object.
func readLoose(f io.Reader) (int, []byte, error) {
	z, err := zlib.NewReader(f)
	if err != nil {
		return 0, nil, fmt.Errorf("a damaged loose object: %w", err)
	}
	defer z.Close()
	data, err := io.ReadAll(io.LimitReader(z, maxObject+64))
	if err != nil {
		return 0, nil, fmt.Errorf("a damaged loose object: %w", err)
	}
	head, body, ok := bytes.Cut(data, []byte{0})
	if !ok || len(data) > maxObject+32 {
		return 0, nil, errors.New("a damaged or too large loose object")
	}
	kind, _, _ := bytes.Cut(head, []byte(" "))
	switch string(kind) {
	case "commit":
		return typeCommit, body, nil
	case "tree":
		return typeTree, body, nil
	case "blob":
		return typeBlob, body, nil
	case "tag":
		return typeTag, body, nil
	}
	return 0, nil, fmt.Errorf("a loose object of unknown type %q", kind)
}

// pack is one pack and its index.
type pack struct {
	path     string // the .pack file
	fanout   [256]uint32
	names    []byte // count × hashSize
	offsets  []byte // count × 4
	large    []byte // 8-byte offsets
	hashSize int
}

// scanPacks reads the pack indexes once.
func (r *Repo) scanPacks() error {
	if r.scanned {
		return nil
	}
	r.scanned = true
	if _, err := os.Stat(filepath.Join(r.common, "objects", "info", "alternates")); err == nil {
		return errors.New("the repository borrows objects from another (alternates), which this reader does not follow")
	}
	idxs, _ := filepath.Glob(filepath.Join(r.common, "objects", "pack", "*.idx"))
	for _, idx := range idxs {
		p, err := readIndex(idx, r.hashSize)
		if err != nil {
			return err
		}
		r.packs = append(r.packs, p)
	}
	return nil
}

// readIndex reads a version 2 pack index.
func readIndex(path string, hashSize int) (*pack, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) < 8+256*4 || string(data[:4]) != "\xfftOc" || binary.BigEndian.Uint32(data[4:8]) != 2 {
		return nil, fmt.Errorf("%s is not a version 2 pack index", path)
	}
	p := &pack{path: strings.TrimSuffix(path, ".idx") + ".pack", hashSize: hashSize}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(data[8+4*i:])
	}
	n := int(p.fanout[255])
	at := 8 + 256*4
	need := at + n*hashSize + n*4 + n*4
	if n < 0 || need > len(data) || n > len(data) {
		return nil, fmt.Errorf("%s is damaged", path)
	}
	p.names = data[at : at+n*hashSize]
	at += n*hashSize + n*4 // names, then CRCs
	p.offsets = data[at : at+n*4]
	p.large = data[at+n*4:]
	return p, nil
}

// find is the offset of id in the pack.
func (p *pack) find(id []byte) (int64, bool) {
	lo := uint32(0)
	if id[0] > 0 {
		lo = p.fanout[id[0]-1]
	}
	hi := p.fanout[id[0]]
	if hi < lo || int(hi)*p.hashSize > len(p.names) {
		return 0, false
	}
	i := lo + uint32(sort.Search(int(hi-lo), func(k int) bool {
		j := int(lo) + k
		return bytes.Compare(p.names[j*p.hashSize:(j+1)*p.hashSize], id) >= 0
	}))
	if i >= hi || !bytes.Equal(p.names[int(i)*p.hashSize:int(i+1)*p.hashSize], id) {
		return 0, false
	}
	off := binary.BigEndian.Uint32(p.offsets[4*i:])
	if off&0x80000000 == 0 {
		return int64(off), true
	}
	k := int(off & 0x7fffffff)
	if 8*k+8 > len(p.large) {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(p.large[8*k:])), true
}

// readPacked reads the object at off in p, applying deltas.
func (r *Repo) readPacked(p *pack, off int64, depth int) (int, []byte, error) {
	f, err := os.Open(p.path)
	if err != nil {
		return 0, nil, fmt.Errorf("open %s: %w", p.path, err)
	}
	defer f.Close()
	return r.packedAt(p, f, off, depth)
}

func (r *Repo) packedAt(p *pack, f *os.File, off int64, depth int) (int, []byte, error) {
	if depth > maxDeltaDepth {
		return 0, nil, errors.New("delta chain too long")
	}
	var head [32 + 64]byte
	n, err := f.ReadAt(head[:], off)
	if n == 0 {
		return 0, nil, fmt.Errorf("read %s: %w", p.path, err)
	}
	typ, size, used, ok := objectHeader(head[:n])
	if !ok || size > maxObject {
		return 0, nil, errors.New("a damaged or too large packed object")
	}
	switch typ {
	case typeCommit, typeTree, typeBlob, typeTag:
		data, err := inflate(f, off+int64(used), size)
		return typ, data, err
	case typeOfsDelta:
		back, m, ok := ofsDeltaOffset(head[used:n])
		if !ok || back <= 0 || back > off {
			return 0, nil, errors.New("a damaged delta")
		}
		delta, err := inflate(f, off+int64(used+m), size)
		if err != nil {
			return 0, nil, err
		}
		bt, base, err := r.packedAt(p, f, off-back, depth+1)
		if err != nil {
			return 0, nil, err
		}
		out, err := ApplyDelta(base, delta)
		return bt, out, err
	case typeRefDelta:
		if used+r.hashSize > n {
			return 0, nil, errors.New("a damaged delta")
		}
		baseID := append([]byte(nil), head[used:used+r.hashSize]...)
		delta, err := inflate(f, off+int64(used+r.hashSize), size)
		if err != nil {
			return 0, nil, err
		}
		bt, base, err := r.read(baseID, depth+1)
		if err != nil {
			return 0, nil, err
		}
		out, err := ApplyDelta(base, delta)
		return bt, out, err
	}
	return 0, nil, fmt.Errorf("a packed object of unknown type %d", typ)
}

// objectHeader reads a packed object's type and size.
func objectHeader(b []byte) (typ int, size int64, used int, ok bool) {
	if len(b) == 0 {
		return 0, 0, 0, false
	}
	c := b[0]
	typ, size, used = int(c>>4&7), int64(c&15), 1
	shift := uint(4)
	for c&0x80 != 0 {
		if used >= len(b) || shift > 56 {
			return 0, 0, 0, false
		}
		c = b[used]
		used++
		size |= int64(c&0x7f) << shift
		shift += 7
	}
	return typ, size, used, true
}

// ofsDeltaOffset reads an offset delta's distance back to its base.
func ofsDeltaOffset(b []byte) (back int64, used int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	c := b[0]
	back, used = int64(c&0x7f), 1
	for c&0x80 != 0 {
		if used >= len(b) || back > 1<<55 {
			return 0, 0, false
		}
		c = b[used]
		used++
		back = (back+1)<<7 | int64(c&0x7f)
	}
	return back, used, true
}

// inflate reads the zlib stream at off, which holds size bytes.
func inflate(f *os.File, off, size int64) ([]byte, error) {
	z, err := zlib.NewReader(io.NewSectionReader(f, off, 1<<62))
	if err != nil {
		return nil, fmt.Errorf("a damaged packed object: %w", err)
	}
	defer z.Close()
	// Grown as the stream gives bytes, not made at the size the header
	// claims: a damaged header costs no allocation of its own.
	data, err := io.ReadAll(io.LimitReader(z, size))
	if err != nil || int64(len(data)) != size {
		return nil, fmt.Errorf("a damaged packed object: %d of %d bytes (%v)", len(data), size, err)
	}
	return data, nil
}

// ApplyDelta applies a git delta to base.
func ApplyDelta(base, delta []byte) ([]byte, error) {
	srcSize, n := deltaSize(delta)
	if n == 0 || srcSize != uint64(len(base)) {
		return nil, errors.New("a delta for another base")
	}
	delta = delta[n:]
	dstSize, n := deltaSize(delta)
	if n == 0 || dstSize > maxObject {
		return nil, errors.New("a damaged or too large delta")
	}
	delta = delta[n:]
	out := make([]byte, 0, min(dstSize, 1<<20)) // grown as the delta gives bytes
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0: // copy from base
			offset, rest, ok1 := copyField(op, 4, delta)
			size, rest, ok2 := copyField(op>>4, 3, rest)
			if !ok1 || !ok2 {
				return nil, errors.New("a damaged delta")
			}
			delta = rest
			if size == 0 {
				size = 0x10000
			}
			if offset+size > uint64(len(base)) || uint64(len(out))+size > dstSize {
				return nil, errors.New("a damaged delta")
			}
			out = append(out, base[offset:offset+size]...)
		case op != 0: // insert
			if int(op) > len(delta) || uint64(len(out))+uint64(op) > dstSize {
				return nil, errors.New("a damaged delta")
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, errors.New("a damaged delta")
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errors.New("a damaged delta")
	}
	return out, nil
}

// copyField reads a copy instruction's offset (n = 4) or size (n = 3):
// the bytes present are those whose bits are set in flags, little-endian.
func copyField(flags byte, n int, delta []byte) (v uint64, rest []byte, ok bool) {
	for i := range n {
		if flags&(1<<i) != 0 {
			if len(delta) == 0 {
				return 0, nil, false
			}
			v |= uint64(delta[0]) << (8 * i)
			delta = delta[1:]
		}
	}
	return v, delta, true
}

// deltaSize reads a delta's little-endian base-128 size.
func deltaSize(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
