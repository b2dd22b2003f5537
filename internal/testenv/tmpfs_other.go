//go:build !linux

package testenv

import "testing"

// Tmpfs skips the test: mounting a tmpfs to fill up is done on Linux only.
func Tmpfs(t testing.TB, size int64) string {
	t.Helper()
	t.Skip("a tmpfs to fill up is mounted on Linux only")
	return ""
}
