package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
)

// waitWithout waits until the screen no longer shows text.
func waitWithout(t *testing.T, ts *tmuxtest.Session, text string) string {
	t.Helper()
	return ts.WaitFor("no more "+text, func(s string) bool { return !strings.Contains(s, text) })
}

// lastLine is the bottom line of a screen: the hint line.
func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[len(lines)-1]
}

// hintEndsInHelp checks that the hint line's keys end in "? help".
func hintEndsInHelp(t *testing.T, where, screen string) {
	t.Helper()
	hint := lastLine(screen)
	left := hint
	if i := strings.Index(hint, "  "); i >= 0 {
		left = hint[:i] // the right side (following, position) is apart
	}
	if !strings.HasSuffix(strings.TrimSpace(left), "? help") {
		t.Errorf("%s: the hint line does not end in \"? help\": %q", where, hint)
	}
}

// TestTUIHelpFitsAndScrolls: at 80×24 and 160×45, the ? overlay keeps its
// border on screen and scrolls to its last key, and the hint line ends in
// "? help" in the list and in a session.
func TestTUIHelpFitsAndScrolls(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			base := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
			p := listProject(t, fakeSession{id: sessionID(1), title: "help me", started: base, failures: 1})
			ts := p.startSized(t, size[0], size[1])
			s := ts.WaitScreen(unfiltered(1))
			hintEndsInHelp(t, "list", s)
			for _, where := range []string{"list", "session"} {
				if where == "session" {
					ts.Keys("Enter")
					s = ts.WaitScreen("$ false")
					hintEndsInHelp(t, "session", s)
				}
				ts.Keys("?")
				s = ts.WaitScreen("Keys: ")
				if !strings.Contains(s, "╭") || !strings.Contains(s, "╰") {
					t.Errorf("%s: the help's border is cut off:\n%s", where, s)
				}
				ts.Keys("G") // the end of the help, scrolled to if it does not fit
				s = ts.WaitScreen("╰", "answer pending approvals")
				if !strings.Contains(s, "╭") {
					t.Errorf("%s: scrolled, the help lost its top:\n%s", where, s)
				}
				ts.Keys("Escape")
				waitWithout(t, ts, "Keys: ")
			}
			ts.Keys("q")
		})
	}
}
