package export

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/recorder/gate"
)

// Strategy is how recorded commands become policy rules.
type Strategy string

// Generation strategies.
const (
	// StrategyExact writes one rule per distinct command.
	StrategyExact Strategy = "exact"
	// StrategyPattern groups the commands of one tool family ("git diff",
	// "npm run", "ls") into a pattern such as "git diff *" when the family
	// holds several variants and nothing risky.
	StrategyPattern Strategy = "pattern"
	// StrategySemantic is the pattern strategy with every rule reviewed by
	// the cop command: a flagged pattern falls back to exact rules, a
	// flagged command is left out.
	StrategySemantic Strategy = "semantic"
)

// DefaultMinFrequency is how often a command must have run to get a rule.
const DefaultMinFrequency = 2

// maxExamples bounds the examples kept with one rule.
const maxExamples = 3

// ParseStrategy reads a strategy name.
func ParseStrategy(s string) (Strategy, error) {
	switch st := Strategy(s); st {
	case StrategyExact, StrategyPattern, StrategySemantic:
		return st, nil
	}
	return "", fmt.Errorf("unknown strategy %q: expected exact, pattern or semantic", s)
}

// NeedsCopError is returned for the semantic strategy when no cop command is
// configured.
type NeedsCopError struct{}

func (NeedsCopError) Error() string {
	return "the semantic strategy needs a cop command to review the rules, and none is configured"
}

// Hint tells the user the way out.
func (NeedsCopError) Hint() string {
	return `Hint: Set gate.cop.command in .cuff/settings.yml to a command that reads {"type": "security:bash_check", "command": "..."} on stdin and answers {"flagged": false, "reason": "..."}, or use --strategy pattern`
}

// GenerateOptions configures Generate.
type GenerateOptions struct {
	Strategy Strategy
	// MinFrequency is how often a rule's commands must have run; 0 means
	// DefaultMinFrequency.
	MinFrequency int64
	// Gate configures the classifier that tells risky commands apart
	// (workspace, home, mode). Its Policy is ignored: commands are judged
	// by the built-in rules and the classifier alone.
	Gate gate.Options
	// Classifier, when set, is used instead of a gate built from Gate; it
	// must have no project policy.
	Classifier *gate.Gate
	// Cop reviews the rules of the semantic strategy.
	Cop gate.Cop
	// Now stamps the policy; zero means time.Now().
	Now time.Time
}

// GeneratedPolicy is a proposed .cuff/policy.yml with how it came about.
type GeneratedPolicy struct {
	Generated    time.Time
	Strategy     Strategy
	MinFrequency int64
	Sessions     int
	Runs         int64
	Distinct     int
	Rules        []GeneratedRule
	// Skipped lists commands that ran often enough but got no rule, with
	// the reason; Rare counts the commands that ran too rarely.
	Skipped []SkippedCommand
	Rare    int
}

// GeneratedRule is one rule in the policy file's format, with how often its
// commands ran.
type GeneratedRule struct {
	Match     string   `json:"match"`
	Action    string   `json:"action"`
	Reason    string   `json:"reason,omitempty"`
	Examples  []string `json:"examples,omitempty"`
	Frequency int64    `json:"frequency"`
	// Group is the program the rule is about, for grouping in the file.
	Group string `json:"-"`
	// Pattern is set for a rule that matches any arguments.
	Pattern bool `json:"-"`
}

// SkippedCommand is a recorded command that got no rule.
type SkippedCommand struct {
	Command string `json:"command"`
	Count   int64  `json:"count"`
	Reason  string `json:"reason"`
}

// candidate is one distinct simple command, as policy rules see it.
type candidate struct {
	text       string
	argv       []string
	count      int64 // runs, standalone or inside a longer command line
	standalone int64 // runs as a command line of its own
	sessions   map[int]struct{}
	examples   map[string]int64
	risky      string // why it is risky; empty if it is not
	family     string // the pattern prefix it belongs to; empty if none
	exact      bool   // a rule can match it exactly
	done       bool   // covered by a rule or skipped
}

type generator struct {
	opts    GenerateOptions
	gate    *gate.Gate
	cands   map[string]*candidate
	order   []*candidate
	skipped []SkippedCommand
}

// Generate proposes policy rules (all "allow") from recorded commands. A
// rule needs MinFrequency runs. Risky commands — network, destructive,
// interpreters, indirection, by the gate's classifier or by program — are
// only ever exact rules, and a family with any risky member gets no
// pattern, so a pattern never widens a risky command. A command line of
// several simple commands (&&, |, ;, $(...), wrappers) gets exact rules for
// its parts when none of them is risky and is skipped otherwise, because
// the gate checks each part on its own. Commands a person denied, that do
// not parse or that the built-in policy denies get no rule. Every rule is
// checked against its examples with the gate's own matcher before it is
// returned.
func Generate(ctx context.Context, rec *Recorded, opts GenerateOptions) (*GeneratedPolicy, error) {
	if opts.Strategy == "" {
		opts.Strategy = StrategyPattern
	}
	if _, err := ParseStrategy(string(opts.Strategy)); err != nil {
		return nil, err
	}
	if opts.Strategy == StrategySemantic && opts.Cop == nil {
		return nil, NeedsCopError{}
	}
	if opts.MinFrequency <= 0 {
		opts.MinFrequency = DefaultMinFrequency
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	g := opts.Classifier
	if g == nil {
		gopts := opts.Gate
		gopts.Policy, gopts.Cop, gopts.CopCommand, gopts.Hooks = nil, nil, "", nil
		var err error
		if g, err = gate.New(gopts); err != nil {
			return nil, fmt.Errorf("gate: %w", err)
		}
	}
	gen := &generator{opts: opts, gate: g, cands: map[string]*candidate{}}
	gen.collect(rec)
	var rules []GeneratedRule
	var err error
	if opts.Strategy != StrategyExact {
		rules = gen.patterns()
	}
	rules = append(rules, gen.exacts()...)
	if opts.Strategy == StrategySemantic {
		if rules, err = gen.review(ctx, rules); err != nil {
			return nil, err
		}
	}
	if rules, err = gen.verify(rules); err != nil {
		return nil, err
	}
	p := &GeneratedPolicy{Generated: opts.Now.UTC(), Strategy: opts.Strategy, MinFrequency: opts.MinFrequency,
		Sessions: rec.Sessions(), Runs: rec.Runs(), Distinct: rec.Distinct(), Rules: orderRules(rules)}
	for _, c := range gen.order {
		if !c.done {
			p.Rare++
		}
	}
	sort.SliceStable(gen.skipped, func(i, j int) bool { return gen.skipped[i].Count > gen.skipped[j].Count })
	p.Skipped = gen.skipped
	return p, nil
}

func (gen *generator) skip(command string, count int64, format string, args ...any) {
	gen.skipped = append(gen.skipped, SkippedCommand{Command: command, Count: count, Reason: fmt.Sprintf(format, args...)})
}

// collect classifies every recorded command line into candidates.
func (gen *generator) collect(rec *Recorded) {
	for _, rc := range rec.sorted() {
		frequent := rc.count >= gen.opts.MinFrequency
		if rec.denied[rc.command] {
			if frequent {
				gen.skip(rc.command, rc.count, "a person denied it when the gate asked")
			}
			continue
		}
		res := gen.gate.Classify(rc.command)
		parts, why := gen.parts(res)
		if why != "" {
			if frequent {
				gen.skip(rc.command, rc.count, "%s", why)
			}
			continue
		}
		for _, p := range parts {
			example := p.examples0()
			c := gen.cands[p.text]
			if c == nil {
				c = p
				c.sessions, c.examples = map[int]struct{}{}, map[string]int64{}
				gen.cands[c.text] = c
				gen.order = append(gen.order, c)
			}
			c.count += rc.count
			if len(parts) == 1 {
				c.standalone += rc.count
			}
			c.examples[example] += rc.count
			for _, s := range rc.sessions {
				c.sessions[s] = struct{}{}
			}
		}
	}
}

// parts turns a classified command line into candidates, or says why it
// gets no rule.
func (gen *generator) parts(res gate.Result) ([]*candidate, string) {
	if len(res.Commands) == 0 {
		return nil, "there is no command in it"
	}
	var out []*candidate
	for _, part := range res.Commands {
		switch part.Tier {
		case gate.TierUnparsed:
			return nil, "it does not parse as a shell command: " + firstReason(part)
		case gate.TierDenyRule:
			return nil, "the built-in policy denies it: " + firstReason(part)
		}
		if len(part.Argv) == 0 {
			return nil, "a part of it expands to no command until it runs"
		}
		out = append(out, gen.candidateOf(part))
	}
	if len(out) > 1 {
		for _, c := range out {
			if c.risky != "" {
				return nil, fmt.Sprintf("it chains or wraps commands and a part of it is risky (%s: %s); a rule matches one simple command, and allowing that part alone would allow it inside any command line", c.text, c.risky)
			}
		}
	}
	return out, ""
}

func firstReason(c gate.Command) string {
	if len(c.Reasons) > 0 {
		return c.Reasons[0]
	}
	return c.Tier.String()
}

// candidateOf describes one simple command.
func (gen *generator) candidateOf(part gate.Command) *candidate {
	argv := append([]string(nil), part.Argv...)
	argv[0] = programName(argv[0])
	c := &candidate{text: strings.Join(argv, " "), argv: argv, exact: exactWords(argv)}
	c.examples = map[string]int64{part.Text: 0}
	name := normalName(argv[0])
	sub := ""
	if subcommandTool(name) && len(argv) > 1 && subcommandWord(argv[1]) {
		sub = argv[1]
	}
	switch {
	case part.Tier >= gate.TierRisky:
		c.risky = "the gate rates it risky (" + firstReason(part) + ")"
	default:
		if why, ok := riskyProgram(name); ok {
			c.risky = argv[0] + " " + why
		} else if why, ok := riskySubcommand(name, sub); ok && sub != "" {
			c.risky = argv[0] + " " + sub + " " + why
		}
	}
	switch {
	case strings.Contains(argv[0], "/"):
	case subcommandTool(name) && sub != "":
		c.family = argv[0] + " " + sub
	case !subcommandTool(name):
		c.family = argv[0]
	}
	return c
}

// examples0 is the one example a fresh candidate carries: the command as
// written.
func (c *candidate) examples0() string {
	for e := range c.examples {
		return e
	}
	return c.text
}

// normalName is a program word as the risk tables name it: lower case,
// without directory, ".exe" or a version suffix (python3.12 → python3).
func normalName(word string) string {
	n := strings.TrimSuffix(strings.ToLower(path.Base(word)), ".exe")
	if _, ok := riskyProgram(n); ok || subcommandTool(n) {
		return n
	}
	if i := strings.IndexAny(n, ".-"); i > 0 {
		if trimmed := strings.TrimRight(n[:i], "0123456789"); trimmed != "" {
			if _, ok := riskyProgram(n[:i]); ok {
				return n[:i]
			}
			return trimmed
		}
	}
	return strings.TrimRight(n, "0123456789")
}
