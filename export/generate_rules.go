package export

import (
	"context"
	"fmt"
	"sort"

	"github.com/cuff-dev/cuff/recorder/gate"
)

// actionAllow is the action of every generated rule: the commands were run.
const actionAllow = "allow"

// maxVerifyRounds bounds the rounds of dropping rules the gate disagrees
// with; one round normally finds them all.
const maxVerifyRounds = 3

// family is a pattern candidate: a tool family and the commands in it.
type family struct {
	prefix  string
	members []*candidate
}

// patterns groups each tool family that has several variants, enough runs
// and nothing risky into one pattern rule.
func (gen *generator) patterns() []GeneratedRule {
	byPrefix := map[string]*family{}
	var fams []*family
	tainted := map[string]bool{}
	for _, c := range gen.order {
		if c.family == "" {
			continue
		}
		if c.risky != "" {
			tainted[c.family] = true
			continue
		}
		f := byPrefix[c.family]
		if f == nil {
			f = &family{prefix: c.family}
			byPrefix[c.family] = f
			fams = append(fams, f)
		}
		f.members = append(f.members, c)
	}
	var chosen []*family
	for _, f := range fams {
		variants, total := 0, int64(0)
		for _, c := range f.members {
			total += c.count
			if c.standalone > 0 {
				variants++
			}
		}
		if !tainted[f.prefix] && variants >= 2 && total >= gen.opts.MinFrequency {
			chosen = append(chosen, f)
		}
	}
	chosen = gen.notCoveringRisky(chosen)
	rules := make([]GeneratedRule, 0, len(chosen))
	for _, f := range chosen {
		rules = append(rules, gen.patternRule(f))
	}
	return rules
}

// notCoveringRisky drops every family whose pattern would match a risky
// command that was recorded: the guarantee that a pattern never widens a
// risky command, checked with the gate's own matcher.
func (gen *generator) notCoveringRisky(fams []*family) []*family {
	for {
		rules := make([]gate.Rule, len(fams))
		for i, f := range fams {
			rules[i] = gate.Rule{Match: f.prefix + " *", Action: gate.ActionAllow}
		}
		pol, err := gate.NewPolicy("patterns", rules)
		if err != nil { // a prefix that is not a valid pattern: keep no pattern at all
			return nil
		}
		drop := -1
		for _, c := range gen.order {
			if c.risky == "" {
				continue
			}
			if r := pol.Match(c.text); r != nil {
				for i := range pol.Rules {
					if &pol.Rules[i] == r {
						drop = i
					}
				}
				break
			}
		}
		if drop < 0 {
			return fams
		}
		fams = append(fams[:drop:drop], fams[drop+1:]...)
	}
}

func (gen *generator) patternRule(f *family) GeneratedRule {
	var total int64
	sessions := map[int]struct{}{}
	members := append([]*candidate(nil), f.members...)
	sort.SliceStable(members, func(i, j int) bool { return members[i].count > members[j].count })
	var examples []string
	for _, c := range members {
		c.done = true
		total += c.count
		for s := range c.sessions {
			sessions[s] = struct{}{}
		}
		if len(examples) < maxExamples {
			examples = append(examples, topExample(c))
		}
	}
	return GeneratedRule{
		Match: f.prefix + " *", Action: actionAllow, Frequency: total, Examples: examples,
		Reason:  fmt.Sprintf("recorded %s in %s, %s", times(total), plural(len(sessions), "session"), plural(len(members), "variant")),
		Group:   members[0].argv[0],
		Pattern: true,
	}
}

// exacts writes a rule for every candidate no pattern covers that ran often
// enough.
func (gen *generator) exacts() []GeneratedRule {
	var rules []GeneratedRule
	for _, c := range gen.order {
		if c.done || c.count < gen.opts.MinFrequency {
			continue
		}
		if r, ok := gen.exactRule(c); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

func (gen *generator) exactRule(c *candidate) (GeneratedRule, bool) {
	c.done = true
	if !c.exact {
		gen.skip(c.text, c.count, "a word in it holds white space or one of * ? [, which a rule cannot match exactly")
		return GeneratedRule{}, false
	}
	reason := fmt.Sprintf("recorded %s in %s", times(c.count), plural(len(c.sessions), "session"))
	if c.risky != "" {
		reason += "; kept exact: " + c.risky
	}
	return GeneratedRule{Match: c.text, Action: actionAllow, Reason: reason, Examples: []string{topExample(c)},
		Frequency: c.count, Group: c.argv[0]}, true
}

// topExample is the most frequent way a candidate was written.
func topExample(c *candidate) string {
	best, n := c.text, int64(-1)
	for e, k := range c.examples {
		if k > n || k == n && e < best {
			best, n = e, k
		}
	}
	return best
}

// review asks the cop about every rule: a flagged pattern is replaced by
// exact rules for its commands (each reviewed in turn), a flagged command
// is left out. A cop that fails stops generation: a policy nobody could
// review is not written.
func (gen *generator) review(ctx context.Context, rules []GeneratedRule) ([]GeneratedRule, error) {
	members := map[string][]*candidate{}
	for _, c := range gen.order {
		if c.family != "" && c.done && c.risky == "" {
			members[c.family+" *"] = append(members[c.family+" *"], c)
		}
	}
	var out []GeneratedRule
	for i := 0; i < len(rules); i++ {
		r := rules[i]
		subject := r.Match
		if !r.Pattern && len(r.Examples) > 0 {
			subject = r.Examples[0]
		}
		v, err := gen.opts.Cop.Inspect(ctx, gate.CopRequest{Command: subject, Taint: []string{}, WorkingDirectory: gen.opts.Gate.Workspace})
		if err != nil {
			return nil, fmt.Errorf("review rule %q: %w", r.Match, err)
		}
		switch {
		case !v.Flagged:
			out = append(out, r)
		case r.Pattern:
			for _, c := range members[r.Match] {
				if c.count < gen.opts.MinFrequency {
					continue
				}
				if er, ok := gen.exactRule(c); ok {
					rules = append(rules, er)
				}
			}
		default:
			gen.skip(subject, r.Frequency, "the cop flagged it: %s", v.Reason)
		}
	}
	return out, nil
}

// verify loads the rules into the gate and drops any whose examples the
// gate would not match to it, so that the file loads cleanly and every rule
// does what its examples say.
func (gen *generator) verify(rules []GeneratedRule) ([]GeneratedRule, error) {
	for round := 0; round < maxVerifyRounds; round++ {
		grs := make([]gate.Rule, len(rules))
		for i, r := range rules {
			grs[i] = gate.Rule{Match: r.Match, Action: gate.ActionAllow, Examples: r.Examples}
		}
		pol, err := gate.NewPolicy("generated policy", grs)
		if err != nil {
			return nil, fmt.Errorf("check generated rules: %w", err)
		}
		problems := gate.CheckPolicy(pol)
		if len(problems) == 0 {
			return rules, nil
		}
		drop := map[int]bool{}
		for _, p := range problems {
			if i := p.Rule - 1; i >= 0 && i < len(rules) && !drop[i] {
				drop[i] = true
				gen.skip(rules[i].Match, rules[i].Frequency, "the gate would not match it as proposed: %s", p.Message)
			}
		}
		kept := rules[:0:0]
		for i, r := range rules {
			if !drop[i] {
				kept = append(kept, r)
			}
		}
		rules = kept
	}
	return nil, fmt.Errorf("generated rules still disagree with the gate after %d rounds", maxVerifyRounds)
}

// orderRules groups the rules by program, busiest program first, and sorts
// each group by frequency.
func orderRules(rules []GeneratedRule) []GeneratedRule {
	totals := map[string]int64{}
	for _, r := range rules {
		totals[r.Group] += r.Frequency
	}
	out := append([]GeneratedRule{}, rules...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case totals[a.Group] != totals[b.Group]:
			return totals[a.Group] > totals[b.Group]
		case a.Group != b.Group:
			return a.Group < b.Group
		case a.Frequency != b.Frequency:
			return a.Frequency > b.Frequency
		}
		return a.Match < b.Match
	})
	return out
}

// times writes a count of runs: "once", "2 times".
func times(n int64) string {
	if n == 1 {
		return "once"
	}
	return GroupDigits(n) + " times"
}
