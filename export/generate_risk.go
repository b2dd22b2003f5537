package export

import "strings"

// Why a program or subcommand is never widened into a pattern, whatever
// the gate says about the commands that were recorded: a pattern such as
// "curl *" or "python *" would allow invocations nobody ever approved.
const (
	riskNetwork     = "reaches the network"
	riskDestructive = "can destroy or overwrite data"
	riskInterpreter = "runs code given to it"
	riskIndirection = "runs other commands or hides what it runs"
	riskInstaller   = "downloads and runs third-party code"
	riskPrivilege   = "changes privileges"
)

// riskyProgram says whether commands of program name are only ever kept as
// exact rules, and why.
func riskyProgram(name string) (string, bool) {
	switch name {
	case "curl", "wget", "http", "https", "xh", "httpie", "aria2c", "nc", "ncat", "netcat", "socat", "telnet",
		"ssh", "scp", "sftp", "ftp", "rsync", "rclone", "dig", "nslookup", "host", "whois", "nmap", "gh",
		"aws", "gcloud", "az", "kubectl", "helm", "terraform", "docker", "podman", "ping", "traceroute":
		return riskNetwork, true
	case "rm", "rmdir", "dd", "mkfs", "shred", "truncate", "wipefs", "fdisk", "parted", "chmod", "chown",
		"chgrp", "kill", "pkill", "killall", "reboot", "shutdown", "halt", "poweroff", "mv", "cp", "ln",
		"install", "tee", "crontab", "at":
		return riskDestructive, true
	case "sh", "bash", "zsh", "dash", "ksh", "fish", "csh", "tcsh", "ash", "busybox", "python", "python2",
		"python3", "pypy", "pypy3", "ipython", "node", "nodejs", "deno", "bun", "ruby", "irb", "perl", "php",
		"lua", "luajit", "tclsh", "wish", "rscript", "julia", "osascript", "pwsh", "powershell", "java",
		"jshell", "groovy", "scala", "elixir", "erl", "awk", "gawk", "mawk", "nawk", "sed", "make", "gmake",
		"just", "task", "sqlite3", "psql", "mysql", "redis-cli", "mongo", "mongosh":
		return riskInterpreter, true
	case "eval", "exec", "source", ".", "env", "xargs", "parallel", "watch", "nohup", "setsid", "timeout",
		"nice", "ionice", "time", "stdbuf", "chroot", "nsenter", "unshare", "script", "expect", "command",
		"builtin", "find", "fd", "tar", "git-shell", "strace", "ltrace", "gdb", "tmux", "screen":
		return riskIndirection, true
	case "npx", "pnpx", "bunx", "uvx", "pipx":
		return riskInstaller, true
	case "sudo", "doas", "su", "runuser", "pkexec":
		return riskPrivilege, true
	}
	return "", false
}

// subcommandTools are programs whose first argument names what they do, so
// that their family is program and subcommand: "git diff", "npm run".
func subcommandTool(name string) bool {
	switch name {
	case "git", "npm", "pnpm", "yarn", "go", "cargo", "pip", "pip3", "uv", "poetry", "pipenv", "conda",
		"gem", "bundle", "composer", "brew", "apt", "apt-get", "dnf", "yum", "pacman", "apk", "snap", "mix",
		"dotnet", "mvn", "gradle", "gradlew", "rustup", "nx", "turbo", "lerna", "rake", "rails", "cuff", "jj",
		"hg", "svn", "systemctl", "launchctl", "swift", "flutter", "dart", "zig", "bazel", "buck2", "stack",
		"cabal", "nix", "opam", "kubectl", "docker", "podman", "gh":
		return true
	}
	return false
}

// riskySubcommand says whether "tool sub" commands are only ever kept as
// exact rules, and why.
func riskySubcommand(tool, sub string) (string, bool) {
	if tool == "git" {
		switch sub {
		case "push", "pull", "fetch", "clone", "remote", "submodule", "ls-remote", "send-email", "daemon",
			"request-pull", "archive", "lfs", "credential", "svn", "p4":
			return riskNetwork, true
		case "clean", "reset", "rm", "checkout", "restore", "stash", "branch", "tag", "gc", "prune", "reflog",
			"filter-branch", "filter-repo", "worktree", "am", "apply", "update-ref", "replace":
			return riskDestructive, true
		case "config", "rebase", "bisect", "submodule--helper", "hook", "difftool", "mergetool", "instaweb":
			return riskIndirection, true
		}
		return "", false
	}
	switch sub {
	case "install", "i", "ci", "add", "sync", "download", "get", "publish", "unpublish", "upload", "update",
		"upgrade", "up", "remove", "rm", "uninstall", "un", "link", "ln", "login", "logout", "adduser", "push",
		"pull", "fetch", "create", "init", "dlx", "x", "exec", "tool", "deprecate", "owner", "token", "audit",
		"rebuild", "explore", "lock", "self", "yank", "env", "generate", "config", "set", "dist-tag":
		return riskInstaller, true
	}
	if sub == "run" && (tool == "go" || tool == "uv" || tool == "poetry" || tool == "pipenv" || tool == "conda" ||
		tool == "cargo" || tool == "dotnet" || tool == "bundle" || tool == "nix" || tool == "docker" || tool == "podman") {
		return riskInterpreter, true
	}
	return "", false
}

// subcommandWord reports whether w reads as a subcommand name rather than
// an option or an operand.
func subcommandWord(w string) bool {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

// trustedBinDirs are where system programs live; a command run by such a
// path is matched by policy rules under its bare name.
var trustedBinDirs = [...]string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/usr/local/sbin/"}

// programName is the name rules see for a program word: a path in a system
// directory is reduced to its base name.
func programName(word string) string {
	for _, d := range trustedBinDirs {
		if rest, ok := strings.CutPrefix(word, d); ok && rest != "" && !strings.Contains(rest, "/") {
			return rest
		}
	}
	return word
}

// exactWords reports whether a rule can match these words and nothing
// else: a rule has no quoting, so a word holding white space or a pattern
// character (* ? [) cannot be written exactly.
func exactWords(argv []string) bool {
	for _, w := range argv {
		if w == "" || strings.ContainsAny(w, "*?[ \t\n\r\v\f") {
			return false
		}
	}
	return true
}
