package report

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// topCommands is how many commands the session summary lists.
const topCommands = 5

// Entry is one bash run as the session detail lists it.
type Entry struct {
	Seq              int64     `json:"seq" yaml:"seq"`
	Time             time.Time `json:"ts" yaml:"ts"`
	Command          string    `json:"command" yaml:"command"`
	WorkingDirectory string    `json:"working_directory,omitempty" yaml:"working_directory,omitempty"`
	ExitCode         *int      `json:"exit_code" yaml:"exit_code"`
	TimedOut         bool      `json:"timed_out" yaml:"timed_out"`
	DurationMS       int64     `json:"duration_ms" yaml:"duration_ms"`
	Error            string    `json:"error,omitempty" yaml:"error,omitempty"`
	Stdout           *string   `json:"stdout,omitempty" yaml:"stdout,omitempty"`
	Stderr           *string   `json:"stderr,omitempty" yaml:"stderr,omitempty"`
	Truncated        bool      `json:"output_truncated,omitempty" yaml:"output_truncated,omitempty"`
}

// EntryOf turns a bash run event into a list entry; output only when asked.
func EntryOf(ev *transcript.Event, b *transcript.BashRun, withOutput bool) Entry {
	e := Entry{Seq: ev.Seq, Time: ev.TS, Command: b.Command, WorkingDirectory: b.WorkingDirectory,
		ExitCode: b.ExitCode, TimedOut: b.TimedOut, DurationMS: b.DurationMS, Truncated: b.OutputTruncated}
	if b.Error != nil {
		e.Error = b.Error.Code + ": " + b.Error.Message
	}
	if withOutput {
		out, errOut := b.Stdout, b.Stderr
		e.Stdout, e.Stderr = &out, &errOut
	}
	return e
}

// Detail is a whole session as `record show` prints it.
type Detail struct {
	Session SessionRow            `json:"session" yaml:"session"`
	Stats   *session.CommandStats `json:"stats" yaml:"stats"`
	Entries []Entry               `json:"entries,omitempty" yaml:"entries,omitempty"`
}

// SessionDetail prints one session: its summary, counts and top commands,
// then its entries when there are any.
func SessionDetail(w io.Writer, st Styles, d *Detail) {
	s := d.Session
	fmt.Fprintf(w, "%s %s\n", st.Bold.Render("Session:"), s.SessionID)
	if s.Title != "" {
		fmt.Fprintf(w, "Title: %s\n", s.Title)
	}
	if s.Agent != "" {
		fmt.Fprintf(w, "Agent: %s\n", s.Agent)
	}
	fmt.Fprintf(w, "Started: %s\n", s.Started.Local().Format(TimeLayout))
	fmt.Fprintf(w, "Duration: %s\n", Duration(time.Duration(s.DurationMS)*time.Millisecond))
	if s.WorkingDirectory != "" {
		fmt.Fprintf(w, "Working Directory: %s\n", s.WorkingDirectory)
	}
	status := s.Status
	if s.Live {
		status = st.Warn.Render("active (live)")
	}
	fmt.Fprintf(w, "Status: %s\n", status)
	if s.Turns+s.ToolCalls+s.Approvals > 0 {
		fmt.Fprintf(w, "Events: %s (%s turns, %s tool calls, %s approvals)\n", Count(s.Events), Count(s.Turns),
			Count(s.ToolCalls), Count(s.Approvals))
	}
	if s.Failures >= 0 && s.ToolErrors >= 0 {
		fmt.Fprintf(w, "Failures: %s (%s commands, %s tool calls)\n", Count(s.Failures), Count(s.Failures-s.ToolErrors), Count(s.ToolErrors))
	}
	c := d.Stats
	fmt.Fprintf(w, "\nCommands: %s total\n", Count(c.Commands))
	fmt.Fprintf(w, "  %s Succeeded: %s\n", st.OK.Render("✓"), Count(c.Succeeded))
	fmt.Fprintf(w, "  %s Failed: %s\n", st.Fail.Render("✗"), Count(c.Failed))
	fmt.Fprintf(w, "  %s Timed out: %s\n", st.Warn.Render("⏱"), Count(c.TimedOut))
	if c.Background > 0 {
		fmt.Fprintf(w, "  ⏩ In the background: %s\n", Count(c.Background))
	}
	if len(c.Frequency) > 0 {
		fmt.Fprintln(w, "\nTop Commands:")
		width := 0
		top := c.Frequency[:min(topCommands, len(c.Frequency))]
		for _, f := range top {
			width = max(width, len(clip(oneLine(f.Command), 50)))
		}
		for _, f := range top {
			calls := "calls"
			if f.Count == 1 {
				calls = "call"
			}
			fmt.Fprintf(w, "  %-*s - %s %s\n", width, clip(oneLine(f.Command), 50), Count(f.Count), calls)
		}
	}
	if len(d.Entries) == 0 {
		return
	}
	fmt.Fprintln(w, "\nEntries:")
	for i, e := range d.Entries {
		Entries(w, st, i+1, e)
	}
}

// Entries prints run n of a session: a line with its outcome, then its
// output if any. Runs are numbered 1, 2, 3 in the order they ran.
func Entries(w io.Writer, st Styles, n int, e Entry) {
	badge := st.OK.Render("✓")
	switch {
	case strings.HasPrefix(e.Error, transcript.RunBackground+":"):
		badge = "⏩"
	case e.TimedOut:
		badge = st.Warn.Render("⏱")
	case e.Error != "" || e.ExitCode == nil || *e.ExitCode != 0:
		badge = st.Fail.Render("✗")
	}
	code := "-"
	if e.ExitCode != nil {
		code = fmt.Sprint(*e.ExitCode)
	}
	fmt.Fprintf(w, "  #%-4d %s %s  exit %-3s %8s  %s\n", n, e.Time.Local().Format("15:04:05"), badge, code,
		Duration(time.Duration(e.DurationMS)*time.Millisecond), oneLine(e.Command))
	if e.Error != "" {
		fmt.Fprintf(w, "        %s\n", st.Fail.Render(e.Error))
	}
	for _, out := range []struct {
		name string
		text *string
	}{{"stdout", e.Stdout}, {"stderr", e.Stderr}} {
		if out.text == nil || *out.text == "" {
			continue
		}
		fmt.Fprintf(w, "        %s\n", st.Muted.Render("── "+out.name+" ──"))
		for _, line := range strings.Split(strings.TrimRight(*out.text, "\n"), "\n") {
			fmt.Fprintf(w, "        %s\n", line)
		}
	}
	if e.Truncated && (e.Stdout != nil || e.Stderr != nil) {
		fmt.Fprintf(w, "        %s\n", st.Muted.Render("(output was truncated when recorded)"))
	}
}

// oneLine folds a multi-line command onto one line for listings.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// Stats prints aggregate statistics across sessions.
func Stats(w io.Writer, st Styles, c *session.CommandStats, period string) {
	title := fmt.Sprintf("Recording Statistics (%s)", period)
	fmt.Fprintln(w, st.Bold.Render(title))
	fmt.Fprintln(w, strings.Repeat("─", len([]rune(title))))
	fmt.Fprintf(w, "\nSessions: %s\n", Count(int64(c.Sessions)))
	fmt.Fprintf(w, "Total Commands: %s\n", Count(c.Commands))
	fmt.Fprintf(w, "Total Duration: %s\n", Duration(time.Duration(c.TotalDurationMS)*time.Millisecond))
	defer tokensAndDisk(w, c)
	if c.Commands == 0 {
		return
	}
	pct := func(n int64) string { return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(c.Commands)) }
	fmt.Fprintln(w, "\nCommand Frequency:")
	shown := c.Frequency[:min(topCommands, len(c.Frequency))]
	width := 0
	for _, f := range shown {
		width = max(width, len(clip(oneLine(f.Command), 40)))
	}
	for _, f := range shown {
		fmt.Fprintf(w, "  %-*s - %s (%s)\n", width, clip(oneLine(f.Command), 40), Count(f.Count), pct(f.Count))
	}
	if rest := len(c.Frequency) - len(shown); rest > 0 {
		fmt.Fprintf(w, "  ... and %d others\n", rest)
	}
	fmt.Fprintln(w, "\nExit Code Distribution:")
	rows := []struct {
		label string
		n     int64
	}{{"0 (success)", c.ExitCodes.Success}, {"1 (error)", c.ExitCodes.Error}, {"2+ (other)", c.ExitCodes.Other},
		{"none (killed)", c.ExitCodes.None}}
	for _, r := range rows {
		if r.n == 0 && r.label == "none (killed)" {
			continue
		}
		fmt.Fprintf(w, "  %-16s - %s (%s)\n", r.label, Count(r.n), pct(r.n))
	}
	fmt.Fprintf(w, "\nAverage Duration: %s\n", Duration(time.Duration(c.AverageMS)*time.Millisecond))
	if c.Longest != nil {
		fmt.Fprintf(w, "Longest Command: %s (%s)\n", clip(oneLine(c.Longest.Command), 60),
			Duration(time.Duration(c.Longest.DurationMS)*time.Millisecond))
	}
}

// tokensAndDisk prints token use, its estimated cost and disk use by source.
func tokensAndDisk(w io.Writer, c *session.CommandStats) {
	t := &c.Tokens
	if t.Total() > 0 {
		fmt.Fprintf(w, "\nTokens: %s input, %s output, %s cache read, %s cache write\n", Count(t.InputTokens),
			Count(t.OutputTokens), Count(t.CacheReadTokens), Count(t.CacheWriteTokens))
		models := make([]string, 0, len(t.ByModel))
		for m := range t.ByModel {
			models = append(models, m)
		}
		sort.Slice(models, func(i, j int) bool { // dearest first; models that cost the same by name
			if a, b := t.ByModel[models[i]], t.ByModel[models[j]]; a != b {
				return a > b
			}
			return models[i] < models[j]
		})
		fmt.Fprintf(w, "Estimated cost: $%.2f (list prices)\n", t.CostUSD)
		for _, m := range models {
			fmt.Fprintf(w, "  %-32s $%.2f\n", clip(m, 32), t.ByModel[m])
		}
		if t.UnpricedTokens > 0 {
			fmt.Fprintf(w, "  (%s tokens of models without a known price)\n", Count(t.UnpricedTokens))
		}
	}
	if len(c.DiskBytes) > 0 {
		sources := make([]string, 0, len(c.DiskBytes))
		for s := range c.DiskBytes {
			sources = append(sources, s)
		}
		sort.Strings(sources)
		fmt.Fprint(w, "\nDisk Use:")
		for i, s := range sources {
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(w, "%s %s %s", sep, s, Bytes(c.DiskBytes[s]))
		}
		fmt.Fprintln(w)
	}
}
