//go:build !linux

package sandbox

import (
	"os/exec"
	"runtime"
)

// Supported reports whether this platform has a sandbox implementation.
// macOS (Seatbelt through sandbox-exec) and Windows are designed in
// docs/sandbox.md but not built.
const Supported = false

func kernelABI() (int, string) {
	return 0, "cuff has no sandbox on " + runtime.GOOS + " yet (Linux only: Landlock)"
}

var devices []device

type device struct {
	path string
	dir  bool
}

// Exec refuses: there is no sandbox on this platform.
func (p *Policy) Exec(st Status, path string, argv, env []string) error {
	return &UnavailableError{Reason: st.Reason}
}

// Start refuses: there is no sandbox on this platform.
func (p *Policy) Start(st Status, cmd *exec.Cmd) error {
	return &UnavailableError{Reason: st.Reason}
}
