package testenv

import (
	"os"
	"testing"
)

func TestScrub(t *testing.T) {
	t.Setenv("CODEX_HOME", "/somewhere/real")
	t.Setenv("CUFF_STATE_DIR", "/somewhere/state")
	t.Setenv("XDG_CONFIG_HOME", "/somewhere/config")
	t.Setenv("CUFFLINKS", "kept") // not CUFF_
	Scrub()
	for _, name := range []string{"CODEX_HOME", "CUFF_STATE_DIR", "XDG_CONFIG_HOME"} {
		if v, ok := os.LookupEnv(name); ok {
			t.Errorf("%s is still set to %q", name, v)
		}
	}
	if os.Getenv("CUFFLINKS") != "kept" {
		t.Error("Scrub removed a variable it does not own")
	}
}
