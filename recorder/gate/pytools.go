package gate

import (
	"strings"
)

// python classifies the Python interpreter: modules that are tools are
// checked as those tools; code is an interpreter.
func (c *call) python() {
	ops := scan(c.args, optSpec{short: "WXcm", long: []string{"check-hash-based-pycs"}, stop: true})
	if ops.computed {
		c.risky("indirection: an argument of " + c.name + " is only known at run time")
		return
	}
	if o, ok := ops.get("-c"); ok {
		c.risky("interpreter: " + c.name + " -c runs code that can do anything, including reach the network: " + o.val.val)
		return
	}
	if o, ok := ops.get("-m"); ok {
		rest := append([]arg{o.val}, ops.operands...)
		c.pythonModule(rest)
		return
	}
	switch {
	case len(ops.operands) > 1 && ops.operands[0].static() && strings.HasSuffix("/"+ops.operands[0].val, "/manage.py") &&
		c.a.where(ops.operands[0]) == pathInside && (ops.operands[1].val == "test" || ops.operands[1].val == "check"):
		c.agentCode("manage.py runs the Django project's code")
		c.unknown("manage.py " + ops.operands[1].val + " runs the Django project's tests or checks")
	case len(ops.operands) == 0 || ops.operands[0].val == "-":
		if c.cx.piped {
			c.notAlways(c.name + " runs code read from a pipe, which may differ every time")
		}
		c.risky("interpreter: " + c.name + " runs code read from its input")
	default:
		c.risky("interpreter: " + c.name + " runs " + ops.operands[0].val + ", which can do anything, including reach the network")
	}
}

// pythonModule classifies python -m MODULE ARGS.
func (c *call) pythonModule(args []arg) {
	mod := args[0]
	if !mod.static() {
		c.risky("indirection: the module " + mod.val + " is only known at run time")
		return
	}
	rest := args[1:]
	switch mod.val {
	case "pytest", "mypy", "black", "ruff", "flake8", "pylint", "isort", "pyright", "coverage", "pip", "tox", "nox":
		c.local(c.name + " -m " + mod.val + " runs that tool, which is checked on its own")
		c.wrap(append([]arg{{val: mod.val}}, rest...), c.inner())
	case "unittest", "doctest":
		c.agentCode(c.name + " -m " + mod.val + " runs the project's tests")
		c.unknown(c.name + " -m " + mod.val + " runs the project's tests")
	case "venv", "virtualenv":
		c.local(c.name + " -m " + mod.val + " creates a virtual environment")
		for _, x := range rest {
			if !strings.HasPrefix(x.val, "-") {
				c.writes(x, "creates a virtual environment in")
			}
		}
	case "json.tool", "py_compile", "compileall", "tabnanny", "tokenize", "ast", "dis", "pyclbr",
		"site", "sysconfig", "platform", "this", "calendar", "base64":
		c.local(c.name + " -m " + mod.val + " works on local data")
	case "http.server", "smtpd", "webbrowser", "ftplib", "xmlrpc.server", "pydoc", "ensurepip", "smtplib", "urllib.request":
		c.risky("network: " + c.name + " -m " + mod.val + " opens network connections or a browser")
	default:
		c.risky("interpreter: " + c.name + " -m " + mod.val + " runs a module that can do anything, including reach the network")
	}
}

// hasArgPrefix reports an argument before "--" that starts with p.
func hasArgPrefix(args []arg, p string) bool {
	for _, x := range args {
		if x.val == "--" {
			return false
		}
		if strings.HasPrefix(x.val, p) {
			return true
		}
	}
	return false
}

// pytest runs the project's tests.
func (c *call) pytest() {
	c.agentCode("pytest runs the project's tests and conftest.py")
	c.runnerPaths()
	c.unknown("pytest runs the project's tests")
}

// pip installs packages from the network or lists what is installed.
func (c *call) pip() {
	ops := scan(c.args, optSpec{short: "ir", long: []string{"index-url", "extra-index-url", "proxy",
		"cert", "client-cert", "cache-dir", "log", "timeout", "retries", "python", "trusted-host",
		"requirement", "constraint", "find-links", "target", "prefix", "root", "src", "format", "path"}})
	if len(ops.operands) == 0 {
		c.local("pip without a command prints help")
		return
	}
	switch sub := ops.operands[0]; sub.val {
	case "list", "show", "freeze", "check", "debug", "inspect", "hash", "help", "completion", "cache":
		if why := packageQueryNetwork("pip", sub.val, c.args); why != "" {
			c.risky("network: pip " + sub.val + " " + why)
			return
		}
		c.local("pip " + sub.val + " inspects installed packages")
	case "config":
		if len(ops.operands) > 1 && (ops.operands[1].val == "list" || ops.operands[1].val == "get" || ops.operands[1].val == "debug") {
			c.local("pip config reads the configuration")
			return
		}
		c.risky("indirection: pip config changes where pip downloads from")
	case "uninstall":
		c.unknown("pip uninstall removes packages")
	default:
		c.risky("network: pip " + sub.val + " downloads packages and runs their build code")
	}
}

// pyTool handles Python project managers: run wraps a command, anything
// that resolves or installs packages reaches the network.
func (c *call) pyTool() {
	if c.name == "uvx" {
		c.risky("network: uvx downloads and runs a package")
		return
	}
	ops := scan(c.args, optSpec{short: "npe", long: []string{"name", "prefix", "python", "directory", "project", "with", "env", "environment", "config-file", "index-url"}, stop: true})
	if ops.computed {
		c.risky("indirection: an argument of " + c.name + " is only known at run time")
		return
	}
	if len(ops.operands) == 0 {
		c.unknown(c.name + " runs its default action")
		return
	}
	sub, rest := ops.operands[0].val, ops.operands[1:]
	switch {
	case sub == "run" && c.name != "pipx" && (hasArgPrefix(rest, "--with") || hasArgPrefix(rest, "--extra-index-url") || hasArgPrefix(rest, "--index")):
		c.risky("network: " + c.name + " run --with installs extra packages")
	case sub == "run" && c.name != "pipx":
		inner := scan(rest, optSpec{short: "npe", long: []string{"name", "prefix", "with", "env", "python", "directory", "project", "package", "extra", "group", "env-file"}, stop: true})
		c.agentCode(c.name + " run sets up and uses the project's environment as its configuration says")
		c.unknown(c.name + " run runs a command in the project's environment, which is checked on its own")
		c.wrap(inner.operands, c.inner())
	case c.name == "uv" && sub == "pip":
		if len(rest) > 0 && (rest[0].val == "list" || rest[0].val == "show" || rest[0].val == "freeze" || rest[0].val == "check" || rest[0].val == "tree") &&
			packageQueryNetwork("pip", rest[0].val, rest) == "" {
			c.local("uv pip " + rest[0].val + " inspects installed packages")
			return
		}
		c.risky("network: uv pip installs packages")
	case sub == "list" || sub == "show" || sub == "info" || sub == "check" || sub == "env" || sub == "tree" || sub == "version" || sub == "--version":
		c.unknown(c.name + " " + sub + " inspects the project")
	case (c.name == "tox" || c.name == "nox") && !strings.HasPrefix(sub, "-"):
		c.agentCode(c.name + " runs the project's test environments")
		c.unknown(c.name + " runs test environments")
	default:
		c.risky("network: " + c.name + " " + sub + " resolves or installs packages")
	}
}
