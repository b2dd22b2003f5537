package session

import (
	"os"
	"path/filepath"
	"testing"
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
