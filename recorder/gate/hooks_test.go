package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeHook writes a hook script and returns the command that runs it.
func writeHook(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunHooks(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "seen.json")
	record := writeHook(t, dir, "record.sh", "cat > '"+seen+"'\necho '{}'\n")
	allow := writeHook(t, dir, "allow.sh", "echo '{\"decision\": \"allow\"}'\n")
	quiet := writeHook(t, dir, "quiet.sh", "cat >/dev/null\n")
	ask := writeHook(t, dir, "ask.sh", "echo '{\"decision\": \"ask\", \"reason\": \"new tool\"}'\n")
	deny := writeHook(t, dir, "deny.sh", "echo '{\"decision\": \"deny\", \"reason\": \"Blocked\"}'\n")
	denySeed := writeHook(t, dir, "seed.sh", "echo '{\"allowed\": false, \"reason\": \"no\"}'\n")
	block := writeHook(t, dir, "block.sh", "echo 'rm is forbidden here' >&2\nexit 2\n")
	broken := writeHook(t, dir, "broken.sh", "echo boom >&2\nexit 1\n")
	garbage := writeHook(t, dir, "garbage.sh", "echo 'sure'\n")
	after := filepath.Join(dir, "after")
	marker := writeHook(t, dir, "marker.sh", "touch '"+after+"'\n")

	req := ToolRequest{Tool: "Bash", Input: json.RawMessage(`{"command":"rm -rf build"}`), SessionID: "s1"}
	cases := []struct {
		hooks  []string
		want   Verdict
		reason string
	}{
		{nil, VerdictAllow, ""},
		{[]string{record, allow, quiet}, VerdictAllow, ""},
		{[]string{allow, ask}, VerdictAsk, "new tool"},
		{[]string{deny}, VerdictDeny, "Blocked"},
		{[]string{denySeed}, VerdictDeny, "no"},
		{[]string{block}, VerdictDeny, "rm is forbidden here"},
		{[]string{broken}, VerdictAsk, "boom"},
		{[]string{garbage}, VerdictAsk, "not JSON"},
		{[]string{"/nonexistent/hook"}, VerdictAsk, "status 127"},
		{[]string{ask, deny, marker}, VerdictDeny, "Blocked"},
	}
	for _, tc := range cases {
		g := testGate(t, Options{Hooks: tc.hooks})
		r := g.RunHooks(t.Context(), req)
		if r.Verdict != tc.want || !strings.Contains(r.Reason, tc.reason) {
			t.Errorf("hooks %v: %s %q, want %s %q", tc.hooks, r.Verdict, r.Reason, tc.want, tc.reason)
		}
	}
	if _, err := os.Stat(after); err == nil {
		t.Error("a hook ran after the first deny")
	}
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	var got ToolRequest
	if err := json.Unmarshal(b, &got); err != nil || got.Tool != "Bash" || got.Event != "PreToolUse" ||
		!strings.Contains(string(got.Input), "rm -rf build") || got.SessionID != "s1" {
		t.Errorf("hook request %s: %v", b, err)
	}
}

func TestHookTimeout(t *testing.T) {
	dir := t.TempDir()
	slow := writeHook(t, dir, "slow.sh", "sleep 30\n")
	g := testGate(t, Options{Hooks: []string{slow}, HookTimeout: 200 * time.Millisecond})
	start := time.Now()
	r := g.RunHooks(t.Context(), ToolRequest{Tool: "Bash"})
	if r.Verdict != VerdictAsk || !strings.Contains(r.Reason, "did not answer") {
		t.Errorf("slow hook: %s %q", r.Verdict, r.Reason)
	}
	// Not a speed check: waiting for the 30 s sleep would mean the process
	// was never ended.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("slow hook took %s", d)
	}
}

func TestCombine(t *testing.T) {
	deny := HookResult{Verdict: VerdictDeny}
	ok := HookResult{Verdict: VerdictAllow}
	ask := HookResult{Verdict: VerdictAsk}
	if Combine(VerdictAllow, deny) != VerdictDeny || Combine(VerdictDeny, ok) != VerdictDeny ||
		Combine(VerdictNone, ok) != VerdictNone || Combine(VerdictAllow, ask) != VerdictAsk {
		t.Error("Combine lets a hook lower the built-in verdict or ignores its objection")
	}
}
