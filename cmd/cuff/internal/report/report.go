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
	"github.com/cuff-dev/cuff/export"
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
		return Plural(int64(d/day), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return Plural(int64(d/time.Hour), "hour")
	}
	return Duration(d)
}

// Plural counts things in words: "1 line", "2,048 lines".
func Plural(n int64, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return Count(n) + " " + unit + "s"
}

// Count formats n with thousands separators: 1,523.
func Count(n int64) string { return export.GroupDigits(n) }

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
func (st Styles) statusText(in session.Info) string {
	switch {
	case in.Live:
		return st.Warn.Render("● live")
	case in.Status == "complete":
		return st.OK.Render(in.Status)
	case in.Status == "interrupted":
		return st.Fail.Render(in.Status)
	}
	return in.Status
}

// countText shows a count, or ? when it is not known yet.
func countText(n int64) string {
	if n < 0 {
		return "?"
	}
	return Count(n)
}

// SessionTable prints the session list as an aligned table; withSource adds
// the column that tells cuff's own sessions from Claude Code's and Codex's.
func SessionTable(w io.Writer, st Styles, sessions []session.Info, verbose, withSource bool) {
	idWidth := 30
	for _, in := range sessions {
		idWidth = max(idWidth, len(in.ID))
	}
	source := func(in session.Info) string {
		if !withSource {
			return ""
		}
		return fmt.Sprintf("%-7s ", in.Source)
	}
	srcHead := ""
	if withSource {
		srcHead = fmt.Sprintf("%-7s ", "Source")
	}
	header := fmt.Sprintf("%s%-*s %-20s %9s %10s   %s", srcHead, idWidth, "Session ID", "Started", "Commands", "Duration", "Status")
	if verbose {
		header = fmt.Sprintf("%s%-*s %-20s %-12s %6s %9s %9s %10s %9s   %-11s %s", srcHead, idWidth,
			"Session ID", "Started", "Agent", "Turns", "Commands", "Failures", "Duration", "Size", "Status", "Title")
	}
	fmt.Fprintln(w, st.Bold.Render(header))
	fmt.Fprintln(w, strings.Repeat("─", lipgloss.Width(header)))
	for _, in := range sessions {
		started := in.Started.Local().Format(TimeLayout)
		if !verbose {
			fmt.Fprintf(w, "%s%-*s %-20s %9s %10s   %s\n", source(in), idWidth, in.ID, started, countText(in.Commands),
				Duration(in.Duration), st.statusText(in))
			continue
		}
		failures := countText(in.Failures)
		if in.Failures > 0 {
			failures = st.Fail.Render(fmt.Sprintf("%9s", failures))
		}
		status := st.statusText(in)
		pad := max(11-lipgloss.Width(status), 0)
		fmt.Fprintf(w, "%s%-*s %-20s %-12s %6s %9s %9s %10s %9s   %s%s %s\n", source(in), idWidth, in.ID, started,
			clip(orDash(in.Agent), 12), countText(in.Turns), countText(in.Commands), failures, Duration(in.Duration),
			Bytes(in.SizeBytes), status, strings.Repeat(" ", pad), clip(in.Title, 60))
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

// SessionRow is one session in machine-readable listings. Counts a listing
// has not computed are -1.
type SessionRow struct {
	SessionID        string    `json:"session_id" yaml:"session_id"`
	Source           string    `json:"source" yaml:"source"`
	Started          time.Time `json:"started" yaml:"started"`
	LastUpdated      time.Time `json:"last_updated" yaml:"last_updated"`
	DurationMS       int64     `json:"duration_ms" yaml:"duration_ms"`
	Status           string    `json:"status" yaml:"status"`
	Live             bool      `json:"live" yaml:"live"`
	Agent            string    `json:"agent" yaml:"agent"`
	Title            string    `json:"title" yaml:"title"`
	WorkingDirectory string    `json:"working_directory" yaml:"working_directory"`
	Events           int64     `json:"events" yaml:"events"`
	Turns            int64     `json:"turns" yaml:"turns"`
	ToolCalls        int64     `json:"tool_calls" yaml:"tool_calls"`
	Commands         int64     `json:"commands" yaml:"commands"`
	Succeeded        int64     `json:"commands_succeeded" yaml:"commands_succeeded"`
	Failed           int64     `json:"commands_failed" yaml:"commands_failed"`
	TimedOut         int64     `json:"commands_timed_out" yaml:"commands_timed_out"`
	Background       int64     `json:"commands_in_background" yaml:"commands_in_background"`
	ToolErrors       int64     `json:"tool_errors" yaml:"tool_errors"`
	// Failures is every failure, as every view counts them (transcript.Tally):
	// failed and timed-out commands, and tool calls that returned an error.
	Failures  int64  `json:"failures" yaml:"failures"`
	Approvals int64  `json:"approvals" yaml:"approvals"`
	SizeBytes int64  `json:"file_size_bytes" yaml:"file_size_bytes"`
	Path      string `json:"path" yaml:"path"`
	// Parts are the records joined into the session (the agent's
	// transcript and cuff's recordings), when there are more than one.
	Parts []session.Part `json:"parts,omitempty" yaml:"parts,omitempty"`
	// Conversation is the joined session a native session belongs to.
	Conversation string `json:"conversation,omitempty" yaml:"conversation,omitempty"`
}

// Row turns list information into its machine-readable row.
func Row(in session.Info) SessionRow {
	status := in.Status
	if in.Live {
		status = "active"
	}
	r := SessionRow{
		SessionID: in.ID, Source: in.Source, Started: in.Started, LastUpdated: in.Updated,
		DurationMS: in.Duration.Milliseconds(), Status: status, Live: in.Live, Agent: in.Agent, Title: in.Title,
		WorkingDirectory: in.WorkingDirectory, Events: in.Events, Turns: in.Turns, ToolCalls: in.ToolCalls,
		Commands: in.Commands, TimedOut: in.TimedOut, Approvals: in.Approvals, Failures: in.Failures,
		ToolErrors: in.ToolErrors, Background: in.Background, SizeBytes: in.SizeBytes, Path: in.Path,
		Failed: session.Unknown, Succeeded: session.Unknown, Parts: in.Parts, Conversation: in.Conversation,
	}
	if in.Failures >= 0 && in.TimedOut >= 0 && in.ToolErrors >= 0 {
		r.Failed = in.Failures - in.TimedOut - in.ToolErrors
		if in.Commands >= 0 && in.Background >= 0 {
			r.Succeeded = in.Commands - r.Failed - in.TimedOut - in.Background
		}
	}
	return r
}

// Rows turns list information into rows.
func Rows(sessions []session.Info) []SessionRow {
	rows := make([]SessionRow, len(sessions))
	for i, in := range sessions {
		rows[i] = Row(in)
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
func SessionCSV(w io.Writer, sessions []session.Info) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"session_id", "source", "started", "last_updated", "duration_ms", "status", "live", "agent",
		"title", "working_directory", "events", "turns", "tool_calls", "commands", "commands_succeeded",
		"commands_failed", "commands_timed_out", "commands_in_background", "tool_errors", "failures", "approvals",
		"file_size_bytes", "path"})
	for _, in := range sessions {
		r := Row(in)
		i := func(n int64) string { return strconv.FormatInt(n, 10) }
		row := []string{r.SessionID, r.Source, r.Started.Format(time.RFC3339Nano), r.LastUpdated.Format(time.RFC3339Nano),
			i(r.DurationMS), r.Status, strconv.FormatBool(r.Live), r.Agent, r.Title, r.WorkingDirectory,
			i(r.Events), i(r.Turns), i(r.ToolCalls), i(r.Commands), i(r.Succeeded), i(r.Failed), i(r.TimedOut),
			i(r.Background), i(r.ToolErrors), i(r.Failures), i(r.Approvals), i(r.SizeBytes), r.Path}
		for k := range row {
			row[k] = export.CSVCell(row[k]) // a title may be anything the agent was told
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// Clip shortens s to one line of n display columns, with an ellipsis.
func Clip(s string, n int) string { return clip(oneLine(s), n) }
