package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/settings"
	"github.com/cuff-dev/cuff/transcript/redact"
)

// loadSettings reads the project's and the user's settings files for the
// store in dir. A broken file is an error naming its file and line.
func (a *app) loadSettings(dir string) (*settings.Settings, error) {
	if a.cfg != nil {
		return a.cfg, nil
	}
	cfg, err := settings.Load(settings.ProjectFile(dir), settings.UserFile(a.getenv))
	if err != nil {
		return nil, &settingsError{err: err}
	}
	a.cfg = cfg
	return cfg, nil
}

// settingsError is a settings file cuff cannot use.
type settingsError struct{ err error }

func (e *settingsError) Error() string { return e.err.Error() }
func (e *settingsError) Unwrap() error { return e.err }
func (e *settingsError) Hint() string {
	return "Hint: Fix the file, or run 'cuff init --print' to see every key with its default"
}

// applySettings points the store at the configured recordings directory and
// wires redaction into every write.
func (a *app) applySettings(dir string) error {
	cfg, err := a.loadSettings(dir)
	if err != nil {
		return err
	}
	if cfg.Recording.Directory != "" && cfg.Recording.Directory != ".cuff/recordings" {
		a.store.Recordings = cfg.Recording.Dir(filepath.Dir(dir))
	}
	if cfg.Redaction.Enabled {
		r, err := redact.New(redact.Options{Patterns: cfg.Redaction.Patterns})
		if err != nil {
			return fmt.Errorf("redaction: %w", err)
		}
		a.store.Redact = func(line []byte) ([]byte, error) { return r.ValidJSON(line), nil }
	}
	return nil
}

// settings returns the loaded settings (defaults until a store is opened).
func (a *app) settings() *settings.Settings {
	if a.cfg == nil {
		return settings.Defaults()
	}
	return a.cfg
}

// stateDir is the per-user state directory: $CUFF_STATE_DIR, else
// $XDG_STATE_HOME/cuff, else ~/.local/state/cuff.
func (a *app) stateDir() string {
	if d := a.getenv("CUFF_STATE_DIR"); d != "" {
		return d
	}
	if d := a.getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "cuff")
	}
	home := a.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "cuff")
}

// runnerEnv turns the environment settings into the runner's terms.
func runnerEnv(e settings.Environment) runner.Env {
	mode := runner.EnvInherit
	switch e.Mode {
	case settings.EnvReplace:
		mode = runner.EnvReplace
	case settings.EnvMerge:
		mode = runner.EnvMerge
	}
	overrides := make(map[string]string, len(e.Overrides))
	for k, v := range e.Overrides {
		overrides[k] = v
	}
	return runner.Env{Mode: mode, Exclude: e.ExcludePatterns, Include: e.Include, Overrides: overrides}
}

// captureMode turns the capture setting into the runner's terms.
func captureMode(c settings.CaptureMode) runner.CaptureMode {
	switch c {
	case settings.CaptureStdout:
		return runner.CaptureStdout
	case settings.CaptureStderr:
		return runner.CaptureStderr
	case settings.CaptureNone:
		return runner.CaptureNone
	}
	return runner.CaptureAll
}
