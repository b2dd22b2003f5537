package gate

// Result is the gate's answer for one command line, with the reasons for
// every simple command in it. It is what `cuff check --format json` prints.
type Result struct {
	// Verdict is the most severe verdict of the parts.
	Verdict Verdict `json:"verdict"`
	// Tier and Rule are those of the part that decided the verdict.
	Tier Tier   `json:"tier"`
	Rule string `json:"rule"`
	// Reasons explains the deciding part.
	Reasons []string `json:"reasons"`
	// Commands lists every simple command found, in the order they appear,
	// including commands run by wrappers (timeout, xargs, find -exec, sh -c).
	Commands []Command `json:"commands"`
	// Cop is the external reviewer's answer when it was asked.
	Cop *CopVerdict `json:"cop,omitempty"`
	// AgentCode is set when some part runs code the agent may have written
	// (see Command.AgentCode).
	AgentCode bool `json:"agent_code"`
	// Secret is set when some part reads credential material.
	Secret bool `json:"secret"`
	// NotAlways, when set, says why no standing rule ("always") should
	// allow the command: it destroys what cannot be restored (rm -r of more
	// than a build directory, history rewrites, force pushes, dd and mkfs,
	// recursive chmod and chown), or it runs code read from a pipe or only
	// known when it runs. Approving it once or for a session stays open.
	NotAlways string `json:"not_always,omitempty"`
	// Guarded is set when some part changes cuff's own state (approvals,
	// grants, policy), the agent's settings and hooks, or a guarded
	// directory (.git, .cuff, .claude, .codex): only a person's approval of
	// that very run may let it through, never a session approval.
	Guarded bool `json:"guarded"`
	// Sandboxed says the verdict assumed the command runs in cuff's sandbox
	// (Input.Sandboxed).
	Sandboxed bool `json:"sandboxed"`
}

// Command is the explanation for one simple command.
type Command struct {
	// Text is the command as written (or, for a wrapped command, re-quoted).
	Text string `json:"text"`
	// Argv is the command's words after quote removal; expansions that are
	// only known when the command runs are left as written.
	Argv    []string `json:"argv"`
	Tier    Tier     `json:"tier"`
	Verdict Verdict  `json:"verdict"`
	// Rule is the policy rule that matched, as "pattern (source)".
	Rule    string   `json:"rule"`
	Reasons []string `json:"reasons"`
	// AgentCode says the command runs code, or follows build configuration,
	// that the agent may have written in the work tree: test runners, build
	// tools, package scripts, programs named by a path in the work tree,
	// git commands that run the repository's hooks. Outside cuff's sandbox
	// such a command is never allowed by the built-in rules (Input).
	AgentCode bool `json:"agent_code,omitempty"`
	// Secret says the command reads credential material (a key, a .env
	// file, the environment); in strict mode it asks, and the agent's
	// session is to be marked as having read secrets.
	Secret bool `json:"secret,omitempty"`

	// agentWhy says what agent code the command runs.
	agentWhy string
	// projectRule: a project rule decided the command.
	projectRule bool
	// secret: the command reads credential material (see Secret).
	secret bool
	// notAlways says why no standing rule should allow the command.
	notAlways string
	// guarded: the command changes cuff's state, the agent's settings or
	// a guarded directory (see Result.Guarded).
	guarded bool
	need    copNeed
}

// entry is a Command while the analysis classifies it, with what only the
// classification needs (kept out of Command, which the result copies).
type entry struct {
	Command
	findings []finding
	// findBuf backs findings, so that most commands need no allocation
	// for them.
	findBuf [3]finding
	// extra holds concerns that a rule about the command's words does not
	// cover: environment prefixes and redirections.
	extra []finding
	// unliftable is set once a concern other than "not known to be local"
	// was found, so that built-in allow rules no longer apply.
	unliftable bool
	// noAllowRule prevents allow rules (the command name is computed).
	noAllowRule bool
	// argSafe: no argument can make the command run code or write files.
	argSafe bool
	// ruleText is the normalised text that policy rules are matched against.
	ruleText string
}

// Grantable reports whether a session approval of this exact command (a
// grant) may let it run: the gate asks, no part is denied, and no part
// touches what Guarded covers. A grant never outranks a deny rule.
func (r *Result) Grantable() bool { return r.Verdict == VerdictAsk && !r.Guarded }

// finding is one concern about a command, with the tier it implies.
type finding struct {
	tier   Tier
	reason string
}

// add records a concern about the command's words.
func (c *entry) add(t Tier, reason string) {
	if c.findings == nil {
		c.findings = c.findBuf[:0]
	}
	c.findings = append(c.findings, finding{t, reason})
}

// addExtra records a concern about the environment or redirections.
func (c *entry) addExtra(t Tier, reason string) {
	c.extra = append(c.extra, finding{t, reason})
}

// worst is the highest tier among fs, and whether there is any.
func worst(fs []finding) (Tier, bool) {
	if len(fs) == 0 {
		return TierLocal, false
	}
	t := fs[0].tier
	for _, f := range fs[1:] {
		t = max(t, f.tier)
	}
	return t, true
}

// finish sets the tier from the decision about the words and the extra
// concerns, and lists the reasons that explain it. skipWords leaves out the
// concerns about the words when a rule decided them.
func (c *entry) finish(wordTier Tier, ruleReason string, skipWords bool) {
	t := wordTier
	if et, ok := worst(c.extra); ok {
		t = max(t, et)
	}
	c.Tier = t
	c.Reasons = make([]string, 0, 2)
	if ruleReason != "" {
		c.Reasons = append(c.Reasons, ruleReason)
	}
	floor := TierGrey
	if t < TierGrey {
		floor = TierLocal
	}
	if !skipWords {
		for _, f := range c.findings {
			if f.tier >= floor {
				c.Reasons = appendUnique(c.Reasons, f.reason)
			}
		}
	}
	for _, f := range c.extra {
		if f.tier >= floor {
			c.Reasons = appendUnique(c.Reasons, f.reason)
		}
	}
	if len(c.Reasons) == 0 {
		c.Reasons = append(c.Reasons, "no concern found")
	}
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
