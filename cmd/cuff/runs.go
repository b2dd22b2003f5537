package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"mvdan.cc/sh/v3/syntax"
	"strconv"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/spf13/cobra"
)

// shownOutputLines is how much of each stream `runs show` prints without --full-output.
const shownOutputLines = 20

func (a *app) runsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "Query the command runs recorded in every session (the audit trail)",
	}
	cmd.AddCommand(a.runsListCommand(), a.runsShowCommand(), a.runsPruneCommand(), a.runsStatsCommand())
	return cmd
}

// runFilterFlags are the filters `runs list` and `runs stats` share.
type runFilterFlags struct {
	f            session.RunFilter
	since, until string
}

func (r *runFilterFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&r.f.RunID, "run-id", "", "only runs with this run id")
	fl.StringVar(&r.f.SessionID, "session-id", "", "only runs of this session (full or partial id)")
	fl.StringVar(&r.f.TaskID, "task-id", "", "only runs with this task id")
	fl.BoolVar(&r.f.Failed, "failed", false, "only runs that failed, timed out or never started")
	fl.StringVar(&r.f.Command, "command", "", "only commands matching this glob ('go test*')")
	fl.StringVar(&r.since, "since", "", "only runs since a time (RFC 3339, YYYY-MM-DD, or an age: 7d)")
	fl.StringVar(&r.until, "until", "", "only runs until a time (RFC 3339, YYYY-MM-DD, or an age)")
}

// parseTime reads RFC 3339, YYYY-MM-DD or an age.
func parseTime(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	return session.ParseSince(v, time.Now())
}

func (r *runFilterFlags) filter() (session.RunFilter, error) {
	f := r.f
	var err error
	if r.since != "" {
		if f.Since, err = parseTime(r.since); err != nil {
			return f, err
		}
	}
	if r.until != "" {
		if f.Until, err = parseTime(r.until); err != nil {
			return f, err
		}
	}
	return f, nil
}

func (a *app) runsListCommand() *cobra.Command {
	var rf runFilterFlags
	var format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List recorded runs, newest first",
		Example: `  cuff runs list --limit 20
  cuff runs list --failed --command 'go test*'
  cuff runs list --since 2026-01-15T00:00:00Z --until 2026-01-16T00:00:00Z`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, "table", "json", "csv"); err != nil {
				return err
			}
			f, err := rf.filter()
			if err != nil {
				return err
			}
			s, err := a.openStore()
			if err != nil {
				return err
			}
			runs, err := s.Runs(f)
			if err != nil {
				return err
			}
			switch format {
			case "json":
				rows := make([]runRow, len(runs))
				for i, r := range runs {
					rows[i] = rowOf(r)
				}
				return report.JSON(a.stdout, rows)
			case "csv":
				return runsCSV(a, runs)
			}
			if len(runs) == 0 {
				fmt.Fprintln(a.stderr, "No runs match.")
				return nil
			}
			st := report.DefaultStyles()
			fmt.Fprintln(a.stdout, st.Bold.Render(fmt.Sprintf("%-42s %-19s %-6s %9s  %s", "Run", "Time", "Exit", "Duration", "Command")))
			for _, r := range runs {
				command := oneLine(r.Body.Command, 80)
				if r.Body.RecorderDied() {
					command += st.Fail.Render("  (" + transcript.RecorderDiedMessage + ")")
				}
				fmt.Fprintf(a.stdout, "%-42s %-19s %-6s %9s  %s\n", r.Event.ID, r.Event.TS.Local().Format(report.TimeLayout),
					exitText(st, r.Body, 6), report.Duration(time.Duration(r.Body.DurationMS)*time.Millisecond), command)
			}
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().IntVar(&rf.f.Limit, "limit", defaultListLimit, "maximum runs to show (0: all)")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json, csv")
	return cmd
}

// exitText is a run's outcome badge, padded to width columns.
func exitText(st report.Styles, b *transcript.BashRun, width int) string {
	pad := func(s string) string { return fmt.Sprintf("%-*s", width, s) }
	switch {
	case b.TimedOut:
		return st.Warn.Render(pad("⏱"))
	case b.ExitCode == nil:
		return st.Fail.Render(pad("✗"))
	case *b.ExitCode != 0:
		return st.Fail.Render(pad("✗ " + strconv.Itoa(*b.ExitCode)))
	}
	return st.OK.Render(pad("✓"))
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// runRow is a run in machine-readable listings.
type runRow struct {
	ID               string `json:"id"`
	SessionID        string `json:"session_id"`
	Timestamp        string `json:"timestamp"`
	Command          string `json:"command"`
	WorkingDirectory string `json:"working_directory"`
	ExitCode         *int   `json:"exit_code"`
	Success          bool   `json:"success"`
	TimedOut         bool   `json:"timed_out"`
	DurationMS       int64  `json:"duration_ms"`
	Error            string `json:"error,omitempty"`
	RunID            string `json:"run_id,omitempty"`
	TaskID           string `json:"task_id,omitempty"`
	StepID           string `json:"step_id,omitempty"`
	ToolCallID       string `json:"tool_call_id,omitempty"`
	AgentID          string `json:"agent_id,omitempty"`
	ConversationID   string `json:"conversation_id,omitempty"`
}

func rowOf(r session.Run) runRow {
	row := runRow{ID: r.Event.ID, SessionID: r.SessionID, Timestamp: r.Event.TS.Format(time.RFC3339Nano),
		Command: r.Body.Command, WorkingDirectory: r.Body.WorkingDirectory, ExitCode: r.Body.ExitCode,
		Success: !r.Body.Failed(), TimedOut: r.Body.TimedOut, DurationMS: r.Body.DurationMS,
		RunID: r.Event.RunID, TaskID: r.Event.TaskID, StepID: r.Event.StepID, ToolCallID: r.Event.CallID,
		AgentID: r.Event.AgentID, ConversationID: r.Event.ConversationID}
	if r.Body.Error != nil {
		row.Error = r.Body.Error.Code + ": " + r.Body.Error.Message
	}
	return row
}

func runsCSV(a *app, runs []session.Run) error {
	w := csv.NewWriter(a.stdout)
	w.Write([]string{"id", "session_id", "timestamp", "command", "working_directory", "exit_code", "success",
		"timed_out", "duration_ms", "error", "run_id", "task_id", "step_id", "tool_call_id"})
	for _, r := range runs {
		row := rowOf(r)
		code := ""
		if row.ExitCode != nil {
			code = strconv.Itoa(*row.ExitCode)
		}
		cells := []string{row.ID, row.SessionID, row.Timestamp, row.Command, row.WorkingDirectory, code,
			strconv.FormatBool(row.Success), strconv.FormatBool(row.TimedOut), strconv.FormatInt(row.DurationMS, 10),
			row.Error, row.RunID, row.TaskID, row.StepID, row.ToolCallID}
		for k := range cells {
			cells[k] = export.CSVCell(cells[k])
		}
		w.Write(cells)
	}
	w.Flush()
	return w.Error()
}

func (a *app) runsShowCommand() *cobra.Command {
	var full, asJSON, context bool
	cmd := &cobra.Command{
		Use:   "show RUN_ID",
		Short: "Show one run: command, outcome, output",
		Example: `  cuff runs show e_20260118_143052_a7b3c9d2-e4f5_7
  cuff runs show 52_7 --full-output
  cuff runs show 52_7 --json
  cuff runs show 52_7 --context`,
		Args: exactArgs(1, "RUN_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore()
			if err != nil {
				return err
			}
			r, err := s.FindRun(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				var v any
				if err := json.Unmarshal(r.Event.Raw, &v); err != nil {
					return err
				}
				return report.JSON(a.stdout, v)
			}
			a.printRun(r, full, context)
			return nil
		},
	}
	cmd.Flags().BoolVar(&full, "full-output", false, "print all recorded output, not just the first lines")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the recorded event as JSON")
	cmd.Flags().BoolVar(&context, "context", false, "also print the correlation ids: session, conversation, agent, run, task, step, tool call")
	return cmd
}

func (a *app) printRun(r *session.Run, full, context bool) {
	st := report.DefaultStyles()
	b := r.Body
	w := a.stdout
	fmt.Fprintf(w, "%s %s\n", st.Bold.Render("Run:"), r.Event.ID)
	// Everything recorded is shown inert: a control character or escape
	// sequence in a command or its output is written as text, never sent
	// to the terminal.
	fmt.Fprintf(w, "Command: %s\n", transcript.Inert(b.Command))
	if len(b.Argv) > 0 {
		fmt.Fprintf(w, "Argv: %s\n", transcript.Inert(shellWords(b.Argv)))
	}
	fmt.Fprintf(w, "Working Directory: %s\n", transcript.Inert(b.WorkingDirectory))
	start := r.Event.TS.Add(-time.Duration(b.DurationMS) * time.Millisecond)
	if r.Start != nil {
		start = r.Start.TS
	}
	fmt.Fprintf(w, "Started: %s\n", start.Local().Format(report.TimeLayout))
	fmt.Fprintf(w, "Duration: %s\n", report.Duration(time.Duration(b.DurationMS)*time.Millisecond))
	fmt.Fprintf(w, "Result: %s", exitText(st, b, 0))
	if b.TimedOut {
		fmt.Fprintf(w, " timed out after %ds", b.TimeoutSeconds)
	}
	if b.Interrupted && !b.RecorderDied() { // the error line says how
		fmt.Fprint(w, " (interrupted)")
	}
	fmt.Fprintln(w)
	if b.Error != nil {
		fmt.Fprintf(w, "Error: %s %s\n", transcript.Inert(b.Error.Code), transcript.Inert(b.Error.Message))
	}
	if b.Usage != nil {
		rss := "max RSS " + report.Bytes(b.Usage.MaxRSSKB*1024)
		if b.Usage.MaxRSSKB == 0 {
			rss = "max RSS not known (below the recorder's own)"
		}
		fmt.Fprintf(w, "Resources: %s, cpu %dms user, %dms sys\n", rss, b.Usage.UserMS, b.Usage.SysMS)
	}
	if b.OutputTruncated && b.OutputTruncatedBytes != nil {
		fmt.Fprintf(w, "Output: truncated when recorded (%s written in all)\n", report.Bytes(*b.OutputTruncatedBytes))
	}
	if context {
		fmt.Fprintln(w, "\nContext:")
		for _, kv := range [][2]string{{"session", r.SessionID}, {"conversation", r.Event.ConversationID},
			{"agent", r.Event.AgentID}, {"run", r.Event.RunID}, {"task", r.Event.TaskID}, {"step", r.Event.StepID},
			{"tool call", r.Event.CallID}, {"parent call", r.Event.ParentCallID}} {
			if kv[1] != "" {
				fmt.Fprintf(w, "  %-13s %s\n", kv[0]+":", kv[1])
			}
		}
		if len(b.Environment) > 0 {
			fmt.Fprintln(w, "  environment:")
			for k, v := range b.Environment {
				fmt.Fprintf(w, "    %s=%s\n", transcript.Inert(k), transcript.Inert(v))
			}
		}
	}
	for _, out := range []struct{ name, text string }{{"stdout", b.Stdout}, {"stderr", b.Stderr}} {
		if out.text == "" {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", st.Muted.Render("── "+out.name+" ──"))
		lines := strings.Split(strings.TrimRight(transcript.Inert(out.text), "\n"), "\n")
		if !full && len(lines) > shownOutputLines {
			fmt.Fprintln(w, strings.Join(lines[:shownOutputLines], "\n"))
			fmt.Fprintf(w, "%s\n", st.Muted.Render(fmt.Sprintf("… %d more lines (--full-output shows them)", len(lines)-shownOutputLines)))
			continue
		}
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
}

func (a *app) runsPruneCommand() *cobra.Command {
	var olderThan, runID string
	var dryRun, force bool
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Delete recorded runs older than an age, or of one run id",
		Example: `  cuff runs prune --older-than 30d
  cuff runs prune --run-id run-123 --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if olderThan == "" && runID == "" {
				return &usageError{msg: "say what to prune: --older-than AGE or --run-id ID", hint: "Hint: cuff runs prune --older-than 30d"}
			}
			var cutoff time.Time
			if olderThan != "" {
				d, err := session.ParseAge(olderThan)
				if err != nil {
					return err
				}
				cutoff = time.Now().Add(-d)
			}
			s, err := a.openStore()
			if err != nil {
				return err
			}
			drop := func(_ string, ev *transcript.Event, _ *transcript.BashRun) bool {
				// --run-id is the correlation id (cuff exec --run-id), or one run's
				// own id as runs list shows it (e_<session>_<seq>)
				return (cutoff.IsZero() || ev.TS.Before(cutoff)) && (runID == "" || ev.RunID == runID || ev.ID == runID)
			}
			plan, err := s.PruneRuns(drop, true)
			if err != nil {
				return err
			}
			if plan.Runs == 0 {
				fmt.Fprintln(a.stdout, "Nothing to prune.")
				return nil
			}
			fmt.Fprintf(a.stdout, "%s in %s (%s).\n", report.Plural(int64(plan.Runs), "run"), report.Plural(int64(plan.Sessions), "session"), report.Bytes(plan.Bytes))
			if dryRun {
				fmt.Fprintf(a.stdout, "Dry run: would delete %s and free %s.\n", report.Plural(int64(plan.Runs), "run"), report.Bytes(plan.Bytes))
				return nil
			}
			if !force && !a.confirm(fmt.Sprintf("Delete %s? [y/N] ", report.Plural(int64(plan.Runs), "run"))) {
				fmt.Fprintln(a.stdout, "Nothing deleted.")
				return nil
			}
			res, err := s.PruneRuns(drop, false)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Deleted %s from %s, freed %s.\n", report.Plural(int64(res.Runs), "run"), report.Plural(int64(res.Sessions), "session"), report.Bytes(res.Bytes))
			return nil
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "delete runs older than this age (7d, 2w, 1m)")
	cmd.Flags().StringVar(&runID, "run-id", "", "delete the runs of this run id")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be deleted without deleting")
	cmd.Flags().BoolVar(&force, "force", false, "skip the confirmation prompt")
	return cmd
}

func (a *app) runsStatsCommand() *cobra.Command {
	var rf runFilterFlags
	var format string
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Statistics of the recorded runs and their storage",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, "table", "json"); err != nil {
				return err
			}
			f, err := rf.filter()
			if err != nil {
				return err
			}
			s, err := a.openStore()
			if err != nil {
				return err
			}
			runs, err := s.Runs(f)
			if err != nil {
				return err
			}
			all, err := s.Sessions()
			if err != nil {
				return err
			}
			out := runsStats{Stats: &session.CommandStats{}}
			sessions := map[string]bool{}
			for _, r := range runs {
				out.Stats.Add(r.Body)
				sessions[r.SessionID] = true
				if out.Oldest.IsZero() || r.Event.TS.Before(out.Oldest) {
					out.Oldest = r.Event.TS
				}
				if r.Event.TS.After(out.Newest) {
					out.Newest = r.Event.TS
				}
			}
			out.Stats.Sessions = len(sessions)
			out.Stats.Finish()
			for _, m := range all {
				out.StorageBytes += m.FileSizeBytes
			}
			out.StoreSessions = len(all)
			if format == "json" {
				return report.JSON(a.stdout, out)
			}
			if len(runs) == 0 {
				fmt.Fprintln(a.stderr, "No runs recorded.")
				return nil
			}
			report.Stats(a.stdout, report.DefaultStyles(), out.Stats, "recorded runs")
			fmt.Fprintf(a.stdout, "\nOldest run: %s\nNewest run: %s\nStorage: %s in %d sessions\n",
				out.Oldest.Local().Format(report.TimeLayout), out.Newest.Local().Format(report.TimeLayout),
				report.Bytes(out.StorageBytes), out.StoreSessions)
			return nil
		},
	}
	rf.add(cmd)
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json")
	return cmd
}

// runsStats is `runs stats` in machine-readable form.
type runsStats struct {
	Stats         *session.CommandStats `json:"runs"`
	Oldest        time.Time             `json:"oldest"`
	Newest        time.Time             `json:"newest"`
	StorageBytes  int64                 `json:"storage_bytes"`
	StoreSessions int                   `json:"sessions_in_store"`
}

// shellWords writes argv as a shell would read it back: each word quoted
// only where it needs to be (a word bash cannot quote, one with a NUL, is
// written as Go would).
func shellWords(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			q = strconv.Quote(w)
		}
		words[i] = q
	}
	return strings.Join(words, " ")
}
