// Package testenv keeps the tester's own set-up out of end-to-end tests.
package testenv

import (
	"os"
	"strings"
)

// Scrub removes from the test process's environment every variable through
// which the tester's own cuff, Claude Code or Codex set-up would reach the
// programs the tests start (CUFF_*, XDG_*, CLAUDE_CONFIG_DIR,
// CLAUDE_PROJECT_DIR, CODEX_HOME). Call it from TestMain, before any test
// runs; tests then set what they need on each command.
func Scrub() {
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if Owned(name) {
			os.Unsetenv(name)
		}
	}
}

// Owned reports whether Scrub removes the variable name.
func Owned(name string) bool {
	switch {
	case strings.HasPrefix(name, "CUFF_"), strings.HasPrefix(name, "XDG_"):
		return true
	}
	switch name {
	case "CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "CODEX_HOME":
		return true
	}
	return false
}
