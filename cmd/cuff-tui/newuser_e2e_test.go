package main

// What a new user ran into, trying cuff from a fresh clone: each one
// through the real binaries in tmux, at 80×24 and 160×45.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// TestWatchWaitingKeysTouchNothingUnseen: `cuff watch` waiting for a live
// session shows no list, so the list's keys do nothing there — D never
// deletes, enter never opens, ctrl+e never exports a session the screen
// does not show — and the hint line and the help offer only what works.
// When a session goes live, watch opens it.
func TestWatchWaitingKeysTouchNothingUnseen(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			p := listProject(t, fakeSession{id: sessionID(1), title: "an old finished run", started: time.Now().Add(-48 * time.Hour)})
			ts := p.startSized(t, size[0], size[1], "watch")
			ts.WaitScreen("Waiting for a live session")
			ts.WaitFor("a hint line of the keys that work while waiting: q quit • ? help", func(s string) bool {
				return strings.TrimSpace(lastLine(s)) == "q quit • ? help"
			})
			ts.Keys("D")
			ts.Keys("Enter")
			ts.Keys("y")
			ts.Keys("C-e")
			ts.Keys("S")
			ts.Keys("?")
			ts.WaitFor("a help of the keys that work while waiting (no delete, no enter)", func(s string) bool {
				return strings.Contains(s, "Keys: ") && strings.Contains(s, "╰") && !strings.Contains(s, "delete") && !strings.Contains(s, "enter")
			})
			ts.Keys("Escape")
			waitWithout(t, ts, "Keys: ")

			// A session goes live: watch opens it (a later listing than any
			// the keys above could have acted on).
			live := "20250301_110000_b0000001-beef"
			p.writeEvents(t, live, time.Now(),
				&transcript.SessionStart{Agent: "claude-code", Title: "now live", WorkingDirectory: p.root},
				&transcript.ChatTurn{Role: "user", Text: "the live one"})
			s := ts.WaitScreen("the live one")
			for _, unwanted := range []string{"Deleted", "Exported", "Copied", "Stats"} {
				if strings.Contains(s, unwanted) {
					t.Errorf("a key acted on the unseen list (%s):\n%s", unwanted, s)
				}
			}
			if _, err := os.Stat(filepath.Join(p.dir, "recordings", "sessions", sessionID(1)+".jsonl")); err != nil {
				t.Errorf("D deleted a session the screen did not show: %v", err)
			}
			if _, err := os.Stat(filepath.Join(p.dir, "exports")); err == nil {
				t.Errorf("ctrl+e exported a session the screen did not show")
			}
			ts.Keys("q")
		})
	}
}

// TestWatchFileShowsThatFile: `cuff watch FILE` shows that file, not the
// store's session of the same id (a copy may differ: one kept aside, one
// being written elsewhere), and a file that is no session says so, not
// that its name is a bad session id, and is not called live.
func TestWatchFileShowsThatFile(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			id := sessionID(1)
			p := listProject(t, fakeSession{id: id, title: "kept in the store", started: time.Now().Add(-time.Hour)})
			store, err := os.ReadFile(filepath.Join(p.dir, "recordings", "sessions", id+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			// The copy has one event more than the store's session.
			extra := transcript.New(id, time.Now().Add(-time.Hour), &transcript.ChatTurn{Role: "assistant", Text: "only in the copy"})
			extra.Seq = 99
			extra.ID = transcript.EventID(id, extra.Seq)
			line, err := extra.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			copyPath := filepath.Join(t.TempDir(), "aside.jsonl")
			if err := os.WriteFile(copyPath, append(store, append(line, '\n')...), 0o600); err != nil {
				t.Fatal(err)
			}
			ts := p.startSized(t, size[0], size[1], "watch", copyPath)
			ts.WaitScreen("only in the copy")
			ts.Keys("q")

			garbage := filepath.Join(t.TempDir(), "notes.jsonl")
			if err := os.WriteFile(garbage, []byte("these are my notes, not a session\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			ts = p.startSized(t, size[0], size[1], "watch", garbage)
			ts.WaitScreen("notes")
			ts.WaitFor("what is wrong with the file, not called live", func(s string) bool {
				return strings.Contains(s, "not a JSON object") && !strings.Contains(s, "invalid session id") && !strings.Contains(s, "● live")
			})
			ts.Keys("q")
		})
	}
}

// bottomHas reports whether the last n lines of a screen hold text, read
// as one line with the spaces left out (text may be wrapped across them,
// at a space or within a word).
func bottomHas(screen string, n int, text string) bool {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	bottom := strings.Join(lines[max(len(lines)-n, 0):], "")
	squeeze := func(s string) string { return strings.ReplaceAll(s, " ", "") }
	return strings.Contains(squeeze(bottom), squeeze(text))
}

// TestTUINotesAreReadWhole: a note longer than the status bar (where
// ctrl+e wrote the session, how y copied) is shown whole, on as many
// lines as it takes, at 80 columns too: cut off, the export's path was
// lost and the copy's "(OSC 52)" with it.
func TestTUINotesAreReadWhole(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			p := listProject(t, fakeSession{id: sessionID(1), title: "notes whole", started: time.Now().Add(-time.Hour), failures: 1})
			ts := p.startSized(t, size[0], size[1])
			ts.Tmux("set-option", "-t", "e2e", "set-clipboard", "on")
			ts.WaitScreen(unfiltered(1))
			ts.Keys("Enter")
			ts.WaitScreen("$ false")
			ts.Keys("X")
			waitSelected(t, ts, "$ false")
			ts.Keys("y")
			ts.WaitFor("the whole copy note", func(s string) bool {
				return bottomHas(s, 3, "Copied the command (5 bytes) to the clipboard through the terminal (OSC 52)")
			})
			ts.Keys("C-e")
			path := filepath.Join(p.dir, "exports", sessionID(1)+".md")
			ts.WaitFor("the export's whole path", func(s string) bool {
				return bottomHas(s, 4, "Exported to "+path+" (path copied to the clipboard)")
			})
			if _, err := os.Stat(path); err != nil {
				t.Errorf("the note names a file that is not there: %v", err)
			}
			ts.Keys("q")
		})
	}
}

// TestTUIEmptyListHasNoHiddenFilter: with no session yet there is nothing
// to filter, so / does not open a filter the empty screen does not show
// (the keys typed after it went into it unseen, q among them).
func TestTUIEmptyListHasNoHiddenFilter(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			p := listProject(t)
			ts := p.startSized(t, size[0], size[1])
			ts.WaitScreen("No sessions yet.")
			ts.Keys("/")
			ts.Keys("q")
			waitWithout(t, ts, "No sessions yet.") // q quit
		})
	}
}
