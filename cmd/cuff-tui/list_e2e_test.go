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

// waitSelected waits until a selected line shows text, and returns the
// screen: the program has moved its selection there (its other lines may
// still be on their way).
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

// waitListSelection waits until the list's one selected row shows text
// (a frame read half drawn may show the old mark too), and returns its
// line on the screen and the row.
func waitListSelection(t *testing.T, ts *tmuxtest.Session, text string) (int, string) {
	t.Helper()
	at, row := -1, ""
	ts.WaitFor("the only selected row on "+text, func(s string) bool {
		at, row = -1, ""
		for i, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, "▌") {
				continue
			}
			if at >= 0 || !strings.Contains(l, text) {
				return false
			}
			at, row = i, l
		}
		return at >= 0
	})
	return at, row
}

// unfiltered is how the status line starts when no filter is in force.
func unfiltered(n int) string {
	if n == 1 {
		return "\n  1 session"
	}
	return fmt.Sprintf("\n  %d sessions", n)
}

// waitListed waits until the screen shows status and filter (either may
// be ""), lists each of shown once and none of hidden: a frame may be read
// half drawn, so the list is checked on a screen that is all there.
func waitListed(t *testing.T, ts *tmuxtest.Session, status, filter string, shown, hidden []string) string {
	t.Helper()
	what := fmt.Sprintf("%q %q listing %q once and not %q", status, filter, shown, hidden)
	return ts.WaitFor(what, func(s string) bool {
		if !strings.Contains(s, status) || !strings.Contains(s, filter) {
			return false
		}
		for _, title := range shown {
			if strings.Count(s, title) != 1 {
				return false
			}
		}
		for _, title := range hidden {
			if strings.Contains(s, title) {
				return false
			}
		}
		return true
	})
}

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
			phx := []string{"phx deploy one", "phx deploy two", "phx late arrival", "fix the phx router"}
			waitListed(t, ts, "/phx ", "4 of 7 sessions match", phx, []string{"misc chores", "fe5e cache", "docs only"})
			ts.Keys("Enter")
			ts.WaitScreen("4 of 7 sessions match “phx”")
			ts.Keys("j")
			line, before := waitListSelection(t, ts, "phx deploy two")
			// And again under the applied filter, with a session that does not match.
			p.add(t, fakeSession{id: sessionID(8), title: "unrelated work", started: base.Add(8 * time.Minute)})
			ts.WaitScreen("4 of 8 sessions match “phx”")
			if at, after := waitListSelection(t, ts, "phx deploy two"); at != line || after != before {
				t.Errorf("the selection moved across a refresh:\nbefore line %d %q\nafter  line %d %q", line, before, at, after)
			}
			waitListed(t, ts, "4 of 8 sessions match “phx”", "", phx, []string{"unrelated work"})
			// Three more listings (every two seconds) change nothing.
			p.add(t, fakeSession{id: sessionID(9), title: "phx once more", started: base.Add(9 * time.Minute)})
			ts.WaitScreen("5 of 9 sessions match “phx”", "phx once more")
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
			waitListed(t, ts, "/failed ", "1 of 3 sessions match", []string{"design plot yard"}, []string{"deploy the api", "redeploy"})
			ts.Keys("Escape")
			ts.WaitScreen(unfiltered(3))
			ts.Keys("/")
			ts.Type("deploy")
			// prefix (deploy the api), then substring (redeploy), then fuzzy (design plot yard).
			order := []string{"deploy the api", "redeploy", "design plot yard"}
			ts.WaitFor("the matches of deploy, best first: "+strings.Join(order, ", "), func(s string) bool {
				if !strings.Contains(s, "/deploy ") || !strings.Contains(s, "3 of 3 sessions match") {
					return false
				}
				last := -1
				for _, title := range order {
					i := strings.Index(s, title)
					if i < last {
						return false
					}
					last = i
				}
				return true
			})
			ts.Keys("Enter")
			ts.WaitScreen("“deploy”")
			waitListSelection(t, ts, "deploy the api")
			ts.Keys("q")
		})
	}
}
