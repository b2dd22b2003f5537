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

// netDir reports whether the directory p, or a path below it, is one of
// bash's network pseudo-files: netPath(p + "/") without building it.
func netDir(p string) bool {
	return netPath(p) || strings.HasSuffix(p, "/dev/tcp") || strings.HasSuffix(p, "/dev/udp")
}

// tempFile reports paths in a directory where writing is harmless; the
// home folder is never one of them, even when it lies under /tmp.
func (g *Gate) tempFile(p string) bool {
	if h := g.realHome; h != "" && (p == h || len(p) > len(h) && p[len(h)] == '/' && strings.HasPrefix(p, h)) {
		return false
	}
	for _, t := range g.temps {
		if len(p) > len(t) && p[len(t)] == '/' && strings.HasPrefix(p, t) {
			return true
		}
	}
	return false
}

// harmlessFile reports device files that are safe to read and write, by
// their exact name: /dev/fd/3/etc is not /dev/fd/3.
func harmlessFile(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom":
		return true
	}
	for _, d := range [...]string{"/dev/fd/", "/proc/self/fd/"} {
		if n, ok := strings.CutPrefix(p, d); ok {
			return n != "" && strings.Trim(n, "0123456789") == ""
		}
	}
	return false
}

// place is where a path word really lands.
type place struct {
	kind pathKind
	// real is the absolute path with every link followed; "" when the
	// word's path is only known at run time.
	real string
	// rel is real relative to the workspace root ("." for the root),
	// when it is inside.
	rel string
	// viaLink: a symbolic link was followed on the way.
	viaLink bool
	// nlink is the number of names of the existing regular file it lands
	// on (0 when there is none).
	nlink  uint64
	exists bool
}

// where classifies a file argument, following links as a write would.
func (a *analysis) where(x arg) pathKind { return a.place(x, true).kind }

// place works out where the path word x lands, relative to the current
// directory, with every symbolic link on the way followed (the last one
// only with follow, as for a write; removing or renaming acts on the link
// itself). A pattern is resolved up to its first wildcard and taken as
// written from there.
func (a *analysis) place(x arg, follow bool) place {
	if x.proc {
		return place{kind: pathHarmless}
	}
	v := x.val
	if netPath(v) {
		return place{kind: pathNetwork}
	}
	if x.dyn {
		for _, p := range [...]string{"$HOME", "${HOME}"} {
			if rest, ok := strings.CutPrefix(v, p); ok && a.g.home != "" && (rest == "" || rest[0] == '/') && !strings.ContainsAny(rest, "$`") {
				return a.placeAbs(a.g.home+rest, follow)
			}
		}
		for _, p := range [...]string{"$TMPDIR", "${TMPDIR}"} {
			if strings.HasPrefix(v, p) && !strings.Contains(v, "..") && len(v) > len(p)+1 && v[len(p)] == '/' {
				return a.inTempDir(v[len(p):], follow)
			}
		}
		return place{kind: pathUnknown}
	}
	if strings.HasPrefix(v, "~") && v != "~" && !strings.HasPrefix(v, "~/") {
		return place{kind: pathOutside} // another user's home
	}
	p, ok := a.pathWord(v)
	if !ok {
		return place{kind: pathUnknown}
	}
	if x.glob {
		// Resolve the directories before the first wildcard.
		if i := strings.IndexAny(p, "*?["); i >= 0 {
			dir := p[:strings.LastIndexByte(p[:i], '/')+1]
			pl := a.placeAbs(dir, true)
			if pl.real == "" {
				return pl
			}
			return a.placeReal(strings.TrimSuffix(pl.real, "/")+"/"+p[len(dir):], pl.viaLink, resolved{})
		}
	}
	return a.placeAbs(p, follow)
}

// inTempDir places rest ("/…") below $TMPDIR, whichever temporary
// directory that is: a link already on disk there ($TMPDIR/h -> ~) leads
// where it leads. Without a link on the way it is a temporary file; through
// one, what it lands on (its directories only, when the rest holds
// expansions of its own: then it is only known at run time).
func (a *analysis) inTempDir(rest string, follow bool) place {
	static := rest
	if i := strings.IndexAny(rest, "$`"); i >= 0 {
		static = rest[:strings.LastIndexByte(rest[:i], '/')+1]
	}
	if strings.Trim(static, "/") == "" {
		return place{kind: pathTemp}
	}
	for _, t := range a.g.temps {
		pl := a.placeAbs(t+static, follow)
		switch {
		case pl.kind == pathTemp || !pl.viaLink && pl.kind != pathUnknown:
			continue // no link on the way: $TMPDIR is a temporary directory
		case static != rest:
			return place{kind: pathUnknown, real: pl.real, viaLink: pl.viaLink}
		}
		return pl
	}
	return place{kind: pathTemp}
}

// pathWord makes a static path word absolute as written: ~ is the home
// folder, a relative path is taken from the working directory. It is false
// when the working directory or the home folder is unknown.
func (a *analysis) pathWord(v string) (string, bool) {
	switch {
	case v == "~" || strings.HasPrefix(v, "~/"):
		if a.g.home == "" {
			return "", false
		}
		return a.g.home + v[1:], true
	case strings.HasPrefix(v, "/"):
		return v, true
	case a.cwd == "":
		return "", false
	}
	return a.cwd + "/" + v, true
}

// placeAbs resolves the absolute path p (as written) and classifies where
// it lands.
func (a *analysis) placeAbs(p string, follow bool) place {
	if c := cleanPath(p); harmlessFile(c) || netDir(c) {
		return place{kind: a.absKind(c), real: c}
	}
	key := placeKey{p, follow}
	if pl, ok := a.places[key]; ok {
		return pl
	}
	r := a.resolve(p, follow)
	var pl place
	if !r.known {
		pl = place{kind: pathUnknown, real: r.path, viaLink: true}
	} else {
		pl = a.placeReal(r.path, r.viaLink, r)
	}
	if a.places == nil {
		a.places = map[placeKey]place{}
	}
	a.places[key] = pl
	return pl
}

// placeKey caches places by path and whether the last link is followed.
type placeKey struct {
	path   string
	follow bool
}

// placeReal classifies a resolved path.
func (a *analysis) placeReal(real string, via bool, r resolved) place {
	pl := place{kind: a.absKind(real), real: real, viaLink: via, nlink: r.nlink, exists: r.exists}
	if pl.kind == pathInside {
		if real == a.g.root {
			pl.rel = "."
		} else {
			pl.rel = real // strings.TrimPrefix(real, root+"/") without building it
			if below(real, a.g.root) {
				pl.rel = real[len(a.g.root)+1:]
			}
		}
	}
	return pl
}

// absKind classifies a clean absolute path whose links have been followed.
func (a *analysis) absKind(p string) pathKind {
	if p == "" || p[0] != '/' {
		return pathOutside
	}
	p = cleanPath(p)
	if harmlessFile(p) {
		return pathHarmless
	}
	if strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/") {
		return pathNetwork
	}
	if strings.HasPrefix(p, "/dev/") {
		return pathDevice
	}
	if p == "/proc" || strings.HasPrefix(p, "/proc/") {
		return pathOutside // a process's files, its root and its working directory
	}
	if a.g.protectedDir(p) != "" {
		return pathOutside
	}
	if root := a.g.root; root != "/" && within(p, root) {
		return pathInside
	}
	if a.g.tempFile(p) {
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

// cwdReal is the working directory with its links followed, "" when it is
// unknown.
func (a *analysis) cwdReal() string {
	if a.cwd == "" {
		return ""
	}
	return a.placeAbs(a.cwd, true).real
}

// cwdInside reports whether the working directory is known to be inside
// the workspace.
func (a *analysis) cwdInside() bool {
	c := a.cwdReal()
	return c == a.g.root || c != "" && strings.HasPrefix(c, a.g.root+"/")
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
		if within(p, pr) {
			return pr
		}
	}
	return ""
}

// within reports whether the clean absolute path p is dir or lies in it.
func within(p, dir string) bool {
	return len(p) >= len(dir) && p[:len(dir)] == dir && (len(p) == len(dir) || p[len(dir)] == '/' || dir == "/")
}

// relOf returns x's path relative to the workspace root when it lands
// inside the workspace; with glob, x may also be a pattern, and the result
// is the pattern relative to the root. follow says whether a link named
// last is followed (a write) or not (a removal).
func (a *analysis) relOf(x arg, glob, follow bool) (string, bool) {
	if x.dyn || x.proc || x.glob && !glob {
		return "", false
	}
	pl := a.place(x, follow)
	if pl.kind != pathInside {
		return "", false
	}
	return pl.rel, true
}

// absolute is the real absolute path of a static path word, every link
// followed; "" when it cannot be known.
func (a *analysis) absolute(p string) string {
	return a.place(arg{val: p}, true).real
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
	for _, n := range controlNames() {
		if path.Base(rel) == n {
			return true
		}
	}
	return strings.HasSuffix(rel, ".vscode/tasks.json")
}

// controlNames are the base names of control files, wherever they lie.
func controlNames() []string {
	return []string{".envrc", ".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmrc", ".pre-commit-config.yaml",
		".gitconfig", ".bashrc", ".profile", ".zshrc", ".bash_profile", "CLAUDE.md", "AGENTS.md", ".mcp.json",
		"rust-toolchain", "rust-toolchain.toml"}
}

// controlPattern reports a pattern (relative to the workspace root) that
// may name a control file: a directory component that may be one of the
// control directories, or a last component that may be a control name.
// Below the top, a pattern matches a leading dot only with a dot of its
// own, as in the shell; at the top, bash's dotglob is assumed.
func controlPattern(rel string) bool {
	if unmatchable(rel) || strings.ContainsAny(rel, "()") {
		return true
	}
	parts := strings.Split(strings.ReplaceAll(rel, "[!", "[^"), "/")
	dirs := []string{".cuff", ".claude", ".codex", ".husky", ".githooks", ".git", ".cargo", ".vscode"}
	for i, p := range parts {
		if !strings.ContainsAny(p, "*?[") {
			if i < len(parts)-1 && controlFile(strings.Join(parts[:i+1], "/")+"/x") && p != ".git" && p != ".cargo" {
				return true
			}
			continue
		}
		if i > 0 && !strings.HasPrefix(p, ".") {
			continue
		}
		names := dirs
		if i == len(parts)-1 {
			names = append(controlNames(), dirs...)
		}
		for _, n := range names {
			if ok, err := path.Match(p, n); ok || err != nil {
				return true
			}
		}
	}
	return controlFile(strings.Join(parts, "/"))
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
	if path.Ext(base) == ".mk" || path.Ext(base) == ".csproj" || base == "gradlew" || base == "mvnw" {
		return true
	}
	for _, d := range [...]string{"node_modules/", ".venv/", "venv/", "site-packages/", ".gradle/", ".mvn/"} {
		if strings.HasPrefix(rel, d) || strings.Contains(rel, "/"+d) {
			return whole // installed code the runners load
		}
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

// cleanPath is path.Clean(p), without its work for an absolute path that
// is clean already, as most paths the gate looks at are.
func cleanPath(p string) string {
	if absClean(p) {
		return p
	}
	return path.Clean(p)
}

// absClean reports whether p is an absolute path that path.Clean leaves
// as it is: no empty, "." or ".." component, and no slash at the end
// unless it is "/".
func absClean(p string) bool {
	n := len(p)
	if n == 0 || p[0] != '/' || n > 1 && p[n-1] == '/' {
		return false
	}
	for i := 0; i < n; {
		// p[i] is a slash: look at the component after it.
		rest := p[i+1:]
		switch {
		case rest == "":
			return n == 1
		case rest[0] == '/':
			return false
		case rest[0] == '.' && (len(rest) == 1 || rest[1] == '/' || rest[1] == '.' && (len(rest) == 2 || rest[2] == '/')):
			return false
		}
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return true
		}
		i += 1 + j
	}
	return true
}
