//go:build linux

package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// layout is a home, a project, a temporary directory and a state
// directory, each apart.
type layout struct{ base, home, proj, tmp, state string }

func newLayout(t *testing.T) layout {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := layout{base: base, home: filepath.Join(base, "home"), proj: filepath.Join(base, "proj"),
		tmp: filepath.Join(base, "tmp"), state: filepath.Join(base, "state")}
	for _, d := range []string{l.home, l.proj, l.tmp, l.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func (l layout) env(extra ...string) func(string) string {
	m := map[string]string{"HOME": l.home, "TMPDIR": l.tmp, "PATH": ""}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

func (l layout) options(extra ...string) Options {
	return Options{Root: l.proj, StateDir: l.state, Getenv: l.env(extra...)}
}

func writable(p *Policy) []string {
	var out []string
	for _, g := range p.Writable {
		out = append(out, g.Path)
	}
	return out
}

func TestPolicyWritesTheWorkTreeTempAndCachesOnly(t *testing.T) {
	l := newLayout(t)
	gocache := filepath.Join(l.base, "gocache")
	if err := os.Mkdir(gocache, 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := New(l.options("GOCACHE=" + gocache))
	if err != nil {
		t.Fatal(err)
	}
	w := writable(p)
	for _, want := range []string{l.proj, l.tmp, gocache} {
		if !slices.Contains(w, want) {
			t.Errorf("%s is not writable: %v", want, w)
		}
	}
	for path, want := range map[string]bool{
		filepath.Join(l.proj, "a/b"):      true,
		filepath.Join(l.tmp, "x"):         true,
		filepath.Join(gocache, "00/x"):    true,
		"/dev/null":                       true,
		"/dev/pts/3":                      true,
		filepath.Join(l.home, ".bashrc"):  false,
		filepath.Join(l.home, "file"):     false,
		filepath.Join(l.state, "grants"):  false,
		l.home:                            false,
		"/etc/passwd":                     false,
		filepath.Join(l.base, "proj2/x"):  false,
		filepath.Join(l.base, "projx"):    false,
		filepath.Join(l.proj+"x", "file"): false,
	} {
		if got := p.Writes(path); got != want {
			t.Errorf("Writes(%s) = %v, want %v", path, got, want)
		}
	}
}

func TestPolicyKeepsProtectedPlacesOut(t *testing.T) {
	l := newLayout(t)
	link := filepath.Join(l.base, "link-to-home")
	if err := os.Symlink(l.home, link); err != nil {
		t.Fatal(err)
	}
	for name, o := range map[string]Options{
		"work tree is home":         {Root: l.home},
		"work tree holds home":      {Root: l.base},
		"work tree is /":            {Root: "/"},
		"work tree inside .ssh":     {Root: mkdir(t, l.home, ".ssh/x")},
		"work tree inside .config":  {Root: mkdir(t, l.home, ".config/proj")},
		"temp holds the state dir":  {Root: l.proj, Getenv: l.env("TMPDIR=" + l.base)},
		"--write ~":                 {Root: l.proj, Write: []string{"~"}},
		"--write a link to home":    {Root: l.proj, Write: []string{link}},
		"--write ~/.claude":         {Root: l.proj, Write: []string{mkdir(t, l.home, ".claude")}},
		"--write the state dir":     {Root: l.proj, Write: []string{l.state}},
		"setting holds a startup":   {Root: l.proj, Settings: []string{"~"}},
		"protected handed down":     {Root: l.proj, Protect: []string{l.proj}},
		"CLAUDE_CONFIG_DIR in tree": {Root: l.proj, Getenv: l.env("CLAUDE_CONFIG_DIR=" + filepath.Join(l.proj, "claude"))},
	} {
		t.Run(name, func(t *testing.T) {
			if o.Getenv == nil {
				o.Getenv = l.env()
			}
			if o.StateDir == "" {
				o.StateDir = l.state
			}
			p, err := New(o)
			var ce *ConflictError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, %v; want a conflict", p, err)
			}
			if !strings.Contains(err.Error(), "must stay read-only") {
				t.Errorf("message: %v", err)
			}
		})
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	d := filepath.Join(parts...)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPolicyCachesFollowTheToolsSettings: each cache is found the way its
// tool finds it, and a conflicting or missing one is skipped, not fatal.
func TestPolicyCachesFollowTheToolsSettings(t *testing.T) {
	l := newLayout(t)
	goenvDir := mkdir(t, l.home, ".config", "go")
	fromFile := mkdir(t, l.base, "from-goenv")
	if err := os.WriteFile(filepath.Join(goenvDir, "env"), []byte("GOCACHE="+fromFile+"\nGOPATH="+l.base+"/gp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mod := mkdir(t, l.base, "gp", "pkg", "mod")
	npm := mkdir(t, l.base, "npmcache")
	if err := os.WriteFile(filepath.Join(l.home, ".npmrc"), []byte("cache="+npm+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cargo := mkdir(t, l.base, "cargo", "registry")
	mkdir(t, l.base, "cargo", "bin")
	mkdir(t, l.home, ".config", "pip")
	p, err := New(l.options("CARGO_HOME="+filepath.Join(l.base, "cargo"), "PIP_CACHE_DIR="+filepath.Join(l.home, ".config", "pip")))
	if err != nil {
		t.Fatal(err)
	}
	w := writable(p)
	for _, want := range []string{fromFile, mod, npm, cargo} {
		if !slices.Contains(w, want) {
			t.Errorf("%s is not writable: %v", want, w)
		}
	}
	if p.Writes(filepath.Join(l.base, "cargo", "bin", "git")) {
		t.Error("~/.cargo/bin is writable: a program planted there runs later outside the sandbox")
	}
	skipped := false
	for _, s := range p.Skipped {
		if strings.HasSuffix(s.Path, ".config/pip") && strings.Contains(s.Reason, "read-only") {
			skipped = true
		}
	}
	if !skipped {
		t.Errorf("a cache inside ~/.config was not skipped: %+v", p.Skipped)
	}
	// The environment wins over the go env file.
	env := mkdir(t, l.base, "from-env")
	p, err = New(l.options("GOCACHE=" + env))
	if err != nil {
		t.Fatal(err)
	}
	if w := writable(p); !slices.Contains(w, env) || slices.Contains(w, fromFile) {
		t.Errorf("GOCACHE from the environment: %v", w)
	}
}

// TestPolicyCreatesAMissingCacheOnlyForAnInstalledTool: a missing cache
// is made just before the command runs when its tool is on PATH and its
// parent folder exists; never for a tool that is not installed, nor
// straight in the home directory.
func TestPolicyCreatesAMissingCacheOnlyForAnInstalledTool(t *testing.T) {
	l := newLayout(t)
	bin := mkdir(t, l.base, "bin")
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mkdir(t, l.home, ".cache")
	p, err := New(l.options("PATH=" + bin))
	if err != nil {
		t.Fatal(err)
	}
	gocache := filepath.Join(l.home, ".cache", "go-build")
	var created []string
	for _, g := range p.Writable {
		if g.Create && !g.Private {
			created = append(created, g.Path)
		}
	}
	if !slices.Equal(created, []string{gocache}) {
		t.Errorf("to be created: %v, want only %s (pip is not installed, ~/go's parent is home)", created, gocache)
	}
	if _, err := os.Stat(gocache); err == nil {
		t.Error("New made the cache: only running a command may")
	}
	p.createCaches()
	if _, err := os.Stat(gocache); err != nil {
		t.Errorf("createCaches: %v", err)
	}
}

func TestRealPathResolvesTheExistingPrefix(t *testing.T) {
	l := newLayout(t)
	link := filepath.Join(l.proj, "r")
	if err := os.Symlink("/", link); err != nil {
		t.Fatal(err)
	}
	if got := realPath(filepath.Join(link, l.state, "new", "file")); got != filepath.Join(l.state, "new", "file") {
		t.Errorf("realPath through a link to /: %s", got)
	}
	p, err := New(l.options())
	if err != nil {
		t.Fatal(err)
	}
	if p.Writes(filepath.Join(link, l.state, "x")) {
		t.Error("a write through a link to / counts as a write in the work tree")
	}
}

func TestWrapperHandsDownThePolicy(t *testing.T) {
	o := Options{Root: "/p", StateDir: "/s", Protect: []string{"/q"}, Write: []string{"/w"}, Settings: []string{"~/x"}, Net: true}
	got := strings.Join(o.Wrapper("/bin/cuff"), " ")
	want := "/bin/cuff sandbox --root /p --protect /s --protect /q --write /w --write ~/x --net --"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// BenchmarkNew is the cost of building the policy, which every sandboxed
// command pays: the work tree, the temporary directory, every tool's cache.
func BenchmarkNew(b *testing.B) {
	base := b.TempDir()
	for _, d := range []string{"home/.cache/go-build", "proj", "tmp", "state"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	env := map[string]string{"HOME": filepath.Join(base, "home"), "TMPDIR": filepath.Join(base, "tmp"), "PATH": os.Getenv("PATH")}
	o := Options{Root: filepath.Join(base, "proj"), StateDir: filepath.Join(base, "state"), Getenv: func(k string) string { return env[k] }}
	for b.Loop() {
		if _, err := New(o); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPolicyRefusesAGrantASandboxedCommandCouldReplace: a work tree in the
// temporary directory that a sandboxed command replaced with a link to
// ~/.local/bin (or a cache reached through such a link) must not make the
// link's target writable the next time.
func TestPolicyRefusesAGrantASandboxedCommandCouldReplace(t *testing.T) {
	l := newLayout(t)
	proj := mkdir(t, l.tmp, "proj")
	p, err := New(Options{Root: proj, StateDir: l.state, Getenv: l.env()})
	if err != nil {
		t.Fatalf("a work tree in the temporary directory: %v", err)
	}
	if !p.Writes(filepath.Join(proj, "f")) {
		t.Error("the work tree is not writable")
	}
	bin := mkdir(t, l.home, ".local", "bin")
	if err := os.Rename(proj, proj+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, proj); err != nil {
		t.Fatal(err)
	}
	var me *MovableError
	if p, err := New(Options{Root: proj, StateDir: l.state, Getenv: l.env()}); !errors.As(err, &me) {
		t.Fatalf("the replaced work tree: %v, writable %v", err, p)
	}
	link := filepath.Join(l.tmp, "gocache")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	p, err = New(l.options("GOCACHE=" + link))
	if err != nil {
		t.Fatal(err)
	}
	if p.Writes(filepath.Join(bin, "git")) {
		t.Error("a cache reached through a link in the temporary directory made ~/.local/bin writable")
	}
	// A temporary directory inside the work tree is covered by it, not a
	// second rule.
	inner := mkdir(t, l.proj, "tmp")
	p, err = New(Options{Root: l.proj, StateDir: l.state, Getenv: l.env("TMPDIR=" + inner)})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range p.Writable {
		if g.Path == inner && !g.covered {
			t.Error("a folder inside the work tree is a rule of its own")
		}
	}
}

// TestPolicySharesTemporaryFoldersAndKeepsOneOfItsOwn: the temporary
// folders that programs outside the sandbox use too are shared (files and
// folders only), and confined commands get a private TMPDIR of their own,
// in the cache folder, never where a sandboxed command could move it.
func TestPolicySharesTemporaryFoldersAndKeepsOneOfItsOwn(t *testing.T) {
	l := newLayout(t)
	grant := func(p *Policy, path string) *Grant {
		for i := range p.Writable {
			if p.Writable[i].Path == path {
				return &p.Writable[i]
			}
		}
		return nil
	}
	p, err := New(l.options())
	if err != nil {
		t.Fatal(err)
	}
	private := filepath.Join(l.home, ".cache", "cuff", "sandbox-tmp")
	if g := grant(p, l.tmp); g == nil || !g.Shared || g.covered {
		t.Errorf("TMPDIR: %+v, want a shared rule of its own", g)
	}
	if g := grant(p, l.proj); g == nil || g.Shared {
		t.Errorf("work tree: %+v", g)
	}
	if g := grant(p, private); g == nil || !g.Private || g.Shared || p.TempDir != private {
		t.Errorf("private: %+v, TempDir %q", g, p.TempDir)
	}
	if env := p.Env([]string{"A=1", "TMPDIR=" + l.tmp}); !slices.Equal(env, []string{"A=1", "TMPDIR=" + private}) {
		t.Errorf("Env: %v", env)
	}

	cache := mkdir(t, l.base, "cache")
	p, err = New(l.options("XDG_CACHE_HOME=" + cache))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "cuff", "sandbox-tmp"); p.TempDir != want {
		t.Errorf("with XDG_CACHE_HOME: %q, want %q", p.TempDir, want)
	}

	// A work tree in the shared folder keeps every right: a rule of its
	// own, not covered by the shared one.
	proj := mkdir(t, l.tmp, "proj")
	p, err = New(Options{Root: proj, StateDir: l.state, Getenv: l.env()})
	if err != nil {
		t.Fatal(err)
	}
	if g := grant(p, proj); g == nil || g.covered || g.Shared {
		t.Errorf("work tree in TMPDIR: %+v", g)
	}

	// A cache in the shared folder gets the shared folder's rights: a rule
	// of its own would give every right to whatever folder a sandboxed
	// command renamed into its place.
	gocache := mkdir(t, l.tmp, "gocache")
	p, err = New(l.options("GOCACHE=" + gocache))
	if err != nil {
		t.Fatal(err)
	}
	if g := grant(p, gocache); g == nil || !g.covered || !g.Shared {
		t.Errorf("GOCACHE in TMPDIR: %+v", g)
	}

	// A cache folder in the shared folder would let a sandboxed command
	// rename the private folder (or one above it) to a name another
	// program uses: then there is none, and commands keep the shared one.
	p, err = New(l.options("XDG_CACHE_HOME=" + filepath.Join(l.tmp, "cache")))
	if err != nil {
		t.Fatal(err)
	}
	if p.TempDir != "" || slices.ContainsFunc(p.Writable, func(g Grant) bool { return g.Private }) {
		t.Errorf("a private folder a sandboxed command could move: %q", p.TempDir)
	}
	if env := p.Env([]string{"TMPDIR=" + l.tmp}); !slices.Equal(env, []string{"TMPDIR=" + l.tmp}) {
		t.Errorf("Env without a private folder: %v", env)
	}

	// Inside a cuff sandbox, TMPDIR is the outer one's private folder: it
	// stays private for the inner sandbox too.
	p, err = New(l.options("TMPDIR=" + mkdir(t, l.home, ".cache", "cuff", "sandbox-tmp")))
	if err != nil {
		t.Fatal(err)
	}
	if g := grant(p, private); g == nil || g.Shared || !g.Private {
		t.Errorf("nested: %+v", g)
	}
}

// TestPolicyNeverWritesTheStateDir puts cuff's state directory (grants,
// decisions, trust) where the sandbox would otherwise grant writes: in the
// shared /var/tmp, behind a link into TMPDIR, in the folder that holds the
// sandbox's own temporary directory, in a tool's cache. Landlock cannot
// take a folder back out of a grant, so the grant must go: the policy is
// refused (TMPDIR) or the folder is skipped, and no write reaches the state.
func TestPolicyNeverWritesTheStateDir(t *testing.T) {
	l := newLayout(t)
	// /var/tmp: the test's own folders lie in /tmp, which is skipped for
	// holding the home folder already.
	shared, err := os.MkdirTemp("/var/tmp", "cuff-state-")
	if err != nil {
		t.Skipf("no /var/tmp to put a state directory in: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	shared, err = filepath.EvalSymlinks(shared)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(l.base, "state-link")
	if err := os.MkdirAll(filepath.Join(l.tmp, "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(l.tmp, "state"), link); err != nil {
		t.Fatal(err)
	}
	gocache := mkdir(t, l.base, "gocache")
	for _, tc := range []struct {
		name, state, real string
		extra             []string
		refused           bool
	}{
		{name: "in the shared /var/tmp", state: shared, real: shared},
		{name: "a link into TMPDIR", state: link, real: filepath.Join(l.tmp, "state"), refused: true},
		{name: "holding the private temp", state: filepath.Join(l.home, ".cache"), real: filepath.Join(l.home, ".cache")},
		{name: "inside a tool's cache", state: filepath.Join(gocache, "cuff"), real: filepath.Join(gocache, "cuff"), extra: []string{"GOCACHE=" + gocache}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.MkdirAll(tc.real, 0o755); err != nil {
				t.Fatal(err)
			}
			p, err := New(Options{Root: l.proj, StateDir: tc.state, Getenv: l.env(tc.extra...)})
			var ce *ConflictError
			if tc.refused {
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.real) {
					t.Fatalf("got %v, %v; want the policy refused for the state directory %s", p, err, tc.real)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range p.Writable {
				if g.Path == tc.real || within(g.Path, tc.real) || within(tc.real, g.Path) {
					t.Errorf("%s (%s) is writable and reaches the state directory %s", g.Path, g.Why, tc.real)
				}
			}
			for _, f := range []string{"grants/k.json", "decisions/r.json", "trust/p.json"} {
				if p.Writes(filepath.Join(tc.real, f)) {
					t.Errorf("the sandbox writes %s in the state directory", f)
				}
			}
			if !p.Writes(filepath.Join(l.proj, "main.go")) {
				t.Errorf("the work tree is not writable any more: %v", writable(p))
			}
			// The folder that would have reached it is named as skipped.
			if !slices.ContainsFunc(p.Skipped, func(s Skip) bool { return strings.Contains(s.Reason, tc.real) }) {
				t.Errorf("no skipped folder names the state directory %s: %+v", tc.real, p.Skipped)
			}
		})
	}
}
