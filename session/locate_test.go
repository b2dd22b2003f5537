package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLocate(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	deep := filepath.Join(repo, "src", "pkg")
	mkdirs(t, deep, filepath.Join(repo, ".git"))

	cases := []struct {
		name, cwd, want string
		setup           func()
	}{
		{"git root, no .cuff yet", deep, filepath.Join(repo, DirName), nil},
		{"a .cuff above the git root is not used", deep, filepath.Join(repo, DirName),
			func() { mkdirs(t, filepath.Join(root, DirName)) }},
		{"a .cuff inside the repository wins", deep, filepath.Join(repo, "src", DirName),
			func() { mkdirs(t, filepath.Join(repo, "src", DirName)) }},
		{"the repository's own .cuff", filepath.Join(repo), filepath.Join(repo, DirName),
			func() { mkdirs(t, filepath.Join(repo, DirName)) }},
		{"outside any repository: the first .cuff up", filepath.Join(root, "loose", "x"), filepath.Join(root, DirName),
			func() { mkdirs(t, filepath.Join(root, "loose", "x")) }},
	}
	for _, c := range cases {
		if c.setup != nil {
			c.setup()
		}
		got, err := Locate("", c.cwd)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: Locate = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestLocateExplicit(t *testing.T) {
	dir := t.TempDir()
	mkdirs(t, filepath.Join(dir, DirName))
	if got, _ := Locate(dir, "/"); got != filepath.Join(dir, DirName) {
		t.Errorf("a folder holding .cuff: %s", got)
	}
	if got, _ := Locate(filepath.Join(dir, "elsewhere"), "/"); got != filepath.Join(dir, "elsewhere") {
		t.Errorf("a directory to create: %s", got)
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o600)
	if _, err := Locate(file, "/"); err == nil {
		t.Error("a file is accepted as the .cuff directory")
	}
}

// TestLocateRefusesLinkLeavingProject: a cloned repository can hold a .cuff
// that is a symbolic link to anywhere; cuff must not store into (nor chmod)
// what it points to. A link that stays inside the project is fine.
func TestLocateRefusesLinkLeavingProject(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	outside := filepath.Join(root, "outside")
	mkdirs(t, filepath.Join(repo, ".git"), filepath.Join(repo, "src"), filepath.Join(repo, "inner"), outside)
	if err := os.Symlink(outside, filepath.Join(repo, DirName)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ explicit, cwd string }{
		{"", filepath.Join(repo, "src")},
		{repo, "/"},
		{filepath.Join(repo, DirName), "/"},
	} {
		_, err := Locate(c.explicit, c.cwd)
		var le *LinkError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), outside) || !strings.Contains(err.Error(), "outside the project") {
			t.Errorf("Locate(%q, %q): %v, want a LinkError naming %s", c.explicit, c.cwd, err, outside)
		}
	}
	// A dangling link would have the store created wherever it points.
	os.Remove(filepath.Join(repo, DirName))
	os.Symlink(filepath.Join(root, "nowhere", "x"), filepath.Join(repo, DirName))
	if _, err := Locate("", repo); err == nil {
		t.Error("a dangling .cuff link is accepted")
	}
	// Inside the project a link is only a name.
	os.Remove(filepath.Join(repo, DirName))
	os.Symlink("inner", filepath.Join(repo, DirName))
	if got, err := Locate("", repo); err != nil || got != filepath.Join(repo, DirName) {
		t.Errorf("a link inside the project: %s, %v", got, err)
	}
	// Naming the target itself is a choice the user made.
	if got, err := Locate(outside, "/"); err != nil || got != outside {
		t.Errorf("--dir naming the target: %s, %v", got, err)
	}
}

// TestStoreNeverChmodsOutsideTheProject: a recordings directory the
// settings place outside the project is used but its mode is left alone.
func TestStoreNeverChmodsOutsideTheProject(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	outside := filepath.Join(root, "shared")
	mkdirs(t, filepath.Join(repo, DirName), outside)
	os.Chmod(outside, 0o755)
	os.Chmod(filepath.Join(repo, DirName), 0o755)
	s := Open(filepath.Join(repo, DirName))
	s.Recordings = outside
	w, err := s.Create(&transcript.SessionStart{Agent: "t"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w.Close(transcript.StatusComplete)
	if fi, _ := os.Stat(outside); fi.Mode().Perm() != 0o755 {
		t.Errorf("a directory outside the project was changed to %v", fi.Mode().Perm())
	}
	if fi, _ := os.Stat(filepath.Join(repo, DirName)); fi.Mode().Perm() != DirMode {
		t.Errorf("the project's own store was not tightened: %v", fi.Mode().Perm())
	}
}
