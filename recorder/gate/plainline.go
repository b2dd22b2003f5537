package gate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxPlainParts bounds the words and quoted parts of a line taken by
// plainLine.
const maxPlainParts = 64

// plainPart is one run of a plain word: plain bytes, or quoted text (the
// quotes included).
type plainPart struct {
	kind       byte // 'a' plain bytes, '\'' or '"' quoted
	start, end int  // src[start:end]
	first      bool // it starts a word
}

// plainLine is the syntax tree mvdan.cc/sh's parser gives for a command
// line of plain words only (git status, go test ./..., grep -rn 'TODO'
// src, ls ~/src/*.go): one simple command whose words hold letters,
// digits and _ . / , : @ % + = - ^ and the pattern and tilde characters
// * ? ~ (the parser keeps them in a literal: the gate expands them itself),
// and single- or double-quoted text, separated by blanks. Most lines an agent runs are such, and building their tree
// directly skips the parser's start-up, which costs more than the rest of
// their classification. ok is false for every other line: expansions,
// escapes, operators, redirections, keywords, declarations, assignments,
// comments and newlines all go to the parser. A fuzz test holds the tree
// equal to the parser's (FuzzPlainLineMatchesParser).
func plainLine(src string) (f *syntax.File, ok bool) { return new(plainTree).build(src) }

// plainTree holds the nodes of one plain line's tree; an analysis keeps a
// few and builds the trees of its lines in them again and again, so that
// a plain line costs no allocation once they have grown to its size.
type plainTree struct {
	file   syntax.File
	stmt   syntax.Stmt
	call   syntax.CallExpr
	stmts  [1]*syntax.Stmt
	ws     []plainWord
	args   []*syntax.Word
	lits   []syntax.Lit
	quoted []plainQuote
}

// plainWord is a word with room for its one part.
type plainWord struct {
	word syntax.Word
	one  [1]syntax.WordPart
}

// plainQuote is a quoted part, single or double, with room for the text of
// a double-quoted one.
type plainQuote struct {
	sgl syntax.SglQuoted
	dbl syntax.DblQuoted
	in  [1]syntax.WordPart
}

// build makes src's tree in t (plainLine), replacing what t held.
func (t *plainTree) build(src string) (f *syntax.File, ok bool) {
	var buf [maxPlainParts]plainPart
	parts, words, lits, quotes, ok := plainParts(src, buf[:0])
	if !ok || words == 0 {
		return nil, false
	}
	ws := grown(t.ws, words)
	args := grown(t.args, words)
	litBuf := grown(t.lits, lits)
	quoted := grown(t.quoted, quotes)
	t.ws, t.args, t.lits, t.quoted = ws, args, litBuf, quoted
	w, l, k := -1, 0, 0
	for _, p := range parts {
		var part syntax.WordPart
		switch p.kind {
		case 'a':
			litBuf[l] = syntax.Lit{ValuePos: linePos(p.start), ValueEnd: linePos(p.end), Value: src[p.start:p.end]}
			part = &litBuf[l]
			l++
		case '\'':
			q := &quoted[k]
			k++
			q.sgl = syntax.SglQuoted{Left: linePos(p.start), Right: linePos(p.end - 1), Value: src[p.start+1 : p.end-1]}
			part = &q.sgl
		default:
			q := &quoted[k]
			k++
			q.dbl = syntax.DblQuoted{Left: linePos(p.start), Right: linePos(p.end - 1)}
			if p.end-p.start > 2 {
				litBuf[l] = syntax.Lit{ValuePos: linePos(p.start + 1), ValueEnd: linePos(p.end - 1), Value: src[p.start+1 : p.end-1]}
				q.in[0] = &litBuf[l]
				l++
				q.dbl.Parts = q.in[:]
			}
			part = &q.dbl
		}
		if p.first {
			w++
			ws[w].one[0] = part
			ws[w].word = syntax.Word{Parts: ws[w].one[:]}
			args[w] = &ws[w].word
			continue
		}
		if len(ws[w].word.Parts) == 1 {
			ws[w].word.Parts = append(make([]syntax.WordPart, 0, 4), ws[w].one[0])
		}
		ws[w].word.Parts = append(ws[w].word.Parts, part)
	}
	t.call = syntax.CallExpr{Args: args}
	t.stmt = syntax.Stmt{Cmd: &t.call, Position: args[0].Pos()}
	t.stmts[0] = &t.stmt
	t.file = syntax.File{Stmts: t.stmts[:]}
	return &t.file, true
}

// grown is s with length n, its backing array reused when large enough.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// plainParts splits a plain line into its parts, appended to buf; words
// counts the words and lits the literals (plain runs and the text of
// non-empty double quotes), quotes the quoted parts. ok is false for a
// line that is not plain.
func plainParts(src string, buf []plainPart) (parts []plainPart, words, lits, quotes int, ok bool) {
	parts = buf
	wordStart := -1
	for i := 0; i < len(src); {
		c := src[i]
		if c == ' ' || c == '\t' {
			if wordStart >= 0 && !plainCommandName(src[wordStart:i]) && words == 1 {
				return nil, 0, 0, 0, false
			}
			wordStart = -1
			i++
			continue
		}
		p := plainPart{kind: 'a', start: i, first: wordStart < 0}
		switch {
		case plainByte(c):
			for i < len(src) && plainByte(src[i]) {
				i++
			}
			lits++
		case c == '\'' || c == '"':
			p.kind = c
			j := i + 1
			for ; j < len(src) && src[j] != c; j++ {
				if b := src[j]; !quotedByte(b) || c == '"' && (b == '$' || b == '`' || b == '\\') {
					return nil, 0, 0, 0, false
				}
			}
			if j == len(src) {
				return nil, 0, 0, 0, false
			}
			if c == '"' && j > i+1 {
				lits++
			}
			quotes++
			i = j + 1
		default:
			return nil, 0, 0, 0, false
		}
		p.end = i
		if p.first {
			wordStart = p.start
			words++
		}
		if len(parts) == cap(parts) {
			return nil, 0, 0, 0, false
		}
		parts = append(parts, p)
	}
	if wordStart >= 0 && words == 1 && !plainCommandName(src[wordStart:]) {
		return nil, 0, 0, 0, false
	}
	return parts, words, lits, quotes, true
}

// quotedByte reports the bytes taken inside quotes: printable ASCII and
// tabs (other bytes have the parser check their encoding, or count
// columns its own way).
func quotedByte(c byte) bool { return c == '\t' || ' ' <= c && c <= '~' }

// linePos is the position of byte offset i of a one-line source.
func linePos(i int) syntax.Pos { return syntax.NewPos(uint(i), 1, uint(i)+1) }

// plainByte reports the bytes a plain word is made of: none of them means
// anything to the shell in a word of them only.
func plainByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	switch c {
	case '_', '.', '/', ',', ':', '@', '%', '+', '=', '-', '*', '?', '~', '^':
		return true
	}
	return false
}

// plainCommandName reports a first word that the parser reads as a command
// name: not an assignment (x=1) and no word that starts a compound
// command or a declaration.
func plainCommandName(w string) bool {
	if strings.IndexByte(w, '=') >= 0 {
		return false
	}
	switch w {
	case "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "case", "esac", "while", "until",
		"select", "function", "time", "coproc", "let", "declare", "local", "export", "readonly", "typeset",
		"nameref":
		return false
	}
	return true
}
