package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/internal/tmuxtest"
)

// TestTUISearchAcrossSessions: in the session list, s opens the search
// across every session; a query lists its hits with their session, and
// enter opens that session at the hit — here the first prompt of a
// Claude Code transcript shown tail first, so older parts are loaded
// until the hit is on screen, selected.
func TestTUISearchAcrossSessions(t *testing.T) {
	p := newProject(t)
	home := t.TempDir()
	claudeDir := filepath.Join(home, "claude")
	id := "b3f1c2d4-0000-4000-8000-0000000000cc"
	var buf bytes.Buffer
	buf.WriteString(promptLine("the okapi checkout flakes on Tuesdays", "2026-03-01T08:59:00.000Z"))
	if _, err := synthetic.WriteClaude(&buf, synthetic.ClaudeOptions{SessionID: id, Bytes: 5 << 20, Seed: 9,
		Start: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(claudeDir, "projects", "-home-dev-shop", id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(buf.String(), "b3f1c2d4-0000-4000-8000-000000000005", id)), 0o600); err != nil {
		t.Fatal(err)
	}
	env := fmt.Sprintf("env HOME=%s XDG_STATE_HOME=%s/xdg-state XDG_CONFIG_HOME=%s/config CUFF_STATE_DIR=%s CUFF_CACHE_DIR=%s/cache CLAUDE_CONFIG_DIR=%s CODEX_HOME=%s/codex TERM=xterm-256color CUFF_DIR= CUFF_TUI= TZ=UTC",
		home, home, home, p.state, home, claudeDir, home)
	s := tmuxtest.Start(t, fmt.Sprintf("%s %s --dir %s", env, filepath.Join(binDir, "cuff"), p.dir))
	s.WaitScreen("s search all")
	s.Tmux("send-keys", "-t", "e2e", "s")
	s.WaitScreen("search:")
	s.Tmux("send-keys", "-t", "e2e", "-l", "okapi")
	s.Tmux("send-keys", "-t", "e2e", "Enter")
	s.WaitScreenFor(2*tmuxtest.ScreenWait, "1 hit for okapi")
	// The status line is drawn above the hit: a frame read half drawn shows
	// it without the hit, so the check waits for the hit's line.
	s.WaitFor("the hit saying its session and kind", func(screen string) bool {
		for _, l := range strings.Split(screen, "\n") {
			if strings.Contains(l, "claude:"+id) && strings.Contains(l, "prompt") {
				return true
			}
		}
		return false
	})
	s.Tmux("send-keys", "-t", "e2e", "Enter")
	// The header's title says it too: the hit is the timeline's line, and
	// it is there once the older parts are loaded.
	s.WaitFor("the hit selected in the timeline", func(screen string) bool {
		_, timeline, ok := strings.Cut(screen, "───\n")
		return ok && strings.Contains(timeline, "▌ ┃ the okapi checkout flakes")
	})
}
