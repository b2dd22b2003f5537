package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPolicyTrust: what a project's .cuff files loosen counts only once a
// person trusted that text; what they tighten counts at once, and a
// change after trusting waits again (issue 10, policy trust).
func TestPolicyTrust(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	cuffDir := filepath.Join(dir, ".cuff")
	os.MkdirAll(cuffDir, 0o700)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(cuffDir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	open := func() *Workspace {
		ws, err := Open(env(dir, map[string]string{"HOME": home}))
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
	verdict := func(ws *Workspace, cmd string) string {
		g, err := ws.Gate("")
		if err != nil {
			t.Fatal(err)
		}
		return g.Classify(cmd).Verdict.String()
	}
	write("policy.yml", "rules:\n  - {match: \"curl *\", action: allow}\n  - {match: \"make deploy\", action: deny}\n")
	write("settings.yml", "gate:\n  mode: taint\napprovals:\n  no_watcher: allow\n")

	ws := open()
	if v := verdict(ws, "curl https://example.com"); v != "ask" {
		t.Errorf("an untrusted allow rule applied: %s", v)
	}
	if v := verdict(ws, "make deploy"); v != "deny" {
		t.Errorf("an untrusted deny rule did not apply at once: %s", v)
	}
	if ws.Settings.Gate.Mode != "strict" || ws.Settings.Approvals.NoWatcher != "ask" {
		t.Errorf("untrusted loosening settings applied: %+v %+v", ws.Settings.Gate, ws.Settings.Approvals)
	}
	note := ws.TrustNote()
	for _, want := range []string{"never been trusted", `"curl *"`, "gate.mode: taint", "no_watcher: allow", "cuff trust"} {
		if !strings.Contains(note, want) {
			t.Errorf("the note does not say %q: %s", want, note)
		}
	}

	if _, err := ws.SaveTrust(time.Now()); err != nil {
		t.Fatal(err)
	}
	ws = open()
	if v := verdict(ws, "curl https://example.com"); v != "allow" || ws.Settings.Gate.Mode != "taint" || ws.TrustNote() != "" {
		t.Errorf("trusted files do not apply: %s %s %q", v, ws.Settings.Gate.Mode, ws.TrustNote())
	}

	// A later change: the new allow waits, the old one stays, the new
	// deny applies, a stricter setting applies.
	write("policy.yml", "rules:\n  - {match: \"curl *\", action: allow}\n  - {match: \"wget *\", action: allow}\n  - {match: \"git push *\", action: deny}\n")
	write("settings.yml", "gate:\n  mode: taint\napprovals:\n  no_watcher: deny\n  mcp_no_watcher: allow\n")
	ws = open()
	for cmd, want := range map[string]string{"curl x": "allow", "wget x": "ask", "git push origin main": "deny", "make deploy": "deny"} {
		if v := verdict(ws, cmd); v != want {
			t.Errorf("after an untrusted change, %q: %s, want %s", cmd, v, want)
		}
	}
	if ws.Settings.Approvals.NoWatcher != "deny" || ws.Settings.Approvals.MCPNoWatcher != "deny" || ws.Settings.Gate.Mode != "taint" {
		t.Errorf("settings after an untrusted change: %+v %+v", ws.Settings.Approvals, ws.Settings.Gate)
	}
	if note := ws.TrustNote(); !strings.Contains(note, "changed since you last trusted") || !strings.Contains(note, `"wget *"`) ||
		!strings.Contains(note, "mcp_no_watcher: allow") {
		t.Errorf("note: %s", note)
	}

	// A record another user or a loose file wrote does not count.
	rec, _ := filepath.Glob(filepath.Join(home, ".local", "state", "cuff", "trust", "*.json"))
	if len(rec) != 1 {
		t.Fatalf("trust records: %v", rec)
	}
	os.Chmod(rec[0], 0o644)
	if ws = open(); ws.Trust.Record != nil {
		t.Error("a trust record others may write counted")
	}
}
