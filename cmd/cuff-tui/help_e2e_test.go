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

// endsInHelp reports whether the hint line's keys end in "? help".
func endsInHelp(screen string) bool {
	hint := lastLine(screen)
	if i := strings.Index(hint, "  "); i >= 0 {
		hint = hint[:i] // the right side (following, position) is apart
	}
	return strings.HasSuffix(strings.TrimSpace(hint), "? help")
}

// waitHintEndsInHelp waits until the hint line's keys end in "? help".
func waitHintEndsInHelp(t *testing.T, ts *tmuxtest.Session, where string) {
	t.Helper()
	ts.WaitFor(where+": a hint line that ends in \"? help\"", endsInHelp)
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
			ts.WaitScreen(unfiltered(1))
			waitHintEndsInHelp(t, ts, "list")
			for _, where := range []string{"list", "session"} {
				if where == "session" {
					ts.Keys("Enter")
					ts.WaitScreen("$ false")
					waitHintEndsInHelp(t, ts, "session")
				}
				// Each wait is for the whole box: a frame may be read half
				// drawn, and a box cut off never shows its bottom border.
				ts.Keys("?")
				ts.WaitScreen("Keys: ", "╭", "╰")
				ts.Keys("G") // the end of the help, scrolled to if it does not fit
				ts.WaitScreen("╭", "╰", "answer pending approvals")
				ts.Keys("Escape")
				waitWithout(t, ts, "Keys: ")
			}
			ts.Keys("q")
		})
	}
}
