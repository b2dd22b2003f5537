package gate

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// goToolchainSwitch says why a go command downloads a Go toolchain, or "":
// with GOTOOLCHAIN=auto (Go's default) every go command, go version and
// go env among them, switches to the toolchain that go.work or go.mod asks
// for when the installed one is older, and fetches it from the module
// proxy. The agent writes go.mod, so `toolchain go1.99.1-DATA` sends DATA
// in the request's path (tried: golang.org/toolchain/@v/v0.0.1-go1.99.1-DATA…).
func (c *call) goToolchainSwitch() string {
	if os.Getenv("GOTOOLCHAIN") == "local" {
		return ""
	}
	dir := c.a.cwdReal()
	if dir == "" {
		dir = c.a.g.root
	}
	for real := range c.a.written {
		if b := path.Base(real); b == "go.mod" || b == "go.work" {
			return "this line writes " + b + " first, which can make go download the toolchain it names, the name in the request"
		}
	}
	for _, name := range [...]string{"go.work", "go.mod"} {
		file, size := c.a.findUp(dir, name)
		if file == "" {
			continue
		}
		for _, want := range c.a.goVersionsIn(file, size) {
			if want == "default" || want == "local" {
				continue
			}
			v := strings.TrimPrefix(want, "go")
			if !plainGoVersion(v) {
				return name + " asks for the Go toolchain " + want + ", which go downloads from the module proxy, the name in the request"
			}
			if have := c.a.g.installedGo(); have == "" || goVersionLess(have, v) {
				return name + " asks for Go " + v + ", newer than the installed Go, which go then downloads from the module proxy"
			}
		}
		if name == "go.work" && os.Getenv("GOWORK") != "off" {
			break // go.work decides; go.mod's lines are then not read for the switch
		}
	}
	return ""
}

// findUp is the path of name in dir or the nearest parent holding it, or
// "", and its size.
func (a *analysis) findUp(dir, name string) (string, int64) {
	var st unix.Stat_t // not os.Stat, which allocates what it returns
	for i, d := 0, path.Clean(dir); i < maxGitUp; i++ {
		if a.statIn(d, name, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			return d + "/" + name, st.Size
		}
		if d == "/" || d == "." || d == "" {
			return "", 0
		}
		d = path.Dir(d)
	}
	return "", 0
}

// maxGoModBytes bounds the go.mod or go.work file read for its go and
// toolchain lines; a larger one is taken as asking for an unknown
// toolchain.
const maxGoModBytes = 16 << 20

// goVersionsIn returns the values of the go and toolchain lines of a
// go.mod or go.work file of size bytes (as stat said a moment ago). Every
// line is read, however long (go reads a toolchain line after a 70 KB
// comment line too), at every command line: a file's state as stat(2)
// gives it does not tell a change made through a shared memory mapping,
// so what a file holds is never kept across lines.
func (a *analysis) goVersionsIn(file string, size int64) []string {
	data, err := readFileSized(file, a.fileBuf[:0], maxGoModBytes, size)
	defer func() { a.fileBuf = keepScratch(data) }()
	if err != nil {
		return nil
	}
	if len(data) > maxGoModBytes {
		return []string{"(unknown: the file is larger than 16 MiB)"}
	}
	return goVersionLines(data)
}

// goVersionLines returns the values of the go and toolchain lines of the
// text of a go.mod or go.work file.
func goVersionLines(data []byte) []string {
	var out []string
	for line := range bytes.Lines(data) {
		// The first two fields, as strings.Fields would split them.
		f0, rest := firstField(line)
		if string(f0) != "go" && string(f0) != "toolchain" {
			continue
		}
		if f1, _ := firstField(rest); len(f1) > 0 {
			out = append(out, strings.Trim(string(f1), `"`))
		}
	}
	return out
}

// firstField is the first field of b as strings.Fields splits it (at
// Unicode white space), and what follows it.
func firstField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	j := i
	for j < len(b) {
		r, n := utf8.DecodeRune(b[j:])
		if unicode.IsSpace(r) {
			break
		}
		j += n
	}
	return b[i:j], b[j:]
}

// plainGoVersion reports a release version such as 1.22, 1.22.3 or
// 1.23rc1, without a suffix that go would send as it is.
func plainGoVersion(v string) bool {
	if v == "" || len(v) > 16 {
		return false
	}
	v = strings.Replace(strings.Replace(v, "rc", ".", 1), "beta", ".", 1)
	for _, p := range strings.Split(v, ".") {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

// goVersionLess compares two plain Go versions by their numbers; a
// release candidate counts as its release.
func goVersionLess(a, b string) bool {
	num := func(v string) []int {
		v = strings.Replace(strings.Replace(v, "rc", ".", 1), "beta", ".", 1)
		var out []int
		for _, p := range strings.Split(v, ".") {
			n, _ := strconv.Atoi(p)
			out = append(out, n)
		}
		return out
	}
	x, y := num(a), num(b)
	for i := 0; i < len(x) || i < len(y); i++ {
		var p, q int
		if i < len(x) {
			p = x[i]
		}
		if i < len(y) {
			q = y[i]
		}
		if p != q {
			return p < q
		}
	}
	return false
}

// installedGo is the version of the go on PATH, read from its GOROOT's
// VERSION file once per gate (without running go); "" when unknown.
func (g *Gate) installedGo() string {
	g.goInstalled.Do(func() {
		p, err := exec.LookPath("go")
		if err != nil {
			return
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(p)), "VERSION"))
		if err != nil {
			return
		}
		first, _, _ := strings.Cut(string(b), "\n")
		if v := strings.TrimPrefix(strings.TrimSpace(first), "go"); plainGoVersion(v) {
			g.goVersion = v
		}
	})
	return g.goVersion
}
