//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDenialsNameWhatTheSandboxStopped(t *testing.T) {
	l := newLayout(t)
	p, err := New(l.options())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/", filepath.Join(l.proj, "r")); err != nil {
		t.Fatal(err)
	}
	bashrc := filepath.Join(l.home, ".bashrc")
	grant := filepath.Join(l.state, "grants", "x.json")
	mkdir(t, l.state, "grants")
	out := strings.Join([]string{
		"touch: cannot touch '" + bashrc + "': Permission denied",
		"/bin/sh: 1: cannot create " + grant + ": Permission denied",
		"bash: r" + l.state + "/d.json: Permission denied",
		"mkdir: cannot create directory ‘" + filepath.Join(l.home, "new") + "’: Permission denied",
		"PermissionError: [Errno 13] Permission denied: '" + filepath.Join(l.home, "p.txt") + "'",
		"open " + filepath.Join(l.proj, "ok") + ": permission denied", // in the tree: not the sandbox
		"dial tcp 127.0.0.1:8080: connect: permission denied",
		"ln: failed to create symbolic link '" + filepath.Join(l.tmp, "claude-1-cwd") + "': Permission denied",
		"mkfifo: cannot create fifo '" + filepath.Join(l.tmp, "p") + "': Permission denied",
		"echo: write error on " + filepath.Join(l.tmp, "ok") + ": Permission denied", // a file may be written there
		"ok  \texample.com/m\t0.01s",
	}, "\n")
	got := p.Denials(l.proj, out)
	var seen []string
	for _, d := range got {
		seen = append(seen, d.String())
	}
	want := []string{
		"write " + bashrc,
		"write " + grant,
		"write " + filepath.Join(l.state, "d.json"),
		"write " + filepath.Join(l.home, "new"),
		"write " + filepath.Join(l.home, "p.txt"),
		"connect 127.0.0.1:8080",
		"write " + filepath.Join(l.tmp, "claude-1-cwd"),
		"write " + filepath.Join(l.tmp, "p"),
	}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("denials\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
	p.Net = true
	for _, d := range p.Denials(l.proj, "dial tcp 127.0.0.1:8080: connect: permission denied") {
		t.Errorf("with the network open, %v is not the sandbox's", d)
	}
}

// TestDenialsLeaveOtherPermissionErrorsAlone: a file the user could not
// write anyway is not the sandbox's doing.
func TestDenialsLeaveOtherPermissionErrorsAlone(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write every file; the check needs an ordinary user")
	}
	l := newLayout(t)
	p, err := New(l.options())
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Denials(l.proj, "sh: 1: cannot create /etc/passwd: Permission denied"); len(got) != 0 {
		t.Errorf("denials: %v", got)
	}
}

func FuzzDenials(f *testing.F) {
	for _, s := range []string{
		"touch: cannot touch '/x': Permission denied",
		"dial tcp [::1]:80: connect: permission denied",
		"‘/a b’: Permission denied\n\"x\": EPERM",
		"bind: operation not permitted 10.0.0.1 port 99999",
		"`/unterminated: permission denied",
	} {
		f.Add(s)
	}
	tmp := f.TempDir()
	p := &Policy{Root: tmp, Writable: []Grant{{Path: tmp}}}
	f.Fuzz(func(t *testing.T, s string) {
		ds := p.Denials(tmp, s)
		if len(ds) > maxDenials {
			t.Fatalf("%d denials", len(ds))
		}
		for _, d := range ds {
			if d.Op == "" || d.Line == "" || (d.Path != "" && !filepath.IsAbs(d.Path)) {
				t.Fatalf("bad denial %+v", d)
			}
		}
	})
}
