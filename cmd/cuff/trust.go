package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) trustCommand() *cobra.Command {
	var show bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Trust the project's .cuff/policy.yml and .cuff/settings.yml as they are now",
		Long: `Whatever in .cuff/policy.yml or .cuff/settings.yml loosens the gate (allow rules, exposed
scripts, mode: taint, no_watcher: allow, hooks and a cop that cuff runs, less redaction ...)
counts only once you trusted that exact text, as direnv does with .envrc: an agent, or a
repository you cloned, cannot loosen the gate by editing them. Tightening (deny and ask rules,
stricter values) counts at once. 'cuff trust' records the files' current text as trusted, in
cuff's state directory; --show says what is trusted and what waits, changing nothing
(exit 0 when everything applies, 1 when something waits). An agent running 'cuff trust' is
asked about, like 'cuff approve'.`,
		Example: `  cuff trust --show    # what waits to be trusted
  cuff trust           # trust the files as they are now`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := a.openWorkspace()
			if err != nil {
				return err
			}
			if _, _, err := ws.Policies(); err != nil {
				return err
			}
			waiting := ws.TrustNote()
			if show {
				if waiting == "" {
					fmt.Fprintf(a.stdout, "Everything in %s applies: nothing waits to be trusted.\n", ws.Store.Dir)
					return nil
				}
				fmt.Fprintln(a.stdout, strings.TrimPrefix(waiting, "cuff: "))
				return &exitCodeError{code: 1}
			}
			cur, err := ws.SaveTrust(time.Now())
			if err != nil {
				return err
			}
			var files []string
			for _, name := range []string{"policy.yml", "settings.yml"} {
				if _, ok := cur[name]; ok {
					files = append(files, name)
				}
			}
			if len(files) == 0 {
				fmt.Fprintf(a.stdout, "Trusted %s as it is: no policy.yml or settings.yml, so cuff's defaults apply.\n", ws.Store.Dir)
				return nil
			}
			them := "it is"
			if len(files) > 1 {
				them = "they are"
			}
			fmt.Fprintf(a.stdout, "Trusted %s in %s as %s now.\n", strings.Join(files, " and "), ws.Store.Dir, them)
			if waiting != "" {
				fmt.Fprintf(a.stdout, "Now applied: %s\n", waitingParts(waiting))
			}
			fmt.Fprintln(a.stdout, "A later change that loosens the gate waits for 'cuff trust' again; stricter rules apply at once.")
			return nil
		},
	}
	cmd.Flags().BoolVar(&show, "show", false, "say what is trusted and what waits, changing nothing")
	return cmd
}

// waitingParts is the list of what a trust note says waits.
func waitingParts(note string) string {
	_, rest, ok := strings.Cut(note, "applies now): ")
	if !ok {
		return note
	}
	parts, _, _ := strings.Cut(rest, ". If you wrote them")
	return parts
}
