package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
	"github.com/cuff-dev/cuff/transcript"
)

// envLine is the environment cuff runs with inside tmux.
func envLine(t *testing.T) string {
	home := t.TempDir()
	return fmt.Sprintf("env HOME=%s XDG_STATE_HOME=%s/state XDG_CONFIG_HOME=%s/config TERM=xterm-256color CUFF_DIR= TZ=UTC",
		home, home, home)
}

const e2eID = "20260118_143052_a7b3c9d2-e4f5"

// e2eEvents builds n chat turns with the given text prefix, from seq
// on.
func e2eEvents(seq int, texts ...string) []byte {
	var buf bytes.Buffer
	ts := time.Now().UTC()
	for i, text := range texts {
		var body transcript.Body = &transcript.ChatTurn{Role: "assistant", Text: text}
		if seq+i == 1 {
			body = &transcript.SessionStart{Agent: "e2e-agent", Title: "end to end"}
		}
		ev := transcript.New(e2eID, ts, body)
		ev.Seq = int64(seq + i)
		ev.ID = transcript.EventID(e2eID, ev.Seq)
		line, _ := json.Marshal(ev)
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func e2eStore(t *testing.T, data []byte) (dir, path string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), ".cuff")
	sessions := filepath.Join(dir, "recordings", "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(sessions, e2eID+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// TestTUIWatchSeesAppendsFromAnotherProcess starts `cuff watch` on a
// session and appends to the session from another process.
func TestTUIWatchSeesAppendsFromAnotherProcess(t *testing.T) {
	dir, path := e2eStore(t, e2eEvents(1, "start", "first-answer-in-file"))
	ts := tmuxtest.Start(t, fmt.Sprintf("%s %s --dir %s watch a7b3c9d2", envLine(t), cuffBin, dir))
	ts.WaitScreen("end to end", "first-answer-in-file", "● live")
	for i := 0; i < 3; i++ {
		marker := fmt.Sprintf("appended-by-another-process-%d", i)
		appendCmd := exec.Command("sh", "-c", `cat >> "$1"`, "sh", path)
		appendCmd.Stdin = bytes.NewReader(e2eEvents(3+i, marker))
		start := time.Now()
		if out, err := appendCmd.CombinedOutput(); err != nil {
			t.Fatalf("append: %v\n%s", err, out)
		}
		ts.WaitScreen(marker)
		t.Logf("append to screen (with tmux polling every 20 ms): %v", time.Since(start).Round(time.Millisecond))
	}
	ts.Keys("q")
}

// TestTUIHostileTranscript: a session that tries to set the window title,
// write the clipboard and clear the screen is shown escaped, and the
// terminal is untouched.
func TestTUIHostileTranscript(t *testing.T) {
	hostile := "x\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;pwned\x07\x1b[2J\u202eevil"
	data := e2eEvents(1, "start", "HOSTILE "+hostile)
	dir, _ := e2eStore(t, data)
	ts := tmuxtest.Start(t, fmt.Sprintf("%s %s --dir %s watch a7b3c9d2", envLine(t), cuffBin, dir))
	ts.Tmux("set-option", "-t", "e2e", "set-clipboard", "on")
	s := ts.WaitScreen("HOSTILE", `\x1b]52;c;cm0gLXJmIH4=\x07`, `\u202eevil`)
	if title := ts.Tmux("display-message", "-p", "-t", "e2e", "#{pane_title}"); strings.Contains(title, "pwned") {
		t.Errorf("the recording set the window title: %q", title)
	}
	if out, err := ts.TryTmux("show-buffer"); err == nil && strings.Contains(out, "rm -rf") {
		t.Errorf("the recording wrote the clipboard: %q", out)
	}
	if !strings.Contains(s, "cuff ▸") {
		t.Errorf("the screen was cleared:\n%s", s)
	}
	ts.Keys("q")
}

// TestTUIDemo plays the demo fast: the approval prompt pops up and y
// answers it.
func TestTUIDemo(t *testing.T) {
	ts := tmuxtest.Start(t, fmt.Sprintf("%s %s demo --speed 20", envLine(t), cuffBin))
	ts.WaitScreen("Approval requested", "gh issue view 42", "Demo:")
	time.Sleep(800 * time.Millisecond) // past the prompt's grace period
	ts.Keys("y")
	ts.WaitScreen("✓ approved once by tui")
	ts.WaitScreen("$ gh issue view 42")
	ts.Keys("q")
}

func TestTUINeedsATerminal(t *testing.T) {
	dir, _ := e2eStore(t, e2eEvents(1, "start"))
	for _, args := range [][]string{{"--dir", dir}, {"--dir", dir, "watch"}, {"demo"}} {
		r := cuff(t, t.TempDir(), "", args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "needs a terminal") {
			t.Errorf("cuff %v without a terminal: %+v", args, r)
		}
	}
	r := cuff(t, t.TempDir(), "", "--dir", dir, "watch", "deadbeef")
	if r.code == 0 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("watch of an unknown id: %+v", r)
	}
	r = cuff(t, t.TempDir(), "", "--dir", dir, "watch", "missing/file.jsonl")
	if r.code != exitUsage || !strings.Contains(r.stderr, "no session file") {
		t.Errorf("watch of a missing file: %+v", r)
	}
	r = cuff(t, t.TempDir(), "", "demo", "--speed", "0")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--speed") {
		t.Errorf("demo --speed 0: %+v", r)
	}
}

// TestTUIFirstFrameBigSession measures, as a user sees it, the time from
// starting `cuff watch` on a session of 100,000 events (~65 MB) to its
// last event on screen. It logs the figure; the benchmarks track it.
func TestTUIFirstFrameBigSession(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 65 MB session")
	}
	var buf bytes.Buffer
	buf.Write(e2eEvents(1, "start"))
	pad := strings.Repeat("ok  \tgithub.com/example/project/internal/pkg\t0.012s\n", 10)
	ts0 := time.Now().UTC()
	for seq := 2; seq < 100000; seq++ {
		zero := 0
		ev := transcript.New(e2eID, ts0, &transcript.BashRun{Command: fmt.Sprintf("go test ./pkg%d", seq), ExitCode: &zero, Stdout: pad})
		ev.Seq, ev.ID = int64(seq), transcript.EventID(e2eID, int64(seq))
		line, _ := json.Marshal(ev)
		buf.Write(line)
		buf.WriteByte('\n')
	}
	buf.Write(e2eEvents(100000, "BIG-SESSION-LAST-EVENT"))
	dir, _ := e2eStore(t, buf.Bytes())
	start := time.Now()
	ts := tmuxtest.Start(t, fmt.Sprintf("%s %s --dir %s watch %s", envLine(t), cuffBin, dir, e2eFile(dir)))
	ts.WaitScreen("BIG-SESSION-LAST-EVENT")
	t.Logf("%.1f MB, 100,000 events: last event on screen %v after starting (tmux start-up included)",
		float64(buf.Len())/(1<<20), time.Since(start).Round(time.Millisecond))
	ts.WaitScreenFor(2*time.Minute, "100000/100000") // indexing takes seconds; a slow CI machine, more
	t.Logf("fully indexed after %v", time.Since(start).Round(time.Millisecond))
	ts.Keys("q")
}

func e2eFile(dir string) string {
	return filepath.Join(dir, "recordings", "sessions", e2eID+".jsonl")
}

// TestTUIDemoCleansUpOnHangup: closing the pane (SIGHUP) ends the demo as
// q does, and its temporary store goes with it.
func TestTUIDemoCleansUpOnHangup(t *testing.T) {
	tmp := t.TempDir()
	ts := tmuxtest.Start(t, fmt.Sprintf("%s TMPDIR=%s %s demo --speed 20", envLine(t), tmp, cuffBin))
	ts.WaitScreen("Demo:")
	if left, _ := filepath.Glob(filepath.Join(tmp, "cuff-demo-*")); len(left) != 1 {
		t.Fatalf("the demo's store: %v", left)
	}
	shell := strings.TrimSpace(ts.Tmux("display", "-p", "-t", "e2e", "#{pane_pid}"))
	children, err := os.ReadFile(fmt.Sprintf("/proc/%s/task/%s/children", shell, shell))
	if err != nil {
		t.Skipf("cannot find the TUI's process: %v", err)
	}
	fields := strings.Fields(string(children))
	if len(fields) != 1 {
		t.Fatalf("the pane's shell has children %q", children)
	}
	pid, _ := strconv.Atoi(fields[0])
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil { // the TUI, which this test started
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		left, _ := filepath.Glob(filepath.Join(tmp, "cuff-demo-*"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the demo left %v behind after SIGHUP", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
