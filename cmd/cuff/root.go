package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"sync"

	"github.com/charmbracelet/colorprofile"
	"github.com/cuff-dev/cuff/internal/applog"
	"github.com/cuff-dev/cuff/internal/workspace"
	"github.com/cuff-dev/cuff/session"
	"github.com/spf13/cobra"
)

// Version is cuff's version, set at build time with -ldflags "-X main.Version=...".
var Version = "0.1.0-dev"

// Exit codes of cuff's own commands.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
	// exitPartial: an export wrote what it could read and left out sessions
	// it could not (each named in a warning).
	exitPartial = 3
)

// app is what every command shares: streams, global flags and the store,
// opened on first use.
type app struct {
	stdin   io.Reader
	stdout  *colorprofile.Writer
	stderr  io.Writer
	environ []string

	args    []string // the command line as given, for handing over to cuff-tui
	dir     string
	noColor bool
	cwd     string // where to look for the store; "" means the working directory

	ws *workspace.Workspace
	// sandboxOff is why the project's allowed commands run outside the
	// sandbox, once cuff check has asked.
	sandboxOff string
	store      *session.Store
	log        *applog.Log
}

func (a *app) getenv(key string) string { return workspace.Lookup(a.environ, key) }

// openWorkspace resolves the project's store and settings (--dir,
// CUFF_DIR, else walking up from the working directory), once.
func (a *app) openWorkspace() (*workspace.Workspace, error) {
	if a.ws != nil {
		return a.ws, nil
	}
	var mu sync.Mutex
	said := map[string]bool{} // a listing read twice (the project's, then all) warns once
	ws, err := workspace.Open(workspace.Env{Dir: a.dir, Cwd: a.cwd, Getenv: a.getenv, Warn: func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		if said[msg] {
			return
		}
		said[msg] = true
		fmt.Fprintf(a.stderr, "warning: %s\n", msg)
		a.logger().Warn(msg)
	}})
	if err != nil {
		return nil, err
	}
	a.ws, a.store = ws, ws.Store
	return ws, nil
}

// openStore is the project's store (see openWorkspace).
func (a *app) openStore() (*session.Store, error) {
	ws, err := a.openWorkspace()
	if err != nil {
		return nil, err
	}
	return ws.Store, nil
}

// logger is cuff's own structured log in .cuff/logs/cuff.log, opened on
// the first message.
func (a *app) logger() *slog.Logger {
	if a.log == nil {
		if a.store == nil {
			// No store yet: nothing to write into, and nothing is kept, so a
			// logger opened once the store is known writes to its file.
			return applog.Open("", "").Logger
		}
		a.log = applog.Open(a.store.Dir, a.getenv("CUFF_LOG_LEVEL"))
	}
	return a.log.Logger
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	a := &app{stdin: stdin, stdout: colorprofile.NewWriter(stdout, environ), stderr: stderr, environ: environ, args: args}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(a.stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if a.log != nil {
		a.log.Close()
	}
	if err == nil {
		return exitOK
	}
	var ex *exitCodeError
	if errors.As(err, &ex) {
		return ex.code
	}
	var ue *usageError
	if !errors.As(err, &ue) && strings.HasPrefix(err.Error(), "unknown command") {
		msg, _, _ := strings.Cut(err.Error(), "\n") // without cobra's own suggestions
		hint := "Hint: Run 'cuff --help' to see the commands"
		if m := unknownCommand.FindStringSubmatch(msg); m != nil {
			if s := didYouMean(root, m[1]); s != "" {
				hint = s
			}
		}
		err = &usageError{msg: msg, hint: hint}
	}
	printError(stderr, err)
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitError
}

// hinted is an error that tells the way out; Hint is printed as it is,
// after a blank line, in the style "Hint: Use ...".
type hinted interface{ Hint() string }

func printError(w io.Writer, err error) {
	fmt.Fprintf(w, "Error: %v\n", err)
	var h hinted
	if errors.As(err, &h) && h.Hint() != "" {
		fmt.Fprintf(w, "\n%s\n", h.Hint())
	}
}

// usageError is a command line cuff cannot make sense of.
type usageError struct {
	msg  string
	hint string
}

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Hint() string  { return e.hint }

// exitError ends cuff with a code after the command printed what it had to.
type exitCodeError struct{ code int }

func (e *exitCodeError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "cuff",
		Short: "Watch, gate and record what AI coding agents do",
		Long: `cuff watches, gates and records what an AI coding agent does: chat turns,
tool calls, sub-agent delegations and bash runs, as JSONL sessions under .cuff/.

Run without a command to browse the sessions in the terminal UI; try 'cuff demo'.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if a.noColor || a.getenv("NO_COLOR") != "" {
				a.stdout.Profile = colorprofile.NoTTY
			}
			return nil
		},
	}
	root.PersistentFlags().StringVar(&a.dir, "dir", "", "the .cuff directory to use (or a folder that holds one); default: found from the working directory, or $CUFF_DIR")
	root.PersistentFlags().BoolVar(&a.noColor, "no-color", false, "plain output without colours (also: NO_COLOR=1)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{msg: err.Error(), hint: fmt.Sprintf("Hint: Run '%s --help' for usage", cmd.CommandPath())}
	})
	root.RunE = a.runBrowser
	root.Args = cobra.NoArgs
	root.AddCommand(a.versionCommand(), a.recordCommand(), a.execCommand(), a.runsCommand(),
		a.scriptsCommand(), a.initCommand(), a.metricsCommand(), a.healthCommand())
	root.AddCommand(a.tuiCommands()...)
	root.AddCommand(a.approvalCommands()...)
	root.AddCommand(a.importCommand(), a.hookCommand(), a.checkCommand(), a.policyCommand(), a.mcpCommand(), a.sandboxCommand(),
		a.trustCommand())
	root.AddCommand(a.searchCommand())
	strictArgs(root)
	return root
}

func firstArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// unknownCommand finds the name in cobra's "unknown command" error.
var unknownCommand = regexp.MustCompile(`^unknown command "([^"]*)"`)

// didYouMean names the subcommands of group that typed is a slip of
// (cuff recrod: record), or "" when none is close.
func didYouMean(group *cobra.Command, typed string) string {
	if group.SuggestionsMinimumDistance <= 0 {
		group.SuggestionsMinimumDistance = 2
	}
	var names []string
	for _, s := range group.SuggestionsFor(typed) {
		names = append(names, "'"+group.CommandPath()+" "+s+"'")
	}
	if len(names) == 0 {
		return ""
	}
	return "Hint: Did you mean " + strings.Join(names, " or ") + "?"
}

// strictArgs makes every command's argument errors usage errors (exit 2,
// with the usage line as the hint), and makes a group of commands (cuff
// record, cuff runs …) reject a subcommand it does not have instead of
// printing its help and succeeding.
func strictArgs(cmd *cobra.Command) {
	for _, c := range cmd.Commands() {
		strictArgs(c)
	}
	if cmd.HasSubCommands() && cmd.Run == nil && cmd.RunE == nil {
		group := cmd
		cmd.Args = func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			var names []string
			for _, sub := range group.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, sub.Name())
				}
			}
			hint := fmt.Sprintf("Hint: %s has: %s", group.CommandPath(), strings.Join(names, ", "))
			if s := didYouMean(group, args[0]); s != "" {
				hint = s + "\n" + hint
			}
			return &usageError{msg: fmt.Sprintf("unknown command %q for %q", args[0], group.CommandPath()), hint: hint}
		}
		cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		return
	}
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			err := check(c, args)
			var ue *usageError
			if err == nil || errors.As(err, &ue) {
				return err
			}
			if c.HasSubCommands() {
				msg, _, _ := strings.Cut(err.Error(), "\n") // without cobra's own suggestions
				hint := fmt.Sprintf("Hint: Run '%s --help' to see the commands", c.CommandPath())
				if s := didYouMean(c, firstArg(args)); s != "" {
					hint = s
				}
				return &usageError{msg: msg, hint: hint}
			}
			return &usageError{msg: err.Error(), hint: "Usage: " + c.UseLine()}
		}
	}
}

func (a *app) versionCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print cuff's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch format {
			case "json":
				fmt.Fprintf(a.stdout, "{\"version\":%q}\n", Version)
			case "text":
				fmt.Fprintf(a.stdout, "cuff %s\n", Version)
			default:
				return badFormat(format, "text", "json")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json")
	return cmd
}

// badFormat is the error for a --format value a command does not write.
func badFormat(got string, allowed ...string) error {
	return &usageError{
		msg:  fmt.Sprintf("unknown format %q", got),
		hint: "Hint: use one of: " + strings.Join(allowed, ", "),
	}
}
