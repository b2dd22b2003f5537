package gate

import (
	"path"
	"strings"
)

// jsPackage classifies npm, yarn, pnpm and bun: running the project's
// scripts is left to the policy; installing, publishing and running
// downloaded packages reach the network.
func (c *call) jsPackage() {
	for i, x := range c.args {
		if x.val == "--" {
			break
		}
		if !strings.HasPrefix(x.val, "--") {
			continue
		}
		switch n := flagName(x.val); n {
		case "registry", "userconfig", "globalconfig", "script-shell", "node-options", "proxy",
			"https-proxy", "onload-script", "shell", "git", "prefix", "cwd":
			if (n == "prefix" || n == "cwd") && func() bool { v, ok := optValue(c.args, i); return ok && c.a.where(v) == pathInside }() {
				continue
			}
			c.risky("indirection: " + c.name + " --" + n + " changes what it runs or where it downloads from")
		}
	}
	ops := scan(c.args, optSpec{short: "wC", long: []string{"workspace", "filter", "dir", "cwd", "prefix", "loglevel"}, stop: true})
	if c.name == "bun" && ops.has("-e", "--eval", "-p", "--print") {
		c.risky("interpreter: bun runs code that can do anything, including reach the network")
		return
	}
	if ops.computed {
		c.risky("indirection: an argument of " + c.name + " is only known at run time")
		return
	}
	if len(ops.operands) == 0 {
		if c.name == "npm" || c.name == "bun" {
			c.local(c.name + " without a command prints help")
			return
		}
		c.risky("network: " + c.name + " without a command installs dependencies")
		return
	}
	sub, rest := ops.operands[0], ops.operands[1:]
	if !sub.static() {
		c.risky("indirection: the " + c.name + " command " + sub.val + " is only known at run time")
		return
	}
	s := sub.val
	switch {
	case c.name == "npm" && (s == "exec" || s == "x"):
		c.args = rest
		c.npx()
	case c.name == "npm" && s == "pkg" && len(rest) > 0 && rest[0].val != "get":
		c.risky("indirection: npm pkg " + rest[0].val + " changes package.json, whose scripts npm runs")
	case jsNetworkSub(c.name, s):
		c.risky("network: " + c.name + " " + s + " downloads, publishes or contacts the registry")
	case s == "exec" || s == "x" && c.name != "npm":
		c.agentCode(c.name + " exec runs a program installed in the project")
		c.local(c.name + " exec runs a local program, which is checked on its own")
		c.wrap(rest, c.inner())
	case s == "explore" || s == "edit" || c.name == "yarn" && s == "node" || c.name == "bun" && (s == "repl" || s == "-e" || s == "--eval"):
		c.risky("interpreter: " + c.name + " " + s + " runs a shell or code")
	case s == "config" || s == "c" && c.name == "npm" || s == "set":
		if len(rest) > 0 && (rest[0].val == "get" || rest[0].val == "list" || rest[0].val == "ls") {
			for _, x := range rest[1:] {
				if l := strings.ToLower(x.val); strings.Contains(l, "auth") || strings.Contains(l, "token") || strings.Contains(l, "password") || x.val == "-l" || x.val == "--long" {
					c.secretRead(c.name + " config get " + x.val + " prints a registry credential")
					return
				}
			}
			c.local(c.name + " config reads the configuration")
			return
		}
		c.risky("indirection: " + c.name + " " + s + " changes settings such as the script shell or the registry")
	case c.name == "bun" && (s == "run" && len(rest) > 0 && jsFile(rest[0].val) || jsFile(s)):
		c.risky("interpreter: bun runs a script file, which can do anything, including reach the network")
	default:
		if !jsReadOnly(s) {
			c.agentCode(c.name + " " + s + " runs the project's scripts or tools")
		}
		c.runnerPaths()
		c.unknown(c.name + " " + s + " runs the project's scripts or tools")
	}
}

// jsReadOnly reports subcommands of a JavaScript package manager that only
// read what is installed and run none of the project's scripts.
func jsReadOnly(s string) bool {
	switch s {
	case "ls", "list", "ll", "la", "explain", "why", "help", "prefix", "root", "bin", "query", "licenses", "-v", "--version":
		return true
	}
	return false
}

// jsFile reports a word that names a script file rather than a package
// script.
func jsFile(v string) bool {
	if strings.Contains(v, "/") {
		return true
	}
	for _, ext := range [...]string{".js", ".ts", ".mjs", ".cjs", ".tsx", ".jsx", ".mts", ".cts"} {
		if strings.HasSuffix(v, ext) {
			return true
		}
	}
	return false
}

// jsNetworkSub reports subcommands of a JavaScript package manager that
// download, publish or talk to the registry.
func jsNetworkSub(tool, s string) bool {
	switch s {
	case "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall",
		"add", "a", "ci", "clean-install", "install-clean", "isntall-clean", "install-test", "it",
		"install-ci-test", "cit", "update", "up", "upgrade", "udpate", "upgrade-interactive",
		"dedupe", "ddp", "publish", "unpublish", "deprecate", "dist-tag", "owner", "access", "login",
		"adduser", "add-user", "logout", "whoami", "token", "team", "org", "star", "stars", "search",
		"s", "se", "find", "outdated", "view", "v", "info", "show", "audit", "doctor", "ping", "repo",
		"docs", "bugs", "home", "diff", "dlx", "create", "init", "innit", "global", "import", "fetch",
		"npm", "plugin", "patch-commit", "server", "env", "link", "ln":
		return true
	case "remove", "rm", "uninstall", "un", "unlink", "r":
		return tool != "npm" || s == "r"
	case "cache":
		return true
	case "x":
		return tool == "npm" || tool == "bun"
	}
	return false
}

// nodeBin reports whether a program named name is installed in a
// node_modules/.bin of the working directory or one above it, where npx
// finds it without downloading anything.
func (a *analysis) nodeBin(name string) bool {
	if strings.ContainsAny(name, "/@") {
		return false // a path or a package@version: not a local binary
	}
	dir := a.cwdReal()
	if dir == "" {
		dir = a.g.root
	}
	for i := 0; i < maxGitUp && strings.HasPrefix(dir, "/"); i++ {
		if li := a.lookup(dir + "/node_modules/.bin/" + name); li.exists {
			return true
		}
		if dir == "/" {
			break
		}
		dir = path.Dir(dir)
	}
	return false
}

// localDevTool reports tools that npx usually finds installed in the
// project; running them is checked as the tool itself.
func localDevTool(name string) bool {
	switch name {
	case "tsc", "jest", "vitest", "eslint", "prettier", "mocha", "ava", "tap", "playwright", "next",
		"vite", "tsup", "rollup", "webpack", "esbuild", "swc", "babel", "astro", "svelte-check",
		"vue-tsc", "knip", "biome", "stylelint", "turbo", "nx", "lerna", "size-limit", "c8", "nyc",
		"jasmine", "karma", "cypress", "remix", "nuxt", "changeset", "prisma", "drizzle-kit",
		"typedoc", "tslint", "oxlint", "pyright":
		return true
	}
	return false
}

// npx runs a package's program, downloading the package when it is not
// installed.
func (c *call) npx() {
	ops := scan(c.args, optSpec{short: "pc", long: []string{"package", "call", "node-options", "shell"}, stop: true})
	if ops.computed {
		c.risky("indirection: an argument of " + c.name + " is only known at run time")
		return
	}
	if ops.has("-p", "--package", "-y", "--yes", "--ignore-existing") {
		c.risky("network: " + c.name + " downloads the packages it is given")
		return
	}
	if o, ok := ops.get("-c", "--call"); ok {
		c.local(c.name + " -c runs a script, which is checked on its own")
		c.scriptArg(o.val)
		return
	}
	if len(ops.operands) == 0 {
		c.risky("interpreter: " + c.name + " without a package starts a shell")
		return
	}
	tool := ops.operands[0]
	installed := tool.static() && c.a.nodeBin(tool.val)
	if !installed && (c.name == "npx" || c.name == "bunx" || c.name == "pnpx" || c.name == "npm") {
		c.risky("network: " + c.name + " " + tool.val + " is not installed in the project's node_modules, so " + c.name + " downloads and runs a package of that name")
		return
	}
	if installed && !localDevTool(tool.val) {
		c.agentCode(c.name + " runs " + tool.val + " from the project's node_modules")
		c.unknown(c.name + " runs " + tool.val + ", installed in the project's node_modules")
		return
	}
	if tool.static() && localDevTool(tool.val) {
		c.agentCode(c.name + " runs " + tool.val + " from the project's node_modules")
		c.local(c.name + " runs the project's " + tool.val + ", which is checked on its own")
		c.wrap(ops.operands, c.inner())
		return
	}
	c.risky("network: " + c.name + " " + tool.val + " downloads and runs the package if it is not installed")
}

// node classifies node and deno: the test runner and syntax checks are
// left for the policy, code is an interpreter.
func (c *call) node() {
	if c.name == "deno" {
		c.deno()
		return
	}
	ops := scan(c.args, optSpec{short: "repC", long: []string{"require", "eval", "print", "import", "loader", "experimental-loader", "conditions", "env-file", "title", "input-type"}, stop: true})
	if ops.has("-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader", "--experimental-loader", "-i", "--interactive", "--inspect", "--inspect-brk") {
		c.risky("interpreter: " + c.name + " runs code that can do anything, including reach the network")
		return
	}
	switch {
	case ops.has("--test"):
		c.agentCode(c.name + " --test runs the project's tests")
		c.runnerPaths()
		c.unknown(c.name + " --test runs the project's tests")
	case ops.has("-c", "--check"):
		c.local(c.name + " --check only checks syntax")
	case len(ops.operands) == 0:
		if c.cx.piped {
			c.notAlways(c.name + " runs code read from a pipe, which may differ every time")
		}
		c.risky("interpreter: " + c.name + " runs code read from its input")
	default:
		c.risky("interpreter: " + c.name + " runs " + ops.operands[0].val + ", which can do anything, including reach the network")
	}
}

func (c *call) deno() {
	ops := scan(c.args, optSpec{stop: true})
	if len(ops.operands) == 0 {
		c.risky("interpreter: deno starts a REPL")
		return
	}
	switch sub := ops.operands[0].val; sub {
	case "test", "fmt", "lint", "check", "bench", "doc", "task", "types", "coverage":
		if sub != "fmt" && sub != "types" {
			c.agentCode("deno " + sub + " runs or loads the project's code")
		}
		c.runnerPaths()
		c.unknown("deno " + sub + " works on the project")
	default:
		c.risky("interpreter: deno " + sub + " runs code that can reach the network")
	}
}
