package viewer

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// TestLiveFromEvents: the header says live while events keep arriving and
// for session.LiveWindow after the last; then idle; ended once the
// session ends. Old events (a copy) never make it live; the source's word
// (a writer at work) does.
func TestLiveFromEvents(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := New(styles.New(true), keys.DefaultKeyMap(), time.UTC, clock)
	m.SetSize(100, 20)
	m.Open(1, session.Info{ID: "claude:x", Title: "t", Status: transcript.StatusActive})
	m.SetLive(true) // followed
	header := func() string { return ansi.Strip(strings.Join(m.header(), "\n")) }
	ev := func(ts time.Time, body transcript.Body) *transcript.Event {
		return transcript.New("claude:x", ts, body)
	}

	m.Append([]*transcript.Event{ev(now.AddDate(-1, 0, 0), &transcript.ChatTurn{Role: "user", Text: "old"})})
	if m.Active() || !strings.Contains(header(), "○ idle") {
		t.Errorf("last year's events make it live:\n%s", header())
	}
	m.Append([]*transcript.Event{ev(now.Add(-time.Second), &transcript.ChatTurn{Role: "user", Text: "new"})})
	if !m.Active() || !strings.Contains(header(), "● live") {
		t.Errorf("an event a second old: not live:\n%s", header())
	}
	if q := m.QuietAt(); !q.Equal(now.Add(-time.Second).Add(session.LiveWindow)) {
		t.Errorf("QuietAt = %v", q)
	}
	now = now.Add(session.LiveWindow)
	if m.Active() || !strings.Contains(header(), "○ idle") {
		t.Errorf("a minute of silence: still live:\n%s", header())
	}
	m.SetSourceLive(true) // a writer holds the session
	if !m.Active() || !m.QuietAt().IsZero() {
		t.Errorf("the source says live: Active %v, QuietAt %v", m.Active(), m.QuietAt())
	}
	m.Append([]*transcript.Event{ev(now, &transcript.SessionEnd{Status: "complete"})})
	if m.Active() || !strings.Contains(header(), "■ ended") {
		t.Errorf("ended, still live:\n%s", header())
	}
	// A record dated in the future counts from when it arrived.
	m.Open(2, session.Info{ID: "claude:y"})
	m.Append([]*transcript.Event{ev(now.AddDate(1, 0, 0), &transcript.ChatTurn{Role: "user", Text: "future"})})
	now = now.Add(2 * session.LiveWindow)
	if m.Active() {
		t.Error("a future-dated record keeps it live forever")
	}
}
