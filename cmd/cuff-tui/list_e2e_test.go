package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
	"github.com/cuff-dev/cuff/transcript"
)

// fakeSession is a recorded session for list tests.
type fakeSession struct {
	id, title string
	started   time.Time
	failures  int // failed bash runs, after one that succeeds
}

// listProject is a project store holding the given sessions.
func listProject(t *testing.T, sessions ...fakeSession) project {
	t.Helper()
	root := t.TempDir()
	p := project{root: root, dir: filepath.Join(root, ".cuff"), state: filepath.Join(t.TempDir(), "state")}
	if err := os.MkdirAll(filepath.Join(p.dir, "recordings", "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, s := range sessions {
		p.add(t, s)
	}
	return p
}

// add writes a whole session into the store, as a recorder that just
// finished would leave it: the listing finds it on its next pass.
func (p project) add(t *testing.T, s fakeSession) {
	t.Helper()
	ok, bad := 0, 1
	bodies := []transcript.Body{
		&transcript.SessionStart{Agent: "claude-code", Title: s.title, WorkingDirectory: p.root},
		&transcript.ChatTurn{Role: "user", Text: s.title},
		&transcript.BashRun{Command: "true", ExitCode: &ok},
	}
	for range s.failures {
		bodies = append(bodies, &transcript.BashRun{Command: "false", ExitCode: &bad})
	}
	bodies = append(bodies, &transcript.SessionEnd{Status: "complete"})
	p.writeEvents(t, s.id, s.started, bodies...)
}

// sessionID makes a session id of seed 000's form from a number.
func sessionID(n int) string { return fmt.Sprintf("20250301_1000%02d_a%07d-beef", n, n) }

// e2eSizes are the terminal sizes every list test runs at.
var e2eSizes = [][2]int{{80, 24}, {160, 45}}

// selectedRow is the line of the screen that holds the selection mark.
func selectedRow(t *testing.T, screen string) string {
	t.Helper()
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "▌") {
			return l
		}
	}
	t.Fatalf("no row is selected:\n%s", screen)
	return ""
}

// waitSelected waits until the selected row shows text, and returns the screen.
func waitSelected(t *testing.T, ts *tmuxtest.Session, text string) string {
	t.Helper()
	return ts.WaitFor("the selection on "+text, func(s string) bool {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "▌") && strings.Contains(l, text) {
				return true
			}
		}
		return false
	})
}

// unfiltered is how the status line starts when no filter is in force.
func unfiltered(n int) string {
	if n == 1 {
		return "\n  1 session"
	}
	return fmt.Sprintf("\n  %d sessions", n)
}

// rowsWith counts the lines of the screen that contain s.
func rowsWith(screen, s string) int { return strings.Count(screen, s) }

// TestTUIListFilterSurvivesRefresh: the list is listed again under a
// filter being typed and under one applied: the query, the matches, the
// selected session and its place stay; new sessions that match appear.
func TestTUIListFilterSurvivesRefresh(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			base := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
			p := listProject(t,
				fakeSession{id: sessionID(1), title: "phx deploy one", started: base.Add(1 * time.Minute)},
				fakeSession{id: sessionID(2), title: "misc chores", started: base.Add(2 * time.Minute)},
				fakeSession{id: sessionID(3), title: "fix the phx router", started: base.Add(3 * time.Minute), failures: 2},
				fakeSession{id: sessionID(4), title: "fe5e cache warmup", started: base.Add(4 * time.Minute)},
				fakeSession{id: sessionID(5), title: "phx deploy two", started: base.Add(5 * time.Minute)},
				fakeSession{id: sessionID(6), title: "docs only", started: base.Add(6 * time.Minute)},
			)
			ts := p.startSized(t, size[0], size[1])
			ts.WaitScreen(unfiltered(6))
			ts.Keys("/")
			ts.Type("ph")
			ts.WaitScreen("/ph ", "of 6 sessions match")
			// A session arrives while the query is typed: the list is read again.
			p.add(t, fakeSession{id: sessionID(7), title: "phx late arrival", started: base.Add(7 * time.Minute)})
			ts.WaitScreen("of 7 sessions match")
			ts.Type("x")
			s := ts.WaitScreen("/phx ", "4 of 7 sessions match")
			for _, title := range []string{"phx deploy one", "phx deploy two", "phx late arrival", "fix the phx router"} {
				if rowsWith(s, title) != 1 {
					t.Errorf("%q is not listed once:\n%s", title, s)
				}
			}
			for _, title := range []string{"misc chores", "fe5e cache", "docs only"} {
				if strings.Contains(s, title) {
					t.Errorf("%q is listed under phx:\n%s", title, s)
				}
			}
			ts.Keys("Enter")
			ts.WaitScreen("4 of 7 sessions match “phx”")
			ts.Keys("j")
			before := selectedRow(t, waitSelected(t, ts, "phx deploy two"))
			// And again under the applied filter, with a session that does not match.
			p.add(t, fakeSession{id: sessionID(8), title: "unrelated work", started: base.Add(8 * time.Minute)})
			s = ts.WaitScreen("4 of 8 sessions match “phx”")
			if after := selectedRow(t, s); after != before {
				t.Errorf("the selection moved across a refresh:\nbefore %q\nafter  %q\n%s", before, after, s)
			}
			for _, title := range []string{"phx deploy one", "phx deploy two", "phx late arrival", "fix the phx router"} {
				if rowsWith(s, title) != 1 {
					t.Errorf("%q is gone after a refresh:\n%s", title, s)
				}
			}
			// Three more listings (every two seconds) change nothing.
			p.add(t, fakeSession{id: sessionID(9), title: "phx once more", started: base.Add(9 * time.Minute)})
			s = ts.WaitScreen("5 of 9 sessions match “phx”", "phx once more")
			ts.Keys("Escape")
			ts.WaitScreen(unfiltered(9))
			ts.Keys("q")
		})
	}
}

// TestTUIListFieldFilters: field filters and ranking through the real
// binary: failed keeps sessions with failures, an exact or prefix hit
// comes before a fuzzy one.
func TestTUIListFieldFilters(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			base := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
			p := listProject(t,
				fakeSession{id: sessionID(1), title: "deploy the api", started: base.Add(1 * time.Minute)},
				fakeSession{id: sessionID(2), title: "design plot yard", started: base.Add(2 * time.Minute), failures: 1},
				fakeSession{id: sessionID(3), title: "redeploy", started: base.Add(3 * time.Minute)},
			)
			ts := p.startSized(t, size[0], size[1])
			ts.WaitScreen(unfiltered(3))
			ts.Keys("/")
			ts.Type("failed")
			s := ts.WaitScreen("/failed ", "1 of 3 sessions match", "design plot yard")
			if strings.Contains(s, "deploy the api") || strings.Contains(s, "redeploy") {
				t.Errorf("failed lists sessions without failures:\n%s", s)
			}
			ts.Keys("Escape")
			ts.WaitScreen(unfiltered(3))
			ts.Keys("/")
			ts.Type("deploy")
			s = ts.WaitScreen("/deploy ", "3 of 3 sessions match")
			// prefix (deploy the api), then substring (redeploy), then fuzzy (design plot yard).
			order := []string{"deploy the api", "redeploy", "design plot yard"}
			last := -1
			for _, title := range order {
				i := strings.Index(s, title)
				if i < last {
					t.Errorf("%q is not ranked after the better matches:\n%s", title, s)
				}
				last = i
			}
			ts.Keys("Enter")
			if row := selectedRow(t, ts.WaitScreen("“deploy”")); !strings.Contains(row, "deploy the api") {
				t.Errorf("the best match is not selected: %q", row)
			}
			ts.Keys("q")
		})
	}
}
