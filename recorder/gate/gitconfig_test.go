package gate

import "testing"

// TestCoreKeyTakesTheLastSetting: git takes the last value a
// configuration sets for a key (the hooks check once took the first).
func TestCoreKeyTakesTheLastSetting(t *testing.T) {
	cfg := []byte("[core]\n\thooksPath = first\n[user]\n\tname = x\n[core]\n\tHooksPath = \"last\"\n")
	if got := coreKey(cfg, "hookspath"); got != "last" {
		t.Errorf("coreKey = %q, want last", got)
	}
	if got := coreKey([]byte("[core]\n\tbare = false\n"), "hookspath"); got != "" {
		t.Errorf("coreKey without the key = %q", got)
	}
}
