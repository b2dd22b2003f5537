package gate

import (
	"strings"
)

// flagName returns the name of an option word without dashes or value:
// "-exec=x" and "--exec" are both "exec".
func flagName(v string) string {
	v = strings.TrimLeft(v, "-")
	n, _, _ := strings.Cut(v, "=")
	return n
}

// golang classifies the go command. Building and testing are left for the
// policy; flags that run other programs, and subcommands that download or
// generate, are risky.
func (c *call) golang() {
	if c.name == "gofmt" {
		ops := scan(c.args, optSpec{short: "r"})
		if ops.has("-w") {
			for _, x := range ops.operands {
				c.writes(x, "gofmt -w rewrites")
			}
		}
		c.unknown("gofmt formats Go source")
		return
	}
	if len(c.args) == 0 {
		c.local("go without a command prints help")
		return
	}
	sub := c.args[0]
	if !sub.static() {
		c.risky("indirection: the go command " + sub.val + " is only known at run time")
		return
	}
	rest := c.args[1:]
	for i, x := range rest {
		if x.val == "--" {
			break
		}
		if !strings.HasPrefix(x.val, "-") {
			if x.lead && sub.val != "run" {
				c.grey("an argument of go " + sub.val + " is only known at run time")
			}
			continue
		}
		switch n := flagName(x.val); n {
		case "exec", "toolexec", "vettool":
			c.risky("interpreter: go -" + n + " runs another program")
		case "ldflags", "gccgoflags", "gcflags", "asmflags":
			if v, ok := optValue(rest, i); ok && (strings.Contains(v.val, "extld") || !safeFlags(strings.ReplaceAll(v.val, "=", " "), goBuildFlagPart)) {
				c.risky("interpreter: go -" + n + " " + v.val + " can make the build run another program")
			}
		case "C", "modfile", "overlay", "pgo":
			if v, ok := optValue(rest, i); ok && c.a.where(v) != pathInside && v.val != "off" && v.val != "auto" {
				c.risky("indirection: go -" + n + " " + v.val + " builds code described outside the workspace")
			}
		case "o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir":
			if v, ok := optValue(rest, i); ok {
				c.writes(v, "go writes")
			}
		}
	}
	switch sub.val {
	case "version", "env", "help", "doc", "telemetry", "bug", "get":
	case "tool":
		if len(rest) == 0 || !goRootTool(rest[0].val) {
			c.agentCode("go tool runs a tool that go.mod may name")
		}
	default:
		c.agentCode("go " + sub.val + " builds or loads the project's packages and modules as go.mod says")
	}
	switch sub.val {
	case "get", "bug":
		c.risky("network: go " + sub.val + " downloads modules or opens a browser")
	case "generate":
		c.risky("interpreter: go generate runs the commands named in //go:generate comments")
	case "doc":
		for _, x := range rest {
			if n, _, _ := strings.Cut(x.val, "="); n == "-http" || n == "--http" {
				c.risky("network: go doc -http downloads and runs pkgsite (go run golang.org/x/pkgsite/…@version), serves it and opens a browser")
				return
			}
		}
	case "install":
		for _, x := range rest {
			if strings.Contains(x.val, "@") {
				c.risky("network: go install " + x.val + " downloads and builds a module")
				return
			}
		}
		c.unknown("go install builds and installs a program")
	case "run":
		for _, x := range rest {
			if strings.Contains(x.val, "@") && !strings.HasPrefix(x.val, "-") {
				c.risky("network: go run " + x.val + " downloads and runs a module")
				return
			}
		}
		c.grey("go run runs a program built from the workspace")
	case "env":
		for _, x := range rest {
			if x.val == "-w" || x.val == "-u" {
				c.risky("indirection: go env " + x.val + " changes settings (such as GOFLAGS) of every later go command")
				return
			}
		}
		c.local("go env prints the Go environment")
	case "list":
		if q := goModuleQuery(rest); q != "" {
			c.risky("network: go list " + q + " asks the module proxy, and the module path carries whatever it is given")
			return
		}
	case "mod":
		if len(rest) > 0 && rest[0].val == "download" {
			c.risky("network: go mod download downloads modules")
			return
		}
		c.unknown("go mod works on go.mod")
	case "tool":
		c.unknown("go tool runs a Go tool")
	default:
		c.unknown("go " + sub.val + " builds, tests or inspects Go code")
	}
	c.runnerPaths()
}

// goModuleQuery reports a go list that queries modules on the network:
// -m with -u, -versions or -retracted, or with a module path or a version
// query other than the build list ("all", the main module).
func goModuleQuery(args []arg) string {
	modules := false
	for _, x := range args {
		if x.val == "--" {
			break
		}
		switch flagName(x.val) {
		case "m":
			modules = true
		case "u", "versions", "retracted", "reuse":
			if strings.HasPrefix(x.val, "-") {
				return x.val
			}
		}
	}
	if !modules {
		return ""
	}
	for i := 0; i < len(args); i++ {
		x := args[i]
		if strings.HasPrefix(x.val, "-") {
			if (x.val == "-f" || x.val == "-tags" || x.val == "-C" || x.val == "-modfile" || x.val == "-o") && i+1 < len(args) {
				i++
			}
			continue
		}
		if !x.static() || strings.Contains(x.val, "@") || x.val != "all" && x.val != "." && !strings.HasPrefix(x.val, "./") {
			return "-m " + x.val
		}
	}
	return ""
}

// goRootTool reports the tools that come with Go itself, which go tool
// runs from the toolchain rather than from go.mod's tool directives.
func goRootTool(name string) bool {
	switch name {
	case "addr2line", "asm", "buildid", "cgo", "compile", "covdata", "cover", "dist", "distpack", "doc", "fix",
		"link", "nm", "objdump", "pack", "pprof", "preprofile", "test2json", "trace", "vet":
		return true
	}
	return false
}

// outputOption reports options whose value is a file or directory a build
// or test tool writes (checked as a write, so a temporary directory is fine).
func outputOption(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	switch n {
	case "o", "d", "output", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile",
		"trace", "outputdir", "junitxml", "junit-xml", "basetemp", "outdir", "out-dir", "target-dir",
		"cov-report", "html", "log-file", "result-log", "coveragedirectory", "cache-dir", "cachelocation",
		"report-dir", "reports-dir", "results-dir", "json-report-file", "outputfile", "output-file", "build-dir",
		"pack-destination", "destination", "dest", "dist-dir", "artifacts-dir":
		return true
	}
	return strings.HasPrefix(n, "output") || strings.HasSuffix(n, "-output")
}

// programOption reports options whose value is a program the tool runs
// (--with-gcc=, --run_under=, --linker=, --shell=).
func programOption(name string) bool {
	n := strings.ToLower(strings.TrimLeft(name, "-"))
	for _, w := range [...]string{"wrapper", "compiler", "linker", "launcher", "run-under", "run_under",
		"program", "command", "shell", "editor", "pager", "interpreter", "with-", "exec"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// runnerPaths checks the arguments of a build or test runner: code from
// outside the workspace (a test file in /tmp, a manifest elsewhere, a
// plugin) runs as surely as the project's own, so it is risky; an option
// naming a program is checked as that program; outputs are checked as
// writes, so a temporary directory is fine.
func (c *call) runnerPaths() {
	for i := 0; i < len(c.args); i++ {
		x := c.args[i]
		if x.val == "--" {
			continue
		}
		name, val, eq := strings.Cut(x.val, "=")
		if !strings.HasPrefix(x.val, "-") {
			c.outsideCode(x, "")
			continue
		}
		next := func() (arg, bool) {
			if eq {
				return arg{val: val, dyn: x.dyn}, true
			}
			if i+1 < len(c.args) && !strings.HasPrefix(c.args[i+1].val, "-") {
				i++
				return c.args[i], true
			}
			return arg{}, false
		}
		switch {
		case outputOption(name):
			if v, ok := next(); ok {
				c.writes(v, c.name+" "+name+" writes")
			}
		case programOption(name):
			if v, ok := next(); ok {
				c.commandArg("program given by "+name, v)
			}
		case eq:
			c.outsideCode(arg{val: val, dyn: x.dyn}, name)
		}
	}
}

// outsideCode flags a word that names, or holds, a path outside the
// workspace, such as "/tmp/x.js", "evil=/tmp/lib.so" or a JSON config
// listing "/tmp/setup.js".
func (c *call) outsideCode(x arg, opt string) {
	if !x.static() {
		return
	}
	for _, p := range pathsIn(x.val) {
		if k := c.a.where(arg{val: p}); k != pathInside && k != pathHarmless {
			what := x.val
			if opt != "" {
				what = opt + "=" + x.val
			}
			c.risky("indirection: " + c.name + " " + what + " uses code or configuration from outside the workspace")
			return
		}
	}
}

// pathsIn extracts what looks like absolute, home or parent paths from a
// word, at the start or after a separator; URLs ("//host") are skipped.
func pathsIn(v string) []string {
	var out []string
	for i := 0; i < len(v); i++ {
		if i > 0 && strings.IndexByte(" \t\"'=:,[{(@", v[i-1]) < 0 {
			continue
		}
		rest := v[i:]
		if !(strings.HasPrefix(rest, "/") && !strings.HasPrefix(rest, "//") || strings.HasPrefix(rest, "~/") ||
			rest == "~" || rest == ".." || strings.HasPrefix(rest, "../")) {
			continue
		}
		end := strings.IndexAny(rest, " \t\"',]})")
		if end < 0 {
			end = len(rest)
		}
		out = append(out, rest[:end])
		i += end
	}
	return out
}

// goBuildFlagPart reports parts of -ldflags, -gcflags and friends that
// cannot make the toolchain run another program.
func goBuildFlagPart(f string) bool {
	return !strings.Contains(f, "wrapper") && !strings.Contains(f, "plugin") && !strings.HasPrefix(f, "-specs") &&
		!strings.HasPrefix(f, "-B") && !strings.Contains(f, "exec")
}

// rust classifies cargo, rustup and rustc.
func (c *call) rust() {
	switch c.name {
	case "rustc":
		for i, x := range c.args {
			if x.val == "-C" || strings.HasPrefix(x.val, "-C") || strings.HasPrefix(x.val, "--codegen") {
				if v, ok := optValue(c.args, i); ok && (strings.HasPrefix(v.val, "linker") || strings.HasPrefix(v.val, "link-arg")) {
					c.risky("interpreter: rustc -C " + v.val + " runs another program")
				}
			}
			if x.val == "-o" && i+1 < len(c.args) {
				c.writes(c.args[i+1], "rustc writes")
			}
		}
		c.runnerPaths()
		c.agentCode("rustc compiles the project's code, running its macros")
		c.unknown("rustc compiles Rust code")
		return
	case "rustup":
		ops := scan(c.args, optSpec{})
		if len(ops.operands) > 0 {
			switch ops.operands[0].val {
			case "show", "which", "--version", "help":
				c.local("rustup " + ops.operands[0].val + " shows the toolchains")
				return
			case "toolchain", "target", "component":
				if len(ops.operands) > 1 && ops.operands[1].val == "list" {
					c.local("rustup lists what is installed")
					return
				}
			}
		}
		c.risky("network: rustup installs or updates toolchains")
		return
	}
	i := 0
	for ; i < len(c.args); i++ {
		x := c.args[i]
		v := x.val
		if x.lead {
			c.risky("indirection: a cargo option is only known at run time")
			return
		}
		if strings.HasPrefix(v, "+") {
			c.unknown("cargo " + v + " uses another toolchain")
			continue
		}
		if !strings.HasPrefix(v, "-") {
			break
		}
		switch n := flagName(v); n {
		case "config":
			c.risky("indirection: cargo --config sets options such as build.rustc-wrapper that run programs")
		case "Z":
			c.grey("cargo -Z enables unstable behaviour")
		case "manifest-path", "C":
			if w, ok := optValue(c.args, i); ok && c.a.where(w) != pathInside {
				c.grey("cargo works on " + w.val + ", outside the workspace")
			}
			if !strings.Contains(v, "=") {
				i++
			}
		}
	}
	if i >= len(c.args) {
		c.local("cargo without a command prints help")
		return
	}
	sub := c.args[i].val
	for _, x := range c.args[i+1:] {
		if flagName(x.val) == "config" && strings.HasPrefix(x.val, "--") {
			c.risky("indirection: cargo --config sets options such as build.rustc-wrapper that run programs")
		}
	}
	c.runnerPaths()
	switch sub {
	case "clean", "fmt":
		// clean deletes the target directory the project's .cargo/config.toml
		// names (target-dir = "/home/me"); there an alias can stand for fmt.
		c.agentCode("cargo " + sub + " follows the project's cargo configuration, which can name any folder as the one clean deletes or make fmt an alias")
	case "version", "help", "locate-project", "pkgid", "verify-project", "new", "init":
	default:
		c.agentCode("cargo " + sub + " builds the project, running its build scripts and macros")
	}
	switch sub {
	case "install", "publish", "login", "logout", "owner", "yank", "search", "fetch", "update",
		"add", "vendor", "generate-lockfile", "package", "info", "uninstall":
		c.risky("network: cargo " + sub + " talks to the registry")
	case "run", "r":
		c.grey("cargo run runs the program built from the workspace")
	case "build", "b", "test", "t", "check", "c", "clippy", "fmt", "doc", "d", "bench", "tree",
		"metadata", "clean", "locate-project", "read-manifest", "verify-project", "pkgid", "version",
		"help", "new", "init", "remove", "rm", "nextest", "llvm-cov", "machete", "udeps", "deny":
		c.unknown("cargo " + sub + " builds, tests or inspects Rust code")
	default:
		c.unknown("cargo " + sub + " is an external cargo command")
	}
}

// make runs the project's makefile; options can run arbitrary make code
// or read makefiles from elsewhere.
func (c *call) make() {
	ops := scan(c.args, optSpec{short: "fCIoWEl", long: []string{"file", "makefile", "directory",
		"include-dir", "old-file", "assume-old", "new-file", "what-if", "assume-new", "eval", "load-average"}})
	if ops.computed {
		c.grey("an argument of make is only known at run time")
	}
	for _, o := range ops.opts {
		switch {
		case o.name == "-E" || isLong(o.name, "eval"):
			c.risky("interpreter: make --eval runs make code given on the command line")
		case o.name == "-f" || isLong(o.name, "file") || isLong(o.name, "makefile"):
			if o.val.val == "-" || !o.val.static() {
				c.risky("indirection: make reads a makefile only known at run time")
			} else if c.a.where(o.val) != pathInside {
				c.risky("interpreter: make runs " + o.val.val + ", a makefile outside the workspace that the gate does not read")
			}
		case o.name == "-C" || o.name == "-I" || isLong(o.name, "directory") || isLong(o.name, "include-dir"):
			if c.a.where(o.val) != pathInside {
				c.risky("interpreter: make runs makefiles in " + o.val.val + ", outside the workspace, which the gate does not read")
			}
		}
	}
	for _, x := range ops.operands {
		name, val, isVar := strings.Cut(x.val, "=")
		switch {
		case !isVar && x.dyn:
			c.grey("the make target " + x.val + " is only known at run time")
		case !isVar:
		case name == "SHELL" || name == ".SHELLFLAGS" || name == "MAKEFILES" || name == "MAKEFLAGS" ||
			name == "MAKE" || name == "MAKESHELL" || strings.HasSuffix(name, "FLAGS") && !safeFlags(val, safeCompilerFlag):
			c.risky("interpreter: make " + name + "= changes how make runs its recipes")
		case x.dyn || strings.ContainsAny(val, "$`;|&<>()"):
			c.risky("indirection: make variable " + name + " holds shell code that recipes may run")
		case commandVar(strings.ToUpper(name)):
			c.commandIn("make variable "+name+" names a command", val)
		}
	}
	c.agentCode("make runs the recipes of the project's makefile")
	c.unknown("make runs the recipes of the project's makefile")
	if !c.e.unliftable {
		c.e.ruleText = makeRuleText(c.args)
	}
}

// makeRuleText drops make's harmless options (jobs, silence, keep going)
// so that "make -j8 test" meets the rules written for "make test".
func makeRuleText(args []arg) string {
	return quietRuleText("make", args, func(v string) (bool, string) {
		switch {
		case v == "-j" || v == "-l":
			return true, "0123456789."
		case strings.HasPrefix(v, "-j") && strings.Trim(v[2:], "0123456789") == "",
			strings.HasPrefix(v, "--jobs"), strings.HasPrefix(v, "-O"), strings.HasPrefix(v, "--output-sync"),
			v == "-k", v == "--keep-going", v == "-s", v == "--silent", v == "--quiet",
			v == "--no-print-directory", v == "-w", v == "--print-directory":
			return true, ""
		}
		return false, ""
	})
}

// quietRuleText is name and args as the policy's rules see them, without
// the options drop reports: those change nothing the rules judge. An
// option dropped with value characters also drops the next word when it
// is made of them only (make -j 4, mvn -T 1C).
func quietRuleText(name string, args []arg, drop func(v string) (dropped bool, value string)) string {
	words := []string{name}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		dropped, value := drop(v)
		switch {
		case !dropped:
			words = append(words, v)
		case value != "" && i+1 < len(args) && strings.Trim(args[i+1].val, value) == "":
			i++
		}
	}
	return strings.Join(words, " ")
}
