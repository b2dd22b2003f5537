package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/cuff-dev/cuff/internal/applog"
	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/internal/workspace"
	"github.com/cuff-dev/cuff/recorder/mcpserver"
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/recorder/sandbox"
	"github.com/spf13/cobra"
)

// mcpCommand is `cuff mcp`, the MCP server on stdio.
func (a *app) mcpCommand() *cobra.Command {
	var sep string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "MCP server on stdio: a recorded, gated bash tool and the project's scripts as tools",
		Long: `Serve the Model Context Protocol on stdin/stdout for agents without hooks (Cursor,
Codex, custom agents). Tools: bash_recorder.execute (run a bash command: gated, recorded),
bash_recorder.session_info, bash_recorder.list_recent, bash_recorder.health, and one
script_<name> tool per script exposed by scripts.patterns (plus script_list_scripts).

A command the gate asks about waits until someone approves it in a running cuff TUI (or with
'cuff approve'); with no TUI watching it is denied at once (approvals.mcp_no_watcher). Commands
get stdin from /dev/null and their output is captured, never written to stdout, which belongs
to the protocol. The project is --dir, else the client's first root, else the working
directory. Changes to .cuff/settings.yml and .cuff/policy.yml apply while the server runs.
The session ends with status shutdown when the client disconnects or on SIGTERM.`,
		Example: `  claude mcp add cuff -- cuff mcp
  cuff mcp --tool-separator _      # bash_recorder_execute, for clients that reject dots`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runMCP(sep) },
	}
	cmd.Flags().StringVar(&sep, "tool-separator", "", `"." (bash_recorder.execute) or "_" (bash_recorder_execute) for clients that accept no dots in tool names; default $CUFF_MCP_TOOL_SEPARATOR, else "."`)
	return cmd
}

func (a *app) runMCP(sep string) error {
	if sep == "" {
		sep = a.getenv("CUFF_MCP_TOOL_SEPARATOR")
	}
	if sep != "" && sep != mcpserver.SeparatorDot && sep != mcpserver.SeparatorUnderscore {
		return &usageError{msg: fmt.Sprintf("--tool-separator %q is not . or _", sep),
			hint: "Hint: Use --tool-separator _ for clients that reject dots in tool names"}
	}
	explicit := a.dir
	if explicit == "" {
		explicit = a.getenv("CUFF_DIR")
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	logs := &mcpLogs{level: a.getenv("CUFF_LOG_LEVEL"), open: map[string]*applog.Log{}, ignored: map[string]bool{},
		warn: func(msg string) { fmt.Fprintf(a.stderr, "cuff mcp: warning: %s\n", msg) }}
	defer logs.close()
	srv, err := mcpserver.New(mcpserver.Options{
		Version: Version, Dir: explicit, WorkDir: cwd, StateDir: a.stateDir(), Home: a.getenv("HOME"),
		ToolSeparator: sep,
		Open:          func(dir string) (*mcpserver.Project, error) { return a.openMCPProject(dir, logs) },
		Command:       mcpCommandBase,
		CapturedEnv:   a.capturedEnv,
		Sandbox:       a.mcpSandbox,
		Warn:          func(msg string) { fmt.Fprintf(a.stderr, "cuff mcp: warning: %s\n", msg) },
	})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	// A client that went away must not kill cuff with SIGPIPE before the
	// session is finalized: writes to the closed pipe fail instead.
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	// The process's own stdin and stdout: a.stdout rewrites escape codes,
	// which the protocol must keep.
	return srv.ServeStdio(ctx, os.Stdin, os.Stdout)
}

// openMCPProject opens the store in the .cuff directory dir the way every
// command does (settings, recordings directory, redaction), for the MCP
// server, which opens it again whenever the settings change.
func (a *app) openMCPProject(dir string, logs *mcpLogs) (*mcpserver.Project, error) {
	b := &app{stdin: a.stdin, stdout: a.stdout, stderr: a.stderr, environ: a.environ, dir: dir}
	s, err := b.openStore()
	if err != nil {
		return nil, err
	}
	log := logs.get(s.Dir)
	s.Warn = func(msg string) {
		fmt.Fprintf(a.stderr, "cuff mcp: warning: %s\n", msg)
		log.Warn(msg)
	}
	s.Created = func(dir string) { logs.ignore(dir, s.Warn) }
	p := &mcpserver.Project{Store: s, Settings: b.settings(), Log: log, Protected: b.ws.Protected()}
	if _, trusted, err := b.ws.Policies(); err == nil {
		p.TrustedPolicy = trusted
	}
	return p, nil
}

// mcpCommandBase is the start of every command the MCP server runs: the
// environment, capture, output limit and resource limits of the settings.
func mcpCommandBase(cfg *settings.Settings) runner.Command {
	return runner.Command{
		Env:            runnerEnv(cfg.Execution.Environment),
		Capture:        captureMode(cfg.Recording.CaptureOutput),
		MaxOutputBytes: int(cfg.Recording.MaxOutputSize),
		Redact:         outputRedactor(cfg),
		Limits:         runner.Limits{MemoryMB: cfg.Execution.Limits.MemoryMB, CPUSeconds: cfg.Execution.Limits.CPUSeconds},
	}
}

// mcpLogs keeps one log per store the server opened.
type mcpLogs struct {
	mu      sync.Mutex
	level   string
	open    map[string]*applog.Log
	ignored map[string]bool // stores added to .gitignore
	warn    func(string)
}

func (l *mcpLogs) get(dir string) *slog.Logger {
	l.mu.Lock()
	defer l.mu.Unlock()
	lg, ok := l.open[dir]
	if !ok {
		lg = applog.Open(dir, l.level)
		lg.OnCreate(func(dir string) { l.ignore(dir, l.warn) })
		l.open[dir] = lg
	}
	return lg.Logger
}

func (l *mcpLogs) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, lg := range l.open {
		lg.Close()
	}
}

// ignore adds a .cuff directory that the server just created (for its
// first recording or log message) at the root of a git work tree to its
// .gitignore, as cuff init does, so that recordings are not committed by
// accident. It does so once per directory.
func (l *mcpLogs) ignore(dir string, warn func(string)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ignored[dir] {
		return
	}
	l.ignored[dir] = true
	root := filepath.Dir(dir)
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		return // not a work tree's root: nothing to ignore it in
	}
	if _, err := initGitignore(root, dir); err != nil {
		warn(err.Error())
	}
}

// mcpSandbox is how cuff mcp confines a project's allowed commands: through
// this same program's cuff sandbox, with the project's policy handed down.
func (a *app) mcpSandbox(root string, cfg *settings.Settings) mcpserver.Sandbox {
	opts := workspace.SandboxOptions(root, a.stateDir(), cfg, a.getenv)
	sb := mcpserver.Sandbox{Setup: sandbox.Resolve(string(cfg.Gate.Sandbox), sandbox.Probe(a.getenv), opts)}
	if exe, err := os.Executable(); err == nil {
		sb.Wrap = opts.Wrapper(exe)
	}
	return sb
}
