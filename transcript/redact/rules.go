package redact

import (
	"fmt"
	"regexp"
	"sync"
)

// secretGroup is the capture-group name that marks the part of a match to
// replace. A pattern without such a group has its whole match replaced.
const secretGroup = "secret"

// secretWords are the key-name endings that make an assignment's value a
// secret (PASSWORD=x, "api_key": "x", --token x). "tokens" or "token_count"
// do not end in one of them, so usage counters stay readable.
const secretWords = `(?:passw(?:or)?d|passphrase|secret|token|api[_-]?key|access[_-]?key|account[_-]?key|secret[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret)`

// secretSuffix is what may follow a secret word at the end of a key name
// and still name the secret itself: SECRET_KEY_BASE, API_TOKEN_B64.
const secretSuffix = `(?:[_.-](?i:base|base64|b64|hex|value|raw|data|string|str|v\d+))?`

// passWords are the short key endings that name a password only as a
// segment of their own (DB_PASS, MYSQL_PWD, smtp.pass); locateAssignment
// keeps "bypass", the shell's PWD and a test's "PASS:" out.
const passWords = `(?:pass|pwd)`

// Value alternatives shared by the assignment rules: a double-quoted,
// single-quoted or JSON-escaped quoted value, or a bare word.
const (
	quotedValue  = `"(?P<secret>[^"\r\n]*)"|'(?P<secret>[^'\r\n]*)'|\\"(?P<secret>(?:[^"\\\r\n]|\\[^"\r\n])*)\\"`
	bareValue    = `(?P<secret>[^\s"'\\,;&]+)`
	bareArgValue = `(?P<secret>[^\s"'\\-][^\s"'\\]*)`
)

// spec describes one built-in rule before compilation. Its pattern is
// matched only where locate says a match starts, so it needs no leading
// context of its own.
type spec struct {
	name    string
	pattern string
	// match, when set instead of pattern, finds a match at a located start
	// by hand (see rule.match).
	// triggers are lower-case substrings, one of which every match
	// contains.
	triggers []string
	// locate is given a trigger found at s[pos:end] and returns where a
	// match containing it must start, or -1 when none can (a cheap
	// necessary condition: "Tokenizer" or "sort key" never reach a pattern).
	locate func(s string, pos, end int) int
	match  func(s string, start, stop int, add func(start, end int)) int
}

// keywords are the triggers of the rules built on secretWords.
func keywords() []string {
	return []string{"password", "passwd", "passphrase", "secret", "token", "key"}
}

// builtinSpecs returns the patterns every Redactor starts with unless disabled.
func builtinSpecs() []spec {
	return []spec{
		{
			name:     "assignment",
			pattern:  `(?i)[A-Za-z0-9_.-]*(?:` + secretWords + secretSuffix + `|` + passWords + `)(?:\\?["'])?[ \t]*(?::=|=|:)[ \t]*(?:` + quotedValue + `|` + bareValue + `)`,
			triggers: append(keywords(), "pass", "pwd"),
			locate:   locateAssignment,
		},
		{
			name:     "env-key-assignment",
			pattern:  `[A-Z][A-Z0-9_]*_KEY=(?:` + quotedValue + `|` + bareValue + `)`,
			triggers: []string{"_key="},
			locate:   locateEnvKey,
		},
		{
			name:     "flag",
			pattern:  `(?i)--?[A-Za-z0-9_-]*` + secretWords + `[ \t]+(?:` + quotedValue + `|` + bareArgValue + `)`,
			triggers: keywords(),
			locate:   locateFlag,
		},
		{
			name:     "xml-element",
			pattern:  `(?i)<[A-Za-z0-9_.:-]*` + secretWords + `>(?P<secret>[^<\r\n]+)</`,
			triggers: keywords(),
			locate:   locateXML,
		},
		{
			name:     "authorization-header",
			pattern:  `(?i)authorization(?:\\?["'])?[ \t]*[:=][ \t]*(?:\\?["'])?(?:(?:bearer|basic|token|digest|negotiate|bot)[ \t]+)?(?P<secret>[^\s"'\\,;]+)`,
			triggers: []string{"authorization"},
			locate:   locateWord(anyCase),
		},
		{
			name:     "bearer",
			pattern:  `(?i)bearer(?:[ \t]+|%20|\+)(?P<secret>[A-Za-z0-9._~+/=%-]{8,})`,
			triggers: []string{"bearer"},
			locate:   locateBearer,
		},
		{
			name:     "openai-anthropic-key",
			pattern:  `sk-[A-Za-z0-9][A-Za-z0-9_-]{19,}`,
			triggers: []string{"sk-"},
			locate:   locateWord(isLowerWord),
		},
		{
			name:     "github-token",
			pattern:  `(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})`,
			triggers: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
			locate:   locateWord(isLowerWord),
		},
		{
			name:     "gitlab-token",
			pattern:  `glpat-[A-Za-z0-9_-]{20,}`,
			triggers: []string{"glpat-"},
			locate:   locateWord(isLowerWord),
		},
		{
			name:     "aws-access-key-id",
			pattern:  `(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`,
			triggers: []string{"akia", "asia", "abia", "acca"},
			locate:   locateWord(isUpperWord),
		},
		{
			name:     "aws-secret-key",
			pattern:  `(?i)aws[_.-]?secret[_.-]?(?:access[_.-]?)?key(?:\\?["'])?[ \t]*[:=][ \t]*(?:\\?["'])?(?P<secret>[A-Za-z0-9/+=]{40})`,
			triggers: []string{"aws"},
			locate:   locateAWSSecret,
		},
		{
			name:     "google-api-key",
			pattern:  `AIza[0-9A-Za-z_-]{35}`,
			triggers: []string{"aiza"},
			locate:   locateWord(exactly("AIza")),
		},
		{
			name:     "stripe-key",
			pattern:  `(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}`,
			triggers: []string{"_live_", "_test_"},
			locate:   locateStripe,
		},
		{
			name:     "npm-token",
			pattern:  `npm_[A-Za-z0-9]{36}`,
			triggers: []string{"npm_"},
			locate:   locateWord(isLowerWord),
		},
		{
			name:     "slack-token",
			pattern:  `(?:xox[abposre]-[A-Za-z0-9-]{10,}|xapp-[0-9]-[A-Za-z0-9-]{10,})`,
			triggers: []string{"xox", "xapp-"},
			locate:   locateWord(isLowerWord),
		},
		{
			name:     "slack-webhook",
			pattern:  `(?i)hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]+)`,
			triggers: []string{"hooks.slack.com"},
			locate:   locateAt,
		},
		{
			name:     "discord-webhook",
			pattern:  `(?i)discord(?:app)?\.com/api/webhooks/\d+/(?P<secret>[A-Za-z0-9_-]{20,})`,
			triggers: []string{"discord.com/api/webhooks/", "discordapp.com/api/webhooks/"},
			locate:   locateAt,
		},
		{
			name:     "htpasswd-password",
			match:    matchHtpasswd,
			triggers: []string{"htpasswd"},
			locate:   locateWord(exactly("htpasswd")),
		},
		{
			name:     "jwt",
			pattern:  `eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`,
			triggers: []string{"eyj"},
			locate:   locateWord(exactly("eyJ")),
		},
		{
			name:     "url-credentials",
			pattern:  `[A-Za-z][A-Za-z0-9+.-]*://(?:[^\s:/?#@"'<>\\]*:(?P<secret>[^\s/?#@"'<>\\]+)|(?P<secret>[A-Za-z0-9_-]{20,}))@`,
			triggers: []string{"://"},
			locate:   locateURLCredentials,
		},
		{
			name:     "provider-token",
			match:    matchPrefixed,
			triggers: prefixedTriggers(),
			locate:   locatePrefixed,
		},
		{
			name:     "telegram-bot-token",
			pattern:  `\d{8,10}:AA[A-Za-z0-9_-]{30,}`,
			triggers: []string{":aa"},
			locate:   locateTelegram,
		},
		{
			name:     "terraform-token",
			pattern:  `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}`,
			triggers: []string{".atlasv1."},
			locate:   locateTerraform,
		},
		{
			name:     "user-password-flag",
			match:    matchUserFlag,
			triggers: []string{"-u", "--user", "--auth"},
			locate:   locateUserFlag,
		},
		{
			name:     "short-password-flag",
			match:    matchShortPassword,
			triggers: []string{"-p"},
			locate:   locateShortPassword,
		},
		{
			name:     "netrc-password",
			match:    matchNetrcPassword,
			triggers: []string{"password"},
			locate:   locateNetrcPassword,
		},
		{
			name:     "keyword-hex",
			match:    matchKeywordHex,
			triggers: []string{"key", "token", "secret", "password", "passphrase"},
			locate:   locateKeywordHex,
		},
	}
}

// rule is one compiled pattern and how to find where it applies.
type rule struct {
	name   string
	re     *regexp.Regexp
	groups []int // submatch indexes of the secret groups; nil: whole match
	// lazy, for a built-in rule, compiles re and groups when the rule is
	// first tried: a hook that records one event pays for none of them.
	lazy     *lazyPattern
	triggers []string // lower-case; nil: always run
	// locate gives the start of an anchored match near a trigger; nil for
	// rules that run over the whole input.
	locate func(s string, pos, end int) int
	// match, when set, replaces re for an anchored rule: it reports the
	// secret spans of a match that starts at start and ends by stop, and
	// returns where the match ends, or -1.
	match func(s string, start, stop int, add func(start, end int)) int
	// literal is a case-sensitive prefix of every match of a whole-input
	// rule ("" if none); the rule is skipped when it is absent.
	literal string
	// custom replaces the regexp for a whole-input rule that is not one
	// pattern; it runs only when one of its triggers passes gate.
	custom func(s string, add func(start, end int))
	gate   func(s string, pos, end int) bool
}

// whole reports whether the rule runs over the whole input rather than at
// located starts.
func (r *rule) whole() bool { return r.locate == nil }

// compile builds the regexp of a rule and finds its secret groups.
func (r *rule) compile(pattern string) error {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return err
	}
	r.re = re
	for i, n := range re.SubexpNames() {
		if n == secretGroup {
			r.groups = append(r.groups, i)
		}
	}
	return nil
}

// newBuiltinRule makes a built-in spec's rule, anchored at its located
// start; its pattern is compiled when the rule is first tried
// (TestBuiltinPatternsCompile holds every one to compile).
func newBuiltinRule(sp spec) (rule, error) {
	r := rule{name: sp.name, triggers: sp.triggers, locate: sp.locate, match: sp.match}
	if sp.match != nil {
		return r, nil
	}
	r.lazy = &lazyPattern{pattern: `^(?:` + sp.pattern + `)`, name: sp.name}
	return r, nil
}

// lazyPattern is a built-in rule's pattern, compiled once when first
// needed.
type lazyPattern struct {
	pattern, name string
	once          sync.Once
	rule          rule // re and groups
}

// compiled returns the pattern compiled, with its secret groups. A built-in
// pattern always compiles; if one did not, it would match nothing.
func (l *lazyPattern) compiled() (*regexp.Regexp, []int) {
	l.once.Do(func() {
		if err := l.rule.compile(l.pattern); err != nil {
			l.rule.re = regexp.MustCompile(`[^\x00-\x{10FFFF}]`) // matches nothing
		}
	})
	return l.rule.re, l.rule.groups
}

// regexp is the rule's compiled pattern and secret groups.
func (r *rule) regexp() (*regexp.Regexp, []int) {
	if r.lazy != nil {
		return r.lazy.compiled()
	}
	return r.re, r.groups
}

// newUserRule compiles a pattern from settings; it runs over the whole
// input because nothing is known about its shape.
func newUserRule(i int, pattern string) (rule, error) {
	r := rule{name: fmt.Sprintf("pattern %d", i+1)}
	if err := r.compile(pattern); err != nil {
		return rule{}, fmt.Errorf("redaction pattern %d %q does not compile: %w", i+1, pattern, err)
	}
	r.literal, _ = r.re.LiteralPrefix()
	return r, nil
}

// report adds the secret spans of the submatch m, found in a string that
// starts at s offset off.
func (r *rule) report(m []int, off int, add func(start, end int)) {
	_, groups := r.regexp()
	if len(groups) == 0 {
		add(off+m[0], off+m[1])
		return
	}
	for _, g := range groups {
		if m[2*g] >= 0 {
			add(off+m[2*g], off+m[2*g+1])
		}
	}
}

// findAll reports every match of a whole-input rule in s.
func (r *rule) findAll(s string, add func(start, end int)) {
	re, _ := r.regexp()
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		r.report(m, 0, add)
	}
}

// matchAt reports the match of an anchored rule in s[start:stop] (stop is
// the end of the line: no pattern crosses one) and returns where it ends,
// or -1. An anchored match costs only as much as the text it reads.
func (r *rule) matchAt(s string, start, stop int, add func(start, end int)) int {
	if r.match != nil {
		return r.match(s, start, stop, add)
	}
	re, _ := r.regexp()
	m := re.FindStringSubmatchIndex(s[start:stop])
	if m == nil {
		return -1
	}
	r.report(m, start, add)
	return start + m[1]
}
