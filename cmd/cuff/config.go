package main

import (
	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/recorder/runner"
)

// settings returns the project's settings (defaults until a store is opened).
func (a *app) settings() *settings.Settings {
	if a.ws == nil {
		return settings.Defaults()
	}
	return a.ws.Settings
}

// stateDir is the per-user state directory: $CUFF_STATE_DIR, else
// $XDG_STATE_HOME/cuff, else ~/.local/state/cuff ("" without a home).
func (a *app) stateDir() string {
	d, err := approval.StateDir(a.getenv)
	if err != nil {
		return ""
	}
	return d
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
