package gate

import "strings"

// cuff is cuff itself: an agent that can answer its own approval requests,
// change its own hooks or policy, or hide a command inside `cuff exec`
// would walk around the gate.
func (c *call) cuff() {
	ops := scan(c.args, optSpec{long: []string{"dir"}, stop: true})
	if ops.computed || len(ops.operands) == 0 {
		if ops.computed {
			c.risky("indirection: an option of cuff is only known at run time")
			return
		}
		c.local("cuff without a command opens its terminal UI")
		return
	}
	sub := ops.operands[0]
	if !sub.static() {
		c.risky("indirection: the cuff command is only known at run time: " + sub.val)
		return
	}
	rest := ops.operands[1:]
	switch sub.val {
	case "exec":
		c.cuffExec(rest)
	case "approve", "deny", "hook", "init", "import", "trust":
		c.guardRisk("cuff " + sub.val + " changes cuff's own approvals, hooks or recordings; an agent must not run it")
	case "record", "runs":
		if len(rest) > 0 {
			switch rest[0].val {
			case "clean", "prune", "rm":
				c.risky("destructive: cuff " + sub.val + " " + rest[0].val + " deletes recordings, the audit trail")
				return
			case "export", "generate":
				// --output FILE writes anywhere: a session's commands
				// exported into ~/.bashrc run in the next shell.
				for i, x := range rest {
					n, _, _ := strings.Cut(x.val, "=")
					if strings.HasPrefix(x.val, "-o") && !strings.HasPrefix(x.val, "--") || isLong(n, "output") {
						if w, ok := optValue(rest, i); ok {
							c.writes(w, "cuff "+sub.val+" "+rest[0].val+" writes")
						}
					}
				}
			}
		}
		c.local("cuff " + sub.val + " reads recordings")
	case "search":
		// Reads every recorded session (its index is kept in the user's
		// cache) and prints the hits, redacted as the store redacts.
		c.local("cuff search reads recordings")
	case "scripts":
		if len(rest) > 0 && rest[0].val == "run" {
			c.risky("cuff scripts run runs a project script")
			return
		}
		c.local("cuff scripts lists the project's scripts")
	case "version", "check", "policy", "approvals", "metrics", "health", "help", "completion":
		c.local("cuff " + sub.val + " only reports")
	default:
		c.unknown("cuff " + sub.val + " is not a cuff command the gate knows")
	}
}

// cuffExec classifies the command `cuff exec` runs: after cuff's own
// options, or the script of --shell.
func (c *call) cuffExec(args []arg) {
	ops := scan(args, optSpec{short: "v", long: []string{"timeout", "cwd", "env", "shell", "description", "run-id",
		"task-id", "step-id", "tool-call-id", "agent-id", "conversation-id"}, stop: true})
	if ops.computed {
		c.risky("indirection: an option of cuff exec is only known at run time, so the command it runs is unknown")
		return
	}
	c.local("cuff exec runs and records a command, which is checked on its own")
	saved, savedFail := c.a.cwd, c.a.cdMayFail
	defer func() { c.a.cwd, c.a.cdMayFail = saved, savedFail }()
	for _, o := range ops.opts {
		switch {
		case isLong(o.name, "cwd"):
			c.a.chdir(o.val, true)
		case isLong(o.name, "shell"):
			c.scriptArg(o.val)
			return
		case isLong(o.name, "env"):
			c.assignArg(o.val)
		}
	}
	if len(ops.operands) > 0 {
		c.wrap(ops.operands, c.inner())
	}
}
