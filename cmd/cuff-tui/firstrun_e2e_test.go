package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
)

// TestTUIDemoSaysWhatItIs: the demo's first line says it is a replay and
// nothing runs, and the session starts playing at once.
func TestTUIDemoSaysWhatItIs(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			home := t.TempDir()
			ts := tmuxtest.StartSized(t, size[0], size[1], fmt.Sprintf("env HOME=%s XDG_STATE_HOME=%s/s XDG_CONFIG_HOME=%s/c TERM=xterm-256color CUFF_DIR= CUFF_TUI= TZ=UTC %s demo",
				home, home, home, filepath.Join(binDir, "cuff")))
			s := ts.WaitScreen("a replay of a recorded session — nothing runs on your machine", "❯ You")
			if first := strings.SplitN(s, "\n", 2)[0]; !strings.Contains(first, "a replay of a recorded session") {
				t.Errorf("not the first line: %q", first)
			}
			ts.Keys("q")
		})
	}
}

// TestTUIEmptySaysWhatToDo: cuff with no sessions anywhere says what to
// do next: the demo, the hook, cuff exec.
func TestTUIEmptySaysWhatToDo(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			p := listProject(t)
			ts := p.startSized(t, size[0], size[1])
			ts.WaitScreen("No sessions yet.", "cuff demo", "cuff hook install claude", "cuff exec -- go test ./...")
			ts.WaitFor("a hint line that offers only what works here", func(s string) bool {
				return endsInHelp(s) && !strings.Contains(lastLine(s), "enter open")
			})
			ts.Keys("q")
		})
	}
}
