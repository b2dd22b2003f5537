// Package browser is the session list: every session of every source,
// newest first, with what each did, live ones marked, filtered with /.
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
	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// listTimeout bounds one listing of all sources.
const listTimeout = 10 * time.Second

// item is one session in the list.
type item struct{ info session.Info }

// FilterValue is what / matches against.
func (i item) FilterValue() string {
	return strings.Join([]string{i.info.ID, i.info.Title, i.info.Agent, i.info.Source, i.info.WorkingDirectory, i.info.Status}, " ")
}

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
	list   list.Model
	cols   *columns
	infos  []session.Info
	errs   []string
	loaded bool
	where  string // the store shown, for the empty-list message
	width  int
	height int
}

// New returns an empty session list; where names the store for the
// message shown when it has no sessions.
func New(st *styles.Styles, km keys.Browser, loc *time.Location, now func() time.Time, where string) Model {
	if now == nil {
		now = time.Now
	}
	cols := &columns{st: st, loc: loc, now: now}
	l := list.New(nil, delegate{cols: cols}, 0, 0)
	l.SetShowTitle(false)
	l.SetShowHelp(false)
	l.SetShowStatusBar(false)
	l.SetShowPagination(false)
	l.SetShowFilter(false) // the filter input is drawn in the status line
	l.DisableQuitKeybindings()
	l.SetStatusBarItemName("session", "sessions")
	m := Model{st: st, keys: km, list: l, cols: cols, where: where}
	m.SetStyles(st)
	return m
}

// SetStyles switches to styles for another background.
func (m *Model) SetStyles(st *styles.Styles) {
	m.st, m.cols.st = st, st
	ls := list.DefaultStyles(st.Dark)
	ls.TitleBar = lipgloss.NewStyle()
	m.list.Styles = ls
	m.list.FilterInput.SetStyles(filterStyles(st))
}

// SetSize sets the area the list draws in.
func (m *Model) SetSize(width, height int) {
	m.width, m.height = max(width, 1), max(height, 1)
	m.cols.width = m.width
	m.list.SetSize(m.width, max(m.height-2, 1)) // the column header and the filter line
}

// Filtering reports whether the filter input has the keyboard.
func (m Model) Filtering() bool { return m.list.SettingFilter() }

// Selected is the highlighted session.
func (m Model) Selected() (session.Info, bool) {
	it, ok := m.list.SelectedItem().(item)
	return it.info, ok
}

// Sessions is everything listed, newest first.
func (m Model) Sessions() []session.Info { return m.infos }

// Loaded reports whether a listing has arrived.
func (m Model) Loaded() bool { return m.loaded }

// Update handles listings and keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case ListedMsg:
		m.setSessions(msg)
		return m, nil
	case tea.KeyPressMsg:
		if !m.list.SettingFilter() {
			switch {
			case key.Matches(msg, m.keys.Open):
				if info, ok := m.Selected(); ok {
					return m, func() tea.Msg { return OpenMsg{Info: info} }
				}
				return m, nil
			case key.Matches(msg, m.keys.Top):
				m.list.GoToStart()
				return m, nil
			case key.Matches(msg, m.keys.Bottom):
				m.list.GoToEnd()
				return m, nil
			}
		}
	}
	var cmd tea.Cmd
	m.list, cmd = m.list.Update(msg)
	return m, cmd
}

// setSessions shows a new listing, keeping the selection on the same
// session.
func (m *Model) setSessions(msg ListedMsg) {
	selected, hadSel := m.Selected()
	m.infos, m.errs, m.loaded = msg.Infos, msg.Errs, true
	items := make([]list.Item, len(msg.Infos))
	at := -1
	for i, info := range msg.Infos {
		items[i] = item{info: info}
		if hadSel && info.ID == selected.ID && info.Source == selected.Source {
			at = i
		}
	}
	m.list.SetItems(items)
	if at >= 0 && !m.list.IsFiltered() {
		m.list.Select(at)
	}
}

// View draws the column header, the filter line and the rows.
func (m Model) View() string {
	if m.loaded && len(m.infos) == 0 {
		return m.emptyView()
	}
	var b strings.Builder
	b.WriteString(m.cols.header())
	b.WriteByte('\n')
	b.WriteString(m.statusLine())
	b.WriteByte('\n')
	b.WriteString(m.list.View())
	return b.String()
}

// statusLine is the filter input while typing a filter, else a count.
func (m Model) statusLine() string {
	if m.list.SettingFilter() {
		return m.list.FilterInput.View()
	}
	var parts []string
	switch {
	case !m.loaded:
		parts = append(parts, "Loading sessions…")
	case m.list.IsFiltered():
		parts = append(parts, fmt.Sprintf("%d of %s match “%s” (esc clears)", len(m.list.VisibleItems()), plural(len(m.infos), "session"), common.Sanitize(m.list.FilterValue())))
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
	return common.Truncate("  "+m.st.Muted.Render(strings.Join(parts, " · ")), m.width)
}

func (m Model) emptyView() string {
	lines := []string{
		"",
		"  " + m.st.Header.Render("No sessions yet."),
		"",
		"  " + m.st.Muted.Render("Sessions are recorded in "+common.Sanitize(m.where)+"."),
		"  " + m.st.Muted.Render("Record one with  cuff exec -- go test ./..."),
		"  " + m.st.Muted.Render("or have Claude Code recorded with  cuff hook install claude"),
		"  " + m.st.Muted.Render("or watch the built-in demo:  cuff demo"),
	}
	for _, e := range m.errs {
		lines = append(lines, "", "  "+m.st.Fail.Render(common.Sanitize(e)))
	}
	for i, l := range lines {
		lines[i] = common.Truncate(l, m.width)
	}
	return strings.Join(lines, "\n")
}

// KeyMap is the list's key map, for help.
func (m Model) KeyMap() keys.Browser { return m.keys }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
