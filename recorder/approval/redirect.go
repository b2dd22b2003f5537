package approval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// redirectFile, in the per-user default state directory, names the state
// directory that a running TUI watches when its environment chose another
// one (CUFF_STATE_DIR, XDG_STATE_HOME). A process that gets neither
// variable — an MCP server that Codex starts with a short environment —
// finds the TUI's requests and watchers through it.
const redirectFile = "redirect.json"

// redirect is the content of redirectFile.
type redirect struct {
	StateDir string `json:"state_dir"`
	PID      int    `json:"pid"`
}

// DefaultStateDir is the per-user state directory that needs no
// environment but the home directory: ~/.local/state/cuff.
func DefaultStateDir(getenv func(string) string) (string, error) {
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no state directory: set CUFF_STATE_DIR or HOME: %w", err)
		}
		home = h
	}
	return filepath.Join(home, ".local", "state", "cuff"), nil
}

// Announce records, when dir (the state directory this process watches)
// is not the default one, that a process without CUFF_STATE_DIR and
// XDG_STATE_HOME should use dir. The returned function withdraws the
// record if it is still this process's; call it when the process stops
// watching.
func Announce(getenv func(string) string, dir string) (func(), error) {
	def, err := DefaultStateDir(getenv)
	if err != nil || filepath.Clean(def) == filepath.Clean(dir) {
		return func() {}, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return func() {}, fmt.Errorf("state directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(def, 0o700); err != nil {
		return func() {}, fmt.Errorf("create %s: %w", def, err)
	}
	data, err := json.Marshal(redirect{StateDir: abs, PID: os.Getpid()})
	if err != nil {
		return func() {}, err
	}
	path := filepath.Join(def, redirectFile)
	if err := writeAtomic(path, data); err != nil {
		return func() {}, err
	}
	return func() {
		if r, ok := readRedirect(path); ok && r.PID == os.Getpid() {
			_ = os.Remove(path)
		}
	}, nil
}

// redirected is the state directory that def's redirect file names, when a
// live process of this user wrote it and it names a private directory of
// this user.
func redirected(def string) (string, bool) {
	r, ok := readRedirect(filepath.Join(def, redirectFile))
	if !ok || r.PID <= 0 || !filepath.IsAbs(r.StateDir) || !alive(r.PID) {
		return "", false
	}
	fi, err := os.Stat(r.StateDir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return "", false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
		return "", false
	}
	return r.StateDir, true
}

func readRedirect(path string) (redirect, bool) {
	var r redirect
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &r) != nil {
		return redirect{}, false
	}
	return r, true
}
