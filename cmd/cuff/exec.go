package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder"
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/recorder/sandbox"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/redact"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	"mvdan.cc/sh/v3/syntax"
)

// execFlags are `cuff exec`'s own flags.
type execFlags struct {
	timeout     string
	cwd         string
	env         []string
	shell       string
	verbose     bool
	description string
	sandbox     bool
	corr        recorder.Correlation
}

func (a *app) execCommand() *cobra.Command {
	f := &execFlags{}
	cmd := &cobra.Command{
		Use:   "exec [flags] [--] COMMAND [ARGS...]",
		Short: "Run a command and record it (argv by default; --shell for a shell script)",
		Long: `Run a command and record it in the current session: command, working directory,
exit code, stdout and stderr (head and tail kept when large), duration and resource usage.
cuff exits with the command's own exit code (124 timeout, 126 not executable, 127 not
found, 125 cuff's own failure, 128+N killed by signal N).

Flags come before the command: everything from the first argument that is not one of
cuff's flags on is the command (cuff exec ls -la works).`,
		Example: `  cuff exec go test ./...
  cuff exec --timeout 60 -- npm test
  cuff exec --cwd src --env NODE_ENV=test -- node app.js
  cuff exec --shell 'go test ./... | tee test.log'`,
		RunE: func(cmd *cobra.Command, args []string) error { return a.runExec(f, args) },
	}
	cmd.Flags().SetInterspersed(false)
	fl := cmd.Flags()
	fl.StringVar(&f.timeout, "timeout", "", "timeout in seconds or as a duration (90, 2m); default from settings (120 s)")
	fl.StringVar(&f.cwd, "cwd", "", "working directory (must lie inside the project)")
	fl.StringArrayVar(&f.env, "env", nil, "set an environment variable for the command, KEY=VALUE (repeatable)")
	fl.StringVar(&f.shell, "shell", "", "run this string as a shell script instead of an argv command")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "print the outcome (exit code, duration, session, truncation) on stderr")
	fl.StringVar(&f.description, "description", "", "what the command is for, kept in the record")
	fl.BoolVar(&f.sandbox, "sandbox", false, "run the command inside the kernel sandbox (see cuff sandbox --help)")
	fl.StringVar(&f.corr.RunID, "run-id", "", "correlation: run id (or $CUFF_RUN_ID)")
	fl.StringVar(&f.corr.TaskID, "task-id", "", "correlation: task id (or $CUFF_TASK_ID)")
	fl.StringVar(&f.corr.StepID, "step-id", "", "correlation: step id (or $CUFF_STEP_ID)")
	fl.StringVar(&f.corr.ToolCallID, "tool-call-id", "", "correlation: the agent's tool call id (or $CUFF_TOOL_CALL_ID)")
	fl.StringVar(&f.corr.AgentID, "agent-id", "", "correlation: agent instance id (or $CUFF_AGENT_ID)")
	fl.StringVar(&f.corr.ConversationID, "conversation-id", "", "groups runs into one session per conversation (or $CUFF_CONVERSATION_ID)")
	return cmd
}

// fillFromEnv takes correlation ids that were not given as flags from CUFF_* variables.
func (a *app) fillFromEnv(c *recorder.Correlation) {
	for _, p := range []struct {
		v   *string
		env string
	}{{&c.RunID, "CUFF_RUN_ID"}, {&c.TaskID, "CUFF_TASK_ID"}, {&c.StepID, "CUFF_STEP_ID"},
		{&c.ToolCallID, "CUFF_TOOL_CALL_ID"}, {&c.AgentID, "CUFF_AGENT_ID"}, {&c.ConversationID, "CUFF_CONVERSATION_ID"}} {
		if *p.v == "" {
			*p.v = a.getenv(p.env)
		}
	}
}

// parseTimeout reads 90, 90s, 2m.
func parseTimeout(s string) (time.Duration, error) {
	d, err := settings.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, &usageError{msg: fmt.Sprintf("--timeout %q is not a number of seconds or a duration", s),
			hint: "Hint: Use e.g. --timeout 90 or --timeout 2m"}
	}
	return d, nil
}

func (a *app) runExec(f *execFlags, args []string) error {
	if f.shell == "" && len(args) == 0 {
		return &usageError{msg: "missing the command to run", hint: "Hint: cuff exec [flags] -- COMMAND [ARGS...], or cuff exec --shell 'SCRIPT'"}
	}
	if f.shell != "" && len(args) > 0 {
		return &usageError{msg: "--shell takes the whole script; do not also give a command",
			hint: fmt.Sprintf("Hint: cuff exec --shell %q", f.shell+" "+strings.Join(args, " "))}
	}
	a.fillFromEnv(&f.corr)
	store, err := a.openStore()
	if err != nil {
		// Recording never stops a command: say why this run is not
		// recorded, and run it with the default settings.
		fmt.Fprintf(a.stderr, "cuff: warning: this run is not recorded: %v\n", err)
		fmt.Fprintf(a.stderr, "Hint: fix that, and runs are recorded again (cuff health checks the set-up)\n")
		a.logger().Warn("exec without recording", "error", err)
	}
	cfg := a.settings()
	if f.shell == "" && cfg.Execution.UseShell {
		// execution.use_shell: a command string goes through the shell; several
		// words are quoted, so that they reach the command as they were given.
		f.shell, args = shellLine(args), nil
	}
	if f.shell == "" && len(args) == 1 && strings.ContainsAny(args[0], " \t") {
		return &usageError{msg: fmt.Sprintf("%q is one argument with spaces: cuff runs commands as argv, not through a shell", args[0]),
			hint: fmt.Sprintf("Hint: cuff exec %s   or   cuff exec --shell %q   (or set execution.use_shell: true)", args[0], args[0])}
	}
	root, err := a.execRoot(store)
	if err != nil {
		return err
	}
	c := runner.Command{
		Root:           root,
		Dir:            f.cwd,
		Timeout:        cfg.Execution.DefaultTimeout,
		MaxTimeout:     cfg.Execution.MaxTimeout,
		Capture:        captureMode(cfg.Recording.CaptureOutput),
		MaxOutputBytes: int(cfg.Recording.MaxOutputSize),
		Redact:         a.outputRedact(cfg),
		Stdout:         os.Stdout,
		Stderr:         os.Stderr,
		Env:            runnerEnv(cfg.Execution.Environment),
		Limits:         runner.Limits{MemoryMB: cfg.Execution.Limits.MemoryMB, CPUSeconds: cfg.Execution.Limits.CPUSeconds},
	}
	if f.cwd == "" && cfg.Execution.WorkingDirectory != "" {
		c.Dir = cfg.Execution.WorkingDirectory
	}
	if f.shell != "" {
		c.Shell, c.Script = cfg.Execution.Shell, f.shell
	} else {
		c.Argv = args
	}
	if f.timeout != "" {
		if c.Timeout, err = parseTimeout(f.timeout); err != nil {
			return err
		}
	}
	for _, kv := range f.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return &usageError{msg: fmt.Sprintf("--env %q is not KEY=VALUE", kv), hint: "Hint: Use e.g. --env NODE_ENV=test"}
		}
		if c.Env.Overrides == nil {
			c.Env.Overrides = map[string]string{}
		}
		c.Env.Overrides[k] = v
	}
	var policy *sandbox.Policy
	if f.sandbox {
		if policy, err = a.sandboxFor(root, &c); err != nil {
			return a.sandboxError(err)
		}
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		c.Stdin = os.Stdin // a pipe or a file; a terminal stays with cuff
	}
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(interrupts)
	c.Interrupts = interrupts

	rec := recorder.New(recorder.Options{
		Store: store, Mode: string(cfg.Recording.SessionMode), Agent: "cuff-exec", Source: transcript.SourceExec,
		WorkingDirectory: root, CuffVersion: Version, Disabled: store == nil || !cfg.Recording.Enabled,
		StateDir: a.stateDir(), Warn: func(msg string) {
			fmt.Fprintf(a.stderr, "cuff: warning: %s\n", msg)
			a.logger().Warn(msg, "degraded", true)
		},
	})
	startDir := c.Dir
	if startDir == "" {
		startDir = root
	} else if !filepath.IsAbs(startDir) {
		startDir = filepath.Join(root, startDir)
	}
	pending := rec.Begin(f.corr, recorder.StartEvent(&c, startDir))
	res := runner.Run(context.Background(), c)
	details := recorder.RunDetails{Description: f.description}
	if cfg.Recording.CaptureEnv {
		details.Environment = a.capturedEnv(cfg.Recording.EnvAllowlist, c.Env.Overrides)
	}
	runEvent := recorder.RunEvent(&c, &res, details)
	if policy != nil && res.Started() {
		denials := policy.Denials(res.Dir, res.Stderr.Text, res.Stdout.Text)
		sandbox.Record(runEvent, denials)
		for _, d := range denials {
			fmt.Fprintf(a.stderr, "cuff: the sandbox stopped: %s\n", d)
		}
	}
	eventID := pending.Finish(runEvent)
	sessionID := rec.SessionID()
	_ = rec.Close("")
	sum := sha256.Sum256([]byte(c.String()))
	a.logger().Debug("Command executed", "session_id", sessionID, "entry_id", eventID,
		"trace_id", f.corr.ToolCallID, "command_hash", "sha256:"+hex.EncodeToString(sum[:8]),
		"duration_ms", res.Duration.Milliseconds(), "exit_code", exitStatus(&res))

	code := exitStatus(&res)
	if res.Err != nil && res.PID == 0 { // it never started: say why
		fmt.Fprintf(a.stderr, "cuff: %s\n", res.Err.Error())
		if res.Err.Hint != "" {
			fmt.Fprintf(a.stderr, "Hint: %s\n", res.Err.Hint)
		}
	} else if res.TimedOut {
		fmt.Fprintf(a.stderr, "cuff: timed out after %s; the command's process group was ended\n", report.Duration(c.Timeout))
	}
	if f.verbose {
		a.printOutcome(&res, code, sessionID, eventID)
	}
	if (code != 0 || f.verbose) && c.Env.Mode != runner.EnvReplace && len(res.EnvRemoved) > 0 {
		// A command that needs a token fails mysteriously without it: say
		// which variables it did not get, and why.
		fmt.Fprintf(a.stderr, "cuff: note: not passed to the command: %s (execution.environment.exclude_patterns; list a name under execution.environment.include to pass it)\n",
			namesList(res.EnvRemoved, maxNamesShown))
	}
	if code != 0 {
		return &exitCodeError{code: code}
	}
	return nil
}

// sandboxFor makes c run inside the sandbox of the project at root, and
// returns the policy it runs under. The sandbox must be available: an
// explicit --sandbox never runs a command unconfined.
func (a *app) sandboxFor(root string, c *runner.Command) (*sandbox.Policy, error) {
	opts := sandbox.Options{StateDir: a.stateDir(), Getenv: a.getenv}
	if a.ws != nil {
		opts = a.ws.SandboxOptions()
	}
	opts.Root = root
	st := sandbox.Probe(a.getenv)
	if st.ABI == 0 {
		return nil, &sandbox.UnavailableError{Reason: st.Reason}
	}
	p, err := sandbox.New(opts)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("sandbox: cannot find cuff's own program to run the sandbox: %w", err)
	}
	c.Wrap = opts.Wrapper(exe)
	return p, nil
}

// maxNamesShown bounds the names a note lists.
const maxNamesShown = 6

// namesList joins names, at most max of them, saying how many more there are.
func namesList(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

// capturedEnv is the allowlisted part of the command's environment.
func (a *app) capturedEnv(allow []string, overrides map[string]string) map[string]string {
	f, err := redact.NewEnvFilter(allow)
	if err != nil {
		fmt.Fprintf(a.stderr, "cuff: warning: env_allowlist: %v\n", err)
		return nil
	}
	env := append([]string(nil), a.environ...)
	for k, v := range overrides {
		env = append(env, k+"="+v)
	}
	return f.Filter(env)
}

// exitStatus is the code cuff exits with for a run: the command's own, or
// 124 timeout, 126 not executable, 127 not found, 125 cuff's failure, 128+N.
func exitStatus(res *runner.Result) int { return res.ExitStatus() }

func (a *app) printOutcome(res *runner.Result, code int, sessionID, eventID string) {
	w := a.stderr
	fmt.Fprintf(w, "── cuff: exit %d in %s", code, report.Duration(res.Duration))
	if res.Usage.MaxRSSKB > 0 {
		fmt.Fprintf(w, ", max RSS %s", report.Bytes(res.Usage.MaxRSSKB*1024))
	}
	if res.Started() {
		fmt.Fprintf(w, ", cpu %dms user %dms sys", res.Usage.UserMS, res.Usage.SysMS)
	}
	fmt.Fprintln(w)
	for _, s := range []struct {
		name string
		out  runner.Output
	}{{"stdout", res.Stdout}, {"stderr", res.Stderr}} {
		if s.out.Truncated {
			fmt.Fprintf(w, "   %s: %s written, %s kept (head and tail), %s left out\n", s.name,
				report.Bytes(s.out.OriginalBytes), report.Bytes(s.out.KeptBytes), report.Bytes(s.out.OmittedBytes))
		}
	}
	if eventID != "" {
		fmt.Fprintf(w, "   recorded as %s in session %s\n", eventID, sessionID)
	} else {
		fmt.Fprintln(w, "   not recorded")
	}
}

// shellLine is the shell script for a command line: one argument is the
// script itself; several are quoted word by word.
func shellLine(args []string) string {
	if len(args) == 1 {
		return args[0]
	}
	words := make([]string, len(args))
	for i, a := range args {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil { // a word bash cannot quote (a NUL byte): keep it as given
			q = a
		}
		words[i] = q
	}
	return strings.Join(words, " ")
}

// execRoot is the folder commands must stay inside: the project's (the
// folder holding the store), else, with no usable store, the working
// directory.
func (a *app) execRoot(store *session.Store) (string, error) {
	if store != nil {
		return filepath.Dir(store.Dir), nil
	}
	if a.cwd != "" {
		return a.cwd, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	return wd, nil
}
