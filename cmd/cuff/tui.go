package main

import "github.com/spf13/cobra"

// tuiCommands are the commands that open the terminal UI. They run in
// cuff-tui (see launch.go); here they only carry their help and hand over
// the command line as it was given.
func (a *app) tuiCommands() []*cobra.Command {
	watch := &cobra.Command{
		Use:   "watch [ID|FILE]",
		Short: "Follow a session live in the TUI",
		Long: `Follow a session live: the newest session being recorded (waiting for one
to start when there is none), the session with the given (partial) id, any
Claude Code transcript or Codex rollout, or any JSONL session file.`,
		Example: `  cuff watch
  cuff watch a7b3c9d2
  cuff watch ~/.claude/projects/-home-me-app/5f2c0a9e-1b1d-4e0c-9a51-2c6d8e7f3a10.jsonl`,
		DisableFlagParsing: true,
		RunE:               a.handOver,
	}
	demo := &cobra.Command{
		Use:                "demo [--speed N]",
		Short:              "Watch a recorded agent session play live, approval prompt included (no set-up needed)",
		DisableFlagParsing: true,
		RunE:               a.handOver,
	}
	return []*cobra.Command{watch, demo}
}

// runBrowser is what plain `cuff` does: browse sessions in the TUI.
func (a *app) runBrowser(cmd *cobra.Command, args []string) error { return a.handOver(cmd, args) }

// handOver runs the command line in cuff-tui, unless it only asks for help.
func (a *app) handOver(cmd *cobra.Command, args []string) error {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "-h" || arg == "--help" {
			return cmd.Help()
		}
	}
	return a.launchTUI(a.args)
}
