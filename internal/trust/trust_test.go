package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSaveLoadAndTampering: a record reads back as saved, and one whose
// content does not match its digest, another directory's, or one others
// may write does not count.
func TestSaveLoadAndTampering(t *testing.T) {
	state, dir := t.TempDir(), filepath.Join(t.TempDir(), ".cuff")
	cur := Current{PolicyFile: []byte("rules: []\n")}
	if err := Save(state, dir, cur, time.Now()); err != nil {
		t.Fatal(err)
	}
	r := Load(state, dir)
	if !r.Matches(PolicyFile, cur[PolicyFile], true) || !r.Matches(SettingsFile, nil, false) || r.Matches(PolicyFile, []byte("x"), true) {
		t.Fatalf("record: %+v", r)
	}
	if Load(state, dir+"2") != nil {
		t.Error("another directory's record counted")
	}
	p := path(state, dir)
	data, _ := os.ReadFile(p)
	tampered := strings.Replace(string(data), `"content": "cnVsZXM6IFtdCg=="`, `"content": "cnVsZXM6IFtkXQo="`, 1)
	if tampered == string(data) {
		t.Fatalf("the test did not change the content: %s", data)
	}
	os.WriteFile(p, []byte(tampered), 0o600)
	if Load(state, dir) != nil {
		t.Error("a record whose content does not match its digest counted")
	}
	os.WriteFile(p, data, 0o600)
	os.Chmod(p, 0o620)
	if Load(state, dir) != nil {
		t.Error("a record others may write counted")
	}
}
