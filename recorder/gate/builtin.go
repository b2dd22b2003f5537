package gate

import (
	"encoding/json"
	"fmt"

	policyasset "github.com/cuff-dev/cuff/assets/policy"
)

// BuiltinPolicyName names the built-in policy in rule sources.
const BuiltinPolicyName = "built-in policy"

// builtinRule is a built-in rule as stored pre-parsed: its examples are
// checked by the tests against default.yml, not at every start.
type builtinRule struct {
	Match  string `json:"match"`
	Action Action `json:"action"`
	Reason string `json:"reason,omitempty"`
	Source string `json:"source"`
}

// MarshalBuiltin encodes a policy's rules in the pre-parsed form that
// builtinPolicy loads (one rule a line, for readable diffs).
func MarshalBuiltin(p *Policy) ([]byte, error) {
	out := []byte("[\n")
	for i, r := range p.Rules {
		line, err := json.Marshal(builtinRule{Match: r.Match, Action: r.Action, Reason: r.Reason, Source: r.Source})
		if err != nil {
			return nil, err
		}
		out = append(out, line...)
		if i < len(p.Rules)-1 {
			out = append(out, ',')
		}
		out = append(out, '\n')
	}
	return append(out, "]\n"...), nil
}

// builtinPolicy loads the built-in policy from its pre-parsed form, which
// costs a fraction of parsing the YAML it was made from.
func builtinPolicy() (*Policy, error) {
	var stored []builtinRule
	if err := json.Unmarshal(policyasset.DefaultRules(), &stored); err != nil {
		return nil, fmt.Errorf("load built-in policy: %w", err)
	}
	rules := make([]Rule, len(stored))
	for i, r := range stored {
		rules[i] = Rule{Match: r.Match, Action: r.Action, Reason: r.Reason, Source: r.Source}
	}
	return NewPolicy(BuiltinPolicyName, rules)
}
