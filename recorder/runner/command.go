package runner

import (
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Defaults used when a Command leaves a field at its zero value.
const (
	DefaultTimeout        = 120 * time.Second
	DefaultKillGrace      = 250 * time.Millisecond
	DefaultDrainTimeout   = 200 * time.Millisecond
	DefaultMaxOutputBytes = 1_000_000
)

// Bounds on what a Command may ask for.
const (
	maxMemoryMB   = 1 << 20       // 1 TiB of address space
	maxCPUSeconds = 7 * 24 * 3600 // a week of CPU time
	maxKillGrace  = 10 * time.Second
	maxOutputCap  = 1 << 30 // 1 GiB kept per stream
)

// CaptureMode chooses which output streams are kept in the Result.
type CaptureMode string

// Capture modes. A stream that is not captured is still streamed to its live writer.
const (
	CaptureAll    CaptureMode = "all"
	CaptureStdout CaptureMode = "stdout"
	CaptureStderr CaptureMode = "stderr"
	CaptureNone   CaptureMode = "none"
)

func (m CaptureMode) stdout() bool { return m == "" || m == CaptureAll || m == CaptureStdout }
func (m CaptureMode) stderr() bool { return m == "" || m == CaptureAll || m == CaptureStderr }

// Limits are optional resource limits on the child (0 means no limit). They are set
// with prlimit as soon as the child has started, so they hold for all but its first
// instructions and for every process it starts. Linux only.
type Limits struct {
	MemoryMB   int // address-space limit in MiB
	CPUSeconds int // CPU time; the child gets SIGXCPU, then SIGKILL one second later
}

// Command is one validated unit of work: what to run, where, with which environment and
// within which bounds. The zero values of optional fields mean the documented defaults.
type Command struct {
	// Argv is the executable and its arguments (argv mode, the default). Argv[0] is
	// looked up on the PATH of the child's environment unless it contains a slash.
	Argv []string
	// Shell, when set, selects shell mode: Script is run as Shell -c Script. Argv must
	// then be empty.
	Shell  string
	Script string

	// Wrap, when set, is a program (absolute path) and arguments that the
	// command is handed to, such as cuff sandbox … --: the child runs Wrap
	// followed by the resolved executable and its arguments. The Result and
	// the recording still show the command itself.
	Wrap []string

	// Dir is the working directory; relative paths are taken from Root. Empty means Root,
	// or the current directory when Root is empty.
	Dir string
	// Root, when set, is the directory Dir must lie inside after symlinks are resolved.
	Root string
	Env  Env

	Timeout    time.Duration // 0 means DefaultTimeout
	MaxTimeout time.Duration // when > 0, a longer Timeout is rejected
	// KillGrace is how long the process group gets between SIGTERM and SIGKILL.
	KillGrace time.Duration
	// DrainTimeout is how long output is still read after the command exits while other
	// processes hold its pipes, before those processes are ended.
	DrainTimeout time.Duration
	// LeaveBackground keeps processes of the group that outlive the command running;
	// by default they are ended (SIGTERM, then SIGKILL) once the command exits.
	LeaveBackground bool
	Limits          Limits

	Capture        CaptureMode // "" means all
	MaxOutputBytes int         // bytes kept per stream, head and tail; 0 means the default
	// Redact, when set, removes secrets from captured output before it is cut to
	// MaxOutputBytes, so that a secret across a cut is replaced whole rather than
	// kept in part (the recording is redacted again as it is written).
	Redact func(string) string

	Stdin io.Reader // nil means /dev/null
	// Stdout and Stderr optionally receive a live copy of the child's output. They are
	// written from the goroutines that read the pipes and must not block for good.
	Stdout io.Writer
	Stderr io.Writer
	// Interrupts, when set, receives signals (typically SIGINT from Ctrl+C) that are
	// forwarded to the child's process group; the result is then marked Interrupted.
	Interrupts <-chan os.Signal
}

// ShellMode reports whether the command runs through a shell.
func (c *Command) ShellMode() bool { return c.Shell != "" }

// String renders the command for display and recording: the script in shell mode,
// otherwise the argv quoted so that a shell would split it back the same way.
func (c *Command) String() string {
	if c.ShellMode() {
		return c.Script
	}
	parts := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		parts[i] = quoteWord(a)
	}
	return strings.Join(parts, " ")
}

func quoteWord(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return strconv.Quote(s)
	}
	return q
}

// execArgv is the argv the child receives.
func (c *Command) execArgv() []string {
	if c.ShellMode() {
		return []string{c.Shell, "-c", c.Script}
	}
	return c.Argv
}

func (c *Command) timeout() time.Duration {
	if c.Timeout == 0 {
		return DefaultTimeout
	}
	return c.Timeout
}

func (c *Command) killGrace() time.Duration {
	if c.KillGrace == 0 {
		return DefaultKillGrace
	}
	return c.KillGrace
}

func (c *Command) drainTimeout() time.Duration {
	if c.DrainTimeout == 0 {
		return DefaultDrainTimeout
	}
	return c.DrainTimeout
}

func (c *Command) maxOutput() int {
	if c.MaxOutputBytes == 0 {
		return DefaultMaxOutputBytes
	}
	return c.MaxOutputBytes
}

// checkStatic validates everything that does not need the file system.
func (c *Command) checkStatic() *Error {
	if err := c.checkProgram(); err != nil {
		return err
	}
	if err := c.checkDurations(); err != nil {
		return err
	}
	if err := c.checkBounds(); err != nil {
		return err
	}
	if strings.ContainsRune(c.Dir, 0) || strings.ContainsRune(c.Root, 0) {
		return invalid("working_dir", "remove the NUL byte", "working directory contains a NUL byte")
	}
	return c.Env.check()
}

func (c *Command) checkProgram() *Error {
	if c.ShellMode() {
		if len(c.Argv) > 0 {
			return invalid("argv", "give either an argv or a shell script, not both",
				"shell mode takes a script, but an argv was given too")
		}
		if strings.ContainsRune(c.Script, 0) {
			return invalid("script", "remove the NUL byte from the script", "script contains a NUL byte")
		}
		return checkExecutableName("shell", c.Shell)
	}
	if c.Script != "" {
		return invalid("shell", "set the shell (e.g. /bin/bash) to run a script",
			"a script was given without a shell")
	}
	if len(c.Argv) == 0 {
		return invalid("executable", "give the program to run, e.g. [\"ls\", \"-la\"]",
			"no executable given")
	}
	if err := checkExecutableName("executable", c.Argv[0]); err != nil {
		return err
	}
	for i, a := range c.Argv[1:] {
		if strings.ContainsRune(a, 0) {
			return invalid("argv["+strconv.Itoa(i+1)+"]", "remove the NUL byte; arguments cannot carry one",
				"argument %d contains a NUL byte", i+1)
		}
	}
	return nil
}

// shellMeta are characters a shell would interpret. An executable name holding one is
// almost always a shell command passed in argv mode by mistake.
const shellMeta = "|&;<>()$`\\\"'*?[]{}!#~\n\r\t"

// checkExecutableName rejects empty names, NUL and control bytes, and shell
// metacharacters. A space is accepted only inside a path (a name with a slash).
func checkExecutableName(field, name string) *Error {
	if strings.TrimSpace(name) == "" {
		return invalid(field, "give the program to run, e.g. \"ls\" or \"/usr/bin/ls\"",
			"%s is empty", field)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return invalid(field, "remove control characters from the name",
				"%s %q contains a control character", field, name)
		}
	}
	if i := strings.IndexAny(name, shellMeta); i >= 0 {
		return invalid(field, "pass arguments as separate argv entries, or use shell mode for shell syntax",
			"%s %q contains the shell metacharacter %q", field, name, name[i])
	}
	if !strings.Contains(name, "/") && strings.ContainsRune(name, ' ') {
		return invalid(field, "pass arguments as separate argv entries, or use shell mode for shell syntax",
			"%s %q contains a space; it looks like a whole command line", field, name)
	}
	return nil
}

func (c *Command) checkDurations() *Error {
	if c.Timeout < 0 {
		return invalid("timeout", "give a positive timeout, or 0 for the default",
			"timeout %s is negative", c.Timeout)
	}
	if c.MaxTimeout < 0 {
		return invalid("max_timeout", "give a positive maximum, or 0 for none",
			"maximum timeout %s is negative", c.MaxTimeout)
	}
	if c.MaxTimeout > 0 && c.timeout() > c.MaxTimeout {
		return invalid("timeout", "ask for a shorter timeout or raise execution.max_timeout",
			"timeout %s exceeds the maximum of %s", c.timeout(), c.MaxTimeout)
	}
	if c.KillGrace < 0 || c.KillGrace > maxKillGrace {
		return invalid("kill_grace", "give a grace period between 0 and 10s",
			"kill grace %s is out of range", c.KillGrace)
	}
	if c.DrainTimeout < 0 || c.DrainTimeout > maxKillGrace {
		return invalid("drain_timeout", "give a drain timeout between 0 and 10s",
			"drain timeout %s is out of range", c.DrainTimeout)
	}
	return nil
}

func (c *Command) checkBounds() *Error {
	switch c.Capture {
	case "", CaptureAll, CaptureStdout, CaptureStderr, CaptureNone:
	default:
		return invalid("capture", "use one of all, stdout, stderr, none",
			"unknown capture mode %q", c.Capture)
	}
	if c.MaxOutputBytes < 0 || c.MaxOutputBytes > maxOutputCap {
		return invalid("max_output_size", "give a size between 1 and 1073741824 bytes, or 0 for the default",
			"output limit %d is out of range", c.MaxOutputBytes)
	}
	if c.Limits.MemoryMB < 0 || c.Limits.MemoryMB > maxMemoryMB {
		return invalid("limits.memory_mb", "give a memory limit between 1 and 1048576 MiB, or none",
			"memory limit %d MiB is out of range", c.Limits.MemoryMB)
	}
	if c.Limits.CPUSeconds < 0 || c.Limits.CPUSeconds > maxCPUSeconds {
		return invalid("limits.cpu_seconds", "give a CPU limit between 1 and 604800 seconds, or none",
			"CPU limit %d s is out of range", c.Limits.CPUSeconds)
	}
	return nil
}
