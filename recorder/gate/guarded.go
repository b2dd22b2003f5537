package gate

import (
	"path"
	"strings"
)

// guardedDirs are the workspace's own directories that no command but
// git's own may delete, move or write: the agent's settings with the hooks
// that gate it (.claude, .codex), cuff's policy and recordings (.cuff) and
// the repository's history (.git). Reading them is harmless. They count
// wherever they lie in the workspace (a nested repository's history is
// history too).
func guardedDirs() [4]string { return [...]string{".git", ".cuff", ".claude", ".codex"} }

// guardedSamples are names found inside the guarded directories, and the
// directories themselves. A find -name pattern that matches none of them
// picks nothing there that matters, so find may delete or rewrite what it
// matches from the workspace root.
func guardedSamples() []string {
	return []string{
		".git", ".cuff", ".claude", ".codex",
		// .git
		"HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "COMMIT_EDITMSG", "config",
		"description", "index", "index.lock", "packed-refs", "shallow", "objects", "refs", "heads", "tags",
		"remotes", "hooks", "info", "logs", "exclude", "modules", "worktrees", "pre-commit",
		"pre-commit.sample", "commit-graph", "multi-pack-index", "pack-4b825dc6.pack", "pack-4b825dc6.idx",
		"pack-4b825dc6.rev", "pack-4b825dc6.keep", "pack-4b825dc6.bitmap", "4b",
		"825dc642cb6eb9a060e54bf8d69288fbee4904", "main", "master",
		// .cuff
		"policy.yml", "settings.yml", "recordings", "sessions", "index.json", "current.json",
		"current.lock", "0199aaaa-bbbb-7ccc.jsonl", "0199aaaa-bbbb-7ccc.meta.json", "0199aaaa-bbbb-7ccc.lock",
		// .claude and .codex
		"settings.json", "settings.local.json", "commands", "agents", "skills", "config.toml",
	}
}

// guardedWhat says what a guarded directory holds, naming it.
func guardedWhat(name string) string {
	switch name {
	case ".git":
		return "the repository's history (.git)"
	case ".cuff":
		return "cuff's policy, settings and recordings (.cuff)"
	case ".claude":
		return "the agent's settings with the hooks that gate it (.claude)"
	case ".codex":
		return "the agent's settings (.codex)"
	}
	return name
}

// guardedIn returns the guarded directory that the workspace-relative path
// rel names or lies in, or "" when there is none. With pattern, rel holds
// shell glob characters and any guarded directory it may match counts.
func guardedIn(rel string, pattern bool) string {
	top := true
	for rel != "" {
		comp, rest, _ := strings.Cut(rel, "/")
		if g := guardedComp(comp, pattern, top); g != "" {
			return g
		}
		rel, top = rest, false
	}
	return ""
}

// guardedComp matches one path component against the guarded names. A
// pattern at the top of the workspace matches as if bash's dotglob were on
// (the agent's shell may have it); deeper, the shell's rule holds: only a
// literal dot matches a leading dot.
func guardedComp(comp string, pattern, top bool) string {
	if !pattern {
		if len(comp) < 4 || comp[0] != '.' {
			return ""
		}
		for _, g := range guardedDirs() {
			if comp == g {
				return g
			}
		}
		return ""
	}
	if strings.ContainsAny(comp, "()") {
		// An extended glob (@(…), !(…)) or a zsh qualifier: not matched
		// here, so assume the worst.
		return ".git"
	}
	if !top && !strings.HasPrefix(comp, ".") {
		return ""
	}
	if unmatchable(comp) {
		return ".git" // a class path.Match does not know may match them: assume it does
	}
	pat := strings.ReplaceAll(comp, "[!", "[^")
	for _, g := range guardedDirs() {
		if ok, err := path.Match(pat, g); ok || err != nil {
			return g
		}
	}
	return ""
}

// guarded returns the guarded directory of the workspace that x names, lies
// in or, as a pattern, may match; "" when there is none or x is not a path
// inside the workspace (paths outside are judged as such).
func (a *analysis) guarded(x arg, follow bool) (name, rel string) {
	rel, ok := a.relOf(x, true, follow)
	if !ok {
		return "", ""
	}
	return guardedIn(rel, x.glob), rel
}

// guardedPart describes the place a path inside a guarded directory takes:
// the whole directory, or a part of it.
func guardedPart(g, rel string) string {
	if b := path.Base(rel); b == g || strings.ContainsAny(b, "*?[") {
		return guardedWhat(g)
	}
	return "part of " + guardedWhat(g)
}

// linksGuarded describes the guarded or protected directory that x, the
// target of a link, names or lies in ("" if none): a second name for it
// would let later commands change it through a path the gate does not
// recognise. A relative target counts wherever the link goes.
func (a *analysis) linksGuarded(x arg) string {
	if x.dyn {
		return ""
	}
	for rest := x.val; rest != ""; {
		var comp string
		comp, rest, _ = strings.Cut(rest, "/")
		if g := guardedComp(comp, x.glob, false); g != "" {
			if path.Base(x.val) == g {
				return guardedWhat(g)
			}
			return "part of " + guardedWhat(g)
		}
	}
	if a.where(x) == pathOutside {
		if pr := a.g.protectedDir(a.absolute(x.val)); pr != "" {
			return "in " + pr + ", which holds the agent's or cuff's own settings"
		}
	}
	return ""
}

// safeFindName reports a find -name (or, with fold, -iname) pattern that
// matches nothing the guarded directories hold.
func safeFindName(pat string, fold bool) bool {
	if unmatchable(pat) {
		return false
	}
	if fold {
		pat = strings.ToLower(pat)
	}
	pat = strings.ReplaceAll(pat, "[!", "[^")
	for _, s := range guardedSamples() {
		if fold {
			s = strings.ToLower(s)
		}
		if ok, err := path.Match(pat, s); ok || err != nil {
			return false
		}
	}
	return true
}

// maxFindNesting bounds the parentheses of a find expression that
// findNamed follows; deeper ones leave every action unchecked.
const maxFindNesting = 64

// findNamer works out, for each action of a find expression (-delete,
// -exec and kin), whether it only runs on files whose names a -name test
// has shown to be none of the guarded directories' contents.
type findNamer struct {
	args  []arg
	i     int
	depth int
	bail  bool
	named []bool // by index into args: the action there is name-checked
}

// findNamed parses the find expression args[from:] and returns which
// actions are name-checked, by index into args.
func findNamed(args []arg, from int) []bool {
	p := findNamer{args: args, i: from, named: make([]bool, len(args))}
	for p.i < len(p.args) && !p.bail {
		p.list(false)
		p.i++ // a stray ")"
	}
	if p.bail {
		clear(p.named)
	}
	return p.named
}

// Each parser step takes whether the files that reach it have a checked
// name (known) and returns whether they do after it, given that it was
// true.

func (p *findNamer) list(known bool) bool {
	k := p.or(known)
	for p.i < len(p.args) && p.args[p.i].val == "," && !p.bail {
		p.i++
		k = p.or(known)
	}
	return k
}

func (p *findNamer) or(known bool) bool {
	k := p.and(known)
	for p.i < len(p.args) && (p.args[p.i].val == "-o" || p.args[p.i].val == "-or") && !p.bail {
		p.i++
		k = p.and(known) && k
	}
	return k
}

func (p *findNamer) and(known bool) bool {
	k := known
	for p.i < len(p.args) && !p.bail {
		switch p.args[p.i].val {
		case "-o", "-or", ",", ")":
			return k
		case "-a", "-and":
			p.i++
			continue
		}
		if p.unary(k) {
			k = true
		}
	}
	return k
}

func (p *findNamer) unary(known bool) bool {
	at := p.i
	x := p.args[at]
	p.i++
	switch v := x.val; {
	case x.lead:
		p.bail = true
	case v == "!" || v == "-not":
		if p.i < len(p.args) {
			p.unary(known)
		}
	case v == "(":
		if p.depth++; p.depth > maxFindNesting {
			p.bail = true
			return false
		}
		k := p.list(known)
		p.depth--
		if p.i < len(p.args) && p.args[p.i].val == ")" {
			p.i++
		}
		return k
	case v == "-name" || v == "-iname":
		if p.i < len(p.args) {
			pat := p.args[p.i]
			p.i++
			return !pat.dyn && safeFindName(pat.val, v == "-iname")
		}
	case v == "-delete":
		p.named[at] = known
	case v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir":
		p.named[at] = known
		for p.i < len(p.args) && !(p.args[p.i].static() && (p.args[p.i].val == ";" || p.args[p.i].val == "+")) {
			p.i++
		}
		p.i++
	case v == "-fprintf":
		p.i += 2
	case v == "-fprint" || v == "-fprint0" || v == "-fls" || findValuePrimary(v):
		p.i++
	}
	return false
}

// findAction reports find's primaries that delete files or run commands on
// them.
func findAction(v string) bool {
	switch v {
	case "-delete", "-exec", "-execdir", "-ok", "-okdir":
		return true
	}
	return false
}

// unmatchable reports a glob that path.Match would read differently from
// the shell's fnmatch: POSIX classes ([[:punct:]], [[=a=]], [[.-.]]) and
// backslash escapes. What such a glob matches is not worked out; callers
// assume the worst.
func unmatchable(glob string) bool {
	return strings.Contains(glob, "\\") || strings.Contains(glob, "[:") || strings.Contains(glob, "[=") || strings.Contains(glob, "[.")
}
