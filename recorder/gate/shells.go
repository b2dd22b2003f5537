package gate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// shell handles sh, bash and their kin: a static -c script or here-document
// is checked as the commands it holds; anything else is an interpreter.
func (c *call) shell() {
	cflag, sflag, i := false, false, 0
options:
	for ; i < len(c.args); i++ {
		x := c.args[i]
		if x.lead || x.glob && strings.HasPrefix(x.val, "-") {
			c.notAlways(c.name + " runs what is only known when it runs")
			c.risky("indirection: an option of " + c.name + " is only known at run time")
			return
		}
		v := x.val
		switch {
		case (strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+")) && strings.Trim(v[1:], shellFlags) != "" && !strings.HasPrefix(v, "--"):
			// Not options the shell knows: it refuses them, but in case
			// it takes the word as the script, check it as one.
			c.grey(c.name + " option " + v + " is not known to the gate")
			c.runScript(v, false)
		case v == "--" || v == "-":
			i++
			break options
		case strings.HasPrefix(v, "--"):
			switch v {
			case "--norc", "--noprofile", "--login", "--posix", "--restricted", "--verbose",
				"--noediting", "--pretty-print":
			case "--rcfile", "--init-file":
				c.risky("interpreter: " + c.name + " " + v + " runs a startup file")
				return
			default:
				c.grey(c.name + " option " + v + " is not known to the gate")
				c.runScript(v, false) // in case the shell takes it as the script
			}
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
			for _, ch := range v[1:] {
				switch ch {
				case 'c':
					cflag = true
				case 's':
					sflag = true
				case 'o', 'O':
					i++ // the option's name
					if ch == 'O' && v[0] == '-' && (i >= len(c.args) || c.args[i].dyn || c.args[i].val == "dotglob" || c.args[i].val == "nocaseglob") {
						c.a.globDots = true // bash -O dotglob -c 'cat *' reads .env
					}
				case 'i':
					c.risky("interpreter: an interactive " + c.name + " runs startup files and reads commands from its input")
					return
				}
			}
		default:
			break options
		}
	}
	ops := c.args[min(i, len(c.args)):]
	switch {
	case cflag && len(ops) == 0:
		c.local(c.name + " -c without a script does nothing")
	case cflag:
		if !ops[0].static() {
			c.notAlways(c.name + " -c runs a script only known when it runs")
			c.risky("indirection: " + c.name + " -c runs a script only known at run time: " + ops[0].val)
			return
		}
		c.local(c.name + " runs the script given with -c; its commands are checked on their own")
		c.runScript(ops[0].val, false)
	case len(ops) > 0 && !sflag:
		c.risky("interpreter: " + c.name + " runs the script file " + ops[0].val + ", which the gate does not read")
	default:
		c.stdinScript()
	}
}

// shellFlags are the single-letter options of bash and sh.
const shellFlags = "abcefhiklmnoprstuvxBCDEHOPT"

// stdinScript handles a shell that reads its commands from standard input.
func (c *call) stdinScript() {
	if c.cx.tail {
		c.risky("interpreter: " + c.name + " runs a script named by its input")
		return
	}
	if st := c.cx.stmt; st != nil {
		for i := len(st.Redirs) - 1; i >= 0; i-- {
			r := st.Redirs[i]
			if r.N != nil && r.N.Value != "0" {
				continue
			}
			switch r.Op {
			case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
				body, ok := hdocBody(c.cx.src, r)
				if !ok {
					c.risky("indirection: " + c.name + " runs a here-document whose text is only known at run time")
					return
				}
				c.local(c.name + " runs the here-document; its commands are checked on their own")
				c.runScript(body, false)
				return
			case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn:
				c.notAlways(c.name + " runs commands read from " + wordText(c.cx.src, r.Word) + ", which may differ every time")
				c.risky("interpreter: " + c.name + " runs commands read from " + wordText(c.cx.src, r.Word))
				return
			}
		}
	}
	if c.cx.piped {
		c.notAlways(c.name + " runs commands read from a pipe, which may differ every time")
		c.risky("indirection: " + c.name + " runs commands read from a pipe")
		return
	}
	c.grey(c.name + " starts a shell that reads commands from its input")
}

// eval runs its arguments as shell code in the current shell.
func (c *call) eval() {
	if len(c.args) == 0 {
		c.local("eval without arguments does nothing")
		return
	}
	code := joinArgs(c.args)
	if !code.static() {
		c.notAlways("eval runs code only known when it runs")
		c.risky("indirection: eval runs code only known at run time: " + code.val)
		return
	}
	c.local("eval runs its arguments as a command; they are checked on their own")
	c.runScript(code.val, true)
}

// source runs a file in the current shell.
func (c *call) source() {
	ops := scan(c.args, optSpec{stop: true})
	if len(ops.operands) == 0 {
		c.local(c.name + " without a file does nothing")
		return
	}
	f := ops.operands[0]
	if f.static() && (strings.HasSuffix(f.val, "/bin/activate") || f.val == "bin/activate") && c.a.where(f) == pathInside {
		c.agentCode(c.name + " runs the virtual environment's activate script")
		c.local(c.name + " activates a Python virtual environment in the workspace")
		return
	}
	if f.proc || !f.static() || f.val == "/dev/stdin" || f.val == "-" {
		c.notAlways(c.name + " runs code only known when it runs")
		c.risky("indirection: " + c.name + " runs code only known at run time: " + f.val)
		return
	}
	c.risky("interpreter: " + c.name + " runs the script " + f.val + " in this shell, which the gate does not read")
}

// trap sets code that the shell runs on a signal.
func (c *call) trap() {
	ops := scan(c.args, optSpec{stop: true})
	if len(ops.operands) == 0 || ops.has("-p", "-l") || len(ops.operands) == 1 {
		c.local("trap lists or resets signal handlers")
		return
	}
	code := ops.operands[0]
	if code.val == "-" && code.static() {
		c.local("trap resets signal handlers")
		return
	}
	if !code.static() {
		c.risky("indirection: trap sets a handler only known at run time: " + code.val)
		return
	}
	c.local("trap sets a signal handler; its commands are checked on their own")
	c.runScript(code.val, true)
}

// alias defines words that the shell expands into code.
func (c *call) alias() {
	c.local("alias defines command abbreviations; their commands are checked on their own")
	for _, x := range c.args {
		if strings.HasPrefix(x.val, "-") {
			continue
		}
		name, val, ok := strings.Cut(x.val, "=")
		if !ok {
			continue
		}
		if !x.static() {
			c.risky("indirection: alias " + name + " expands to code only known at run time")
			continue
		}
		c.runScript(val, true)
	}
}

// declare handles export, declare and their kin when they appear as plain
// commands (after a wrapper, or in a form the parser did not treat as a
// declaration): each NAME=value is checked as an assignment.
func (c *call) declare() {
	c.local(c.name + " sets shell variables")
	for _, x := range c.args {
		if strings.HasPrefix(x.val, "-") || strings.HasPrefix(x.val, "+") {
			continue
		}
		if !assignWord(x.val) {
			if x.dyn {
				c.risky("indirection: " + c.name + " of names computed at run time (" + x.val + ") can set any variable")
			}
			continue
		}
		c.assignArg(x)
	}
}

// setsVars handles builtins that assign variables named by their
// arguments (read NAME, printf -v NAME, getopts SPEC NAME), which can set
// PATH or IFS as surely as an assignment, and history, which can write a
// file.
func (c *call) setsVars() {
	var names []arg
	switch c.name {
	case "read":
		ops := scan(c.args, optSpec{short: "adinNptu"})
		names = ops.operands
		if o, ok := ops.get("-a"); ok {
			names = append(names, o.val)
		}
	case "printf":
		if o, ok := scan(c.args, optSpec{short: "v", stop: true}).get("-v"); ok {
			names = append(names, o.val)
		}
	case "getopts":
		if len(c.args) > 1 {
			names = c.args[1:2]
		}
	case "history":
		ops := scan(c.args, optSpec{})
		if ops.has("-w", "-a") {
			for _, x := range ops.operands {
				c.writes(x, "history writes")
			}
		}
	}
	for _, n := range names {
		if !n.static() {
			c.risky("indirection: " + c.name + " sets a variable whose name is only known at run time")
			return
		}
		name, _, _ := strings.Cut(n.val, "[")
		if kind, reason := classifyEnv(name, ""); kind != envPlain {
			c.risky("indirection: " + c.name + " sets " + name + ": " + reason)
			return
		}
	}
	c.local(c.name + " is a shell builtin")
	c.safeArgs()
}

// shellMeta handles builtins that change how the shell finds or runs
// commands.
func (c *call) shellMeta() {
	has := func(flags ...string) (arg, bool) {
		for i, x := range c.args {
			for _, f := range flags {
				if x.val == f || strings.HasPrefix(x.val, "-") && !strings.HasPrefix(x.val, "--") && strings.Contains(x.val[1:], f[1:]) {
					if i+1 < len(c.args) {
						return c.args[i+1], true
					}
					return arg{}, true
				}
			}
		}
		return arg{}, false
	}
	switch c.name {
	case "hash":
		if _, ok := has("-p"); ok {
			c.risky("indirection: hash -p makes a command name run another program")
			return
		}
	case "enable":
		if _, ok := has("-f"); ok {
			c.risky("interpreter: enable -f loads a builtin from a shared library")
			return
		}
	case "complete", "compgen":
		if v, ok := has("-C"); ok {
			c.commandArg("completion command", v)
			return
		}
	case "bind":
		if _, ok := has("-x"); ok {
			c.risky("indirection: bind -x runs commands on key presses")
			return
		}
	case "fc":
		c.risky("indirection: fc runs commands from the history")
		return
	case "mapfile", "readarray":
		if v, ok := has("-C"); ok {
			c.commandArg("mapfile callback", v)
			return
		}
		ops := scan(c.args, optSpec{short: "dnOsuCc"})
		for _, n := range ops.operands {
			if kind, reason := classifyEnv(n.val, ""); kind != envPlain || !n.static() {
				c.risky("indirection: " + c.name + " sets " + n.val + ": " + reason)
				return
			}
		}
	}
	c.local(c.name + " is a shell builtin")
}
