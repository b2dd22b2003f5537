package viewer

import (
	"fmt"
	"sort"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// searchContext is how many lines above a match stay on screen when the
// view jumps to it.
const searchContext = 2

// searchState is the search in a session: what is typed, the query in
// force and the items that match it.
type searchState struct {
	input   textinput.Model
	typing  bool
	query   string
	matches []*timeline.Item // in display order
	cur     int
}

func (m *Model) startSearch() tea.Cmd {
	m.search.typing = true
	m.search.input.SetValue("")
	return m.search.input.Focus()
}

func (m *Model) updateSearch(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.skeys.Confirm):
		m.search.typing = false
		m.search.input.Blur()
		m.SetQuery(m.search.input.Value())
		return nil
	case key.Matches(msg, m.skeys.Cancel):
		m.search.typing = false
		m.search.input.Blur()
		return nil
	}
	var cmd tea.Cmd
	m.search.input, cmd = m.search.input.Update(msg)
	return cmd
}

// SetQuery searches for q and jumps to the first match at or after the
// selection. An empty q clears the search.
func (m *Model) SetQuery(q string) {
	m.search.query = q
	m.recomputeMatches()
	m.search.cur = -1
	if len(m.search.matches) == 0 {
		m.layout()
		return
	}
	from := m.pos(m.sel)
	i := sort.Search(len(m.search.matches), func(i int) bool { return m.pos(m.search.matches[i]) >= from })
	if i == len(m.search.matches) {
		i = 0
	}
	m.gotoMatch(i)
}

func (m *Model) clearSearch() {
	m.search.query, m.search.matches, m.search.cur = "", nil, -1
}

// recomputeMatches finds every shown item that holds the query.
func (m *Model) recomputeMatches() {
	m.search.matches = m.search.matches[:0]
	if m.search.query == "" {
		return
	}
	search := timeline.NewSearch(m.search.query)
	for _, it := range m.vis {
		if search.Match(it) {
			m.search.matches = append(m.search.matches, it)
		}
	}
	m.search.cur = min(m.search.cur, len(m.search.matches)-1)
}

// insertMatch adds an item that arrived and holds the query.
func (m *Model) insertMatch(it *timeline.Item) {
	ms := m.search.matches
	i := sort.Search(len(ms), func(i int) bool { return ms[i].Index() >= it.Index() })
	if i < len(ms) && ms[i] == it {
		return
	}
	ms = append(ms, nil)
	copy(ms[i+1:], ms[i:])
	ms[i] = it
	m.search.matches = ms
	if m.search.cur >= i {
		m.search.cur++
	}
}

// jumpMatch goes to the next (dir 1) or previous (dir -1) match.
func (m *Model) jumpMatch(dir int) {
	n := len(m.search.matches)
	if n == 0 {
		return
	}
	var i int
	if m.search.cur < 0 || m.search.cur >= n || m.search.matches[m.search.cur] != m.sel {
		// The selection moved since: go from where it is now.
		from := m.pos(m.sel)
		i = sort.Search(n, func(i int) bool { return m.pos(m.search.matches[i]) > from })
		if dir < 0 {
			i = sort.Search(n, func(i int) bool { return m.pos(m.search.matches[i]) >= from }) - 1
		}
	} else {
		i = m.search.cur + dir
	}
	m.gotoMatch(((i % n) + n) % n)
}

// gotoMatch selects match i, expanding it when the match is folded away,
// and scrolls to the line that holds it.
func (m *Model) gotoMatch(i int) {
	it := m.search.matches[i]
	m.search.cur = i
	line := m.matchLine(it)
	if line < 0 && !m.isExpanded(it) {
		m.expanded[itemKey(it)] = true
		line = m.matchLine(it)
	}
	m.jumpTo(it, max(0, line-searchContext))
}

// matchLine is the first rendered line of it that shows the query, or -1.
func (m *Model) matchLine(it *timeline.Item) int {
	for i, l := range m.lines(it) {
		if timeline.IndexFold(ansi.Strip(l), m.search.query) >= 0 {
			return i
		}
	}
	return -1
}

// Query is the search in force.
func (m Model) Query() string { return m.search.query }

// Matches is how many shown items hold the query.
func (m Model) Matches() int { return len(m.search.matches) }

func (m Model) searchStatus() string {
	q := m.search.query
	if q == "" || m.search.typing {
		return ""
	}
	shown := common.OneLine(common.Sanitize(q), 24)
	if len(m.search.matches) == 0 {
		return m.st.Fail.Render(fmt.Sprintf("no match for “%s”", shown))
	}
	cur := m.search.cur + 1
	if cur < 1 {
		cur = 1
	}
	return m.st.Warn.Render(fmt.Sprintf("“%s” %d/%d", shown, cur, len(m.search.matches)))
}
