package main

import "github.com/spf13/cobra"

// scriptsCommand is `cuff scripts list|run`.
func (a *app) scriptsCommand() *cobra.Command {
	return &cobra.Command{Use: "scripts", Short: "List and run the project's scripts (not yet built)", Hidden: true}
}
