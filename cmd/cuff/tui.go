package main

import "github.com/spf13/cobra"

// tuiCommands are the commands that open the terminal UI (watch, demo).
func (a *app) tuiCommands() []*cobra.Command { return nil }

// runBrowser is what plain `cuff` does: browse sessions in the TUI.
func (a *app) runBrowser(cmd *cobra.Command, args []string) error { return cmd.Help() }
