package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder"
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/recorder/scripts"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/spf13/cobra"
)

// scriptsCommand is `cuff scripts list|run`.
func (a *app) scriptsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scripts",
		Short: "List and run the project's scripts (the ones exposed to agents as tools)",
		Long: `The scripts matching scripts.patterns in .cuff/settings.yml (relative to
scripts.base_directory, minus scripts.exclude) are offered to agents as tools named after
their path: scripts/deploy-prod.sh is script_scripts_deploy_prod. 'cuff init' suggests
patterns for the scripts it finds.`,
	}
	cmd.AddCommand(a.scriptsListCommand(), a.scriptsRunCommand())
	return cmd
}

func (a *app) scriptsListCommand() *cobra.Command {
	var format string
	var patterns []string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the scripts matching the configured patterns, with tool names and interpreters",
		Example: `  cuff scripts list
  cuff scripts list --format json
  cuff scripts list --pattern 'tools/**/*.py'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != "json" {
				return badFormat(format, "table", "json")
			}
			return a.runScriptsList(format, patterns)
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: table, json")
	cmd.Flags().StringArrayVar(&patterns, "pattern", nil, "list the scripts matching this glob instead of scripts.patterns (repeatable)")
	return cmd
}

// loadScripts discovers the project's scripts under the settings, or under
// patterns when given.
func (a *app) loadScripts(patterns []string) (*scripts.Set, *settings.Settings, error) {
	store, err := a.openStore()
	if err != nil {
		return nil, nil, err
	}
	cfg := a.settings()
	if !cfg.PluginEnabled("scripts") {
		return nil, cfg, &scriptsHintError{msg: "scripts are disabled in the settings (plugins.scripts.enabled: false)",
			hint: "Hint: Set plugins.scripts.enabled: true in .cuff/settings.yml"}
	}
	sc := scripts.FromSettings(filepath.Dir(store.Dir), cfg.Scripts)
	if len(patterns) > 0 {
		sc.Patterns = patterns
	}
	set, err := scripts.Load(sc)
	if err != nil {
		return nil, cfg, &scriptsHintError{msg: err.Error(),
			hint: "Hint: Fix the scripts section of .cuff/settings.yml ('cuff init --print' shows every key)"}
	}
	return set, cfg, nil
}

func (a *app) runScriptsList(format string, patterns []string) error {
	set, _, err := a.loadScripts(patterns)
	if err != nil {
		return err
	}
	if format == "json" {
		if err := report.JSON(a.stdout, set.List().Scripts); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tPATH\tINTERPRETER\tDESCRIPTION")
		for _, s := range set.Scripts {
			interp := s.InterpreterString()
			if interp == "" {
				interp = "(direct)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, s.Path, interp, scriptCell(s.Description))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, w := range set.Warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", w.Message)
	}
	for _, c := range set.Conflicts {
		fmt.Fprintf(a.stderr, "conflict: %s\n", c)
	}
	if len(set.Config().Patterns) == 0 {
		a.suggestPatterns(set.Config().Root)
	}
	return nil
}

// suggestPatterns says why nothing is listed and what discovery would expose.
func (a *app) suggestPatterns(root string) {
	fmt.Fprintln(a.stderr, "No scripts are exposed: scripts.patterns is empty in the settings.")
	d, err := scripts.Discover(root)
	if err != nil || !d.Applicable {
		fmt.Fprintln(a.stderr, "Hint: Set scripts.patterns in .cuff/settings.yml, e.g. [\"scripts/*.sh\"]")
		return
	}
	fmt.Fprintf(a.stderr, "Hint: %s in the usual places; to expose them set scripts.patterns: %s\n",
		d.Description, scriptPatternList(d.Patterns))
}

// scriptCell makes a description fit one table cell.
func scriptCell(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

type scriptRunFlags struct {
	dryRun  bool
	timeout string
	env     []string
}

func (a *app) scriptsRunCommand() *cobra.Command {
	f := &scriptRunFlags{}
	cmd := &cobra.Command{
		Use:   "run NAME [flags] [-- ARGS...]",
		Short: "Run a script by tool name or path, and record the run",
		Long: `Run one of the exposed scripts, named by its tool name (script_scripts_build) or its
path relative to scripts.base_directory (scripts/build.sh), and record the run like
'cuff exec' does. Arguments go after --; they may not contain shell metacharacters
(;&|` + "`" + `$(){}[]<>\'"!*?~), and --env may not set PATH, LD_PRELOAD, HOME and the like.
cuff exits with the script's own exit code (124 timeout).`,
		Example: `  cuff scripts run script_scripts_build
  cuff scripts run scripts/deploy.sh --timeout 600 --env TARGET=staging -- --verbose
  cuff scripts run script_scripts_test --dry-run -- unit`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "missing the script to run", hint: "Hint: cuff scripts run NAME [-- ARGS...]; 'cuff scripts list' shows the names"}
			}
			return a.runScript(f, args[0], args[1:])
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.dryRun, "dry-run", false, "show the command without running it")
	fl.StringVar(&f.timeout, "timeout", "", "timeout in seconds or as a duration (90, 2m); default scripts.default_timeout (300 s)")
	fl.StringArrayVar(&f.env, "env", nil, "set an environment variable for the script, KEY=VALUE (repeatable)")
	return cmd
}

func (a *app) runScript(f *scriptRunFlags, name string, args []string) error {
	req := scripts.Request{Script: name, Args: args}
	if f.timeout != "" {
		var err error
		if req.Timeout, err = parseTimeout(f.timeout); err != nil {
			return err
		}
	}
	for _, kv := range f.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return &usageError{msg: fmt.Sprintf("--env %q is not KEY=VALUE", kv), hint: "Hint: Use e.g. --env LOG_LEVEL=debug"}
		}
		if req.Env == nil {
			req.Env = map[string]string{}
		}
		req.Env[k] = v
	}
	set, cfg, err := a.loadScripts(nil)
	if err != nil {
		return err
	}
	if req.Script, err = shortScriptName(set.List().Scripts, name); err != nil {
		return err
	}
	c, sc, refusal := set.Command(req, runnerEnv(cfg.Execution.Environment))
	if f.dryRun {
		if refusal != nil {
			return a.scriptRefused(refusal, scripts.Refused(refusal))
		}
		fmt.Fprint(a.stdout, scripts.DryRun(&c))
		return nil
	}
	c.Capture = captureMode(cfg.Recording.CaptureOutput)
	c.MaxOutputBytes = int(cfg.Recording.MaxOutputSize)
	c.Redact = a.outputRedact(cfg)
	c.Limits = runner.Limits{MemoryMB: cfg.Execution.Limits.MemoryMB, CPUSeconds: cfg.Execution.Limits.CPUSeconds}
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(interrupts)
	c.Interrupts = interrupts

	var corr recorder.Correlation
	a.fillFromEnv(&corr)
	root := set.Config().Root
	rec := recorder.New(recorder.Options{
		Store: a.store, Mode: string(cfg.Recording.SessionMode), Agent: "cuff-scripts", Source: transcript.SourceExec,
		WorkingDirectory: root, CuffVersion: Version, Disabled: !cfg.Recording.Enabled,
		StateDir: a.stateDir(), Warn: func(msg string) {
			fmt.Fprintf(a.stderr, "cuff: warning: %s\n", msg)
			a.logger().Warn(msg, "degraded", true)
		},
	})
	pending := rec.Begin(corr, recorder.StartEvent(&c, c.Dir))
	var res runner.Result
	if refusal == nil {
		res = runner.Run(context.Background(), c)
	} else {
		res = scripts.Refused(refusal)
	}
	tool := name
	if sc != nil {
		tool = sc.Name
	}
	details := recorder.RunDetails{Description: "script " + tool}
	if cfg.Recording.CaptureEnv {
		details.Environment = a.capturedEnv(cfg.Recording.EnvAllowlist, c.Env.Overrides)
	}
	pending.Finish(recorder.RunEvent(&c, &res, details))
	_ = rec.Close("")
	a.logger().Debug("Script completed", "script", tool, "args", len(args), "timeout_seconds", c.Timeout.Seconds(),
		"working_directory", c.Dir, "session_id", rec.SessionID(), "duration_ms", res.Duration.Milliseconds(),
		"exit_code", exitStatus(&res))

	if refusal != nil {
		return a.scriptRefused(refusal, res)
	}
	if o := scripts.Outcome(&c, &res); o != nil {
		fmt.Fprintf(a.stderr, "cuff: %s\n", o.Message)
		if o.Hint != "" {
			fmt.Fprintf(a.stderr, "Hint: %s\n", scriptHintText(o.Hint))
		}
	}
	if code := exitStatus(&res); code != 0 {
		return &exitCodeError{code: code}
	}
	return nil
}

// scriptRefused prints why a script was not run and ends cuff with the
// status of such a failed start (127 not found, 126 not executable, 125).
func (a *app) scriptRefused(err error, res runner.Result) error {
	var se *scripts.Error
	if errors.As(err, &se) {
		printError(a.stderr, &scriptsHintError{msg: se.Message, hint: "Hint: " + scriptHintText(se.Hint)})
	} else {
		printError(a.stderr, err)
	}
	return &exitCodeError{code: exitStatus(&res)}
}

// scriptsHintError is a scripts problem with the way out.
type scriptsHintError struct{ msg, hint string }

func (e *scriptsHintError) Error() string { return e.msg }
func (e *scriptsHintError) Hint() string {
	if e.hint == "Hint: " {
		return ""
	}
	return e.hint
}

// scriptHintText upper-cases the first letter of a hint.
func scriptHintText(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// scriptPatternList writes patterns as a YAML flow list: ["scripts/*.sh", "*.sh"].
func scriptPatternList(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = fmt.Sprintf("%q", p)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// shortScriptName lets a script be run by the short name a person reads in
// 'cuff scripts list' — build for script_scripts_build (scripts/build.sh) —
// as well as by its tool name or path. A name that is neither, nor the
// short name of exactly one exposed script, goes to the runner as a tool
// name or a path, for it to refuse with its reason.
func shortScriptName(list []scripts.Info, name string) (string, error) {
	var hits []string
	for _, sc := range list {
		if sc.Name == name || sc.Path == name {
			return name, nil
		}
		base := strings.TrimSuffix(path.Base(sc.Path), path.Ext(sc.Path))
		if base == name || strings.TrimPrefix(sc.Name, "script_") == name || strings.HasSuffix(sc.Name, "_"+name) {
			hits = append(hits, sc.Name)
		}
	}
	switch len(hits) {
	case 0:
		if strings.HasPrefix(name, "script_") || strings.ContainsAny(name, "/.") {
			return name, nil // a tool name or a path: the runner says what is wrong with it
		}
		// A bare word is a name, not a path: the runner says no script has it
		// (Script not found: script_nope), rather than that no pattern
		// allows a file of that name.
		return "script_" + name, nil
	case 1:
		return hits[0], nil
	}
	return "", &usageError{msg: fmt.Sprintf("%q names %d scripts: %s", name, len(hits), strings.Join(hits, ", ")),
		hint: "Hint: Give the tool name or the path, as 'cuff scripts list' shows them"}
}
