package viewer

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// Layout constants.
const (
	gutterWidth     = 2  // the selection mark
	guideWidth      = 2  // one level of delegation
	minContentWidth = 16 // guides give way below this
	tallHeader      = 14 // from this height on, the header has three lines
)

// spinnerFrames are the frames of a running item's spinner.
const spinnerFrames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

// spinnerFrame is frame i of the spinner.
func spinnerFrame(i int) string {
	frames := []rune(spinnerFrames)
	return string(frames[i%len(frames)])
}

func (m *Model) headerHeight() int {
	switch {
	case m.height >= tallHeader:
		return 3
	case m.height <= 1:
		return 0
	}
	return 1
}

func (m *Model) bodyHeight() int {
	h := m.height - m.headerHeight()
	if m.search.typing {
		h--
	}
	return max(h, 0)
}

// lines returns the rendered lines of an item with its delegation guides,
// from the cache when they are still good.
func (m *Model) lines(it *timeline.Item) []string {
	return m.render(it).lines
}

// render returns an item's rendering: its lines and how many blank lines
// lead them.
func (m *Model) render(it *timeline.Item) *cached {
	depth := it.Depth
	for depth > 0 && m.width-gutterWidth-depth*guideWidth < minContentWidth {
		depth--
	}
	width := max(m.width-gutterWidth-depth*guideWidth, 1)
	exp := m.isExpanded(it)
	explicit := m.expanded[itemKey(it)]
	running := it.Running()
	if c := m.cache[it]; c != nil && !running && c.width == width && c.version == it.Version && c.expanded == exp && c.explicit == explicit {
		return c
	}
	lines := m.r.render(it, args{
		width: width, expanded: exp, explicit: explicit, now: m.now(), ended: m.tl.End != nil || m.removed,
		spinner: spinnerFrame(m.spin), canAnswer: m.canAnswer,
	})
	if len(lines) == 0 {
		lines = []string{""}
	}
	lead := 0
	for lead < len(lines)-1 && lines[lead] == "" {
		lead++
	}
	if depth > 0 {
		guide := strings.Repeat(m.st.Guide.Render("│ "), depth)
		for i, l := range lines {
			lines[i] = guide + l
		}
	}
	c := &cached{width: width, version: it.Version, expanded: exp, explicit: explicit, lines: lines, lead: lead}
	if !running {
		if len(m.cache) >= maxCachedItems {
			m.cache = map[*timeline.Item]*cached{}
		}
		m.cache[it] = c
	}
	return c
}

// height is how many lines an item takes.
func (m *Model) itemHeight(it *timeline.Item) int { return len(m.lines(it)) }

// linesFrom counts the lines from item position i, line off, to the end,
// stopping once it passes limit.
func (m *Model) linesFrom(i, off, limit int) int {
	n := -off
	for ; i < len(m.vis) && n <= limit; i++ {
		n += m.itemHeight(m.vis[i])
	}
	return n
}

// anchorBottom scrolls so that the last line is at the bottom of the
// screen (or the first line at the top, when everything fits).
func (m *Model) anchorBottom() {
	h := m.bodyHeight()
	total := 0
	for i := len(m.vis) - 1; i >= 0; i-- {
		total += m.itemHeight(m.vis[i])
		if total >= h {
			m.top, m.off = m.vis[i], total-h
			return
		}
	}
	if len(m.vis) > 0 {
		m.top, m.off = m.vis[0], 0
	}
}

// clamp puts the scroll position and the selection back in bounds, and
// turns following on when the view reached the bottom.
func (m *Model) clamp() {
	if len(m.vis) == 0 {
		m.sel, m.top, m.off = nil, nil, 0
		return
	}
	if m.sel == nil || !m.inVis(m.sel) {
		m.sel = m.vis[min(m.pos(m.sel), len(m.vis)-1)]
	}
	if m.follow {
		m.anchorBottom()
		m.newCount = 0
		return
	}
	if m.top == nil || !m.inVis(m.top) {
		m.top, m.off = m.vis[min(m.pos(m.top), len(m.vis)-1)], 0
	}
	m.off = max(0, min(m.off, m.itemHeight(m.top)-1))
	h := m.bodyHeight()
	if m.linesFrom(m.pos(m.top), m.off, h) <= h {
		m.anchorBottom()
		if !m.paused {
			m.follow, m.newCount = true, 0
		}
	}
}

// layout computes the lines on screen.
func (m *Model) layout() {
	m.clamp()
	h := m.bodyHeight()
	m.frame, m.frameItems = m.frame[:0], m.frameItems[:0]
	if len(m.vis) == 0 {
		m.frame = append(m.frame, "", "  "+m.st.Muted.Render(m.emptyText()))
		for len(m.frame) < h {
			m.frame = append(m.frame, "")
		}
		m.frameItems = make([]*timeline.Item, len(m.frame))
		return
	}
	off := m.off
	for i := m.pos(m.top); i < len(m.vis) && len(m.frame) < h; i++ {
		it := m.vis[i]
		c := m.render(it)
		ls, lead := c.lines, c.lead
		mark := "  "
		if it == m.sel {
			mark = m.st.Selected.Render("▌") + " "
		}
		for j := off; j < len(ls) && len(m.frame) < h; j++ {
			line := ls[j]
			if m.search.query != "" {
				line = m.highlight(line)
			}
			if j >= lead {
				line = mark + line
			} else {
				line = "  " + line
			}
			m.frame = append(m.frame, line)
			m.frameItems = append(m.frameItems, it)
		}
		off = 0
	}
	for len(m.frame) < h {
		m.frame = append(m.frame, "")
		m.frameItems = append(m.frameItems, nil)
	}
}

func (m *Model) emptyText() string {
	switch {
	case m.err != "":
		return m.err
	case m.loading:
		return "Loading…"
	case m.filter != timeline.FilterAll && m.tl.Len() > 0:
		return fmt.Sprintf("Nothing to show with the filter %q (press 0 to show everything).", m.filter.String())
	case m.live:
		return "Waiting for events…"
	}
	return "This session has no events."
}

// highlight marks the search matches in one rendered line.
func (m *Model) highlight(line string) string {
	plain := ansi.Strip(line)
	q := m.search.query
	var ranges []lipgloss.Range
	for start := 0; start < len(plain); {
		i := timeline.IndexFold(plain[start:], q)
		if i < 0 {
			break
		}
		from := ansi.StringWidth(plain[:start+i])
		to := from + ansi.StringWidth(plain[start+i:start+i+len(q)])
		ranges = append(ranges, lipgloss.NewRange(from, to, m.st.Match))
		start += i + len(q)
	}
	if len(ranges) == 0 {
		return line
	}
	return lipgloss.StyleRanges(line, ranges...)
}

// View draws the header, the timeline and the search input.
func (m Model) View() string {
	var b strings.Builder
	for _, l := range m.header() {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for i, l := range m.frame {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(common.Truncate(l, m.width))
	}
	if m.search.typing {
		b.WriteByte('\n')
		b.WriteString(m.search.input.View())
	}
	return b.String()
}

// header is the session's title and metadata.
func (m Model) header() []string {
	title := m.info.Title
	start := m.startBody()
	if title == "" && start != nil {
		title = start.Title
	}
	if title == "" {
		title = m.info.ID
	}
	left := m.st.Title.Render("cuff") + m.st.Muted.Render(" ▸ ") + m.st.Header.Render(common.OneLine(common.Sanitize(title), m.width))
	var badge string
	switch {
	case m.removed:
		badge = m.st.Fail.Render("⚠ file removed")
	case m.tl.End != nil:
		status := ""
		if e, ok := m.tl.End.Body.(*transcript.SessionEnd); ok && e.Status != "" {
			status = " · " + common.OneLine(common.Sanitize(e.Status), 16)
		}
		badge = m.st.Ended.Render("■ ended" + status)
	case m.Active():
		badge = m.st.Live.Render("● live")
	default:
		badge = m.st.Ended.Render("○ " + common.OneLine(common.Sanitize(quietStatus(m.info.Status)), 16))
	}
	switch {
	case m.partial && m.onDemand && m.asked:
		badge = m.st.Warn.Render("loading older… ") + badge
	case m.partial && m.onDemand:
		badge = m.st.Muted.Render("↑ older history ") + badge
	case m.partial:
		badge = m.st.Warn.Render("indexing… ") + badge
	}
	first := m.r.headLine(left, badge, m.width)
	switch m.headerHeight() {
	case 0:
		return nil
	case 1:
		return []string{first}
	}
	return []string{first, m.st.Muted.Render(common.Truncate(m.metaLine(start), m.width)), m.st.Guide.Render(strings.Repeat("─", m.width))}
}

// quietStatus is what the header says of a session that is neither live
// nor ended: its listed status, unless that still says it was active.
func quietStatus(status string) string {
	if status == "" || status == transcript.StatusActive || status == "live" {
		return session.StatusIdle
	}
	return status
}

func (m Model) startBody() *transcript.SessionStart {
	if m.tl.Start == nil {
		return nil
	}
	b, _ := m.tl.Start.Body.(*transcript.SessionStart)
	return b
}

// metaLine is the header's second line: where and when the session ran
// and what it did.
func (m Model) metaLine(start *transcript.SessionStart) string {
	var parts []string
	if m.info.ID != "" {
		parts = append(parts, m.info.ID)
	}
	agent, cwd, branch := m.info.Agent, m.info.WorkingDirectory, ""
	if start != nil {
		if agent == "" {
			agent = start.Agent
		}
		if cwd == "" {
			cwd = start.WorkingDirectory
		}
		if start.Git != nil {
			branch = start.Git.Branch
		}
	}
	for _, p := range []string{agent, cwd, branch} {
		if p != "" {
			parts = append(parts, common.OneLine(common.Sanitize(p), 60))
		}
	}
	first, last := m.tl.First, m.tl.Last
	if m.partial {
		first = m.info.Started // what is loaded does not start where the session does
	}
	if !first.IsZero() {
		parts = append(parts, "started "+first.In(m.loc()).Format("2006-01-02 15:04"))
		if !last.IsZero() && last.After(first) {
			parts = append(parts, export.FormatDuration(last.Sub(first).Milliseconds()))
		}
	}
	c := m.tl.Counts.Tally
	turns, commands, failures := c.Turns, c.Commands, c.Failures()
	if m.partial {
		if m.info.Events <= 0 {
			return strings.Join(parts, " · ") // the counts of a part would pass for the session's
		}
		turns, commands, failures = m.info.Turns, m.info.Commands, m.info.Failures
	}
	parts = append(parts, plural(int(turns), "turn"), plural(int(commands), "command"))
	if failures > 0 {
		parts = append(parts, plural(int(failures), "failure"))
	}
	return strings.Join(parts, " · ")
}

// Status is what the view adds to the status bar: filter, search, new
// items, follow state and position.
func (m Model) Status() string {
	var parts []string
	if m.filter != timeline.FilterAll {
		parts = append(parts, m.st.Warn.Render("only "+m.filter.String()))
	}
	if s := m.searchStatus(); s != "" {
		parts = append(parts, s)
	}
	below := 0
	if n := len(m.frameItems); n > 0 {
		last := m.frameItems[n-1]
		for i := n - 1; i >= 0 && last == nil; i-- {
			last = m.frameItems[i]
		}
		if last != nil {
			below = len(m.vis) - 1 - m.pos(last)
		}
	}
	if n := min(m.newCount, below); n > 0 && !m.follow {
		parts = append(parts, m.st.NewBelow.Render(fmt.Sprintf("%d new ↓", n)))
	}
	switch {
	case m.follow && m.live && m.tl.End == nil && !m.removed: // an ended or removed session has nothing more to follow
		parts = append(parts, m.st.Live.Render("following"))
	case m.paused:
		parts = append(parts, m.st.Muted.Render("paused"))
	}
	if len(m.vis) > 0 {
		pct := 100
		if below > 0 {
			pct = 100 * m.pos(m.top) / len(m.vis)
		}
		parts = append(parts, m.st.Muted.Render(fmt.Sprintf("%d/%d · %d%%", m.pos(m.sel)+1, len(m.vis), pct)))
	}
	return strings.Join(parts, m.st.Muted.Render(" · "))
}

func (m Model) loc() *time.Location {
	if m.r.loc == nil {
		return time.Local
	}
	return m.r.loc
}
