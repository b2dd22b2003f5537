package approval

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStateDirRedirect: with neither CUFF_STATE_DIR nor XDG_STATE_HOME, the
// state directory is the one a live TUI announced in the default one; a
// variable still wins, and a record left by a process that is gone, or
// naming a directory others may write, is not followed.
func TestStateDirRedirect(t *testing.T) {
	home := t.TempDir()
	custom := filepath.Join(t.TempDir(), "state")
	if err := os.MkdirAll(custom, 0o700); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	def := filepath.Join(home, ".local", "state", "cuff")
	stateDir := func() string {
		t.Helper()
		d, err := StateDir(getenv)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	if d := stateDir(); d != def {
		t.Fatalf("default %q, want %q", d, def)
	}
	release, err := Announce(getenv, custom)
	if err != nil {
		t.Fatal(err)
	}
	if d := stateDir(); d != custom {
		t.Errorf("announced: %q, want %q", d, custom)
	}
	env["XDG_STATE_HOME"] = filepath.Join(home, "xdg")
	if d := stateDir(); d != filepath.Join(home, "xdg", "cuff") {
		t.Errorf("with XDG_STATE_HOME: %q", d)
	}
	delete(env, "XDG_STATE_HOME")
	if err := os.Chmod(custom, 0o777); err != nil {
		t.Fatal(err)
	}
	if d := stateDir(); d != def {
		t.Errorf("a directory others may write is followed: %q", d)
	}
	os.Chmod(custom, 0o700)
	release()
	if d := stateDir(); d != def {
		t.Errorf("after release: %q", d)
	}
	// A record whose process is gone.
	if err := writeAtomic(filepath.Join(def, redirectFile), []byte(`{"state_dir":"`+custom+`","pid":2147483646}`)); err != nil {
		t.Fatal(err)
	}
	if d := stateDir(); d != def {
		t.Errorf("a stale record is followed: %q", d)
	}
	// Announcing the default itself writes nothing.
	release, err = Announce(getenv, def)
	if err != nil {
		t.Fatal(err)
	}
	release()
}
