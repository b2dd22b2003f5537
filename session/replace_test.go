package session

import (
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// TestReplace: a session written anew keeps its id; until the new one is
// finished readers see the old one, an abandoned replacement leaves it as
// it was, and a finished one is dated by its last event, so not live.
func TestReplace(t *testing.T) {
	s, _ := newStore(t)
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	w, err := s.Create(&transcript.SessionStart{Agent: "a"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	id := w.ID()
	if err := w.Append(transcript.New("", t0, &transcript.ChatTurn{Role: "user", Text: "one"})); err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	turns := func() []string {
		t.Helper()
		var out []string
		if _, err := s.ReadEvents(id, func(ev *transcript.Event) error {
			if c, ok := ev.Body.(*transcript.ChatTurn); ok {
				out = append(out, c.Text)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	r, err := s.Replace(id, &transcript.SessionStart{Agent: "a"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two"} {
		if err := r.Append(transcript.New("", t0, &transcript.ChatTurn{Role: "user", Text: text})); err != nil {
			t.Fatal(err)
		}
	}
	if got := turns(); len(got) != 1 {
		t.Errorf("mid-replacement the session reads %q, want the old one", got)
	}
	r.Abandon()
	if got := turns(); len(got) != 1 {
		t.Errorf("after an abandoned replacement %q", got)
	}
	r, err = s.Replace(id, &transcript.SessionStart{Agent: "a"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two"} {
		if err := r.Append(transcript.New("", t0, &transcript.ChatTurn{Role: "user", Text: text})); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Finish(t0.Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := turns(); len(got) != 2 {
		t.Errorf("after the replacement %q", got)
	}
	all, err := s.Sessions()
	if err != nil || len(all) != 1 {
		t.Fatalf("sessions %v %v", all, err)
	}
	if m := all[0]; m.SessionID != id || m.Live || m.Status != StatusIdle || m.Turns != 2 {
		t.Errorf("meta %+v", m)
	}
}
