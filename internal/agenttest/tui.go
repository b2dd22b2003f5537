package agenttest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
	"mvdan.cc/sh/v3/syntax"
)

// WatchTimeout bounds the wait for the TUI to start watching.
const WatchTimeout = 30 * time.Second

// StartTUI runs cuff's TUI (`cuff` plus args) in a real terminal (tmux), in
// the project with the test's environment, and returns once it watches for
// approval requests (its heartbeat is in the state directory): from then
// on, a gated command asks this TUI.
func (e *Env) StartTUI(t *testing.T, args ...string) *tmuxtest.Session {
	t.Helper()
	line := "cd " + quote(t, e.Project) + " && " + e.EnvLine() + " " + quote(t, CuffBin(t))
	for _, a := range args {
		line += " " + quote(t, a)
	}
	ts := tmuxtest.Start(t, line)
	dir := filepath.Join(e.StateDir(), "watchers")
	deadline := time.Now().Add(WatchTimeout)
	for {
		if names, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(names) > 0 {
			return ts
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(e.StateDir())
			t.Fatalf("the TUI did not start watching within %v (state dir: %v):\n%s", WatchTimeout, entries, ts.Screen())
		}
		time.Sleep(20 * time.Millisecond) // polls a file: the TUI gives no other signal
	}
}

// quote makes s one shell word.
func quote(t testing.TB, s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		t.Fatalf("quote %q: %v", s, err)
	}
	return q
}
