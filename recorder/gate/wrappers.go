package gate

import (
	"strings"
)

// wrapSpec describes a program that runs another command given after its
// own options and operands.
type wrapSpec struct {
	short string   // short options that take a value
	long  []string // long options that take a value
	// operands is how many operands come before the command (timeout's
	// duration, chroot's directory).
	operands int
	// script: the command is the remaining words joined into a shell
	// script, as watch does.
	script bool
	// opaque: the gate does not know the options; look for a known program
	// among the words instead.
	opaque bool
	what   string // what the wrapper does, for the explanation
}

func wrapSpecFor(name string) wrapSpec {
	switch name {
	case "timeout":
		return wrapSpec{short: "sk", long: []string{"signal", "kill-after"}, operands: 1, what: "runs a command with a time limit"}
	case "nice":
		return wrapSpec{short: "n", long: []string{"adjustment"}, what: "runs a command at another priority"}
	case "nohup":
		return wrapSpec{what: "runs a command immune to hangups"}
	case "setsid":
		return wrapSpec{what: "runs a command in a new session"}
	case "stdbuf":
		return wrapSpec{short: "ioe", long: []string{"input", "output", "error"}, what: "runs a command with other buffering"}
	case "ionice":
		return wrapSpec{short: "cnp", long: []string{"class", "classdata", "pid"}, what: "runs a command at another I/O priority"}
	case "time":
		return wrapSpec{short: "fo", long: []string{"format", "output"}, what: "times a command"}
	case "chrt":
		return wrapSpec{short: "T", long: []string{"sched-runtime", "sched-deadline", "sched-period"}, operands: 1, what: "runs a command with another scheduling policy"}
	case "taskset":
		return wrapSpec{operands: 1, what: "runs a command on chosen CPUs"}
	case "flock":
		return wrapSpec{short: "wEc", long: []string{"timeout", "wait", "conflict-exit-code", "command"}, operands: 1, what: "runs a command holding a lock"}
	case "caffeinate":
		return wrapSpec{short: "tw", what: "runs a command keeping the machine awake"}
	case "strace", "ltrace":
		return wrapSpec{short: "eoOpPsSuUEXIabAnlL", long: []string{"output", "expr", "trace", "attach", "user", "env", "signal"}, what: "traces a command"}
	case "faketime":
		return wrapSpec{short: "m", operands: 1, what: "runs a command with a fake clock"}
	case "xvfb-run":
		return wrapSpec{short: "nsfeplw", long: []string{"server-num", "server-args", "auth-file", "error-file", "xauth-protocol", "wait"}, what: "runs a command with a virtual display"}
	case "ssh-agent":
		return wrapSpec{short: "aEPt", what: "runs a command with an SSH agent"}
	case "cpulimit":
		return wrapSpec{short: "lpe", long: []string{"limit", "pid", "exe"}, what: "runs a command with a CPU limit"}
	case "watch":
		return wrapSpec{short: "nq", long: []string{"interval", "differences", "equexit"}, script: true, what: "runs a command repeatedly"}
	case "unbuffer", "rlwrap", "chronic", "ifne", "catchsegv", "fakeroot", "nq", "tsp":
		return wrapSpec{what: "runs a command"}
	}
	return wrapSpec{opaque: true, what: "runs a command"}
}

// wrapper handles programs whose job is to run another command.
func (c *call) wrapper() {
	switch c.name {
	case "script":
		c.scriptCmd()
		return
	case "hyperfine":
		c.hyperfine()
		return
	}
	spec := wrapSpecFor(c.name)
	c.local(c.name + " " + spec.what + ", which is checked on its own")
	if spec.opaque {
		c.opaqueWrap()
		return
	}
	ops := scan(c.args, optSpec{short: spec.short, long: spec.long, stop: true})
	if ops.computed {
		c.risky("indirection: an option of " + c.name + " is only known at run time, so the command it runs is unknown")
		return
	}
	for _, o := range ops.opts {
		switch {
		case c.name == "time" && (o.name == "-o" || isLong(o.name, "output")),
			(c.name == "strace" || c.name == "ltrace") && (o.name == "-o" || isLong(o.name, "output")):
			c.writes(o.val, c.name+" writes its report to")
		case c.name == "flock" && (o.name == "-c" || isLong(o.name, "command")):
			c.scriptArg(o.val)
			return
		case c.name == "watch" && (o.name == "-x" || isLong(o.name, "exec")):
			spec.script = false
		case c.name == "ionice" && (o.name == "-p" || isLong(o.name, "pid")),
			c.name == "taskset" && (o.name == "-p" || isLong(o.name, "pid")),
			c.name == "chrt" && (o.name == "-p" || isLong(o.name, "pid")):
			return // changes a running process; no command
		}
	}
	rest := ops.operands
	if len(rest) < spec.operands {
		return
	}
	for _, x := range rest[:spec.operands] {
		if x.split {
			c.risky("indirection: an operand of " + c.name + " may expand to several words, so the command it runs is unknown")
			return
		}
	}
	rest = rest[spec.operands:]
	if c.name == "flock" && len(rest) > 1 && (rest[0].val == "-c" || isLong(rest[0].val, "command")) {
		c.scriptArg(rest[1])
		return
	}
	if spec.script {
		c.scriptArg(joinArgs(rest))
		return
	}
	c.wrap(rest, c.inner())
}

// scriptArg classifies a word that a program runs as a shell script.
func (c *call) scriptArg(x arg) {
	if !x.static() {
		c.risky("indirection: " + c.name + " runs a script only known at run time: " + x.val)
		return
	}
	c.runScript(x.val, false)
}

// assignArg checks a NAME=value word that sets a variable for a command.
func (c *call) assignArg(x arg) {
	name, val, _ := strings.Cut(x.val, "=")
	switch kind, reason := c.a.classifyEnv(name, val, !x.dyn); {
	case kind == envRisky:
		c.risky(reason)
	case kind == envLoad:
		c.agentCode(reason)
	case kind == envFile && x.dyn:
		c.risky("destructive: " + reason + ", and its value is only known at run time")
	case kind == envFile:
		c.writes(fileVarTarget(val), name+"= makes programs write to")
	case kind == envCommand && x.dyn:
		c.risky("indirection: " + reason + ", and its value is only known at run time")
	case kind == envCommand && strings.TrimSpace(val) != "":
		c.commandIn(reason, val)
	}
	if !x.dyn && holdsCode(val) {
		c.risky("indirection: the value of " + name + " holds a command substitution that a later evaluation may run")
	}
}

// commandIn classifies a command line that another program runs behind the
// scenes; one the gate cannot vouch for is risky.
func (c *call) commandIn(what, code string) {
	if c.a.commandValue(code) >= TierGrey {
		c.risky("indirection: " + what + ", and the gate cannot vouch for " + code)
		return
	}
	c.local(what + "; that command is checked on its own")
}

// commandArg classifies a word holding a command that runs behind the
// scenes: computed, or not known to be safe, it is risky.
func (c *call) commandArg(what string, x arg) {
	if !x.static() {
		c.risky("indirection: the " + what + " " + x.val + " is only known at run time")
		return
	}
	c.commandIn(c.name+" sets a "+what, x.val)
}

// joinArgs joins words with spaces, as programs that hand their arguments
// to sh -c do.
func joinArgs(args []arg) arg {
	var j arg
	vals := make([]string, len(args))
	for i, x := range args {
		vals[i] = x.val
		j.dyn = j.dyn || x.dyn
		j.glob = j.glob || x.glob
	}
	j.val = strings.Join(vals, " ")
	return j
}

// opaqueWrap handles a wrapper whose options the gate does not model: every
// word that names a known program is tried as the start of the command.
func (c *call) opaqueWrap() {
	c.unknown("the options of " + c.name + " are not modelled")
	tried := 0
	for i, x := range c.args {
		if x.lead {
			c.risky("indirection: a word of " + c.name + " is only known at run time")
			return
		}
		if strings.HasPrefix(x.val, "-") || !x.static() {
			continue
		}
		name, _ := progName(x.val)
		if analyzerFor(name) == nil && !knownName(name) {
			continue
		}
		c.wrap(c.args[i:], c.inner())
		if tried++; tried == maxOpaqueTries {
			return
		}
	}
}

// maxOpaqueTries bounds the candidate commands tried inside an opaque
// wrapper.
const maxOpaqueTries = 4

// env runs a command with a changed environment.
func (c *call) env() {
	c.local("env runs a command with a changed environment, which is checked on its own")
	ops := scan(c.args, optSpec{short: "uCS", long: []string{"unset", "chdir", "split-string"}, stop: true})
	if ops.computed {
		c.risky("indirection: an option of env is only known at run time")
		return
	}
	rest := ops.operands
	for len(rest) > 0 && assignWord(rest[0].val) {
		c.assignArg(rest[0])
		rest = rest[1:]
	}
	saved := c.a.cwd
	defer func() { c.a.cwd = saved }()
	for _, o := range ops.opts {
		switch {
		case o.name == "-C" || isLong(o.name, "chdir"):
			c.a.chdir(o.val, true)
		case o.name == "-S" || isLong(o.name, "split-string"):
			// env splits the string into words itself, close to the shell.
			c.scriptArg(arg{val: o.val.val + " " + quoteArgs(rest), dyn: o.val.dyn})
			return
		}
	}
	if len(rest) > 0 && rest[0].split {
		c.risky("indirection: the command env runs is only known at run time")
		return
	}
	c.wrap(rest, c.inner())
}

// privileged runs a command as another user: risky in itself, and the
// command is checked too.
func (c *call) privileged() {
	c.risky("destructive: " + c.name + " runs a command with other privileges")
	var spec optSpec
	switch c.name {
	case "sudo", "run0":
		spec = optSpec{short: "ugpChDrtURT", long: []string{"user", "group", "host", "prompt", "close-from", "chdir", "role", "type", "other-user", "command-timeout", "chroot"}, stop: true}
	case "doas":
		spec = optSpec{short: "uC", stop: true}
	case "su", "runuser":
		spec = optSpec{short: "cgGsw", long: []string{"command", "group", "supp-group", "shell", "whitelist-environment", "session-command", "user"}}
	case "sg":
		spec = optSpec{short: "c"}
	case "pkexec":
		spec = optSpec{long: []string{"user"}, stop: true}
	case "chroot":
		spec = optSpec{long: []string{"userspec", "groups"}, stop: true}
	default:
		c.opaqueWrap()
		return
	}
	ops := scan(c.args, spec)
	if ops.computed {
		c.risky("indirection: an option of " + c.name + " is only known at run time")
		return
	}
	if o, ok := ops.get("-c", "--command", "--session-command"); ok {
		c.scriptArg(o.val)
		return
	}
	rest := ops.operands
	switch c.name {
	case "sudo", "run0":
		if ops.has("-e", "--edit") {
			c.risky("destructive: sudo -e edits files as another user")
			return
		}
	case "su", "runuser":
		if len(rest) > 0 && rest[0].val == "-" {
			rest = rest[1:]
		}
		if o, ok := ops.get("-u", "--user"); ok && c.name == "runuser" && o.hasVal {
			c.wrap(rest, c.inner())
			return
		}
		if len(rest) > 0 {
			rest = rest[1:] // the user; the rest goes to the shell
		}
		if len(rest) > 0 {
			c.risky("interpreter: " + c.name + " passes its arguments to a shell")
		}
		return
	case "sg":
		if len(rest) > 1 {
			c.scriptArg(joinArgs(rest[1:]))
		}
		return
	case "chroot":
		if len(rest) > 0 {
			rest = rest[1:]
		}
	}
	c.wrap(rest, c.inner())
}

// execLike handles exec, command and builtin, which run the command named
// by their first operand.
func (c *call) execLike() {
	switch c.name {
	case "exec":
		ops := scan(c.args, optSpec{short: "a", stop: true})
		if ops.computed {
			c.risky("indirection: an option of exec is only known at run time")
			return
		}
		c.local("exec replaces the shell with a command, which is checked on its own")
		c.wrap(ops.operands, c.inner())
	case "command":
		ops := scan(c.args, optSpec{stop: true})
		if ops.computed {
			c.risky("indirection: an option of command is only known at run time")
			return
		}
		if ops.has("-v", "-V") {
			c.local("command -v shows where a command is")
			c.safeArgs()
			return
		}
		c.local("command runs a command, which is checked on its own")
		c.wrap(ops.operands, c.inner())
	default:
		c.local("builtin runs a shell builtin, which is checked on its own")
		c.wrap(c.args, c.inner())
	}
}

// busybox runs the applet named by its first operand.
func (c *call) busybox() {
	if len(c.args) == 0 || strings.HasPrefix(c.args[0].val, "-") && c.args[0].static() {
		c.local(c.name + " lists its applets")
		return
	}
	c.local(c.name + " runs an applet, which is checked on its own")
	c.wrap(c.args, c.inner())
}

// scriptCmd handles script(1), which records a shell session.
func (c *call) scriptCmd() {
	ops := scan(c.args, optSpec{short: "cEIOBTt", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"}})
	if o, ok := ops.get("-c", "--command"); ok {
		c.local("script records a command, which is checked on its own")
		c.scriptArg(o.val)
	} else {
		c.risky("interpreter: script starts an interactive shell")
	}
	for _, x := range ops.operands {
		c.writes(x, "script records to")
	}
}

// hyperfine benchmarks shell commands given as strings.
func (c *call) hyperfine() {
	ops := scan(c.args, optSpec{short: "wrmMpcsSnLPDuNo", long: []string{"warmup", "runs", "min-runs",
		"max-runs", "prepare", "conclude", "cleanup", "setup", "shell", "command-name", "parameter-scan",
		"parameter-step-size", "parameter-list", "style", "sort", "time-unit", "export-asciidoc",
		"export-csv", "export-json", "export-markdown", "export-orgmode", "output", "input"}})
	c.local("hyperfine benchmarks commands, which are checked on their own")
	for _, o := range ops.opts {
		switch {
		case o.name == "-p" || o.name == "-c" || o.name == "-s" || isLong(o.name, "prepare") ||
			isLong(o.name, "cleanup") || isLong(o.name, "setup") || isLong(o.name, "conclude"):
			c.scriptArg(o.val)
		case strings.HasPrefix(o.name, "--export"):
			c.writes(o.val, "hyperfine writes")
		}
	}
	for _, x := range ops.operands {
		c.scriptArg(x)
	}
}
