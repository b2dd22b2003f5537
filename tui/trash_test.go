package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/tui/browser"
	"github.com/cuff-dev/cuff/tui/feed"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
)

// TestDeleteOpenSessionSaysSo: D on the open session moves its file to
// the trash, and the feed that followed the file may report it gone before
// or after the deletion's own result comes back. In either order the note
// says what D did and that u undoes it — never "The session file was
// removed", in red, with no word of undo.
func TestDeleteOpenSessionSaysSo(t *testing.T) {
	for _, feedFirst := range []bool{false, true} {
		s := store(t, fixture.Session().JSONL())
		m := New(Options{Sources: []session.Source{s.Source()}})
		m = drive(m, tea.WindowSizeMsg{Width: 120, Height: 30}, browser.List(context.Background(), m.opts.Sources)())
		info, ok := m.browser.Selected()
		if !ok {
			t.Fatal("nothing listed")
		}
		m = drive(m, browser.OpenMsg{Info: info})
		removed := feed.Msg{Gen: m.gen, Batch: feed.Batch{Removed: true}}
		if feedFirst {
			m = drive(m, removed, trashedMsg{info: info})
		} else {
			m = drive(m, trashedMsg{info: info}, removed)
		}
		if !strings.HasPrefix(m.toast.text, "Deleted "+info.ID) || m.toast.err {
			t.Errorf("feed first %v: the note says %q (error %v)", feedFirst, m.toast.text, m.toast.err)
		}
		if m.open || m.focus != focusBrowser {
			t.Errorf("feed first %v: the deleted session is still open", feedFirst)
		}
	}
}
