package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/cuff-dev/cuff/cmd/cuff/internal/report"
	"github.com/cuff-dev/cuff/internal/applog"
	"github.com/cuff-dev/cuff/internal/workspace"
	"github.com/cuff-dev/cuff/recorder/claudehook"
	"github.com/spf13/cobra"
)

// maxHookInput bounds what `cuff hook claude` reads from stdin.
const maxHookInput = 64 << 20

// hookGrace is how much longer than the approval timeout Claude Code lets
// the gate hook run, so it never gives up while a person decides.
const hookGrace = 60 * time.Second

func (a *app) hookCommand() *cobra.Command {
	hook := &cobra.Command{
		Use:   "hook",
		Short: "Agent hooks: record and gate what Claude Code does",
	}
	hook.AddCommand(&cobra.Command{
		Use:   "claude",
		Short: "Claude Code hook entry point: reads any hook event on stdin",
		Long: `Claude Code runs this for each hook event (install it with 'cuff hook install claude').
It records prompts, assistant text, tool calls, Bash runs and delegations, and answers
PreToolUse for Bash with cuff's gate: allow, deny, or ask a person in cuff's TUI.
It never breaks the agent: on an internal error it exits 0 without a decision. When it
cannot read the project's settings or policy, a shell command gets "ask" with the reason.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.runClaudeHook(cmd.Context())
			return nil
		},
	})
	var user, project, local bool
	install := &cobra.Command{
		Use:   "install claude",
		Short: "Add cuff's hooks to Claude Code's settings.json, keeping what is there",
		Long: `Adds cuff's hooks to a Claude Code settings file, keeping every other setting and hook.
The hook runs this cuff by its absolute path (Claude Code's PATH may not hold it): after
moving or deleting cuff, run this again, or the hooks fail and commands go ungated.
A copy of the file as it was is kept in cuff's state directory.`,
		Example: `  cuff hook install claude            # this project's .claude/settings.json (shared with the team)
  cuff hook install claude --local    # .claude/settings.local.json: this project, only you
  cuff hook install claude --user     # ~/.claude/settings.json, for every project`,
		Args: exactArgs(1, "the agent (claude)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "claude" {
				return &usageError{msg: fmt.Sprintf("cuff has hooks for claude only, not %q", args[0]),
					hint: "Hint: For other agents use 'cuff mcp' (see docs/agents.md)"}
			}
			n := 0
			for _, set := range []bool{user, project, local} {
				if set {
					n++
				}
			}
			if n > 1 {
				return &usageError{msg: "--user, --project and --local exclude each other", hint: "Hint: Give one of them"}
			}
			where := "project"
			switch {
			case user:
				where = "user"
			case local:
				where = "local"
			}
			return a.installClaudeHooks(where)
		},
	}
	install.Flags().BoolVar(&user, "user", false, "install for every project (~/.claude/settings.json)")
	install.Flags().BoolVar(&project, "project", false, "install for this project (.claude/settings.json, shared with the team; the default)")
	install.Flags().BoolVar(&local, "local", false, "install for this project, only for you (.claude/settings.local.json, not committed)")
	hook.AddCommand(install)
	return hook
}

// runClaudeHook handles one hook event. Whatever goes wrong is logged and
// swallowed: an error must never block or break the agent.
func (a *app) runClaudeHook(ctx context.Context) {
	var in *claudehook.Input
	defer func() {
		if r := recover(); r != nil {
			a.hookLog().Error("hook panic", "panic", fmt.Sprint(r))
			if in != nil { // fail closed: a shell command asks
				if b := claudehook.CheckFailure(in, fmt.Errorf("cuff failed while checking it (%v); the project's log has the details", r)).Marshal(); b != nil {
					_, _ = a.stdout.Forward.Write(b)
				}
			}
		}
	}()
	data, over, err := claudehook.ReadInput(a.stdin, maxHookInput)
	if err != nil {
		a.hookLog().Error("hook: read stdin", "error", err, "limit_bytes", maxHookInput)
		return
	}
	in, err = claudehook.Parse(data)
	if err != nil {
		a.hookLog().Error("hook: bad input", "error", err, "input_bytes", len(data))
		return
	}
	if a.dir == "" && a.getenv("CUFF_DIR") == "" {
		if d := a.getenv("CLAUDE_PROJECT_DIR"); d != "" {
			a.cwd = d
		} else if in.Cwd != "" {
			a.cwd = in.Cwd
		}
	}
	h, timeout, err := a.claudeHandler(in)
	if over != nil { // said in the project's log, now that the payload named the project
		a.hookLog().Warn(fmt.Sprintf("hook: the %s payload was %d bytes, over the limit of %d bytes (%d MB): %d of its strings were cut to fit, and what fits is recorded",
			in.HookEventName, over.Bytes, maxHookInput, maxHookInput>>20, over.Strings),
			"event", in.HookEventName, "session_id", in.SessionID, "input_bytes", over.Bytes, "limit_bytes", maxHookInput)
	}
	if err != nil {
		a.hookLog().Error("hook: set-up", "error", err, "event", in.HookEventName)
		if b := claudehook.SetupFailure(in, err).Marshal(); b != nil {
			_, _ = a.stdout.Forward.Write(b) // fail closed: a shell command asks
		}
		return
	}
	// Claude Code ends a hook that runs too long (and the user can cancel
	// the turn): end cleanly then, so a pending approval is withdrawn and
	// recorded as denied rather than left for someone to approve later.
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := h.Handle(ctx, in)
	if err != nil {
		a.logger().Error("hook: handle", "error", err, "event", in.HookEventName, "session_id", in.SessionID)
	}
	if b := out.Marshal(); b != nil {
		_, _ = a.stdout.Forward.Write(b)
	}
}

// hookLog is the project's log once the store is known; before that (input
// that cannot be read names no project) the per-user state directory's.
func (a *app) hookLog() *slog.Logger {
	if a.store != nil {
		return a.logger()
	}
	return applog.Open(a.stateDir(), a.getenv("CUFF_LOG_LEVEL")).Logger
}

// claudeHandler builds the hook handler from the project's settings and
// policy, and how long one call may take.
func (a *app) claudeHandler(in *claudehook.Input) (*claudehook.Handler, time.Duration, error) {
	ws, err := a.openWorkspace()
	if err != nil {
		return nil, 0, err
	}
	g, err := ws.Gate(in.Cwd)
	if err != nil {
		return nil, 0, err
	}
	b, err := ws.Broker()
	if err != nil {
		return nil, 0, err
	}
	cfg := ws.Settings
	opts := claudehook.Options{Store: ws.Store, Gate: g, Broker: b, StateDir: b.Dir, RedactText: a.outputRedact(ws.Settings),
		NoWatcher: string(cfg.Approvals.NoWatcher), CuffVersion: Version, MaxOutput: int(cfg.Recording.MaxOutputSize),
		AllowAnswer: string(cfg.Gate.AllowAnswer), TrustNote: ws.TrustNote()}
	if (in.HookEventName == claudehook.EventPreToolUse || in.HookEventName == claudehook.EventPostToolUse ||
		in.HookEventName == claudehook.EventPostToolUseFailure) && (in.ToolName == "Bash" || in.ToolName == "PowerShell") {
		opts.Sandbox, opts.SandboxRequired = a.hookSandbox(ws)
	}
	h := claudehook.New(opts)
	return h, cfg.Approvals.Timeout + hookGrace/2, nil
}

// hookSandbox is how the hook confines the commands it allows: rewritten to
// run through this same program's cuff sandbox with the project's policy
// handed down. Without a sandbox it says why, when gate.sandbox requires one.
func (a *app) hookSandbox(ws *workspace.Workspace) (*claudehook.Sandbox, string) {
	setup := ws.Sandbox()
	exe, err := os.Executable()
	if !setup.On() || err != nil {
		if setup.Required() {
			return nil, setup.Reason()
		}
		return nil, ""
	}
	opts := ws.SandboxOptions()
	return &claudehook.Sandbox{Policy: setup.Policy, Wrap: func(command string) string { return opts.ShellWrap(exe, command) },
		Rules: func() []claudehook.Rule {
			return claudehook.PermissionRules(a.claudeSettingsFiles(ws), ancestorCmdlines())
		}}, ""
}

// claudeSettingsFiles are the settings files whose permission rules Claude
// Code applies in this project: managed, user, project and local.
func (a *app) claudeSettingsFiles(ws *workspace.Workspace) []string {
	files := []string{"/etc/claude-code/managed-settings.json"}
	dir := a.getenv("CLAUDE_CONFIG_DIR")
	if dir == "" && a.getenv("HOME") != "" {
		dir = filepath.Join(a.getenv("HOME"), ".claude")
	}
	if dir != "" {
		files = append(files, filepath.Join(dir, "settings.json"))
	}
	for _, proj := range []string{a.getenv("CLAUDE_PROJECT_DIR"), a.cwd, ws.Root()} {
		if proj != "" {
			files = append(files, filepath.Join(proj, ".claude", "settings.json"), filepath.Join(proj, ".claude", "settings.local.json"))
		}
	}
	return files
}

// ancestorCmdlines are the command lines of the processes above this one
// (Claude Code runs the hook through a shell), for the permission rules
// given on Claude Code's own command line. Linux only; elsewhere none.
func ancestorCmdlines() [][]string {
	var out [][]string
	pid := os.Getppid()
	for range 4 {
		if pid <= 1 {
			break
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			break
		}
		out = append(out, strings.Split(strings.TrimRight(string(data), "\x00"), "\x00"))
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			break
		}
		// The parent is the fourth field, after the command name in parentheses.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 {
			break
		}
		if _, err := fmt.Sscan(fields[1], &pid); err != nil {
			break
		}
	}
	return out
}

// hookCommandPath is how settings.json runs cuff: always by an absolute
// path, since Claude Code's PATH may lack cuff (a bare "cuff" would fail
// with 127 and leave every command ungated). The path on PATH is kept when
// it is this binary (a link there survives upgrades), else this binary's.
func hookCommandPath() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find cuff's own path for the hook: %w", err)
	}
	resolved, err := filepath.EvalSymlinks(self)
	if err != nil {
		resolved = self
	}
	if onPath, err := exec.LookPath("cuff"); err == nil {
		if abs, err := filepath.Abs(onPath); err == nil {
			if r, err := filepath.EvalSymlinks(abs); err == nil && r == resolved {
				return abs, nil
			}
		}
	}
	return resolved, nil
}

func (a *app) installClaudeHooks(where string) error {
	var path string
	if where == "user" {
		dir := a.getenv("CLAUDE_CONFIG_DIR")
		if dir == "" {
			home := a.getenv("HOME")
			if home == "" {
				return errors.New("cannot find your home directory: set HOME or CLAUDE_CONFIG_DIR")
			}
			dir = filepath.Join(home, ".claude")
		}
		path = filepath.Join(dir, "settings.json")
	} else {
		s, err := a.openStore()
		if err != nil {
			return err
		}
		name := "settings.json"
		if where == "local" {
			name = "settings.local.json"
		}
		path = filepath.Join(filepath.Dir(s.Dir), ".claude", name)
	}
	self, err := hookCommandPath()
	if err != nil {
		return err
	}
	timeout := a.settings().Approvals.Timeout + hookGrace
	res, err := claudehook.Install(claudehook.InstallOptions{SettingsPath: path, Command: self,
		GateTimeout: timeout, BackupDir: filepath.Join(a.stateDir(), "backups"), Now: time.Now()})
	if err != nil {
		return err
	}
	if !res.Changed() {
		fmt.Fprintf(a.stdout, "cuff's hooks are already in %s; nothing changed.\n", path)
		return nil
	}
	if len(res.Added) > 0 {
		fmt.Fprintf(a.stdout, "Added cuff's hook to %s in %s: %s\n", report.Plural(int64(len(res.Added)), "event"), path, strings.Join(res.Added, ", "))
	}
	if len(res.Updated) > 0 {
		fmt.Fprintf(a.stdout, "Updated cuff's hook for %s in %s: %s\n", report.Plural(int64(len(res.Updated)), "event"), path, strings.Join(res.Updated, ", "))
	}
	if res.Backup != "" {
		fmt.Fprintf(a.stdout, "The previous file is kept as %s\n", res.Backup)
	}
	fmt.Fprintf(a.stdout, "The hook runs %s: if you move or delete it, the hook fails and commands go ungated;\n"+
		"run 'cuff hook install claude' again after moving it.\n", self)
	fmt.Fprintf(a.stdout, "The Bash gate waits up to %s for your answer in 'cuff' (approvals.timeout + 60 s).\n"+
		"Restart Claude Code (or run /hooks) to load them, and keep 'cuff' open in a split pane to approve commands.\n",
		timeout)
	return nil
}
