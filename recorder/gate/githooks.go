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
// core.hooksPath). Only the hooks sub runs are looked at.
func (a *analysis) runsHook(dir, sub string) (string, bool) {
	names := hooksOf[sub]
	if len(names) == 0 {
		return "", false
	}
	for _, hooks := range a.repoHooksDirs(dir) {
		if h, ok := a.hookIn(hooks, names); ok {
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

// repoHooksDirs are the folders the repository that dir lies in may take
// its hooks from (its hooks folder, or core.hooksPath), nil when there is
// no repository.
func (a *analysis) repoHooksDirs(dir string) []string {
	if dir == "" {
		dir = a.g.root
	}
	if h, ok := a.hooksSeen[dir]; ok {
		return h
	}
	hooks := a.findHooksDirs(dir, a.g.globalHooksPaths())
	if a.hooksSeen == nil {
		a.hooksSeen = map[string][]string{}
	}
	a.hooksSeen[dir] = hooks
	return hooks
}

// globalHooksPaths are the values of core.hooksPath that the user's and
// the system's git configuration set, in the files they include too,
// read once per gate: those files lie outside the work tree, where no
// allowed command writes (the MCP server drops its gates after a command
// that ran outside the sandbox).
func (g *Gate) globalHooksPaths() []string {
	g.globalHooks.Do(func() {
		for _, f := range configWithIncludes(g.userConfigFiles(), readConfig, g.expandHome) {
			if p := coreKeyIn(f, "hookspath"); p != "" {
				g.globalHooksDirs = append(g.globalHooksDirs, g.expandHome(p))
			}
		}
	})
	return g.globalHooksDirs
}

// findHooksDirs finds the folders the repository around dir may take its
// hooks from: every core.hooksPath its own configuration sets (in
// .git/config, config.worktree, or a file they include, whatever the
// include's condition: git takes the last that applies, the gate looks in
// each), else every one global sets, else its hooks folder.
func (a *analysis) findHooksDirs(dir string, global []string) []string {
	top, gitDir, common := a.repoAround(dir)
	if gitDir == "" {
		return nil
	}
	local := []string{common + "/config"}
	if containsFoldASCII(a.readConfig(common+"/config"), "worktreeconfig") {
		local = append(local, gitDir+"/config.worktree")
	}
	var values []string
	for _, f := range configWithIncludes(local, a.readConfig, a.g.expandHome) {
		if p := coreKey(a.readConfig(f), "hookspath"); p != "" {
			values = append(values, p)
		}
	}
	if len(values) == 0 {
		values = global
	}
	if len(values) == 0 {
		return []string{common + "/hooks"}
	}
	dirs := make([]string, 0, len(values))
	for _, p := range values {
		if p = a.g.expandHome(p); !path.IsAbs(p) {
			p = top + "/" + p // relative to the work tree's top, as git reads it
		}
		dirs = append(dirs, path.Clean(p))
	}
	return dirs
}

// repoAround finds the repository git uses when run in dir: the top of
// its work tree, its git directory (.git, or the one a .git file names)
// and its common directory (where a linked worktree's repository keeps its
// configuration). All are "" when dir is in no work tree.
func (a *analysis) repoAround(dir string) (top, gitDir, common string) {
	for i, d := 0, path.Clean(dir); i < maxGitUp; i++ {
		if li := a.lstat(d + "/.git"); li.exists {
			top = d
			switch {
			case li.dir:
				gitDir = d + "/.git"
			case li.regular:
				gitDir = gitFileTarget(d)
			default: // a link, which git follows
				if fi, err := os.Stat(d + "/.git"); err == nil && fi.IsDir() {
					gitDir = d + "/.git"
				}
			}
			break
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

// coreKeyIn returns the value of core.<key> (key in lower case) as a git
// configuration file sets it, or "" when it does not (or the file cannot
// be read, or is not a regular file: a named pipe would block).
func coreKeyIn(file, key string) string {
	return coreKey(readConfig(file), key)
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
