package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// helperEnv makes this test binary a writer that is killed mid-write (see
// TestHelperKilledWriter).
const helperEnv = "CUFF_TEST_ATOMICFILE_WRITER"

// TestHelperKilledWriter is not a test: with helperEnv set to
// "PATH:unnamed|named" it starts a file for PATH, writes, says so on
// stdout and waits to be killed.
func TestHelperKilledWriter(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		t.Skip("helper process")
	}
	path, mode, _ := strings.Cut(spec, ":")
	f, err := create(path, 0o600, mode == "unnamed")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	f.Write(make([]byte, 1<<20))
	fmt.Println("writing")
	select {}
}

// killedWriter runs a writer for path and kills it mid-write.
func killedWriter(t *testing.T, path string, unnamed bool) {
	t.Helper()
	mode := "named"
	if unnamed {
		mode = "unnamed"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperKilledWriter$")
	cmd.Env = append(os.Environ(), helperEnv+"="+path+":"+mode)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.HasPrefix(string(buf[:n]), "writing") {
		t.Fatalf("helper: %q", buf[:n])
	}
	cmd.Process.Kill()
	cmd.Wait()
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestCommitReplacesAndLeavesNothingElse(t *testing.T) {
	for _, unnamed := range []bool{true, false} {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.json")
		os.WriteFile(path, []byte("old"), 0o644)
		f, err := create(path, 0o600, unnamed)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(t, dir); unnamed && len(got) != 1 {
			t.Errorf("unnamed: the file being written has a name: %v", got)
		}
		f.WriteString("new")
		if data, _ := os.ReadFile(path); string(data) != "old" {
			t.Errorf("the target changed before Commit: %q", data)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if string(data) != "new" || fi.Mode().Perm() != 0o600 {
			t.Errorf("unnamed %v: %q %v", unnamed, data, fi.Mode())
		}
		if got := names(t, dir); len(got) != 1 {
			t.Errorf("unnamed %v: left behind: %v", unnamed, got)
		}
	}
}

func TestCommitNewNeverReplaces(t *testing.T) {
	for _, unnamed := range []bool{true, false} {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.jsonl")
		f, _ := create(path, 0o600, unnamed)
		f.WriteString("first")
		if err := f.CommitNew(); err != nil {
			t.Fatal(err)
		}
		g, _ := create(path, 0o600, unnamed)
		g.WriteString("second")
		if err := g.CommitNew(); !errors.Is(err, fs.ErrExist) {
			t.Errorf("unnamed %v: CommitNew over a file: %v", unnamed, err)
		}
		if data, _ := os.ReadFile(path); string(data) != "first" {
			t.Errorf("unnamed %v: replaced: %q", unnamed, data)
		}
		if got := names(t, dir); len(got) != 1 {
			t.Errorf("unnamed %v: left behind: %v", unnamed, got)
		}
	}
}

func TestAbortLeavesTargetAlone(t *testing.T) {
	for _, unnamed := range []bool{true, false} {
		dir := t.TempDir()
		path := filepath.Join(dir, "x")
		f, _ := create(path, 0o600, unnamed)
		f.WriteString("half")
		f.Abort()
		if got := names(t, dir); len(got) != 0 {
			t.Errorf("unnamed %v: %v", unnamed, got)
		}
	}
}

// TestKilledWriterLeavesNothing: a writer killed mid-write leaves nothing
// when the file is unnamed; a named one is removed by the next Create for
// the same target.
func TestKilledWriterLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.json")
	killedWriter(t, path, true)
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("an unnamed file left a name: %v", got)
	}
	for range 3 { // each writer removes the one killed before it
		killedWriter(t, path, false)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Fatalf("named: want the temporary file of the last killed writer, got %v", got)
	}
	other := filepath.Join(dir, "other.json")
	killedWriter(t, other, false)
	f, err := create(path, 0o600, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{}")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got := names(t, dir)
	if len(got) != 2 || got[0] != ".other.json."+strings.TrimPrefix(got[0], ".other.json.") || got[1] != "export.json" {
		t.Errorf("after the next export: %v (want the other target's temp and export.json)", got)
	}
	CleanStale(dir, "")
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("CleanStale of the whole directory: %v", got)
	}
}

func TestTempNamesParse(t *testing.T) {
	name := filepath.Base(tempName("/d/a.b.json"))
	if pid, ok := tempOf(name, "a.b.json"); !ok || pid != os.Getpid() {
		t.Errorf("%s: %d %v", name, pid, ok)
	}
	if pid, ok := tempOf(name, ""); !ok || pid != os.Getpid() || !IsTemp(name) {
		t.Errorf("%s without base: %d %v", name, pid, ok)
	}
	for _, bad := range []string{"a.json", ".a.json.cuff-tmp", ".a.json.x-1.cuff-tmp", ".a.json.-1-ab.cuff-tmp", ".cuff-tmp", "..0-.cuff-tmp"} {
		if _, ok := tempOf(bad, ""); ok {
			t.Errorf("%q parsed as a temporary file", bad)
		}
	}
}

func FuzzTempOf(f *testing.F) {
	f.Add(".a.json.123-abcd.cuff-tmp", "a.json")
	f.Add(".x.1-.cuff-tmp", "")
	f.Add("..cuff-tmp", ".")
	f.Fuzz(func(t *testing.T, name, base string) {
		pid, ok := tempOf(name, base)
		if ok && (pid <= 0 || !strings.HasSuffix(name, tempSuffix) || !strings.HasPrefix(name, ".")) {
			t.Errorf("%q %q: %d", name, base, pid)
		}
	})
}
