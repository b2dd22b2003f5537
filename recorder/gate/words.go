package gate

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxBraceWords bounds brace expansion; a word that expands to more is
// treated as unknown.
const maxBraceWords = 64

// arg is one word of a command after quote removal.
type arg struct {
	val string // quotes removed; expansions left as written
	// dyn: contains an expansion whose value is only known at run time.
	dyn bool
	// lead: may expand to a word beginning with '-' although val does not
	// (an expansion or a pattern comes before any literal text).
	lead bool
	// glob: contains unquoted pattern characters.
	glob bool
	// split: an unquoted expansion that may become zero or several words.
	split bool
	// proc: a process substitution, which expands to a /dev/fd path.
	proc bool
	// dynAt is where in val the first expansion starts; meaningful when
	// dyn is set.
	dynAt int
	// tracked: a pattern that stands for the files git's index tracks
	// there (what git ls-files lists), not for every file.
	tracked bool
}

// static reports whether the word's value is known exactly.
func (a arg) static() bool { return !a.dyn && !a.glob }

// mayOpt reports whether the word is or may become an option.
func (a arg) mayOpt() bool { return a.lead || strings.HasPrefix(a.val, "-") }

// flag reports whether the word is exactly the option s and known.
func (a arg) is(s string) bool { return a.val == s && a.static() }

// words resolves a list of shell words, applying brace expansion.
func words(src string, ws []*syntax.Word) []arg {
	out := make([]arg, 0, len(ws))
	for _, w := range ws {
		out = expandWord(src, w, out)
	}
	return out
}

// words is words(src, ws) with the result in storage the analysis keeps
// between command lines: each call takes a part of it no other call of the
// line uses (a fresh block when it is full, so earlier parts stay as they
// are).
func (a *analysis) words(src string, ws []*syntax.Word) []arg {
	n := len(ws)
	if cap(a.args)-len(a.args) < n {
		a.args = make([]arg, 0, max(64, n))
	}
	l := len(a.args)
	a.args = a.args[:l+n]
	out := a.args[l : l : l+n] // brace expansion beyond n fields appends elsewhere
	for _, w := range ws {
		out = expandWord(src, w, out)
	}
	return out
}

// expandWord appends the fields that w becomes after brace expansion and
// quote removal.
func expandWord(src string, w *syntax.Word, out []arg) []arg {
	if !hasBrace(w) {
		return append(out, resolveWord(src, w))
	}
	return expandBraces(src, w, out)
}

// expandBraces is expandWord for a word with a brace (kept apart: what its
// loop captures lives on the heap).
func expandBraces(src string, w *syntax.Word, out []arg) []arg {
	text := wordText(src, w)
	if !syntax.SplitBraces(w) {
		return append(out, resolveWord(src, w))
	}
	var fields []arg
	for bw, err := range expand.BracesSeq(nil, w) {
		if err != nil || len(fields) == maxBraceWords {
			return append(out, arg{val: text, dyn: true, lead: true, split: true})
		}
		fields = append(fields, resolveWord(src, bw))
	}
	return append(out, fields...)
}

func hasBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			return true
		}
	}
	return false
}

// wordText is the source text of a node.
func wordText(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return ""
	}
	return src[s:e]
}

// resolveWord removes quotes from one word.
func resolveWord(src string, w *syntax.Word) arg {
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if strings.IndexAny(p.Value, `\*?`) < 0 && !strings.Contains(p.Value, "[") {
				return arg{val: p.Value}
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return arg{val: p.Value}
			}
		}
	}
	var (
		a    arg
		b    = make([]byte, 0, 128) // on the stack: the words are short
		seen bool                   // literal text has been written
	)
	mark := func(dyn bool) {
		if !seen {
			a.lead = true
		}
		if dyn && !a.dyn {
			a.dyn, a.dynAt = true, len(b)
		}
	}
	// A short expansion ($x) that quoted or escaped text continues with a
	// name's character ("$x"nv, $x\nv) is written ${x}, so that the text
	// reads as the shell read it, not as $xnv.
	shortAt, shortEnd := -1, -1
	brace := func(next byte) {
		if shortEnd == len(b) && shortAt >= 0 && nameByte(next) {
			name := string(b[shortAt+1 : shortEnd])
			b = append(append(append(b[:shortAt], "${"...), name...), '}')
		}
		shortAt = -1
	}
	expansion := func(q syntax.WordPart) {
		text := wordText(src, q)
		if pe, ok := q.(*syntax.ParamExp); ok && pe.Short && pe.Param != nil && validName(pe.Param.Value) {
			shortAt, shortEnd = len(b), len(b)+len(text)
		}
		b = append(b, text...)
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if len(v) > 1 && v[0] == '\\' {
				brace(v[1])
			} else if v != "" {
				brace(v[0])
			}
			for i := 0; i < len(v); i++ {
				c := v[i]
				switch {
				case c == '\\' && i+1 < len(v):
					i++
					b = append(b, v[i])
					seen = true
				case c == '*' || c == '?' || c == '[' && strings.IndexByte(v[i:], ']') > 0:
					mark(false)
					a.glob = true
					b = append(b, c)
					seen = true
				default:
					b = append(b, c)
					seen = true
				}
			}
		case *syntax.SglQuoted:
			t := p.Value
			if p.Dollar {
				t = ansiC(t)
			}
			if t != "" {
				brace(t[0])
			}
			b = append(b, t...)
			if p.Value != "" {
				seen = true
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					t := dqUnescape(l.Value)
					if t != "" {
						brace(t[0])
					}
					b = append(b, t...)
					if l.Value != "" {
						seen = true
					}
					continue
				}
				mark(true)
				expansion(q)
				seen = true
			}
		case *syntax.ProcSubst:
			a.proc = true
			b = append(b, wordText(src, p)...)
			seen = true
		case *syntax.ExtGlob:
			mark(false)
			a.glob = true
			b = append(b, wordText(src, p)...)
			seen = true
		default: // parameter, command and arithmetic expansions
			mark(true)
			a.split = true
			expansion(p)
			seen = true
		}
	}
	a.val = string(b)
	return a
}

// nameByte reports the bytes that continue a shell variable's name.
func nameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// dqUnescape removes the backslashes that double quotes give meaning to.
func dqUnescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// hdocUnescape removes the backslashes that an unquoted here-document gives
// meaning to.
func hdocUnescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the escapes of a $'...' string as bash does.
func ansiC(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			width := 2
			switch c {
			case 'u':
				width = 4
			case 'U':
				width = 8
			}
			j := i + 1
			for j < len(s) && j-i-1 < width && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if c == 'x' {
				b.WriteByte(byte(n))
			} else if utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// literalText returns the static text of a word when it has no expansions:
// quotes removed, as for an assignment value or a here-document.
func literalText(src string, w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	a := resolveWord(src, w)
	return a.val, !a.dyn
}

// hdocBody returns the text of a here-document or here-string and whether it
// is known before the command runs.
func hdocBody(src string, r *syntax.Redirect) (string, bool) {
	if r.Op == syntax.WordHdoc {
		return literalText(src, r.Word)
	}
	if r.Hdoc == nil {
		return "", true
	}
	var b strings.Builder
	for _, p := range r.Hdoc.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok {
			return wordText(src, r.Hdoc), false
		}
		if quotedDelim(r.Word) {
			b.WriteString(l.Value)
		} else {
			b.WriteString(hdocUnescape(l.Value))
		}
	}
	return b.String(), true
}

// quotedDelim reports whether a here-document delimiter is quoted, which
// turns expansion in the body off.
func quotedDelim(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') >= 0 {
				return true
			}
		}
	}
	return false
}

// quoteArgs renders words as shell text, for display of wrapped commands.
func quoteArgs(args []arg) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a.dyn || a.glob || a.proc {
			b.WriteString(a.val)
			continue
		}
		q, err := syntax.Quote(a.val, syntax.LangBash)
		if err != nil {
			q = strconv.Quote(a.val)
		}
		b.WriteString(q)
	}
	return b.String()
}
