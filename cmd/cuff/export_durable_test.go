package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/internal/testenv"
	"github.com/cuff-dev/cuff/transcript"
)

// bigSession writes a session of about mb megabytes straight into a new
// project's store and returns the project and the session id: exports of
// it take long enough to be killed or interrupted half way.
func bigSession(t *testing.T, mb int) (dir, id string) {
	t.Helper()
	dir = gitProject(t)
	id = "20260118_143052_a7b3c9d2-e4f5"
	sessions := filepath.Join(dir, ".cuff", "recordings", "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(sessions, id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	out := strings.Repeat("output line of a long build\n", 40)
	ts := time.Now().Add(-time.Hour).UTC()
	code := 0
	for seq := int64(1); seq*int64(len(out)) < int64(mb)<<20; seq++ {
		var body transcript.Body = &transcript.BashRun{Command: "make", ExitCode: &code, Stdout: out}
		if seq == 1 {
			body = &transcript.SessionStart{Agent: "big"}
		}
		ev := transcript.New(id, ts, body)
		ev.Seq, ev.ID = seq, transcript.EventID(id, seq)
		line, _ := ev.MarshalJSON()
		w.Write(line)
		w.WriteByte('\n')
	}
	w.Flush()
	f.Close()
	return dir, id
}

// exportProcess starts `cuff record export` and waits until it has its
// output file open (unnamed or not): it is writing.
func exportProcess(t *testing.T, dir string, args ...string) (*exec.Cmd, chan error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(cuffBin, append([]string{"record", "export"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, ".state"), "CUFF_DIR=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, done
}

// waitWriting waits until process pid has a file of dir open.
func waitWriting(t *testing.T, pid int, dir string, done chan error) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			if target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(target, dir+"/") {
				return
			}
		}
		select {
		case err := <-done:
			done <- err
			t.Fatalf("the export ended before it was seen writing: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatal("the export was never seen writing its output")
}

// TestKilledExportLeavesNothing: exports killed with SIGKILL mid-write leave
// no temporary file, in any format, and an existing file at the target is
// untouched.
func TestKilledExportLeavesNothing(t *testing.T) {
	dir, id := bigSession(t, 60)
	outDir := t.TempDir()
	for _, format := range []string{"json", "jsonl", "csv", "html", "markdown", "sqlite"} {
		target := filepath.Join(outDir, "out."+format)
		os.WriteFile(target, []byte("before"), 0o600)
		cmd, done := exportProcess(t, dir, id, "--format", format, "--output", target)
		waitWriting(t, cmd.Process.Pid, outDir, done)
		cmd.Process.Kill()
		<-done
		entries, _ := os.ReadDir(outDir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if format == "sqlite" { // SQLite needs a name to open: the next export removes it
			if len(names) != 2 {
				t.Errorf("sqlite: after the kill %v", names)
			}
			r := cuff(t, dir, "", "record", "export", id, "--format", format, "--output", target)
			entries, _ = os.ReadDir(outDir)
			if r.code != 0 || len(entries) != 1 {
				t.Errorf("sqlite: the next export left %d files: %+v", len(entries), r)
			}
		} else if len(names) != 1 || names[0] != filepath.Base(target) {
			t.Errorf("%s: after the kill the directory holds %v", format, names)
		}
		if data, _ := os.ReadFile(target); format != "sqlite" && string(data) != "before" {
			t.Errorf("%s: the target was changed by the killed export: %.20q", format, data)
		}
		os.Remove(target)
	}
}

// TestExportStopsOnSignal: SIGINT and SIGTERM stop an export in every
// format (JSON and JSONL ran on), leaving no output file.
func TestExportStopsOnSignal(t *testing.T) {
	dir, id := bigSession(t, 60)
	outDir := t.TempDir()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		for _, format := range []string{"json", "jsonl", "csv"} {
			target := filepath.Join(outDir, "out."+format)
			cmd, done := exportProcess(t, dir, id, "--format", format, "--output", target)
			waitWriting(t, cmd.Process.Pid, outDir, done)
			cmd.Process.Signal(sig)
			err := <-done
			if err == nil {
				t.Errorf("%s on %v: the export finished (exit 0) instead of stopping", format, sig)
			}
			if _, serr := os.Stat(target); serr == nil {
				t.Errorf("%s on %v: an output file was written", format, sig)
				os.Remove(target)
			}
			if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
				t.Errorf("%s on %v: left %v", format, sig, entries)
			}
		}
	}
}

// TestExportAllIsPartialNotNothing: one session that cannot be read (a
// directory, a named pipe, a link in a session's place) no longer makes
// `record export all` write nothing: the others are exported, each one left
// out is named, and the exit status says the export is partial.
func TestExportAllIsPartialNotNothing(t *testing.T) {
	dir := gitProject(t)
	for i := 0; i < 4; i++ { // one session each
		if r := cuff(t, dir, "", "exec", "--conversation-id", fmt.Sprint("conv-", i), "echo", fmt.Sprint("run-", i)); r.code != 0 {
			t.Fatal(r)
		}
	}
	paths, _ := filepath.Glob(filepath.Join(dir, ".cuff", "recordings", "sessions", "*.jsonl"))
	if len(paths) != 4 {
		t.Fatalf("sessions: %v", paths)
	}
	var broken []string
	for i, make := range []func(string) error{
		func(p string) error { return syscall.Mkfifo(p, 0o600) },
		func(p string) error { return os.Mkdir(p, 0o700) },
	} {
		data, _ := os.ReadFile(paths[i])
		os.Remove(paths[i])
		if err := make(paths[i]); err != nil {
			t.Fatal(err)
		}
		broken = append(broken, strings.TrimSuffix(filepath.Base(paths[i]), ".jsonl"))
		_ = data
	}
	for _, format := range []string{"jsonl", "json", "csv", "markdown"} {
		out := filepath.Join(t.TempDir(), "all."+format)
		r := cuff(t, dir, "", "record", "export", "all", "--format", format, "--output", out)
		data, _ := os.ReadFile(out)
		if r.code != exitPartial || !strings.Contains(r.stderr, "the export is partial: 2 of 4 sessions") {
			t.Errorf("%s: exit %d (want %d)\n%s", format, r.code, exitPartial, r.stderr)
		}
		for _, id := range broken {
			if !strings.Contains(r.stderr, "session "+id) {
				t.Errorf("%s: no warning names the skipped session %s:\n%s", format, id, r.stderr)
			}
		}
		readable := 0
		for i := 0; i < 4; i++ {
			if strings.Contains(string(data), fmt.Sprint("run-", i)) {
				readable++
			}
		}
		if readable != 2 {
			t.Errorf("%s: %d of the 2 readable sessions exported:\n%s", format, readable, data)
		}
	}
	r := cuff(t, dir, "", "record", "export", "all", "--format", "jsonl")
	if r.code != exitPartial || strings.Count(r.stdout, `"type":"bash_run"`) != 2 {
		t.Errorf("to stdout: exit %d\n%s", r.code, r.stdout)
	}
}

// TestExportsAreValidUTF8AndInert: a store holding bytes that are not UTF-8
// and a hostile output exports as valid UTF-8 JSON/JSONL, and as inert CSV.
func TestExportsAreValidUTF8AndInert(t *testing.T) {
	dir, id, path := sessionWithTail(t, 0)
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"v":1,"type":"bash_run","seq":9,"command":"=HYPERLINK(\"http://x.example\")","stdout":"caf` + "\xc3" + ` \u001b]0;pwned\u0007` + "\xff" + `","exit_code":0}` + "\n")
	f.Close()
	for _, format := range []string{"json", "jsonl"} {
		r := cuff(t, dir, "", "record", "export", id, "--format", format)
		if r.code != 0 || !utf8.ValidString(r.stdout) || !strings.Contains(r.stdout, `caf\ufffd`) {
			t.Errorf("%s: exit %d, valid UTF-8 %v:\n%q", format, r.code, utf8.ValidString(r.stdout), r.stdout)
		}
		if format == "json" && !json.Valid([]byte(r.stdout)) {
			t.Errorf("json export is not JSON")
		}
	}
	r := cuff(t, dir, "", "record", "export", id, "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || strings.ContainsAny(r.stdout, "\x1b\x07") || !strings.Contains(r.stdout, `\x1b]0;pwned\x07`) {
		t.Fatalf("csv: %v\n%q", err, r.stdout)
	}
	found := false
	for _, row := range rows {
		for _, cell := range row {
			if strings.HasPrefix(cell, "=") {
				t.Errorf("a formula cell: %q", cell)
			}
			found = found || strings.HasPrefix(cell, "'=HYPERLINK")
		}
	}
	if !found {
		t.Errorf("the formula was not neutralised but lost:\n%s", r.stdout)
	}
}

// TestExportOnAFullDiskSaysSoOnce: an export whose disk fills up fails with
// the write error, said once (CSV and HTML said it twice: once from the
// write, once more from closing the file), and leaves no file.
func TestExportOnAFullDiskSaysSoOnce(t *testing.T) {
	dir, id := bigSession(t, 4)
	mnt := testenv.Tmpfs(t, 1<<20)
	for _, format := range []string{"json", "jsonl", "csv", "sqlite", "html", "markdown"} {
		out := filepath.Join(mnt, "out."+format)
		r := cuff(t, dir, "", "record", "export", id, "--format", format, "--output", out)
		full := "no space left on device"
		if format == "sqlite" {
			full = "disk is full"
		}
		if r.code != 1 || strings.Count(r.stderr, full) != 1 {
			t.Errorf("%s: code %d, stderr %q; want 1 and the full disk said once", format, r.code, r.stderr)
		}
		if entries, _ := os.ReadDir(mnt); len(entries) != 0 {
			t.Errorf("%s: the failed export left %v", format, entries)
		}
	}
}
