package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

func env(dir string, vars map[string]string) Env {
	return Env{Cwd: dir, Getenv: func(k string) string { return vars[k] }}
}

func TestOpenAppliesSettingsAndRedaction(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".cuff"), 0o700)
	os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"),
		[]byte("recording:\n  directory: rec\nsources:\n  codex: false\n"), 0o600)
	home := t.TempDir()
	ws, err := Open(env(dir, map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	// Recordings elsewhere count once the person trusted the file.
	if ws.Store.Recordings != filepath.Join(dir, ".cuff", "recordings") {
		t.Errorf("an untrusted recording.directory applied: %s", ws.Store.Recordings)
	}
	if _, err := ws.SaveTrust(time.Now()); err != nil {
		t.Fatal(err)
	}
	if ws, err = Open(env(dir, map[string]string{"HOME": home})); err != nil {
		t.Fatal(err)
	}
	if ws.Store.Recordings != filepath.Join(dir, "rec") || ws.Root() != dir {
		t.Errorf("recordings %s root %s", ws.Store.Recordings, ws.Root())
	}
	w, err := ws.Store.Create(&transcript.SessionStart{Agent: "x"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w.Append(transcript.New(w.ID(), time.Now(), &transcript.ChatTurn{Role: "user", Text: "my key is sk-proj-abcdefghijklmnopqrstuvwxyz0123"}))
	w.Close("complete")
	data, _ := os.ReadFile(ws.Store.EventsPath(w.ID()))
	if strings.Contains(string(data), "sk-proj-abcdefghij") {
		t.Errorf("secret written: %s", data)
	}
	if got := ws.ForeignSources(); len(got) != 1 || got[0].Name() != "claude" || got[0].Root() != filepath.Join(home, ".claude", "projects") {
		t.Errorf("sources %v", got)
	}
	if ws.StateDir() != filepath.Join(home, ".local", "state", "cuff") {
		t.Errorf("state dir %s", ws.StateDir())
	}
}

func TestOpenReportsABrokenSettingsFile(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".cuff"), 0o700)
	os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"), []byte("gate:\n  mode: lax\n"), 0o600)
	_, err := Open(env(dir, nil))
	var se *SettingsError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "settings.yml:2") || se.Hint() == "" {
		t.Errorf("%v", err)
	}
}

func TestGateUsesProjectPolicy(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".cuff"), 0o700)
	os.WriteFile(filepath.Join(dir, ".cuff", "policy.yml"), []byte("rules:\n  - match: \"ls *\"\n    action: deny\n"), 0o600)
	ws, err := Open(env(dir, nil))
	if err != nil {
		t.Fatal(err)
	}
	g, err := ws.Gate("")
	if err != nil {
		t.Fatal(err)
	}
	if v := g.Classify("ls -la").Verdict.String(); v != "deny" {
		t.Errorf("verdict %s", v)
	}
}
