package viewer

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// wheelLines is how far one step of the mouse wheel scrolls.
const wheelLines = 3

// BackMsg asks the root to leave the session view (esc with nothing to
// cancel).
type BackMsg struct{}

// AnswerMsg asks the root to open the prompt for a pending approval.
type AnswerMsg struct {
	Request *transcript.Event
}

// Update handles keys, the mouse and background renderings.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case MarkdownMsg:
		if msg.Gen != m.gen {
			return m, nil
		}
		if m.bg.asked[msg.key] {
			m.bg.done[msg.key] = msg.lines
			delete(m.cache, msg.key.item)
		}
	case tea.KeyPressMsg:
		if m.search.typing {
			cmd = m.updateSearch(msg)
		} else {
			cmd = m.handleKey(msg)
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.scroll(-wheelLines)
		case tea.MouseWheelDown:
			m.scroll(wheelLines)
		}
	case tea.MouseClickMsg:
		row := msg.Y - m.headerHeight()
		if msg.Button == tea.MouseLeft && row >= 0 && row < len(m.frameItems) && m.frameItems[row] != nil {
			if m.sel == m.frameItems[row] {
				m.toggle(m.sel)
			}
			m.sel = m.frameItems[row]
		}
	default:
		if m.search.typing {
			m.search.input, cmd = m.search.input.Update(msg)
		}
	}
	m.layout()
	return m, tea.Batch(cmd, m.bg.take(m.gen))
}

// Cmds returns the background work that laying out asked for; the root
// calls it after changing the view through its methods.
func (m *Model) Cmds() tea.Cmd { return m.bg.take(m.gen) }

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	h := m.bodyHeight()
	switch {
	case key.Matches(msg, k.Down):
		m.down()
	case key.Matches(msg, k.Up):
		m.up()
	case key.Matches(msg, k.PageDown):
		m.scroll(max(h-1, 1))
		m.selectOnScreen()
	case key.Matches(msg, k.PageUp):
		m.scroll(-max(h-1, 1))
		m.selectOnScreen()
	case key.Matches(msg, k.HalfDown):
		m.scroll(max(h/2, 1))
		m.selectOnScreen()
	case key.Matches(msg, k.HalfUp):
		m.scroll(-max(h/2, 1))
		m.selectOnScreen()
	case key.Matches(msg, k.Top):
		if len(m.vis) > 0 {
			m.follow, m.sel, m.top, m.off = false, m.vis[0], m.vis[0], 0
		}
		m.wantTop = m.partial && m.onDemand
	case key.Matches(msg, k.Bottom):
		m.follow, m.paused = true, false
		if len(m.vis) > 0 {
			m.sel = m.vis[len(m.vis)-1]
		}
	case key.Matches(msg, k.Toggle):
		m.toggle(m.sel)
	case key.Matches(msg, k.ToggleAll):
		m.expandAll = !m.expandAll
		m.expanded = map[int64]bool{}
	case key.Matches(msg, k.Search):
		return m.startSearch()
	case key.Matches(msg, k.Next):
		m.jumpMatch(1)
	case key.Matches(msg, k.Prev):
		m.jumpMatch(-1)
	case key.Matches(msg, k.Filter):
		m.SetFilter(m.filter.Next())
	case key.Matches(msg, k.FilterKind):
		m.SetFilter(timeline.Filter(msg.String()[0] - '0'))
	case key.Matches(msg, k.PrevPrompt):
		m.jumpPrompt(-1)
	case key.Matches(msg, k.NextPrompt):
		m.jumpPrompt(1)
	case key.Matches(msg, k.Follow):
		if m.follow {
			m.follow, m.paused = false, true
		} else {
			m.follow, m.paused = true, false
		}
	case key.Matches(msg, k.Answer):
		if req := m.pendingApproval(); req != nil {
			return func() tea.Msg { return AnswerMsg{Request: req} }
		}
	case key.Matches(msg, k.Copy):
		if c, ok := m.CopyTarget(); ok {
			return func() tea.Msg { return CopyMsg{Content: c} }
		}
		return note("Nothing to copy here")
	case key.Matches(msg, k.Pager), key.Matches(msg, k.Editor):
		if c, ok := m.OpenTarget(); ok {
			editor := key.Matches(msg, k.Editor)
			return func() tea.Msg { return OpenMsg{Content: c, Editor: editor} }
		}
		return note("Nothing to open here")
	case key.Matches(msg, k.NextFail):
		if !m.JumpFailure(1) {
			return note("No failure below")
		}
	case key.Matches(msg, k.PrevFail):
		if !m.JumpFailure(-1) {
			return note("No failure above")
		}
	case key.Matches(msg, k.Delete):
		return func() tea.Msg { return DeleteMsg{} }
	case key.Matches(msg, k.Stats):
		return func() tea.Msg { return StatsMsg{} }
	case key.Matches(msg, k.Back):
		if m.search.query != "" {
			m.clearSearch()
			return nil
		}
		return func() tea.Msg { return BackMsg{} }
	}
	return nil
}

func note(text string) tea.Cmd { return func() tea.Msg { return NoteMsg{Text: text} } }

// toggle expands or folds an item, keeping its first line where it is.
func (m *Model) toggle(it *timeline.Item) {
	if it == nil {
		return
	}
	m.expanded[itemKey(it)] = !m.isExpanded(it)
	if m.top == it {
		m.off = 0
	}
	m.follow = m.follow && it == m.vis[len(m.vis)-1]
	if !m.follow {
		m.ensureVisible(it)
	}
}

// scroll moves the screen by n lines (up when n < 0).
func (m *Model) scroll(n int) {
	if len(m.vis) == 0 || m.top == nil {
		return
	}
	i := m.pos(m.top)
	if n < 0 {
		m.follow = false
		m.off += n
		for m.off < 0 {
			if i == 0 {
				m.off = 0
				break
			}
			i--
			m.off += m.itemHeight(m.vis[i])
		}
		m.top = m.vis[i]
		return
	}
	h := m.bodyHeight()
	if m.linesFrom(i, m.off, h+n) <= h {
		return // already at the bottom
	}
	m.off += n
	for {
		ih := m.itemHeight(m.vis[i])
		if m.off < ih || i == len(m.vis)-1 {
			m.off = min(m.off, ih-1)
			break
		}
		m.off -= ih
		i++
	}
	m.top = m.vis[i]
}

// onScreen returns the first and last frame rows of an item, or -1.
func (m *Model) onScreen(it *timeline.Item) (first, last int) {
	first, last = -1, -1
	for r, fi := range m.frameItems {
		if fi == it {
			if first < 0 {
				first = r
			}
			last = r
		}
	}
	return first, last
}

// down selects the next item, or scrolls through the selected one when it
// goes on below the screen.
func (m *Model) down() {
	if m.sel == nil {
		return
	}
	first, last := m.onScreen(m.sel)
	if first < 0 {
		m.selectOnScreen()
		return
	}
	shown := last - first + 1
	if m.sel == m.top {
		shown += m.off
	}
	h := m.bodyHeight()
	if shown < m.itemHeight(m.sel) && last == len(m.frame)-1 {
		m.scroll(max(h/2, 1))
		return
	}
	i := m.pos(m.sel)
	if i+1 < len(m.vis) {
		m.sel = m.vis[i+1]
		m.ensureVisible(m.sel)
	}
}

// up selects the previous item, or scrolls back through the selected one
// when its start is above the screen.
func (m *Model) up() {
	if m.sel == nil {
		return
	}
	first, _ := m.onScreen(m.sel)
	if first < 0 {
		m.selectOnScreen()
		return
	}
	if m.sel == m.top && m.off > 0 {
		m.follow = false
		m.off = max(0, m.off-max(m.bodyHeight()/2, 1))
		return
	}
	i := m.pos(m.sel)
	if i > 0 {
		m.sel = m.vis[i-1]
		m.ensureVisible(m.sel)
	}
}

// selectOnScreen moves the selection to the first item that starts on the
// screen when the selection has scrolled out of view.
func (m *Model) selectOnScreen() {
	m.layout()
	if first, _ := m.onScreen(m.sel); first >= 0 {
		return
	}
	for r, it := range m.frameItems {
		if it != nil && (r > 0 || m.off == 0) {
			m.sel = it
			return
		}
	}
}

// ensureVisible scrolls the least needed to show all of it (or its start,
// when it is taller than the screen).
func (m *Model) ensureVisible(it *timeline.Item) {
	i, t := m.pos(it), m.pos(m.top)
	h := m.bodyHeight()
	if i < t || (i == t && m.off > 0) {
		m.top, m.off, m.follow = it, 0, false
		return
	}
	n := -m.off
	for j := t; j <= i; j++ {
		n += m.itemHeight(m.vis[j])
		if n > h {
			break
		}
	}
	if n <= h {
		return
	}
	ih := m.itemHeight(it)
	if ih >= h {
		m.top, m.off = it, 0
		return
	}
	total := ih
	for j := i - 1; j >= 0; j-- {
		jh := m.itemHeight(m.vis[j])
		if total+jh >= h {
			m.top, m.off = m.vis[j], total+jh-h
			return
		}
		total += jh
	}
}

// SetFilter shows only one kind of item, keeping the selection when it is
// still shown.
func (m *Model) SetFilter(f timeline.Filter) {
	if f == m.filter {
		return
	}
	m.filter = f
	m.rebuildVis()
	m.recomputeMatches()
	if m.sel != nil && m.inVis(m.sel) && !m.follow {
		m.top, m.off = m.sel, 0
	}
	m.layout()
}

// jumpPrompt selects the previous or next user prompt.
func (m *Model) jumpPrompt(dir int) {
	for i := m.pos(m.sel) + dir; i >= 0 && i < len(m.vis); i += dir {
		if m.vis[i].Kind == timeline.KindUser {
			m.jumpTo(m.vis[i], 0)
			return
		}
	}
}

// jumpTo selects it and puts its line `line` near the top of the screen.
func (m *Model) jumpTo(it *timeline.Item, line int) {
	m.sel, m.top, m.off, m.follow = it, it, max(0, line), false
}

// pendingApproval is the approval request to answer: the selected one when
// it waits, else the newest that waits.
func (m *Model) pendingApproval() *transcript.Event {
	if m.sel != nil && m.sel.Kind == timeline.KindApproval && m.sel.Running() && m.sel.ApprovalRequest() != nil {
		return m.sel.Event()
	}
	items := m.tl.Items()
	for i := len(items) - 1; i >= 0; i-- {
		if it := items[i]; it.Kind == timeline.KindApproval && it.Running() && it.ApprovalRequest() != nil {
			return it.Event()
		}
	}
	return nil
}
