package approval

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/trust"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cuff-dev/cuff/recorder/gate"
	"go.yaml.in/yaml/v3"
)

// PolicyFile is the name of a project's policy file in its .cuff directory.
const PolicyFile = "policy.yml"

// alwaysPlan is an "always" approval ready to be written: the exact allow
// rules and the new policy file. The project's .cuff directory stays
// locked until release, so that two approvals never lose each other's
// rules.
type alwaysPlan struct {
	path    string
	dir     string // the project's .cuff directory
	rules   []string
	content []byte
	old     []byte // the file before, nil when there was none
	items   *yaml.Node
	mode    fs.FileMode
	release func()
}

// summary is the rule_added text of the decision.
func (p *alwaysPlan) summary() string {
	if len(p.rules) == 0 {
		return ""
	}
	q := make([]string, len(p.rules))
	for i, r := range p.rules {
		q[i] = strconv.Quote(r)
	}
	return fmt.Sprintf("allow %s in %s", strings.Join(q, ", "), p.path)
}

// write puts the new policy file in place.
func (p *alwaysPlan) write() error {
	if len(p.rules) == 0 {
		return nil
	}
	tmp, err := writeTemp(filepath.Dir(p.path), p.content)
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, p.mode); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("set permissions of %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, p.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", p.path, err)
	}
	return nil
}

// planAlways works out the exact allow rules that let the request's command
// pass the gate from now on: one per simple command that the gate does not
// allow, word for word. A command that no exact rule can cover (a part that
// would read as a pattern, or a risk that lies in redirections or the
// environment rather than the words) is refused: an approval is never
// widened into a pattern.
func planAlways(r *Request, by string, now time.Time) (*alwaysPlan, error) {
	scopeErr := func(msg string) error { return &ScopeError{Scope: "always", Msg: msg} }
	if r.Command == "" {
		return nil, scopeErr("the request has no command to write a rule for")
	}
	if r.Session.Dir == "" {
		return nil, scopeErr("the request names no project")
	}
	if fi, err := os.Stat(r.Session.Dir); err != nil || !fi.IsDir() {
		return nil, scopeErr(fmt.Sprintf("the project directory %s is gone", r.Session.Dir))
	}
	release, err := lockDir(r.Session.Dir)
	if err != nil {
		return nil, err
	}
	plan, err := buildPlan(r, by, now)
	if err != nil {
		release()
		return nil, err
	}
	plan.release = release
	return plan, nil
}

func buildPlan(r *Request, by string, now time.Time) (*alwaysPlan, error) {
	scopeErr := func(msg string) error { return &ScopeError{Scope: "always", Msg: msg} }
	path := filepath.Join(r.Session.Dir, PolicyFile)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	plan := &alwaysPlan{path: path, dir: r.Session.Dir, mode: fileMode}
	data, err := os.ReadFile(path)
	plan.old = data
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", path, err)
	default:
		if fi, err := os.Stat(path); err == nil {
			plan.mode = fi.Mode().Perm()
		}
	}
	old, err := gate.ParsePolicy(path, data)
	if err != nil {
		return nil, fmt.Errorf("cannot add a rule until the policy is fixed: %w", err)
	}
	opts := gate.Options{Policy: old, Workspace: filepath.Dir(r.Session.Dir), Dir: r.WorkingDirectory}
	g, err := gate.New(opts)
	if err != nil {
		return nil, err
	}
	res := g.Classify(r.Command)
	if res.Verdict == gate.VerdictAllow {
		return plan, nil // the policy allows it already
	}
	if res.NotAlways != "" {
		return nil, scopeErr(res.NotAlways + ": no standing rule is written for that; approve it once or for this session instead")
	}
	seen := map[string]bool{}
	for _, c := range res.Commands {
		if c.Verdict == gate.VerdictAllow || len(c.Argv) == 0 {
			continue
		}
		text := strings.Join(c.Argv, " ")
		if strings.ContainsAny(text, "*?[") {
			return nil, scopeErr(fmt.Sprintf("%q contains *, ? or [, which a policy rule reads as a pattern", text))
		}
		for _, word := range c.Argv {
			// A rule is matched word by word as written: a word with a
			// space in it would match other commands too (curl -d "a b" and
			// curl -d a b read the same), so no rule is exact for it.
			if word == "" || strings.ContainsFunc(word, unicode.IsSpace) {
				return nil, scopeErr(fmt.Sprintf("the word %q of %q cannot be told apart in a rule; approve it once or for this session instead", word, text))
			}
		}
		if !seen[text] {
			seen[text] = true
			plan.rules = append(plan.rules, text)
		}
	}
	if len(plan.rules) == 0 {
		return nil, scopeErr("no rule about the command's words can allow it: " + strings.Join(res.Reasons, "; "))
	}
	reason := fmt.Sprintf("approved always by %s on %s", by, now.Local().Format(time.DateOnly))
	items := ruleItems(plan.rules, reason)
	plan.items = items
	opts.Policy = nil
	// Rules go after the existing ones, unless an earlier rule would shadow
	// them; the file's text is kept as it is where the layout allows.
	for _, edit := range []policyEdit{appendText, reencode} {
		for _, atTop := range []bool{false, true} {
			var doc yaml.Node
			if err := yaml.Unmarshal(data, &doc); err != nil {
				return nil, fmt.Errorf("read %s: %w", path, err)
			}
			out, ok := edit(data, &doc, items, atTop)
			if ok && allows(path, out, len(old.Rules)+len(plan.rules), opts, r.Command) {
				plan.content = out
				return plan, nil
			}
		}
	}
	return nil, scopeErr("exact allow rules for its parts would still not let it pass: " + strings.Join(res.Reasons, "; "))
}

// trust records the rules a person just approved "always" as trusted
// (cuff trust), so that they apply: the new file when the old one was
// trusted, else the trusted text with the same rules added, so that the
// file's other untrusted changes still wait.
func (p *alwaysPlan) trust(stateDir string, now time.Time) error {
	if len(p.rules) == 0 || stateDir == "" {
		return nil
	}
	rec := trust.Load(stateDir, p.dir)
	if rec.Matches(trust.PolicyFile, p.old, p.old != nil) || rec == nil && p.old == nil {
		return trust.Update(stateDir, p.dir, trust.PolicyFile, p.content, true, now)
	}
	text, _, _ := rec.Trusted(trust.PolicyFile)
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return fmt.Errorf("add the rule to the trusted policy: %w", err)
	}
	out, ok := appendText(text, &doc, p.items, false)
	if !ok {
		if out, ok = reencode(text, &doc, p.items, false); !ok {
			return errors.New("add the rule to the trusted policy: its text cannot take it")
		}
	}
	return trust.Update(stateDir, p.dir, trust.PolicyFile, out, true, now)
}

// allows reports whether the policy text has n rules and lets command pass
// in strict mode.
func allows(path string, content []byte, n int, opts gate.Options, command string) bool {
	p, err := gate.ParsePolicy(path, content)
	if err != nil || len(p.Rules) != n {
		return false
	}
	opts.Policy = p
	g, err := gate.New(opts)
	return err == nil && g.Classify(command).Verdict == gate.VerdictAllow
}

// ruleItems renders the rules as a YAML block sequence at column 0.
func ruleItems(rules []string, reason string) *yaml.Node {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, text := range rules {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			scalar("match", 0), scalar(text, yaml.DoubleQuotedStyle),
			scalar("action", 0), scalar("allow", 0),
			scalar("reason", 0), scalar(reason, yaml.DoubleQuotedStyle),
		}})
	}
	return seq
}

func scalar(v string, style yaml.Style) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Style: style}
}

// policyEdit adds rule items to a policy file (data, parsed as doc) at the
// end of its rules or, with atTop, before the first; ok is false when the
// edit does not apply to the file's layout.
type policyEdit func(data []byte, doc, items *yaml.Node, atTop bool) (out []byte, ok bool)

func marshalItems(items *yaml.Node, indent int) ([]byte, bool) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(items); err != nil || enc.Close() != nil {
		return nil, false
	}
	pad := strings.Repeat(" ", indent)
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		if line != "" {
			out.WriteString(pad + line)
		}
	}
	return out.Bytes(), true
}

// appendText adds the items to the file's text, keeping every byte that is
// there: after the last rule when rules is the last key, or before the
// first rule when atTop; a file with no rules gets a rules key.
func appendText(data []byte, doc, items *yaml.Node, atTop bool) ([]byte, bool) {
	withNL := func(b []byte) []byte {
		out := append([]byte(nil), b...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return out
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].Tag == "!!null" {
		block, ok := marshalItems(items, 2)
		return append(append(withNL(data), "rules:\n"...), block...), ok
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 {
		return nil, false
	}
	var rules *yaml.Node
	last := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "rules" {
			rules, last = root.Content[i+1], i+2 == len(root.Content)
		}
	}
	switch {
	case rules == nil:
		if root.Column != 1 {
			return nil, false
		}
		block, ok := marshalItems(items, 2)
		return append(append(withNL(data), "rules:\n"...), block...), ok
	case rules.Kind != yaml.SequenceNode || rules.Style&yaml.FlowStyle != 0 || len(rules.Content) == 0:
		if rules.Kind == yaml.ScalarNode && rules.Value == "" && last && !atTop {
			block, ok := marshalItems(items, 2) // "rules:" with nothing after it
			return append(withNL(data), block...), ok
		}
		return nil, false
	}
	block, ok := marshalItems(items, rules.Column-1)
	if !ok {
		return nil, false
	}
	if !atTop {
		if !last {
			return nil, false
		}
		return append(withNL(data), block...), true
	}
	lines := strings.SplitAfter(string(data), "\n")
	at := rules.Line - 1
	if at <= 0 || at >= len(lines) {
		return nil, false
	}
	// Above the comment that introduces the first rule, not between them.
	for at > 1 && strings.HasPrefix(strings.TrimSpace(lines[at-1]), "#") {
		at--
	}
	out := strings.Join(lines[:at], "") + string(block) + strings.Join(lines[at:], "")
	return []byte(out), true
}

// reencode adds the items to the parsed document and writes it anew; the
// layout may change, comments mostly stay.
func reencode(_ []byte, doc, items *yaml.Node, atTop bool) ([]byte, bool) {
	if len(doc.Content) == 0 {
		doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		root = &yaml.Node{Kind: yaml.MappingNode}
		doc.Content[0] = root
	}
	if root.Kind != yaml.MappingNode {
		return nil, false
	}
	root.Style = 0
	var rules *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "rules" {
			rules = root.Content[i+1]
		}
	}
	if rules == nil {
		rules = &yaml.Node{Kind: yaml.SequenceNode}
		root.Content = append(root.Content, scalar("rules", 0), rules)
	}
	if rules.Kind == yaml.ScalarNode && rules.Tag == "!!null" {
		*rules = yaml.Node{Kind: yaml.SequenceNode}
	}
	if rules.Kind != yaml.SequenceNode {
		return nil, false
	}
	rules.Style = 0
	if atTop {
		rules.Content = append(append([]*yaml.Node(nil), items.Content...), rules.Content...)
	} else {
		rules.Content = append(rules.Content, items.Content...)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil || enc.Close() != nil {
		return nil, false
	}
	return buf.Bytes(), true
}
