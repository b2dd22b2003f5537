//go:build !unix

package gate

import "os/exec"

// setProcessGroup is a no-op where process groups are not available.
func setProcessGroup(cmd *exec.Cmd) {}
