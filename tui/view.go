package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/dialog"
)

// View draws the focused page, the status bar and any dialog on top.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "cuff"
	if m.open {
		title := m.viewer.Info().Title
		if title == "" {
			title = m.viewer.Info().ID
		}
		v.WindowTitle = "cuff · " + common.OneLine(common.Sanitize(title), 60)
	}
	return v
}

// render is the frame as text: exactly height lines of at most width cells.
func (m Model) render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	var page string
	switch {
	case m.focus == focusViewer && m.open:
		page = m.viewer.View()
	case m.focus == focusFinder:
		page = m.titleLine() + "\n" + m.finder.View()
	case m.waiting:
		page = m.waitingView()
	default:
		page = m.titleLine() + "\n" + m.browser.View()
	}
	lines := strings.Split(page, "\n")
	if m.bannerHeight() > 0 {
		lines = append([]string{m.st.Warn.Render(common.Sanitize(m.opts.Banner))}, lines...)
	}
	status := m.statusLines()
	body := max(m.height-len(status), 0)
	if len(lines) > body {
		lines = lines[:body]
	}
	for len(lines) < body {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = common.Truncate(l, m.width)
	}
	lines = append(lines, status[max(len(status)-m.height, 0):]...)
	frame := strings.Join(lines, "\n")
	if d := m.dialogs.Top(); d != nil {
		box := d.View(m.width, m.height)
		box = clipBox(box, m.width, m.height)
		w, h := lipgloss.Size(box)
		layers := []*lipgloss.Layer{
			lipgloss.NewLayer(frame),
			lipgloss.NewLayer(box).X(max(0, (m.width-w)/2)).Y(max(0, (m.height-h)/2)).Z(1),
		}
		frame = lipgloss.NewCompositor(layers...).Render()
	}
	return frame
}

// clipBox cuts a dialog box to the screen.
func clipBox(box string, width, height int) string {
	lines := strings.Split(box, "\n")
	if len(lines) > height {
		lines = lines[:height]
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "")
		}
	}
	return strings.Join(lines, "\n")
}

func (m Model) titleLine() string {
	left := m.st.Title.Render("cuff") + m.st.Muted.Render(" ▸ sessions")
	if off := m.opts.SandboxOff; off != "" {
		left += m.st.Notice.Render("  ⚠ sandbox off: " + common.OneLine(common.Sanitize(off), 80))
	}
	right := ""
	if m.opts.Where != "" {
		right = m.st.Muted.Render(common.Sanitize(m.opts.Where))
	}
	lw, rw := ansi.StringWidth(left), ansi.StringWidth(right)
	if lw+2+rw > m.width {
		return left
	}
	return left + strings.Repeat(" ", m.width-lw-rw) + right
}

func (m Model) waitingView() string {
	where := m.opts.Where
	if where == "" {
		where = "this project"
	}
	lines := []string{
		m.titleLine(),
		"",
		"  " + m.st.Header.Render("Waiting for a live session…"),
		"",
		"  " + m.st.Muted.Render("cuff watch follows the newest session that is being recorded in"),
		"  " + m.st.Muted.Render(common.Sanitize(where)+"."),
		"  " + m.st.Muted.Render("Start an agent with cuff recording it, or name a session: cuff watch ID"),
	}
	return strings.Join(lines, "\n")
}

// statusLines are the bottom lines: the status bar — a toast, or the keys
// that work here, and on the right what the page has to say — and above
// it the rest of a toast too long for one line, over the page's last lines
// while it shows: a note is read whole (where an export went, how a copy
// was made), never cut off.
func (m Model) statusLines() []string {
	right := ""
	if m.focus == focusViewer && m.open {
		right = m.viewer.Status()
	}
	if n := m.queue.len(); n > 0 {
		badge := m.st.Warn.Render(fmt.Sprintf("⚠ %d pending", n))
		if right != "" {
			badge += m.st.Muted.Render(" · ")
		}
		right = badge + right
	}
	rw := ansi.StringWidth(right)
	if rw > m.width/2 && m.toast.text == "" {
		right = common.Truncate(right, m.width/2)
		rw = ansi.StringWidth(right)
	}
	room := m.width
	if rw > 0 {
		room = max(m.width-rw-hintGap, 0)
	}
	var rows []string
	if m.toast.text != "" {
		style := m.st.Toast
		if m.toast.err {
			style = m.st.ToastError
		}
		text := common.Sanitize(m.toast.text)
		if ansi.StringWidth(text) > room {
			rows = wrapRows(text, m.width, maxToastRows)
		} else {
			rows = []string{text}
		}
		for i, r := range rows {
			rows[i] = style.Render(r)
		}
	} else {
		rows = []string{m.hintLine(m.shortHelp(), room)}
	}
	last := common.Truncate(rows[len(rows)-1], m.width)
	if lw := ansi.StringWidth(last); lw+rw < m.width && (rw == 0 || lw+hintGap+rw <= m.width) {
		last += strings.Repeat(" ", m.width-lw-rw) + right
	}
	rows[len(rows)-1] = last
	return rows
}

// maxToastRows bounds the lines a long toast takes.
const maxToastRows = 4

// wrapRows wraps text to width, at spaces where it can, in at most n
// rows (the last one ending in … when it is cut).
func wrapRows(text string, width, n int) []string {
	rows := strings.Split(ansi.Wrap(text, max(width, 1), ""), "\n")
	if len(rows) > n {
		rows = rows[:n]
		rows[n-1] = common.Truncate(rows[n-1]+" …", width)
	}
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " ")
	}
	return rows
}

// hintGap is the least space between the keys and what is on the right.
const hintGap = 2

// hintLine shows as many of bs as fit in width, in order, always with the
// last one (? help): keys are dropped from the end, whole, never cut.
func (m Model) hintLine(bs []key.Binding, width int) string {
	if len(bs) == 0 {
		return ""
	}
	h := m.help
	h.SetWidth(0) // we fit it ourselves
	head, last := bs[:len(bs)-1], bs[len(bs)-1]
	for n := len(head); n >= 0; n-- {
		line := h.ShortHelpView(slices.Concat(head[:n], []key.Binding{last}))
		if ansi.StringWidth(line) <= width {
			return line
		}
	}
	return h.ShortHelpView([]key.Binding{last})
}

// shortHelp is the keys that work where the focus is, those that matter
// most first, ending in quit and ? help.
func (m Model) shortHelp() []key.Binding {
	g := m.keys.Global
	var pending []key.Binding
	if n := m.queue.len(); n > 0 {
		b := g.Approvals
		b.SetHelp(b.Help().Key, fmt.Sprintf("answer %d pending", n))
		pending = []key.Binding{b}
	}
	top := m.dialogs.Top()
	if h, ok := top.(interface{ ShortHelp() []key.Binding }); ok {
		return h.ShortHelp()
	}
	switch {
	case isPanel(top):
		return m.keys.Help.ShortHelp()
	case top != nil:
		return m.keys.Dialog.ShortHelp()
	case m.focus == focusFinder:
		return append(m.keys.Finder.ShortHelp(), g.Interrupt)
	case m.focus == focusViewer && m.open && m.viewer.Searching():
		return m.keys.Search.ShortHelp()
	case m.focus == focusViewer && m.open:
		out := slices.Concat(pending, m.keys.Viewer.ShortHelp(), []key.Binding{g.Export})
		if m.opts.Mode == ModeBrowse {
			out = append(out, g.Switch)
		}
		return append(out, g.Quit, g.Help)
	case m.browser.Filtering():
		return m.keys.Browser.FilterHelp()
	case m.waiting && !m.open:
		return slices.Concat(pending, []key.Binding{g.Quit, g.Help}) // the list under it is not shown
	case m.browser.Loaded() && len(m.browser.Sessions()) == 0:
		return []key.Binding{g.Quit, g.Help} // nothing to move, open or filter yet
	}
	return slices.Concat(pending, m.keys.Browser.ShortHelp(), []key.Binding{g.Export, g.Quit, g.Help})
}

// isPanel reports whether d is a box that only scrolls and closes: the
// help, the stats.
func isPanel(d dialog.Dialog) bool {
	switch d.(type) {
	case *dialog.Help, *dialog.Panel:
		return true
	}
	return false
}
