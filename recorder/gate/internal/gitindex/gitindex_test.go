package gitindex

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// FuzzPaths: whatever the bytes, Paths returns an error or paths, never
// panics, and every path it returns came from the data.
func FuzzPaths(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + string(make([]byte, 62)) + "\x00a\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01" + string(make([]byte, 60)) + "\x00\x01a\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("DIRC\x00\x00\x00\x03\x00\x00\x00\x01" + string(make([]byte, 60)) + "\x40\x01\x00\x00a\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		paths, err := Paths(data, SHA1)
		if err != nil {
			return
		}
		if len(paths) > len(data)/8 {
			t.Errorf("%d paths from %d bytes", len(paths), len(data))
		}
	})
}
