package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/dialog"
)

// usagePanel is S in a session: what it did and spent.
func (m Model) usagePanel(info session.Info, u *session.Usage) dialog.Dialog {
	st := m.st
	return dialog.NewPanel(st, m.keys.Help, "stats", "Stats: "+common.OneLine(common.Sanitize(titleOf(info)), 60), func(width int) []string {
		t := u.Tally
		row := func(label, value string) string { return st.Muted.Render(fmt.Sprintf("%-12s", label)) + value }
		var lines []string
		if !u.First.IsZero() {
			lines = append(lines, row("time", fmt.Sprintf("%s → %s (%s)", u.First.In(m.opts.Location).Format("2006-01-02 15:04"),
				u.Last.In(m.opts.Location).Format("15:04"), export.FormatDuration(u.Last.Sub(u.First).Milliseconds()))))
		}
		lines = append(lines,
			row("turns", fmt.Sprint(t.Turns)),
			row("tool calls", fmt.Sprint(t.ToolCalls)),
			row("commands", fmt.Sprintf("%d (%d failed, %d timed out, %d in the background)", t.Commands, t.CommandsFailed, t.CommandsTimedOut, t.Background)),
			row("failures", fmt.Sprintf("%d (%d commands, %d tool calls)", t.Failures(), t.CommandsFailed+t.CommandsTimedOut, t.ToolErrors)),
			"")
		lines = append(lines, tokenLines(st.Muted.Render, u.Tokens)...)
		if len(u.Tools) > 0 {
			lines = append(lines, "", st.Header.Render("Time per tool"))
			lines = append(lines, table([]string{"TOOL", "CALLS", "FAILED", "TIME", "AVERAGE"}, toolRows(u.Tools), width)...)
		}
		return lines
	})
}

func titleOf(info session.Info) string {
	if info.Title != "" {
		return info.Title
	}
	return info.ID
}

// tokenLines says what the session's model messages cost.
func tokenLines(muted func(...string) string, tk session.TokenStats) []string {
	if tk.Total() == 0 {
		return []string{muted("tokens      none recorded")}
	}
	cost := fmt.Sprintf("$%.2f", tk.CostUSD)
	if tk.UnpricedTokens > 0 {
		cost += fmt.Sprintf(" (and %d tokens of models without a known price)", tk.UnpricedTokens)
	}
	return []string{
		muted("tokens      ") + fmt.Sprintf("%d in · %d out · %d cache read · %d cache write", tk.InputTokens, tk.OutputTokens,
			tk.CacheReadTokens, tk.CacheWriteTokens),
		muted("cost        ") + cost + muted(" estimated at list prices"),
	}
}

func toolRows(tools []session.ToolTime) [][]string {
	var rows [][]string
	for _, t := range tools {
		avg := "—"
		if t.Calls > 0 {
			avg = export.FormatDuration(t.Total.Milliseconds() / t.Calls)
		}
		rows = append(rows, []string{common.Sanitize(t.Tool), fmt.Sprint(t.Calls), orDash(fmt.Sprint(t.Failures)),
			export.FormatDuration(t.Total.Milliseconds()), avg})
	}
	return rows
}

// dailyPanel is S in the list: the listed sessions per day.
func (m Model) dailyPanel(days []session.Day) dialog.Dialog {
	return dialog.NewPanel(m.st, m.keys.Help, "stats", "Stats per day (the sessions listed)", func(width int) []string {
		if len(days) == 0 {
			return []string{"No sessions listed."}
		}
		var rows [][]string
		var total session.Day
		for _, d := range days {
			turns := fmt.Sprint(d.Turns)
			if d.Unknowns > 0 {
				turns += "+?"
			}
			rows = append(rows, []string{d.Date.Format("2006-01-02 Mon"), fmt.Sprint(d.Sessions), turns, fmt.Sprint(d.Commands),
				orDash(fmt.Sprint(d.Failures)), compact(d.Tokens.Total()), fmt.Sprintf("$%.2f", d.Tokens.CostUSD)})
			total.Sessions += d.Sessions
			total.Turns += d.Turns
			total.Commands += d.Commands
			total.Failures += d.Failures
			total.Tokens.InputTokens += d.Tokens.Total()
			total.Tokens.CostUSD += d.Tokens.CostUSD
		}
		rows = append(rows, []string{"all", fmt.Sprint(total.Sessions), fmt.Sprint(total.Turns), fmt.Sprint(total.Commands),
			orDash(fmt.Sprint(total.Failures)), compact(total.Tokens.InputTokens), fmt.Sprintf("$%.2f", total.Tokens.CostUSD)})
		lines := table([]string{"DAY", "SESSIONS", "TURNS", "COMMANDS", "FAILURES", "TOKENS", "COST"}, rows, width)
		return append(lines, "", m.st.Muted.Render("Cost estimated at list prices; +? marks sessions not counted yet."))
	})
}

// compact writes a big count briefly: 950, 12.3k, 4.1M.
func compact(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// table lays out rows under a header, columns as wide as their widest cell,
// numbers (every column but the first) right-aligned.
func table(header []string, rows [][]string, width int) []string {
	widths := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	format := func(r []string) string {
		var b strings.Builder
		for i, c := range r {
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(c))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		return common.Truncate(b.String(), width)
	}
	out := []string{format(header)}
	for _, r := range rows {
		out = append(out, format(r))
	}
	return out
}
