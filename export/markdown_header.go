package export

import (
	"fmt"
	"github.com/cuff-dev/cuff/session"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// header writes the title and the session's metadata table.
func (m *mdWriter) header(sum *mdSummary) {
	id, first, last, c := sum.id, sum.first, sum.last, sum.counts
	var start *transcript.SessionStart
	if sum.start != nil {
		start, _ = sum.start.Body.(*transcript.SessionStart)
	}
	title := "Session " + oneLine(id, 0)
	if start != nil && start.Title != "" {
		title = plain(oneLine(start.Title, 120))
	}
	m.line("", "# "+title)
	m.line("", "")
	rows := [][2]string{{"Session", inlineCode(id)}}
	if start != nil {
		if start.Agent != "" {
			agent := plain(start.Agent)
			if start.Source != "" {
				agent += " (source: " + plain(start.Source) + ")"
			}
			rows = append(rows, [2]string{"Agent", agent})
		}
		if start.WorkingDirectory != "" {
			rows = append(rows, [2]string{"Working directory", inlineCode(start.WorkingDirectory)})
		}
		if g := start.Git; g != nil && (g.Branch != "" || g.SHA != "") {
			git := plain(g.Branch)
			if g.SHA != "" {
				git = strings.TrimSpace(git + " @ " + inlineCode(shortSHA(g.SHA)))
			}
			rows = append(rows, [2]string{"Git", git})
		}
		if h := start.Host; h != nil && h.OS != "" {
			host := plain(h.OS + "/" + h.Arch)
			if h.Hostname != "" {
				host += " on " + plain(h.Hostname)
			}
			rows = append(rows, [2]string{"Host", host})
		}
		if start.CuffVersion != "" {
			rows = append(rows, [2]string{"cuff", plain(start.CuffVersion)})
		}
	}
	if !first.IsZero() {
		rows = append(rows, [2]string{"Started", first.In(m.opts.Location).Format("2006-01-02 15:04:05 MST")})
	}
	if sum.end != nil {
		status := ""
		if b, ok := sum.end.Body.(*transcript.SessionEnd); ok {
			status = " (" + plain(b.Status) + ")"
		}
		rows = append(rows, [2]string{"Ended", sum.end.TS.In(m.opts.Location).Format("2006-01-02 15:04:05 MST") + status})
	} else {
		now := time.Now()
		if m.opts.Now != nil {
			now = m.opts.Now()
		}
		ended := "not yet (the session is live)"
		if last.IsZero() || now.Sub(last) >= session.LiveWindow {
			ended = "no end recorded"
			if !last.IsZero() {
				ended += "; the last event was at " + last.In(m.opts.Location).Format("2006-01-02 15:04:05 MST")
			}
		}
		rows = append(rows, [2]string{"Ended", ended})
	}
	if !first.IsZero() {
		rows = append(rows, [2]string{"Duration", FormatDuration(last.Sub(first).Milliseconds())})
	}
	summary := fmt.Sprintf("%s · %s · %s · %s", plural(int(c.Events), "event"), plural(int(c.Turns), "turn"),
		plural(int(c.ToolCalls), "tool call"), plural(int(c.Commands), "command"))
	if c.Failures() > 0 {
		summary += fmt.Sprintf(" · ❌ %s", plural(int(c.Failures()), "failure"))
	}
	if c.Approvals > 0 {
		summary += " · " + plural(int(c.Approvals), "approval")
	}
	rows = append(rows, [2]string{"Events", summary})
	m.line("", "| | |")
	m.line("", "|---|---|")
	for _, r := range rows {
		m.line("", fmt.Sprintf("| **%s** | %s |", r[0], strings.ReplaceAll(r[1], "|", `\|`)))
	}
	m.line("", "")
	m.line("", "---")
	m.line("", "")
}
