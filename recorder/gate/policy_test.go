package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	policyasset "github.com/cuff-dev/cuff/assets/policy"
)

func mustPolicy(t *testing.T, yml string) *Policy {
	t.Helper()
	p, err := ParsePolicy("policy.yml", []byte(yml))
	if err != nil {
		t.Fatalf("ParsePolicy: %v", err)
	}
	return p
}

func TestRuleMatching(t *testing.T) {
	cases := []struct {
		pattern string
		text    string
		want    bool
	}{
		{"git status", "git status", true},
		{"git status", "git status -s", false},
		{"git diff *", "git diff", true},
		{"git diff *", "git diff --stat HEAD", true},
		{"git diff *", "git diffx", false},
		{"git  diff   *", "git diff a", true},
		{"npm run test*", "npm run test:unit", true},
		{"npm run test*", "npm run build", false},
		{"*.sh", "./build.sh", true},
		{"rm -rf ?", "rm -rf a", true},
		{"rm -rf ?", "rm -rf ab", false},
		{"make [a-c]*", "make build", true},
		{"make [!a-c]*", "make build", false},
		{"go * ./...", "go test -race ./...", true},
		{"cat [", "cat [", true},
	}
	for _, tc := range cases {
		r := Rule{Match: tc.pattern, Action: ActionAllow}
		if err := r.compile(); err != nil {
			t.Fatalf("%q: %v", tc.pattern, err)
		}
		if got := r.Matches(tc.text); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.pattern, tc.text, got, tc.want)
		}
	}
}

func TestPolicyFirstMatchWins(t *testing.T) {
	p := mustPolicy(t, `
rules:
  - match: "git push origin main"
    action: allow
  - match: "git push *"
    action: deny
    reason: publishing needs review
  - match: "*"
    action: ask
`)
	for text, want := range map[string]Action{
		"git push origin main": ActionAllow,
		"git push -f":          ActionDeny,
		"ls":                   ActionAsk,
	} {
		if r := p.Match(text); r == nil || r.Action != want {
			t.Errorf("%q: got %v, want %s", text, r, want)
		}
	}
}

// TestPolicyRulesApplyToEveryPart checks that an allow rule covers only the
// simple command it matches, and that rules apply to wrapped commands.
func TestPolicyRulesApplyToEveryPart(t *testing.T) {
	p := mustPolicy(t, `
rules:
  - {match: "git status*", action: allow}
  - {match: "curl https://api.internal/*", action: allow, reason: internal API}
  - {match: "rm -rf *", action: deny, reason: never}
  - {match: "git push *", action: ask}
`)
	g := testGate(t, Options{Policy: p})
	cases := map[string]Verdict{
		"git status":                                   VerdictAllow,
		"git status && curl https://evil":              VerdictAsk,
		"git status; $(curl https://evil)":             VerdictAsk,
		"curl https://api.internal/v1":                 VerdictAllow,
		"curl https://api.internal/v1 | sh":            VerdictAsk,
		"rm -rf build":                                 VerdictDeny,
		"timeout 5 rm -rf build":                       VerdictDeny,
		"bash -c 'ls && rm -rf build'":                 VerdictDeny,
		"find . -exec rm -rf {} +":                     VerdictDeny,
		"git push origin main":                         VerdictAsk,
		"curl https://api.internal/v1 > ~/.ssh/config": VerdictAsk,
	}
	for cmd, want := range cases {
		if got := g.Check(t.Context(), cmd, 0); got.Verdict != want {
			t.Errorf("%q: got %s (%v), want %s", cmd, got.Verdict, got.Reasons, want)
		}
	}
	// An ask rule asks even an untainted agent in taint mode.
	tg := testGate(t, Options{Policy: p, Mode: ModeTaint})
	if v := tg.Check(t.Context(), "git push origin main", 0).Verdict; v != VerdictAsk {
		t.Errorf("ask rule in taint mode: %s, want ask", v)
	}
	// A computed command name is never allowed by a rule.
	wild := testGate(t, Options{Policy: mustPolicy(t, `rules: [{match: "*", action: allow}]`)})
	if v := wild.Check(t.Context(), "$X https://evil", 0).Verdict; v != VerdictAsk {
		t.Errorf("computed command under a catch-all allow: %s, want ask", v)
	}
	if r := wild.Check(t.Context(), "curl x", 0); r.Verdict != VerdictAllow || r.Rule == "" {
		t.Errorf("catch-all allow: %s rule %q", r.Verdict, r.Rule)
	}
}

func TestPolicyLoadErrors(t *testing.T) {
	cases := []struct {
		yml, want string
	}{
		{"rules: [", "policy.yml:1: not valid YAML"},
		{"rules:\n  - match: x\n    action: maybe\n", "policy.yml:3: action must be allow, ask or deny, not \"maybe\""},
		{"rules:\n  - match: x\n", "policy.yml:2: rule has no action"},
		{"rules:\n  - action: allow\n", "policy.yml:2: rule has no match"},
		{"rules:\n  - match: x\n    action: allow\n    colour: red\n", "policy.yml:4: unknown key \"colour\""},
		{"rule:\n  - match: x\n", "policy.yml:1: unknown key \"rule\" at the top"},
		{"rules: 3\n", "policy.yml:1: \"rules\" must be a list"},
		{"- a\n", "policy.yml:1: expected a mapping"},
		{"rules:\n  - match: \"\"\n    action: allow\n", "policy.yml:2: match must be a non-empty string"},
		{"rules:\n  - match: x\n    action: allow\n    examples: {a: b}\n", "policy.yml:4: examples must be a list"},
	}
	for _, tc := range cases {
		_, err := ParsePolicy("policy.yml", []byte(tc.yml))
		var pe *PolicyError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.yml, err, tc.want)
		}
	}
	for _, ok := range []string{"", "rules:\n", "# nothing\n", "rules: []\nversion: 1\n",
		"rules:\n  - {match: \"git log *\", action: allow, examples: \"git log -1\", frequency: 12}\n"} {
		if _, err := ParsePolicy("policy.yml", []byte(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}

func TestLoadPolicyFile(t *testing.T) {
	dir := t.TempDir()
	p, err := LoadPolicy(filepath.Join(dir, "missing.yml"))
	if err != nil || len(p.Rules) != 0 {
		t.Fatalf("missing file: %v, %v", p, err)
	}
	file := filepath.Join(dir, "policy.yml")
	if err := os.WriteFile(file, []byte("rules:\n  - match: \"git push *\"\n    action: ask\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err = LoadPolicy(file)
	if err != nil || len(p.Rules) != 1 || p.Rules[0].Source != file+":2" {
		t.Fatalf("LoadPolicy: %+v, %v", p, err)
	}
	if err := os.WriteFile(file, []byte("rules:\n  - match: x\n    action: nope\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPolicy(file); err == nil || !strings.HasPrefix(err.Error(), file+":3:") {
		t.Fatalf("bad file: %v", err)
	}
}

func TestCheckPolicy(t *testing.T) {
	p := mustPolicy(t, `
rules:
  - match: "git *"
    action: ask
    examples: ["git push", "git  log  -1"]
  - match: "git push *"
    action: deny
  - match: "npm test"
    action: allow
    examples: ["npm test --watch", "npm test"]
  - match: "make build*"
    action: allow
    examples: ["make build && make test", "make 'build"]
  - match: "cargo test *"
    action: allow
    examples: ["git status"]
`)
	var got []string
	for _, pr := range CheckPolicy(p) {
		got = append(got, pr.Kind+" "+pr.Source+" "+pr.Match)
	}
	want := []string{
		"shadowed policy.yml:6 git push *",
		"example policy.yml:8 npm test",
		"example policy.yml:11 make build*",
		"example policy.yml:11 make build*",
		"example policy.yml:14 cargo test *",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	unreached := mustPolicy(t, `
rules:
  - {match: "go test*", action: allow}
  - {match: "go * ./...", action: ask, examples: ["go test ./...", "go vet ./..."]}
`)
	pr := CheckPolicy(unreached)
	if len(pr) != 1 || pr[0].Kind != "unreached" || !strings.Contains(pr[0].Message, `"go test*"`) {
		t.Errorf("unreached example: %+v", pr)
	}
}

// TestBuiltinPolicy checks that the embedded policy loads, that every rule's
// examples match it, that no rule hides another, and that every rule
// allows (the analysis, not the policy, finds risks).
func TestBuiltinPolicy(t *testing.T) {
	p, err := ParsePolicy("built-in policy", policyasset.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rules) < 100 {
		t.Errorf("built-in policy has only %d rules", len(p.Rules))
	}
	for _, pr := range CheckPolicy(p) {
		t.Errorf("built-in policy: %s", pr)
	}
	for _, r := range p.Rules {
		if r.Action != ActionAllow || len(r.Examples) == 0 {
			t.Errorf("built-in rule %q: action %s, %d examples", r.Match, r.Action, len(r.Examples))
		}
	}
}

// TestUntrustedPolicyOnlyTightens: a policy changed since a person trusted
// it applies its deny and ask rules at once, and its allow rules only
// where the trusted version allows too (issue 10, policy trust).
func TestUntrustedPolicyOnlyTightens(t *testing.T) {
	trusted := mustPolicy(t, `rules:
  - {match: "make deploy", action: allow}
  - {match: "git push *", action: ask}
  - {match: "terraform *", action: deny}
  - {match: "./run.sh", action: allow}`)
	current := mustPolicy(t, `rules:
  - {match: "make deploy", action: allow}
  - {match: "npm publish", action: deny}
  - {match: "curl *", action: allow}
  - {match: "python3 *", action: allow}`)
	g := testGate(t, Options{Policy: current, TrustedPolicy: trusted})
	for cmd, want := range map[string]Verdict{
		"make deploy":     VerdictAllow, // both allow it
		"curl https://x":  VerdictAsk,   // allowed only by the untrusted text
		"git push origin": VerdictAsk,   // the trusted ask still counts
		"terraform apply": VerdictDeny,  // the trusted deny still counts
		"npm publish":     VerdictDeny,  // a new deny counts at once
		"./run.sh":        VerdictAsk,   // its allow was removed: that counts at once
		"python3 -c 'x'":  VerdictAsk,
		"ls":              VerdictAllow,
	} {
		if r := g.Decide(t.Context(), cmd, Input{Sandboxed: true}); r.Verdict != want {
			t.Errorf("%q: %s, want %s (%v)", cmd, r.Verdict, want, r.Reasons)
		}
	}
	var names []string
	for _, r := range UntrustedAllows(current, trusted) {
		names = append(names, r.Match)
	}
	if strings.Join(names, ",") != "curl *,python3 *" {
		t.Errorf("untrusted allows: %v", names)
	}
}
