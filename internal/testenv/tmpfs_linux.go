package testenv

import (
	"strconv"
	"syscall"
	"testing"
)

// Tmpfs mounts a tmpfs of size bytes on a fresh temporary directory and
// returns it; it is unmounted when the test ends. Where mounting is not
// allowed (not root, no CAP_SYS_ADMIN, a restricted container) the test is
// skipped, saying so.
func Tmpfs(t testing.TB, size int64) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size="+strconv.FormatInt(size, 10)+",mode=0700"); err != nil {
		t.Skipf("cannot mount a %d-byte tmpfs to fill up here (%v): this test needs root or CAP_SYS_ADMIN", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}
