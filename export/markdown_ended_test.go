package export

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// TestMarkdownEndedNotYetOnlyWhenLive: a session without an end says "not
// yet" only while its last event is recent; an old one says no end was
// recorded and when its last event was.
func TestMarkdownEndedNotYetOnlyWhenLive(t *testing.T) {
	at := time.Date(2025, 9, 3, 0, 52, 31, 0, time.UTC)
	events := []*transcript.Event{
		transcript.New("claude:x", at, &transcript.SessionStart{Agent: "claude-code"}),
		transcript.New("claude:x", at.Add(time.Minute), &transcript.ChatTurn{Role: "user", Text: "hi"}),
	}
	for i, ev := range events {
		ev.Seq = int64(i + 1)
	}
	for _, c := range []struct {
		now  time.Time
		want string
	}{
		{at.Add(time.Minute + 10*time.Second), "| **Ended** | not yet (the session is live) |"},
		{at.AddDate(0, 2, 0), "| **Ended** | no end recorded; the last event was at 2025-09-03 00:53:31 UTC |"},
	} {
		var buf bytes.Buffer
		if err := Markdown(&buf, events, MarkdownOptions{Location: time.UTC, Now: func() time.Time { return c.now }}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), c.want) {
			t.Errorf("at %v: want %q in\n%s", c.now, c.want, buf.String()[:min(buf.Len(), 800)])
		}
	}
}
