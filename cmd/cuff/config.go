package main

import (
	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/transcript/redact"
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

// outputRedactor is the project's redaction for a command's output, applied
// before the output is cut to its limit (runner.Command.Redact): nil when
// redaction is off or its patterns do not compile (the store then refuses
// to record, and says why).
func outputRedactor(cfg *settings.Settings) func(string) string {
	if !cfg.Redaction.Enabled {
		return nil
	}
	r, err := redact.New(redact.Options{Patterns: cfg.Redaction.Patterns})
	if err != nil {
		return nil
	}
	return r.String
}

// outputRedact is outputRedactor with the workspace's own redactor, when
// there is a workspace: compiled once per process.
func (a *app) outputRedact(cfg *settings.Settings) func(string) string {
	if a.ws != nil {
		if r, err := a.ws.Redactor(); err == nil && r != nil {
			return r.String
		}
	}
	return outputRedactor(cfg)
}
