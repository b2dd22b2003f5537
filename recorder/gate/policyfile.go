package gate

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// PolicyError is a mistake in a policy file, with its place.
type PolicyError struct {
	File string
	Line int
	Msg  string
}

func (e *PolicyError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// ParsePolicy reads policy YAML:
//
//	rules:
//	  - match: "git push *"
//	    action: ask
//	    reason: "pushing publishes work"
//	    examples: ["git push origin main"]
//
// name is used in error messages and rule sources. Mistakes are reported as
// a *PolicyError naming the line and what was expected.
func ParsePolicy(name string, data []byte) (*Policy, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &PolicyError{File: name, Line: yamlErrLine(err), Msg: "not valid YAML: " + err.Error()}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return NewPolicy(name, nil)
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return NewPolicy(name, nil)
	}
	if root.Kind != yaml.MappingNode {
		return nil, perr(name, root, "expected a mapping with a \"rules\" list at the top")
	}
	var rules []Rule
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "rules":
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				continue
			}
			if v.Kind != yaml.SequenceNode {
				return nil, perr(name, v, "\"rules\" must be a list of rules (each with match and action)")
			}
			for _, rn := range v.Content {
				r, err := parseRule(name, rn)
				if err != nil {
					return nil, err
				}
				rules = append(rules, r)
			}
		case "version":
		default:
			return nil, perr(name, k, fmt.Sprintf("unknown key %q at the top (expected rules)", k.Value))
		}
	}
	p, err := NewPolicy(name, rules)
	if err != nil {
		return nil, &PolicyError{File: name, Msg: err.Error()}
	}
	return p, nil
}

func parseRule(file string, n *yaml.Node) (Rule, error) {
	r := Rule{Source: file + ":" + strconv.Itoa(n.Line)}
	if n.Kind != yaml.MappingNode {
		return r, perr(file, n, "a rule must be a mapping with match and action, such as {match: \"git status\", action: allow}")
	}
	var haveMatch, haveAction bool
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "match":
			if v.Kind != yaml.ScalarNode || strings.TrimSpace(v.Value) == "" {
				return r, perr(file, v, "match must be a non-empty string: a command, or a pattern such as \"git diff *\"")
			}
			r.Match, haveMatch = v.Value, true
		case "action":
			a, err := ParseAction(v.Value)
			if err != nil || v.Kind != yaml.ScalarNode {
				return r, perr(file, v, fmt.Sprintf("action must be allow, ask or deny, not %q", v.Value))
			}
			r.Action, haveAction = a, true
		case "reason":
			if v.Kind != yaml.ScalarNode {
				return r, perr(file, v, "reason must be a string")
			}
			r.Reason = v.Value
		case "examples":
			switch v.Kind {
			case yaml.ScalarNode:
				r.Examples = append(r.Examples, v.Value)
			case yaml.SequenceNode:
				for _, e := range v.Content {
					if e.Kind != yaml.ScalarNode {
						return r, perr(file, e, "each example must be a command string")
					}
					r.Examples = append(r.Examples, e.Value)
				}
			default:
				return r, perr(file, v, "examples must be a list of command strings")
			}
		case "frequency":
			if _, err := strconv.ParseFloat(v.Value, 64); err != nil || v.Kind != yaml.ScalarNode {
				return r, perr(file, v, "frequency must be a number")
			}
		default:
			return r, perr(file, k, fmt.Sprintf("unknown key %q in a rule (expected match, action, reason, examples)", k.Value))
		}
	}
	if !haveMatch {
		return r, perr(file, n, "rule has no match: add match: \"<command or pattern>\"")
	}
	if !haveAction {
		return r, perr(file, n, "rule has no action: add action: allow, ask or deny")
	}
	if err := r.compile(); err != nil {
		return r, perr(file, n, err.Error())
	}
	return r, nil
}

func perr(file string, n *yaml.Node, msg string) *PolicyError {
	return &PolicyError{File: file, Line: n.Line, Msg: msg}
}

// yamlErrLine extracts the line number from a yaml.v3 syntax error.
func yamlErrLine(err error) int {
	s := err.Error()
	i := strings.Index(s, "line ")
	if i < 0 {
		return 0
	}
	s = s[i+len("line "):]
	j := 0
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, _ := strconv.Atoi(s[:j])
	return n
}
