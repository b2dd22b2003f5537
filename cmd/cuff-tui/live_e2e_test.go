package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
)

// claudeRecord is one user line of a Claude Code transcript.
func claudeRecord(sessionID, uuid, text string, ts time.Time) string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":%q,"version":"2.1.40","gitBranch":"main","type":"user","message":{"role":"user","content":%q},"uuid":%q,"timestamp":%q}`+"\n",
		sessionID, text, uuid, ts.UTC().Format("2006-01-02T15:04:05.000Z"))
}

// writeClaude writes a Claude Code transcript under home, as a copy would:
// the file is new, its records are as old as they say.
func writeClaude(t *testing.T, home, sessionID, title string, at time.Time) string {
	t.Helper()
	dir := filepath.Join(home, ".claude", "projects", "-home-dev-shop")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, sessionID+".jsonl")
	body := claudeRecord(sessionID, "u-1", title, at) + claudeRecord(sessionID, "u-2", "and one more thing", at.Add(time.Minute))
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func appendClaude(t *testing.T, path, sessionID, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(claudeRecord(sessionID, fmt.Sprintf("u-%d", time.Now().UnixNano()), text, time.Now())); err != nil {
		t.Fatal(err)
	}
}

// waitRow waits until the screen has a line that shows text and that ok
// says yes of (what names the wait in a failure), and returns that line: a
// frame may be read half drawn, so a row is checked on the screen that
// shows it as expected, not on the first that shows it at all.
func waitRow(t *testing.T, ts *tmuxtest.Session, text, what string, ok func(row string) bool) string {
	t.Helper()
	var row string
	ts.WaitFor(fmt.Sprintf("a row with %q and %s", text, what), func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, text) && ok(l) {
				row = l
				return true
			}
		}
		return false
	})
	return row
}

// rowOf is the screen line that shows text.
func rowOf(t *testing.T, screen, text string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, text) {
			return l
		}
	}
	t.Fatalf("no row shows %q:\n%s", text, screen)
	return ""
}

// TestTUILiveIsRealSignals: a transcript copied just now whose records are
// from last year is neither listed live nor watched as live, and its date
// carries the year; a record appended now makes it live, in the list and
// in cuff watch.
func TestTUILiveIsRealSignals(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			lastYear := time.Date(time.Now().UTC().Year()-1, 2, 3, 10, 0, 0, 0, time.UTC) // the TUI runs with TZ=UTC
			p := listProject(t, fakeSession{id: sessionID(1), title: "a finished recording", started: time.Now().Add(-time.Minute)})
			p.home = t.TempDir()
			copied := "1b3c8a52-1111-4222-8333-444455556601"
			path := writeClaude(t, p.home, copied, "copied from last year", lastYear)
			ts := p.startSized(t, size[0], size[1])
			s := ts.WaitScreen(unfiltered(2), "copied from last year")
			row := rowOf(t, s, "copied from last year")
			if strings.Contains(row, "live") || strings.Contains(row, "●") {
				t.Errorf("a copied transcript is listed live: %q", row)
			}
			if want := lastYear.Format("2006-01-02"); !strings.Contains(row, want) {
				t.Errorf("last year's session is not dated %s: %q", want, row)
			}
			if row := rowOf(t, s, "a finished recording"); strings.Contains(row, "live") {
				t.Errorf("an ended session is listed live: %q", row)
			}
			appendClaude(t, path, copied, "back at it")
			ts.WaitScreen(unfiltered(2) + " · 1 live")
			waitRow(t, ts, "copied from last year", "live", func(row string) bool { return strings.Contains(row, "live") })
			ts.Keys("q")

			other := "2b3c8a52-1111-4222-8333-444455556602"
			path = writeClaude(t, p.home, other, "watched copy", lastYear)
			tw := p.startSized(t, size[0], size[1], "watch", "claude:"+other[:13])
			s = tw.WaitScreen("watched copy", "and one more thing", "○ idle")
			if strings.Contains(s, "● live") {
				t.Errorf("cuff watch says a copied transcript is live:\n%s", s)
			}
			appendClaude(t, path, other, "a new prompt, now")
			tw.WaitScreen("a new prompt, now", "● live")
			tw.Keys("q")
		})
	}
}
