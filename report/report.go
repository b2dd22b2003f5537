// Package report renders sessions and statistics as the text, CSV, JSON and
// YAML that cuff's record commands print.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/cuff-dev/cuff/session"
	"go.yaml.in/yaml/v3"
)

// TimeLayout is how times are shown to people (local time).
const TimeLayout = "2006-01-02 15:04:05"

// Styles colour the text reports; the writer they are printed through drops
// colour where the terminal has none.
type Styles struct {
	OK, Fail, Warn, Muted, Bold lipgloss.Style
}

// DefaultStyles returns the report colours.
func DefaultStyles() Styles {
	return Styles{
		OK:    lipgloss.NewStyle().Foreground(lipgloss.Green),
		Fail:  lipgloss.NewStyle().Foreground(lipgloss.Red),
		Warn:  lipgloss.NewStyle().Foreground(lipgloss.Yellow),
		Muted: lipgloss.NewStyle().Foreground(lipgloss.BrightBlack),
		Bold:  lipgloss.NewStyle().Bold(true),
	}
}

// Duration formats d the way the reports show it: 45s, 2m 34s, 4h 23m, 1.2s.
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second && d%time.Second != 0:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	default:
		return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
	}
}

// Age formats a retention period: 30 days, 12 hours.
func Age(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d >= day && d%day == 0:
		return plural(int64(d/day), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return plural(int64(d/time.Hour), "hour")
	}
	return Duration(d)
}

func plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// Count formats n with thousands separators: 1,523.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Bytes formats a size: 512 B, 1.5 KB, 23.4 MB.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTPE"[exp])
}

// statusText colours a session status.
func (st Styles) statusText(m *session.Meta) string {
	switch {
	case m.Live:
		return st.Warn.Render("● live")
	case m.Status == "complete":
		return st.OK.Render(m.Status)
	case m.Status == "interrupted":
		return st.Fail.Render(m.Status)
	}
	return m.Status
}

// SessionTable prints the session list as an aligned table.
func SessionTable(w io.Writer, st Styles, sessions []*session.Meta, verbose bool) {
	header := fmt.Sprintf("%-30s %-20s %9s %10s   %s", "Session ID", "Started", "Commands", "Duration", "Status")
	if verbose {
		header = fmt.Sprintf("%-30s %-20s %-12s %6s %9s %9s %10s %9s   %-11s %s",
			"Session ID", "Started", "Agent", "Turns", "Commands", "Failures", "Duration", "Size", "Status", "Title")
	}
	fmt.Fprintln(w, st.Bold.Render(header))
	fmt.Fprintln(w, strings.Repeat("─", lipgloss.Width(header)))
	for _, m := range sessions {
		started := m.CreatedAt.Local().Format(TimeLayout)
		if !verbose {
			fmt.Fprintf(w, "%-30s %-20s %9s %10s   %s\n", m.SessionID, started, Count(m.Commands),
				Duration(m.Duration()), st.statusText(m))
			continue
		}
		failures := Count(m.Failures())
		if m.Failures() > 0 {
			failures = st.Fail.Render(fmt.Sprintf("%9s", failures))
		}
		status := st.statusText(m)
		pad := 11 - lipgloss.Width(status)
		if pad < 0 {
			pad = 0
		}
		fmt.Fprintf(w, "%-30s %-20s %-12s %6s %9s %9s %10s %9s   %s%s %s\n", m.SessionID, started,
			clip(orDash(m.Agent), 12), Count(m.Turns), Count(m.Commands), failures, Duration(m.Duration()),
			Bytes(m.FileSizeBytes), status, strings.Repeat(" ", pad), clip(m.Title, 60))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clip shortens s to n display columns with an ellipsis.
func clip(s string, n int) string {
	if lipgloss.Width(s) <= n {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > n {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// SessionRow is one session in machine-readable listings.
type SessionRow struct {
	SessionID        string    `json:"session_id" yaml:"session_id"`
	Started          time.Time `json:"started" yaml:"started"`
	LastUpdated      time.Time `json:"last_updated" yaml:"last_updated"`
	DurationMS       int64     `json:"duration_ms" yaml:"duration_ms"`
	Status           string    `json:"status" yaml:"status"`
	Live             bool      `json:"live" yaml:"live"`
	Agent            string    `json:"agent" yaml:"agent"`
	Source           string    `json:"source" yaml:"source"`
	Title            string    `json:"title" yaml:"title"`
	WorkingDirectory string    `json:"working_directory" yaml:"working_directory"`
	Events           int64     `json:"events" yaml:"events"`
	Turns            int64     `json:"turns" yaml:"turns"`
	ToolCalls        int64     `json:"tool_calls" yaml:"tool_calls"`
	Commands         int64     `json:"commands" yaml:"commands"`
	Succeeded        int64     `json:"commands_succeeded" yaml:"commands_succeeded"`
	Failed           int64     `json:"commands_failed" yaml:"commands_failed"`
	TimedOut         int64     `json:"commands_timed_out" yaml:"commands_timed_out"`
	Approvals        int64     `json:"approvals" yaml:"approvals"`
	SizeBytes        int64     `json:"file_size_bytes" yaml:"file_size_bytes"`
}

// Row turns a session's meta into its machine-readable row.
func Row(m *session.Meta) SessionRow {
	status := m.Status
	if m.Live {
		status = "active"
	}
	return SessionRow{
		SessionID: m.SessionID, Started: m.CreatedAt, LastUpdated: m.LastUpdated, DurationMS: m.TotalDurationMS,
		Status: status, Live: m.Live, Agent: m.Agent, Source: m.Source, Title: m.Title,
		WorkingDirectory: m.WorkingDirectory, Events: m.EntryCount, Turns: m.Turns, ToolCalls: m.ToolCalls,
		Commands: m.Commands, Succeeded: m.CommandsSucceeded, Failed: m.CommandsFailed, TimedOut: m.CommandsTimedOut,
		Approvals: m.Approvals, SizeBytes: m.FileSizeBytes,
	}
}

// Rows turns metas into rows.
func Rows(sessions []*session.Meta) []SessionRow {
	rows := make([]SessionRow, len(sessions))
	for i, m := range sessions {
		rows[i] = Row(m)
	}
	return rows
}

// JSON prints v as indented JSON.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// YAML prints v as YAML.
func YAML(w io.Writer, v any) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return enc.Close()
}

// SessionCSV prints the session list as CSV with a header row.
func SessionCSV(w io.Writer, sessions []*session.Meta) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"session_id", "started", "last_updated", "duration_ms", "status", "live", "agent", "source",
		"title", "working_directory", "events", "turns", "tool_calls", "commands", "commands_succeeded",
		"commands_failed", "commands_timed_out", "approvals", "file_size_bytes"})
	for _, m := range sessions {
		r := Row(m)
		i := func(n int64) string { return strconv.FormatInt(n, 10) }
		cw.Write([]string{r.SessionID, r.Started.Format(time.RFC3339Nano), r.LastUpdated.Format(time.RFC3339Nano),
			i(r.DurationMS), r.Status, strconv.FormatBool(r.Live), r.Agent, r.Source, r.Title, r.WorkingDirectory,
			i(r.Events), i(r.Turns), i(r.ToolCalls), i(r.Commands), i(r.Succeeded), i(r.Failed), i(r.TimedOut),
			i(r.Approvals), i(r.SizeBytes)})
	}
	cw.Flush()
	return cw.Error()
}
