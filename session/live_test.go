package session

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestIsLive(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name            string
		ended, lease    bool
		lastEvent, mtim time.Time
		want            bool
	}{
		{"appended seconds ago", false, false, now.Add(-5 * time.Second), now.Add(-5 * time.Second), true},
		{"quiet for two minutes", false, false, now.Add(-2 * time.Minute), now.Add(-2 * time.Minute), false},
		{"copied now, events from last year", false, false, now.AddDate(-1, 0, 0), now, false},
		{"a writer holds the lease", false, true, now.Add(-time.Hour), now.Add(-time.Hour), true},
		{"ended, even just now", true, true, now, now, false},
		{"dated in the future, file fresh", false, false, now.Add(time.Hour), now.Add(-time.Second), true},
		{"dated in the future, file old", false, false, now.Add(time.Hour), now.Add(-time.Hour), false},
	} {
		if got := IsLive(c.ended, c.lease, c.lastEvent, c.mtim, now); got != c.want {
			t.Errorf("%s: IsLive = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestCopiedTranscriptIsNotLive: a Claude Code transcript copied just now
// (its records from long ago) is listed as not live; one appended to now is.
func TestCopiedTranscriptIsNotLive(t *testing.T) {
	home := t.TempDir()
	claudeDir := filepath.Join(home, "claude")
	file := filepath.Join(claudeDir, "projects", "-home-dev-shop", "0b3c8a52-1111-4222-8333-444455556666.jsonl")
	copyFile(t, claudeFixture, file) // mtime: now; records: 2026-03-01
	src := ClaudeSource(claudeDir, filepath.Join(home, "state", "claude.json"))
	src.Now = func() time.Time { return time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC) }
	now := src.Now()
	if err := os.Chtimes(file, now, now); err != nil {
		t.Fatal(err)
	}
	infos, err := src.List(context.Background())
	if err != nil || len(infos) != 1 {
		t.Fatalf("%+v %v", infos, err)
	}
	if infos[0].Live {
		t.Errorf("a copied transcript is listed live: %+v", infos[0])
	}
	appendLine(t, file, `{"type":"user","sessionId":"0b3c8a52-1111-4222-8333-444455556666","uuid":"u-late","timestamp":"2026-12-31T23:59:58.000Z","message":{"role":"user","content":"still there?"}}`)
	if err := os.Chtimes(file, now, now); err != nil {
		t.Fatal(err)
	}
	infos, err = src.List(context.Background())
	if err != nil || len(infos) != 1 || !infos[0].Live {
		t.Errorf("appended to two seconds ago, not live: %+v %v", infos, err)
	}
}
