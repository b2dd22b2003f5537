package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// Limits that keep the classifier fast and bounded on hostile input.
const (
	// maxCommandBytes is the longest command line the gate parses.
	maxCommandBytes = 1 << 20
	// maxScriptDepth bounds scripts inside scripts (sh -c 'sh -c …').
	maxScriptDepth = 8
	// maxWrapDepth bounds wrappers inside wrappers (timeout nice env …).
	maxWrapDepth = 16
	// maxCommands bounds the simple commands examined in one command line.
	maxCommands = 4096
	// DefaultCopTimeout is how long the cop may think when none is set.
	DefaultCopTimeout = 5 * time.Second
	// DefaultHookTimeout is how long one extra hook may run when none is set.
	DefaultHookTimeout = 10 * time.Second
)

// Options configures a Gate. The zero value is strict mode with the built-in
// policy only, no cop and no hooks.
type Options struct {
	// Mode selects the verdict table; empty means strict.
	Mode Mode
	// Policy holds the project's rules (.cuff/policy.yml); they come before
	// everything else. Nil means none.
	Policy *Policy
	// TrustedPolicy, when set, is the version of the project's rules a
	// person trusted, and Policy a later version not trusted yet: a rule of
	// either that asks or denies applies, an allow only where both allow
	// (tightening counts at once, loosening once trusted).
	TrustedPolicy *Policy
	// NoBuiltin turns the built-in allow rules off.
	NoBuiltin bool
	// CopCommand is a shell command that reviews grey and risky commands of
	// a tainted agent (JSON on stdin and stdout). Empty means no cop.
	CopCommand string
	// CopTimeout bounds one review; zero means DefaultCopTimeout.
	CopTimeout time.Duration
	// Cop, when set, is used instead of CopCommand.
	Cop Cop
	// Hooks are extra before-tool-use commands, run in order after the
	// built-in checks.
	Hooks []string
	// HookTimeout bounds one hook; zero means DefaultHookTimeout.
	HookTimeout time.Duration
	// Workspace is the project root: files inside it may be written and
	// removed freely, and its build files are trusted. Empty means Dir; with
	// both empty, every absolute path is outside.
	Workspace string
	// Dir is the command's working directory; empty means Workspace.
	Dir string
	// Home is the user's home directory, for ~ and $HOME.
	Home string
	// TempDirs are the directories where writing is harmless; nil means
	// the system's (/tmp, /var/tmp, /dev/shm and $TMPDIR).
	TempDirs []string
	// Protected are directories outside the workspace that hold the
	// agent's and cuff's own configuration and permissions (cuff's state
	// directory with its approvals and grants, ~/.claude, ~/.codex): writing
	// there is never harmless, even when they lie under /tmp.
	Protected []string
}

// Gate classifies shell commands and decides whether they may run. It is
// safe for concurrent use.
type Gate struct {
	mode        Mode
	policy      *Policy
	trusted     *Policy // nil: policy is trusted as it is
	builtin     *Policy
	cop         Cop
	hooks       []string
	hookTimeout time.Duration
	root        string
	dir         string
	home        string
	temps       []string
	realHome    string
	secrets     []secretPlace
	// secretHomes are the home folder as given and as it really is, whose
	// credential stores secretPath looks at.
	secretHomes []string
	// known maps directories resolved when the gate was made (the
	// workspace root, as given and as it really is, the home folder and
	// the temporary directories) to their real paths, longest first.
	known          []knownDir
	protected      []string
	userConfigOnce sync.Once // reads userConf
	userConf       userConfig
	goInstalled    sync.Once // reads goVersion
	pathInTree     sync.Once // reads pathDirs
	pathDirs       []pathDir // $PATH's directories, when one lies in the work tree
	goVersion      string    // the installed Go's version (1.26.8), "" when unknown
	parsers        sync.Pool // *syntax.Parser
	analyses       sync.Pool // *analysis
	// lines counts the command lines decided; from the second on, the
	// gate keeps the listings it reads (dirCache).
	lines    atomic.Int64
	listings dirCache
}

// New builds a gate from opts.
func New(opts Options) (*Gate, error) {
	mode, err := ParseMode(string(opts.Mode))
	if err != nil {
		return nil, err
	}
	g := &Gate{
		mode:        mode,
		policy:      opts.Policy,
		trusted:     opts.TrustedPolicy,
		cop:         opts.Cop,
		hooks:       opts.Hooks,
		hookTimeout: opts.HookTimeout,
		root:        virtualRoot,
		home:        cleanAbs(opts.Home),
	}
	if g.hookTimeout <= 0 {
		g.hookTimeout = DefaultHookTimeout
	}
	if g.cop == nil && strings.TrimSpace(opts.CopCommand) != "" {
		g.cop = &CommandCop{Command: opts.CopCommand, Timeout: opts.CopTimeout}
	}
	if !opts.NoBuiltin {
		b, err := builtinPolicy()
		if err != nil {
			return nil, err
		}
		g.builtin = b
	}
	for _, p := range opts.Protected {
		if c := cleanAbs(p); c != "" && c != "/" {
			g.protected = append(g.protected, c)
			if r := realDir(c); r != c {
				g.protected = append(g.protected, r)
			}
		}
	}
	g.realHome = realDir(g.home)
	g.secrets = secretPlaces()
	for _, h := range []string{g.home, g.realHome} {
		if h != "" && !slices.Contains(g.secretHomes, h) {
			g.secretHomes = append(g.secretHomes, h)
		}
	}
	g.dir = cleanAbs(opts.Dir)
	switch ws := cleanAbs(opts.Workspace); {
	case ws != "":
		g.root = realDir(ws)
	case g.dir != "":
		g.root = realDir(g.dir) // the working directory stands for the workspace
	}
	if g.dir == "" {
		g.dir = g.root
	}
	if g.root != virtualRoot {
		g.known = append(g.known, knownDir{given: g.root, real: g.root})
		if ws := cleanAbs(opts.Workspace); ws != "" && ws != g.root {
			g.known = append(g.known, knownDir{given: ws, real: g.root})
		}
	}
	temps := opts.TempDirs
	if temps == nil {
		temps = []string{"/tmp", "/var/tmp", "/private/tmp", "/dev/shm", os.TempDir()}
	}
	for _, t := range temps {
		if t = cleanAbs(t); t != "" && t != "/" {
			g.temps = append(g.temps, t)
			if r := realDir(t); r != t {
				g.temps = append(g.temps, r)
			}
		}
	}
	// The home folder and the temporary directories, when no link lies on
	// their way (so that following them gives the same answer), are
	// resolved now too, as the workspace is: the paths below them are still
	// looked up at every decision. Longest first, so that a path starts
	// from the nearest.
	for _, d := range append([]string{g.home}, g.temps...) {
		if d == "" || d == "/" || realDir(d) != d || slices.ContainsFunc(g.known, func(k knownDir) bool { return k.given == d }) {
			continue
		}
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			g.known = append(g.known, knownDir{given: d, real: d, noMade: true})
		}
	}
	slices.SortStableFunc(g.known, func(x, y knownDir) int { return len(y.given) - len(x.given) })
	g.parsers.New = func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }
	g.analyses.New = func() any { return new(analysis) }
	return g, nil
}

// knownDir is a directory resolved once: as given, and as it really is.
// With noMade it is used only while the command line has made no link
// (a link made in the line is followed from the root up).
type knownDir struct {
	given, real string
	noMade      bool
}

func cleanAbs(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.ToSlash(filepath.Clean(p))
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	return p
}

// Mode is the gate's verdict table.
func (g *Gate) Mode() Mode { return g.mode }

// Input is what the caller knows about a command besides its text.
type Input struct {
	// Taint is the agent session's taint.
	Taint Taint
	// Sandboxed says the command will run inside cuff's kernel sandbox
	// (recorder/sandbox): it can write only the work tree, the temporary
	// directory and build caches, and cannot connect out. Only then may a
	// command that runs code the agent may have written (Command.AgentCode:
	// test runners, build tools, package scripts, ./x, git commands that
	// run hooks) be allowed by the built-in rules or the analysis; outside
	// the sandbox such a command gets no decision (VerdictNone), so the
	// agent's own permission flow applies. A project rule that allows the
	// command (trusted .cuff/policy.yml) still allows it. The zero value is
	// "not sandboxed", the safe answer for a caller that does not know.
	Sandboxed bool
}

// Decide classifies command and decides it for a run described by in,
// asking the cop when the verdict table says so. It always returns a
// result, whatever the input; a command that does not parse is asked about.
//
// Result.AgentCode reports that some part runs code the agent may have
// written; Result.Sandboxed echoes in.Sandboxed. A caller that can run the
// command in the sandbox should ask with Sandboxed set only if it will.
func (g *Gate) Decide(ctx context.Context, command string, in Input) Result {
	cmds := g.classify(command)
	res := Result{Commands: cmds, Reasons: []string{}, Sandboxed: in.Sandboxed}
	var need bool
	for i := range res.Commands {
		c := &res.Commands[i]
		c.Verdict, c.need = decide(c.Tier, g.mode, in.Taint)
		need = need || c.need != copNone
	}
	if need && !anyVerdict(res.Commands, VerdictDeny) {
		g.consultCop(ctx, command, in.Taint, &res)
	}
	outsideSandbox(res.Commands, in.Sandboxed)
	res.summarise()
	return res
}

// Check is Decide for a command that runs outside the sandbox, for an
// agent with the given taint.
func (g *Gate) Check(ctx context.Context, command string, taint Taint) Result {
	return g.Decide(ctx, command, Input{Taint: taint})
}

// Classify explains command in strict mode without taint, without the cop
// and outside the sandbox: what `cuff check` shows when nothing else is
// configured.
func (g *Gate) Classify(command string) Result {
	res := Result{Commands: g.classify(command), Reasons: []string{}}
	for i := range res.Commands {
		c := &res.Commands[i]
		c.Verdict, _ = decide(c.Tier, ModeStrict, 0)
	}
	outsideSandbox(res.Commands, false)
	res.summarise()
	return res
}

// outsideSandbox takes allow away from the parts that run code the agent
// may have written when the command will not run in the sandbox, unless a
// project rule allowed them.
func outsideSandbox(cs []Command, sandboxed bool) {
	for i := range cs {
		c := &cs[i]
		if !c.AgentCode || sandboxed || c.Verdict != VerdictAllow || c.projectRule {
			continue
		}
		c.Verdict = VerdictNone
		c.Reasons = append(c.Reasons, "runs code the agent may have written ("+c.agentWhy+"), and not in cuff's sandbox: "+
			"cuff leaves it to the agent's own permission flow")
	}
}

func anyVerdict(cs []Command, v Verdict) bool {
	for i := range cs {
		if cs[i].Verdict == v {
			return true
		}
	}
	return false
}

// consultCop asks the cop about the parts whose verdict depends on it; a
// cop that fails leaves them at ask.
func (g *Gate) consultCop(ctx context.Context, command string, taint Taint, res *Result) {
	if g.cop == nil {
		for i := range res.Commands {
			if c := &res.Commands[i]; c.need != copNone {
				c.Reasons = append(c.Reasons, "tainted agent and no cop configured: a person decides")
			}
		}
		return
	}
	cv, err := g.cop.Inspect(ctx, CopRequest{Type: copRequestType, Command: command, Taint: taint.Strings(), WorkingDirectory: g.dir})
	if err != nil {
		for i := range res.Commands {
			if c := &res.Commands[i]; c.need != copNone {
				c.Reasons = append(c.Reasons, fmt.Sprintf("cop failed (%v): a person decides", err))
			}
		}
		res.Cop = &CopVerdict{Error: err.Error()}
		return
	}
	res.Cop = &cv
	for i := range res.Commands {
		c := &res.Commands[i]
		if c.need == copNone {
			continue
		}
		c.Verdict = afterCop(c.need, cv.Flagged)
		word := "cleared"
		if cv.Flagged {
			word = "flagged"
		}
		r := "cop " + word + " the command"
		if cv.Reason != "" {
			r += ": " + cv.Reason
		}
		c.Reasons = append(c.Reasons, r)
	}
}

// summarise sets the overall verdict from the parts.
func (r *Result) summarise() {
	if len(r.Commands) == 0 {
		r.Verdict, r.Tier = VerdictAllow, TierLocal
		r.Reasons = []string{"no command to run"}
		return
	}
	best := 0
	for i := range r.Commands { // by index: a Command is large to copy
		c, b := &r.Commands[i], &r.Commands[best]
		if c.Verdict > b.Verdict || c.Verdict == b.Verdict && c.Tier > b.Tier {
			best = i
		}
	}
	c := &r.Commands[best]
	r.Verdict, r.Tier, r.Rule = c.Verdict, c.Tier, c.Rule
	for i := range r.Commands {
		x := &r.Commands[i]
		r.AgentCode = r.AgentCode || x.AgentCode
		r.Secret = r.Secret || x.Secret
		r.Guarded = r.Guarded || x.guarded
		if r.NotAlways == "" {
			r.NotAlways = x.notAlways
		}
	}
	if len(r.Commands) == 1 && len(c.Reasons) > 0 {
		// The one part's reasons, shared: capped, so that appending to
		// either copies.
		r.Reasons = c.Reasons[:len(c.Reasons):len(c.Reasons)]
		return
	}
	r.Reasons = make([]string, 0, len(c.Reasons)+1)
	if len(r.Commands) > 1 {
		r.Reasons = append(r.Reasons, "decided by: "+c.Text)
	}
	r.Reasons = append(r.Reasons, c.Reasons...)
}

// classify finds and classifies every simple command of a command line.
func (g *Gate) classify(command string) []Command {
	a := g.analyses.Get().(*analysis)
	a.reset(g)
	a.keepListings = g.lines.Add(1) > 1
	defer g.analyses.Put(a)
	if len(command) > maxCommandBytes {
		e := a.newEntry(command[:200] + "…")
		e.add(TierUnparsed, fmt.Sprintf("command is %d bytes, more than the %d the gate checks", len(command), maxCommandBytes))
		a.finishEntry(e)
	} else {
		a.script(command)
	}
	out := make([]Command, len(a.entries))
	for i, e := range a.entries {
		out[i] = e.Command
		out[i].Secret = out[i].Secret || e.secret
	}
	return out
}

// plainTree is a tree for a plain line that no tree of this command line
// uses (scripts inside scripts are parsed while the outer tree is used).
func (a *analysis) plainTree() *plainTree {
	if a.usedPlain == len(a.plains) {
		if len(a.plains) == maxPlainTrees {
			return new(plainTree)
		}
		a.plains = append(a.plains, new(plainTree))
	}
	a.usedPlain++
	return a.plains[a.usedPlain-1]
}

// maxPlainTrees bounds the plain trees an analysis keeps.
const maxPlainTrees = 8

// parse parses shell source with a pooled parser; a line of plain words
// gets its tree without one (plainLine).
func (a *analysis) parse(src string) (*syntax.File, error) {
	if f, ok := a.plainTree().build(src); ok {
		return f, nil
	}
	p := a.g.parsers.Get().(*syntax.Parser)
	defer a.g.parsers.Put(p)
	a.reader.Reset(src)
	return p.Parse(&a.reader, "")
}
