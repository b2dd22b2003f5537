package gate

import (
	"strings"
)

// toolKind groups the programs toolchain knows.
type toolKind uint8

const (
	toolPackages toolKind = iota // installs software: network unless it only lists
	toolBuild                    // builds and tests a project: policy decides
	toolCompiler                 // compiles, lints or formats files: policy decides
)

func toolKindOf(name string) toolKind {
	switch name {
	case "apt", "apt-get", "aptitude", "dpkg", "yum", "dnf", "rpm", "zypper", "apk", "pacman",
		"emerge", "brew", "port", "snap", "flatpak", "nix", "nix-env", "nix-shell", "nix-build",
		"guix", "gem", "composer", "cpan", "cpanm", "nuget", "opam", "luarocks", "asdf", "mise",
		"volta", "fnm", "nvm", "sdk", "bundle", "bundler":
		return toolPackages
	case "gcc", "g++", "cc", "c++", "clang", "clang++", "javac", "ld", "tsc", "eslint", "prettier",
		"ruff", "black", "mypy", "flake8", "pylint", "isort", "golangci-lint", "staticcheck",
		"rustfmt", "clang-format", "biome", "stylelint", "tslint", "pyright", "basedpyright", "ty":
		return toolCompiler
	}
	return toolBuild
}

// toolchain handles package managers, build systems, compilers and linters.
func (c *call) toolchain() {
	ops := scan(c.args, optSpec{stop: true})
	sub := ""
	if len(ops.operands) > 0 {
		sub = ops.operands[0].val
		if !ops.operands[0].static() {
			c.risky("indirection: the " + c.name + " command " + sub + " is only known at run time")
			return
		}
	}
	switch toolKindOf(c.name) {
	case toolPackages:
		c.packages(sub, ops)
	case toolCompiler:
		if !pureFormatter(c.name) {
			c.agentCode(c.name + " compiles or checks the project with its configuration, which may load the project's code")
		}
		c.runnerPaths()
		c.compiler()
	default:
		c.agentCode(strings.TrimSpace(c.name+" "+sub) + " runs the project's build or tests")
		c.runnerPaths()
		c.build(sub)
	}
}

// pureFormatter reports formatters and linters whose configuration cannot
// load code: running them runs nothing the agent wrote.
func pureFormatter(name string) bool {
	switch name {
	case "rustfmt", "clang-format", "black", "ruff", "isort", "gofmt", "staticcheck":
		return true
	}
	return false
}

// packages classifies a system or language package manager.
func (c *call) packages(sub string, ops scanResult) {
	switch c.name {
	case "dpkg", "rpm":
		for _, o := range ops.opts {
			switch o.name {
			case "-i", "-r", "-P", "-U", "-F", "-e", "--install", "--remove", "--purge", "--unpack", "--configure", "--upgrade", "--freshen", "--erase":
				c.risky("destructive: " + c.name + " " + o.name + " installs or removes system packages")
				return
			}
		}
		c.local(c.name + " queries installed packages")
		return
	case "bundle", "bundler":
		if sub == "exec" {
			c.unknown("bundle exec runs a command with the project's gems, which is checked on its own")
			c.wrap(ops.operands[1:], c.inner())
			return
		}
	case "nix-shell":
		for i, x := range c.args {
			if (x.val == "--run" || x.val == "--command") && i+1 < len(c.args) {
				c.scriptArg(c.args[i+1])
			}
		}
	}
	switch sub {
	case "list", "ls", "show", "info", "policy", "which", "current", "where", "deps",
		"leaves", "contents", "spec", "env", "config", "--prefix", "--cellar", "--repository",
		"check", "platform", "-v", "--version", "version", "help",
		"--help", "list-installed":
		if why := packageQueryNetwork(c.name, sub, c.args); why != "" {
			c.risky("network: " + c.name + " " + sub + " " + why)
			return
		}
		c.local(c.name + " " + sub + " inspects installed software")
		return
	}
	c.risky("network: " + c.name + " " + sub + " downloads or installs software")
}

// packageQueryNetwork says why a package manager's query verb reaches
// the network: it asks the registry about packages (remote lists,
// versions available) or refreshes its package lists first. "" when it
// only reads what is installed.
func packageQueryNetwork(tool, sub string, args []arg) string {
	switch tool {
	case "dnf", "yum", "zypper":
		if !hasArg(args, "-C") && !hasArg(args, "--cacheonly") {
			return "refreshes the package lists from the repositories first"
		}
	case "brew":
		if sub == "info" || sub == "deps" || sub == "spec" {
			return "fetches the formula's description from the registry"
		}
	case "snap":
		if sub == "info" {
			return "asks the store"
		}
	}
	remote := map[string][]string{
		"gem":      {"-r", "--remote", "-b", "--both"},
		"composer": {"-a", "--available", "--all", "-l", "--latest", "-o", "--outdated"},
		"pip":      {"-o", "--outdated", "-u", "--uptodate"},
		"pip3":     {"-o", "--outdated", "-u", "--uptodate"},
		"asdf":     {"all"},
		"mise":     {"--all", "ls-remote"},
		"nvm":      {"ls-remote"},
		"fnm":      {"list-remote", "ls-remote"},
	}[tool]
	for _, x := range args {
		for _, r := range remote {
			if x.val == r {
				return "with " + x.val + " asks the registry about packages"
			}
		}
	}
	if tool == "sdk" && (sub == "list" || sub == "ls") {
		return "asks the registry about candidates"
	}
	return ""
}

// build classifies a build system or test runner: running the project's
// build is for the policy to allow; publishing or fetching is network.
func (c *call) build(sub string) {
	what := strings.TrimSpace(c.name + " " + sub)
	switch sub {
	case "deploy", "publish", "release", "upload", "push", "login", "install", "add", "restore",
		"fetch", "update", "resolve", "get", "upgrade", "deps.get", "hex.publish", "archive.install",
		"publishToMavenLocal", "publishToSonatype", "setup":
		c.risky("network: " + what + " downloads or publishes")
		return
	case "run", "exec", "serve", "dev", "start", "repl", "console", "shell", "eval":
		if runsPrograms(c.name) {
			c.grey(what + " runs a program or server built from the workspace")
			return
		}
	case "pub", "package", "tool", "nuget", "new":
		if c.name == "dotnet" || c.name == "dart" || c.name == "flutter" || c.name == "swift" {
			c.risky("network: " + what + " downloads or publishes packages")
			return
		}
	}
	for i, x := range c.args {
		switch {
		case c.name == "cmake" && x.val == "-P":
			c.risky("interpreter: cmake -P runs a CMake script")
			return
		case (c.name == "mvn" || c.name == "mvnw") && strings.HasPrefix(x.val, "exec:"):
			c.risky("interpreter: mvn " + x.val + " runs a program")
			return
		case (c.name == "gradle" || c.name == "gradlew") && (x.val == "-I" || isLong(flagName(x.val), "init-script")):
			c.grey("gradle --init-script runs a build script from elsewhere")
		case c.name == "nodemon" && isLong(x.val, "exec") && i+1 < len(c.args):
			c.scriptArg(c.args[i+1])
		case c.name == "gotestsum" && flagName(x.val) == "raw-command":
			c.risky("interpreter: gotestsum --raw-command runs another program")
			return
		case c.name == "coverage" && sub == "run" && x.val == "-m" && i+1 < len(c.args):
			if m := c.args[i+1].val; m != "pytest" && m != "unittest" {
				c.risky("interpreter: coverage run -m " + m + " runs a module")
				return
			}
		}
	}
	if c.name == "coverage" && sub == "run" && !hasArg(c.args, "-m") {
		c.risky("interpreter: coverage run runs a Python script")
		return
	}
	if c.name == "nodemon" {
		c.risky("interpreter: nodemon runs a script and restarts it")
		return
	}
	c.unknown(what + " builds, tests or checks the project")
	if (c.name == "mvn" || c.name == "mvnw") && !c.e.unliftable {
		c.e.ruleText = mvnRuleText(c.name, c.args)
	}
}

// mvnRuleText is what the policy's rules see of a Maven command: its
// words without the options that change only what it prints, whether it
// goes online or runs tests (mvn -q -DskipTests package is matched as
// mvn package), as makeRuleText does for make.
func mvnRuleText(name string, args []arg) string {
	return quietRuleText(name, args, func(v string) (bool, string) {
		switch {
		case v == "-T" || v == "--threads":
			return true, "0123456789.C"
		case strings.HasPrefix(v, "-T") && strings.Trim(v[2:], "0123456789.C") == "",
			v == "-q", v == "--quiet", v == "-B", v == "--batch-mode", v == "-ntp", v == "--no-transfer-progress",
			v == "-e", v == "--errors", v == "-o", v == "--offline", v == "-fae", v == "--fail-at-end",
			v == "-DskipTests", v == "-DskipTests=true", v == "-Dmaven.test.skip=true", v == "-DskipITs":
			return true, ""
		}
		return false, ""
	})
}

// runsPrograms reports build tools whose run subcommand runs the program
// being built, rather than a task or the tests.
func runsPrograms(name string) bool {
	switch name {
	case "dotnet", "swift", "mix", "zig", "bazel", "bazelisk", "buck2", "cabal", "stack", "sbt",
		"lein", "dart", "flutter", "mvn", "mvnw", "gradle", "gradlew", "vite", "webpack", "rake", "pants", "rails":
		return true
	}
	return false
}

func hasArg(args []arg, v string) bool {
	for _, x := range args {
		if x.val == v {
			return true
		}
	}
	return false
}

// compiler classifies compilers, linters and formatters; a few options
// load plugins or run other programs.
func (c *call) compiler() {
	for _, x := range c.args {
		v := x.val
		switch {
		case strings.HasPrefix(v, "@"):
			if f := (arg{val: v[1:], dyn: x.dyn}); c.a.where(f) != pathInside {
				c.risky("indirection: " + c.name + " reads more options from " + f.val + ", outside the workspace")
				return
			}
			c.grey(c.name + " reads more options from " + v[1:] + ", which the gate does not read")
		case strings.HasPrefix(v, "-J") || strings.Contains(v, "-javaagent") || strings.HasPrefix(v, "-fpass-plugin") ||
			strings.HasPrefix(v, "-load") || strings.HasPrefix(v, "-wrapper") || strings.HasPrefix(v, "-fplugin") || strings.HasPrefix(v, "-specs") ||
			strings.HasPrefix(v, "--plugin") || v == "-plugin" || strings.HasPrefix(v, "-Xclang") ||
			strings.HasPrefix(v, "-B") && (c.name == "gcc" || c.name == "g++" || c.name == "cc" || c.name == "c++" || strings.HasPrefix(c.name, "clang")):
			c.risky("interpreter: " + c.name + " " + v + " loads a plugin or runs another program")
			return
		case strings.HasPrefix(v, "-fuse-ld=") && strings.Contains(v, "/"):
			c.risky("interpreter: " + c.name + " " + v + " runs another linker program")
			return
		case strings.HasPrefix(v, "--resolve-plugins-relative-to") || strings.HasPrefix(v, "--rulesdir"):
			c.grey(c.name + " " + v + " loads code from another directory")
		}
	}
	c.unknown(c.name + " compiles, checks or formats files")
}
