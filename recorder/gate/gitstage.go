package gate

import (
	"bytes"
	"errors"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cuff-dev/cuff/recorder/gate/internal/gitignore"
	"github.com/cuff-dev/cuff/recorder/gate/internal/gitindex"
	"mvdan.cc/sh/v3/syntax"
)

// Staging an untracked file copies its contents into git's object store,
// where git diff --cached, git show and git stash show -p print it: staging
// a credential file is reading it. The gate looks for what git would stage
// as git does (its ignore rules, what the index already tracks) and asks
// when that holds a credential file. A file the repository already tracks
// is no new read: its contents are in the history.

// maxStageWalk bounds how many directory entries the gate looks at to
// learn what a git command would stage.
const maxStageWalk = 50000

// maxIndexFile bounds the git index the gate reads; a larger one counts
// as tracking nothing, which can only make it ask more.
const maxIndexFile = 64 << 20

// staging describes what a git command copies from the work tree into the
// repository: the pathspecs it names (all of them relative to dir), or the
// whole work tree; force when ignore rules do not apply.
type staging struct {
	what  string // "git add", for explanations
	dir   string // the working directory git runs in; "" when not known, or another work tree
	specs []arg
	whole bool
	force bool
}

// gitAdd judges git add by what it stages.
func (c *call) gitAdd(dir string, rest []arg) {
	s := staging{what: "git add", dir: dir}
	all, opts := false, true
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		v := x.val
		switch {
		case !opts || !strings.HasPrefix(v, "-") || v == "-":
			s.specs = append(s.specs, x)
			continue
		case v == "--":
			opts = false
			continue
		}
		name, _, hasEq := strings.Cut(v, "=")
		switch {
		case isLong(name, "dry-run") || isLong(name, "update") || isLong(name, "patch") ||
			isLong(name, "interactive") || isLong(name, "edit") || isLong(name, "refresh") || isLong(name, "renormalize"):
			return // names only, or files the repository already tracks
		case isLong(name, "all") || isLong(name, "no-ignore-removal"):
			all = true
		case isLong(name, "no-all") || isLong(name, "ignore-removal"):
			all = false
		case isLong(name, "force"):
			s.force = true
		case isLong(name, "pathspec-from-file"):
			s.whole = true // a list the gate does not read: any file
			if !hasEq {
				i++
			}
		case isLong(name, "chmod"):
			if !hasEq {
				i++
			}
		case strings.HasPrefix(v, "--"):
		default:
			for _, f := range v[1:] {
				switch f {
				case 'n', 'u', 'p', 'i', 'e':
					return
				case 'A':
					all = true
				case 'f':
					s.force = true
				}
			}
		}
	}
	if all && len(s.specs) == 0 {
		s.whole = true
	}
	c.stages(s)
}

// gitStashUntracked judges git stash push --include-untracked (-u), which
// copies untracked files into the stash, where git stash show -p -u
// prints them.
func (c *call) gitStashUntracked(dir string, rest []arg) {
	untracked := false
	for _, x := range rest {
		if x.val == "--" {
			break
		}
		if isLong(x.val, "include-untracked") || x.val != "--" && strings.HasPrefix(x.val, "-") && !strings.HasPrefix(x.val, "--") && strings.ContainsRune(x.val, 'u') {
			untracked = true
		}
	}
	if !untracked {
		return
	}
	s := staging{what: "git stash --include-untracked", dir: dir}
	for _, x := range stashPathspecs(rest) {
		if !strings.HasPrefix(x.val, "-") {
			s.specs = append(s.specs, x)
		}
	}
	s.whole = len(s.specs) == 0
	c.stages(s)
}

// gitGrep judges what git grep prints lines of: the files the index
// tracks below dir, the untracked ones too with --untracked (as git add
// would stage them), every file with --no-index.
func (c *call) gitGrep(dir string, rest []arg) {
	has := func(flag string) bool {
		return slices.ContainsFunc(rest, func(x arg) bool { return x.val == flag })
	}
	if dir == "" {
		c.secretRead("git grep searches a directory only known at run time, which may hold credential files")
		return
	}
	if has("--no-index") {
		if why := c.a.secretBelow(dir, reading{recursive: true, hidden: true, gitIgnores: has("--exclude-standard")}); why != "" {
			c.secretRead("git grep --no-index searches " + dir + ": " + why)
		}
		return
	}
	if why, known := c.a.trackedSecret(dir); why != "" || !known {
		if why == "" {
			why = "its index cannot be read"
		}
		c.secretRead("git grep searches the files git tracks below " + dir + ": " + why)
		return
	}
	if has("--untracked") {
		c.stages(staging{what: "git grep --untracked", dir: dir, specs: []arg{{val: "."}}, force: has("--no-exclude-standard")})
	}
}

// gitUpdateIndex judges git update-index --add --stdin and git
// hash-object --stdin-paths, which take any file named on their input,
// ignored or not.
func (c *call) gitStdinPaths(dir, what string) {
	c.stages(staging{what: what, dir: dir, whole: true, force: true})
}

// stages asks when what s would stage holds a credential file.
func (c *call) stages(s staging) {
	if !s.whole && len(s.specs) == 0 {
		return
	}
	if s.dir == "" {
		c.secretRead(s.what + " stages files from a work tree the gate does not look through (a directory only known at run time, or one --git-dir or --work-tree names), which may hold credential files")
		return
	}
	top, gitDir, common := c.a.repoAround(s.dir)
	if top == "" {
		return // not a repository: git stages nothing
	}
	roots := []string{}
	if s.whole {
		roots = append(roots, top)
	}
	for _, x := range s.specs {
		switch {
		case s.whole:
		case x.dyn || strings.HasPrefix(x.val, ":"):
			roots = append(roots, top) // only known at run time, or magic that may widen to the tree
		default:
			p := x.val
			if i := strings.IndexAny(p, "*?[\\"); i >= 0 {
				p = p[:strings.LastIndexByte(p[:i], '/')+1] // the pattern's fixed directories
			}
			if !path.IsAbs(p) {
				p = s.dir + "/" + p
			}
			p = path.Clean(p)
			if p != top && !strings.HasPrefix(p, top+"/") {
				continue // outside the work tree: git refuses it
			}
			if li := c.a.lstat(p); li.dir {
				roots = append(roots, p)
			}
			// A file is named by itself: secretReads judges its name.
		}
	}
	if len(roots) == 0 {
		return
	}
	unsure := !s.force && c.a.ignoresMayChange(c.cx.stmt)
	if unsure {
		s.force = true // what git ignores then is not what it ignores now
	}
	var global gitignore.Stack
	if !s.force {
		global = c.a.g.excludeRules(common)
	}
	var tracked []string
	trackedRead := false
	found := ""
	for _, root := range roots {
		err := gitignore.Walk(top, root, gitignore.WalkOptions{Rules: global, NoIgnore: s.force, Max: maxStageWalk, List: c.a.listForWalk}, func(rel string, _ bool) bool {
			if c.a.g.secretPath(top+"/"+rel) == "" {
				return true
			}
			if !trackedRead {
				tracked, _ = readIndex(gitDir, common)
				trackedRead = true
			}
			if slices.Contains(tracked, rel) {
				return true // in the history already
			}
			found = rel
			return false
		})
		switch {
		case found != "":
			how := "untracked and not ignored"
			switch {
			case unsure:
				how = "untracked; another command of this line may change what git ignores before " + s.what + " runs"
			case s.force:
				how = "untracked; --force stages it even if ignored"
			}
			c.secretRead(s.what + " " + s.verb() + " " + found + " (" + how + "), a credential file" + s.after())
			return
		case errors.Is(err, gitignore.ErrTooMany):
			c.secretRead(s.what + " stages files from a tree of more than " + strconv.Itoa(maxStageWalk) + " entries, too many for the gate to look through for credential files")
			return
		}
	}
}

// readIndex returns the paths the repository's index tracks; ok is false
// when it cannot be read (a repository without an index tracks nothing).
func readIndex(gitDir, common string) (paths []string, ok bool) {
	fi, err := os.Stat(gitDir + "/index")
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, true
	case err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIndexFile:
		return nil, false
	}
	data, err := readFile(gitDir + "/index")
	if err != nil {
		return nil, false
	}
	size := gitindex.SHA1
	if cfg, err := readFile(common + "/config"); err == nil && containsFoldASCII(cfg, "sha256") {
		size = gitindex.SHA256
	}
	paths, err = gitindex.Paths(data, size)
	return paths, err == nil
}

// trackedSecret says why the files git's index tracks below dir hold a
// credential file, or ""; known is false when there is no index to read.
func (a *analysis) trackedSecret(dir string) (why string, known bool) {
	real := a.place(arg{val: dir}, true).real
	if real == "" {
		return "", false
	}
	top, gitDir, common := a.repoAround(real)
	if top == "" {
		return "", false
	}
	paths, ok := readIndex(gitDir, common)
	if !ok {
		return "", false
	}
	prefix := ""
	if real != top {
		prefix = strings.TrimPrefix(real, top+"/") + "/"
	}
	for _, p := range paths {
		if strings.HasPrefix(p, prefix) {
			if why := a.g.secretPath(top + "/" + p); why != "" {
				return top + "/" + p + " holds credentials", true
			}
		}
	}
	return "", true
}

// excludeRules are the ignore rules that apply to the whole repository
// whose common directory is common: info/exclude, then core.excludesFile.
func (g *Gate) excludeRules(common string) gitignore.Stack {
	var s gitignore.Stack
	if r := ignoreFile(common + "/info/exclude"); r != nil {
		s = append(s, r)
	}
	file := g.globalExcludesFile()
	if cfg, err := readFile(common + "/config"); err == nil {
		if includes(cfg) {
			file = "" // the value may come from a file the gate does not follow
		} else if v := coreKey(cfg, "excludesfile"); v != "" {
			file = g.configPath(v)
		}
	}
	if r := ignoreFile(file); file != "" && r != nil {
		s = append(s, r)
	}
	return s
}

// globalExcludesFile is core.excludesFile as the user's and the system's
// git configuration set it (the user's first), else git's default
// $XDG_CONFIG_HOME/git/ignore; "" when a configuration includes another
// file, which the gate does not follow. Read once per gate: those files
// lie outside the work tree, where no allowed command writes.
func (g *Gate) globalExcludesFile() string {
	g.globalExcludes.Do(func() {
		config := os.Getenv("XDG_CONFIG_HOME")
		if config == "" && g.home != "" {
			config = g.home + "/.config"
		}
		files := []string{}
		if g.home != "" {
			files = append(files, g.home+"/.gitconfig")
		}
		if config != "" {
			files = append(files, config+"/git/config")
		}
		files = append(files, "/etc/gitconfig")
		for _, f := range files {
			if cfg, err := os.ReadFile(f); err == nil && includes(cfg) {
				return
			}
		}
		for _, f := range files {
			if v := coreKeyIn(f, "excludesfile"); v != "" {
				g.globalExcludesPath = g.configPath(v)
				return
			}
		}
		if config != "" {
			g.globalExcludesPath = config + "/git/ignore"
		}
	})
	return g.globalExcludesPath
}

// configPath is a path as git reads it from its configuration: ~/ is the
// home folder; a relative path is left out ("").
func (g *Gate) configPath(v string) string {
	switch {
	case strings.HasPrefix(v, "~/") && g.home != "":
		return g.home + v[1:]
	case path.IsAbs(v):
		return path.Clean(v)
	}
	return ""
}

// includes reports whether a git configuration pulls in other files.
func includes(cfg []byte) bool {
	return bytes.Contains(bytes.ToLower(cfg), []byte("[include"))
}

// ignoreFile reads the ignore rules of a regular file, or nil.
func ignoreFile(p string) *gitignore.Rules {
	if p == "" {
		return nil
	}
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	return gitignore.Parse("", data)
}

// ignoresMayChange reports whether another command of this command line
// may change what git ignores (a .gitignore, git's configuration, the
// environment) before the git command of statement st reads it: any
// command that runs before it, or alongside it (a pipeline, a background
// job, a substitution), other than a few that change no file. A line that
// wrote a file before it counts too, and so does a script inside a script,
// whose outer line the gate does not look back on.
func (a *analysis) ignoresMayChange(st *syntax.Stmt) bool {
	if len(a.written) > 0 || a.depth > 0 {
		return true
	}
	self := -1
	for i := range a.sites {
		if a.sites[i].stmt == st && a.sites[i].kind == siteCall {
			self = i
			break
		}
	}
	if self < 0 {
		return len(a.sites) > 1
	}
	alongside := concurrent(a.sites[self].scopes)
	for j := range a.sites {
		s := &a.sites[j]
		if j == self || changesNoFile(s) {
			continue
		}
		if j < self || alongside || concurrent(s.scopes) {
			return true
		}
	}
	return false
}

// concurrent reports whether a site in these child shells may run before
// or alongside the commands around it: in a pipeline, a background job,
// or a substitution (which runs before the command whose words hold it).
func concurrent(scopes []syntax.Node) bool {
	for _, n := range scopes {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.Stmt:
			return true
		}
	}
	return false
}

// changesNoFile reports a simple command known to change no file: cd, a
// print, a read, git status/diff/log/show, with no redirection other than
// reading a file, a here-document or /dev/null.
func changesNoFile(s *site) bool {
	if s.kind != siteCall || s.call == nil || len(s.call.Assigns) > 0 || len(s.call.Args) == 0 {
		return false
	}
	for _, r := range s.stmt.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		case syntax.DplOut, syntax.DplIn:
			if w := r.Word.Lit(); w != "1" && w != "2" && w != "-" {
				return false
			}
		default:
			if r.Word.Lit() != "/dev/null" {
				return false
			}
		}
	}
	switch s.call.Args[0].Lit() {
	case "cd", "pushd", "popd", "pwd", "true", "false", ":", "echo", "printf", "cat", "ls", "head", "tail", "wc",
		"sleep", "date", "test", "[", "which", "type":
		return true
	case "git":
		if len(s.call.Args) < 2 {
			return false
		}
		for _, w := range s.call.Args[2:] {
			if strings.Contains(w.Lit(), "output") || w.Lit() == "-o" || w.Lit() == "" {
				return false // writes a file, or a word only known at run time
			}
		}
		switch s.call.Args[1].Lit() {
		case "status", "diff", "log", "show", "rev-parse", "ls-files", "shortlog", "describe", "blame":
			return true
		}
	}
	return false
}

// verb and after word what s does with a file it takes.
func (s staging) verb() string {
	if strings.HasPrefix(s.what, "git grep") {
		return "searches"
	}
	return "stages"
}

func (s staging) after() string {
	if strings.HasPrefix(s.what, "git grep") {
		return ", and prints the lines that match"
	}
	return ", which git diff --cached, git show or git stash show -p then print"
}
