package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/session"
	"github.com/spf13/cobra"
)

func (a *app) recordRmCommand() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "rm SESSION_ID...",
		Short: "Delete sessions to the trash (cuff record restore brings them back)",
		Long: `Delete sessions of this project's store: they move to the trash beside the
recordings (.cuff/recordings/trash), from where 'cuff record restore' brings them
back and 'cuff record clean' removes them for good. Any unique part of an id
names a session. A session being recorded is not deleted. Claude Code's and
Codex's own transcripts are theirs: cuff never deletes them.`,
		Example: `  cuff record rm 143052_a7b3c9d2
  cuff record rm 143052 160315 --force`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "missing SESSION_ID", hint: "Usage: " + cmd.UseLine()}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore()
			if err != nil {
				return err
			}
			var metas []*session.Meta
			seen := map[string]bool{}
			for _, arg := range args {
				if src, _, ok := strings.Cut(arg, ":"); ok && (src == "claude" || src == "codex") {
					return &usageError{msg: fmt.Sprintf("%s is a transcript %s keeps: cuff deletes only its own recordings", arg, agentName(src)),
						hint: "Hint: Delete it where " + agentName(src) + " keeps it, if you mean to ('cuff record show " + arg + "' says where)"}
				}
				m, err := s.Find(arg)
				if err != nil {
					return err
				}
				if !seen[m.SessionID] {
					seen[m.SessionID] = true
					metas = append(metas, m)
				}
			}
			fmt.Fprintf(a.stdout, "%s to the trash:\n", report.Plural(int64(len(metas)), "session"))
			for _, m := range metas {
				fmt.Fprintf(a.stdout, "  %s  %s  %s\n", m.SessionID, m.CreatedAt.Local().Format(report.TimeLayout), report.Clip(m.Title, 60))
			}
			if !force && !a.confirm(fmt.Sprintf("Delete %s? [y/N] ", report.Plural(int64(len(metas)), "session"))) {
				fmt.Fprintln(a.stdout, "Nothing deleted.")
				return nil
			}
			for _, m := range metas {
				if _, err := s.Trash(m.SessionID, time.Now()); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "Deleted %s (cuff record restore %s brings it back)\n", m.SessionID, m.SessionID)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "skip the confirmation prompt")
	return cmd
}

func (a *app) recordRestoreCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "restore [SESSION_ID...]",
		Short: "Bring deleted sessions back from the trash (without an id: list the trash)",
		Example: `  cuff record restore
  cuff record restore 20260118_143052_a7b3c9d2-e4f5`,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore()
			if err != nil {
				return err
			}
			list, err := s.TrashList()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				if len(list) == 0 {
					fmt.Fprintln(a.stdout, "The trash is empty.")
					return nil
				}
				fmt.Fprintf(a.stdout, "%s in the trash (%s):\n", report.Plural(int64(len(list)), "session"), s.TrashDir())
				for _, t := range list {
					fmt.Fprintf(a.stdout, "  %s  deleted %s  %s  %s\n", t.ID, t.Deleted.Local().Format(report.TimeLayout),
						report.Bytes(t.SizeBytes), report.Clip(t.Title, 50))
				}
				fmt.Fprintln(a.stdout, "Restore one with: cuff record restore ID")
				return nil
			}
			for _, arg := range args {
				id, err := trashedID(list, arg)
				if err != nil {
					return err
				}
				if _, err := s.Restore(id); err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "Restored %s\n", id)
			}
			return nil
		},
	}
	return cmd
}

// trashedID finds the one trashed session a (partial) id names.
func trashedID(list []session.Trashed, partial string) (string, error) {
	var hits []string
	for _, t := range list {
		if t.ID == partial {
			return t.ID, nil
		}
		if strings.Contains(t.ID, partial) {
			hits = append(hits, t.ID)
		}
	}
	switch len(hits) {
	case 0:
		return "", &usageError{msg: fmt.Sprintf("no session %q in the trash", partial),
			hint: "Hint: 'cuff record restore' lists what the trash holds"}
	case 1:
		return hits[0], nil
	}
	return "", &session.AmbiguousError{ID: partial, Candidates: hits}
}

func agentName(src string) string {
	if src == "codex" {
		return "Codex"
	}
	return "Claude Code"
}
