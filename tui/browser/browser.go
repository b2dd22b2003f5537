// Package browser is the session list: every session of every source,
// newest first, with what each did, live ones marked, filtered with /.
// Sessions arrive as a ListedMsg (from List, or any other lister); the
// list keeps the query, the selected session and its place on screen
// across every new listing.
package browser

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// listTimeout bounds one listing of all sources.
const listTimeout = 10 * time.Second

// ListedMsg carries the sessions of every source.
type ListedMsg struct {
	Infos []session.Info
	Errs  []string
}

// OpenMsg asks the root to open a session.
type OpenMsg struct{ Info session.Info }

// List returns a command that lists every source at once and merges the
// results, newest first. A source that fails is reported, not fatal.
func List(ctx context.Context, sources []session.Source) tea.Cmd {
	parent := ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, listTimeout)
		defer cancel()
		var mu sync.Mutex
		var wg sync.WaitGroup
		var msg ListedMsg
		for _, src := range sources {
			wg.Add(1)
			go func() {
				defer wg.Done()
				infos, err := src.List(ctx)
				if f, ok := src.(filler); ok && err == nil {
					// Exact counts arrive with a later listing: the source
					// caches what this background pass computes.
					go fill(parent, f, slices.Clone(infos))
				}
				mu.Lock()
				defer mu.Unlock()
				if err != nil && !errors.Is(err, context.Canceled) {
					msg.Errs = append(msg.Errs, fmt.Sprintf("%s: %v", src.Name(), err))
				}
				msg.Infos = append(msg.Infos, infos...)
			}()
		}
		wg.Wait()
		SortNewestFirst(msg.Infos)
		sort.Strings(msg.Errs)
		return msg
	}
}

// filler is a source whose listing leaves counts to compute later
// (session.FolderSource).
type filler interface {
	Fill(ctx context.Context, infos []session.Info) error
}

// fillBudget bounds one background counting pass.
const fillBudget = 30 * time.Second

func fill(ctx context.Context, f filler, infos []session.Info) {
	ctx, cancel := context.WithTimeout(ctx, fillBudget)
	defer cancel()
	_ = f.Fill(ctx, infos) // counts not computed now show as "?" until a later pass
}

// SortNewestFirst orders sessions by start time, newest first.
func SortNewestFirst(infos []session.Info) {
	sort.SliceStable(infos, func(i, j int) bool {
		if !infos[i].Started.Equal(infos[j].Started) {
			return infos[i].Started.After(infos[j].Started)
		}
		return infos[i].ID > infos[j].ID
	})
}

// Model is the session list.
type Model struct {
	st     *styles.Styles
	keys   keys.Browser
	cols   *columns
	infos  []session.Info // everything listed, newest first
	index  *Index         // infos, ready for filtering
	rows   []session.Info // what the query lets through, best match first
	errs   []string
	loaded bool
	where  string // the store shown, for the empty-list message
	width  int
	height int

	input  textinput.Model // the query; focused while it is typed
	query  Query
	cursor int // index into rows
	offset int // the first row on screen
}

// New returns an empty session list; where names the store for the
// message shown when it has no sessions.
func New(st *styles.Styles, km keys.Browser, loc *time.Location, now func() time.Time, where string) Model {
	if now == nil {
		now = time.Now
	}
	in := textinput.New()
	in.Prompt = "/"
	in.Placeholder = "text, or source: agent: status: failed"
	m := Model{st: st, keys: km, cols: &columns{st: st, loc: loc, now: now}, where: where, input: in}
	m.SetStyles(st)
	return m
}

// SetStyles switches to styles for another background.
func (m *Model) SetStyles(st *styles.Styles) {
	m.st, m.cols.st = st, st
	m.input.SetStyles(filterStyles(st))
}

// SetSize sets the area the list draws in.
func (m *Model) SetSize(width, height int) {
	m.width, m.height = max(width, 1), max(height, 1)
	m.cols.width = m.width
	m.input.SetWidth(max(min(m.width/2, queryMaxWidth), 1))
	m.scrollTo(m.cursor)
}

// queryMaxWidth bounds the filter input, so the match count fits beside it.
const queryMaxWidth = 60

// pageRows is how many rows fit under the column header and status line.
func (m Model) pageRows() int { return max(m.height-2, 1) }

// Filtering reports whether the filter input has the keyboard.
func (m Model) Filtering() bool { return m.input.Focused() }

// Query is the filter in force ("" for none).
func (m Model) Query() string { return m.input.Value() }

// Selected is the highlighted session.
func (m Model) Selected() (session.Info, bool) {
	if m.cursor < 0 || m.cursor >= len(m.rows) {
		return session.Info{}, false
	}
	return m.rows[m.cursor], true
}

// Sessions is everything listed, newest first.
func (m Model) Sessions() []session.Info { return m.infos }

// Visible is what the filter lets through, in the order shown.
func (m Model) Visible() []session.Info { return m.rows }

// Loaded reports whether a listing has arrived.
func (m Model) Loaded() bool { return m.loaded }

// RefreshMsg asks the root to list the sessions again now.
type RefreshMsg struct{}

// CopyMsg asks the root to copy the selected session's id (y).
type CopyMsg struct{ Info session.Info }

// DeleteMsg asks the root to delete the selected session (D).
type DeleteMsg struct{ Info session.Info }

// UndoMsg asks the root to bring back what D just deleted (u).
type UndoMsg struct{}

// StatsMsg asks the root for the stats per day of the sessions listed (S).
type StatsMsg struct{ Infos []session.Info }

// NoteMsg asks the root to show a short note.
type NoteMsg struct{ Text string }

func send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// Update handles listings and keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case ListedMsg:
		m.setSessions(msg)
		return m, nil
	case tea.KeyPressMsg:
		if m.input.Focused() {
			return m.typeQuery(msg)
		}
		return m.handleKey(msg)
	case tea.PasteMsg:
		if m.input.Focused() {
			return m.typeQuery(msg)
		}
		return m, nil
	}
	if m.input.Focused() {
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg) // cursor blinks
		return m, cmd
	}
	return m, nil
}

func (m Model) handleKey(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Open):
		if info, ok := m.Selected(); ok {
			return m, func() tea.Msg { return OpenMsg{Info: info} }
		}
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.PageUp):
		m.move(-m.pageRows())
	case key.Matches(msg, k.PageDown):
		m.move(m.pageRows())
	case key.Matches(msg, k.Top):
		m.move(-len(m.rows))
	case key.Matches(msg, k.Bottom):
		m.move(len(m.rows))
	case key.Matches(msg, k.Filter):
		if m.loaded && len(m.infos) == 0 {
			// The empty screen shows no filter line: typing into one
			// unseen would swallow q.
			return m, send(NoteMsg{Text: "Nothing to filter yet"})
		}
		m.input.CursorEnd()
		return m, m.input.Focus()
	case key.Matches(msg, k.Clear):
		if m.input.Value() != "" {
			m.setQuery("")
		}
	case key.Matches(msg, k.Refresh):
		return m, send(RefreshMsg{})
	case key.Matches(msg, k.Copy):
		if info, ok := m.Selected(); ok {
			return m, send(CopyMsg{Info: info})
		}
	case key.Matches(msg, k.NextFail):
		if !m.jumpFailure(1) {
			return m, send(NoteMsg{Text: "No session with failures below"})
		}
	case key.Matches(msg, k.PrevFail):
		if !m.jumpFailure(-1) {
			return m, send(NoteMsg{Text: "No session with failures above"})
		}
	case key.Matches(msg, k.Delete):
		if info, ok := m.Selected(); ok {
			return m, send(DeleteMsg{Info: info})
		}
	case key.Matches(msg, k.Undo):
		return m, send(UndoMsg{})
	case key.Matches(msg, k.Stats):
		return m, send(StatsMsg{Infos: m.rows})
	}
	return m, nil
}

// jumpFailure selects the next (dir 1) or previous (dir -1) session with
// failures, and reports whether there was one.
func (m *Model) jumpFailure(dir int) bool {
	for i := m.cursor + dir; i >= 0 && i < len(m.rows); i += dir {
		if m.rows[i].Failures > 0 {
			m.move(i - m.cursor)
			return true
		}
	}
	return false
}

// typeQuery edits the query; the list follows every keystroke. Enter
// keeps the query and gives the keys back to the list, esc clears it, and
// the arrows move the selection meanwhile.
func (m Model) typeQuery(msg tea.Msg) (Model, tea.Cmd) {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch kp.String() {
		case "enter":
			m.input.Blur()
			return m, nil
		case "esc":
			m.input.Blur()
			m.setQuery("")
			return m, nil
		case "up", "ctrl+p":
			m.move(-1)
			return m, nil
		case "down", "ctrl+n":
			m.move(1)
			return m, nil
		}
	}
	before := m.input.Value()
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() != before {
		m.setQuery(m.input.Value())
	}
	return m, cmd
}

// setQuery filters by a new query and selects its best match.
func (m *Model) setQuery(q string) {
	if m.input.Value() != q {
		m.input.SetValue(q)
	}
	m.query = ParseQuery(q)
	m.rows = m.query.FilterIndex(m.indexed())
	m.cursor, m.offset = 0, 0
}

// setSessions shows a new listing under the same query, keeping the
// selected session selected, on the same line of the screen.
func (m *Model) setSessions(msg ListedMsg) {
	selected, hadSel := m.Selected()
	line := m.cursor - m.offset
	m.infos, m.errs, m.loaded = msg.Infos, msg.Errs, true
	m.index = nil
	m.rows = m.query.FilterIndex(m.indexed())
	at := -1
	if hadSel {
		at = slices.IndexFunc(m.rows, func(i session.Info) bool { return sameSession(i, selected) })
	}
	if at < 0 {
		m.cursor = min(m.cursor, max(len(m.rows)-1, 0))
		m.scrollTo(m.cursor)
		return
	}
	m.cursor = at
	m.offset = at - line
	m.scrollTo(at)
}

// SelectSession selects the listed session that is info, when it is
// listed, and reports whether it was.
func (m *Model) SelectSession(info session.Info) bool {
	at := slices.IndexFunc(m.rows, func(i session.Info) bool { return sameSession(i, info) })
	if at < 0 {
		return false
	}
	m.move(at - m.cursor)
	return true
}

// indexed is the listing ready for filtering, made once per listing.
func (m *Model) indexed() *Index {
	if m.index == nil {
		m.index = NewIndex(m.infos)
	}
	return m.index
}

func sameSession(a, b session.Info) bool { return a.ID == b.ID && a.Source == b.Source }

// move moves the selection by n rows, scrolling as little as it takes.
func (m *Model) move(n int) {
	if len(m.rows) == 0 {
		return
	}
	m.cursor = min(max(m.cursor+n, 0), len(m.rows)-1)
	m.scrollTo(m.cursor)
}

// scrollTo keeps row i on screen and the screen full.
func (m *Model) scrollTo(i int) {
	m.offset = common.ScrollOffset(m.offset, i, m.pageRows(), len(m.rows))
}

// View draws the column header, the filter line and the rows.
func (m Model) View() string {
	if m.loaded && len(m.infos) == 0 {
		return m.emptyView()
	}
	lines := []string{m.cols.header(), m.statusLine()}
	end := min(m.offset+m.pageRows(), len(m.rows))
	for i := m.offset; i < end; i++ {
		lines = append(lines, m.cols.row(m.rows[i], i == m.cursor))
	}
	if m.loaded && len(m.rows) == 0 {
		lines = append(lines, "", "  "+m.st.Muted.Render("No session matches. esc clears the filter."))
	}
	return strings.Join(lines, "\n")
}

// statusLine is the filter input while typing a filter, else a count.
func (m Model) statusLine() string {
	var parts []string
	switch {
	case !m.loaded:
		parts = append(parts, "Loading sessions…")
	case !m.query.Empty():
		parts = append(parts, fmt.Sprintf("%d of %s match", len(m.rows), plural(len(m.infos), "session")))
		if !m.input.Focused() {
			parts[0] += fmt.Sprintf(" “%s” (esc clears)", common.Sanitize(m.input.Value()))
		}
	default:
		live := 0
		for _, info := range m.infos {
			if info.Live {
				live++
			}
		}
		s := plural(len(m.infos), "session")
		if live > 0 {
			s += fmt.Sprintf(" · %d live", live)
		}
		parts = append(parts, s)
	}
	for _, e := range m.errs {
		parts = append(parts, m.st.Fail.Render(common.Sanitize(e)))
	}
	status := m.st.Muted.Render(strings.Join(parts, " · "))
	if m.input.Focused() {
		in := m.input.View()
		return common.Truncate("  "+in+"  "+status, m.width)
	}
	return common.Truncate("  "+status, m.width)
}

// emptyView says what to do when there is nothing to list yet.
func (m Model) emptyView() string {
	cmd, muted := m.st.Header.Render, m.st.Muted.Render
	step := func(c, what string) string {
		return "    " + cmd(common.PadRight(c, emptyCommandWidth)) + " " + muted(what)
	}
	lines := []string{
		"",
		"  " + m.st.Header.Render("No sessions yet."),
		"",
		"  " + muted("See cuff at work now:"),
		step("cuff demo", "a replay of a recorded session; nothing runs"),
		"",
		"  " + muted("Record your own:"),
		step("cuff hook install claude", "Claude Code: prompts, tools, commands, approvals"),
		step("cuff mcp", "Codex, Cursor, any MCP client (docs/agents.md)"),
		step("cuff exec -- go test ./...", "one command"),
		"",
		"  " + muted("Sessions are kept in "+common.Sanitize(m.where)+"; Claude Code's and Codex's own"),
		"  " + muted("appear here too. This list refreshes by itself. q quits."),
	}
	for _, e := range m.errs {
		lines = append(lines, "", "  "+m.st.Fail.Render(common.Sanitize(e)))
	}
	for i, l := range lines {
		lines[i] = common.Truncate(l, m.width)
	}
	return strings.Join(lines, "\n")
}

// emptyCommandWidth is the column the empty view's commands take.
const emptyCommandWidth = 27

// KeyMap is the list's key map, for help.
func (m Model) KeyMap() keys.Browser { return m.keys }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
