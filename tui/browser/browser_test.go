package browser

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

func newList(t *testing.T, w, h int) Model {
	t.Helper()
	m := New(styles.New(true), keys.DefaultKeyMap().Browser, time.UTC, nil, "/p/.cuff")
	m.SetSize(w, h)
	return m
}

func press(m Model, keys ...string) Model {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		default:
			r := []rune(k)[0]
			msg = tea.KeyPressMsg{Code: r, Text: k}
		}
		m, _ = m.Update(msg)
	}
	return m
}

func typed(m Model, s string) Model {
	for _, r := range s {
		m, _ = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return m
}

// many is n sessions, newest first, titled "session N", every third "phx".
func many(n int) []session.Info {
	base := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	var out []session.Info
	for i := n; i >= 1; i-- {
		title := fmt.Sprintf("session %d", i)
		if i%3 == 0 {
			title += " phx"
		}
		out = append(out, session.Info{ID: fmt.Sprintf("20250301_1%05d_a%07d-beef", i, i), Title: title, Status: "complete",
			Started: base.Add(time.Duration(i) * time.Minute)})
	}
	return out
}

// selectedLine is the screen line of the selection, and its text.
func selectedLine(m Model) (int, string) {
	for i, l := range strings.Split(ansi.Strip(m.View()), "\n") {
		if strings.Contains(l, "▌") {
			return i, l
		}
	}
	return -1, ""
}

func TestRefreshKeepsQuerySelectionAndPlace(t *testing.T) {
	m := newList(t, 100, 8) // 6 rows
	m, _ = m.Update(ListedMsg{Infos: many(30)})
	m = press(m, "/")
	m = typed(m, "phx")
	m = press(m, "enter")
	if m.Filtering() || m.Query() != "phx" || len(m.Visible()) != 10 {
		t.Fatalf("filter: typing %v, query %q, %d visible", m.Filtering(), m.Query(), len(m.Visible()))
	}
	for range 7 {
		m = press(m, "j")
	}
	m = press(m, "k", "k", "k") // the selection mid-screen, the list scrolled
	line, row := selectedLine(m)
	sel, _ := m.Selected()
	// Two new sessions arrive on top, one matching.
	infos := append([]session.Info{{ID: "20250301_200000_b0000001-beef", Title: "new phx", Started: time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC)},
		{ID: "20250301_200000_b0000002-beef", Title: "new other", Started: time.Date(2025, 3, 2, 0, 0, 0, 0, time.UTC)}}, many(30)...)
	m, cmd := m.Update(ListedMsg{Infos: infos})
	if cmd != nil {
		t.Errorf("a listing returned a command")
	}
	if m.Query() != "phx" || len(m.Visible()) != 11 {
		t.Fatalf("after a refresh: query %q, %d visible", m.Query(), len(m.Visible()))
	}
	if got, _ := m.Selected(); got.ID != sel.ID {
		t.Errorf("selection moved from %s to %s", sel.Title, got.Title)
	}
	if l2, r2 := selectedLine(m); l2 != line || r2 != row {
		t.Errorf("the selected row moved on screen: line %d %q -> line %d %q", line, row, l2, r2)
	}
	// The selected session disappears: the selection stays at its place.
	var without []session.Info
	for _, i := range infos {
		if i.ID != sel.ID {
			without = append(without, i)
		}
	}
	m, _ = m.Update(ListedMsg{Infos: without})
	if _, ok := m.Selected(); !ok || len(m.Visible()) != 10 {
		t.Errorf("after the selected session went: selected %v, %d visible", ok, len(m.Visible()))
	}
}

func TestTypingFiltersAsYouGoAndEscClears(t *testing.T) {
	m := newList(t, 100, 20)
	m, _ = m.Update(ListedMsg{Infos: many(9)})
	m = press(m, "/")
	m = typed(m, "ph")
	if !m.Filtering() || len(m.Visible()) != 3 {
		t.Fatalf("typing: %d visible", len(m.Visible()))
	}
	m, _ = m.Update(ListedMsg{Infos: many(12)}) // a refresh while typing
	if !m.Filtering() || m.Query() != "ph" || len(m.Visible()) != 4 {
		t.Fatalf("a refresh while typing: filtering %v, query %q, %d visible", m.Filtering(), m.Query(), len(m.Visible()))
	}
	m = press(m, "esc")
	if m.Filtering() || m.Query() != "" || len(m.Visible()) != 12 {
		t.Fatalf("esc: filtering %v, query %q, %d visible", m.Filtering(), m.Query(), len(m.Visible()))
	}
	m = press(m, "/")
	m = typed(m, "zzz")
	if !strings.Contains(ansi.Strip(m.View()), "No session matches") {
		t.Errorf("no message for an empty result:\n%s", ansi.Strip(m.View()))
	}
}

func TestScrollKeepsTheSelectionOnScreen(t *testing.T) {
	m := newList(t, 100, 7) // 5 rows
	m, _ = m.Update(ListedMsg{Infos: many(40)})
	m = press(m, "G")
	if l, row := selectedLine(m); l != 6 || !strings.Contains(row, "session 1") {
		t.Errorf("G: line %d %q", l, row)
	}
	m = press(m, "g")
	if l, row := selectedLine(m); l != 2 || !strings.Contains(row, "session 40") {
		t.Errorf("g: line %d %q", l, row)
	}
	for range 6 {
		m = press(m, "j")
	}
	if l, row := selectedLine(m); l != 6 || !strings.Contains(row, "session 34") {
		t.Errorf("j×6: line %d %q", l, row)
	}
	if n := len(strings.Split(m.View(), "\n")); n != 7 {
		t.Errorf("the list draws %d lines in 7", n)
	}
}
