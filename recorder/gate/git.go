package gate

import (
	"os"
	"path"
	"slices"
	"strings"
)

// git classifies a git command: its global options, then the subcommand.
// Safe subcommands are left for the policy to allow; the analysis looks for
// what makes git run programs, reach the network or write elsewhere.
func (c *call) git() {
	args := c.args
	dir, gitDir, moved, otherTree := c.a.cwdReal(), "", false, false
	i := 0
	for ; i < len(args); i++ {
		x := args[i]
		if x.lead {
			c.risky("indirection: a git option is only known at run time")
			return
		}
		v := x.val
		if !strings.HasPrefix(v, "-") {
			break
		}
		name, val, hasEq := strings.Cut(v, "=")
		value := func() (arg, bool) {
			if hasEq {
				return arg{val: val, dyn: x.dyn}, true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return arg{}, false
		}
		switch {
		case v == "-c":
			kv, ok := value()
			if !ok {
				return
			}
			c.gitConfig(kv)
		case strings.HasPrefix(v, "-c"):
			c.gitConfig(arg{val: v[2:], dyn: x.dyn})
		case name == "--config-env":
			c.risky("indirection: git --config-env sets configuration, which can make git run programs, from the environment")
		case v == "-C" || name == "--git-dir" || name == "--work-tree":
			if d, ok := value(); ok {
				c.gitDir(d)
				switch {
				case name == "--work-tree":
					otherTree = true
				case name == "--git-dir":
					gitDir = c.a.place(d, true).real
				case v == "-C" && !moved:
					dir, moved = c.a.place(d, true).real, true
				case v == "-C":
					dir = "" // -C relative to an earlier -C: not followed
				}
			}
		case name == "--exec-path":
			if hasEq {
				c.risky("interpreter: git --exec-path=DIR runs git programs from " + val)
			}
		case name == "--namespace" || name == "--list-cmds" || name == "--attr-source" || name == "--super-prefix":
			if !hasEq {
				i++
			}
		default:
			switch v {
			case "-p", "--paginate", "-P", "--no-pager", "--bare", "--no-replace-objects",
				"--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
				"--no-optional-locks", "--no-advice", "--version", "--help", "-v", "-h", "--html-path",
				"--man-path", "--info-path", "--no-lazy-fetch":
			default:
				c.grey("git option " + v + " is not known to the gate")
			}
		}
	}
	if moved {
		c.base, c.baseUnknown = dir, dir == ""
	}
	c.gitRepoConfig(dir, gitDir)
	if i >= len(args) {
		c.local("git without a command prints help")
		return
	}
	sub := args[i]
	if !sub.static() {
		c.risky("indirection: the git command " + sub.val + " is only known at run time")
		return
	}
	if t, _ := worst(c.e.findings); i > 0 && t < TierGrey {
		// Only harmless global options: rules see "git status", not
		// "git --no-pager -C sub status".
		c.e.ruleText = "git " + joinArgs(args[i:]).val
	}
	// The repository whose hooks run: the one around -C's directory (or
	// the working directory); with --git-dir or --work-tree, or a -C only
	// known at run time, one the gate does not look into.
	hooksAt, hooksKnown := dir, dir != "" && gitDir == "" && !otherTree
	if gitDir != "" || otherTree {
		dir = "" // another repository or work tree: what it stages is not looked at
	}
	c.gitHooks(hooksAt, hooksKnown, sub.val)
	c.gitSub(dir, sub.val, args[i+1:])
}

// gitHooks marks git sub as running code the agent may have written when
// it runs a hook of the repository around dir; when that repository is not
// known, whenever sub runs hooks at all.
func (c *call) gitHooks(dir string, known bool, sub string) {
	what := "git " + sub
	switch {
	case !known && len(hooksOf[sub]) > 0:
		c.agentCode(what + " may run hooks of a repository the gate does not look into (named by --git-dir or --work-tree, or in a directory only known at run time)")
	case known:
		if hook, ok := c.a.runsHook(dir, sub); ok {
			c.agentCode(what + " runs the repository's " + hook + " hook")
		}
	}
}

// gitConfig classifies one -c key=value.
func (c *call) gitConfig(kv arg) {
	if !kv.static() {
		c.risky("indirection: git -c " + kv.val + " sets configuration only known at run time")
		return
	}
	key, val, _ := strings.Cut(kv.val, "=")
	key = strings.ToLower(key)
	switch {
	case strings.HasPrefix(key, "color.") || strings.HasPrefix(key, "advice.") || strings.HasPrefix(key, "i18n."),
		key == "core.quotepath", key == "user.name", key == "user.email", key == "init.defaultbranch",
		key == "commit.gpgsign", key == "tag.gpgsign", key == "core.abbrev", key == "log.decorate",
		key == "diff.noprefix", key == "diff.mnemonicprefix", key == "column.ui", key == "core.autocrlf",
		key == "log.showsignature" && isFalse(val), key == "core.fsmonitor" && isFalse(val),
		key == "gc.auto", key == "maintenance.auto" && isFalse(val), key == "merge.conflictstyle",
		key == "rebase.autosquash", key == "pull.rebase", key == "diff.algorithm", key == "status.showuntrackedfiles":
		c.local("git -c " + key + " only changes presentation or identity")
	case key == "core.pager" || strings.HasPrefix(key, "pager.") || key == "core.editor" || key == "sequence.editor":
		if isFalse(val) || val == "true" || val == "1" {
			return
		}
		c.commandIn("git -c "+key+" names a command", val)
	default:
		c.risky("indirection: git -c " + key + " can make git run programs or reach the network")
	}
}

func isFalse(v string) bool {
	switch strings.ToLower(v) {
	case "false", "0", "no", "off", "":
		return true
	}
	return false
}

// gitDir checks a repository or work tree named by -C or --git-dir.
func (c *call) gitDir(d arg) {
	switch c.a.where(d) {
	case pathInside:
	case pathUnknown:
		c.risky("indirection: git works in a directory only known at run time, whose configuration can run programs")
	default:
		c.risky("indirection: git works in " + d.val + ", outside the workspace, whose configuration can run programs")
	}
}

// gitSub classifies a git subcommand and its options; dir is the
// directory git runs in ("" when only known at run time).
func (c *call) gitSub(dir, sub string, rest []arg) {
	what := "git " + sub
	if why := gitHistoryRisk(sub, rest); why != "" {
		c.notAlways(why)
	}
	if sub == "cat-file" || sub == "show" {
		c.stagedObjectSecret(dir, sub, rest)
	}
	for _, x := range rest {
		if x.lead && !gitValueish(sub) {
			c.grey("an option of " + what + " is only known at run time")
			break
		}
	}
	switch sub {
	case "push":
		c.risky("network: git push sends commits to a remote")
		for _, x := range rest {
			if x.val == "-f" || x.val == "--mirror" || x.val == "-d" || x.val == "--delete" ||
				isLong(x.val, "force") || strings.HasPrefix(x.val, "--force-with-lease") ||
				strings.HasPrefix(x.val, "+") || strings.HasPrefix(x.val, ":") {
				c.risky("destructive: " + x.val + " rewrites or deletes history on the remote")
				break
			}
		}
		return
	case "ls-remote":
		if slices.ContainsFunc(rest, func(x arg) bool { return x.val == "--get-url" }) {
			if why := c.remoteCredential(dir); why != "" {
				c.secretRead("git ls-remote --get-url prints a remote's address: " + why)
			}
		}
		c.risky("network: " + what + " talks to another machine")
		return
	case "fetch", "pull", "clone", "send-email", "svn", "p4", "cvsimport",
		"cvsexportcommit", "cvsserver", "fetch-pack", "send-pack", "upload-pack", "receive-pack",
		"http-fetch", "http-push", "daemon", "instaweb", "request-pull", "imap-send":
		c.risky("network: " + what + " talks to another machine")
		return
	case "credential", "credential-cache", "credential-store", "credential-osxkeychain", "credential-libsecret":
		c.risky("network: " + what + " hands out stored credentials")
		return
	case "lfs":
		if len(rest) > 0 && (rest[0].val == "ls-files" || rest[0].val == "status" || rest[0].val == "env" || rest[0].val == "version") {
			c.unknown(what + " " + rest[0].val + " reads the repository")
			return
		}
		c.risky("network: git lfs transfers large files")
		return
	case "filter-branch", "mergetool", "gui", "citool", "web--browse":
		c.risky("interpreter: " + what + " runs other programs")
		return
	case "maintenance":
		c.risky("network: git maintenance schedules background fetches")
		return
	case "help":
		for _, x := range rest {
			if x.val == "-w" || isLong(x.val, "web") {
				c.risky("network: git help --web opens a browser")
				return
			}
		}
	case "remote":
		c.gitRemote(dir, rest)
		return
	case "submodule":
		c.gitSubmodule(rest)
		return
	case "config":
		c.gitConfigCmd(dir, rest)
		return
	case "var":
		for _, x := range rest {
			if x.val == "-l" {
				c.secretRead("git var -l prints every value of git's configuration, credentials among them")
				return
			}
		}
	case "bisect":
		if len(rest) > 0 && rest[0].val == "run" {
			c.local("git bisect run runs a command, which is checked on its own")
			c.wrap(rest[1:], c.inner())
			return
		}
	case "rebase":
		for i, x := range rest {
			switch n, v, eq := strings.Cut(x.val, "="); {
			case x.val == "-x" || n == "--exec" || strings.HasPrefix(x.val, "-x") && len(x.val) > 2:
				code := arg{val: v, dyn: x.dyn}
				if !eq {
					if x.val != "-x" && n != "--exec" {
						code = arg{val: x.val[2:], dyn: x.dyn}
					} else if i+1 < len(rest) {
						code = rest[i+1]
					}
				}
				c.local("git rebase --exec runs a command, which is checked on its own")
				c.scriptArg(code)
			case x.val == "-i" || x.val == "--interactive":
				c.grey("git rebase -i opens an editor")
			}
		}
	case "clean":
		c.gitClean(rest)
	case "rm", "mv", "checkout", "restore":
		if c.gitTouchesGuarded(sub, rest) {
			return
		}
		if sub == "checkout" || sub == "restore" {
			for _, x := range rest {
				if x.val == "-p" || isLong(x.val, "patch") {
					c.gitDiffWorktree(dir, "git "+sub+" -p", rest, 1) // it prints each hunk it asks about
					break
				}
			}
		}
	case "stash":
		for _, x := range rest {
			if x.val == "-a" || isLong(x.val, "all") {
				c.guardRisk("destructive: git stash --all stashes away ignored files too, .cuff's policy and recordings among them")
				return
			}
		}
		if c.gitTouchesGuarded("stash", stashPathspecs(rest)) {
			return
		}
		c.gitStashUntracked(dir, rest)
		if !c.e.secret {
			c.gitStashTracked(dir, rest)
		}
	case "add":
		c.gitAdd(dir, rest)
	case "update-index", "hash-object":
		flag := "--stdin-paths"
		if sub == "update-index" {
			flag = "--stdin"
			if !slices.ContainsFunc(rest, func(x arg) bool { return x.val == "--add" }) {
				break
			}
		}
		if slices.ContainsFunc(rest, func(x arg) bool { return x.val == flag }) {
			c.gitStdinPaths(dir, "git "+sub+" "+flag)
		}
	case "difftool":
		for _, x := range rest {
			if x.val == "--tool-help" {
				c.unknown("git difftool --tool-help lists tools")
				return
			}
		}
		c.gitDiffFiles(dir, sub, rest)
		c.risky("interpreter: git difftool runs an external diff program")
		return
	case "diff":
		if !c.gitDiffFiles(dir, sub, rest) {
			c.gitDiffWorktree(dir, "git diff", rest, 1)
		}
	case "diff-files":
		c.gitDiffWorktree(dir, "git diff-files", rest, 0)
	case "diff-index":
		c.gitDiffWorktree(dir, "git diff-index", rest, 1)
	case "status":
		if verbosity(rest) >= 1 {
			c.stagedSecret(staging{what: "git status -v", dir: dir, whole: true}, false, "prints", "") // -v prints what is staged
		}
		if verbosity(rest) >= 2 {
			c.gitDiffWorktree(dir, "git status -vv", rest, 0)
		}
	case "commit":
		c.gitCommit(dir, rest)
	case "grep":
		for _, x := range rest {
			if strings.HasPrefix(x.val, "-O") || isLong(strings.SplitN(x.val, "=", 2)[0], "open-files-in-pager") {
				c.risky("interpreter: git grep " + x.val + " runs a pager program")
				return
			}
		}
		c.gitGrep(dir, rest)
	case "archive":
		for i, x := range rest {
			n, _, _ := strings.Cut(x.val, "=")
			switch {
			case isLong(n, "remote") || isLong(n, "exec"):
				c.risky("network: git archive " + n + " talks to another machine")
				return
			case x.val == "-o" || isLong(n, "output"):
				if w, ok := optValue(rest, i); ok {
					c.writes(c.fromBase(w), "git archive writes")
				}
			}
		}
	case "init":
		for _, x := range rest {
			if n := flagName(x.val); strings.HasPrefix(x.val, "--") && (isLong("--"+n, "template") || isLong("--"+n, "separate-git-dir")) {
				c.risky("indirection: git init --" + n + " takes hooks or the repository from elsewhere")
				return
			}
		}
		ops := scan(rest, optSpec{short: "b", long: []string{"initial-branch", "object-format", "ref-format", "shared"}})
		for _, x := range ops.operands {
			c.writes(c.fromBase(x), "git init creates a repository in")
		}
	case "apply", "am":
		for _, x := range rest {
			if x.val == "--unsafe-paths" {
				c.risky("destructive: git apply --unsafe-paths writes outside the work tree")
				return
			}
		}
		c.gitApply(sub, rest)
	case "bundle":
		if len(rest) > 1 && rest[0].val == "create" {
			c.writes(c.fromBase(rest[1]), "git bundle writes")
		}
	case "format-patch":
		for i, x := range rest {
			if n, _, _ := strings.Cut(x.val, "="); x.val == "-o" || isLong(n, "output-directory") {
				if w, ok := optValue(rest, i); ok {
					c.writes(c.fromBase(w), "git format-patch writes to")
				}
			}
		}
	}
	for i, x := range rest {
		if n, _, _ := strings.Cut(x.val, "="); strings.HasPrefix(n, "--") && isLong(n, "output") && n != "--" {
			if w, ok := optValue(rest, i); ok {
				c.writes(c.fromBase(w), what+" writes")
			}
		}
	}
	switch sub {
	case "status", "diff", "log", "show", "blame", "annotate", "shortlog", "describe", "rev-parse",
		"rev-list", "ls-files", "ls-tree", "cat-file", "grep", "whatchanged", "name-rev", "merge-base",
		"show-ref", "for-each-ref", "count-objects", "version", "diff-tree", "diff-files", "diff-index",
		"cherry", "range-diff", "check-ignore", "check-attr", "check-ref-format", "check-mailmap", "var",
		"show-branch", "verify-commit", "verify-tag", "fsck", "help", "reflog", "stash", "branch", "tag",
		"worktree", "notes", "bisect", "format-patch", "archive", "bundle", "get-tar-commit-id",
		"hash-object", "interpret-trailers", "column", "stripspace", "patch-id",
		"mailinfo", "mailsplit", "verify-pack", "show-index", "unpack-file", "rerere":
		c.unknown(what + " reads or records in the repository")
	case "add", "commit", "checkout", "switch", "restore", "reset", "clean", "merge", "rebase",
		"cherry-pick", "revert", "mv", "rm", "init", "apply", "am", "gc", "prune", "repack",
		"pack-refs", "update-index", "update-ref", "symbolic-ref", "read-tree", "write-tree",
		"commit-tree", "mktag", "mktree", "sparse-checkout", "replace", "checkout-index",
		"merge-file", "merge-tree", "fast-export", "fast-import", "unpack-objects", "pack-objects",
		"index-pack", "prune-packed", "multi-pack-index", "commit-graph":
		c.unknown(what + " changes the repository or the work tree")
	default:
		c.unknown(what + " is not a git command the gate knows; it may be an alias")
	}
}

// gitHistoryRisk says why git sub with args destroys what cannot be
// restored (history, stashes, uncommitted work, the remote's branches), or
// "": such a command is never made a standing rule.
func gitHistoryRisk(sub string, args []arg) string {
	has := func(names ...string) bool {
		for _, x := range args {
			for _, n := range names {
				if x.val == n || strings.HasPrefix(n, "--") && strings.HasPrefix(x.val, n+"=") {
					return true
				}
			}
		}
		return false
	}
	switch sub {
	case "push":
		for _, x := range args {
			if x.val == "-f" || isLong(x.val, "force") || strings.HasPrefix(x.val, "--force-with-lease") || x.val == "--mirror" ||
				x.val == "-d" || isLong(x.val, "delete") || strings.HasPrefix(x.val, "+") || strings.HasPrefix(x.val, ":") ||
				x.val == "--prune" {
				return "git push " + x.val + " rewrites or deletes history on the remote"
			}
		}
	case "reset":
		if has("--hard", "--merge", "--keep") {
			return "git reset --hard throws uncommitted work away"
		}
	case "rebase", "filter-branch", "filter-repo", "replace":
		return "git " + sub + " rewrites history"
	case "commit":
		if has("--amend") {
			return "git commit --amend rewrites the last commit"
		}
	case "branch":
		if has("-D", "--delete", "-d") && has("-D", "--force", "-f") {
			return "git branch -D deletes a branch that may not be merged"
		}
	case "clean":
		if !has("-n", "--dry-run") {
			return "git clean deletes untracked files for good"
		}
	case "checkout", "restore":
		if has("--", ".", "-f", "--force", "--worktree", "-W") || sub == "restore" && !has("--staged", "-S") {
			return "git " + sub + " throws uncommitted changes away"
		}
	case "stash":
		if has("drop", "clear") {
			return "git stash drop throws a stash away"
		}
	case "reflog":
		if has("expire", "delete") {
			return "git reflog expire forgets the history that recovers lost commits"
		}
	case "gc", "prune":
		if has("--prune=now", "--prune=all", "--expire=now") || sub == "prune" {
			return "git " + sub + " deletes unreachable commits for good"
		}
	case "update-ref", "symbolic-ref":
		if has("-d", "--delete") {
			return "git " + sub + " -d deletes a reference"
		}
	}
	return ""
}

// gitValueish reports subcommands whose computed words are usually values
// (commit messages, paths) rather than options.
func gitValueish(sub string) bool {
	switch sub {
	case "commit", "add", "tag", "notes", "stash", "checkout", "switch", "branch", "rm", "mv",
		"log", "show", "diff", "status", "restore", "blame", "grep", "ls-files":
		return true
	}
	return false
}

// gitRemote judges git remote: listing the remotes' names is everyday;
// printing their addresses (-v, get-url, show) prints a password or token
// one of them holds.
func (c *call) gitRemote(dir string, rest []arg) {
	if len(rest) > 0 && (rest[0].val == "-v" || rest[0].val == "--verbose" || rest[0].val == "get-url" || rest[0].val == "show") {
		if why := c.remoteCredential(dir); why != "" {
			c.secretRead("git remote " + rest[0].val + " prints the remotes' addresses: " + why)
		}
	}
	if len(rest) == 0 || rest[0].val == "-v" || rest[0].val == "--verbose" || rest[0].val == "get-url" {
		c.unknown("git remote lists the remotes")
		return
	}
	if rest[0].val == "show" {
		for _, x := range rest[1:] {
			if x.val == "-n" {
				c.unknown("git remote show -n lists a remote without contacting it")
				return
			}
		}
		c.risky("network: git remote show contacts the remote")
		return
	}
	c.risky("network: git remote " + rest[0].val + " changes or contacts remotes")
}

func (c *call) gitSubmodule(rest []arg) {
	ops := scan(rest, optSpec{})
	if len(ops.operands) == 0 {
		c.unknown("git submodule lists the submodules")
		return
	}
	switch sub := ops.operands[0]; sub.val {
	case "status", "summary", "absorbgitdirs", "deinit":
		c.unknown("git submodule " + sub.val + " works on the local repository")
	case "foreach":
		c.local("git submodule foreach runs a command in each submodule, which is checked on its own")
		if len(ops.operands) > 1 {
			c.scriptArg(joinArgs(ops.operands[1:]))
		}
	default:
		c.risky("network: git submodule " + sub.val + " fetches or registers repositories")
	}
}

// gitConfigCmd tells reading configuration from changing it: a change can
// make later git commands run any program.
func (c *call) gitConfigCmd(dir string, rest []arg) {
	ops := scan(rest, optSpec{short: "f", long: []string{"file", "blob", "type", "default", "comment", "value"}})
	if ops.computed {
		c.risky("indirection: a git config argument is only known at run time")
		return
	}
	if ops.has("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color",
		"--get-colorbool", "--show-origin", "--show-scope", "--name-only") && !ops.has("--add",
		"--replace-all", "--unset", "--unset-all", "--rename-section", "--remove-section", "--edit", "-e") {
		c.gitConfigRead(dir, ops, ops.operands)
		return
	}
	n := len(ops.operands)
	if n > 0 {
		switch ops.operands[0].val {
		case "get", "list":
			c.gitConfigRead(dir, ops, ops.operands[1:])
			return
		case "set", "unset", "rename-section", "remove-section", "edit":
			n = 2
		}
	}
	if n <= 1 && !ops.has("--add", "--replace-all", "--unset", "--unset-all", "--rename-section", "--remove-section", "--edit", "-e") {
		c.gitConfigRead(dir, ops, ops.operands)
		return
	}
	c.risky("indirection: git config changes settings that can make git run programs or reach the network")
}

// gitConfigRead judges a read of git's configuration, whose values can
// hold credentials (a remote's https://user:token@ address, an
// http.extraHeader with a bearer token, a tool's token): a dump of values
// (--list, --get-regexp, git config list, get --regexp) is a secret read,
// as env is, and so is a key named like a credential; names alone
// (--name-only) and ordinary keys are not. keys are the operands after
// the subcommand, the key first.
func (c *call) gitConfigRead(dir string, ops scanResult, keys []arg) {
	switch {
	case ops.has("--name-only"):
	case ops.has("--list", "-l", "--regexp") || getOption(ops, "--get-regexp") || len(ops.operands) > 0 && ops.operands[0].val == "list":
		c.secretRead("git config prints the values of git's configuration, where credentials are kept " +
			"(a remote's user:token@ address, http.extraHeader)")
		return
	case (getOption(ops, "--get-urlmatch") || ops.has("--url")) && len(keys) > 0 && !strings.Contains(keys[0].val, "."):
		c.secretRead("git config prints every value of the " + keys[0].val + " section that applies to a URL, " +
			"where credentials are kept (http.extraHeader)")
		return
	case len(keys) > 0 && !keys[0].static():
		c.secretRead("git config prints a key only known at run time, which may hold a credential: " + keys[0].val)
		return
	case len(keys) > 0 && secretConfigKey(keys[0].val):
		c.secretRead("git config prints " + keys[0].val + ", which holds a credential")
		return
	}
	if len(keys) > 0 && !ops.has("--name-only") {
		if why := c.configKeySecret(dir, ops, keys[0].val); why != "" {
			c.secretRead("git config prints " + keys[0].val + ": " + why)
			return
		}
	}
	c.unknown("git config reads the configuration")
}

// getOption reports git config's option full (--get-regexp,
// --get-urlmatch), abbreviated as git takes it: past "--get-", since --get
// alone is the option --get.
func getOption(ops scanResult, full string) bool {
	for _, o := range ops.opts {
		if len(o.name) > len("--get-") && strings.HasPrefix(full, o.name) {
			return true
		}
	}
	return false
}

// secretConfigKey reports a git configuration key named like a credential.
func secretConfigKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range [...]string{"token", "password", "passwd", "secret", "extraheader", "smtppass", "oauth", "apikey", "api-key", "api_key"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// gitClean judges git clean by what it may delete: with -x or -X the
// ignored files, .cuff among them (cuff init adds it to .gitignore), and
// with -d untracked directories, which .claude, .codex and .cuff may be.
// A clean of a part of the work tree that holds none of them stays a
// matter for the policy.
func (c *call) gitClean(rest []arg) {
	ops := scan(rest, optSpec{short: "e", long: []string{"exclude"}})
	if ops.has("-n", "--dry-run") {
		return
	}
	ignored, dirs := ops.has("-x", "-X"), ops.has("-d")
	targets := ops.operands
	if len(targets) == 0 {
		targets = []arg{{val: "."}}
	}
	for _, x := range targets {
		x, magic := c.gitPathspec(x)
		if g, rel := c.a.guarded(x, false); g != "" {
			c.guardRisk("destructive: git clean " + x.val + " deletes " + guardedPart(g, rel))
			return
		}
		rel, ok := c.a.relOf(x, false, false)
		if ok && rel != "." && !magic {
			continue
		}
		switch {
		case ignored:
			c.guardRisk("destructive: git clean -x deletes ignored files too, .cuff's policy and recordings among them")
			return
		case dirs:
			c.guardRisk("destructive: git clean -d deletes untracked directories, which .claude, .codex or .cuff may be")
			return
		}
	}
}

// gitTouchesGuarded makes git rm, mv, checkout and restore of a path in a
// guarded directory risky: the agent's settings and hooks or cuff's files
// would be removed, moved or overwritten. It reports whether it did.
func (c *call) gitTouchesGuarded(sub string, rest []arg) bool {
	for _, x := range rest {
		if sub == "rm" && isLong(x.val, "cached") ||
			sub == "restore" && (x.val == "-S" || isLong(x.val, "staged")) && !hasWorktree(rest) {
			return false // only the index changes
		}
	}
	for _, x := range rest {
		if x.mayOpt() {
			continue
		}
		x, _ := c.gitPathspec(x)
		if g, rel := c.a.guarded(x, false); g != "" {
			c.guardRisk("destructive: git " + sub + " " + x.val + " changes " + guardedPart(g, rel))
			return true
		}
	}
	return false
}

// stashPathspecs are the paths a git stash push names (git stash -- PATH
// too): their changes are stashed away, the files put back as HEAD has
// them. Other stash commands name none.
func stashPathspecs(rest []arg) []arg {
	switch {
	case len(rest) == 0:
		return nil
	case rest[0].val == "push":
		rest = rest[1:]
	case !rest[0].mayOpt():
		return nil // list, show, pop, save MESSAGE, ...
	}
	var out []arg
	for i := 0; i < len(rest); i++ {
		x := rest[i]
		switch {
		case x.val == "-m" || x.val == "--message" || x.val == "--pathspec-from-file":
			i++ // its value
		case x.val == "--":
		default:
			out = append(out, x)
		}
	}
	return out
}

// hasWorktree reports git restore's --worktree (-W).
func hasWorktree(rest []arg) bool {
	for _, x := range rest {
		if x.val == "-W" || isLong(x.val, "worktree") {
			return true
		}
	}
	return false
}

// gitPathspec turns a pathspec with magic (":/src", ":(top,glob)src",
// ":!x") into the path it names from the top of the work tree, as a
// pattern, and reports that it had magic, which can widen a pathspec to
// the whole tree.
func (c *call) gitPathspec(x arg) (arg, bool) {
	rest, ok := strings.CutPrefix(x.val, ":")
	if !ok {
		return x, false
	}
	switch {
	case strings.HasPrefix(rest, "("):
		if _, after, found := strings.Cut(rest, ")"); found {
			rest = after
		}
	default:
		rest = strings.TrimLeft(rest, "/!^")
	}
	return arg{val: c.a.g.root + "/" + rest, dyn: x.dyn, glob: true}, true
}

// gitRepoConfig checks the repository git will read its configuration
// from: one named by --git-dir, or the one git finds from dir. A .git
// directory (or the one a .git file names) is guarded; any other directory
// that looks like a repository (HEAD, objects, refs) is one the agent may
// have made with plain writes, whose config (core.fsmonitor,
// diff.external, a textconv driver) makes git run programs.
func (c *call) gitRepoConfig(dir, gitDir string) {
	if gitDir != "" {
		if !hasGitComponent(gitDir) {
			c.risky("interpreter: git --git-dir uses " + gitDir + ", a repository outside any .git directory, whose configuration can make git run programs")
		}
		return
	}
	if dir == "" {
		c.agentCode("git runs in a directory only known at run time, which may be a repository the agent made, whose configuration can make git run programs")
		return
	}
	if bare := c.a.bareRepoAround(dir); bare != "" {
		c.risky("interpreter: git uses " + bare + " as its repository, a directory outside any .git, whose configuration can make git run programs")
	}
}

// bareRepoAround is the directory git would take as a bare repository when
// run in dir (dir or a parent holding HEAD, objects and refs, found before
// any .git), unless it lies in a .git directory; "" otherwise.
func (a *analysis) bareRepoAround(dir string) string {
	for i, d := 0, path.Clean(dir); i < maxGitUp; i++ {
		if a.lstat(d + "/.git").exists {
			return ""
		}
		if looksLikeGitDir(d) {
			if hasGitComponent(d) {
				return ""
			}
			return d
		}
		if d == "/" || d == "." || d == "" {
			return ""
		}
		d = path.Dir(d)
	}
	return ""
}

// looksLikeGitDir reports whether d holds what git needs to take it as a
// repository: a HEAD file and objects and refs directories.
func looksLikeGitDir(d string) bool {
	if fi, err := os.Stat(d + "/HEAD"); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	for _, sub := range []string{"/objects", "/refs"} {
		if fi, err := os.Stat(d + sub); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// hasGitComponent reports whether the clean path p has a .git component.
func hasGitComponent(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if part == ".git" {
			return true
		}
	}
	return false
}

// fromBase is the path word x as it names a path from c.base (git -C
// DIR): a relative word made absolute, or only known at run time when the
// base is. Without a base, x as it is.
func (c *call) fromBase(x arg) arg {
	v := x.val
	if c.base == "" && !c.baseUnknown || x.proc || v == "" || v == "-" || v[0] == '/' || v[0] == '~' || v[0] == '$' {
		return x
	}
	if c.baseUnknown {
		x.dyn = true
		return x
	}
	x.val = c.base + "/" + v
	return x
}

// gitDiffFiles judges git diff (and difftool) when it compares two files
// or directories instead of the repository's versions: with --no-index,
// and, as git decides by itself, when it runs outside any repository or is
// given exactly two paths of which one lies outside the work tree (git
// diff src /tmp/empty). Then it prints both sides whole, read recursively.
func (c *call) gitDiffFiles(dir, sub string, rest []arg) (files bool) {
	explicit, i := false, 0
	for ; i < len(rest); i++ { // as git's own loop, up to the first operand
		v := rest[i].val
		if v == "--" {
			i++
			break
		}
		if v == "--no-index" {
			explicit = true
		}
		if !strings.HasPrefix(v, "-") {
			break
		}
	}
	if explicit {
		return true // secretReads reads every operand recursively
	}
	if len(rest) != i+2 {
		return false // with more or fewer words, git diff compares files only with --no-index
	}
	ops := rest[i:]
	if dir != "" {
		if top, _, _ := c.a.repoAround(dir); top != "" && c.inTree(top, dir, ops[0]) && c.inTree(top, dir, ops[1]) {
			return false
		}
	}
	for _, x := range ops {
		if why := c.a.secretIn(c.fromBase(x), reading{recursive: true, hidden: true}); why != "" {
			c.secretRead("git " + sub + " " + ops[0].val + " " + ops[1].val + " compares them as files (a path outside the work tree, or no repository, makes it --no-index): " + why)
			break
		}
	}
	return true
}

// verbosity counts git's -v (--verbose) options: git status -vv prints
// the work tree's changes.
func verbosity(rest []arg) int {
	n := 0
	for _, x := range rest {
		switch v := x.val; {
		case v == "--":
			return n
		case isLong(v, "verbose"):
			n++
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--"):
			n += strings.Count(v, "v")
		}
	}
	return n
}

// inTree reports whether git, run in dir, takes the path word x as lying
// in the work tree whose top is top: written from dir, ".." and "." taken
// as written, it stays below top. A word only known at run time does not.
func (c *call) inTree(top, dir string, x arg) bool {
	if !x.static() {
		return false
	}
	v := x.val
	switch {
	case v == "~" || strings.HasPrefix(v, "~/"):
		if c.a.g.home == "" {
			return false
		}
		v = c.a.g.home + v[1:]
	case strings.HasPrefix(v, "~"):
		return false
	case !strings.HasPrefix(v, "/"):
		v = dir + "/" + v
	}
	return within(path.Clean(v), top)
}
