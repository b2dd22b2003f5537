// Package workspace resolves where cuff works for one command: the
// project's store with its settings and redaction, the per-user state
// directory, the agents' transcript folders, and the project's gate. The
// command-line front ends (cuff and cuff-tui) share it.
package workspace

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/cuff-dev/cuff/recorder/sandbox"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/session/search"
	"github.com/cuff-dev/cuff/transcript/redact"
)

// Env is what a workspace is resolved from.
type Env struct {
	// Dir is an explicit .cuff directory (--dir), or a folder holding one;
	// empty means $CUFF_DIR, else found from Cwd.
	Dir string
	// Cwd is where to look for the store; empty means the working directory.
	Cwd string
	// Getenv reads the environment (os.Getenv outside tests).
	Getenv func(string) string
	// Warn receives problems repaired on the way (a rebuilt index).
	Warn func(string)
}

// Lookup reads a variable from an environment given as KEY=VALUE entries,
// the last entry winning as it does for a process.
func Lookup(environ []string, key string) string {
	prefix := key + "="
	for i := len(environ) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(environ[i], prefix); ok {
			return v
		}
	}
	return ""
}

// Workspace is a resolved project store and its configuration.
type Workspace struct {
	Store *session.Store
	// Settings are the settings in force: a project file's loosening that
	// no person trusted is left out (see Trust).
	Settings *settings.Settings
	// Trust says what of the project's .cuff files a person trusted.
	Trust  *Trust
	env    Env
	joined *session.Joined
	// redactor is the one the store redacts with; nil when redaction is off.
	redactor *redact.Redactor
}

// Open finds the project's store and loads its settings (project file over
// user file). A broken settings file is a *SettingsError.
func Open(env Env) (*Workspace, error) {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	explicit := env.Dir
	if explicit == "" {
		explicit = env.Getenv("CUFF_DIR")
	}
	cwd := env.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		cwd = wd
	}
	dir, err := session.Locate(explicit, cwd)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("%s is a file, not a directory: cuff keeps the project's recordings and settings there (move the file away, or name another store with --dir)", dir)
	}
	tr, err := readTrust(dir, stateDirOf(env.Getenv))
	if err != nil {
		return nil, &SettingsError{Err: err}
	}
	cfg, err := tr.settings(dir, settings.UserFile(env.Getenv))
	if err != nil {
		return nil, &SettingsError{Err: err}
	}
	s := session.Open(dir)
	s.Warn = env.Warn
	if cfg.Recording.Directory != "" && cfg.Recording.Directory != ".cuff/recordings" {
		s.Recordings = cfg.Recording.Dir(filepath.Dir(dir))
	}
	var r *redact.Redactor
	if cfg.Redaction.Enabled {
		if r, err = redact.New(redact.Options{Patterns: cfg.Redaction.Patterns}); err != nil {
			return nil, fmt.Errorf("redaction: %w", err)
		}
		s.Redact = func(line []byte) ([]byte, error) { return r.ValidJSON(line), nil }
	}
	return &Workspace{Store: s, Settings: cfg, Trust: tr, env: env, redactor: r}, nil
}

// stateDirOf is the state directory the environment names, "" without one.
func stateDirOf(getenv func(string) string) string {
	d, err := approval.StateDir(getenv)
	if err != nil {
		return ""
	}
	return d
}

// SettingsError is a settings file cuff cannot use.
type SettingsError struct{ Err error }

func (e *SettingsError) Error() string { return e.Err.Error() }

// Unwrap returns the settings error.
func (e *SettingsError) Unwrap() error { return e.Err }

// Hint tells the way out.
func (e *SettingsError) Hint() string {
	return "Hint: Fix the file, or run 'cuff init --print' to see every key with its default"
}

// Root is the project folder: the one that holds .cuff.
func (w *Workspace) Root() string { return filepath.Dir(w.Store.Dir) }

// Getenv reads the workspace's environment.
func (w *Workspace) Getenv(key string) string { return w.env.Getenv(key) }

// StateDir is the per-user state directory ("" when there is no home).
func (w *Workspace) StateDir() string {
	d, err := approval.StateDir(w.env.Getenv)
	if err != nil {
		return ""
	}
	return d
}

// CacheDir is the per-user cache directory: what cuff can compute again
// from the sessions themselves (statistics, the search index).
// $CUFF_CACHE_DIR, else $XDG_CACHE_HOME/cuff, else ~/.cache/cuff; "" when
// there is no home.
func (w *Workspace) CacheDir() string {
	if d := w.env.Getenv("CUFF_CACHE_DIR"); d != "" {
		return d
	}
	if d := w.env.Getenv("XDG_CACHE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "cuff")
	}
	if h := w.home(); h != "" {
		return filepath.Join(h, ".cache", "cuff")
	}
	return ""
}

// Redactor is the project's secret redaction as the store applies it (nil
// when the settings switch it off).
func (w *Workspace) Redactor() (*redact.Redactor, error) {
	if !w.Settings.Redaction.Enabled {
		return nil, nil
	}
	if w.redactor != nil {
		return w.redactor, nil
	}
	r, err := redact.New(redact.Options{Patterns: w.Settings.Redaction.Patterns})
	if err != nil {
		return nil, fmt.Errorf("redaction: %w", err)
	}
	return r, nil
}

// SearchIndexPath is the search index's file in the cache directory: one
// per redaction setting, so that an index never holds what a project's
// redaction would remove ("" when there is no cache directory).
func (w *Workspace) SearchIndexPath() string {
	d := w.CacheDir()
	if d == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%v\x00", w.Settings.Redaction.Enabled)
	for _, p := range w.Settings.Redaction.Patterns {
		fmt.Fprintf(h, "%s\x00", p)
	}
	return filepath.Join(d, "search", fmt.Sprintf("index-%x.db", h.Sum(nil)[:6]))
}

// Searcher is the search index of every session the workspace sees: the
// project's own, Claude Code's and Codex's.
func (w *Workspace) Searcher() (*search.Searcher, error) {
	path := w.SearchIndexPath()
	if path == "" {
		return nil, fmt.Errorf("no cache directory for the search index: set HOME or CUFF_CACHE_DIR")
	}
	r, err := w.Redactor()
	if err != nil {
		return nil, err
	}
	return &search.Searcher{Path: path, Redactor: r, Sources: w.Sources(), Store: w.Store.Dir}, nil
}

// StatsCache is the cache of each session's statistics, shared by every
// project; it keeps nothing when there is no cache directory.
func (w *Workspace) StatsCache() *session.StatsCache {
	if d := w.CacheDir(); d != "" {
		return session.OpenStatsCache(filepath.Join(d, "stats.json"))
	}
	return session.OpenStatsCache("")
}

// home is the user's home directory.
func (w *Workspace) home() string {
	if h := w.env.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// ForeignSources are the agents' transcript folders the settings switch on:
// Claude Code ($CLAUDE_CONFIG_DIR, else ~/.claude) and Codex ($CODEX_HOME,
// else ~/.codex), with their listing caches in the state directory.
func (w *Workspace) ForeignSources() []*session.FolderSource {
	cache := func(name string) string {
		if d := w.StateDir(); d != "" {
			return filepath.Join(d, "sources", name+".json")
		}
		return ""
	}
	home := w.home()
	dirOf := func(env, dot string) string {
		if d := w.env.Getenv(env); d != "" {
			return d
		}
		if home == "" {
			return ""
		}
		return filepath.Join(home, dot)
	}
	figures := w.StatsCache() // what a listing counts serves record stats too
	var out []*session.FolderSource
	if d := dirOf("CLAUDE_CONFIG_DIR", ".claude"); w.Settings.Sources.Claude && d != "" {
		out = append(out, session.ClaudeSource(d, cache(session.ClaudeSourceName)))
	}
	if d := dirOf("CODEX_HOME", ".codex"); w.Settings.Sources.Codex && d != "" {
		out = append(out, session.CodexSource(d, cache(session.CodexSourceName)))
	}
	for _, f := range out {
		f.Figures = figures
	}
	return out
}

// Joined is every session of the store and of the foreign folders, one
// per conversation (see session.Joined): what cuff shows by default. Its
// counts of joined sessions are cached in the per-user cache directory.
func (w *Workspace) Joined() *session.Joined {
	if w.joined == nil {
		cache := ""
		if d := w.CacheDir(); d != "" {
			cache = filepath.Join(d, "joined.json")
		}
		w.joined = session.NewJoined(w.Store, w.ForeignSources(), cache)
	}
	return w.joined
}

// Sources are every place sessions come from, each alone: the project's
// store first, then the foreign folders the settings switch on.
func (w *Workspace) Sources() []session.Source {
	out := []session.Source{w.Store.Source()}
	for _, f := range w.ForeignSources() {
		out = append(out, f)
	}
	return out
}

// Broker is the approval broker in the state directory, recording
// decisions with the project's redaction.
func (w *Workspace) Broker() (*approval.Broker, error) {
	dir := w.StateDir()
	if dir == "" {
		return nil, fmt.Errorf("no state directory: set HOME or CUFF_STATE_DIR")
	}
	b := approval.New(dir)
	b.Timeout = w.Settings.Approvals.Timeout
	redactFn := w.Store.Redact
	b.OpenStore = func(ref approval.SessionRef) (*session.Store, error) {
		st := session.Open(ref.Dir)
		if ref.Recordings != "" {
			st.Recordings = ref.Recordings
		}
		st.Redact = redactFn
		return st, nil
	}
	return b, nil
}

// Gate builds the gate from the settings and .cuff/policy.yml, for commands
// run in dir ("" means the project root).
func (w *Workspace) Gate(dir string) (*gate.Gate, error) {
	policy, trusted, err := w.Policies()
	if err != nil {
		return nil, err
	}
	cfg := w.Settings
	mode, err := gate.ParseMode(string(cfg.Gate.Mode))
	if err != nil {
		return nil, err
	}
	return gate.New(gate.Options{Mode: mode, Policy: policy, TrustedPolicy: trusted, CopCommand: cfg.Gate.Cop.Command,
		CopTimeout: cfg.Gate.Cop.Timeout, Hooks: cfg.Gate.Hooks, Workspace: w.Root(), Dir: dir, Home: w.home(),
		Protected: w.Protected()})
}

// Protected are the directories outside the work tree that hold cuff's and
// the agents' own state and settings: no command the gate allows may write
// them, however it spells the path.
func (w *Workspace) Protected() []string {
	return ProtectedDirs(w.StateDir(), w.home(), w.env.Getenv)
}

// ProtectedDirs are the protected directories for a state directory, a
// home folder and an environment (CLAUDE_CONFIG_DIR, CODEX_HOME).
func ProtectedDirs(stateDir, home string, getenv func(string) string) []string {
	var protected []string
	if stateDir != "" {
		protected = append(protected, stateDir)
	}
	if home != "" {
		protected = append(protected, filepath.Join(home, ".claude"), filepath.Join(home, ".codex"),
			filepath.Join(home, ".config", "cuff"), filepath.Join(home, ".ssh"), filepath.Join(home, ".config", "git"),
			filepath.Join(home, ".gitconfig"))
	}
	for _, env := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"} {
		if d := getenv(env); d != "" {
			if env == "XDG_CONFIG_HOME" {
				d = filepath.Join(d, "cuff")
			}
			protected = append(protected, d)
		}
	}
	return protected
}

// SandboxOptions are the sandbox's inputs for this project: its work tree,
// the state directory to protect, and sandbox.writable, which counts only
// when the user's own settings file sets it (a project cannot widen its own
// sandbox).
func (w *Workspace) SandboxOptions() sandbox.Options {
	return SandboxOptions(w.Root(), w.StateDir(), w.Settings, w.env.Getenv)
}

// SandboxOptions are the sandbox's inputs for the project at root with the
// settings cfg (see Workspace.SandboxOptions).
func SandboxOptions(root, stateDir string, cfg *settings.Settings, getenv func(string) string) sandbox.Options {
	o := sandbox.Options{Root: root, StateDir: stateDir, Getenv: getenv}
	if f := cfg.Sandbox.WritableFile; f != "" && f == settings.UserFile(getenv) {
		o.Settings = cfg.Sandbox.Writable
	}
	return o
}

// Sandbox says whether the commands cuff allows in this project run in the
// sandbox (gate.sandbox, what the kernel offers, the project's folders).
func (w *Workspace) Sandbox() *sandbox.Setup {
	return sandbox.Resolve(string(w.Settings.Gate.Sandbox), sandbox.Probe(w.env.Getenv), w.SandboxOptions())
}
