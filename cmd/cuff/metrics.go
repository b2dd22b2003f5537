package main

import (
	"fmt"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/session/metrics"
	"github.com/spf13/cobra"
)

func (a *app) metricsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "metrics",
		Short: "Print figures computed from the recordings in Prometheus text format",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.openStore()
			if err != nil {
				return err
			}
			f, err := metrics.Collect(s)
			if err != nil {
				return err
			}
			return f.WritePrometheus(a.stdout)
		},
	}
}

func (a *app) healthCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Check that recording can work; exits 1 when it cannot",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(format, "json", "text"); err != nil {
				return err
			}
			s, err := a.openStore()
			if err != nil {
				return err
			}
			h := metrics.Check(s, a.settings().Recording.Enabled)
			a.sandboxHealth(h)
			if format == "json" {
				if err := report.JSON(a.stdout, h); err != nil {
					return err
				}
			} else {
				state := "healthy"
				if !h.Healthy {
					state = "unhealthy"
				}
				fmt.Fprintf(a.stdout, "cuff is %s\n  recordings: %s\n  writable: %t\n  free space: %s\n", state,
					h.Directory, h.DirectoryWritable, report.Bytes(int64(h.FreeBytes)))
				if h.CurrentSession != nil {
					fmt.Fprintf(a.stdout, "  current session: %s (%d events)\n", *h.CurrentSession, h.EntriesRecorded)
				}
				if sb := h.Sandbox; sb != nil && sb.On {
					fmt.Fprintf(a.stdout, "  sandbox: on (Landlock ABI %d): allowed commands run confined\n", sb.LandlockABI)
				} else if sb != nil {
					fmt.Fprintf(a.stdout, "  sandbox: off (gate.sandbox: %s): %s; commands that run code the agent may have written get no decision\n", sb.Mode, sb.Reason)
				}
				for _, p := range h.Problems {
					fmt.Fprintf(a.stdout, "  problem: %s\n", p)
				}
			}
			if !h.Healthy {
				return &exitCodeError{code: exitError}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json")
	return cmd
}

// sandboxHealth says whether the commands cuff allows run in the sandbox.
// With gate.sandbox: always and no sandbox, cuff is unhealthy: it asks
// about every command it would otherwise allow.
func (a *app) sandboxHealth(h *metrics.Health) {
	if a.ws == nil {
		return
	}
	setup := a.ws.Sandbox()
	h.Sandbox = &metrics.SandboxHealth{Mode: setup.Mode, On: setup.On(), LandlockABI: setup.Status.ABI, Reason: setup.Reason()}
	if !setup.On() && setup.Required() {
		h.Healthy = false
		h.Problems = append(h.Problems, "gate.sandbox is always, but "+setup.Reason()+": cuff asks before every command it would allow")
	}
}
