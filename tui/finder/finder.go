// Package finder is the search across every session: a query, then the
// hits — which session, when, what kind of text, the words that matched —
// and the session opened at the one chosen.
package finder

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session/search"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// Searcher runs searches across every session, bringing the index up to
// date first; progress (may be nil) is told how far an update got.
type Searcher interface {
	Update(ctx context.Context, progress func(done, total int64)) (search.UpdateStats, []error, error)
	Search(ctx context.Context, q search.Query, progress func(done, total int64)) ([]search.Hit, error)
}

// Limit is how many hits a search shows.
const Limit = 100

// progressTick is how often the page redraws while the index is updated.
const progressTick = 200 * time.Millisecond

// ResultsMsg brings the hits of query number Gen.
type ResultsMsg struct {
	Gen  int
	Hits []search.Hit
	Err  error
}

// updatedMsg reports that the index was brought up to date.
type updatedMsg struct{ err error }

// tickMsg redraws the progress.
type tickMsg struct{}

// OpenMsg asks the root to open a hit's session at the hit.
type OpenMsg struct{ Hit search.Hit }

// CloseMsg asks the root to leave the page.
type CloseMsg struct{}

// Model is the search page.
type Model struct {
	ctx      context.Context
	searcher Searcher
	st       *styles.Styles
	keys     keys.Finder
	loc      *time.Location
	input    textinput.Model

	hits    []search.Hit
	ran     string // the query the hits are for
	gen     int
	busy    bool
	err     string
	cursor  int
	offset  int
	done    *atomic.Int64 // how far the index update got, of total
	total   *atomic.Int64
	updated bool // the index was brought up to date since the page opened

	width, height int
}

// New returns the page; s runs the searches (nil: the page says search is
// not available).
func New(ctx context.Context, s Searcher, st *styles.Styles, km keys.Finder, loc *time.Location) Model {
	ti := textinput.New()
	ti.Prompt = "search: "
	ti.Placeholder = `words, "a phrase", pre*, cmd:, out:, failed: …`
	ti.CharLimit = 512
	if loc == nil {
		loc = time.Local
	}
	m := Model{ctx: ctx, searcher: s, st: st, keys: km, loc: loc, input: ti, done: &atomic.Int64{}, total: &atomic.Int64{}}
	m.SetStyles(st)
	return m
}

// SetStyles switches to styles for another background.
func (m *Model) SetStyles(st *styles.Styles) {
	m.st = st
	m.input.SetStyles(textinput.DefaultStyles(st.Dark))
}

// SetSize sets the area the page draws in.
func (m *Model) SetSize(width, height int) {
	m.width, m.height = max(width, 1), max(height, 1)
	m.input.SetWidth(max(m.width-12, 1))
	m.scrollTo(m.cursor)
}

// Open focuses the query and starts bringing the index up to date, so
// that the first search does not wait for it.
func (m *Model) Open() tea.Cmd {
	m.input.CursorEnd()
	focus := m.input.Focus()
	if m.searcher == nil || m.busy {
		return focus
	}
	m.busy, m.updated = true, false
	s, ctx, done, total := m.searcher, m.ctx, m.done, m.total
	update := func() tea.Msg {
		_, _, err := s.Update(ctx, progress(done, total))
		return updatedMsg{err: err}
	}
	return tea.Batch(focus, update, tick())
}

func progress(done, total *atomic.Int64) func(int64, int64) {
	done.Store(0)
	total.Store(0)
	return func(d, t int64) { done.Store(d); total.Store(t) }
}

func tick() tea.Cmd { return tea.Tick(progressTick, func(time.Time) tea.Msg { return tickMsg{} }) }

// Update handles keys and results.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case ResultsMsg:
		if msg.Gen != m.gen {
			return m, nil // a query typed over since
		}
		m.busy = false
		m.hits, m.cursor, m.offset, m.err = msg.Hits, 0, 0, ""
		if msg.Err != nil {
			m.err = msg.Err.Error()
		}
		return m, nil
	case updatedMsg:
		m.updated = true
		if m.gen == 0 || m.ran == "" {
			m.busy = false
		}
		if msg.err != nil {
			m.err = "Could not update the index: " + msg.err.Error()
		}
		return m, nil
	case tickMsg:
		if m.busy {
			return m, tick()
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.handleKey(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

func (m Model) handleKey(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.input.Blur()
		return m, func() tea.Msg { return CloseMsg{} }
	case key.Matches(msg, m.keys.Run):
		q := strings.TrimSpace(m.input.Value())
		if q == m.ran && len(m.hits) > 0 {
			hit := m.hits[m.cursor]
			return m, func() tea.Msg { return OpenMsg{Hit: hit} }
		}
		return m, m.run(q)
	case key.Matches(msg, m.keys.Move):
		switch msg.String() {
		case "up", "ctrl+p":
			m.move(-1)
		default:
			m.move(1)
		}
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// run starts a search for q.
func (m *Model) run(q string) tea.Cmd {
	if q == "" {
		return nil
	}
	if m.searcher == nil {
		m.err = "Search is not available: there is no cache directory (set HOME or CUFF_CACHE_DIR)."
		return nil
	}
	m.gen++
	m.ran, m.busy, m.err = q, true, ""
	gen, s, ctx, done, total := m.gen, m.searcher, m.ctx, m.done, m.total
	return tea.Batch(func() tea.Msg {
		hits, err := s.Search(ctx, search.Query{Text: q, Limit: Limit}, progress(done, total))
		return ResultsMsg{Gen: gen, Hits: hits, Err: err}
	}, tick())
}

func (m *Model) move(n int) {
	if len(m.hits) == 0 {
		return
	}
	m.cursor = min(max(m.cursor+n, 0), len(m.hits)-1)
	m.scrollTo(m.cursor)
}

// hitLines is how many lines one hit takes.
const hitLines = 2

// rows is how many hits fit under the query and status lines.
func (m Model) rows() int { return max((m.height-2)/hitLines, 1) }

func (m *Model) scrollTo(i int) {
	m.offset = common.ScrollOffset(m.offset, i, m.rows(), len(m.hits))
}

// View draws the query, a status line and the hits.
func (m Model) View() string {
	lines := []string{common.Truncate("  "+m.input.View(), m.width), common.Truncate("  "+m.status(), m.width)}
	end := min(m.offset+m.rows(), len(m.hits))
	for i := m.offset; i < end; i++ {
		lines = append(lines, m.hitView(m.hits[i], i == m.cursor)...)
	}
	if len(m.hits) == 0 && !m.busy && m.ran != "" && m.err == "" {
		lines = append(lines, "", "  "+m.st.Muted.Render("No hits. Fewer words, or pre* for words that start so, find more."))
	}
	return strings.Join(lines, "\n")
}

// status says what the page is doing, or what it found.
func (m Model) status() string {
	switch {
	case m.err != "":
		return m.st.Fail.Render(common.Sanitize(m.err))
	case m.busy:
		s := "searching…"
		if !m.updated || m.ran == "" {
			s = "updating the index…"
		}
		if t := m.total.Load(); t > 16<<20 {
			s = fmt.Sprintf("indexing every session: %d%% (only what is new is read next time)", 100*m.done.Load()/t)
		}
		return m.st.Warn.Render(s)
	case m.ran == "":
		return m.st.Muted.Render("Search every session: prompts, answers, commands, outputs, tool inputs and results.")
	}
	n := fmt.Sprintf("%d hits", len(m.hits))
	if len(m.hits) == 1 {
		n = "1 hit"
	}
	if len(m.hits) == Limit {
		n = fmt.Sprintf("the best %d hits", Limit)
	}
	return m.st.Muted.Render(n + " for " + common.OneLine(common.Sanitize(m.ran), 60) + " · enter opens the session at the hit")
}

// hitView is a hit's two lines: where and what, then the snippet with the
// matched words marked.
func (m Model) hitView(h search.Hit, selected bool) []string {
	mark := "  "
	if selected {
		mark = m.st.Selected.Render("▌") + " "
	}
	kind := h.Kind.String()
	if h.Tool != "" && (h.Kind == search.KindTool || h.Kind == search.KindResult) {
		kind += " " + h.Tool
	}
	head := m.st.Header.Render(common.Sanitize(h.SessionID)) + "  " + m.st.Muted.Render(h.Time.In(m.loc).Format("2006-01-02 15:04")) + "  " + kind
	if h.Failed {
		head += "  " + m.st.Fail.Render("failed")
	}
	if h.Title != "" {
		head += "  " + m.st.Muted.Render(common.OneLine(common.Sanitize(h.Title), 50))
	}
	return []string{common.Truncate(mark+head, m.width), common.Truncate(mark+"  "+m.snippet(h), m.width)}
}

// snippet is the hit's text with the matched words marked.
func (m Model) snippet(h search.Hit) string {
	var b strings.Builder
	at := 0
	for _, r := range h.Highlights {
		if r[0] < at || r[1] > len(h.Snippet) || r[0] > r[1] {
			continue
		}
		b.WriteString(h.Snippet[at:r[0]])
		b.WriteString(m.st.Match.Render(h.Snippet[r[0]:r[1]]))
		at = r[1]
	}
	b.WriteString(h.Snippet[at:])
	return b.String()
}

// Typing reports whether the query has the keyboard.
func (m Model) Typing() bool { return m.input.Focused() }

// KeyMap is the page's key map, for help.
func (m Model) KeyMap() keys.Finder { return m.keys }
