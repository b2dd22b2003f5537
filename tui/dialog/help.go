package dialog

import (
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
	scroll   scroller
}

// NewHelp opens the help: a title and its sections of keys.
func NewHelp(st *styles.Styles, title string, km keys.Help, sections ...HelpSection) *Help {
	return &Help{st: st, keys: km, sections: sections, title: title}
}

var _ Dialog = (*Help)(nil)

// ID names the help dialog.
func (h *Help) ID() string { return "help" }

// HandleMsg scrolls, and closes on esc, q or ?.
func (h *Help) HandleMsg(msg tea.Msg) Action { return h.scroll.handle(msg, h.keys) }

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
	return scrolledBox(h.st, &h.scroll, h.title, body, inner, height)
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
