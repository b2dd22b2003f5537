package scripts

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/cuff-dev/cuff/internal/settings"
)

// DefaultTimeout is how long a script may run when neither the request nor
// the settings say otherwise.
const DefaultTimeout = 300 * time.Second

// Config says which scripts are exposed and how they run. Relative
// directories are taken from Root, the project root.
type Config struct {
	// Root is the project root; "" means the current directory.
	Root string
	// Patterns are the globs of scripts to expose, relative to BaseDirectory.
	Patterns []string
	// BaseDirectory is where patterns and script paths start; "" means Root.
	BaseDirectory string
	// Exclude are globs of scripts (or their directories) left out.
	Exclude []string
	// DefaultTimeout applies when a request names none; 0 means DefaultTimeout.
	DefaultTimeout time.Duration
	// WorkingDirectory is where scripts run, relative to BaseDirectory
	// (so the default "." is the base directory), or absolute.
	WorkingDirectory string
	// Environment is set for every script, before the request's own variables.
	Environment map[string]string
	// ExposeListScripts offers the script_list_scripts tool.
	ExposeListScripts bool
	// Interpreters maps extensions (".py") to interpreter commands ("python3",
	// "npx ts-node"); they win over shebang lines.
	Interpreters map[string]string
	// RequireExecutable refuses to run scripts without an execute bit.
	RequireExecutable bool
	// CacheTTL is how long a Cache keeps a discovery; 0 rediscovers every time.
	CacheTTL time.Duration
}

// FromSettings is the configuration of the scripts settings section for the
// project at root.
func FromSettings(root string, s settings.Scripts) Config {
	return Config{
		Root:              root,
		Patterns:          slices.Clone(s.Patterns),
		BaseDirectory:     s.BaseDirectory,
		Exclude:           slices.Clone(s.Exclude),
		DefaultTimeout:    s.DefaultTimeout,
		WorkingDirectory:  s.WorkingDirectory,
		Environment:       maps.Clone(s.Environment),
		ExposeListScripts: s.ExposeListScripts,
		Interpreters:      maps.Clone(s.Interpreters),
		RequireExecutable: s.RequireExecutable,
		CacheTTL:          s.CacheTTL,
	}
}

// root is the project root, absolute.
func (c *Config) root() (string, error) {
	r := c.Root
	if r == "" {
		r = "."
	}
	abs, err := filepath.Abs(r)
	if err != nil {
		return "", fmt.Errorf("project root %s: %w", r, err)
	}
	return abs, nil
}

// BaseDir is the base directory, absolute.
func (c *Config) BaseDir() (string, error) {
	root, err := c.root()
	if err != nil {
		return "", err
	}
	b := c.BaseDirectory
	if b == "" {
		b = "."
	}
	if filepath.IsAbs(b) {
		return filepath.Clean(b), nil
	}
	return filepath.Join(root, b), nil
}

// WorkDir is where scripts run, absolute.
func (c *Config) WorkDir() (string, error) {
	base, err := c.BaseDir()
	if err != nil {
		return "", err
	}
	w := c.WorkingDirectory
	if w == "" {
		w = "."
	}
	if filepath.IsAbs(w) {
		return filepath.Clean(w), nil
	}
	return filepath.Join(base, w), nil
}

// timeout is the timeout of a run that asks for d (0: the default).
func (c *Config) timeout(d time.Duration) time.Duration {
	switch {
	case d > 0:
		return d
	case c.DefaultTimeout > 0:
		return c.DefaultTimeout
	}
	return DefaultTimeout
}

// check validates the patterns.
func (c *Config) check() error {
	for _, p := range c.Patterns {
		if err := ValidatePattern(p); err != nil {
			return fmt.Errorf("scripts.patterns: %w", err)
		}
	}
	for _, p := range c.Exclude {
		if err := ValidatePattern(p); err != nil {
			return fmt.Errorf("scripts.exclude: %w", err)
		}
	}
	return nil
}
