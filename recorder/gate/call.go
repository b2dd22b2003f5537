package gate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// cmdCtx is what a command inherits from where it appears.
type cmdCtx struct {
	stmt  *syntax.Stmt // the statement, for its here-documents; may be nil
	src   string       // the source text stmt belongs to
	piped bool         // standard input is a pipe
	tail  bool         // more arguments arrive from standard input (xargs)
	depth int          // wrappers around the command
	// feeds finds what writes a piped statement's input (see collector).
	feeds map[*syntax.Stmt]*syntax.Stmt
}

// call is one simple command being analysed.
type call struct {
	a    *analysis
	e    *entry
	name string // lower-case program name without directory or version
	prog string // the program word as written, quotes removed
	args []arg  // the arguments after the program word
	cx   cmdCtx
	// base, when set, is the directory the command's relative operands
	// name paths from (git -C DIR); baseUnknown when it is only known at
	// run time.
	base        string
	baseUnknown bool
}

func (c *call) local(r string)   { c.e.add(TierLocal, r) }
func (c *call) unknown(r string) { c.e.add(TierGrey, r) }
func (c *call) grey(r string)    { c.e.add(TierGrey, r); c.e.unliftable = true }
func (c *call) risky(r string)   { c.e.add(TierRisky, r); c.e.unliftable = true }

// secretRead records that the command reads credential material: risky,
// and the session is to be marked as having read secrets (Result.Secret).
func (c *call) secretRead(why string) { c.risky(secretPrefix + why); c.e.secret = true }

// notAlways records why no standing rule should allow the command.
func (c *call) notAlways(why string) {
	if c.e.notAlways == "" {
		c.e.notAlways = why
	}
}

// guardRisk records a concern about cuff's own state, the agent's settings
// or a guarded directory: risky, and beyond what a session approval
// covers (Result.Grantable).
func (c *call) guardRisk(r string) { c.risky(r); c.e.guarded = true }

// agentCode marks the command as running code, or following build
// configuration, that the agent may have written; what says which.
func (c *call) agentCode(what string) {
	if !c.e.AgentCode {
		c.e.AgentCode, c.e.agentWhy = true, what
	}
}

// safeArgs records that no argument can change what the command does in a
// way the gate cares about.
func (c *call) safeArgs() { c.e.argSafe = true }

// command classifies the words of a simple command into e.
// newCall places c in the analysis's own storage while it lasts, on the
// heap beyond it.
func (a *analysis) newCall(c call) *call {
	if a.usedCalls < len(a.calls) {
		p := &a.calls[a.usedCalls]
		a.usedCalls++
		*p = c
		return p
	}
	p := new(call) // not &c: c would then be on the heap every time
	*p = c
	return p
}

func (a *analysis) command(e *entry, argv []arg, cx cmdCtx) {
	e.Argv = make([]string, len(argv))
	for i, x := range argv {
		e.Argv[i] = x.val
	}
	if len(argv) == 0 {
		e.add(TierLocal, "expands to no command")
		a.decide(e)
		return
	}
	prog := argv[0]
	name, trusted := progName(prog.val)
	e.ruleText = ruleText(argv, name, trusted)
	switch {
	case !prog.static():
		e.noAllowRule = true
		e.add(TierRisky, "indirection: the command name "+prog.val+" is only known at run time")
	case strings.HasPrefix(prog.val, "="):
		e.add(TierRisky, "indirection: zsh expands "+prog.val+" to the path of a program")
	case assignWord(prog.val):
		// Only the shell treats NAME=value as an assignment; as a wrapped
		// command it is one anyway for env. Check it as env would.
		c := a.newCall(call{a: a, e: e, name: "env", prog: "env", args: argv, cx: cx})
		c.env()
	default:
		c := a.newCall(call{a: a, e: e, name: name, prog: prog.val, args: argv[1:], cx: cx})
		a.analyze(c)
		if why := c.envDump(); why != "" {
			c.risky(secretPrefix + why)
			e.secret = true
		}
		c.secretReads()
		for _, x := range c.args {
			if netPath(x.val) {
				c.risky("network: " + x.val + " is a network connection in bash")
				break
			}
		}
		if !trusted {
			a.pathProgram(c)
		}
		switch {
		case cx.tail && commandRunner(name):
			c.risky("indirection: " + name + " runs a command named by its input")
		case cx.tail && !e.argSafe:
			c.grey("more arguments come from standard input and are not checked")
		}
	}
	a.decide(e)
}

// pathProgram judges a program named by a path outside the system's own
// directories: unknown programs can do anything, and a known name is only
// the program it says when it comes from the workspace.
func (a *analysis) pathProgram(c *call) {
	known := analyzerFor(c.name) != nil || knownName(c.name)
	pl := a.place(arg{val: c.prog}, true)
	inside := pl.kind == pathInside
	if inside {
		c.agentCode("runs " + c.prog + " from the work tree")
		if a.written[pl.real] {
			c.risky("indirection: runs " + c.prog + ", which this command line wrote")
		}
	}
	t, _ := worst(c.e.findings)
	switch {
	case !known:
		c.risky("interpreter: runs " + c.prog + ", a program the gate does not know, which can do anything")
	case !inside && t < TierRisky:
		c.grey("runs " + c.prog + ", from outside the workspace, rather than the system's " + c.name)
	case t < TierGrey:
		c.unknown("runs " + c.prog + ", the workspace's own " + c.name)
	}
}

// commandRunner reports programs whose arguments name a command to run, so
// that arguments read from input (xargs) can make them run anything.
func commandRunner(name string) bool {
	if shellName(name) || interpreter(name) || otherShell(name) {
		return true
	}
	switch name {
	case "env", "eval", "source", ".", "exec", "command", "builtin", "busybox", "toybox", "xargs",
		"parallel", "sudo", "doas", "su", "runuser", "pkexec", "chroot", "setpriv", "sg", "run0",
		"npx", "bunx", "pnpx", "uvx", "pipx":
		return true
	}
	return isWrapper(name)
}

// isWrapper reports the programs handled by the generic wrapper analysis.
func isWrapper(name string) bool {
	switch name {
	case "timeout", "nice", "nohup", "setsid", "stdbuf", "ionice", "time", "chrt", "taskset",
		"numactl", "flock", "unbuffer", "rlwrap", "chronic", "ifne", "caffeinate", "strace",
		"ltrace", "valgrind", "faketime", "xvfb-run", "dbus-run-session", "ssh-agent", "catchsegv",
		"unshare", "firejail", "bwrap", "proot", "fakeroot", "nsenter", "watch", "script",
		"hyperfine", "cpulimit", "prlimit", "systemd-inhibit", "nq", "tsp":
		return true
	}
	return false
}

// assignWord reports a word of the form NAME=value.
func assignWord(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !(ch == '_' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || i > 0 && ch >= '0' && ch <= '9') {
			return false
		}
	}
	return true
}

// ruleText is the text policy rules are matched against: the words joined
// by single spaces, with a trusted program path reduced to its name.
func ruleText(argv []arg, name string, trusted bool) string {
	p := argv[0].val
	if trusted {
		// The system's own program, whatever the case or directory: rules
		// written for "curl" also meet "/usr/bin/CURL".
		p = strings.TrimSuffix(strings.ToLower(p[strings.LastIndexByte(p, '/')+1:]), ".exe")
	}
	if len(argv) == 1 {
		return p
	}
	n := len(p)
	for _, x := range argv[1:] {
		n += 1 + len(x.val)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(p)
	for _, x := range argv[1:] {
		b.WriteByte(' ')
		b.WriteString(x.val)
	}
	return b.String()
}

// decide applies policy rules and sets the entry's tier: project rules
// first, then the analysis, which built-in rules may lift from grey to
// allowed or raise to ask or deny.
func (a *analysis) decide(e *entry) {
	if a.g.policy != nil || a.g.trusted != nil {
		if r := a.g.projectRule(e.ruleText); r != nil && !(r.Action == ActionAllow && e.noAllowRule) {
			e.Rule, e.projectRule = r.Label(), true
			e.finish(r.Action.tier(), r.Describe(), true)
			return
		}
	}
	if e.AgentCode && a.wroteCode != "" {
		e.add(TierRisky, "indirection: runs project code after this command line wrote "+a.wroteCode)
		e.unliftable = true
	}
	wt, ok := worst(e.findings)
	if !ok {
		wt = TierGrey
		e.add(TierGrey, "nothing is known about this command")
	}
	var reason string
	lifted := false
	if p := a.g.builtin; p != nil {
		if r := p.Match(e.ruleText); r != nil {
			switch {
			case r.Action == ActionAllow && wt == TierGrey && !a.cwdInside():
				wt = TierRisky
				e.add(TierRisky, "indirection: runs project tools in "+a.cwdText()+", outside the workspace, where their configuration is not the project's")
			case r.Action == ActionAllow:
				if wt == TierGrey && !e.unliftable && !e.noAllowRule {
					wt, lifted = TierAllowRule, true
					e.Rule, reason = r.Label(), r.Describe()
				}
			case r.Action.tier() > wt:
				wt = r.Action.tier()
				e.Rule, reason = r.Label(), r.Describe()
			}
		}
	}
	e.finish(wt, reason, lifted)
}

// wrap classifies a command that this one runs, as an entry of its own.
func (c *call) wrap(args []arg, cx cmdCtx) {
	if len(args) == 0 {
		return
	}
	if cx.depth >= maxWrapDepth {
		c.risky("indirection: wrappers nested too deeply to check")
		return
	}
	cx.depth++
	e := c.a.newEntry(quoteArgs(args))
	c.a.command(e, args, cx)
}

// inner is the context for a command this one runs with the same input.
func (c *call) inner() cmdCtx { return c.cx }

// runScript classifies shell code this command runs. shared says whether
// the code runs in the current shell, so that its cd matters afterwards.
func (c *call) runScript(code string, shared bool) {
	a := c.a
	if a.depth >= maxScriptDepth {
		c.risky("indirection: scripts nested too deeply to check")
		return
	}
	if shared {
		a.depth++
		a.script(code)
		a.depth--
		return
	}
	a.nestedScript(code)
}

// writes classifies writing to the file x as a concern of the command.
func (c *call) writes(x arg, what string) { c.a.writeTarget(c.e, x, what, false) }

// opt is one option found by scanOpts.
type opt struct {
	name   string // "-f" or "--file"
	val    arg    // its value, if it takes one
	hasVal bool
}

// optSpec describes a command's options for scanOpts.
type optSpec struct {
	short string   // short options that take a value
	long  []string // long options that take a value, without "--"
	// stop: options end at the first operand (no GNU permutation).
	stop bool
}

// scanResult is a command line split into options and operands.
// shortOptNames holds "-" + c for every byte c, the names scan gives short
// options without making them again.
var shortOptNames = func() (t [256]string) {
	for c := range t {
		t[c] = "-" + string(byte(c))
	}
	return t
}()

type scanResult struct {
	opts     []opt
	operands []arg
	// computed: an argument that may be an option is only known at run time.
	computed bool
}

// scan splits args into options and operands in the GNU getopt way. Long
// options may be abbreviated, as getopt allows.
func scan(args []arg, spec optSpec) scanResult {
	var r scanResult
	for i := 0; i < len(args); i++ {
		x := args[i]
		if computedOption(x) && !(spec.stop && len(r.operands) > 0) {
			r.computed = true // it may expand to an option, or to several
		}
		if !strings.HasPrefix(x.val, "-") || x.val == "-" || spec.stop && len(r.operands) > 0 {
			if r.operands == nil {
				// Room for every word left: one allocation, not one a
				// growth.
				r.operands = make([]arg, 0, len(args)-i)
			}
			r.operands = append(r.operands, x)
			if spec.stop {
				r.operands = append(r.operands, args[i+1:]...)
				return r
			}
			continue
		}
		if x.val == "--" {
			r.operands = append(r.operands, args[i+1:]...)
			return r
		}
		if strings.HasPrefix(x.val, "--") {
			name, val, hasEq := strings.Cut(x.val[2:], "=")
			o := opt{name: x.val[:2+len(name)]} // "--" + name
			if hasEq {
				o.val, o.hasVal = arg{val: val, dyn: x.dyn, glob: x.glob}, true
			} else if full := longMatch(name, spec.long); full != "" && i+1 < len(args) {
				i++
				o.val, o.hasVal = args[i], true
			}
			r.opts = append(r.opts, o)
			continue
		}
		for j := 1; j < len(x.val); j++ {
			ch := x.val[j]
			o := opt{name: shortOptNames[ch]}
			if strings.IndexByte(spec.short, ch) >= 0 {
				if j+1 < len(x.val) {
					o.val, o.hasVal = arg{val: x.val[j+1:], dyn: x.dyn, glob: x.glob}, true
				} else if i+1 < len(args) {
					i++
					o.val, o.hasVal = args[i], true
				}
				r.opts = append(r.opts, o)
				break
			}
			r.opts = append(r.opts, o)
		}
	}
	return r
}

// computedOption reports a word whose option letters or name are only
// known at run time: a leading expansion, a pattern starting with '-', or
// an expansion inside an option name ("-$x", "--$name=v").
func computedOption(x arg) bool {
	switch {
	case x.lead && !strings.HasPrefix(x.val, "-"):
		return true
	case !strings.HasPrefix(x.val, "-"):
		return false
	case x.glob:
		return true
	case !x.dyn:
		return false
	case strings.HasPrefix(x.val, "--"):
		eq := strings.IndexByte(x.val, '=')
		return eq < 0 || x.dynAt < eq
	}
	return true
}

// longMatch returns the long option that name abbreviates, if any.
func longMatch(name string, longs []string) string {
	for _, l := range longs {
		if name == l {
			return l
		}
	}
	if len(name) < 2 {
		return ""
	}
	for _, l := range longs {
		if strings.HasPrefix(l, name) {
			return l
		}
	}
	return ""
}

// isLong reports whether an option name such as "--to-com" is the long
// option full or an abbreviation of it.
func isLong(name, full string) bool {
	if !strings.HasPrefix(name, "--") {
		return false
	}
	n := name[2:]
	return n == full || len(n) >= 2 && strings.HasPrefix(full, n)
}

// has reports whether any option is one of names (short "-x" or long).
func (r scanResult) has(names ...string) bool {
	_, ok := r.get(names...)
	return ok
}

// get returns the first option that is one of names.
func (r scanResult) get(names ...string) (opt, bool) {
	for _, o := range r.opts {
		for _, n := range names {
			if o.name == n || strings.HasPrefix(n, "--") && isLong(o.name, n[2:]) {
				return o, true
			}
		}
	}
	return opt{}, false
}

// firstOperand returns the index of the first argument that is not an
// option, treating every option as a flag without a value.
func firstOperand(args []arg) int {
	for i, x := range args {
		if x.val == "--" {
			return i + 1
		}
		if !strings.HasPrefix(x.val, "-") || x.val == "-" {
			return i
		}
	}
	return len(args)
}
