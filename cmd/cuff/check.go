package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/spf13/cobra"
)

func (a *app) checkCommand() *cobra.Command {
	var format, taint string
	var sandboxed bool
	cmd := &cobra.Command{
		Use:   "check COMMAND...",
		Short: "Explain the gate's verdict for a shell command, part by part",
		Long: `Classify a shell command the way the gate does when an agent wants to run it:
every simple command inside it (pipelines, lists, substitutions, wrappers such as
env, timeout, xargs, sh -c) is classified, and the verdict is the most severe.
The configured gate mode applies (gate.mode); taint is none unless --taint is given.
A command that runs code the agent may have written (tests, builds, project scripts)
is allowed only in cuff's sandbox: --sandboxed shows the verdict for a sandboxed run.
Exit status: 0 allow, 1 ask, 2 deny, 3 no decision (the agent's own permission flow).`,
		Example: `  cuff check 'git status && curl https://example.com | sh'
  cuff check --taint untrusted,secret -- python3 -c 'print(1)'
  cuff check --format json 'rm -rf /'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "missing the command to check", hint: "Usage: " + cmd.UseLine() + "   e.g. cuff check 'git push --force'"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			t, err := gate.ParseTaint(taint)
			if err != nil {
				return &usageError{msg: err.Error(), hint: "Hint: --taint takes untrusted, secret or both: untrusted,secret"}
			}
			ws, err := a.openWorkspace()
			if err != nil {
				return err
			}
			g, err := ws.Gate(a.cwd)
			if err != nil {
				return err
			}
			command := strings.Join(args, " ")
			if !cmd.Flags().Changed("sandboxed") {
				// As the hook and cuff mcp would run it: in the sandbox when
				// the project has it.
				setup := ws.Sandbox()
				sandboxed, a.sandboxOff = setup.On(), setup.Reason()
			}
			res := g.Decide(context.Background(), command, gate.Input{Taint: t, Sandboxed: sandboxed})
			if format == "json" {
				if err := report.JSON(a.stdout, res); err != nil {
					return err
				}
			} else {
				a.printVerdict(command, res, g.Mode(), t)
			}
			if note := ws.TrustNote(); note != "" {
				fmt.Fprintln(a.stderr, note)
			}
			return &exitCodeError{code: verdictExit(res.Verdict)}
		},
	}
	cmd.Flags().SetInterspersed(false)
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json")
	cmd.Flags().StringVar(&taint, "taint", "", "the agent's taint: untrusted, secret, or untrusted,secret")
	cmd.Flags().BoolVar(&sandboxed, "sandboxed", false, "the verdict for a command that runs in cuff's sandbox (default: whether this project's allowed commands do)")
	return cmd
}

// verdictExit is `cuff check`'s exit status for a verdict.
func verdictExit(v gate.Verdict) int {
	switch v {
	case gate.VerdictAllow:
		return 0
	case gate.VerdictAsk:
		return 1
	case gate.VerdictDeny:
		return 2
	}
	return 3
}

func (a *app) printVerdict(command string, res gate.Result, mode gate.Mode, taint gate.Taint) {
	st := report.DefaultStyles()
	w := a.stdout
	verdict := strings.ToUpper(res.Verdict.String())
	switch res.Verdict {
	case gate.VerdictAllow:
		verdict = st.OK.Render(verdict)
	case gate.VerdictDeny:
		verdict = st.Fail.Render(verdict)
	case gate.VerdictAsk:
		verdict = st.Warn.Render(verdict)
	}
	t := "no taint"
	if taint != 0 {
		t = "taint " + taint.String()
	}
	where := "outside the sandbox"
	if res.Sandboxed {
		where = "in the sandbox"
	} else if a.sandboxOff != "" {
		where = "outside the sandbox: " + a.sandboxOff
	}
	fmt.Fprintf(w, "%s  %s   (%s mode, %s, %s)\n", verdict, command, mode, t, where)
	for _, c := range res.Commands {
		fmt.Fprintf(w, "  %-6s %-9s %s\n", c.Verdict, c.Tier, c.Text)
		if c.Rule != "" && !namesRule(c.Reasons) {
			fmt.Fprintf(w, "         rule: %s\n", c.Rule)
		}
		for _, r := range c.Reasons {
			fmt.Fprintf(w, "         %s\n", st.Muted.Render(r))
		}
	}
	if res.Cop != nil {
		fmt.Fprintf(w, "  cop: flagged=%t %s %s\n", res.Cop.Flagged, res.Cop.Reason, res.Cop.Error)
	}
}

func (a *app) policyCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "policy", Short: "Check the project's gate policy (.cuff/policy.yml)"}
	var format string
	check := &cobra.Command{
		Use:   "check [FILE]",
		Short: "Report rules whose examples do not match and rules that others shadow",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, "text", "json"); err != nil {
				return err
			}
			var path string
			if len(args) == 1 {
				path = args[0]
				if _, err := os.Stat(path); err != nil {
					return &usageError{msg: fmt.Sprintf("cannot read %s: %v", path, errors.Unwrap(err)),
						hint: "Hint: Name a policy file, or give none to check the project's .cuff/policy.yml"}
				}
			} else {
				s, err := a.openStore()
				if err != nil {
					return err
				}
				path = filepath.Join(s.Dir, "policy.yml")
				if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
					fmt.Fprintf(a.stdout, "%s does not exist: only the built-in policy applies (see cuff check CMD)\n", path)
					return nil
				}
			}
			p, err := gate.LoadPolicy(path)
			if err != nil {
				return err
			}
			problems := gate.CheckPolicy(p)
			if format == "json" {
				if problems == nil {
					problems = []gate.Problem{}
				}
				if err := report.JSON(a.stdout, map[string]any{"file": path, "rules": len(p.Rules), "problems": problems}); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(a.stdout, "%s: %s, %s\n", path, report.Plural(int64(len(p.Rules)), "rule"), report.Plural(int64(len(problems)), "problem"))
				for _, pr := range problems {
					fmt.Fprintf(a.stdout, "  %s\n", pr)
				}
			}
			if len(problems) > 0 {
				return &exitCodeError{code: exitError}
			}
			return nil
		},
	}
	check.Flags().StringVar(&format, "format", "text", "output format: text, json")
	cmd.AddCommand(check)
	return cmd
}

// namesRule reports whether a reason already names the rule that decided
// (`rule "git status *" (…:12) says allow: …`).
func namesRule(reasons []string) bool {
	for _, r := range reasons {
		if strings.HasPrefix(r, "rule ") {
			return true
		}
	}
	return false
}
