package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/cuff-dev/cuff/recorder/sandbox"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

// sandboxFlags are `cuff sandbox`'s own flags.
type sandboxFlags struct {
	write   []string
	protect []string
	net     bool
	root    string
	shell   string
	cwdFD   int
	print   bool
}

func (a *app) sandboxCommand() *cobra.Command {
	f := &sandboxFlags{cwdFD: -1}
	cmd := &cobra.Command{
		Use:   "sandbox [--write PATH]... [--net] -- COMMAND [ARGS...]",
		Short: "Run a command inside the kernel sandbox (Landlock): it may write only the project, the temporary directory and build caches",
		Long: `Run a command, and every process it starts, inside a Landlock sandbox: it can
read everywhere but write only the project (the work tree), the temporary
directory, the build caches of Go, npm, pnpm, yarn, cargo, pip, Gradle and Maven,
the folders of sandbox.writable (user settings) and those given with --write.
It cannot connect to or listen on TCP ports unless --net is given. cuff's state,
~/.claude, ~/.codex, ~/.ssh, ~/.config and shell start-up files are never writable.
What the sandbox stops fails with a permission error (EACCES/EPERM).

cuff exits with the command's own exit code (125: the sandbox could not be set
up, and nothing was run; 126 not executable; 127 not found).`,
		Example: `  cuff sandbox -- go test ./...
  cuff sandbox --write ~/.cache/my-tool -- make
  cuff sandbox --print`,
		RunE: func(cmd *cobra.Command, args []string) error { return a.runSandbox(f, args) },
	}
	cmd.Flags().SetInterspersed(false)
	fl := cmd.Flags()
	fl.StringArrayVar(&f.write, "write", nil, "also make this file or folder writable (repeatable)")
	fl.BoolVar(&f.net, "net", false, "leave the network open")
	fl.BoolVar(&f.print, "print", false, "print what the sandbox lets the command write, and run nothing")
	fl.StringVar(&f.root, "root", "", "the work tree (default: the project that holds .cuff, or the git root)")
	fl.StringVar(&f.shell, "shell", "", "run this shell command line (with eval, as an agent's shell does) instead of an argv command")
	fl.IntVar(&f.cwdFD, "cwd-fd", -1, "with --shell: write the command line's last working directory to this file descriptor")
	fl.StringArrayVar(&f.protect, "protect", nil, "also keep this place read-only (repeatable)")
	_ = fl.MarkHidden("cwd-fd")
	_ = fl.MarkHidden("protect")
	return cmd
}

// sandboxFailed is cuff's own failure: nothing was run.
const sandboxFailed = 125

func (a *app) runSandbox(f *sandboxFlags, args []string) error {
	if !f.print && f.shell == "" && len(args) == 0 {
		return &usageError{msg: "missing the command to run", hint: "Usage: cuff sandbox [--write PATH]... [--net] -- COMMAND [ARGS...]"}
	}
	if f.shell != "" && len(args) > 0 {
		return &usageError{msg: "--shell takes the whole command line; do not also give a command",
			hint: fmt.Sprintf("Hint: cuff sandbox --shell %q", f.shell+" "+strings.Join(args, " "))}
	}
	if f.cwdFD >= 0 && f.shell == "" {
		return &usageError{msg: "--cwd-fd goes with --shell", hint: "Usage: cuff sandbox --shell 'COMMAND LINE' --cwd-fd 3"}
	}
	opts, err := a.sandboxOptions(f)
	if err != nil {
		return a.sandboxError(err)
	}
	st := sandbox.Probe(a.getenv)
	p, err := sandbox.New(opts)
	if err != nil {
		return a.sandboxError(err)
	}
	if f.print {
		a.printPolicy(p, st)
		return nil
	}
	if st.ABI == 0 {
		return a.sandboxError(&sandbox.UnavailableError{Reason: st.Reason})
	}
	if !st.Available() && !f.net {
		fmt.Fprintf(a.stderr, "cuff: warning: %s: this command can still use the network\n", st.Reason)
	}
	if f.shell != "" {
		return a.sandboxShell(p, st, f)
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		code := 127
		if errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EACCES) {
			code = 126
		}
		fmt.Fprintf(a.stderr, "cuff: %v\n", err)
		return &exitCodeError{code: code}
	}
	err = p.Exec(st, path, args, a.environ)
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOEXEC) {
		fmt.Fprintf(a.stderr, "cuff: %v\n", err)
		return &exitCodeError{code: 126}
	}
	return a.sandboxError(err)
}

// sandboxOptions are the policy's inputs: with --root, the flags alone (a
// caller such as cuff exec --sandbox or the Claude Code hook hands down its
// project's); otherwise the project found from the working directory.
func (a *app) sandboxOptions(f *sandboxFlags) (sandbox.Options, error) {
	var opts sandbox.Options
	if f.root == "" {
		ws, err := a.openWorkspace()
		if err != nil {
			return opts, err
		}
		opts = ws.SandboxOptions()
	} else {
		opts = sandbox.Options{Root: f.root, StateDir: a.stateDir(), Getenv: a.getenv}
	}
	opts.Write = append(opts.Write, f.write...)
	opts.Protect = append(opts.Protect, f.protect...)
	opts.Net = f.net
	return opts, nil
}

// sandboxError reports why nothing was run, and exits 125.
func (a *app) sandboxError(err error) error {
	printError(a.stderr, err)
	return &exitCodeError{code: sandboxFailed}
}

func (a *app) printPolicy(p *sandbox.Policy, st sandbox.Status) {
	w := a.stdout
	fmt.Fprintf(w, "kernel: %s\n", st)
	fmt.Fprintf(w, "work tree: %s\n", p.Root)
	fmt.Fprintln(w, "writable:")
	for _, g := range p.Writable {
		note := ""
		if g.Create {
			note = ", created on first use"
		}
		if g.Shared {
			note += "; shared: files and folders only, no links, sockets or pipes"
		}
		fmt.Fprintf(w, "  %s  (%s%s)\n", g.Path, g.Why, note)
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintln(w, "not writable:")
		for _, s := range p.Skipped {
			fmt.Fprintf(w, "  %s  (%s: %s)\n", s.Path, s.Why, s.Reason)
		}
	}
	fmt.Fprintln(w, "never writable:")
	for _, prot := range p.Protected {
		fmt.Fprintf(w, "  %s\n", prot)
	}
	switch {
	case p.Net:
		fmt.Fprintln(w, "network: open (--net)")
	case st.Available():
		fmt.Fprintln(w, "network: no TCP connect or bind")
	default:
		fmt.Fprintln(w, "network: open (the kernel cannot confine it)")
	}
}

// sandboxShell runs a shell command line inside the sandbox with cuff as its
// parent, the way an agent's shell would run it (eval), and afterwards
// writes the line's last working directory to --cwd-fd, so that a cd in it
// can move the caller's shell too (the Claude Code hook's rewrite relies on
// this).
func (a *app) sandboxShell(p *sandbox.Policy, st sandbox.Status, f *sandboxFlags) error {
	var report *os.File
	if f.cwdFD >= 0 {
		if _, err := unix.FcntlInt(uintptr(f.cwdFD), unix.F_GETFD, 0); err != nil {
			return &usageError{msg: fmt.Sprintf("--cwd-fd %d is not an open file descriptor", f.cwdFD),
				hint: "Hint: open it in the calling shell, e.g. 3>&1"}
		}
		unix.CloseOnExec(f.cwdFD) // the command and what it leaves running must not hold it
		report = os.NewFile(uintptr(f.cwdFD), "cwd report")
	}
	pwd, err := os.CreateTemp("", "cuff-cwd-*")
	if err != nil {
		return a.sandboxError(fmt.Errorf("sandbox: a file for the working directory: %w", err))
	}
	_ = pwd.Close()
	defer os.Remove(pwd.Name())
	shell := agentShell(a.getenv("SHELL"))
	script := "eval " + sandbox.Quote(f.shell) + "\n__cuff_status=$?\npwd -P >| " + sandbox.Quote(pwd.Name()) +
		" 2>/dev/null\nexit $__cuff_status\n"
	cmd := &exec.Cmd{Path: shell, Args: []string{shell, "-c", script}, Env: a.environ,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(signals)
	if err := p.Start(st, cmd); err != nil {
		return a.sandboxError(err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-signals:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	if report != nil {
		if dir, rerr := os.ReadFile(pwd.Name()); rerr == nil {
			if d := strings.TrimRight(string(dir), "\n"); filepath.IsAbs(d) {
				_, _ = report.WriteString(d)
			}
		}
		_ = report.Close()
	}
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return a.sandboxError(err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return &exitCodeError{code: 128 + int(ws.Signal())}
	}
	return &exitCodeError{code: ee.ExitCode()}
}

// agentShell is the shell that runs an agent's command line: the user's
// bash or zsh (as Claude Code uses), else bash.
func agentShell(userShell string) string {
	switch filepath.Base(userShell) {
	case "bash", "zsh":
		if filepath.IsAbs(userShell) {
			if _, err := os.Stat(userShell); err == nil {
				return userShell
			}
		}
	}
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}
