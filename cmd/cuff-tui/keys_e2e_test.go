package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
	"github.com/cuff-dev/cuff/transcript"
)

// writeEvents writes a whole session of the given bodies into the store,
// as a recorder that just finished would leave it (through a rename, so a
// listing never reads half of it): the listing finds it on its next pass.
func (p project) writeEvents(t *testing.T, id string, at time.Time, bodies ...transcript.Body) {
	t.Helper()
	var buf bytes.Buffer
	for i, body := range bodies {
		ev := transcript.New(id, at.Add(time.Duration(i)*time.Second), body)
		ev.Seq, ev.ID = int64(i+1), transcript.EventID(id, int64(i+1))
		switch b := body.(type) {
		case *transcript.BashStart:
			ev.CallID = "call " + b.Command
		case *transcript.BashRun:
			ev.CallID = "call " + b.Command
		case *transcript.ToolCall, *transcript.ToolResult:
			ev.CallID = "call_read"
		}
		line, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(append(line, '\n'))
	}
	path := filepath.Join(p.dir, "recordings", "sessions", id+".jsonl")
	if err := os.WriteFile(path+".tmp", buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// capture is a program for $PAGER / $EDITOR that copies the file it is
// given to dest, so the test sees what would have been shown.
func capture(t *testing.T, dest string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "capture")
	body := fmt.Sprintf("#!/bin/sh\ncp \"$1\" %q\n", dest)
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return script
}

// waitFile waits until path exists and holds want.
func waitFile(t *testing.T, path, want string) {
	t.Helper()
	deadline := time.Now().Add(screenWait)
	for {
		data, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(data), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q (it holds %q, %v)", path, want, data, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// clipboard waits until the terminal's clipboard (tmux's buffer, which
// OSC 52 writes) holds want.
func clipboard(t *testing.T, ts *tmuxtest.Session, want string) {
	t.Helper()
	deadline := time.Now().Add(screenWait)
	for {
		out, err := ts.TryTmux("show-buffer")
		if err == nil && strings.TrimRight(out, "\n") == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the clipboard holds %q (%v), want %q", out, err, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestTUIKeys: y, o, E, x, X, S, D and u through the real binary.
func TestTUIKeys(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			base := time.Now().Add(-2 * time.Hour)
			p := listProject(t, fakeSession{id: sessionID(2), title: "a clean run", started: base.Add(time.Hour)})
			failing := sessionID(1)
			ok, bad := 0, 2
			p.writeEvents(t, failing, base,
				&transcript.SessionStart{Agent: "claude-code", Title: "build and test", WorkingDirectory: p.root},
				&transcript.ChatTurn{Role: "user", Text: "build and test"},
				&transcript.BashStart{Command: "make build"},
				&transcript.BashRun{Command: "make build", ExitCode: &ok, Stdout: "built ok\n"},
				&transcript.BashStart{Command: "make test"},
				&transcript.BashRun{Command: "make test", ExitCode: &bad, Stdout: "--- FAIL: TestParse\n", Stderr: "exit status 2\n"},
				&transcript.ToolCall{Tool: "Read", Input: json.RawMessage(`{"file_path":"/nope.go"}`)},
				&transcript.ToolResult{Tool: "Read", Output: "no such file: /nope.go", IsError: true},
				&transcript.ChatTurn{Role: "assistant", Text: "The tests fail in TestParse."},
				&transcript.SessionEnd{Status: "complete"},
			)
			out := t.TempDir()
			p.env = fmt.Sprintf("PAGER=%s EDITOR=%s VISUAL=", capture(t, filepath.Join(out, "paged")), capture(t, filepath.Join(out, "edited")))
			ts := p.startSized(t, size[0], size[1])
			ts.Tmux("set-option", "-t", "e2e", "set-clipboard", "on")
			ts.WaitScreen(unfiltered(2), "build and test")
			waitSelected(t, ts, "a clean run")

			// The list: x to the session with failures, y copies its id.
			ts.Keys("x")
			waitSelected(t, ts, "build and test")
			ts.Keys("X")
			ts.WaitScreen("No session with failures above")
			ts.Keys("y")
			clipboard(t, ts, failing)
			ts.WaitScreen("Copied the session id")

			// A session: X and x go from failure to failure, y o E act on it.
			ts.Keys("Enter")
			ts.WaitScreen("The tests fail in TestParse.")
			ts.Keys("X")
			waitSelected(t, ts, "Read")
			ts.Keys("X")
			waitSelected(t, ts, "make test")
			ts.Keys("X")
			ts.WaitScreen("No failure above")
			ts.Keys("y")
			clipboard(t, ts, "make test")
			ts.Keys("o")
			waitFile(t, filepath.Join(out, "paged"), "--- FAIL: TestParse\n\n--- stderr ---\nexit status 2")
			ts.WaitScreen("The tests fail in TestParse.") // back from the pager
			ts.Keys("x")
			waitSelected(t, ts, "Read")
			ts.Keys("E")
			waitFile(t, filepath.Join(out, "edited"), "no such file: /nope.go")
			ts.WaitScreen("The tests fail in TestParse.")

			// S: the session's stats, in the one count.
			ts.Keys("S")
			ts.WaitScreen("Stats: build and test", "turns       2", "failures    2 (1 commands, 1 tool calls)", "Time per tool")
			ts.Keys("Escape")
			waitWithout(t, ts, "Stats: build and test")

			// D deletes to the trash, u brings it back.
			ts.Keys("D")
			ts.WaitScreen("Deleted "+failing+" to the trash", unfiltered(1))
			if _, err := os.Stat(filepath.Join(p.dir, "recordings", "trash", failing, failing+".jsonl")); err != nil {
				t.Errorf("not in the trash: %v", err)
			}
			ts.Keys("u")
			ts.WaitScreen("Restored "+failing, unfiltered(2))
			waitSelected(t, ts, "build and test")

			// S in the list: per day.
			ts.Keys("S")
			ts.WaitScreen("Stats per day", base.UTC().Format("2006-01-02")) // the TUI runs with TZ=UTC
			ts.Keys("Escape")
			waitWithout(t, ts, "Stats per day")
			ts.Keys("q")
		})
	}
}
