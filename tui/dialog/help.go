package dialog

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// Help shows every key that works where the focus is.
type Help struct {
	st     *styles.Styles
	close  key.Binding
	groups [][]key.Binding
	title  string
}

// NewHelp opens the help for a key map plus the global keys.
func NewHelp(st *styles.Styles, title string, km help.KeyMap, global keys.Global, closeKey key.Binding) *Help {
	groups := append(km.FullHelp(), global.ShortHelp())
	return &Help{st: st, close: closeKey, groups: groups, title: title}
}

var _ Dialog = (*Help)(nil)

// ID names the help dialog.
func (h *Help) ID() string { return "help" }

// HandleMsg closes on esc, q or ?.
func (h *Help) HandleMsg(msg tea.Msg) Action {
	if kp, ok := msg.(tea.KeyPressMsg); ok && key.Matches(kp, h.close) {
		return ActionClose{}
	}
	return ActionNone{}
}

// View draws the keys in as many columns as fit the screen.
func (h *Help) View(width, height int) string {
	var bs []key.Binding
	shown := map[string]bool{} // a key listed once, the first time
	for _, g := range h.groups {
		for _, b := range g {
			if k := b.Help().Key; b.Enabled() && k != "" && !shown[k] {
				shown[k] = true
				bs = append(bs, b)
			}
		}
	}
	inner := max(width-dialogFrameWidth-2, 10)
	cellW := func(b key.Binding) int { return lipgloss.Width(b.Help().Key) + 1 + lipgloss.Width(b.Help().Desc) }
	// The most columns that fit, each as wide as its widest entry.
	cols, rows := 1, len(bs)
	var keyW, colW []int
	for try := len(bs); try >= 1; try-- {
		r := (len(bs) + try - 1) / try
		kws, cws := make([]int, try), make([]int, try)
		total := 0
		for c := range try {
			for i := c * r; i < min((c+1)*r, len(bs)); i++ {
				kws[c] = max(kws[c], lipgloss.Width(bs[i].Help().Key))
			}
			for i := c * r; i < min((c+1)*r, len(bs)); i++ {
				cws[c] = max(cws[c], kws[c]+cellW(bs[i])-lipgloss.Width(bs[i].Help().Key))
			}
			total += cws[c]
		}
		total += (try - 1) * helpColumnGap
		if total <= inner || try == 1 {
			cols, rows, keyW, colW = try, r, kws, cws
			break
		}
	}
	lines := []string{h.st.Title.Render(h.title), ""}
	for r := 0; r < rows; r++ {
		var line strings.Builder
		for c := 0; c < cols; c++ {
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
		lines = append(lines, common.Truncate(line.String(), inner))
	}
	lines = append(lines, "", h.st.Muted.Render("esc closes"))
	if len(lines) > height-2 && height > 4 {
		lines = lines[:height-2]
	}
	box := h.st.Dialog.BorderForeground(h.st.Palette.Primary)
	return box.Render(strings.Join(lines, "\n"))
}

// helpColumnGap is the space between two columns of keys.
const helpColumnGap = 3
