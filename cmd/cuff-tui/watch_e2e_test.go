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

// promptLine is a Claude Code prompt record saying text.
func promptLine(text, ts string) string {
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":"b3f1c2d4-0000-4000-8000-000000000005","version":"2.1.40","gitBranch":"main","type":"user","message":{"role":"user","content":%q},"uuid":"u-%s","timestamp":%q}`+"\n", text, ts, ts)
}

// TestWatchBigClaudeTranscriptTailFirst: `cuff watch` of a Claude Code
// transcript too big to read at once shows its last screen first, says
// older history is there, and g goes back to the session's first prompt,
// the older parts coming in as it goes.
func TestWatchBigClaudeTranscriptTailFirst(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteString(promptLine("FIRST-PROMPT-MARKER please look at the cart", "2026-03-01T08:59:00.000Z"))
	if _, err := synthetic.WriteClaude(&buf, synthetic.ClaudeOptions{SessionID: "b3f1c2d4-0000-4000-8000-000000000005", Bytes: 6 << 20, Seed: 5,
		Start: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	buf.WriteString(promptLine("LAST-PROMPT-MARKER thanks, that is all", "2026-04-01T09:00:00.000Z"))
	path := filepath.Join(t.TempDir(), "b3f1c2d4-0000-4000-8000-000000000005.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	p := newProject(t)
	s := p.startSized(t, 120, 40, "watch", path)
	screen := s.WaitScreen("LAST-PROMPT-MARKER", "older history")
	if strings.Contains(screen, "FIRST-PROMPT-MARKER") {
		t.Fatalf("the first screen shows the session's start:\n%s", screen)
	}
	s.Tmux("send-keys", "-t", "e2e", "g")
	s.WaitScreenFor(2*tmuxtest.ScreenWait, "FIRST-PROMPT-MARKER")
}
