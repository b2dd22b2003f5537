package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/internal/atomicfile"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/spf13/cobra"
)

// defaultListLimit is how many sessions `record list` shows unless told.
const defaultListLimit = 20

// noRecordingsMessage is printed when a store has nothing to report on.
const noRecordingsMessage = `No recordings found.

Recordings are created when cuff records a session: run a command with
'cuff exec -- CMD', install the agent hook with 'cuff hook install claude',
or try 'cuff demo'.
`

func (a *app) recordCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "record",
		Short: "List, show, summarise, delete, restore, clean and export recorded sessions",
	}
	cmd.AddCommand(a.recordListCommand(), a.recordShowCommand(), a.recordStatsCommand(),
		a.recordCleanCommand(), a.recordExportCommand(), a.recordGenerateCommand(),
		a.recordRmCommand(), a.recordRestoreCommand())
	return cmd
}

// sessionsSince lists the store's sessions started since the given value
// (empty: all), with a limit (0: none).
func (a *app) sessionsSince(since string, limit int) (*session.Store, []*session.Meta, error) {
	f := session.Filter{Limit: limit}
	if since != "" {
		t, err := session.ParseSince(since, time.Now())
		if err != nil {
			return nil, nil, err
		}
		f.Since = t
	}
	s, err := a.openStore()
	if err != nil {
		return nil, nil, err
	}
	all, err := s.Sessions()
	if err != nil {
		return nil, nil, err
	}
	return s, f.Apply(all), nil
}

func (a *app) recordListCommand() *cobra.Command {
	var since, format, source string
	var limit int
	var verbose bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List recorded sessions, newest first",
		Example: `  cuff record list
  cuff record list --since 7d --limit 50
  cuff record list --source claude --verbose
  cuff record list --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, "table", "json", "csv"); err != nil {
				return err
			}
			if limit < 0 {
				return &usageError{msg: fmt.Sprintf("--limit %d is negative", limit), hint: "Hint: Use 0 for no limit"}
			}
			var from time.Time
			if since != "" {
				t, err := session.ParseSince(since, time.Now())
				if err != nil {
					return err
				}
				from = t
			}
			sessions, err := a.listInfos(cmd.Context(), source, from, limit, true)
			if err != nil {
				return err
			}
			switch format {
			case "json":
				return report.JSON(a.stdout, report.Rows(sessions))
			case "csv":
				return report.SessionCSV(a.stdout, sessions)
			}
			if len(sessions) == 0 {
				fmt.Fprint(a.stderr, a.noSessionsMessage(source))
			} else {
				report.SessionTable(a.stdout, report.DefaultStyles(), sessions, verbose, source != session.NativeSourceName && !allNative(sessions))
			}
			if source == sourceProject {
				a.notShownHere(cmd.Context(), from)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "show sessions since a date (YYYY-MM-DD) or age (7d, 2w, 1m)")
	cmd.Flags().IntVar(&limit, "limit", defaultListLimit, "maximum sessions to show (0: all)")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json, csv")
	cmd.Flags().StringVar(&source, "source", sourceProject, sourceHelp)
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "show agent, turns, failures, size and title")
	return cmd
}

// noSessionsMessage says why a listing of source is empty and what to do.
func (a *app) noSessionsMessage(source string) string {
	if source == session.ClaudeSourceName || source == session.CodexSourceName {
		agent, env := "Claude Code", "CLAUDE_CONFIG_DIR"
		if source == session.CodexSourceName {
			agent, env = "Codex", "CODEX_HOME"
		}
		where := "its folder"
		for _, f := range a.foreignSources() {
			if f.Name() == source {
				where = f.Root()
			}
		}
		return fmt.Sprintf("No %s sessions found in %s.\n\ncuff lists the sessions %s keeps on disk as they are, with no set-up: run %s\n"+
			"once, or set %s if it keeps them elsewhere.\n", agent, where, agent, agent, env)
	}
	return noRecordingsMessage
}

// notShownHere says on stderr how many sessions the project's view leaves
// out that the TUI (and --source all) lists: the agents' sessions of other
// folders.
func (a *app) notShownHere(ctx context.Context, from time.Time) {
	all, err := a.listInfos(ctx, sourceAll, from, 0, false)
	if err != nil {
		return
	}
	others := 0
	for _, in := range all {
		if !recordedHere(in) {
			others++
		}
	}
	if others > 0 {
		fmt.Fprintf(a.stderr, "(%s that cuff did not record here not shown: the TUI lists them, and 'cuff record list --source all')\n",
			report.Plural(int64(others), "Claude Code or Codex session"))
	}
}

func (a *app) recordShowCommand() *cobra.Command {
	var entries, output bool
	var format, source string
	cmd := &cobra.Command{
		Use:   "show SESSION_ID",
		Short: "Show one session: summary, counts, top commands and, with --entries, every command",
		Example: `  cuff record show 20260118_143052_a7b3c9d2-e4f5
  cuff record show 143052 --entries
  cuff record show 143052 --entries --output`,
		Args: exactArgs(1, "SESSION_ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "table", "json", "yaml"); err != nil {
				return err
			}
			if output && !entries {
				return &usageError{msg: "--output needs --entries", hint: "Hint: Use 'cuff record show ID --entries --output'"}
			}
			info, read, err := a.resolveSession(cmd.Context(), args[0], source)
			if err != nil {
				return err
			}
			d := &report.Detail{Session: report.Row(info), Stats: &session.CommandStats{Sessions: 1}}
			err = read(func(ev *transcript.Event) error {
				if b, ok := ev.Body.(*transcript.BashRun); ok {
					d.Stats.Add(b)
					if entries {
						d.Entries = append(d.Entries, report.EntryOf(ev, b, output))
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			d.Stats.Finish()
			switch format {
			case "json":
				return report.JSON(a.stdout, d)
			case "yaml":
				return report.YAML(a.stdout, d)
			}
			report.SessionDetail(a.stdout, report.DefaultStyles(), d)
			return nil
		},
	}
	cmd.Flags().BoolVar(&entries, "entries", false, "list every command of the session")
	cmd.Flags().BoolVar(&output, "output", false, "with --entries: show each command's output")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json, yaml")
	cmd.Flags().StringVar(&source, "source", sourceProject, sourceHelp)
	return cmd
}

func (a *app) recordStatsCommand() *cobra.Command {
	var since, format, source string
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Statistics across sessions: commands, exit codes, durations, tokens and cost, disk use",
		Example: `  cuff record stats
  cuff record stats --since 30d
  cuff record stats --source all      # Claude Code and Codex sessions too`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, "table", "json"); err != nil {
				return err
			}
			var from time.Time
			if since != "" {
				t, err := session.ParseSince(since, time.Now())
				if err != nil {
					return err
				}
				from = t
			}
			defer a.collectLess()()
			infos, err := a.listInfos(cmd.Context(), source, from, 0, false)
			if err != nil {
				return err
			}
			st, err := a.statsOf(cmd.Context(), infos)
			if err != nil {
				return err
			}
			if format == "json" {
				return report.JSON(a.stdout, st)
			}
			if len(infos) == 0 {
				fmt.Fprint(a.stderr, noRecordingsMessage)
				return nil
			}
			period := "all time"
			if since != "" {
				period = "since " + since
				if _, err := session.ParseAge(since); err == nil {
					period = "last " + describeAge(since)
				}
			}
			report.Stats(a.stdout, report.DefaultStyles(), st, period)
			return nil
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "analyse sessions since a date (YYYY-MM-DD) or age (7d, 2w, 1m)")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json")
	cmd.Flags().StringVar(&source, "source", sourceProject, sourceHelp)
	return cmd
}

// describeAge spells out an age such as 30d as "30 days".
func describeAge(s string) string {
	unit := map[byte]string{'h': "hour", 'd': "day", 'w': "week", 'm': "month", 'y': "year"}[s[len(s)-1]]
	n := strings.TrimRight(s, "hdwmy")
	if n != "1" {
		unit += "s"
	}
	return n + " " + unit
}

func (a *app) recordCleanCommand() *cobra.Command {
	var olderThan string
	var dryRun, force bool
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Delete sessions older than the retention period",
		Example: `  cuff record clean --dry-run
  cuff record clean --older-than 90d
  cuff record clean --force`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.openStore()
			if err != nil {
				return err
			}
			days := a.settings().Recording.RetentionDays
			if olderThan == "" && days == 0 {
				fmt.Fprintln(a.stdout, "Nothing to clean: recording.retention_days is 0 (keep forever). Use --older-than to clean anyway.")
				return nil
			}
			age := time.Duration(days) * 24 * time.Hour
			if olderThan != "" {
				d, err := session.ParseAge(olderThan)
				if err != nil {
					return err
				}
				age = d
			}
			plan, err := s.PlanClean(time.Now().Add(-age))
			if err != nil {
				return err
			}
			if !dryRun {
				// Sessions deleted with record rm (or D in the TUI) that long ago go for good.
				n, freed, err := s.Purge(plan.Cutoff)
				if n > 0 {
					fmt.Fprintf(a.stdout, "Emptied the trash of %s deleted before %s, freed %s.\n", report.Plural(int64(n), "session"),
						plan.Cutoff.Local().Format(report.TimeLayout), report.Bytes(freed))
				}
				if err != nil {
					return err
				}
			}
			if len(plan.Sessions) == 0 {
				fmt.Fprintf(a.stdout, "Nothing to clean: no session is older than %s.\n", report.Age(age))
				return nil
			}
			fmt.Fprintf(a.stdout, "%s older than %s (%s):\n", report.Plural(int64(len(plan.Sessions)), "session"),
				plan.Cutoff.Local().Format(report.TimeLayout), report.Bytes(plan.Bytes))
			for _, m := range plan.Sessions {
				fmt.Fprintf(a.stdout, "  %s  %s  %s\n", m.SessionID, m.LastUpdated.Local().Format(report.TimeLayout),
					report.Bytes(m.FileSizeBytes))
			}
			if plan.LiveKept > 0 {
				fmt.Fprintf(a.stdout, "(%s old enough but kept: live)\n", report.Plural(int64(plan.LiveKept), "session"))
			}
			if dryRun {
				fmt.Fprintf(a.stdout, "Dry run: would delete %s and free %s.\n", report.Plural(int64(len(plan.Sessions)), "session"), report.Bytes(plan.Bytes))
				return nil
			}
			if !force && !a.confirm(fmt.Sprintf("Delete %s? [y/N] ", report.Plural(int64(len(plan.Sessions)), "session"))) {
				fmt.Fprintln(a.stdout, "Nothing deleted.")
				return nil
			}
			n, freed, err := s.Clean(plan)
			if n > 0 {
				fmt.Fprintf(a.stdout, "Deleted %s, freed %s.\n", report.Plural(int64(n), "session"), report.Bytes(freed))
			}
			return err
		},
	}
	cmd.Flags().StringVar(&olderThan, "older-than", "", "delete sessions last updated longer ago than this (7d, 2w, 1m); default: recording.retention_days (30)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "show what would be deleted without deleting")
	cmd.Flags().BoolVar(&force, "force", false, "skip the confirmation prompt")
	return cmd
}

// confirm asks a yes/no question on stdin; anything but y or yes is no.
func (a *app) confirm(question string) bool {
	fmt.Fprint(a.stderr, question)
	line, err := bufio.NewReader(a.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(a.stderr)
		return false
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes"
}

func (a *app) recordExportCommand() *cobra.Command {
	var format, output, since, source string
	cmd := &cobra.Command{
		Use:   "export SESSION_ID|all",
		Short: "Export a session (or all) as JSON, JSONL, CSV, SQLite, HTML or markdown",
		Example: `  cuff record export 20260118_143052_a7b3c9d2-e4f5 --format json
  cuff record export claude:fe5e1c67 --format markdown
  cuff record export all --since 7d --format jsonl --output recordings.jsonl
  cuff record export all --since 30d --format sqlite --output recordings.db
  cuff record export 143052 --format html --output session.html`,
		Args: exactArgs(1, "SESSION_ID or all"),
		RunE: func(cmd *cobra.Command, args []string) error {
			formats := make([]string, 0, len(export.Formats()))
			for _, f := range export.Formats() {
				formats = append(formats, string(f))
			}
			if err := checkFormat(format, formats...); err != nil {
				return err
			}
			if export.Format(format) == export.FormatSQLite && (output == "" || output == "-") {
				return &usageError{msg: "a SQLite export is a database file and cannot go to standard output: give --output FILE",
					hint: "Hint: Use 'cuff record export all --format sqlite --output recordings.db'"}
			}
			s, err := a.openStore()
			if err != nil {
				return err
			}
			var infos []session.Info
			var src session.Source
			var unlisted []session.Unreadable // refused by the listing, which warned of each
			if args[0] == "all" {
				var from time.Time
				if since != "" {
					if from, err = session.ParseSince(since, time.Now()); err != nil {
						return err
					}
				}
				if infos, err = a.listInfos(cmd.Context(), source, from, 0, false); err != nil {
					return err
				}
				slices.Reverse(infos) // oldest first reads naturally in an export
				ws, _ := a.openWorkspace()
				src = ws.Joined()
				if source == sourceProject || source == sourceAll || source == session.NativeSourceName {
					for _, u := range s.Unlisted(nativeIDs(infos)) {
						if since == "" || !u.ModTime.Before(from) {
							unlisted = append(unlisted, u)
						}
					}
				}
			} else {
				if since != "" {
					return &usageError{msg: "--since goes with 'all'", hint: "Hint: Use 'cuff record export all --since 7d'"}
				}
				info, from, err := a.findSession(cmd.Context(), args[0], source)
				if err != nil {
					return err
				}
				if !storeFile(info) {
					return a.exportDecoded(cmd.Context(), info, from, export.Format(format), output)
				}
				infos, src = []session.Info{info}, from
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			report := func(res export.Result, err error) error {
				if err != nil {
					return err
				}
				if res.Malformed > 0 {
					fmt.Fprintf(a.stderr, "warning: left out %d malformed lines\n", res.Malformed)
				}
				if args[0] != "all" && len(res.Skipped) > 0 {
					return res.Skipped[0].Err // the one session asked for
				}
				return a.partial(unlisted, res.Skipped, len(infos)+len(unlisted))
			}
			// A session that is a file of the store is read from it, in
			// parallel; any other (a joined session) from its source.
			byID := map[string]session.Info{}
			for _, in := range infos {
				byID[in.ID] = in
			}
			fileRead := export.FileReader(s.EventsPath)
			reader := func(id string, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
				if storeFile(byID[id]) {
					return fileRead(id, fn)
				}
				return transcript.ReadStats{}, src.Read(ctx, id, fn)
			}
			// Data goes to stdout byte for byte (not through the colour
			// filter); CSV is inert wherever it goes (export.CSVCell).
			toStdout := output == "" || output == "-"
			write := func(fn func(io.Writer) error) error {
				if toStdout {
					return fn(a.stdout.Forward)
				}
				return a.writeOutput(output, fn)
			}
			var sink export.Sink
			switch export.Format(format) {
			case export.FormatJSON, export.FormatJSONL:
				return write(func(w io.Writer) error {
					return report(exportRaw(ctx, s, infos, src, w, export.Format(format)))
				})
			case export.FormatSQLite:
				db, err := export.NewSQLiteWriter(ctx, output)
				if err != nil {
					return err
				}
				err = report(export.WriteSessions(ctx, db, infos, reader))
				var partial *exitCodeError
				if err == nil || errors.As(err, &partial) {
					fmt.Fprintf(a.stderr, "Wrote %s\n", output)
				}
				return err
			}
			return write(func(w io.Writer) error {
				switch export.Format(format) {
				case export.FormatCSV:
					c, err := export.NewCSVWriter(w)
					if err != nil {
						return err
					}
					sink = c
				case export.FormatHTML:
					if sink, err = export.NewHTMLWriter(w, export.HTMLOptions{Location: time.Local}); err != nil {
						return err
					}
				default:
					sink = export.NewMarkdownSink(w, export.MarkdownOptions{Location: time.Local})
				}
				return report(export.WriteSessions(ctx, sink, infos, reader))
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "export format: json (an array), jsonl, csv, sqlite (needs --output), html, markdown")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to this file instead of stdout")
	cmd.Flags().StringVar(&since, "since", "", "with 'all': only sessions since a date or age")
	cmd.Flags().StringVar(&source, "source", sourceProject, sourceHelp)
	return cmd
}

// allNative reports whether every session listed is one of the store's own
// (the Source column would say only cuff).
func allNative(infos []session.Info) bool {
	for _, in := range infos {
		if !storeFile(in) {
			return false
		}
	}
	return true
}

// storeFile reports whether a listed session is one file of the store,
// which an export copies as it is.
func storeFile(in session.Info) bool {
	return (in.Source == session.NativeSourceName || in.Source == "") && len(in.Parts) == 0
}

// nativeIDs are the ids of the store's sessions among infos, alone or as
// part of a joined session.
func nativeIDs(infos []session.Info) []string {
	var ids []string
	for _, in := range infos {
		if storeFile(in) {
			ids = append(ids, in.ID)
		}
		for _, p := range in.Parts {
			if p.Source == session.NativeSourceName {
				ids = append(ids, p.ID)
			}
		}
	}
	return ids
}

// exportRaw writes sessions as JSON or JSONL: a file of the store line for
// line, any other session as its events are read. A store file that cannot
// be opened is left out and named in the result (a partial export); ctx
// ending stops it.
func exportRaw(ctx context.Context, s *session.Store, infos []session.Info, src session.Source, w io.Writer, format export.Format) (export.Result, error) {
	rw, err := export.NewRawWriter(w, format)
	if err != nil {
		return export.Result{}, err
	}
	var skipped []session.Unreadable
	for _, in := range infos {
		if err := ctx.Err(); err != nil {
			return export.Result{}, fmt.Errorf("export: %w", err)
		}
		if !storeFile(in) {
			if err := src.Read(ctx, in.ID, rw.WriteEvent); err != nil {
				return export.Result{}, fmt.Errorf("read session %s: %w", in.ID, err)
			}
			continue
		}
		f, err := transcript.Open(s.EventsPath(in.ID))
		if err != nil {
			skipped = append(skipped, session.Unreadable{ID: in.ID, Err: err})
			continue
		}
		fi, err := f.Stat()
		if err == nil {
			err = rw.CopySession(ctx, io.NewSectionReader(f, 0, fi.Size()))
		}
		f.Close()
		if err != nil {
			return export.Result{}, fmt.Errorf("read session %s: %w", in.ID, err)
		}
	}
	res, err := rw.Close()
	res.Skipped = skipped
	return res, err
}

// partial says which sessions an export left out, each with why, and makes
// cuff exit with exitPartial; nothing when none was. The listing has warned
// of each session it refused (unlisted) already; skipped are those the
// export itself could not open.
func (a *app) partial(unlisted, skipped []session.Unreadable, total int) error {
	n := len(unlisted) + len(skipped)
	if n == 0 {
		return nil
	}
	for _, u := range skipped {
		fmt.Fprintf(a.stderr, "warning: session %s left out: %v\n", u.ID, u.Err)
	}
	fmt.Fprintf(a.stderr, "cuff: the export is partial: %d of %d sessions could not be read and were left out (exit status %d)\n",
		n, total, exitPartial)
	return &exitCodeError{code: exitPartial}
}

// writeOutput runs write against stdout, or against a file that appears
// only once it is complete (temporary file, then rename).
//
// The file being written has no name where the file system allows
// (O_TMPFILE), so a killed export leaves nothing; elsewhere a temporary name
// that the next export to the same path removes (see atomicfile). A partial
// export (exitPartial) is still written.
func (a *app) writeOutput(path string, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		return write(a.stdout)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory: name the file to write", path)
	}
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	err = write(f)
	var partial *exitCodeError
	if err != nil && !errors.As(err, &partial) {
		f.Abort()
		return err
	}
	if cerr := f.Commit(); cerr != nil {
		return cerr
	}
	fmt.Fprintf(a.stderr, "Wrote %s\n", path)
	return err
}

func checkFormat(got string, allowed ...string) error {
	for _, f := range allowed {
		if got == f {
			return nil
		}
	}
	return badFormat(got, allowed...)
}

// exactArgs is cobra.ExactArgs with a message that names what is missing.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) == n {
			return nil
		}
		if len(args) < n {
			return &usageError{msg: "missing " + what, hint: fmt.Sprintf("Usage: %s", cmd.UseLine())}
		}
		return &usageError{msg: fmt.Sprintf("too many arguments: %s", strings.Join(args[n:], " ")),
			hint: fmt.Sprintf("Usage: %s", cmd.UseLine())}
	}
}
