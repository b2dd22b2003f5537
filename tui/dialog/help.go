package dialog

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// HelpSection is one group of keys in the help, under a heading.
type HelpSection struct {
	Title string
	Keys  []key.Binding
}

// Help shows every key that works where the focus is. It scrolls when
// the screen is too short for it.
type Help struct {
	st       *styles.Styles
	keys     keys.Help
	sections []HelpSection
	title    string
	top      int // the first body line shown
	maxTop   int // the last top that still fills the box, as last drawn
	page     int // body lines shown, as last drawn
}

// NewHelp opens the help: a title and its sections of keys.
func NewHelp(st *styles.Styles, title string, km keys.Help, sections ...HelpSection) *Help {
	return &Help{st: st, keys: km, sections: sections, title: title}
}

var _ Dialog = (*Help)(nil)

// ID names the help dialog.
func (h *Help) ID() string { return "help" }

// HandleMsg scrolls, and closes on esc, q or ?.
func (h *Help) HandleMsg(msg tea.Msg) Action {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return ActionNone{}
	}
	k := h.keys
	switch {
	case key.Matches(kp, k.Close):
		return ActionClose{}
	case key.Matches(kp, k.Down):
		h.scroll(1)
	case key.Matches(kp, k.Up):
		h.scroll(-1)
	case key.Matches(kp, k.PageDown):
		h.scroll(max(h.page-1, 1))
	case key.Matches(kp, k.PageUp):
		h.scroll(-max(h.page-1, 1))
	case key.Matches(kp, k.Top):
		h.top = 0
	case key.Matches(kp, k.Bottom):
		h.top = h.maxTop
	}
	return ActionNone{}
}

func (h *Help) scroll(n int) { h.top = min(max(h.top+n, 0), h.maxTop) }

// helpFrame is what the dialog style adds around the text: border and
// padding, in lines.
const helpFrame = 4

// View draws the keys in as many columns as fit the screen, and as many
// lines as fit its height; the rest is a scroll away.
func (h *Help) View(width, height int) string {
	inner := max(width-dialogFrameWidth-2, 10)
	var body []string
	for i, sec := range h.sections {
		if i > 0 {
			body = append(body, "")
		}
		body = append(body, h.st.Header.Render(sec.Title))
		body = append(body, h.columns(sec.Keys, inner)...)
	}
	// Title, blank and footer are always shown; the body scrolls between.
	room := max(height-helpFrame-3-helpMargin, 1)
	h.page = min(room, len(body))
	h.maxTop = max(len(body)-room, 0)
	h.top = min(h.top, h.maxTop)
	footer := "esc closes"
	if h.maxTop > 0 {
		below := len(body) - h.top - room
		footer = fmt.Sprintf("↑/↓ scroll · %d above · %d below · esc closes", h.top, below)
	}
	lines := []string{h.st.Title.Render(h.title), ""}
	lines = append(lines, body[h.top:h.top+h.page]...)
	lines = append(lines, h.st.Muted.Render(common.Truncate(footer, inner)))
	box := h.st.Dialog.BorderForeground(h.st.Palette.Primary)
	return box.Render(strings.Join(lines, "\n"))
}

// helpMargin is the screen lines left free around the help box.
const helpMargin = 2

// columns lays out keys in as many columns as fit in width, each as wide
// as its widest entry, filled top to bottom.
func (h *Help) columns(all []key.Binding, width int) []string {
	var bs []key.Binding
	for _, b := range all {
		if b.Enabled() && b.Help().Key != "" {
			bs = append(bs, b)
		}
	}
	if len(bs) == 0 {
		return nil
	}
	kw := func(b key.Binding) int { return lipgloss.Width(b.Help().Key) }
	cols, rows := 1, len(bs)
	var keyW, colW []int
	for try := len(bs); try >= 1; try-- {
		r := (len(bs) + try - 1) / try
		kws, cws := make([]int, try), make([]int, try)
		total := 0
		for c := range try {
			for i := c * r; i < min((c+1)*r, len(bs)); i++ {
				kws[c] = max(kws[c], kw(bs[i]))
			}
			for i := c * r; i < min((c+1)*r, len(bs)); i++ {
				cws[c] = max(cws[c], kws[c]+1+lipgloss.Width(bs[i].Help().Desc))
			}
			total += cws[c]
		}
		total += (try - 1) * helpColumnGap
		if total <= width || try == 1 {
			cols, rows, keyW, colW = try, r, kws, cws
			break
		}
	}
	var lines []string
	for r := range rows {
		var line strings.Builder
		for c := range cols {
			i := c*rows + r
			if i >= len(bs) {
				break
			}
			hb := bs[i].Help()
			cell := h.st.Help.FullKey.Render(common.PadRight(hb.Key, keyW[c])) + " " + h.st.Help.FullDesc.Render(hb.Desc)
			if c < cols-1 {
				cell = common.PadRight(cell, colW[c]+helpColumnGap)
			}
			line.WriteString(cell)
		}
		lines = append(lines, common.Truncate(line.String(), width))
	}
	return lines
}

// helpColumnGap is the space between two columns of keys.
const helpColumnGap = 3
