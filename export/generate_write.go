package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cuff-dev/cuff/recorder/gate"
	"go.yaml.in/yaml/v3"
)

// yamlIndent is the indentation of the YAML policy file.
const yamlIndent = 2

// WriteYAML writes the policy in the .cuff/policy.yml format, ready for the
// gate to load: a comment header saying where it came from, then the rules,
// grouped by program with a comment line per group, each with match,
// action, reason, examples and frequency.
func (p *GeneratedPolicy) WriteYAML(w io.Writer) error {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	group := ""
	for i, r := range p.Rules {
		item := ruleNode(r)
		if i == 0 || r.Group != group {
			group = r.Group
			n, total := 0, int64(0)
			for _, o := range p.Rules[i:] {
				if o.Group != group {
					break
				}
				n++
				total += o.Frequency
			}
			item.HeadComment = fmt.Sprintf("%s: %s, %s", oneLine(group, 0), plural(n, "rule"), plural(int(total), "run"))
		}
		seq.Content = append(seq.Content, item)
	}
	if len(seq.Content) == 0 {
		seq.Style = yaml.FlowStyle
	}
	root := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{strNode("rules", 0), seq}}
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: p.header(), Content: []*yaml.Node{root}}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(yamlIndent)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write policy: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("write policy: %w", err)
	}
	return nil
}

func ruleNode(r GeneratedRule) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k string, v *yaml.Node) { m.Content = append(m.Content, strNode(k, 0), v) }
	add("match", strNode(r.Match, yaml.DoubleQuotedStyle))
	add("action", strNode(r.Action, 0))
	if r.Reason != "" {
		add("reason", strNode(r.Reason, yaml.DoubleQuotedStyle))
	}
	if len(r.Examples) > 0 {
		ex := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, e := range r.Examples {
			ex.Content = append(ex.Content, strNode(e, yaml.DoubleQuotedStyle))
		}
		add("examples", ex)
	}
	add("frequency", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(r.Frequency, 10)})
	return m
}

func strNode(s string, style yaml.Style) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: style}
}

func (p *GeneratedPolicy) header() string {
	lines := []string{
		"Auto-generated policy from recordings (cuff record generate)",
		"Generated: " + p.Generated.Format("2006-01-02T15:04:05Z"),
		fmt.Sprintf("Strategy: %s, minimum frequency %d", p.Strategy, p.MinFrequency),
		"Source sessions: " + GroupDigits(int64(p.Sessions)),
		fmt.Sprintf("Commands analyzed: %s (%s distinct)", GroupDigits(p.Runs), GroupDigits(int64(p.Distinct))),
		"Every rule allows what it matches before the gate's own checks: review it,",
		"then try it with 'cuff record generate --dry-run' and 'cuff policy check'.",
	}
	return strings.Join(lines, "\n")
}

// WriteJSON writes the policy as JSON, {"rules": [...]}: the same rules as
// the YAML file, in a form the gate also loads (JSON is YAML).
func (p *GeneratedPolicy) WriteJSON(w io.Writer) error {
	rules := p.Rules
	if rules == nil {
		rules = []GeneratedRule{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Rules []GeneratedRule `json:"rules"`
	}{rules}); err != nil {
		return fmt.Errorf("write policy: %w", err)
	}
	return nil
}

// GatePolicy is the policy as the gate holds it, for replaying commands.
func (p *GeneratedPolicy) GatePolicy() (*gate.Policy, error) {
	rules := make([]gate.Rule, len(p.Rules))
	for i, r := range p.Rules {
		a, err := gate.ParseAction(r.Action)
		if err != nil {
			return nil, fmt.Errorf("rule %q: %w", r.Match, err)
		}
		rules[i] = gate.Rule{Match: r.Match, Action: a, Reason: r.Reason, Examples: r.Examples, Source: "generated"}
	}
	return gate.NewPolicy("generated policy", rules)
}

// WriteSummary tells a person what generation did: rules written, commands
// skipped and why.
func (p *GeneratedPolicy) WriteSummary(w io.Writer) error {
	patterns := 0
	for _, r := range p.Rules {
		if r.Pattern {
			patterns++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d patterns) from %s of %s in %s.\n", plural(len(p.Rules), "rule"), patterns,
		plural(int(p.Runs), "run"), plural(p.Distinct, "distinct command"), plural(p.Sessions, "session"))
	if p.Rare > 0 {
		fmt.Fprintf(&b, "%s ran fewer than %d times and got no rule (--min-frequency).\n", plural(p.Rare, "command"), p.MinFrequency)
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintf(&b, "%s got no rule:\n", plural(len(p.Skipped), "command"))
		for i, s := range p.Skipped {
			if i == maxListed {
				fmt.Fprintf(&b, "  … and %d more\n", len(p.Skipped)-maxListed)
				break
			}
			fmt.Fprintf(&b, "  %s (%s): %s\n", oneLine(s.Command, headingCommandLength), times(s.Count), oneLine(s.Reason, 0))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// maxListed bounds the commands a summary lists one by one.
const maxListed = 20
