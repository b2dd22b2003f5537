// Package redact removes secrets (API keys, tokens, passwords, private keys,
// credentials in URLs) from text and JSON before it is written to a
// recording, and decides which environment variables may be recorded.
package redact

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// DefaultMarker replaces each secret unless Options.Marker says otherwise.
const DefaultMarker = "[REDACTED]"

// pemRule names the built-in rule for private-key blocks.
const pemRule = "private-key"

// How far a key name or URL scheme may reach back from a trigger, and how
// far ahead a URL's '@' is looked for.
const (
	windowBack    = 256
	windowForward = 4096
)

// Options configures a Redactor. The zero value redacts with every
// built-in rule.
type Options struct {
	// Disabled turns redaction off: every method returns its input.
	Disabled bool
	// Patterns are extra regular expressions (Go syntax). A capture group
	// named "secret" marks the part to replace; without one the whole
	// match is replaced.
	Patterns []string
	// DisableBuiltin names built-in rules to leave out (see BuiltinRules).
	DisableBuiltin []string
	// Marker replaces each secret; empty means DefaultMarker.
	Marker string
}

// BuiltinRules returns the names of the built-in rules, for
// Options.DisableBuiltin.
func BuiltinRules() []string {
	names := []string{pemRule}
	for _, sp := range builtinSpecs() {
		names = append(names, sp.name)
	}
	return names
}

// Redactor replaces secrets in text. It is safe for concurrent use.
type Redactor struct {
	disabled bool
	marker   string
	rules    []rule
	triggers []trigger // distinct trigger strings and the rules they serve
	scan     *scanner
	scratch  sync.Pool // *scratch, reused between calls
}

// trigger is one lower-case substring and the rules that look near it.
type trigger struct {
	text  []byte
	rules []int
}

// span is a half-open byte range of the input to replace.
type span struct{ start, end int }

// scratch holds the per-call buffers worth reusing.
type scratch struct {
	run   []bool // per rule: a whole-input rule's trigger was found
	done  []int  // per rule: end of its anchored matches so far
	last  []int  // per rule: start of its last anchored match, -1 before one
	spans []span
	// line caches the last line end found: s[lineFrom:lineEnd] holds no
	// line break, so hits on a long line do not search for its end again.
	lineFrom, lineEnd int
}

// New builds a Redactor. It fails when an extra pattern does not compile or
// a rule to disable does not exist.
func New(opts Options) (*Redactor, error) {
	r := &Redactor{disabled: opts.Disabled, marker: opts.Marker}
	if r.marker == "" {
		r.marker = DefaultMarker
	}
	known := BuiltinRules()
	off := make(map[string]bool, len(opts.DisableBuiltin))
	for _, name := range opts.DisableBuiltin {
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("unknown built-in redaction rule %q (known: %s)", name, strings.Join(known, ", "))
		}
		off[name] = true
	}
	if !off[pemRule] {
		r.rules = append(r.rules, rule{
			name:     pemRule,
			triggers: []string{"private key"},
			gate:     func(s string, pos, end int) bool { return s[pos:end] == "PRIVATE KEY" },
			custom:   newPEMFinder().find,
		})
	}
	for _, sp := range builtinSpecs() {
		if off[sp.name] {
			continue
		}
		ru, err := newBuiltinRule(sp)
		if err != nil {
			return nil, err
		}
		r.rules = append(r.rules, ru)
	}
	for i, p := range opts.Patterns {
		ru, err := newUserRule(i, p)
		if err != nil {
			return nil, err
		}
		r.rules = append(r.rules, ru)
	}
	r.indexTriggers()
	r.scratch.New = func() any { return &scratch{} }
	return r, nil
}

// MustNew is New for options known to be valid; it panics otherwise.
func MustNew(opts Options) *Redactor {
	r, err := New(opts)
	if err != nil {
		panic(err)
	}
	return r
}

// indexTriggers groups rules by trigger so each trigger is looked for once.
func (r *Redactor) indexTriggers() {
	at := map[string]int{}
	for i, ru := range r.rules {
		for _, t := range ru.triggers {
			j, ok := at[t]
			if !ok {
				j = len(r.triggers)
				at[t] = j
				r.triggers = append(r.triggers, trigger{text: []byte(t)})
			}
			r.triggers[j].rules = append(r.triggers[j].rules, i)
		}
	}
	texts := make([][]byte, len(r.triggers))
	for i, t := range r.triggers {
		texts[i] = t.text
	}
	r.scan = newScanner(texts)
}

// Marker returns the text that replaces each secret.
func (r *Redactor) Marker() string { return r.marker }

// String returns s with every secret replaced by the marker. Key names are
// kept: "PASSWORD=hunter2" becomes "PASSWORD=[REDACTED]".
func (r *Redactor) String(s string) string {
	out, _ := r.redact(s)
	return out
}

// Bytes is String for byte slices. It returns b itself when nothing was
// redacted.
func (r *Redactor) Bytes(b []byte) []byte {
	if r.disabled || len(b) == 0 {
		return b
	}
	out, changed := r.redact(string(b))
	if !changed {
		return b
	}
	return []byte(out)
}

// redact does the work of String and reports whether anything changed.
func (r *Redactor) redact(s string) (string, bool) {
	if r.disabled || s == "" {
		return s, false
	}
	sc := r.scratch.Get().(*scratch)
	defer r.scratch.Put(sc)
	r.find(s, sc)
	if len(sc.spans) == 0 {
		return s, false
	}
	return r.replace(s, mergeSpans(sc.spans))
}

// spansOf returns the merged spans of s to replace, in order.
func (r *Redactor) spansOf(s string) []span {
	if r.disabled || s == "" {
		return nil
	}
	sc := r.scratch.Get().(*scratch)
	defer r.scratch.Put(sc)
	r.find(s, sc)
	return append([]span(nil), mergeSpans(sc.spans)...)
}

// find collects in sc.spans what every rule finds in s.
func (r *Redactor) find(s string, sc *scratch) {
	sc.reset(len(r.rules))

	add := func(start, end int) {
		if start < end {
			sc.spans = append(sc.spans, span{start, end})
		}
	}
	r.scan.scan(s, func(ti, pos int) {
		t := &r.triggers[ti]
		end := pos + len(t.text)
		for _, ri := range t.rules {
			ru := &r.rules[ri]
			if ru.whole() {
				if ru.gate == nil || ru.gate(s, pos, end) {
					sc.run[ri] = true
				}
				continue
			}
			start := ru.locate(s, pos, end)
			// A start inside the rule's last match is looked at again only
			// near its end: the value of one assignment can be the key of
			// the next (token: api_key = "…").
			if start < 0 || start <= sc.last[ri] || start < sc.done[ri] && sc.done[ri]-start > windowBack {
				continue
			}
			if e := ru.matchAt(s, start, sc.endOfLine(s, start), add); e >= 0 {
				sc.done[ri], sc.last[ri] = max(sc.done[ri], e), start
			}
		}
	})
	for ri := range r.rules {
		ru := &r.rules[ri]
		if !ru.whole() || (ru.triggers != nil && !sc.run[ri]) {
			continue
		}
		if ru.literal != "" && !strings.Contains(s, ru.literal) {
			continue
		}
		if ru.custom != nil {
			ru.custom(s, add)
		} else {
			ru.findAll(s, add)
		}
	}
}

// replace writes s with each span replaced by the marker. Spans that
// already read as the marker are kept, so redacting twice changes nothing.
func (r *Redactor) replace(s string, spans []span) (string, bool) {
	var b strings.Builder
	prev, changed := 0, false
	for _, sp := range spans {
		if s[sp.start:sp.end] == r.marker {
			continue
		}
		if !changed {
			b.Grow(len(s))
			changed = true
		}
		b.WriteString(s[prev:sp.start])
		b.WriteString(r.marker)
		prev = sp.end
	}
	if !changed {
		return s, false
	}
	b.WriteString(s[prev:])
	return b.String(), true
}

func (sc *scratch) reset(rules int) {
	sc.spans = sc.spans[:0]
	sc.run = slices.Grow(sc.run[:0], rules)[:rules]
	clear(sc.run)
	sc.done = slices.Grow(sc.done[:0], rules)[:rules]
	clear(sc.done)
	sc.last = slices.Grow(sc.last[:0], rules)[:rules]
	for i := range sc.last {
		sc.last[i] = -1
	}
	sc.lineFrom, sc.lineEnd = 0, -1
}

// endOfLine returns the index of the line break at or after i, or len(s).
func (sc *scratch) endOfLine(s string, i int) int {
	if sc.lineFrom <= i && i <= sc.lineEnd {
		return sc.lineEnd
	}
	end := len(s)
	if nl := strings.IndexByte(s[i:], '\n'); nl >= 0 {
		end = i + nl
	}
	sc.lineFrom, sc.lineEnd = i, end
	return end
}

// mergeSpans sorts spans and joins those that overlap or touch, in place.
func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := spans[:0]
	for _, sp := range spans {
		if n := len(out); n > 0 && sp.start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}
