package gate

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Bounds on what the gate reads to see what an extractor or patcher
// would write.
const (
	// maxArchiveBytes is the largest archive or patch file read.
	maxArchiveBytes = 64 << 20
	// maxMembers is the most members looked at.
	maxMembers = 20000
	// maxLinkText is the longest symbolic link text read from a zip.
	maxLinkText = 4096
)

// memberKind is what an archive member makes.
type memberKind uint8

const (
	memberFile memberKind = iota
	memberDir
	memberSymlink
	memberHardlink
	memberSpecial // a device or another special file
)

// member is one name an extractor or patcher writes.
type member struct {
	name string
	kind memberKind
	// link is the text of a symbolic link, or the name a hard link
	// points to.
	link string
}

// errOpaque is an archive whose members cannot be listed.
var errOpaque = errors.New("the gate cannot list it")

// readLimited reads a whole file, refusing anything that is not a regular
// file or is larger than maxArchiveBytes.
func readLimited(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if fi.Size() > maxArchiveBytes {
		return nil, fmt.Errorf("%s is larger than %d MB", p, maxArchiveBytes>>20)
	}
	return io.ReadAll(io.LimitReader(f, maxArchiveBytes+1))
}

// tarMembers lists a tar archive, plain or compressed with gzip or bzip2.
func tarMembers(data []byte) ([]member, error) {
	var r io.Reader = bytes.NewReader(data)
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, err
		}
		r = io.LimitReader(z, 4*maxArchiveBytes)
	case bytes.HasPrefix(data, []byte("BZh")):
		r = io.LimitReader(bzip2.NewReader(r), 4*maxArchiveBytes)
	case bytes.HasPrefix(data, []byte{0xfd, '7', 'z', 'X', 'Z'}), bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}),
		bytes.HasPrefix(data, []byte{0x5d, 0x00, 0x00}), bytes.HasPrefix(data, []byte{0x04, 0x22, 0x4d, 0x18}):
		return nil, fmt.Errorf("xz, zstd, lzma or lz4 compression: %w", errOpaque)
	}
	tr := tar.NewReader(r)
	var out []member
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(out) == maxMembers {
			return nil, fmt.Errorf("more than %d members: %w", maxMembers, errOpaque)
		}
		m := member{name: h.Name}
		switch h.Typeflag {
		case tar.TypeReg, tar.TypeRegA, tar.TypeGNUSparse, tar.TypeCont:
		case tar.TypeDir:
			m.kind = memberDir
		case tar.TypeSymlink:
			m.kind, m.link = memberSymlink, h.Linkname
		case tar.TypeLink:
			m.kind, m.link = memberHardlink, h.Linkname
		case tar.TypeXHeader, tar.TypeXGlobalHeader, tar.TypeGNULongName, tar.TypeGNULongLink:
			continue
		default:
			m.kind = memberSpecial
		}
		out = append(out, m)
	}
}

// zipMembers lists a zip archive; a member with the Unix mode of a
// symbolic link is one (unzip makes it), its text being its contents.
func zipMembers(data []byte) ([]member, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	if len(zr.File) > maxMembers {
		return nil, fmt.Errorf("more than %d members: %w", maxMembers, errOpaque)
	}
	out := make([]member, 0, len(zr.File))
	for _, f := range zr.File {
		m := member{name: f.Name}
		mode := f.Mode()
		switch {
		case mode.IsDir():
			m.kind = memberDir
		case mode&os.ModeSymlink != 0:
			m.kind = memberSymlink
			rc, err := f.Open()
			if err != nil {
				return nil, err
			}
			b, err := io.ReadAll(io.LimitReader(rc, maxLinkText))
			rc.Close()
			if err != nil {
				return nil, err
			}
			m.link = string(b)
		case !mode.IsRegular():
			m.kind = memberSpecial
		}
		out = append(out, m)
	}
	return out, nil
}

// patchMembers lists the files a patch (unified, context or git format;
// also an mbox of them) creates, changes, renames or removes, before any
// -p stripping. A git diff that makes a symbolic link gives its text.
func patchMembers(data []byte) []member {
	var out []member
	seen := map[string]bool{}
	add := func(name string, kind memberKind, link string) {
		name = strings.TrimSpace(name)
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			name = name[:i] // a timestamp follows
		}
		name = strings.Trim(name, `"`)
		if name == "" || name == "/dev/null" {
			return
		}
		key := name + "\x00" + link
		if !seen[key] {
			seen[key] = true
			out = append(out, member{name: name, kind: kind, link: link})
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20) // grows from 4 KiB as lines need, to 1 MiB
	symlink, pending := false, ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			symlink, pending = false, ""
			if a, b, ok := strings.Cut(strings.TrimPrefix(line, "diff --git "), " "); ok {
				add(a, memberFile, "")
				add(b, memberFile, "")
				pending = b
			}
		case strings.HasPrefix(line, "new file mode 120000"), strings.HasPrefix(line, "new mode 120000"):
			symlink = true
		case strings.HasPrefix(line, "rename to "), strings.HasPrefix(line, "copy to "), strings.HasPrefix(line, "rename from "), strings.HasPrefix(line, "copy from "):
			_, name, _ := strings.Cut(line, " ")
			_, name, _ = strings.Cut(name, " ")
			add(name, memberFile, "")
		case strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "), strings.HasPrefix(line, "*** "), strings.HasPrefix(line, "Index: "):
			if strings.HasPrefix(line, "*** ") && strings.HasSuffix(strings.TrimSpace(line), "****") {
				continue // a context hunk's range
			}
			add(line[strings.IndexByte(line, ' ')+1:], memberFile, "")
			if strings.HasPrefix(line, "+++ ") && !strings.Contains(line, "/dev/null") {
				pending = line[4:]
			}
		case symlink && strings.HasPrefix(line, "+") && !strings.HasPrefix(line, "+++"):
			add(pending, memberSymlink, line[1:])
		}
	}
	return out
}

// stripComponents drops n leading directories from a member name, as
// patch -p and tar --strip-components do; ok is false when nothing is
// left.
func stripComponents(name string, n int) (string, bool) {
	for ; n > 0; n-- {
		i := strings.IndexByte(name, '/')
		if i < 0 {
			return "", false
		}
		name = strings.TrimLeft(name[i+1:], "/")
	}
	return name, name != ""
}
