package gate

import (
	"strings"
)

// envKind is what setting an environment or shell variable can do.
type envKind uint8

const (
	envPlain   envKind = iota // nothing the gate cares about
	envCommand                // the value is a command line that programs run
	envRisky                  // changes what programs load, run or connect to
	envFile                   // the value is a file or directory that programs write
	envLoad                   // a search path into the workspace: programs load the project's code
)

// classifyEnv says what setting the variable name to value can do. The
// value matters only for the few variables whose safety depends on it.
func classifyEnv(name, value string) (envKind, string) {
	u := strings.ToUpper(name)
	if commandVar(u) {
		return envCommand, name + " names a command that programs run"
	}
	fileKind := func() (envKind, string) {
		if quietValue(value) {
			return envPlain, ""
		}
		return envFile, name + " names a file or directory that programs write to"
	}
	if fileVar(u) {
		return fileKind()
	}
	if safeVar(u) {
		return envPlain, ""
	}
	switch u {
	case "GOPROXY":
		if value == "off" {
			return envPlain, ""
		}
		return envRisky, "GOPROXY sends module requests, whose paths can carry data, to " + value
	case "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GONOPROXY", "GOPRIVATE", "GOINSECURE", "GOVCS", "GOAUTH":
		return envRisky, name + " changes where and how modules are downloaded and checked"
	case "GOTOOLCHAIN":
		if value == "local" || value == "" {
			return envPlain, ""
		}
		return envRisky, "GOTOOLCHAIN other than local downloads a Go toolchain"
	case "GOFLAGS":
		if safeFlags(value, safeGoFlag) {
			return envPlain, ""
		}
		return envRisky, "GOFLAGS adds go flags such as -toolexec that run programs"
	}
	if strings.HasSuffix(u, "FLAGS") && u != "MAKEFLAGS" && u != "GNUMAKEFLAGS" && u != "MFLAGS" {
		if safeFlags(value, safeCompilerFlag) {
			return envPlain, ""
		}
		return envRisky, name + " passes options such as plugins or wrappers to a compiler"
	}
	if riskyVar(u) {
		return envRisky, name + " changes what programs load, run or connect to"
	}
	if fileVarSuffix(u) {
		return fileKind()
	}
	for _, s := range [...]string{"_COMMAND", "_CMD", "_PROGRAM", "_WRAPPER", "_SHELL", "_EDITOR",
		"_PAGER", "_ASKPASS", "_RSH", "_SSH", "_BROWSER", "_INTERPRETER", "_EXEC", "_EXECUTABLE"} {
		if strings.HasSuffix(u, s) {
			return envCommand, name + " names a command that programs run"
		}
	}
	return envPlain, ""
}

// classifyEnv is classifyEnv with one refinement that needs the
// workspace: a search path such as PYTHONPATH or NODE_PATH that only names
// directories inside the workspace loads nothing but the project's code,
// which is agent code (envLoad).
func (a *analysis) classifyEnv(name, value string, static bool) (envKind, string) {
	kind, reason := classifyEnv(name, value)
	if name == "PATH" {
		// Appending keeps every existing command name's meaning.
		for _, p := range [...]string{"$PATH:", "${PATH}:"} {
			if rest, ok := strings.CutPrefix(value, p); ok && !strings.ContainsAny(rest, "$`") {
				return envPlain, ""
			}
		}
	}
	if kind != envRisky || !static || !workspaceSearchPath(strings.ToUpper(name)) {
		return kind, reason
	}
	for _, d := range strings.Split(value, ":") {
		if d == "" || a.where(arg{val: d}) != pathInside {
			return kind, reason
		}
	}
	// Only the workspace, but what it holds the agent may have written: a
	// sitecustomize.py, or a module named like one the program imports,
	// runs in any Python program started with PYTHONPATH=.
	return envLoad, name + " makes programs load modules from the workspace, which the agent may have written"
}

// fileVar reports variables whose value is a file or a directory that
// programs write to (a trace or log file, a history, a cache, a build
// output or temporary directory): setting one is a write to that place.
func fileVar(u string) bool {
	switch u {
	case "GIT_INDEX_FILE", "HISTFILE", "LESSHISTFILE", "SQLITE_HISTORY", "PSQL_HISTORY", "MYSQL_HISTFILE",
		"NODE_REPL_HISTORY", "PYTHON_HISTORY", "LLVM_PROFILE_FILE", "GCOV_PREFIX", "GOCOVERDIR", "COVERAGE_FILE",
		"PYTHONPYCACHEPREFIX", "TMPDIR", "TMP", "TEMP", "GOTMPDIR", "GOCACHE", "GOMODCACHE", "GOBIN",
		"CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR", "SSLKEYLOGFILE", "CCACHE_DIR", "SCCACHE_DIR", "DENO_DIR",
		"YARN_CACHE_FOLDER", "BUN_INSTALL_CACHE_DIR", "PIP_CACHE_DIR", "UV_CACHE_DIR", "HISTFILE_PATH":
		return true
	}
	return strings.HasPrefix(u, "GIT_TRACE") && u != "GIT_TRACE_REDACT"
}

// fileVarSuffix reports variables whose names say they hold a file or a
// directory that a program writes (SOMETOOL_LOG_FILE, X_CACHE_DIR).
func fileVarSuffix(u string) bool {
	for _, s := range [...]string{"FILE", "_LOG", "LOGFILE", "_LOGS", "_OUTPUT", "_OUT", "_DIR", "_DIRECTORY",
		"_CACHE", "CACHEDIR", "_HISTORY", "_REPORT", "_DUMP", "_TRACE", "_PROFILE_OUT"} {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	return false
}

// fileVarTarget is the path a file variable's value names: git's trace
// variables also take a Unix socket as af_unix:[stream|dgram:]PATH.
func fileVarTarget(v string) arg {
	if rest, ok := strings.CutPrefix(v, "af_unix:"); ok {
		for _, p := range [...]string{"stream:", "dgram:"} {
			rest = strings.TrimPrefix(rest, p)
		}
		v = rest
	}
	return arg{val: v}
}

// quietValue reports values of a file variable that name no file: off,
// on (standard error) or a file descriptor number, as git's GIT_TRACE
// takes them.
func quietValue(v string) bool {
	switch strings.ToLower(v) {
	case "", "0", "1", "2", "true", "false", "yes", "no", "on", "off":
		return true
	}
	return strings.Trim(v, "0123456789") == ""
}

// workspaceSearchPath reports search-path variables that are harmless when
// they only point into the workspace. PATH and the loader's variables are
// not among them: they change what every command name means.
func workspaceSearchPath(u string) bool {
	switch u {
	case "PYTHONPATH", "NODE_PATH", "GOPATH", "PERL5LIB", "PERLLIB", "RUBYLIB", "CLASSPATH", "LUA_PATH":
		return true
	}
	return false
}

// commandVar reports variables whose value is a command line.
func commandVar(u string) bool {
	switch u {
	case "EDITOR", "VISUAL", "PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER", "BAT_PAGER",
		"DELTA_PAGER", "GH_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "SVN_EDITOR", "FCEDIT",
		"GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
		"GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND", "RSYNC_RSH", "CVS_RSH", "BROWSER", "SHELL",
		"CONFIG_SHELL", "MAKESHELL", "PROMPT_COMMAND", "CC", "CXX", "CPP", "LD", "AR", "AS", "NM",
		"RANLIB", "STRIP", "OBJCOPY", "FC", "F77", "HOSTCC", "CC_FOR_BUILD", "RUSTC", "RUSTDOC",
		"RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "NPM_CONFIG_SCRIPT_SHELL", "LESSOPEN",
		"LESSCLOSE", "TERMINAL", "GPG_TTY_PROGRAM", "DIFF", "MERGE", "PERLDOC_PAGER":
		return true
	}
	return false
}

// safeVar reports variables that only change formatting, locale, build
// targets or logging.
func safeVar(u string) bool {
	if strings.HasPrefix(u, "LC_") {
		return true
	}
	switch u {
	case "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR",
		"CLICOLOR_FORCE", "COLUMNS", "LINES", "CI", "DEBUG", "VERBOSE", "QUIET", "GOOS", "GOARCH", "CGO_ENABLED", "GOMAXPROCS", "GOTRACEBACK", "GODEBUG",
		"GOEXPERIMENT", "GOAMD64", "GOARM", "GOARM64", "GO386", "GOWASM", "GOGC", "GOMEMLIMIT",
		"GOWORK", "GOTESTSUM_FORMAT", "RUST_BACKTRACE", "RUST_LOG",
		"RUST_TEST_THREADS", "RUST_MIN_STACK", "CARGO_TERM_COLOR", "CARGO_INCREMENTAL",
		"CARGO_BUILD_JOBS", "NODE_ENV", "NODE_NO_WARNINGS", "BABEL_ENV",
		"PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "PYTHONHASHSEED", "PYTHONWARNINGS",
		"PYTHONIOENCODING", "PYTHONUTF8", "PYTHONFAULTHANDLER", "PYTHONDEVMODE",
		"PYTHONTRACEMALLOC", "GIT_TERMINAL_PROMPT", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
		"GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
		"GIT_OPTIONAL_LOCKS", "GIT_FLUSH", "GIT_MERGE_AUTOEDIT", "GIT_ADVICE", "HUSKY",
		"HUSKY_SKIP_HOOKS", "SKIP", "LOG_LEVEL", "LOGLEVEL", "NEXT_TELEMETRY_DISABLED",
		"DO_NOT_TRACK", "TERM_PROGRAM", "USER", "LOGNAME", "SHLVL", "DISPLAY",
		"CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS", "MALLOC_ARENA_MAX", "PYTEST_TIMEOUT",
		"JEST_WORKER_ID", "TS_NODE_TRANSPILE_ONLY", "NPM_CONFIG_LOGLEVEL", "NPM_CONFIG_COLOR",
		"NODE_DEBUG", "PWD", "OLDPWD",
		"ENVIRONMENT", "APP_ENV", "RAILS_ENV", "RACK_ENV", "FLASK_ENV", "DJANGO_SETTINGS_MODULE",
		"PORT", "HOST", "BUILD_TYPE", "CONFIGURATION", "TEST", "TESTS", "RUN", "COUNT", "V":
		return true
	}
	return false
}

// riskyVar reports variables that make programs load code or configuration
// from elsewhere, change how the shell runs commands, or redirect network
// traffic.
func riskyVar(u string) bool {
	switch u {
	case "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "CDPATH", "GLOBIGNORE", "HOME",
		"ZDOTDIR", "HISTFILE", "EXINIT", "VIMINIT", "MYVIMRC", "MAKEFLAGS", "GNUMAKEFLAGS",
		"MFLAGS", "MAKEFILES", "TAR_OPTIONS", "GZIP", "BZIP", "BZIP2", "XZ_DEFAULTS", "XZ_OPT",
		"LESS", "MORE", "MANOPT", "GREP_OPTIONS", "HOSTALIASES", "RES_OPTIONS", "LOCALDOMAIN",
		"NPMRC", "INPUTRC", "VIRTUAL_ENV", "CLASSPATH", "GOROOT", "GOENV", "GOTOOLDIR",
		"PS1", "PS2", "PS3", "PS4", "PROMPT", "RPROMPT", "BASH_XTRACEFD", "BASH_COMPAT",
		"TERMINFO", "TERMINFO_DIRS", "OPENSSL_CONF", "OPENSSL_ENGINES", "SSLKEYLOGFILE":
		return true
	}
	for _, p := range [...]string{"LD_", "DYLD_", "BASH_FUNC_", "GIT_", "NPM_CONFIG_", "YARN_",
		"PNPM_", "PIP_", "PYTHON", "PERL", "RUBY", "NODE_", "JAVA", "JDK_", "_JAVA", "GEM_",
		"BUNDLE_", "COMPOSER_", "MAVEN_", "GRADLE_", "CARGO_", "RUSTUP_", "LUA_", "TCL", "R_",
		"XDG_", "DOCKER_", "KUBE", "AWS_", "GOOGLE_", "CLOUDSDK_", "AZURE_", "SSL_", "CURL_",
		"REQUESTS_", "GCONV_", "PYTEST_", "TOX_", "NOX_", "UV_", "POETRY_", "PIPENV_", "CONDA",
		"DENO_", "BUN_", "NVM_", "VOLTA_", "ASDF_", "MISE_", "PROMPT_", "GNUPG", "SSH_", "WGET",
		"EMACS", "VIM", "NVIM", "ZSH", "BASH", "KSH", "FPATH", "NIX_", "LESSKEY", "MANPAGER_",
		"COMP_", "READLINE", "TERMCAP", "DOTNET_", "NUGET_", "ELECTRON_", "CHROME", "PUPPETEER_",
		"PLAYWRIGHT_", "HTTP", "ALL_PROXY", "NO_PROXY", "FTP_PROXY"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	for _, s := range [...]string{"PATH", "_HOME", "LIB", "_LIBS", "CONF", "CONFIG", "_CONFIG_FILE",
		"_RC", "OPTS", "_OPT", "OPTIONS", "PROXY", "_HOOK", "_HOOKS", "_PLUGIN", "_PLUGINS",
		"_PRELOAD", "_LOADER", "_INIT", "_STARTUP", "_PROFILE", "_SITE", "_IMPORT"} {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	return strings.Contains(u, "CONFIG") || strings.Contains(u, "PRELOAD")
}

// safeFlags reports whether every space-separated flag in v passes ok.
func safeFlags(v string, ok func(string) bool) bool {
	for _, f := range strings.Fields(v) {
		if !ok(f) {
			return false
		}
	}
	return true
}

// safeGoFlag reports go build flags that neither run programs nor load
// code from elsewhere.
func safeGoFlag(f string) bool {
	if f == "-mod=mod" {
		return false // lets the go command add modules to go.mod, downloading them
	}
	for _, p := range [...]string{"-mod=", "-count=", "-tags=", "-buildvcs=", "-p=", "-timeout=",
		"-ldflags=-s", "-ldflags=-w", "-covermode=", "-parallel=", "-shuffle="} {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	switch f {
	case "-v", "-race", "-trimpath", "-short", "-cover", "-x", "-a", "-failfast", "-json":
		return true
	}
	return false
}

// safeCompilerFlag reports C-family and Rust flags that change code
// generation only.
func safeCompilerFlag(f string) bool {
	if strings.HasPrefix(f, "-fplugin") || strings.HasPrefix(f, "-Wl,") || strings.HasPrefix(f, "-Wp,") ||
		strings.HasPrefix(f, "-Wa,") || strings.HasPrefix(f, "-specs") || strings.HasPrefix(f, "-wrapper") {
		return false
	}
	for _, p := range [...]string{"-O", "-g", "-W", "-D", "-U", "-I", "-std=", "-m", "-f", "-pipe",
		"-pedantic", "-ansi", "-march", "-mtune", "-flto", "-s", "-l"} {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return false
}
