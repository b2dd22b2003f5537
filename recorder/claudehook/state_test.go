package claudehook

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStateFilesThatAreNotRegularNeverHang: a session's state file, its
// lock or its temporary file replaced by a named pipe (or a link) used to
// hang every hook call of that session in open(2), the agent waiting on
// it; the state starts afresh, at once, and is saved as a regular file.
func TestStateFilesThatAreNotRegularNeverHang(t *testing.T) {
	for _, suffix := range []string{"", ".lock", ".tmp"} {
		t.Run("fifo"+suffix, func(t *testing.T) {
			dir := t.TempDir()
			path := statePath(dir, "sess")
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path+suffix, 0o600); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				peekState(dir, "sess")
				done <- withState(dir, "sess", func(st *state) error { st.remember("m1"); return nil })
			}()
			select {
			case err := <-done:
				if err != nil && suffix != ".lock" { // a pipe holds a lock as a file does
					t.Errorf("the state could not be saved past a named pipe: %v", err)
				}
				if fi, err := os.Lstat(path); suffix != ".lock" && (err != nil || !fi.Mode().IsRegular()) {
					t.Errorf("the state was not saved as a regular file: %v %v", fi, err)
				}
			case <-time.After(20 * time.Second): // a hang guard, not a timing
				t.Fatal("the hook state hangs on a named pipe")
			}
		})
	}
}
