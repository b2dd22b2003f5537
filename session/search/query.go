package search

import (
	"fmt"
	"strings"
	"unicode"
)

// parsed is a query as the index runs it: an FTS5 match expression (empty
// when the query only filters), the kinds of hit it asks for, and whether
// it asks for failures only.
type parsed struct {
	match  string
	kinds  []Kind
	failed bool
	terms  []string // the words searched for, for highlighting elsewhere
}

// fieldKinds are the field prefixes a query term takes, and the kinds of
// hit each restricts the search to.
var fieldKinds = map[string][]Kind{
	"cmd": {KindCommand}, "command": {KindCommand},
	"out": {KindOutput, KindResult}, "output": {KindOutput, KindResult},
	"prompt": {KindPrompt}, "answer": {KindAnswer}, "thinking": {KindThinking},
	"tool": {KindTool}, "input": {KindTool}, "result": {KindResult},
}

// QueryError is a query the index cannot run.
type QueryError struct{ Msg string }

func (e *QueryError) Error() string { return e.Msg }

// Hint says how queries are written.
func (e *QueryError) Hint() string {
	return `Hint: words must all match (in any order); "a phrase" matches as written; pre* matches a start;
a OR b matches either; -word leaves out; cmd:, out:, prompt:, answer:, thinking:, tool:, result: keep
to one kind of text; failed: (alone or before a word) keeps to failed commands and tool errors`
}

// parseQuery reads a query: words (all must match), "phrases", prefix*
// words, OR between two terms, -word to leave out, field:term to keep to
// one kind of text and failed: to keep to failures. Every word goes to
// FTS5 quoted, so nothing typed is taken as FTS5's own syntax.
func parseQuery(q string) (parsed, error) {
	var p parsed
	var pos, neg []string
	pendingOr := false
	for _, tok := range splitQuery(q) {
		if tok.text == "OR" && !tok.quoted && tok.field == "" && !tok.negate {
			if len(pos) == 0 {
				return p, &QueryError{Msg: "OR needs a term before it"}
			}
			pendingOr = true
			continue
		}
		if tok.field != "" {
			if tok.field == "failed" {
				p.failed = true
			} else if kinds, ok := fieldKinds[tok.field]; ok {
				p.kinds = appendKinds(p.kinds, kinds)
			} else {
				return p, &QueryError{Msg: fmt.Sprintf("unknown field %q in the query", tok.field+":")}
			}
		}
		expr, words := ftsTerm(tok)
		if expr == "" {
			continue
		}
		p.terms = append(p.terms, words...)
		switch {
		case tok.negate:
			neg = append(neg, expr)
		case pendingOr:
			pos[len(pos)-1] = "(" + pos[len(pos)-1] + " OR " + expr + ")"
			pendingOr = false
		default:
			pos = append(pos, expr)
		}
	}
	if pendingOr {
		return p, &QueryError{Msg: "OR needs a term after it"}
	}
	if len(pos) == 0 && len(neg) > 0 {
		return p, &QueryError{Msg: "a query cannot only leave words out: add a word to look for"}
	}
	p.match = strings.Join(pos, " AND ")
	if len(neg) > 0 {
		p.match = "(" + p.match + ") NOT (" + strings.Join(neg, " OR ") + ")"
	}
	if p.match == "" && len(p.kinds) == 0 && !p.failed {
		return p, &QueryError{Msg: "the query has nothing to look for"}
	}
	return p, nil
}

func appendKinds(have, more []Kind) []Kind {
	for _, k := range more {
		found := false
		for _, h := range have {
			found = found || h == k
		}
		if !found {
			have = append(have, k)
		}
	}
	return have
}

// token is one term of a query as typed.
type token struct {
	field  string // before the ':', lower-cased; "" for none
	text   string
	quoted bool // a "phrase"
	prefix bool // ends in '*'
	negate bool // starts with '-'
}

// splitQuery cuts a query into tokens at white space outside quotes.
func splitQuery(q string) []token {
	var out []token
	q = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' ' // a NUL would end FTS5's string early
		}
		return r
	}, strings.ToValidUTF8(q, " "))
	rs := []rune(q)
	for i := 0; i < len(rs); {
		for i < len(rs) && unicode.IsSpace(rs[i]) {
			i++
		}
		if i == len(rs) {
			break
		}
		var t token
		if rs[i] == '-' && i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) {
			t.negate = true
			i++
		}
		// a field: letters up to ':' (not inside quotes)
		j := i
		for j < len(rs) && unicode.IsLetter(rs[j]) {
			j++
		}
		if j < len(rs) && j > i && rs[j] == ':' {
			t.field = strings.ToLower(string(rs[i:j]))
			i = j + 1
		}
		if i < len(rs) && rs[i] == '"' {
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			t.text, t.quoted = string(rs[i+1:j]), true
			i = min(j+1, len(rs))
		} else {
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) {
				j++
			}
			t.text = string(rs[i:j])
			i = j
		}
		if !t.quoted && strings.HasSuffix(t.text, "*") {
			t.text, t.prefix = strings.TrimRight(t.text, "*"), true
		}
		out = append(out, t)
	}
	return out
}

// ftsTerm is a token as an FTS5 string (quoted, quotes doubled; a prefix
// starred), and the words in it; "" when it has no word (punctuation
// alone, or a field with nothing after it).
func ftsTerm(t token) (string, []string) {
	words := strings.FieldsFunc(t.text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	if len(words) == 0 {
		return "", nil
	}
	expr := `"` + strings.ReplaceAll(t.text, `"`, `""`) + `"`
	if t.prefix {
		expr += "*"
	}
	return expr, words
}
