// Command cuff-tui is cuff's terminal UI: the session browser (cuff),
// the live view (cuff watch) and the demo (cuff demo). cuff starts it for
// those commands; it is a binary of its own so that the commands agents run
// constantly do not pay the start-up cost of the UI's libraries.
package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/charmbracelet/colorprofile"
	"github.com/cuff-dev/cuff/internal/applog"
	"github.com/cuff-dev/cuff/internal/workspace"
	"github.com/cuff-dev/cuff/session"
	"github.com/spf13/cobra"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Environ()))
}

// app is what the UI commands share: streams, global flags and the
// project's workspace, opened on first use.
type app struct {
	stdin   io.Reader
	stdout  *colorprofile.Writer
	stderr  io.Writer
	environ []string

	dir     string
	noColor bool

	ws    *workspace.Workspace
	store *session.Store
	// extraSources are sources made for one command, such as a transcript
	// file given to watch.
	extraSources []session.Source
	log          *applog.Log
}

func (a *app) getenv(key string) string { return workspace.Lookup(a.environ, key) }

// openStore resolves the project's store and settings once. Warnings go to
// the log: the screen belongs to the UI.
func (a *app) openStore() (*session.Store, error) {
	if a.ws != nil {
		return a.ws.Store, nil
	}
	ws, err := workspace.Open(workspace.Env{Dir: a.dir, Getenv: a.getenv, Warn: func(msg string) { a.logger().Warn(msg) }})
	if err != nil {
		return nil, err
	}
	a.ws, a.store = ws, ws.Store
	return ws.Store, nil
}

// logger is cuff's log in .cuff/logs/cuff.log, opened on the first message.
func (a *app) logger() *slog.Logger {
	if a.log == nil {
		dir := ""
		if a.store != nil {
			dir = a.store.Dir
		}
		a.log = applog.Open(dir, a.getenv("CUFF_LOG_LEVEL"))
	}
	return a.log.Logger
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	a := &app{stdin: stdin, stdout: colorprofile.NewWriter(stdout, environ), stderr: stderr, environ: environ}
	root := &cobra.Command{
		Use:           "cuff",
		Short:         "Browse recorded agent sessions",
		Args:          cobra.NoArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE:          a.runBrowser,
	}
	root.PersistentFlags().StringVar(&a.dir, "dir", "", "the .cuff directory to use (or a folder that holds one)")
	root.PersistentFlags().BoolVar(&a.noColor, "no-color", false, "plain output without colours (also: NO_COLOR=1)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{msg: err.Error(), hint: fmt.Sprintf("Hint: Run '%s --help' for usage", cmd.CommandPath())}
	})
	root.AddCommand(a.tuiCommands()...)
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
	fmt.Fprintf(stderr, "Error: %v\n", err)
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		fmt.Fprintf(stderr, "\n%s\n", h.Hint())
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitError
}

// usageError is a command line the UI cannot make sense of.
type usageError struct {
	msg  string
	hint string
}

func (e *usageError) Error() string { return e.msg }
func (e *usageError) Hint() string  { return e.hint }
