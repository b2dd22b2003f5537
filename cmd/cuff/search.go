package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/session/search"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// searchNoticeBytes is how much there must be to index before search says
// it is indexing (a first search over a long history takes seconds).
const searchNoticeBytes = 32 << 20

func (a *app) searchCommand() *cobra.Command {
	var source, since, agent, types, format string
	var limit int
	var reindex bool
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Search every session: prompts, answers, reasoning, commands, outputs, tool inputs and results",
		Long: `Search the sessions of this project and every Claude Code and Codex session.

Words must all match, in any order, anywhere in one text; "a phrase" matches as
written; pre* matches words that start so; a OR b matches either; -word leaves
texts with that word out. A field keeps to one kind of text: cmd:, out:, prompt:,
answer:, thinking:, tool:, result:; failed: keeps to failed commands and tool
errors (alone, it lists them). Hits come best first: the most relevant, the
recent before the old.

The index is kept in the user's cache directory and brought up to date from
what was appended since the last search; the first search indexes everything.
Text is redacted as the store redacts before it is indexed.`,
		Example: `  cuff search "connection refused"
  cuff search cmd:docker --since 7d
  cuff search failed: --source claude
  cuff search 'migrat* -rollback' --type answer,prompt --format json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "table", "json"); err != nil {
				return err
			}
			q := search.Query{Text: strings.Join(args, " "), Agent: agent, Limit: limit}
			if limit < 0 {
				return &usageError{msg: fmt.Sprintf("--limit %d is negative", limit), hint: "Hint: Use 0 for the default (20)"}
			}
			if since != "" {
				t, err := session.ParseSince(since, time.Now())
				if err != nil {
					return err
				}
				q.Since = t
			}
			if err := parseSearchSource(source, &q); err != nil {
				return err
			}
			if err := parseSearchTypes(types, &q); err != nil {
				return err
			}
			hits, err := a.runSearch(cmd.Context(), q, reindex)
			if err != nil {
				return err
			}
			if format == "json" {
				return report.JSON(a.stdout, report.SearchRows(hits))
			}
			if len(hits) == 0 {
				fmt.Fprintf(a.stderr, "No hits for %s.\n", q.Text)
				return nil
			}
			report.SearchHits(a.stdout, report.DefaultStyles(), hits)
			return nil
		},
	}
	cmd.Flags().StringVar(&source, "source", "all", "where sessions come from: cuff (this project), claude, codex, all")
	cmd.Flags().StringVar(&since, "since", "", "texts since a date (YYYY-MM-DD) or age (7d, 2w, 1m)")
	cmd.Flags().StringVar(&agent, "agent", "", "sessions of this agent (claude-code, codex, …; any part of the name)")
	cmd.Flags().StringVar(&types, "type", "", "kinds of text, comma-separated: "+strings.Join(search.KindNames(), ", "))
	cmd.Flags().IntVar(&limit, "limit", search.DefaultLimit, "most hits to show")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json")
	cmd.Flags().BoolVar(&reindex, "reindex", false, "build the index afresh first")
	return cmd
}

func parseSearchSource(source string, q *search.Query) error {
	switch source {
	case "all":
	case session.NativeSourceName, session.ClaudeSourceName, session.CodexSourceName:
		q.Sources = []string{source}
	default:
		return &usageError{msg: fmt.Sprintf("unknown source %q", source),
			hint: "Hint: --source takes one of " + strings.Join(sourceNames, ", ")}
	}
	return nil
}

func parseSearchTypes(types string, q *search.Query) error {
	if types == "" {
		return nil
	}
	for _, t := range strings.Split(types, ",") {
		k, ok := search.ParseKind(strings.TrimSpace(t))
		if !ok {
			return &usageError{msg: fmt.Sprintf("unknown --type %q", t),
				hint: "Hint: --type takes " + strings.Join(search.KindNames(), ", ")}
		}
		q.Kinds = append(q.Kinds, k)
	}
	return nil
}

// runSearch brings the index up to date (building it the first time, or
// afresh with reindex) and runs the query over it.
func (a *app) runSearch(ctx context.Context, q search.Query, reindex bool) ([]search.Hit, error) {
	ws, err := a.openWorkspace()
	if err != nil {
		return nil, err
	}
	s, err := ws.Searcher()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if reindex {
		search.Remove(s.Path)
	}
	tty := term.IsTerminal(int(os.Stderr.Fd()))
	noticed := false
	restoreGC := a.collectLess()
	_, warnings, err := s.Update(ctx, func(done, total int64) {
		switch {
		case total < searchNoticeBytes:
		case !noticed:
			noticed = true
			fmt.Fprintf(a.stderr, "Indexing %s of sessions for search (only what is new is read next time)…\n", report.Bytes(total))
		case tty:
			fmt.Fprintf(a.stderr, "\r%3d%%", 100*done/max(total, 1))
			if done == total {
				fmt.Fprint(a.stderr, "\r    \r")
			}
		}
	})
	restoreGC()
	for _, w := range warnings {
		fmt.Fprintf(a.stderr, "warning: %v\n", w)
	}
	if err != nil {
		return nil, err
	}
	return s.Query(ctx, q)
}
