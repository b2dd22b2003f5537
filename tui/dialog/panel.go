package dialog

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// Panel shows text under a title in a box that scrolls when the screen is
// too short for it: a session's stats, the stats per day.
type Panel struct {
	st     *styles.Styles
	keys   keys.Help
	id     string
	title  string
	body   func(width int) []string
	scroll scroller
}

// NewPanel opens a panel; body lays out its lines for a width.
func NewPanel(st *styles.Styles, km keys.Help, id, title string, body func(width int) []string) *Panel {
	return &Panel{st: st, keys: km, id: id, title: title, body: body}
}

var _ Dialog = (*Panel)(nil)

// ID names the panel.
func (p *Panel) ID() string { return p.id }

// HandleMsg scrolls, and closes on esc or q.
func (p *Panel) HandleMsg(msg tea.Msg) Action { return p.scroll.handle(msg, p.keys) }

// View draws the panel for a screen of the given size.
func (p *Panel) View(width, height int) string {
	inner := max(width-dialogFrameWidth-2, 10)
	body := p.body(inner)
	for i, l := range body {
		body[i] = common.Truncate(l, inner)
	}
	return scrolledBox(p.st, &p.scroll, p.title, body, inner, height)
}

// scroller keeps a scrolled box's place: the first body line shown, and
// from the last drawing how far it may go and how many lines it shows.
type scroller struct {
	top, maxTop, page int
}

// handle scrolls for a key, or closes.
func (s *scroller) handle(msg tea.Msg, k keys.Help) Action {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return ActionNone{}
	}
	switch {
	case key.Matches(kp, k.Close):
		return ActionClose{}
	case key.Matches(kp, k.Down):
		s.by(1)
	case key.Matches(kp, k.Up):
		s.by(-1)
	case key.Matches(kp, k.PageDown):
		s.by(max(s.page-1, 1))
	case key.Matches(kp, k.PageUp):
		s.by(-max(s.page-1, 1))
	case key.Matches(kp, k.Top):
		s.top = 0
	case key.Matches(kp, k.Bottom):
		s.top = s.maxTop
	}
	return ActionNone{}
}

func (s *scroller) by(n int) { s.top = min(max(s.top+n, 0), s.maxTop) }

// helpFrame is what the dialog style adds around the text: border and
// padding, in lines.
const helpFrame = 4

// scrolledBox draws title, the part of body that fits height, and a
// footer saying how to scroll and close.
func scrolledBox(st *styles.Styles, s *scroller, title string, body []string, inner, height int) string {
	// Title, blank and footer are always shown; the body scrolls between.
	room := max(height-helpFrame-3-helpMargin, 1)
	s.page = min(room, len(body))
	s.maxTop = max(len(body)-room, 0)
	s.top = min(s.top, s.maxTop)
	footer := "esc closes"
	if s.maxTop > 0 {
		below := len(body) - s.top - room
		footer = fmt.Sprintf("↑/↓ scroll · %d above · %d below · esc closes", s.top, below)
	}
	lines := []string{st.Title.Render(title), ""}
	lines = append(lines, body[s.top:s.top+s.page]...)
	lines = append(lines, st.Muted.Render(common.Truncate(footer, inner)))
	box := st.Dialog.BorderForeground(st.Palette.Primary)
	return box.Render(strings.Join(lines, "\n"))
}
