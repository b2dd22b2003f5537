package gate

import (
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/regular"
	"io/fs"
	"strings"
)

// Action is what a policy rule does with the commands it matches.
type Action uint8

// Rule actions.
const (
	ActionAllow Action = iota + 1
	ActionAsk
	ActionDeny
)

func (a Action) String() string {
	switch a {
	case ActionAllow:
		return "allow"
	case ActionAsk:
		return "ask"
	case ActionDeny:
		return "deny"
	}
	return fmt.Sprintf("action(%d)", a)
}

// ParseAction reads an action name.
func ParseAction(s string) (Action, error) {
	switch s {
	case "allow":
		return ActionAllow, nil
	case "ask":
		return ActionAsk, nil
	case "deny":
		return ActionDeny, nil
	}
	return 0, fmt.Errorf("action %q is not allow, ask or deny", s)
}

// MarshalText writes the action's name.
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads an action name.
func (a *Action) UnmarshalText(b []byte) error {
	v, err := ParseAction(string(b))
	*a = v
	return err
}

func (a Action) tier() Tier {
	switch a {
	case ActionAllow:
		return TierAllowRule
	case ActionAsk:
		return TierAskRule
	}
	return TierDenyRule
}

// matchKind is how a rule's pattern matches.
type matchKind uint8

const (
	matchExact  matchKind = iota // the whole command, word for word
	matchPrefix                  // "git diff *": these words, then any arguments
	matchGlob                    // * and ? anywhere, [..] classes
)

// Rule is one policy rule. A rule is ready to match once it is part of a
// Policy (NewPolicy, ParsePolicy).
type Rule struct {
	// Match is an exact command, or a pattern where * matches any text; a
	// trailing " *" also matches no arguments at all.
	Match    string   `json:"match"`
	Action   Action   `json:"action"`
	Reason   string   `json:"reason,omitempty"`
	Examples []string `json:"examples,omitempty"`
	// Source is where the rule was written, as "file:line".
	Source string `json:"source,omitempty"`

	kind    matchKind
	pattern string // the match text with spaces normalised
	prefix  string // for matchPrefix, the words before " *"
	first   string // the first word, when it has no pattern characters
	label   string // Label, computed once
}

// Policy is an ordered list of rules: the first rule that matches a simple
// command decides it.
type Policy struct {
	// Name is the file the policy came from.
	Name  string `json:"name"`
	Rules []Rule `json:"rules"`
	// byFirst indexes the rules by their literal first word; wild lists
	// the rules whose first word is a pattern. Both hold rule indexes in
	// order.
	byFirst map[string][]int
	wild    []int
}

// NewPolicy builds a policy from rules in order, checking each pattern.
func NewPolicy(name string, rules []Rule) (*Policy, error) {
	p := &Policy{Name: name, byFirst: map[string][]int{}}
	for i, r := range rules {
		if err := r.compile(); err != nil {
			return nil, fmt.Errorf("%s: rule %d: %w", name, i+1, err)
		}
		p.Rules = append(p.Rules, r)
		if r.first != "" {
			p.byFirst[r.first] = append(p.byFirst[r.first], i)
		} else {
			p.wild = append(p.wild, i)
		}
	}
	return p, nil
}

// maxPolicyBytes bounds what is read of a policy file.
const maxPolicyBytes = 4 << 20

// LoadPolicy reads a policy file. A file that does not exist is an empty
// policy.
func LoadPolicy(path string) (*Policy, error) {
	data, err := regular.Read(path, "policy file", maxPolicyBytes, true)
	if errors.Is(err, fs.ErrNotExist) {
		return NewPolicy(path, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("read policy %s: %w", path, err)
	}
	return ParsePolicy(path, data)
}

func (r *Rule) compile() error {
	r.pattern = strings.Join(strings.Fields(r.Match), " ")
	if r.pattern == "" {
		return errors.New("match is empty: give a command such as \"git status\" or a pattern such as \"git diff *\"")
	}
	if r.Action < ActionAllow || r.Action > ActionDeny {
		return errors.New("action must be allow, ask or deny")
	}
	switch {
	case !hasMeta(r.pattern):
		r.kind = matchExact
	case strings.HasSuffix(r.pattern, " *") && !hasMeta(r.pattern[:len(r.pattern)-2]):
		r.kind, r.prefix = matchPrefix, r.pattern[:len(r.pattern)-2]
	default:
		r.kind = matchGlob
	}
	if f, _, _ := strings.Cut(r.pattern, " "); !hasMeta(f) {
		r.first = f
	}
	r.label = r.Match
	if r.Source != "" {
		r.label += " (" + r.Source + ")"
	}
	return nil
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// Matches reports whether the rule matches the text of one simple command
// (its words joined by single spaces).
func (r *Rule) Matches(text string) bool {
	switch r.kind {
	case matchExact:
		return text == r.pattern
	case matchPrefix:
		return text == r.prefix || len(text) > len(r.prefix) && text[len(r.prefix)] == ' ' && strings.HasPrefix(text, r.prefix)
	}
	if globMatch(r.pattern, text) {
		return true
	}
	return strings.HasSuffix(r.pattern, " *") && globMatch(r.pattern[:len(r.pattern)-2], text)
}

// Label names the rule for explanations: its pattern and where it is.
func (r *Rule) Label() string { return r.label }

// Describe is the reason a rule gives for its decision.
func (r *Rule) Describe() string {
	// Made when a rule decides (a few a line), not for each of the
	// built-in policy's rules at every start of the hook.
	desc := fmt.Sprintf("rule %q (%s) says %s", r.pattern, r.Source, r.Action)
	if r.Reason != "" {
		desc += ": " + r.Reason
	}
	return desc
}

// Match returns the first rule that matches text, or nil.
func (p *Policy) Match(text string) *Rule {
	if p == nil || len(p.Rules) == 0 {
		return nil
	}
	first, _, _ := strings.Cut(text, " ")
	named := p.byFirst[first]
	i, j := 0, 0
	for i < len(named) || j < len(p.wild) {
		var k int
		if j >= len(p.wild) || i < len(named) && named[i] < p.wild[j] {
			k = named[i]
			i++
		} else {
			k = p.wild[j]
			j++
		}
		if p.Rules[k].Matches(text) {
			return &p.Rules[k]
		}
	}
	return nil
}

// projectRule is the project rule that decides a command: with a trusted
// version of the policy beside an untrusted one, a deny of either wins, then
// an ask of either, and an allow only when both versions allow.
func (g *Gate) projectRule(text string) *Rule {
	r := g.policy.Match(text)
	if g.trusted == nil {
		return r
	}
	t := g.trusted.Match(text)
	switch {
	case r != nil && r.Action == ActionDeny:
		return r
	case t != nil && t.Action == ActionDeny:
		return t
	case r != nil && r.Action == ActionAsk:
		return r
	case t != nil && t.Action == ActionAsk:
		return t
	case r != nil && t != nil:
		return r
	}
	return nil
}

// UntrustedAllows lists the allow rules of p that the trusted version has
// not: those that wait for a person to trust the file.
func UntrustedAllows(p, trusted *Policy) []Rule {
	var out []Rule
	if p == nil {
		return nil
	}
	for _, r := range p.Rules {
		if r.Action != ActionAllow {
			continue
		}
		found := false
		if trusted != nil {
			for _, t := range trusted.Rules {
				if t.Action == ActionAllow && t.pattern == r.pattern {
					found = true
					break
				}
			}
		}
		if !found {
			out = append(out, r)
		}
	}
	return out
}

// globMatch matches text against a pattern where * is any run of
// characters, ? one character and [...] a class, as in path.Match but with
// no special meaning for '/'.
func globMatch(pattern, text string) bool {
	p, t := 0, 0
	star, mark := -1, 0
	for t < len(text) {
		if p < len(pattern) {
			switch c := pattern[p]; c {
			case '*':
				star, mark = p, t
				p++
				continue
			case '?':
				p++
				t++
				continue
			case '[':
				if n, ok := matchClass(pattern[p:], text[t]); n > 0 {
					if ok {
						p += n
						t++
						continue
					}
				} else if text[t] == '[' {
					p++
					t++
					continue
				}
			default:
				if c == text[t] {
					p++
					t++
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		p, mark = star+1, mark+1
		t = mark
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchClass matches one byte against a [...] class at the start of
// pattern; n is the class's length, 0 when it is not a valid class.
func matchClass(pattern string, b byte) (n int, ok bool) {
	end := strings.IndexByte(pattern[1:], ']')
	if end < 1 {
		return 0, false
	}
	class := pattern[1 : end+1]
	neg := class[0] == '!' || class[0] == '^'
	if neg {
		class = class[1:]
	}
	in := false
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			if class[i] <= b && b <= class[i+2] {
				in = true
			}
			i += 2
			continue
		}
		if class[i] == b {
			in = true
		}
	}
	return end + 2, in != neg
}
