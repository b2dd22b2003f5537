package gitindex

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func git(t testing.TB, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return out
}

// TestPathsAgreeWithGit reads indexes git wrote, in each version and
// object format, and holds the paths to git ls-files.
func TestPathsAgreeWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, format := range []struct {
		name string
		size int
	}{{"sha1", SHA1}, {"sha256", SHA256}} {
		for _, version := range []string{"2", "3", "4"} {
			dir := t.TempDir()
			git(t, dir, "init", "-q", "--object-format="+format.name)
			for _, f := range []string{"a.go", "dir/b.go", "dir/b.gp", "dir/sub/c", "é x/long-" + string(bytes.Repeat([]byte("n"), 5000)), ".env"} {
				os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
				os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644)
			}
			git(t, dir, "add", "-A")
			git(t, dir, "update-index", "--index-version", version)
			if version == "3" {
				os.WriteFile(filepath.Join(dir, "new"), nil, 0o644)
				git(t, dir, "add", "-N", "new") // intent to add is an extended flag
				git(t, dir, "update-index", "--skip-worktree", "a.go")
				git(t, dir, "update-index", "--assume-unchanged", "dir/b.go")
			}
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Paths(data, format.size)
			if err != nil {
				t.Fatalf("%s v%s: %v", format.name, version, err)
			}
			want := bytes.Split(bytes.TrimSuffix(git(t, dir, "ls-files", "-z"), []byte{0}), []byte{0})
			var ws []string
			for _, w := range want {
				ws = append(ws, string(w))
			}
			if !slices.Equal(got, ws) {
				t.Errorf("%s v%s: read %q, git lists %q", format.name, version, got, ws)
			}
			// The stat data, as git ls-files --debug prints it.
			entries, err := Entries(data, format.size)
			if err != nil {
				t.Fatal(err)
			}
			var mine, ids []string
			for _, e := range entries {
				mine = append(mine, fmt.Sprintf("%s ctime:%d:%d mtime:%d:%d ino:%d size:%d", e.Path,
					e.CtimeSec, e.CtimeNsec, e.MtimeSec, e.MtimeNsec, e.Ino, e.Size))
				ids = append(ids, fmt.Sprintf("%x %s", e.ID, e.Path))
			}
			// The object names, as git ls-files -s prints them.
			var wantIDs []string
			for _, l := range strings.Split(strings.TrimSpace(string(git(t, dir, "ls-files", "-s"))), "\n") {
				f := strings.Fields(l) // mode, object name, stage, then the path after a tab
				_, p, _ := strings.Cut(l, "\t")
				wantIDs = append(wantIDs, f[1]+" "+p)
			}
			if want := strings.Join(wantIDs, "\n"); strings.Join(ids, "\n") != want {
				t.Errorf("%s v%s: object names read\n%s\ngit ls-files says\n%s", format.name, version, strings.Join(ids, "\n"), want)
			}
			if got, want := strings.Join(mine, "\n"), lsFilesDebug(git(t, dir, "ls-files", "--debug")); got != want {
				t.Errorf("%s v%s: stat data read\n%s\ngit ls-files --debug says\n%s", format.name, version, got, want)
			}
		}
	}
}

func TestPathsRefusesWhatIsNotAnIndex(t *testing.T) {
	for _, data := range []string{"", "DIRC", "DIRC\x00\x00\x00\x05\x00\x00\x00\x00", "DIRC\x00\x00\x00\x02\xff\xff\xff\xff", "PACK\x00\x00\x00\x02\x00\x00\x00\x00"} {
		if _, err := Paths([]byte(data), SHA1); err == nil {
			t.Errorf("%q: no error", data)
		}
	}
}

// lsFilesDebug turns git ls-files --debug's output into one line per
// entry: its path, ctime, mtime, inode and size.
func lsFilesDebug(out []byte) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(l, " ") {
			lines = append(lines, l)
			continue
		}
		f := strings.Fields(l)
		for i := 0; i+1 < len(f); i += 2 {
			switch f[i] {
			case "ctime:", "mtime:", "ino:", "size:":
				lines[len(lines)-1] += " " + f[i] + f[i+1]
			}
		}
	}
	return strings.Join(lines, "\n")
}

// TestEntriesFlags reads the flags git sets with add -N,
// update-index --skip-worktree and --assume-unchanged.
func TestEntriesFlags(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	for _, f := range []string{"a", "b", "c", "d"} {
		os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644)
	}
	git(t, dir, "add", "a", "b", "c")
	git(t, dir, "add", "-N", "d")
	git(t, dir, "update-index", "--skip-worktree", "a")
	git(t, dir, "update-index", "--assume-unchanged", "b")
	data, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	entries, err := Entries(data, SHA1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, fmt.Sprintf("%s %v %v %v", e.Path, e.SkipWorktree, e.AssumeValid, e.IntentToAdd))
	}
	if want := []string{"a true false false", "b false true false", "c false false false", "d false false true"}; !slices.Equal(got, want) {
		t.Errorf("flags read %q, want %q", got, want)
	}
}

// FuzzPaths: whatever the bytes, Paths returns an error or paths, never
// panics, and Entries reads the same paths.
func FuzzPaths(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + string(make([]byte, 62)) + "\x00a\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01" + string(make([]byte, 60)) + "\x00\x01a\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x03\x00\x00\x00\x01" + string(make([]byte, 60)) + "\x40\x01\x00\x00a\x00\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x03\x00\x00\x00\x01" + string(make([]byte, 60)) + "\xc0\x01\x60\x00a\x00\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x03\x00\x00\x00\x01" + string(make([]byte, 60)) + "\x40\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		paths, err := Paths(data, SHA1)
		if err != nil {
			return
		}
		if len(paths) > len(data)/8 {
			t.Errorf("%d paths from %d bytes", len(paths), len(data))
		}
		entries, err := Entries(data, SHA1)
		if err != nil || len(entries) != len(paths) {
			t.Fatalf("Entries: %d entries, %v; Paths: %d", len(entries), err, len(paths))
		}
		for i, e := range entries {
			if e.Path != paths[i] {
				t.Errorf("entry %d: %q, path %q", i, e.Path, paths[i])
			}
		}
	})
}
