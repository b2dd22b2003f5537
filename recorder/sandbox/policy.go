package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Options are what a Policy is built from.
type Options struct {
	// Root is the work tree: the project folder, writable as a whole.
	Root string
	// Write are more files or folders to make writable (--write PATH).
	// A leading ~ is the home directory; relative paths start at Root.
	Write []string
	// Settings are the folders of the sandbox.writable setting, read the
	// same way as Write.
	Settings []string
	// Net leaves the network open (--net).
	Net bool
	// StateDir is cuff's per-user state directory: never writable.
	StateDir string
	// Protect are more places that must stay read-only (a caller's own
	// state directory, handed down to a child cuff sandbox).
	Protect []string
	// Getenv reads the environment the command runs with: HOME, TMPDIR and
	// the variables through which tools name their caches. nil means
	// os.Getenv.
	Getenv func(string) string
}

// Grant is one writable file or folder and why it is writable.
type Grant struct {
	Path string // absolute, symbolic links resolved
	Why  string // "work tree", "temporary directory", "Go build cache (GOCACHE)", …
	// Create is set for a tool's cache that does not exist yet: it is
	// created (when the tool is installed) just before a command runs, so
	// that the tool's first run in the sandbox can fill it.
	Create bool
	// Shared marks a temporary folder that programs outside the sandbox
	// use too (/tmp, $TMPDIR, /dev/shm, /var/tmp): only regular files and
	// folders may be made there, never a symbolic link, socket or pipe, and
	// nothing may be moved in from elsewhere. A link planted there would
	// redirect the next unconfined program that writes a file of that name
	// (Claude Code writes its working directory to $TMPDIR/claude-ID-cwd
	// after every command); a socket would pose as a server (tmux's).
	Shared bool
	// Private marks the sandbox's own temporary folder: the TMPDIR its
	// commands get, where they may make anything. No program outside the
	// sandbox uses it, and no sandboxed command can move it.
	Private bool

	given    string // the path as asked for, before links were resolved
	optional bool   // a cache or shared folder: left out, not an error, when unsafe
	covered  bool   // inside another grant, which the ruleset holds instead
}

// Skip is a folder the policy would have made writable but did not.
type Skip struct {
	Path   string
	Why    string
	Reason string
}

// Policy is what a confined command may write, and whether it may use the
// network. Everything else it may read and execute, not change.
type Policy struct {
	Root     string
	Writable []Grant
	Skipped  []Skip
	Net      bool
	// TempDir is the sandbox's own temporary folder, which confined
	// commands get as TMPDIR ("" when it could not be had: they keep the
	// shared one).
	TempDir string
	// Protected are the places no grant may reach: cuff's state, the
	// agents' folders, SSH keys, shell start-up files, ~/.config.
	Protected []string
	home      string
	paths     resolver // while New builds the policy
}

// ConflictError is a folder that cannot be made writable because a place
// that must stay protected lies inside it (or it lies inside one).
type ConflictError struct {
	Path      string // what was asked to be writable
	Why       string // why it was asked for
	Protected string // what it would have exposed
}

func (e *ConflictError) Error() string {
	if e.Path == e.Protected {
		return fmt.Sprintf("the %s %s must stay read-only in the sandbox", e.Why, e.Path)
	}
	if within(e.Protected, e.Path) {
		return fmt.Sprintf("the %s %s lies inside %s, which must stay read-only in the sandbox", e.Why, e.Path, e.Protected)
	}
	return fmt.Sprintf("the %s %s holds %s, which must stay read-only in the sandbox", e.Why, e.Path, e.Protected)
}

// Hint tells the way out.
func (e *ConflictError) Hint() string {
	return "Hint: Run the agent in a project folder of its own (not your home directory), and keep TMPDIR and cuff's state directory apart"
}

// startupFiles are the shell start-up files in the home directory: code in
// them runs in every shell the person opens later.
var startupFiles = []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".inputrc"}

// New builds the policy: the work tree, the temporary directory, the tools'
// caches and the extra folders asked for are writable, unless one of them
// would expose a protected place. A conflict of the work tree, the
// temporary directory or a folder asked for by name is an error (a
// *ConflictError); a cache that conflicts or does not exist is skipped.
func New(o Options) (*Policy, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	p := &Policy{Net: o.Net, paths: resolver{}}
	p.home = p.paths.real(home)
	p.Protected = protectedPlaces(p.paths, home, append([]string{o.StateDir}, o.Protect...), getenv)
	if o.Root == "" {
		return nil, errors.New("sandbox: no work tree given")
	}
	root, err := p.paths.dir(o.Root)
	if err != nil {
		return nil, fmt.Errorf("sandbox: work tree: %w", err)
	}
	p.Root = root
	if err := p.grant(root, o.Root, "work tree"); err != nil {
		return nil, err
	}
	p.private(getenv, home)
	tmp := getenv("TMPDIR")
	if tmp == "" {
		tmp = "/tmp"
	}
	if t, err := p.paths.dir(tmp); err != nil {
		return nil, fmt.Errorf("sandbox: temporary directory: %w", err)
	} else if t != p.TempDir { // a cuff sandbox inside the sandbox: its TMPDIR is the private one
		if err := p.grant(t, tmp, "temporary directory"); err != nil {
			return nil, err
		}
		p.share(t)
	}
	for _, t := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		p.optional(t, "shared temporary directory")
		p.share(p.paths.real(t))
	}
	for _, c := range toolCaches(home, getenv) {
		p.cache(c)
	}
	for _, w := range []struct {
		paths []string
		why   string
	}{{o.Write, "--write"}, {o.Settings, "sandbox.writable"}} {
		for _, raw := range w.paths {
			path := expandPath(raw, home, root)
			if _, err := os.Lstat(path); err != nil {
				return nil, fmt.Errorf("sandbox: %s %s: %w", w.why, raw, err)
			}
			if err := p.grant(p.paths.real(path), path, w.why+" path"); err != nil {
				return nil, err
			}
		}
	}
	if err := p.anchor(); err != nil {
		return nil, err
	}
	p.paths = nil
	return p, nil
}

// grant adds a writable path, unless it would expose a protected place.
func (p *Policy) grant(path, given, why string) error {
	if err := p.conflict(path, why); err != nil {
		return err
	}
	if !slices.ContainsFunc(p.Writable, func(g Grant) bool { return g.Path == path }) {
		p.Writable = append(p.Writable, Grant{Path: path, Why: why, given: given})
	}
	return nil
}

// MovableError is a writable folder that a sandboxed command could replace
// (its parent folder, or a symbolic link on the way to it, is writable in
// the sandbox): the next policy built would then grant wherever the
// replacement points, ~/.local/bin for instance.
type MovableError struct {
	Path, Why, Via string
}

func (e *MovableError) Error() string {
	return fmt.Sprintf("the %s %s could be replaced from inside the sandbox (through %s, which is writable there)", e.Why, e.Path, e.Via)
}

// Hint tells the way out.
func (e *MovableError) Hint() string {
	return "Hint: Keep the project and the caches out of the temporary directory (set TMPDIR to a folder of its own)"
}

// anchor makes sure no grant can be moved by a sandboxed command: a grant
// inside another is already writable and stays; otherwise no folder above
// it, and no symbolic link on the path it was asked by, may lie in a
// writable folder. A cache or shared folder that fails is left out; the
// work tree, the temporary directory or a folder asked for by name is an
// error.
func (p *Policy) anchor() error {
	kept := p.Writable[:0]
	for _, g := range p.Writable {
		via := p.movableVia(&g)
		if via == "" {
			kept = append(kept, g)
			continue
		}
		err := &MovableError{Path: g.Path, Why: g.Why, Via: via}
		if !g.optional {
			return err
		}
		p.drop(g, err.Error())
	}
	p.Writable = kept
	return nil
}

// drop notes a grant left out of the policy.
func (p *Policy) drop(g Grant, reason string) {
	p.Skipped = append(p.Skipped, Skip{Path: g.Path, Why: g.Why, Reason: reason})
	if g.Private {
		p.TempDir = ""
	}
}

// movableVia is the writable place through which g could be replaced, or
// "". It marks a grant that lies inside another as covered.
//
// In a shared temporary folder a sandboxed command can rename folders but
// not make or move in links: a grant inside one is replaceable only by
// another real folder of that folder. That is harmless for the work tree or
// a cache there (they are the agent's anyway), but not for the private
// temporary folder, which must be where no other program looks.
func (p *Policy) movableVia(g *Grant) string {
	writable := func(dir string, shared bool) bool {
		for _, h := range p.Writable {
			if (dir == h.Path || within(h.Path, dir)) && (shared || !h.Shared) {
				return true
			}
		}
		return false
	}
	for _, h := range p.Writable {
		if !within(h.Path, g.Path) {
			continue
		}
		// Inside another grant: writable through it anyway, and left out
		// of the ruleset, so that nothing opens this path by name (a
		// command that replaced it meanwhile is caught by the link test
		// below when the next policy is built). A cache in a shared
		// folder gets the shared folder's rights, files and folders,
		// which is all a cache needs: a rule of its own there would give
		// every right to whatever folder a sandboxed command renamed into
		// its place.
		if !h.Shared || g.Shared || (g.optional && !g.Private) {
			g.covered, g.Shared = true, g.Shared || h.Shared
			break
		}
	}
	for anc := filepath.Dir(g.Path); !g.covered && anc != filepath.Dir(anc); anc = filepath.Dir(anc) {
		if writable(anc, g.Private) {
			return anc
		}
	}
	if g.given == "" || !filepath.IsAbs(g.given) {
		return ""
	}
	for cur := filepath.Clean(g.given); cur != filepath.Dir(cur); cur = filepath.Dir(cur) {
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if parent := p.paths.real(filepath.Dir(cur)); writable(parent, true) {
				return cur
			}
		}
	}
	return ""
}

// share marks the grant of path, if there is one, as a temporary folder
// shared with programs outside the sandbox.
func (p *Policy) share(path string) {
	for i := range p.Writable {
		if p.Writable[i].Path == path && !p.Writable[i].Private {
			p.Writable[i].Shared = true
		}
	}
}

// privateTempName is the sandbox's own temporary folder, in cuff's folder
// of the user's cache folder: never in a shared temporary folder, where a
// sandboxed command could rename it, or a folder above it, to a name
// another program uses. (Not $XDG_RUNTIME_DIR: a build's temporary files
// outgrow its small size.)
const privateTempName = "sandbox-tmp"

// private grants the sandbox's own temporary folder (made, 0700, just
// before a command runs) and names it as the TMPDIR of confined commands.
// Without a place for it that no sandboxed command can move, there is
// none, and commands keep the shared TMPDIR.
func (p *Policy) private(getenv func(string) string, home string) {
	cache := getenv("XDG_CACHE_HOME")
	if !filepath.IsAbs(cache) {
		if home == "" {
			return
		}
		cache = filepath.Join(home, ".cache")
	}
	dir := filepath.Join(cache, "cuff", privateTempName)
	real := p.paths.real(dir)
	const why = "the sandbox's own temporary directory (its TMPDIR)"
	if err := p.conflict(real, why); err != nil {
		p.Skipped = append(p.Skipped, Skip{Path: dir, Why: why, Reason: err.Error()})
		return
	}
	_, err := os.Lstat(real)
	p.Writable = append(p.Writable, Grant{Path: real, Why: why, Create: err != nil, Private: true, given: dir, optional: true})
	p.TempDir = real
}

// optional grants an existing folder that conflicts with nothing, and
// notes why not otherwise.
func (p *Policy) optional(path, why string) {
	real := p.paths.real(path)
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		p.Skipped = append(p.Skipped, Skip{Path: path, Why: why, Reason: "does not exist"})
		return
	}
	if err := p.grant(real, path, why); err != nil {
		p.Skipped = append(p.Skipped, Skip{Path: path, Why: why, Reason: err.Error()})
		return
	}
	if g := &p.Writable[len(p.Writable)-1]; g.Path == real {
		g.optional = true
	}
}

// cache grants a tool's cache folder. One that does not exist yet is
// granted (to be created) when the tool is installed and the folder that
// would hold the cache exists already and is not the home directory itself
// (~/.cache/go-build is made, ~/.npm is not): cuff does not litter a home
// with the caches of tools that were never used.
func (p *Policy) cache(c toolCache) {
	real := p.paths.real(c.dir)
	_, err := os.Stat(real)
	if errors.Is(err, fs.ErrNotExist) && p.mayCreate(real) && c.installed() {
		if err := p.conflict(real, c.why); err != nil {
			p.Skipped = append(p.Skipped, Skip{Path: c.dir, Why: c.why, Reason: err.Error()})
			return
		}
		p.Writable = append(p.Writable, Grant{Path: real, Why: c.why, Create: true, given: c.dir, optional: true})
		return
	}
	p.optional(c.dir, c.why)
}

// mayCreate reports whether a missing cache folder may be made: its parent
// exists and is not the home directory.
func (p *Policy) mayCreate(dir string) bool {
	parent := filepath.Dir(dir)
	if parent == p.home {
		return false
	}
	fi, err := os.Stat(parent)
	return err == nil && fi.IsDir()
}

// Env is env with TMPDIR naming the private temporary folder, when there
// is one: the environment a confined command runs with.
func (p *Policy) Env(env []string) []string {
	if p.TempDir == "" {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "TMPDIR="+p.TempDir)
}

// conflict reports whether making path writable would expose a protected
// place: path is one, lies inside one, or holds one. The home directory and
// the root may not be writable themselves, but folders inside the home
// directory may.
func (p *Policy) conflict(path, why string) error {
	for _, prot := range p.Protected {
		if path == prot || within(path, prot) || within(prot, path) {
			return &ConflictError{Path: path, Why: why, Protected: prot}
		}
	}
	for _, top := range []string{p.home, "/"} {
		if top != "" && (path == top || within(path, top)) {
			return &ConflictError{Path: path, Why: why, Protected: top}
		}
	}
	return nil
}

// Writes reports whether a write to path (absolute) is allowed by the policy.
func (p *Policy) Writes(path string) bool {
	real := realPath(path)
	for _, g := range p.Writable {
		if real == g.Path || within(g.Path, real) {
			return true
		}
	}
	for _, dev := range devices {
		if real == dev.path || (dev.dir && within(dev.path, real)) {
			return true
		}
	}
	return false
}

// protectedPlaces lists what no grant may reach, symbolic links resolved.
func protectedPlaces(paths resolver, home string, extra []string, getenv func(string) string) []string {
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			out = append(out, paths.real(p))
		}
	}
	for _, e := range extra {
		add(e)
	}
	if home != "" {
		for _, d := range []string{".ssh", ".gnupg", ".claude", ".codex", ".config", ".local/state/cuff"} {
			add(filepath.Join(home, d))
		}
		for _, f := range startupFiles {
			add(filepath.Join(home, f))
		}
	}
	for _, env := range []string{"XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_STATE_HOME"} {
		if v := getenv(env); v != "" {
			add(v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// expandPath reads a path as a person writes it: ~ is the home directory, a
// relative path starts at root.
func expandPath(p, home, root string) string {
	switch {
	case p == "~":
		return home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}

// dir resolves a folder that must exist, relative paths from the working
// directory.
func (r resolver) dir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real := r.real(abs)
	if fi, err := os.Stat(real); err != nil {
		return "", err
	} else if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return real, nil
}

// realPath resolves the symbolic links of the longest existing prefix of an
// absolute path, and keeps the rest as written: where a write would land.
func realPath(p string) string { return resolver{}.real(p) }

// maxLinks bounds the symbolic links followed for one path, as the kernel's
// own limit (ELOOP) does.
const maxLinks = 40

// resolver resolves paths one component at a time, remembering every
// prefix it resolved: building a policy resolves dozens of paths that share
// their prefixes (the home directory above all).
type resolver map[string]string

func (r resolver) real(p string) string {
	if p == "" {
		return ""
	}
	return r.resolve(filepath.Clean(p), 0)
}

func (r resolver) resolve(p string, links int) string {
	if got, ok := r[p]; ok {
		return got
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	here := filepath.Join(r.resolve(parent, links), filepath.Base(p))
	out := here
	if fi, err := os.Lstat(here); err == nil && fi.Mode()&fs.ModeSymlink != 0 && links < maxLinks {
		if target, err := os.Readlink(here); err == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(here), target)
			}
			out = r.resolve(filepath.Clean(target), links+1)
		}
	}
	r[p] = out
	return out
}

// within reports whether p lies strictly below dir; both are clean and absolute.
func within(dir, p string) bool {
	if dir == "/" {
		return p != "/" && strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// Args are the flags with which a child `cuff sandbox` builds this same
// policy: the work tree, the places to protect and the extra writable
// folders are handed down, since the child's environment may differ.
func (o Options) Args() []string {
	args := []string{"--root", o.Root}
	for _, p := range append([]string{o.StateDir}, o.Protect...) {
		if p != "" {
			args = append(args, "--protect", p)
		}
	}
	for _, w := range append(slices.Clone(o.Write), o.Settings...) {
		args = append(args, "--write", w)
	}
	if o.Net {
		args = append(args, "--net")
	}
	return args
}

// Wrapper is the argv prefix that runs a command inside this policy through
// the cuff program at cuffPath: cuff sandbox FLAGS --.
func (o Options) Wrapper(cuffPath string) []string {
	return append(append([]string{cuffPath, "sandbox"}, o.Args()...), "--")
}
