package viewer

import (
	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// asyncKey names one background rendering: an item's message at a width,
// as the item was at a version.
type asyncKey struct {
	item    *timeline.Item
	width   int
	version int
}

type asyncAsk struct {
	key  asyncKey
	text string
}

// background keeps the markdown renderings of long messages that run off
// the UI goroutine: what was asked for during a layout, and what came
// back. It is shared by every copy of the Model.
type background struct {
	md    *common.Markdown // a cache of its own: never blocks the UI's renderer
	done  map[asyncKey][]string
	asked map[asyncKey]bool
	asks  []asyncAsk
}

func newBackground(dark bool) *background {
	return &background{md: common.NewMarkdown(dark), done: map[asyncKey][]string{}, asked: map[asyncKey]bool{}}
}

// markdown returns the finished rendering of an item's text, or nil after
// asking for one.
func (b *background) markdown(it *timeline.Item, text string, width int) []string {
	k := asyncKey{item: it, width: width, version: it.Version}
	if lines, ok := b.done[k]; ok {
		return lines
	}
	if !b.asked[k] {
		b.asked[k] = true
		b.asks = append(b.asks, asyncAsk{key: k, text: text})
	}
	return nil
}

// MarkdownMsg carries a markdown rendering made in the background.
type MarkdownMsg struct {
	Gen   int
	key   asyncKey
	lines []string
}

// take turns what was asked for into commands that render in the
// background. The commands capture values only.
func (b *background) take(gen int) tea.Cmd {
	if len(b.asks) == 0 {
		return nil
	}
	cmds := make([]tea.Cmd, 0, len(b.asks))
	md := b.md
	for _, a := range b.asks {
		cmds = append(cmds, func() tea.Msg {
			lines, err := md.Render(a.text, a.key.width)
			if err != nil {
				lines = common.Wrap(a.text, a.key.width)
			}
			return MarkdownMsg{Gen: gen, key: a.key, lines: lines}
		})
	}
	b.asks = nil
	return tea.Batch(cmds...)
}
