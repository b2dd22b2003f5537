package gate

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadDirAsOSReadDir: the gate's directory listing gives the names,
// in the order, and the directory and link types os.ReadDir gives, and
// fails where it fails.
func TestReadDirAsOSReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"sub", ".hidden-dir", "b"} {
		if err := os.Mkdir(dir+"/"+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a.go", ".env", "Z", "x y", "é"} {
		if err := os.WriteFile(dir+"/"+f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"to-dir": "sub", "to-file": "a.go", "dangling": "nowhere"} {
		if err := os.Symlink(target, dir+"/"+name); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(dir+"/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	a := new(analysis)
	for _, p := range []string{dir, dir + "/sub", dir + "/to-dir", dir + "/a.go", dir + "/missing", dir + "/dangling"} {
		got, err := a.listDir(p)
		want, wantErr := os.ReadDir(p)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%s: listDir error %v, os.ReadDir %v", p, err, wantErr)
			continue
		}
		if len(got) != len(want) {
			t.Errorf("%s: listDir %d names, os.ReadDir %d", p, len(got), len(want))
			continue
		}
		for i, w := range want {
			g := got[i]
			if g.Name != w.Name() || g.Dir != w.IsDir() || g.Link != (w.Type()&fs.ModeSymlink != 0) {
				t.Errorf("%s #%d: listDir %+v, os.ReadDir %s dir=%v type=%v", p, i, g, w.Name(), w.IsDir(), w.Type())
			}
		}
	}
	// A FIFO is no directory: listed without waiting for a writer.
	if _, err := a.listDir(dir + "/fifo"); err == nil {
		t.Error("listDir of a FIFO: no error")
	}
	// readDir lists a directory once per command line, and again for the
	// next one.
	first, ok := a.readDir(dir + "/sub")
	if !ok || len(first) != 0 {
		t.Fatalf("readDir of an empty directory: %v %v", first, ok)
	}
	if err := os.WriteFile(dir+"/sub/new", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if again, _ := a.readDir(dir + "/sub"); len(again) != 0 {
		t.Errorf("the same command line listed the directory again: %v", again)
	}
	a.reset(&Gate{})
	if next, _ := a.readDir(dir + "/sub"); len(next) != 1 || next[0].Name != "new" {
		t.Errorf("the next command line did not list the directory again: %v", next)
	}
}

// TestReadDirBounded: a directory with more names than any caller looks
// at is listed up to one name beyond the bound, which every caller takes
// as too many.
func TestReadDirBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range maxDirEntries + 10 {
		if err := os.WriteFile(dir+"/f"+strconv.Itoa(i), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := new(analysis).listDir(dir)
	if err != nil || len(got) != maxDirEntries {
		t.Fatalf("listDir: %d names, %v; want %d", len(got), err, maxDirEntries)
	}
	if !slices.IsSortedFunc(got, func(x, y dirEntry) int { return strings.Compare(x.Name, y.Name) }) {
		t.Error("names not in order")
	}
}

// TestReadFileIntoAsOSReadFile: the gate's file reading gives what
// os.ReadFile gives, up to its limit, for every size around its buffer's
// growth, and fails where it fails.
func TestReadFileIntoAsOSReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 1024, 1025, 70_000} {
		p := dir + "/f" + strconv.Itoa(n)
		body := bytes.Repeat([]byte("go 1.2\n"), n/7+1)[:n]
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := readFile(p); err != nil || !bytes.Equal(got, body) {
			t.Errorf("readFile of %d bytes: %d bytes, %v", n, len(got), err)
		}
		for _, limit := range []int{0, 10, 512, n, n + 1} {
			want := body[:min(n, limit+1)]
			if got, err := readFileInto(p, make([]byte, 0, 3), limit); err != nil || !bytes.Equal(got, want) {
				t.Errorf("readFileInto of %d bytes, limit %d: %d bytes, %v; want %d", n, limit, len(got), err, len(want))
			}
		}
	}
	for _, p := range []string{dir + "/missing", dir} {
		_, wantErr := os.ReadFile(p)
		if _, err := readFile(p); (err != nil) != (wantErr != nil) {
			t.Errorf("%s: readFile error %v, os.ReadFile %v", p, err, wantErr)
		}
	}
}

// FuzzGoVersionLines: the go and toolchain values read from a go.mod are
// those strings.Fields finds on its lines.
func FuzzGoVersionLines(f *testing.F) {
	for _, s := range []string{"module x\n\ngo 1.21\n\ntoolchain go1.99.1\n", "go\t\"1.22\" // x\r\n", "  go  1.2", "go\u00a01.2\ngo\u2028x y\n", "toolchain\n", "go \xff1.2\n", "gopher 1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want []string
		for line := range strings.Lines(string(data)) {
			fields := strings.Fields(line)
			if len(fields) >= 2 && (fields[0] == "go" || fields[0] == "toolchain") {
				want = append(want, strings.Trim(fields[1], `"`))
			}
		}
		if got := goVersionLines(data); !slices.Equal(got, want) {
			t.Errorf("%q: goVersionLines %q, strings.Fields %q", data, got, want)
		}
	})
}

// FuzzContainsFoldASCII: the case-insensitive search of a git
// configuration for hookspath finds what a search of its lower-case copy
// finds.
func FuzzContainsFoldASCII(f *testing.F) {
	for _, s := range []string{"[core]\n\thooksPath = x", "HOOKSPATH", "hookspat", "hoo\u212aspath", "xhookspathx", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := bytes.Contains(bytes.ToLower(b), []byte("hookspath"))
		if got := containsFoldASCII(b, "hookspath"); got != want {
			t.Errorf("%q: containsFoldASCII %v, bytes.ToLower %v", b, got, want)
		}
	})
}

// TestReadFileNamedPipe: a named pipe with no writer reads at once, as
// empty, instead of blocking the gate.
func TestReadFileNamedPipe(t *testing.T) {
	p := t.TempDir() + "/fifo"
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() {
		b, err := readFile(p)
		if err == nil && len(b) != 0 {
			err = fmt.Errorf("read %q from a pipe nobody writes", b)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("readFile blocks on a named pipe")
	}
}

// TestReadFileSized: a file read with the size stat gave is read whole;
// one that grew since is read at least as it was; a size of 0 (a /proc
// file's) reads to the end.
func TestReadFileSized(t *testing.T) {
	p := t.TempDir() + "/f"
	body := "go 1.21\ntoolchain go1.22.0\n"
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := readFileSized(p, nil, 1<<20, int64(len(body))); err != nil || string(b) != body {
		t.Errorf("with its size: %q %v", b, err)
	}
	if b, err := readFileSized(p, nil, 1<<20, 8); err != nil || !strings.HasPrefix(string(b), "go 1.21\n") {
		t.Errorf("with size 8 (the file grew since): %q %v", b, err)
	}
	if b, err := readFileSized(p, nil, 1<<20, 0); err != nil || !strings.Contains(string(b), "toolchain") {
		t.Errorf("with size 0: %q %v", b, err)
	}
	if b, err := readFileSized("/proc/self/status", nil, 1<<20, 0); err != nil || !strings.Contains(string(b), "Pid:") {
		t.Errorf("/proc/self/status: %q %v", b, err)
	}
	if b, err := readFileSized(p, nil, 4, 28); err != nil || len(b) != 5 {
		t.Errorf("a limit under the size: %q %v, want the limit and one byte", b, err)
	}
}
