package gate

import (
	"path"
	"strings"
)

// virtualRoot stands for the workspace when none is configured; it cannot be
// a real path (it contains a NUL byte), so absolute paths are never inside.
const virtualRoot = "/\x00workspace"

// pathKind is where a file argument points.
type pathKind uint8

const (
	pathInside   pathKind = iota // inside the workspace
	pathTemp                     // under a temporary directory
	pathHarmless                 // /dev/null, a standard stream, a pipe
	pathOutside                  // elsewhere on this machine
	pathDevice                   // a device file
	pathNetwork                  // bash's /dev/tcp and /dev/udp
	pathUnknown                  // only known at run time
)

// writable reports whether writing to a path of this kind stays harmless.
func (k pathKind) writable() bool {
	return k == pathInside || k == pathTemp || k == pathHarmless
}

// netPath reports whether s names one of bash's network pseudo-files.
func netPath(s string) bool {
	return strings.Contains(s, "/dev/tcp/") || strings.Contains(s, "/dev/udp/")
}

// tempRoot reports directories where writing is harmless.
func tempRoot(p string) bool {
	for _, t := range [...]string{"/tmp/", "/var/tmp/", "/private/tmp/", "/dev/shm/"} {
		if strings.HasPrefix(p, t) {
			return true
		}
	}
	return false
}

// harmlessFile reports device files that are safe to read and write.
func harmlessFile(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/")
}

// where classifies a file argument relative to the current directory.
func (a *analysis) where(x arg) pathKind {
	if x.proc {
		return pathHarmless
	}
	v := x.val
	if netPath(v) {
		return pathNetwork
	}
	if x.dyn {
		for _, p := range [...]string{"$HOME", "${HOME}"} {
			if strings.HasPrefix(v, p) {
				return a.absKind(a.g.home + strings.TrimPrefix(v, p))
			}
		}
		for _, p := range [...]string{"$TMPDIR", "${TMPDIR}"} {
			if strings.HasPrefix(v, p) && !strings.Contains(v, "..") && len(v) > len(p)+1 {
				return pathTemp
			}
		}
		return pathUnknown
	}
	if strings.HasPrefix(v, "~") {
		if v == "~" || strings.HasPrefix(v, "~/") {
			return a.absKind(a.g.home + v[1:])
		}
		return pathOutside
	}
	if strings.HasPrefix(v, "/") {
		return a.absKind(v)
	}
	if a.cwd == "" {
		return pathUnknown
	}
	return a.absKind(a.cwd + "/" + v)
}

// absKind classifies an absolute path.
func (a *analysis) absKind(p string) pathKind {
	if p == "" || p[0] != '/' {
		return pathOutside
	}
	p = path.Clean(p)
	if harmlessFile(p) {
		return pathHarmless
	}
	if netPath(p + "/") {
		return pathNetwork
	}
	if strings.HasPrefix(p, "/dev/") {
		return pathDevice
	}
	if a.g.protectedDir(p) != "" {
		return pathOutside
	}
	if root := a.g.root; strings.HasPrefix(p, root+"/") || p == root && root != "/" {
		return pathInside
	}
	if tempRoot(p) {
		return pathTemp
	}
	if t := a.g.tmp; t != "" && strings.HasPrefix(p, t+"/") {
		return pathTemp
	}
	return pathOutside
}

// isRootLike reports whether a path names a directory whose recursive
// removal or permission change is catastrophic whatever the workspace: /,
// a home, a top-level system tree.
func isRootLike(p string) bool {
	p = path.Clean(p)
	switch p {
	case "/", "~", "/*", "~/*", "$HOME", "${HOME}":
		return true
	}
	return strings.Count(p, "/") == 1 && strings.HasPrefix(p, "/")
}

// cwdInside reports whether the working directory is known to be inside
// the workspace.
func (a *analysis) cwdInside() bool {
	return a.cwd == a.g.root || a.cwd != "" && strings.HasPrefix(a.cwd, a.g.root+"/")
}

// cwdText describes the working directory for explanations.
func (a *analysis) cwdText() string {
	if a.cwd == "" {
		return "a directory only known at run time"
	}
	return a.cwd
}

// protectedDir returns the protected directory that the clean absolute
// path p names or lies in, or "".
func (g *Gate) protectedDir(p string) string {
	for _, pr := range g.protected {
		if p == pr || strings.HasPrefix(p, pr+"/") {
			return pr
		}
	}
	return ""
}

// relPath returns x's path relative to the workspace root when it is a
// static path inside the workspace.
func (a *analysis) relPath(x arg) (string, bool) { return a.relOf(x, false) }

// relOf is relPath; with glob, x may also be a pattern, and the result is
// the pattern relative to the workspace root.
func (a *analysis) relOf(x arg, glob bool) (string, bool) {
	if x.dyn || x.proc || x.glob && !glob || a.where(x) != pathInside {
		return "", false
	}
	p := a.absolute(x.val)
	if p == a.g.root {
		return ".", true
	}
	return strings.TrimPrefix(p, a.g.root+"/"), true
}

// absolute is the clean absolute path of a static path word: ~ is the
// home folder, a relative path is taken from the working directory.
func (a *analysis) absolute(p string) string {
	switch {
	case strings.HasPrefix(p, "~"):
		p = a.g.home + p[1:]
	case !strings.HasPrefix(p, "/"):
		p = a.cwd + "/" + p
	}
	return path.Clean(p)
}

// controlFile reports workspace files that make tools run commands later
// or that hold the agent's and the gate's own permissions: writing one is
// a way around the gate.
func controlFile(rel string) bool {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		switch p {
		case ".cuff", ".claude", ".codex", ".husky", ".githooks":
			return true
		case ".git":
			if i+1 < len(parts) && (parts[i+1] == "hooks" || parts[i+1] == "config" || parts[i+1] == "info") {
				return true
			}
		case ".cargo":
			if i+1 < len(parts) && strings.HasPrefix(parts[i+1], "config") {
				return true
			}
		}
	}
	switch path.Base(rel) {
	case ".envrc", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmrc", ".pre-commit-config.yaml",
		".gitconfig", ".bashrc", ".profile", ".zshrc", ".bash_profile", "CLAUDE.md", "AGENTS.md", ".mcp.json":
		return true
	}
	return false
}

// buildFile reports files that build and test runners read and run: a
// command line that writes one and then runs a runner runs new code.
// Source code counts only when written whole (by a redirection, tee, cp);
// an in-place edit with sed is the everyday way to change it.
func buildFile(rel string, whole bool) bool {
	base := path.Base(rel)
	switch base {
	case "Makefile", "makefile", "GNUmakefile", "package.json", "Cargo.toml", "build.rs", "go.mod",
		"setup.py", "setup.cfg", "pyproject.toml", "conftest.py", "tox.ini", "noxfile.py", "pytest.ini",
		"CMakeLists.txt", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
		"pom.xml", "Rakefile", "Gemfile", "justfile", "Justfile", "Taskfile.yml", "Package.swift",
		"tsconfig.json", ".babelrc", "BUILD", "BUILD.bazel", "WORKSPACE", "meson.build", "build.zig", "mix.exs":
		return true
	}
	for _, p := range [...]string{"jest.config.", "vitest.config.", "vite.config.", "webpack.config.",
		"babel.config.", "eslint.config.", ".eslintrc", "rollup.config.", "next.config.", "playwright.config."} {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	if path.Ext(base) == ".mk" || path.Ext(base) == ".csproj" {
		return true
	}
	if !whole {
		return false
	}
	switch path.Ext(base) {
	case ".go", ".py", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".rs", ".c",
		".h", ".cc", ".cpp", ".java", ".kt", ".rb", ".php", ".sh", ".bash", ".swift", ".cs", ".ex",
		".exs", ".zig", ".pl", ".lua":
		return true
	}
	return false
}

// chdir follows a cd to target; an unknown target makes the directory
// unknown.
func (a *analysis) chdir(target arg, ok bool) {
	if !ok || !target.static() || target.val == "-" {
		a.cwd = ""
		return
	}
	v := target.val
	switch {
	case v == "" || v == "~" || strings.HasPrefix(v, "~/"):
		if a.g.home == "" {
			a.cwd = ""
			return
		}
		a.cwd = path.Clean(a.g.home + strings.TrimPrefix(v, "~"))
	case strings.HasPrefix(v, "~"):
		a.cwd = ""
	case strings.HasPrefix(v, "/"):
		a.cwd = path.Clean(v)
	case a.cwd != "":
		a.cwd = path.Clean(a.cwd + "/" + v)
	}
}
