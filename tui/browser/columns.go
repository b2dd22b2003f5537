package browser

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/styles"
)

// column is one column of the list: its title, width, whether it is right
// aligned, how to fill it, and how much it matters (0 most): at narrow
// widths the columns that matter least are dropped.
type column struct {
	title string
	width int
	right bool
	prio  int
	cell  func(c *columns, info session.Info) string
}

// columns lays out the list's rows. At narrow widths the columns that
// matter least are dropped, and the title takes what is left over.
type columns struct {
	st    *styles.Styles
	loc   *time.Location
	now   func() time.Time
	width int
}

const markWidth = 2 // the live mark

// titleMinWidth is the least room worth giving the title column.
const titleMinWidth = 12

func allColumns() []column {
	return []column{
		{title: "ID", width: shortIDWidth, prio: 0, cell: func(c *columns, i session.Info) string {
			if c.width >= fullIDMinWidth {
				return i.ID
			}
			return shortID(i.ID)
		}},
		{title: "STARTED", width: 11, prio: 1, cell: func(c *columns, i session.Info) string { return c.started(i.Started) }},
		{title: "SOURCE", width: 6, prio: 8, cell: func(_ *columns, i session.Info) string { return source(i) }},
		{title: "AGENT", width: 12, prio: 7, cell: func(_ *columns, i session.Info) string { return i.Agent }},
		{title: "TURNS", width: 5, right: true, prio: 6, cell: func(_ *columns, i session.Info) string { return count(i.Turns) }},
		{title: "CMDS", width: 5, right: true, prio: 3, cell: func(_ *columns, i session.Info) string { return count(i.Commands) }},
		{title: "FAIL", width: 4, right: true, prio: 4, cell: func(_ *columns, i session.Info) string { return count(i.Failures) }},
		{title: "DURATION", width: 8, right: true, prio: 5, cell: func(_ *columns, i session.Info) string { return duration(i.Duration) }},
		{title: "STATUS", width: 11, prio: 2, cell: func(_ *columns, i session.Info) string { return i.Status }},
	}
}

// count writes a count; a source that has not counted yet shows "?".
func count(n int64) string {
	if n < 0 {
		return "?"
	}
	return fmt.Sprintf("%d", n)
}

func duration(d time.Duration) string {
	if d <= 0 {
		return "—"
	}
	return export.FormatDuration(d.Milliseconds())
}

// source names where a session comes from: cuff's own store, or an agent's folder.
func source(i session.Info) string {
	if i.Source == "" {
		return session.NativeSourceName
	}
	return i.Source
}

// started writes a start time: the time today, the date and time this
// year, the whole date (year first) before.
func (c *columns) started(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	now := c.now().In(c.loc)
	lt := t.In(c.loc)
	switch {
	case lt.Year() != now.Year():
		return lt.Format("2006-01-02")
	case lt.YearDay() == now.YearDay():
		return "today " + lt.Format("15:04")
	}
	return lt.Format("01-02 15:04")
}

// The ID column: a short id (enough to be unique, and to name the session
// in cuff watch) unless the screen is wide enough for whole ids.
const (
	shortIDWidth   = 15
	fullIDWidth    = 43 // claude:<uuid>
	fullIDMinWidth = 170
)

// shortID is the part of an id that tells a session apart at a glance:
// a cuff id's time and hash (143052_a7b3c9d2), a foreign id's source and
// first uuid group (claude:fe5e1c67). Both name the session on the
// command line, as any unique part of an id does.
func shortID(id string) string { return common.ShortID(id) }

// titleReserve is the room the title gets before the least important
// columns: what a session was about matters more than its turn count.
const titleReserve = 24

// mainPrio is the last priority shown before the title's reserve.
const mainPrio = 2

// fit picks the columns that fit the width, and the title's width.
func (c *columns) fit() ([]column, int) {
	all := allColumns()
	if c.width >= fullIDMinWidth {
		all[0].width = fullIDWidth
	}
	byPrio := slices.Clone(all)
	slices.SortFunc(byPrio, func(a, b column) int { return a.prio - b.prio })
	avail := c.width - markWidth
	keep := map[string]bool{}
	reserved := 0
	for _, col := range byPrio {
		if col.prio > mainPrio && reserved == 0 {
			reserved = min(titleReserve, max(avail, 0))
			avail -= reserved
		}
		if avail-col.width-1 < 0 {
			break
		}
		keep[col.title] = true
		avail -= col.width + 1
	}
	avail += reserved
	var out []column
	for _, col := range all {
		if keep[col.title] {
			out = append(out, col)
		}
	}
	if avail < titleMinWidth {
		avail = 0
	}
	return out, avail
}

func cell(s string, width int, right bool) string {
	s = common.Truncate(s, width)
	pad := strings.Repeat(" ", max(0, width-ansi.StringWidth(s)))
	if right {
		return pad + s
	}
	return s + pad
}

func (c *columns) header() string {
	cols, titleW := c.fit()
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", markWidth))
	for _, col := range cols {
		b.WriteString(cell(col.title, col.width, col.right))
		b.WriteByte(' ')
	}
	if titleW > 0 {
		b.WriteString("TITLE")
	}
	return c.st.ListHeader.Render(common.Truncate(strings.TrimRight(b.String(), " "), c.width))
}

func (c *columns) row(info session.Info, selected bool) string {
	cols, titleW := c.fit()
	rowStyle := c.st.ListRow
	if selected {
		rowStyle = c.st.ListSelected
	}
	mark := "  "
	switch {
	case selected && info.Live:
		mark = c.st.Live.Render("●") + c.st.ListSelected.Render("▌")
	case selected:
		mark = " " + c.st.ListSelected.Render("▌")
	case info.Live:
		mark = c.st.Live.Render("●") + " "
	}
	var b strings.Builder
	b.WriteString(mark)
	for _, col := range cols {
		text := cell(common.Sanitize(col.cell(c, info)), col.width, col.right)
		switch {
		case col.title == "FAIL" && info.Failures > 0:
			b.WriteString(c.st.ListFailures.Render(text))
		case col.title == "STATUS" && info.Live:
			b.WriteString(c.st.Live.Render(cell("live", col.width, false)))
		case col.title == "STATUS" || col.title == "STARTED" || col.title == "DURATION":
			b.WriteString(c.st.ListMuted.Render(text))
		default:
			b.WriteString(rowStyle.Render(text))
		}
		b.WriteByte(' ')
	}
	if titleW > 0 {
		title := info.Title
		if title == "" {
			title = info.WorkingDirectory
		}
		b.WriteString(rowStyle.Render(common.OneLine(common.Sanitize(title), titleW)))
	}
	return common.Truncate(b.String(), c.width)
}

func filterStyles(st *styles.Styles) textinput.Styles {
	return textinput.DefaultStyles(st.Dark)
}
