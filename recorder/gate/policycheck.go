package gate

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Problem is something wrong with a policy that does not stop it loading:
// an example its rule does not match, or a rule that an earlier one hides.
type Problem struct {
	// Rule is the 1-based position of the rule in the file.
	Rule   int    `json:"rule"`
	Source string `json:"source"`
	Match  string `json:"match"`
	// Kind is "example" (an example the rule does not match), "unreached"
	// (an example that an earlier rule decides) or "shadowed" (a rule that
	// never decides anything).
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

func (p Problem) String() string { return p.Source + ": " + p.Message }

// CheckPolicy reports rules whose examples they do not match, examples
// decided by an earlier rule, and rules that an earlier rule shadows.
func CheckPolicy(p *Policy) []Problem {
	if p == nil {
		return nil
	}
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	var out []Problem
	for j := range p.Rules {
		r := &p.Rules[j]
		add := func(kind, msg string) {
			out = append(out, Problem{Rule: j + 1, Source: r.Source, Match: r.Match, Kind: kind, Message: msg})
		}
		if i, ok := shadowedBy(p, j); ok {
			e := &p.Rules[i]
			add("shadowed", fmt.Sprintf("rule %q never decides anything: rule %q (%s) comes first and matches every command it does", r.Match, e.Match, e.Source))
		}
		for _, ex := range r.Examples {
			texts, err := exampleTexts(parser, ex)
			if err != nil {
				add("example", fmt.Sprintf("example %q of rule %q does not parse: %v", ex, r.Match, err))
				continue
			}
			for _, t := range texts {
				if !r.Matches(t) {
					add("example", fmt.Sprintf("example %q does not match rule %q: fix the example or the pattern", ex, r.Match))
					break
				}
				if first := p.Match(t); first != nil && first != r {
					add("unreached", fmt.Sprintf("example %q is decided by rule %q (%s), which comes first", ex, first.Match, first.Source))
					break
				}
			}
		}
	}
	return out
}

// exampleTexts parses an example command line into the texts its simple
// commands are matched by.
func exampleTexts(parser *syntax.Parser, ex string) ([]string, error) {
	f, err := parser.Parse(strings.NewReader(ex), "")
	if err != nil {
		return nil, err
	}
	var texts []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			argv := words(ex, c.Args)
			name, trusted := progName(argv[0].val)
			texts = append(texts, ruleText(argv, name, trusted))
		}
		return true
	})
	if len(texts) == 0 {
		return nil, fmt.Errorf("no command in it")
	}
	return texts, nil
}

// shadowedBy finds an earlier rule that matches everything rule j matches.
func shadowedBy(p *Policy, j int) (int, bool) {
	r := &p.Rules[j]
	for i := 0; i < j; i++ {
		if covers(&p.Rules[i], r) {
			return i, true
		}
	}
	return 0, false
}

// covers reports whether rule a matches every command that rule b does.
func covers(a, b *Rule) bool {
	switch b.kind {
	case matchExact:
		return a.Matches(b.pattern)
	case matchPrefix:
		switch a.kind {
		case matchExact:
			return false
		case matchPrefix:
			return b.prefix == a.prefix || strings.HasPrefix(b.prefix, a.prefix+" ")
		}
		// A glob ending in * that matches the prefix matches its extensions.
		return strings.HasSuffix(a.pattern, "*") && a.Matches(b.prefix) && a.Matches(b.prefix+" x")
	}
	// b is a glob: a covers it when a is a broader prefix or the same glob.
	switch a.kind {
	case matchPrefix:
		lit := b.pattern
		if k := strings.IndexAny(lit, "*?["); k >= 0 {
			lit = lit[:k]
		}
		return lit == a.prefix+" " || strings.HasPrefix(lit, a.prefix+" ")
	case matchGlob:
		return a.pattern == b.pattern || a.pattern == "*"
	}
	return false
}
