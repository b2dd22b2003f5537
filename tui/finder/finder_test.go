package finder

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/session/search"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// fakeSearcher answers every query with the same hits.
type fakeSearcher struct {
	hits    []search.Hit
	queries []string
}

func (f *fakeSearcher) Update(context.Context, func(int64, int64)) (search.UpdateStats, []error, error) {
	return search.UpdateStats{}, nil, nil
}

func (f *fakeSearcher) Search(_ context.Context, q search.Query, _ func(int64, int64)) ([]search.Hit, error) {
	f.queries = append(f.queries, q.Text)
	return f.hits, nil
}

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
}

// run feeds the page a key and then every message its commands bring
// that the page handles itself.
func run(m Model, k tea.KeyPressMsg) (Model, []tea.Msg) {
	m, cmd := m.Update(k)
	var out []tea.Msg
	for _, msg := range collect(cmd) {
		switch msg.(type) {
		case ResultsMsg, updatedMsg:
			m, _ = m.Update(msg)
		case OpenMsg, CloseMsg:
			out = append(out, msg)
		}
	}
	return m, out
}

// collect runs a command (batches too, each to its end: ticks and cursor
// blinks come back after their time) and returns its messages.
func collect(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, collect(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

func TestFinderSearchesThenOpens(t *testing.T) {
	hits := []search.Hit{
		{SessionID: "claude:1", Kind: search.KindPrompt, Snippet: "the okapi runs", Highlights: [][2]int{{4, 9}}, Time: time.Unix(0, 0)},
		{SessionID: "codex:2", Kind: search.KindCommand, Snippet: "okapi --fast", Highlights: [][2]int{{0, 5}}, Failed: true, Time: time.Unix(0, 0)},
	}
	f := &fakeSearcher{hits: hits}
	m := New(context.Background(), f, styles.New(true), keys.DefaultKeyMap().Finder, time.UTC)
	m.SetSize(100, 20)
	m.Open()
	for _, r := range "okapi" {
		m, _ = m.Update(press(string(r)))
	}
	m, out := run(m, press("enter"))
	if len(out) != 0 || len(f.queries) != 1 || f.queries[0] != "okapi" {
		t.Fatalf("enter ran %v, sent %v", f.queries, out)
	}
	view := ansi.Strip(m.View())
	if !strings.Contains(view, "2 hits for okapi") || !strings.Contains(view, "codex:2") || !strings.Contains(view, "failed") {
		t.Fatalf("the page:\n%s", view)
	}
	m, _ = m.Update(press("down"))
	_, out = run(m, press("enter"))
	if len(out) != 1 || out[0].(OpenMsg).Hit.SessionID != "codex:2" {
		t.Fatalf("enter on the second hit sent %v", out)
	}
	_, out = run(m, press("esc"))
	if len(out) != 1 {
		t.Fatalf("esc sent %v", out)
	}
	if _, ok := out[0].(CloseMsg); !ok {
		t.Fatalf("esc sent %T", out[0])
	}
}

// Results of a query typed over are dropped.
func TestFinderDropsStaleResults(t *testing.T) {
	m := New(context.Background(), &fakeSearcher{}, styles.New(true), keys.DefaultKeyMap().Finder, time.UTC)
	m.gen = 2
	m, _ = m.Update(ResultsMsg{Gen: 1, Hits: []search.Hit{{SessionID: "old"}}})
	if len(m.hits) != 0 {
		t.Fatal("results of an older query were shown")
	}
}
