package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreLinkLeavingProjectIsRefused: a cloned repository whose .cuff is
// a link to a folder elsewhere: cuff records nothing there and changes no
// mode; the command itself still runs (recording never stops a command).
func TestStoreLinkLeavingProjectIsRefused(t *testing.T) {
	dir := gitProject(t)
	outside := t.TempDir()
	if err := os.Chmod(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, ".cuff")); err != nil {
		t.Fatal(err)
	}
	r := cuff(t, dir, "", "exec", "sh", "-c", "exit 9")
	if r.code != 9 || !strings.Contains(r.stderr, "outside the project") {
		t.Errorf("exec: code %d, stderr %q; want the command's 9 and a warning", r.code, r.stderr)
	}
	for _, args := range [][]string{{"record", "list"}, {"init"}} {
		r = cuff(t, dir, "", args...)
		if r.code == 0 || !strings.Contains(r.stderr, "symbolic link to "+outside) || !strings.Contains(r.stderr, "Hint:") {
			t.Errorf("%v: code %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if fi, err := os.Stat(outside); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the link's target changed: %v %v", fi.Mode(), err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("cuff wrote into the link's target: %v", entries)
	}
}

// TestStoreInnerLinkLeavingProjectIsRefused: a cloned repository whose
// .cuff is a real folder but whose recordings, sessions or logs folder is
// a link to a folder elsewhere: cuff writes nothing there either.
func TestStoreInnerLinkLeavingProjectIsRefused(t *testing.T) {
	for _, inner := range []string{"recordings", "recordings/sessions", "logs"} {
		t.Run(strings.ReplaceAll(inner, "/", "_"), func(t *testing.T) {
			dir := gitProject(t)
			outside := t.TempDir()
			link := filepath.Join(dir, ".cuff", inner)
			if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, link); err != nil {
				t.Fatal(err)
			}
			r := cuff(t, dir, "", "exec", "sh", "-c", "exit 9")
			if r.code != 9 || !strings.Contains(r.stderr, "outside the project") {
				t.Errorf("exec: code %d, stderr %q; want the command's 9 and a warning", r.code, r.stderr)
			}
			if r := cuff(t, dir, "", "record", "list"); r.code == 0 || !strings.Contains(r.stderr, link+" is a symbolic link to "+outside) {
				t.Errorf("record list: code %d, stderr %q", r.code, r.stderr)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Errorf("cuff wrote into the link's target: %v", entries)
			}
		})
	}
	// A link that stays inside the project is only a name.
	dir := gitProject(t)
	if err := os.MkdirAll(filepath.Join(dir, "keep", "recs"), 0o700); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, ".cuff"), 0o700)
	if err := os.Symlink(filepath.Join(dir, "keep", "recs"), filepath.Join(dir, ".cuff", "recordings")); err != nil {
		t.Fatal(err)
	}
	if r := cuff(t, dir, "", "exec", "true"); r.code != 0 || r.stderr != "" {
		t.Errorf("exec with a link inside the project: %+v", r)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "keep", "recs", "sessions")); len(entries) == 0 {
		t.Error("nothing was recorded through a link inside the project")
	}
}
