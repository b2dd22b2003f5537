package gate

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cuff-dev/cuff/recorder/gate/internal/gitignore"
	"github.com/cuff-dev/cuff/recorder/gate/internal/gitindex"
	"github.com/cuff-dev/cuff/recorder/gate/internal/gitobj"
	"golang.org/x/sys/unix"
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
	// trackedOnly: only what the index tracks is staged (git add -u,
	// git commit -a, git stash) or printed (git diff, git add -p).
	trackedOnly bool
	printsOnly  bool // it prints the changes, stages nothing
}

// gitAdd judges git add by what it stages.
func (c *call) gitAdd(dir string, rest []arg) {
	s := staging{what: "git add", dir: dir}
	all, tracked, none := false, false, false
	s.specs = gitWords(rest, func(v, name string, hasEq bool) (values int) {
		switch {
		case isLong(name, "dry-run") || isLong(name, "refresh"):
			none = true // names only, or the index's stat data
		case isLong(name, "update") || isLong(name, "patch") || isLong(name, "edit") || isLong(name, "renormalize"):
			tracked = true // the changes of what the index tracks: staged, or printed hunk by hunk
		case isLong(name, "interactive"):
			all = true // its menu adds untracked files too
		case isLong(name, "all") || isLong(name, "no-ignore-removal"):
			all = true
		case isLong(name, "no-all") || isLong(name, "ignore-removal"):
			all = false
		case isLong(name, "force"):
			s.force = true
		case isLong(name, "pathspec-from-file"):
			s.whole = true // a list the gate does not read: any file
			return valueWords(hasEq)
		case isLong(name, "chmod"):
			return valueWords(hasEq)
		case strings.HasPrefix(v, "--"):
		default:
			for _, f := range v[1:] {
				switch f {
				case 'n':
					none = true
				case 'u', 'p', 'e':
					tracked = true
				case 'i', 'A':
					all = true
				case 'f':
					s.force = true
				}
			}
		}
		return 0
	})
	if none {
		return
	}
	if (all || tracked) && len(s.specs) == 0 {
		s.whole = true
	}
	s.trackedOnly = tracked && !all
	c.stages(s)
}

// gitCommit judges git commit by what it stages from the work tree: with
// -a every change of what the index tracks, with paths (--only, --include)
// their changes, with -p the hunks it prints; with -vv (and --dry-run) it
// prints the work tree's changes too.
func (c *call) gitCommit(dir string, rest []arg) {
	if verbosity(rest) >= 1 && slices.ContainsFunc(rest, func(x arg) bool { return x.val == "--dry-run" }) {
		c.stagedSecret(staging{what: "git commit --dry-run -v", dir: dir, whole: true}, false, "prints", "") // -v prints what is staged
		if c.e.secret {
			return
		}
	}
	if !slices.ContainsFunc(rest, func(x arg) bool { return x.val == "--dry-run" }) {
		// What is staged goes into history, where git show and git log -p
		// print it.
		c.stagedSecret(staging{what: "git commit", dir: dir, whole: true}, false, "records", "; git show and git log -p then print it")
	}
	if verbosity(rest) >= 2 {
		c.gitDiffWorktree(dir, "git commit -vv", nil, 0) // --dry-run -vv prints the work tree's changes
		if c.e.secret {
			return
		}
	}
	s := staging{what: "git commit", dir: dir, trackedOnly: true}
	stages := false
	s.specs = gitWords(rest, func(v, name string, hasEq bool) (values int) {
		switch {
		case isLong(name, "all") || isLong(name, "patch"):
			stages = true
		case isLong(name, "interactive"):
			stages, s.trackedOnly = true, false // its menu adds untracked files too
		case isLong(name, "pathspec-from-file"):
			stages, s.whole, s.trackedOnly = true, true, false // a list the gate does not read
			return valueWords(hasEq)
		case strings.HasPrefix(v, "--"):
			if slices.ContainsFunc(commitValued[:], func(long string) bool { return isLong(name, long) }) {
				return valueWords(hasEq)
			}
		default:
			for j, f := range v[1:] {
				switch f {
				case 'a', 'p':
					stages = true
				case 'm', 'F', 'c', 'C', 't':
					if j == len(v)-2 {
						return 1 // the value is the next word
					}
					return 0 // the rest of the word is the value
				case 'u', 'S':
					return 0 // an optional value, attached
				}
			}
		}
		return 0
	})
	if !stages && len(s.specs) == 0 {
		return // it commits what is staged already
	}
	s.whole = s.whole || len(s.specs) == 0
	c.stages(s)
}

// gitWords splits a git command's words into its pathspecs, which it
// returns (the words that are not options, and all after --), and its
// options, each of which it hands to opt with its name (up to any =) and
// whether it holds its value after =: opt returns how many of the next
// words are its values.
func gitWords(rest []arg, opt func(v, name string, hasEq bool) (values int)) (specs []arg) {
	opts := true
	for i := 0; i < len(rest); i++ {
		switch x := rest[i]; {
		case !opts || !strings.HasPrefix(x.val, "-") || x.val == "-":
			specs = append(specs, x)
		case x.val == "--":
			opts = false
		default:
			name, _, hasEq := strings.Cut(x.val, "=")
			i += opt(x.val, name, hasEq)
		}
	}
	return specs
}

// valueWords is how many next words an option that takes a value uses: none
// when it holds it after =, else one.
func valueWords(hasEq bool) int {
	if hasEq {
		return 0
	}
	return 1
}

// commitValued are git commit's long options that take a value, which
// may be the next word.
var commitValued = [...]string{"message", "file", "reuse-message", "reedit-message", "fixup", "squash", "author",
	"date", "template", "cleanup", "trailer"}

// gitStashTracked judges git stash push (and save, create, a bare git
// stash) by the changes of tracked files it copies into the stash, where
// git stash show -p prints them; --staged takes only the index's.
func (c *call) gitStashTracked(dir string, rest []arg) {
	if len(rest) > 0 && !rest[0].mayOpt() {
		switch rest[0].val {
		case "push", "save", "create":
		default:
			return // list, show, pop, apply, drop, branch, store, clear
		}
	}
	// What is staged goes into the stash, where git stash show -p prints it.
	c.stagedSecret(staging{what: "git stash", dir: dir, whole: true}, false, "stashes", "; git stash show -p then prints it")
	for _, x := range rest {
		if x.val == "--" {
			break
		}
		if x.val == "-S" || isLong(x.val, "staged") {
			return
		}
	}
	s := staging{what: "git stash", dir: dir, trackedOnly: true}
	for _, x := range stashPathspecs(rest) {
		if !strings.HasPrefix(x.val, "-") {
			s.specs = append(s.specs, x)
		}
	}
	s.whole = len(s.specs) == 0
	c.stages(s)
}

// gitDiffWorktree judges a git command that prints the differences
// between the work tree and the index or one commit (git diff, diff-files,
// diff-index, status -vv, checkout -p) by the changes of the tracked files
// under its pathspecs. Comparing commits (more revisions than revs, or
// A..B) or the index with a commit (--cached) prints what is committed or
// staged already.
func (c *call) gitDiffWorktree(dir, what string, rest []arg, revs int) {
	s := staging{what: what, dir: dir, trackedOnly: true, printsOnly: true}
	dashdash, value, cached := false, false, false
	given, rev := revs, ""
	for _, x := range rest {
		v := x.val
		maybeValue := value
		value = false
		switch {
		case dashdash:
			s.specs = append(s.specs, x)
			continue
		case v == "--":
			dashdash = true
			continue
		case strings.HasPrefix(v, "-") && v != "-":
			name, _, hasEq := strings.Cut(v, "=")
			switch {
			case v == "--no-index":
				return
			case isLong(name, "cached") || isLong(name, "staged"):
				cached = true
			case isLong(name, "pathspec-from-file"):
				s.whole = true
			}
			// The next word may be this option's value: never a revision
			// then, and a pathspec only if it names a path.
			value = !hasEq && !diffFlag(v)
			continue
		}
		switch {
		case !x.static() || strings.HasPrefix(v, ":") || strings.ContainsAny(v, "*?["):
			s.specs = append(s.specs, x) // a pathspec (git takes a pattern as one), or possibly one
		case dir != "" && c.a.lstat(absIn(dir, v)).exists:
			s.specs = append(s.specs, x)
		case maybeValue:
		case strings.Contains(v, ".."):
			revs -= 2 // A..B, A...B: commits only
		default:
			revs--
			rev = v
		}
	}
	s.whole = s.whole || len(s.specs) == 0
	if cached {
		// The index against a commit: what is staged. A revision named
		// besides HEAD's is one the gate does not compare with.
		if printsPatch(rest, what) {
			s.what += " --cached"
			c.stagedSecret(s, revs < given, "prints", "")
		}
		return
	}
	if revs < 0 {
		return
	}
	if given == 1 && revs == 0 && printsPatch(rest, what) {
		// The work tree against a commit: what is staged prints too.
		c.stagedSecret(s, rev != "HEAD" && rev != "@", "prints", "")
	}
	c.stages(s)
}

// printsPatch reports whether a diff command prints changes' contents,
// not only their names or counts: git diff does unless a names-or-stats
// format is asked for without -p; diff-index and diff-files only with -p.
func printsPatch(rest []arg, what string) bool {
	patch := what != "git diff-index" && what != "git diff-files"
	for _, x := range rest {
		switch x.val {
		case "--":
			return patch
		case "-p", "-u", "--patch", "--patch-with-stat", "--patch-with-raw":
			return true
		case "--stat", "--numstat", "--shortstat", "--name-only", "--name-status", "--summary", "--quiet",
			"--exit-code", "-s", "--no-patch", "--raw", "--dirstat", "--compact-summary":
			patch = false
		}
		switch {
		case strings.HasPrefix(x.val, "-U") || strings.HasPrefix(x.val, "--unified"):
			return true // a patch with that much context
		case strings.HasPrefix(x.val, "--stat=") || strings.HasPrefix(x.val, "--dirstat="):
			patch = false
		}
	}
	return patch
}

// stagedSecret asks when what s prints of the index (git diff --cached,
// git status -v) holds a credential file whose staged contents HEAD does
// not have: a person who ran git add . on an unignored .env staged it, and
// the diff would put it in the agent's context. What is committed already
// prints nothing. otherRev: the index is compared with a commit the gate
// does not read, so any staged credential file may print.
func (c *call) stagedSecret(s staging, otherRev bool, verb, after string) {
	if s.dir == "" {
		c.secretRead(s.what + " prints the staged changes of a repository the gate does not look into, which may hold a credential file")
		return
	}
	top, gitDir, common := c.a.repoAround(s.dir)
	if top == "" {
		return
	}
	idx, ok := c.a.readIndexFile(gitDir, common)
	if !ok {
		c.secretRead(s.what + " prints the staged changes, and the gate cannot read the index to tell whether a credential file is among them")
		return
	}
	roots := c.trackedRoots(top, s)
	var repo *gitobj.Repo
	var head []byte
	var headErr error
	for _, e := range idx.entries {
		if e.IntentToAdd || !underAny(e.Path, roots) || c.a.g.secretPath(top+"/"+e.Path) == "" {
			continue
		}
		why := ""
		switch {
		case otherRev:
			why = " (compared with a commit the gate does not read)"
		default:
			if repo == nil {
				repo = gitobj.Open(common, idx.hashSize)
				head, headErr = repo.Head(gitDir)
			}
			if headErr != nil {
				why = " (the gate cannot read HEAD: " + headErr.Error() + ")"
				break
			}
			id, found, err := repo.TreeEntry(head, e.Path)
			switch {
			case err != nil:
				why = " (the gate cannot read HEAD's tree: " + err.Error() + ")"
			case !found:
				why = ", which HEAD does not have"
			case !bytes.Equal(id, e.ID):
				why = ", staged with changes HEAD does not have"
			default:
				continue // committed as it is staged: nothing prints
			}
		}
		c.secretRead(s.what + " " + verb + " the staged " + e.Path + why + ": a credential file" + after)
		return
	}
}

// diffFlag reports the everyday options of git diff known to take no
// value: the word after any other option without = may be its value.
func diffFlag(v string) bool {
	switch v {
	case "-p", "-u", "--patch", "--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "--raw",
		"--summary", "--compact-summary", "--color", "--no-color", "--color-words", "--word-diff", "-w", "-b",
		"--ignore-all-space", "--ignore-space-change", "--ignore-space-at-eol", "--ignore-blank-lines", "-R",
		"--exit-code", "--quiet", "--check", "--binary", "--text", "-a", "--minimal", "--patience", "--histogram",
		"--no-renames", "--full-index", "--no-prefix", "--no-ext-diff", "--no-textconv", "-z", "--relative",
		"--merge-base", "-M", "-C", "-B", "--find-renames", "--find-copies", "-v", "-vv", "--verbose", "-s",
		"--short", "--porcelain", "--no-pager":
		return true
	}
	return false
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
	if len(roots) == 0 && !s.trackedOnly {
		return
	}
	if found, known := c.changedTracked(top, gitDir, common, s); found != "" || !known {
		if found == "" {
			c.secretRead(s.what + " takes the changes of the files git tracks, and the gate cannot read the index to tell whether a credential file is among them")
			return
		}
		c.secretRead(s.what + " " + s.verbTracked() + " " + found + ", a credential file the repository tracks whose working copy differs from the index (a template filled in, a key replaced)" + s.afterTracked())
		return
	}
	if s.trackedOnly || len(roots) == 0 {
		return
	}
	unsure := !s.force && c.a.ignoresMayChange(c.cx.stmt)
	if unsure {
		s.force = true // what git ignores then is not what it ignores now
	}
	var global gitignore.Stack
	if !s.force {
		global = c.a.excludeRules(common)
	}
	found := ""
	for _, root := range roots {
		err := gitignore.Walk(top, root, gitignore.WalkOptions{Rules: global, NoIgnore: s.force, Max: maxStageWalk, List: c.a.listForWalk}, func(rel string, _ bool) bool {
			if c.a.g.secretPath(top+"/"+rel) == "" {
				return true
			}
			if idx, _ := c.a.readIndexFile(gitDir, common); idx.tracks(rel) {
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

// tracks reports whether the index has an entry for the path rel.
func (idx gitIndexFile) tracks(rel string) bool {
	return slices.ContainsFunc(idx.entries, func(e gitindex.Entry) bool { return e.Path == rel })
}

// gitIndexFile is a repository's index as the gate reads it: its entries,
// and the second it was written (git's racy-entry rule needs it).
type gitIndexFile struct {
	entries  []gitindex.Entry
	mtime    int64
	hashSize int // gitindex.SHA1 or SHA256
}

// indexRead is a git index as read for a command line.
type indexRead struct {
	idx gitIndexFile
	ok  bool
}

// readIndexFile reads the index of the repository whose git directory is
// gitDir, once per command line (never across lines: the next decision
// reads it again); ok is false when it cannot be read.
func (a *analysis) readIndexFile(gitDir, common string) (gitIndexFile, bool) {
	if r, ok := a.indexes[gitDir]; ok {
		return r.idx, r.ok
	}
	idx, ok := readIndexFile(gitDir, common)
	if a.indexes == nil {
		a.indexes = map[string]indexRead{}
	}
	a.indexes[gitDir] = indexRead{idx, ok}
	return idx, ok
}

// readIndexFile reads the repository's index; ok is false when it cannot
// be read (a repository without an index tracks nothing).
func readIndexFile(gitDir, common string) (idx gitIndexFile, ok bool) {
	fi, err := os.Stat(gitDir + "/index")
	switch {
	case errors.Is(err, os.ErrNotExist):
		return idx, true
	case err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIndexFile:
		return idx, false
	}
	data, err := readFileInto(gitDir+"/index", make([]byte, 0, fi.Size()+1), -1)
	if err != nil {
		return idx, false
	}
	size := gitindex.SHA1
	if cfg, err := readFile(common + "/config"); err == nil && containsFoldASCII(cfg, "sha256") {
		size = gitindex.SHA256
	}
	idx.entries, err = gitindex.Entries(data, size)
	idx.hashSize = size
	idx.mtime = fi.ModTime().Unix()
	return idx, err == nil
}

// changedTracked says which credential file the index tracks under what
// s names has a working copy that may differ from the index, or "";
// known is false when the index cannot be read.
func (c *call) changedTracked(top, gitDir, common string, s staging) (found string, known bool) {
	roots := c.trackedRoots(top, s)
	if len(roots) == 0 {
		return "", true
	}
	idx, ok := c.a.readIndexFile(gitDir, common)
	if !ok {
		return "", false
	}
	for _, e := range idx.entries {
		if underAny(e.Path, roots) && c.a.g.secretPath(top+"/"+e.Path) != "" && idx.changed(e, top+"/"+e.Path) {
			return e.Path, true
		}
	}
	return "", true
}

// stagedObjectSecret asks when an operand of git cat-file or git show may
// name, by its object name (git ls-files -s prints it), the contents of a
// credential file the index holds: a staged .env that no path-based check
// sees. An operand only known at run time may be any object name.
func (c *call) stagedObjectSecret(dir, sub string, rest []arg) {
	var ids []string
	anyID := false
	for _, x := range rest {
		v := strings.ToLower(x.val)
		switch {
		case !x.static():
			anyID = true
		case len(v) >= 4 && len(v) <= 64 && strings.Trim(v, "0123456789abcdef") == "":
			ids = append(ids, v)
		}
	}
	if (len(ids) == 0 && !anyID) || dir == "" {
		return
	}
	top, gitDir, common := c.a.repoAround(dir)
	if top == "" {
		return
	}
	idx, ok := c.a.readIndexFile(gitDir, common)
	if !ok {
		return
	}
	for _, e := range idx.entries {
		if c.a.g.secretPath(top+"/"+e.Path) == "" {
			continue
		}
		name := hex.EncodeToString(e.ID)
		if anyID || slices.ContainsFunc(ids, func(id string) bool { return strings.HasPrefix(name, id) }) {
			c.secretRead("git " + sub + " may print object " + name[:12] + ", what the index holds for " + e.Path + ": a credential file")
			return
		}
	}
}

// trackedRoots are the folders (relative to top; "" for the whole tree)
// the pathspecs of s name.
func (c *call) trackedRoots(top string, s staging) []string {
	var roots []string
	if s.whole {
		roots = append(roots, "")
	}
	for _, x := range s.specs {
		if s.whole {
			break
		}
		p := x.val
		if x.dyn || strings.HasPrefix(p, ":") {
			roots = append(roots, "") // only known at run time, or magic that may widen to the tree
			continue
		}
		if i := strings.IndexAny(p, "*?[\\"); i >= 0 {
			p = p[:strings.LastIndexByte(p[:i], '/')+1] // the pattern's fixed directories
		}
		if !path.IsAbs(p) {
			p = s.dir + "/" + p
		}
		switch p = path.Clean(p); {
		case p == top:
			roots = append(roots, "")
		case below(p, top):
			roots = append(roots, p[len(top)+1:])
		}
	}
	return roots
}

// underAny reports whether the path rel is one of roots or lies below
// one ("" is the whole tree).
func underAny(rel string, roots []string) bool {
	for _, r := range roots {
		if r == "" || rel == r || below(rel, r) {
			return true
		}
	}
	return false
}

// changed reports whether the file p, which the index entry e tracks,
// differs from what the index holds, as git decides it: when the file's
// size, modification or change time or inode differ from the entry's (the
// nanoseconds when the index keeps them), or the entry is racy (the file
// was modified no earlier than the second the index was written), git
// looks at the contents, and so does the gate: it hashes them as git
// names a blob and compares that with the entry's object name. A file it
// cannot hash as git would (a link, a clean filter at work) counts as
// changed. The assume-unchanged and skip-worktree flags are not trusted:
// an earlier command of the line may clear them. A file that is gone is
// not changed: git diff then prints what is committed.
func (idx gitIndexFile) changed(e gitindex.Entry, p string) bool {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return false
	}
	mtime, ctime := st.Mtim, st.Ctim
	switch {
	case uint32(st.Size) != e.Size, uint32(mtime.Sec) != e.MtimeSec, uint32(ctime.Sec) != e.CtimeSec, uint32(st.Ino) != e.Ino,
		e.MtimeNsec != 0 && uint32(mtime.Nsec) != e.MtimeNsec, e.CtimeNsec != 0 && uint32(ctime.Nsec) != e.CtimeNsec,
		int64(e.MtimeSec) >= idx.mtime&0xffffffff:
		return st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxIndexFile || !bytes.Equal(blobID(p, idx.hashSize), e.ID)
	}
	return false
}

// blobID is git's object name of the contents of the file p as a blob,
// nil when it cannot be read.
func blobID(p string, hashSize int) []byte {
	data, err := readFile(p)
	if err != nil {
		return nil
	}
	h := sha1.New()
	if hashSize == gitindex.SHA256 {
		h = sha256.New()
	}
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return h.Sum(nil)
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
	idx, ok := a.readIndexFile(gitDir, common)
	if !ok {
		return "", false
	}
	prefix := ""
	if real != top {
		prefix = strings.TrimPrefix(real, top+"/") + "/"
	}
	for _, e := range idx.entries {
		if strings.HasPrefix(e.Path, prefix) {
			if why := a.g.secretPath(top + "/" + e.Path); why != "" {
				return top + "/" + e.Path + " holds credentials", true
			}
		}
	}
	return "", true
}

// excludeRules are the ignore rules that apply to the whole repository
// whose common directory is common: info/exclude, then core.excludesFile.
func (a *analysis) excludeRules(common string) gitignore.Stack {
	var s gitignore.Stack
	if r := ignoreFile(common + "/info/exclude"); r != nil {
		s = append(s, r)
	}
	file := a.userGitConfig().excludes
	if cfg := a.readConfig(common + "/config"); includes(cfg) {
		file = "" // the value may come from a file the gate does not follow
	} else if v := coreKey(cfg, "excludesfile"); v != "" {
		file = a.g.configPath(v)
	}
	if r := ignoreFile(file); file != "" && r != nil {
		s = append(s, r)
	}
	return s
}

// configPath is a path as git reads it from its configuration: ~/ is the
// home folder; a relative path is left out ("").
func (g *Gate) configPath(v string) string {
	if v = g.expandHome(v); path.IsAbs(v) {
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
	if data := readConfig(p); p != "" && data != nil {
		return gitignore.Parse("", data)
	}
	return nil
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

// verbTracked and afterTracked word what s does with the changes of a
// tracked file.
func (s staging) verbTracked() string {
	if s.printsOnly {
		return "prints the changes of"
	}
	return "stages the changes of"
}

func (s staging) afterTracked() string {
	if s.printsOnly {
		return ""
	}
	return ", which git diff --cached, git show or git stash show -p then print"
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

// absIn is the path word v as a path from the directory dir.
func absIn(dir, v string) string {
	if path.IsAbs(v) {
		return v
	}
	return dir + "/" + v
}
