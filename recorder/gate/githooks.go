package gate

import (
	"bytes"
	"os"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// hookRunners maps each client-side hook git runs to the subcommands that
// run it. A repository with one of these hooks makes those subcommands run
// whatever the hook runs, which is often the project's own code (a linter
// with the project's configuration, the tests).
var hookRunners = map[string][]string{
	"pre-commit":            {"commit", "merge", "cherry-pick", "revert", "rebase", "am", "pull"},
	"prepare-commit-msg":    {"commit", "merge", "cherry-pick", "revert", "rebase", "am", "pull"},
	"commit-msg":            {"commit", "merge", "cherry-pick", "revert", "rebase", "am", "pull"},
	"post-commit":           {"commit", "merge", "cherry-pick", "revert", "rebase", "am", "pull"},
	"pre-auto-gc":           {"commit", "merge", "cherry-pick", "revert", "rebase", "am", "pull", "gc", "fetch"},
	"pre-merge-commit":      {"merge", "pull"},
	"post-merge":            {"merge", "pull"},
	"pre-rebase":            {"rebase", "pull"},
	"post-rewrite":          {"commit", "rebase", "am", "pull"},
	"post-checkout":         {"checkout", "switch", "clone", "worktree", "rebase", "bisect", "pull", "reset"},
	"applypatch-msg":        {"am"},
	"pre-applypatch":        {"am"},
	"post-applypatch":       {"am"},
	"pre-push":              {"push"},
	"sendemail-validate":    {"send-email"},
	"reference-transaction": {"commit", "branch", "tag", "checkout", "switch", "reset", "merge", "rebase", "cherry-pick", "revert", "stash", "update-ref", "fetch", "pull", "push", "am", "notes", "replace", "gc", "pack-refs", "symbolic-ref", "worktree", "bisect", "clone", "init"},
	"post-index-change":     {"add", "status", "commit", "checkout", "switch", "reset", "restore", "stash", "mv", "rm", "merge", "rebase", "cherry-pick", "revert", "am", "apply", "update-index", "read-tree", "pull", "diff", "worktree", "bisect", "sparse-checkout"},
	"fsmonitor-watchman":    {"status", "diff", "add", "commit", "checkout", "switch", "reset", "restore", "stash", "merge", "rebase", "ls-files"},
}

// hooksOf maps each git subcommand to the hooks it runs, in name order
// (the order a listing of the hooks directory gives).
var hooksOf = func() map[string][]string {
	m := map[string][]string{}
	for h, subs := range hookRunners {
		for _, s := range subs {
			m[s] = append(m[s], h)
		}
	}
	for _, hs := range m {
		slices.Sort(hs)
	}
	return m
}()

// runsHook reports whether git sub, run in dir, runs a hook of its
// repository: an executable file of that name in the hooks directory (or
// core.hooksPath). Only the hooks sub runs are looked at. When git's
// configuration cannot be read whole (a named pipe, a file too large, an
// include the gate does not follow), any hook may run.
func (a *analysis) runsHook(dir, sub string) (string, bool) {
	names := hooksOf[sub]
	if len(names) == 0 {
		return "", false
	}
	hooks := a.repoHooksDirs(dir)
	if !hooks.known {
		return names[0] + " (git's configuration, which says where hooks lie, cannot be read whole)", true
	}
	for _, d := range hooks.dirs {
		if h, ok := a.hookIn(d, names); ok {
			return h, true
		}
	}
	return "", false
}

// hookIn returns the first of names that is an executable file in the
// folder hooks.
func (a *analysis) hookIn(hooks string, names []string) (string, bool) {
	var listed []dirEntry
	whole := false // listed holds every name in the folder
	if a.keepListings {
		// A gate deciding many lines keeps the folder's listing: one stat
		// tells it unchanged, and only the names in it are looked at.
		var ok bool
		listed, ok = a.readDir(hooks)
		whole = ok && len(listed) < maxDirEntries
	}
	for _, h := range names {
		if whole && !slices.ContainsFunc(listed, func(e dirEntry) bool { return e.Name == h }) {
			continue
		}
		var st unix.Stat_t
		if a.statIn(hooks, h, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Mode&0o111 != 0 {
			return h, true
		}
	}
	return "", false
}

// maxGitUp bounds how many directories are searched upwards for a .git.
const maxGitUp = 64

// hooksDirs are the folders a repository may take its hooks from; known
// is false when git's configuration could not be read whole.
type hooksDirs struct {
	dirs  []string
	known bool
}

// repoHooksDirs are the folders the repository that dir lies in may take
// its hooks from (its hooks folder, or core.hooksPath); none when there is
// no repository.
func (a *analysis) repoHooksDirs(dir string) hooksDirs {
	if dir == "" {
		dir = a.g.root
	}
	if h, ok := a.hooksSeen[dir]; ok {
		return h
	}
	hooks := a.findHooksDirs(dir)
	if a.hooksSeen == nil {
		a.hooksSeen = map[string]hooksDirs{}
	}
	a.hooksSeen[dir] = hooks
	return hooks
}

// findHooksDirs finds the folders the repository around dir may take its
// hooks from: every core.hooksPath its own configuration sets (in
// .git/config, config.worktree, or a file they include, whatever the
// include's condition: git takes the last that applies, the gate looks in
// each), else every one the user's configuration sets, else its hooks
// folder.
func (a *analysis) findHooksDirs(dir string) hooksDirs {
	top, gitDir, common := a.repoAround(dir)
	if gitDir == "" {
		return hooksDirs{known: true}
	}
	local := []string{common + "/config"}
	if containsFoldASCII(a.readConfig(common+"/config"), "worktreeconfig") {
		local = append(local, gitDir+"/config.worktree")
	}
	files, known := configWithIncludes(local, a.readConfigState, a.g.expandHome, a.physical)
	var values []string
	for _, f := range files {
		if p := coreKey(a.readConfig(f), "hookspath"); p != "" {
			values = append(values, p)
		}
	}
	if len(values) == 0 {
		uc := a.userGitConfig()
		values, known = uc.hooks, known && uc.complete
	}
	if len(values) == 0 {
		return hooksDirs{dirs: []string{common + "/hooks"}, known: known}
	}
	h := hooksDirs{known: known}
	for _, p := range values {
		p = a.g.expandHome(p)
		switch {
		case strings.HasPrefix(p, "~") || strings.Contains(p, "%("):
			h.known = false // ~user/, %(prefix)/: git expands them, the gate does not
			continue
		case !path.IsAbs(p):
			p = top + "/" + p // relative to the work tree's top, as git reads it
		}
		h.dirs = append(h.dirs, a.physical(p)) // "..": after the links, as the kernel goes
	}
	return h
}

// repoAround finds the repository git uses when run in dir: the top of
// its work tree, its git directory (.git, or the one a .git file names)
// and its common directory (where a linked worktree's repository keeps its
// configuration). All are "" when dir is in no work tree.
func (a *analysis) repoAround(dir string) (top, gitDir, common string) {
	for i, d := 0, path.Clean(dir); i < maxGitUp; i++ {
		if li := a.lstat(d + "/.git"); li.exists {
			switch {
			case li.dir:
				gitDir = d + "/.git"
			case li.regular:
				gitDir = gitFileTarget(d)
			case li.link: // git follows it
				if fi, err := os.Stat(d + "/.git"); err == nil && fi.IsDir() {
					gitDir = d + "/.git"
				}
			}
			if gitDir != "" {
				top = d
				break
			}
			// A .git git cannot use (a dangling link, a named pipe): git
			// passes over it and goes on upwards, and so does the gate.
		}
		if d == "/" || d == "." || d == "" {
			break
		}
		d = path.Dir(d)
	}
	if gitDir == "" {
		return "", "", ""
	}
	common = gitDir
	if gitDir == top+"/.git" {
		// A repository's own .git: its common directory is itself.
	} else if b, err := readFile(gitDir + "/commondir"); err == nil {
		c := strings.TrimSpace(string(b))
		if !path.IsAbs(c) {
			c = gitDir + "/" + c
		}
		common = path.Clean(c)
	}
	return top, gitDir, common
}

// gitFileTarget reads the "gitdir: DIR" of a .git file (a worktree or a
// submodule).
func gitFileTarget(top string) string {
	b, err := readFile(top + "/.git")
	if err != nil {
		return ""
	}
	d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	d = strings.TrimSpace(d)
	if !path.IsAbs(d) {
		d = top + "/" + d
	}
	return path.Clean(d)
}

// coreKey returns the value of core.<key> (key in lower case) as the git
// configuration text b sets it (the last setting, as git takes it), or "".
func coreKey(b []byte, key string) string {
	if !containsFoldASCII(b, key) {
		return "" // the common case, without parsing
	}
	v := ""
	for _, e := range parseConfig(b) {
		if e.section == "core" && e.sub == "" && e.name == key {
			v = e.value
		}
	}
	return v
}

// containsFoldASCII reports whether bytes.Contains(bytes.ToLower(b), word)
// for a lower-case ASCII word, without making the lower-case copy when b
// is ASCII (beyond it, a letter such as the Kelvin sign lowers to k).
func containsFoldASCII(b []byte, word string) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return bytes.Contains(bytes.ToLower(b), []byte(word))
		}
	}
	for i := 0; i+len(word) <= len(b); i++ {
		j := 0
		for j < len(word) && lowerASCII(b[i+j]) == word[j] {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// lowerASCII is c in lower case when it is an ASCII capital.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
