package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/cuff-dev/cuff/session"
	"github.com/spf13/cobra"
)

// policyFileName is the project's gate policy inside the .cuff directory.
const policyFileName = "policy.yml"

func (a *app) recordGenerateCommand() *cobra.Command {
	var since, format, output, strategy string
	var minFrequency int64
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate gate policy rules from the commands agents ran",
		Long: `Generate proposes .cuff/policy.yml rules (all "allow") from recorded commands.

The pattern strategy groups a tool family with several variants into one
rule ("git diff *", "npm run *"); the exact strategy writes one rule per
command; the semantic strategy is the pattern strategy with every rule
reviewed by the cop command (gate.cop.command). Risky commands (network,
destructive, interpreters) only ever get exact rules, chained commands get
exact rules for their parts or none, and commands a person denied get none.
--dry-run replays the recorded commands through the gate with the proposed
policy and reports what it would allow, ask about and deny.`,
		Example: `  cuff record generate --since 7d
  cuff record generate --strategy exact --output policies.yml
  cuff record generate --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, "yaml", "json"); err != nil {
				return err
			}
			st, err := export.ParseStrategy(strategy)
			if err != nil {
				return &usageError{msg: err.Error(), hint: "Hint: use one of: exact, pattern, semantic"}
			}
			if minFrequency < 1 {
				return &usageError{msg: fmt.Sprintf("--min-frequency %d is less than 1", minFrequency),
					hint: "Hint: Use --min-frequency 1 to keep every command"}
			}
			s, sessions, err := a.sessionsSince(since, 0)
			if err != nil {
				return err
			}
			cfg := a.settings()
			opts := export.GenerateOptions{Strategy: st, MinFrequency: minFrequency, Gate: gate.Options{
				Mode: gate.Mode(cfg.Gate.Mode), Workspace: filepath.Dir(s.Dir), Home: a.getenv("HOME")}}
			if st == export.StrategySemantic {
				if cfg.Gate.Cop.Command == "" {
					return export.NeedsCopError{}
				}
				opts.Cop = &gate.CommandCop{Command: cfg.Gate.Cop.Command, Timeout: cfg.Gate.Cop.Timeout}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			rec := export.NewRecorded()
			infos := make([]session.Info, 0, len(sessions))
			for _, m := range sessions {
				infos = append(infos, s.InfoOf(m))
			}
			if _, err := export.WriteSessions(ctx, rec, infos, export.FileReader(s.EventsPath)); err != nil {
				return err
			}
			if rec.Runs() == 0 {
				fmt.Fprint(a.stderr, noRecordingsMessage)
				return nil
			}
			p, err := export.Generate(ctx, rec, opts)
			if err != nil {
				return err
			}
			if err := p.WriteSummary(a.stderr); err != nil {
				return err
			}
			if dryRun {
				proposed, err := p.GatePolicy()
				if err != nil {
					return err
				}
				current, err := gate.LoadPolicy(filepath.Join(s.Dir, policyFileName))
				if err != nil {
					return fmt.Errorf("%w (the current policy is replayed for comparison)", err)
				}
				rep, err := export.Replay(ctx, rec, proposed, export.ReplayOptions{Gate: opts.Gate, Current: current})
				if err != nil {
					return err
				}
				if format == "json" {
					return report.JSON(a.stdout.Forward, rep)
				}
				fmt.Fprintln(a.stderr)
				return rep.WriteText(a.stdout.Forward)
			}
			write := func(w io.Writer) error {
				if format == "json" {
					return p.WriteJSON(w)
				}
				return p.WriteYAML(w)
			}
			if output == "" || output == "-" {
				return write(a.stdout.Forward)
			}
			return a.writeOutput(output, write)
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "analyse sessions since a date (YYYY-MM-DD) or age (7d, 2w, 1m)")
	cmd.Flags().Int64Var(&minFrequency, "min-frequency", export.DefaultMinFrequency, "how often a command must have run to get a rule")
	cmd.Flags().StringVar(&format, "format", "yaml", "output format: yaml (the policy.yml format), json")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the policy to this file instead of stdout")
	cmd.Flags().StringVar(&strategy, "strategy", string(export.StrategyPattern), "generation strategy: exact, pattern, semantic (needs gate.cop.command)")
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "replay the recorded commands through the gate with the proposed policy and report, writing nothing")
	return cmd
}
