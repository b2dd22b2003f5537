package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDecideTable(t *testing.T) {
	const (
		none  = Taint(0)
		one   = TaintUntrusted
		other = TaintSecret
		both  = TaintUntrusted | TaintSecret
	)
	cases := []struct {
		tier  Tier
		mode  Mode
		taint Taint
		want  Verdict
		need  copNeed
	}{
		{TierDenyRule, ModeStrict, none, VerdictDeny, copNone},
		{TierDenyRule, ModeTaint, none, VerdictDeny, copNone},
		{TierAskRule, ModeTaint, none, VerdictAsk, copNone},
		{TierUnparsed, ModeTaint, none, VerdictAsk, copNone},
		{TierAllowRule, ModeStrict, both, VerdictAllow, copNone},
		{TierLocal, ModeTaint, both, VerdictAllow, copNone},
		{TierRisky, ModeStrict, none, VerdictAsk, copNone},
		{TierRisky, ModeStrict, both, VerdictAsk, copNone},
		{TierGrey, ModeStrict, both, VerdictNone, copNone},
		{TierRisky, ModeTaint, none, VerdictAllow, copNone},
		{TierGrey, ModeTaint, none, VerdictAllow, copNone},
		{TierRisky, ModeTaint, one, VerdictAsk, copRisky},
		{TierRisky, ModeTaint, other, VerdictAsk, copRisky},
		{TierRisky, ModeTaint, both, VerdictAsk, copNone},
		{TierGrey, ModeTaint, one, VerdictAsk, copGreyOne},
		{TierGrey, ModeTaint, both, VerdictAsk, copGreyTwo},
	}
	for _, tc := range cases {
		v, n := decide(tc.tier, tc.mode, tc.taint)
		if v != tc.want || n != tc.need {
			t.Errorf("decide(%s, %s, %s) = %s, %d; want %s, %d", tc.tier, tc.mode, tc.taint, v, n, tc.want, tc.need)
		}
	}
	if afterCop(copRisky, true) != VerdictDeny || afterCop(copRisky, false) != VerdictAsk ||
		afterCop(copGreyOne, true) != VerdictDeny || afterCop(copGreyOne, false) != VerdictAllow ||
		afterCop(copGreyTwo, true) != VerdictAsk || afterCop(copGreyTwo, false) != VerdictAllow {
		t.Error("afterCop does not follow the verdict table")
	}
}

func TestParseNames(t *testing.T) {
	if tt, err := ParseTaint(" untrusted , secret"); err != nil || !tt.both() || tt.String() != "untrusted,secret" {
		t.Errorf("ParseTaint: %v %v", tt, err)
	}
	if _, err := ParseTaint("untrusted,nosy"); err == nil || !strings.Contains(err.Error(), `"nosy"`) {
		t.Errorf("bad taint: %v", err)
	}
	if m, err := ParseMode(""); err != nil || m != ModeStrict {
		t.Errorf("empty mode: %v %v", m, err)
	}
	if _, err := ParseMode("lax"); err == nil {
		t.Error("mode lax accepted")
	}
	if _, err := New(Options{Mode: "lax"}); err == nil {
		t.Error("New accepted mode lax")
	}
	var v Verdict
	if err := json.Unmarshal([]byte(`"none"`), &v); err != nil || v != VerdictNone {
		t.Errorf("verdict none: %v %v", v, err)
	}
	var tr Tier
	if err := json.Unmarshal([]byte(`"allow_rule"`), &tr); err != nil || tr != TierAllowRule {
		t.Errorf("tier: %v %v", tr, err)
	}
	if err := json.Unmarshal([]byte(`"maybe"`), &v); err == nil {
		t.Error("verdict maybe accepted")
	}
}

// writeCop writes a cop script that records its request and prints answer.
func writeCop(t *testing.T, answer string, exit int) (cmd, reqFile string) {
	t.Helper()
	dir := t.TempDir()
	reqFile = filepath.Join(dir, "request.json")
	script := filepath.Join(dir, "cop.sh")
	body := "#!/bin/sh\ncat > '" + reqFile + "'\nprintf '%s\\n' '" + answer + "'\nexit " + string(rune('0'+exit)) + "\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return script, reqFile
}

func TestTaintModeWithCop(t *testing.T) {
	flagged, flaggedReq := writeCop(t, `{"flagged": true, "reason": "sends data out"}`, 0)
	clean, _ := writeCop(t, `Verdict: {"flagged": false, "reason": "local"}`, 0)
	failing, _ := writeCop(t, `oops`, 1)
	garbage, _ := writeCop(t, `I think it is fine`, 0)
	noField, _ := writeCop(t, `{"ok": true}`, 0)
	const risky, grey = "curl https://x", "mytool --run"
	cases := []struct {
		cop   string
		cmd   string
		taint Taint
		want  Verdict
	}{
		{"", risky, TaintUntrusted, VerdictAsk},
		{"", grey, TaintSecret, VerdictAsk},
		{"", risky, 0, VerdictAllow},
		{flagged, risky, TaintUntrusted, VerdictDeny},
		{flagged, grey, TaintSecret, VerdictDeny},
		{flagged, grey, TaintUntrusted | TaintSecret, VerdictAsk},
		{flagged, risky, TaintUntrusted | TaintSecret, VerdictAsk},
		{flagged, "ls", TaintUntrusted, VerdictAllow},
		{clean, risky, TaintUntrusted, VerdictAsk},
		{clean, grey, TaintUntrusted, VerdictAllow},
		{clean, grey, TaintUntrusted | TaintSecret, VerdictAllow},
		{failing, grey, TaintUntrusted, VerdictAsk},
		{garbage, grey, TaintUntrusted, VerdictAsk},
		{noField, grey, TaintUntrusted, VerdictAsk},
	}
	for _, tc := range cases {
		g := testGate(t, Options{Mode: ModeTaint, CopCommand: tc.cop, CopTimeout: 10 * time.Second})
		r := g.Check(t.Context(), tc.cmd, tc.taint)
		if r.Verdict != tc.want {
			t.Errorf("cop %s, %q, taint %s: got %s (%v), want %s", filepath.Base(filepath.Dir(tc.cop)), tc.cmd, tc.taint, r.Verdict, r.Reasons, tc.want)
		}
	}
	// The cop received the request in seed 004's shape.
	b, err := os.ReadFile(flaggedReq)
	if err != nil {
		t.Fatalf("cop request: %v", err)
	}
	var req CopRequest
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatalf("cop request %s: %v", b, err)
	}
	if req.Type != "security:bash_check" || req.Command == "" || len(req.Taint) == 0 ||
		!regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(req.RequestID) {
		t.Errorf("cop request: %+v", req)
	}
}

func TestCopIsNotAskedWhenNotNeeded(t *testing.T) {
	cop, req := writeCop(t, `{"flagged": true}`, 0)
	for _, tc := range []struct {
		mode  Mode
		cmd   string
		taint Taint
	}{
		{ModeStrict, "mytool", TaintUntrusted},
		{ModeTaint, "curl x", TaintUntrusted | TaintSecret},
		{ModeTaint, "mytool", 0},
		{ModeTaint, "rm -rf build", TaintSecret},
	} {
		g := testGate(t, Options{Mode: tc.mode, CopCommand: cop})
		g.Check(t.Context(), tc.cmd, tc.taint)
		if _, err := os.Stat(req); err == nil {
			t.Fatalf("cop was asked about %q in %s mode with taint %q", tc.cmd, tc.mode, tc.taint)
		}
	}
}

func TestCopTimeout(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "slow.sh")
	// The grandchild would keep the pipe open; the process group is killed.
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 30 &\nsleep 30\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	g := testGate(t, Options{Mode: ModeTaint, CopCommand: script, CopTimeout: 200 * time.Millisecond})
	start := time.Now()
	r := g.Check(t.Context(), "mytool", TaintUntrusted)
	if r.Verdict != VerdictAsk || r.Cop == nil || !strings.Contains(r.Cop.Error, "did not answer") {
		t.Errorf("slow cop: %s %+v", r.Verdict, r.Cop)
	}
	// Not a speed check: waiting for the 30 s sleep would mean the process
	// was never ended.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("slow cop took %s", d)
	}
}

// TestResultReasonsApartFromParts: a one-part result shares its part's
// reasons; appending to the result's (as the hook does) leaves the part's
// as they were, and a result always has a reasons list.
func TestResultReasonsApartFromParts(t *testing.T) {
	g := testGate(t, Options{})
	for _, cmd := range []string{"ls", "curl evil.example", "ls && curl evil.example", ""} {
		res := g.Check(t.Context(), cmd, 0)
		if res.Reasons == nil || len(res.Commands) > 0 && len(res.Reasons) == 0 {
			t.Fatalf("%q: reasons %#v", cmd, res.Reasons)
		}
		var before []string
		if len(res.Commands) > 0 {
			before = slices.Clone(res.Commands[0].Reasons)
		}
		res.Reasons = append(res.Reasons, "added by the hook")
		if len(res.Commands) > 0 && !slices.Equal(res.Commands[0].Reasons, before) {
			t.Errorf("%q: appending to the result's reasons changed the part's: %q, was %q", cmd, res.Commands[0].Reasons, before)
		}
		if len(res.Commands) > 0 {
			part := append(res.Commands[0].Reasons, "added to the part")
			if slices.Contains(res.Reasons, "added to the part") || part[len(part)-1] != "added to the part" {
				t.Errorf("%q: appending to the part's reasons changed the result's: %q", cmd, res.Reasons)
			}
		}
	}
}
