package gitobj

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repo makes a git repository with history, in a private HOME, and
// returns a function that runs git in it.
func repo(t *testing.T, args ...string) (string, func(...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	home := t.TempDir()
	run := func(a ...string) string {
		t.Helper()
		cmd := exec.Command("git", a...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b",
			"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", a, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run(append([]string{"init", "-q", "-b", "main"}, args...)...)
	return dir, run
}

// write writes files below dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// history commits a growing file many times (so that packs hold deltas)
// and some nested ones.
func history(t *testing.T, dir string, run func(...string) string) []string {
	t.Helper()
	paths := []string{"README.md", "src/app/main.go", "src/lib/util.go", "config/.env.example", "big.txt"}
	var big strings.Builder
	for i := range 30 {
		fmt.Fprintf(&big, "line %d of a file that grows a little at every commit, so that git stores deltas\n", i)
		write(t, dir, map[string]string{"README.md": fmt.Sprintf("# r\nversion %d\n", i), "big.txt": big.String(),
			"src/app/main.go": fmt.Sprintf("package main\n// %d\n", i), "src/lib/util.go": "package lib\n",
			"config/.env.example": "TOKEN=\n"})
		run("add", "-A")
		run("commit", "-q", "-m", fmt.Sprint(i))
	}
	return paths
}

// agree compares TreeEntry of HEAD with git rev-parse for every path and
// some that are not there.
func agree(t *testing.T, dir string, run func(...string) string, hashSize int, paths []string) {
	t.Helper()
	r := Open(filepath.Join(dir, ".git"), hashSize)
	head, err := r.Head(filepath.Join(dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hex.EncodeToString(head), run("rev-parse", "HEAD"); got != want {
		t.Fatalf("HEAD %s, git says %s", got, want)
	}
	for _, p := range paths {
		id, found, err := r.TreeEntry(head, p)
		if err != nil || !found {
			t.Fatalf("%s: found %v, %v", p, found, err)
		}
		if got, want := hex.EncodeToString(id), run("rev-parse", "HEAD:"+p); got != want {
			t.Errorf("%s: %s, git says %s", p, got, want)
		}
		// The object itself reads back as git has it.
		_, data, err := r.Read(id)
		if err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
		if want := run("cat-file", "-p", "HEAD:"+p); strings.TrimSpace(string(data)) != want {
			t.Errorf("%s: contents differ from git cat-file", p)
		}
	}
	for _, p := range []string{"nope", "src/nope.go", "src", "src/app", "README.md/x", ".env"} {
		if _, found, err := r.TreeEntry(head, p); found || err != nil {
			t.Errorf("%s: found %v, %v; git has no such file", p, found, err)
		}
	}
}

// TestAgreesWithGit holds the reader to git itself: loose objects, then
// packed ones with deltas (git gc --aggressive), then a linked worktree's
// HEAD and packed refs.
func TestAgreesWithGit(t *testing.T) {
	dir, run := repo(t)
	paths := history(t, dir, run)
	agree(t, dir, run, SHA1, paths)
	run("gc", "-q", "--aggressive", "--prune=now")
	if m, _ := filepath.Glob(filepath.Join(dir, ".git/objects/pack/*.pack")); len(m) == 0 {
		t.Fatal("git gc made no pack")
	}
	if out := run("verify-pack", "-v", mustGlob(t, filepath.Join(dir, ".git/objects/pack/*.idx"))); !strings.Contains(out, "chain length") {
		t.Fatalf("the pack holds no deltas:\n%s", out)
	}
	agree(t, dir, run, SHA1, paths)

	wt := filepath.Join(t.TempDir(), "wt")
	run("worktree", "add", "-q", "-b", "side", wt)
	write(t, wt, map[string]string{"README.md": "side\n"})
	cmd := exec.Command("git", "-C", wt, "commit", "-qam", "side")
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("commit in the worktree: %v %s", err, out)
	}
	gitDir := filepath.Join(dir, ".git", "worktrees", "wt")
	r := Open(filepath.Join(dir, ".git"), SHA1)
	head, err := r.Head(gitDir)
	if err != nil {
		t.Fatal(err)
	}
	id, found, err := r.TreeEntry(head, "README.md")
	want := run("rev-parse", "side:README.md")
	if err != nil || !found || hex.EncodeToString(id) != want {
		t.Errorf("the worktree's README.md: %x %v %v, git says %s", id, found, err, want)
	}
}

// TestSHA256 reads a repository of SHA-256 object names.
func TestSHA256(t *testing.T) {
	dir, run := repo(t, "--object-format=sha256")
	paths := history(t, dir, run)
	agree(t, dir, run, SHA256, paths)
	run("gc", "-q", "--prune=now")
	agree(t, dir, run, SHA256, paths)
}

// TestNotKnown: what the reader does not follow is an error, never a wrong
// answer.
func TestNotKnown(t *testing.T) {
	dir, run := repo(t)
	history(t, dir, run)
	run("gc", "-q", "--prune=now")
	r := Open(filepath.Join(dir, ".git"), SHA1)
	head, err := r.Head(filepath.Join(dir, ".git"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, map[string]string{".git/objects/info/alternates": "/elsewhere/objects\n"})
	if _, _, err := Open(filepath.Join(dir, ".git"), SHA1).TreeEntry(head, "README.md"); err == nil {
		t.Error("a repository with alternates read without an error")
	}
	if _, err := Open(filepath.Join(dir, ".git"), SHA1).Head(t.TempDir()); err == nil {
		t.Error("a missing HEAD read without an error")
	}
	empty, _ := repo(t)
	if _, err := Open(filepath.Join(empty, ".git"), SHA1).Head(filepath.Join(empty, ".git")); err == nil {
		t.Error("an unborn branch read without an error")
	}
}

func mustGlob(t *testing.T, pattern string) string {
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("no %s", pattern)
	}
	return m[0]
}

// FuzzApplyDelta: any delta against any base either fails or gives the
// size it says, and never panics; a delta made of one copy of the whole
// base and an insert gives base + insert.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello world"), []byte{11, 16, 0x90, 11, 5, 'a', 'b', 'c', 'd', 'e'})
	f.Add([]byte(""), []byte{0, 0})
	f.Add([]byte("x"), []byte{1, 1, 0x80})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		out, err := ApplyDelta(base, delta)
		if err == nil {
			if dst, n := deltaSize(delta[mustSize(delta):]); n == 0 || uint64(len(out)) != dst {
				t.Fatalf("output of %d bytes, the delta said %d", len(out), dst)
			}
		}
		if len(base) == 0 || len(base) > 0x10000 || len(delta) > 127 {
			return
		}
		made := append(appendSize(appendSize(nil, uint64(len(base))), uint64(len(base)+len(delta))), 0x80|0x10|0x20)
		made = append(made, byte(len(base)), byte(len(base)>>8))
		if len(delta) > 0 {
			made = append(append(made, byte(len(delta))), delta...)
		}
		if len(base)&0xffff == 0 {
			return
		}
		got, err := ApplyDelta(base, made)
		if err != nil || !bytes.Equal(got, append(append([]byte(nil), base...), delta...)) {
			t.Fatalf("copy and insert: %q %v", got, err)
		}
	})
}

func mustSize(b []byte) int {
	_, n := deltaSize(b)
	return n
}

func appendSize(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// FuzzHeaders: the packed object headers never panic and never say more
// bytes were used than there are.
func FuzzHeaders(f *testing.F) {
	f.Add([]byte{0x93, 0x01}, []byte{0x81, 0x00})
	f.Fuzz(func(t *testing.T, h, o []byte) {
		if _, _, used, ok := objectHeader(h); ok && used > len(h) {
			t.Fatal("header used past its end")
		}
		if _, used, ok := ofsDeltaOffset(o); ok && used > len(o) {
			t.Fatal("offset used past its end")
		}
	})
}

// FuzzPack: a pack index and pack of any bytes (a repository the agent or
// a clone crafted) make Read return an object or an error, never a panic
// or a hang. testdata/fuzz/FuzzPack/gitpack is a real pack of a small
// repository (three commits, made by git gc).
func FuzzPack(f *testing.F) {
	f.Add([]byte("\xfftOc\x00\x00\x00\x02"), []byte("PACK"), byte(0))
	f.Fuzz(func(t *testing.T, idx, pack []byte, first byte) {
		common := t.TempDir()
		if err := os.MkdirAll(filepath.Join(common, "objects", "pack"), 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(common, "objects", "pack", "p.idx"), idx, 0o644)
		os.WriteFile(filepath.Join(common, "objects", "pack", "p.pack"), pack, 0o644)
		r := Open(common, SHA1)
		id := make([]byte, SHA1)
		id[0] = first
		if len(idx) >= 8+256*4+SHA1 {
			copy(id, idx[8+256*4:])
		}
		r.Read(id)
		r.TreeEntry(id, "a/b")
	})
}
