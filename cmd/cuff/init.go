package main

import "github.com/spf13/cobra"

// initCommand is `cuff init`.
func (a *app) initCommand() *cobra.Command {
	return &cobra.Command{Use: "init", Short: "Set up cuff in this project (not yet built)", Hidden: true}
}
