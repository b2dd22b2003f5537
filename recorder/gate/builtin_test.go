package gate

import (
	"bytes"
	"testing"

	policyasset "github.com/cuff-dev/cuff/assets/policy"
)

// TestBuiltinRulesMatchTheYAML keeps the pre-parsed built-in policy in step
// with default.yml, examples checked.
func TestBuiltinRulesMatchTheYAML(t *testing.T) {
	p, err := ParsePolicy(BuiltinPolicyName, policyasset.Default())
	if err != nil {
		t.Fatal(err)
	}
	want, err := MarshalBuiltin(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, policyasset.DefaultRules()) {
		t.Fatal("assets/policy/default.json is out of date: run go run ./assets/policy/internal/gen > assets/policy/default.json")
	}
	b, err := builtinPolicy()
	if err != nil || len(b.Rules) != len(p.Rules) {
		t.Fatalf("loaded %d rules (%v), want %d", len(b.Rules), err, len(p.Rules))
	}
	for _, probs := range CheckPolicy(p) {
		t.Errorf("built-in policy: %s", probs)
	}
}

func BenchmarkNewGate(b *testing.B) {
	for b.Loop() {
		if _, err := New(Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
