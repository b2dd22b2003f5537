package claudehook

import (
	"encoding/json"
	"os"
	"strings"
)

// Claude Code checks its own permission rules (deny and ask, from its
// settings files and command line) against the tool input it is about to
// run. When the hook's allow rewrites a command into cuff's sandbox
// (updatedInput), those rules see the rewrite, not the agent's command,
// and a rule such as Bash(make:*) would no longer stop make: cuff would
// leave the agent less guarded than Claude Code alone. So a command that a
// Bash deny or ask rule may match is not rewritten; it gets no decision and
// Claude Code's own rules and prompt decide, as without cuff.
//
// Unless the rule is in a file a sandboxed command can write (the
// project's .claude/settings.json and settings.local.json are in the work
// tree): Claude Code read its settings when it started, and a rule planted
// since would only take the command out of the sandbox, into Claude Code's
// own flow without that rule (which, with an allow rule or in
// bypassPermissions mode, runs it unconfined). Such a command gets ask:
// Claude Code's deny rules still win over it, its ask rules ask anyway,
// and otherwise a person decides.

// Rule is one of Claude Code's Bash deny or ask rules.
type Rule struct {
	// Pattern is the text inside Bash(…); a bare "Bash" rule is "*".
	Pattern string
	// File is the settings file the rule was read from; "" for a rule
	// given on Claude Code's command line.
	File string
}

// PermissionRules reads the Bash deny and ask rules of Claude Code's
// settings files (missing or unreadable files are skipped) and of the
// command lines given (Claude Code's own, for --disallowedTools and
// --settings).
func PermissionRules(settingsFiles []string, cmdlines [][]string) []Rule {
	var rules []Rule
	for _, f := range settingsFiles {
		if data, err := os.ReadFile(f); err == nil {
			rules = append(rules, from(f, rulesOf(data))...)
		}
	}
	for _, args := range cmdlines {
		for i := 0; i < len(args); i++ {
			switch flag, value, inline := strings.Cut(args[i], "="); flag {
			case "--disallowedTools", "--disallowed-tools":
				var tools []string
				if inline {
					tools = append(tools, value)
				}
				for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
					i++
					tools = append(tools, args[i])
				}
				for _, t := range tools {
					rules = append(rules, from("", bashRules(splitTools(t)))...)
				}
			case "--settings":
				if !inline && i+1 < len(args) {
					i++
					value = args[i]
				}
				if strings.HasPrefix(strings.TrimSpace(value), "{") {
					rules = append(rules, from("", rulesOf([]byte(value)))...)
				} else if data, err := os.ReadFile(value); err == nil {
					rules = append(rules, from(value, rulesOf(data))...)
				}
			}
		}
	}
	return rules
}

// from makes rules of patterns read from file.
func from(file string, patterns []string) []Rule {
	out := make([]Rule, len(patterns))
	for i, p := range patterns {
		out[i] = Rule{Pattern: p, File: file}
	}
	return out
}

// rulesOf reads permissions.deny and permissions.ask of a settings file.
func rulesOf(data []byte) []string {
	var s struct {
		Permissions struct {
			Deny []string `json:"deny"`
			Ask  []string `json:"ask"`
		} `json:"permissions"`
	}
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	return bashRules(append(s.Permissions.Deny, s.Permissions.Ask...))
}

// splitTools splits a --disallowedTools argument ("Bash(git:*) Edit",
// "Bash(a),Read") into tools, keeping what is inside parentheses whole.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case (r == ',' || r == ' ') && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// bashRules keeps the rules about the Bash tool, as their content.
func bashRules(tools []string) []string {
	var out []string
	for _, t := range tools {
		t = strings.TrimSpace(t)
		switch {
		case t == "Bash":
			out = append(out, "*")
		case strings.HasPrefix(t, "Bash(") && strings.HasSuffix(t, ")"):
			out = append(out, t[len("Bash("):len(t)-1])
		}
	}
	return out
}

// mayMatch reports whether a Claude Code Bash rule could match command,
// erring towards yes: every literal word of the rule (what is left around
// its * and :* wildcards) appears somewhere in the command. Claude Code
// matches a rule against the command's parts, whose text is in the
// command, so a rule that matches always passes this test.
func mayMatch(rule, command string) bool {
	words := strings.FieldsFunc(rule, func(r rune) bool { return r == '*' || r == ' ' || r == '\t' || r == '\n' })
	for _, w := range words {
		w = strings.TrimSuffix(w, ":")
		if w != "" && !strings.Contains(command, w) {
			return false
		}
	}
	return true
}

// ruleFor is the first rule that may match command.
func ruleFor(rules []Rule, command string) (Rule, bool) {
	for _, r := range rules {
		if mayMatch(r.Pattern, command) {
			return r, true
		}
	}
	return Rule{}, false
}
