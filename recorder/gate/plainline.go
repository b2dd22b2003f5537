package gate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxPlainParts bounds the words and quoted parts of a line taken by
// plainLine.
const maxPlainParts = 64

// plainPart is one run of a plain word: plain bytes, or quoted text (the
// quotes included); or an operator between commands.
type plainPart struct {
	kind       byte // 'a' plain bytes, '\'' or '"' quoted, 'o' an operator
	op         byte // of an operator: '|', '&' (&&), 'o' (||) or ';'
	start, end int  // src[start:end]
	first      bool // it starts a word
}

// plainCounts counts what a plain line's tree is made of.
type plainCounts struct {
	words, lits, quotes int
	cmds                int // simple commands
	bins                int // | && || operators
}

// plainLine is the syntax tree mvdan.cc/sh's parser gives for a command
// line of plain commands (git status, go test ./..., grep -rn 'TODO'
// src, ls ~/src/*.go, git diff | head -50, cd web && npm test): simple
// commands whose words hold letters, digits and _ . / , : @ % + = - ^ and
// the pattern and tilde characters * ? ~ (the parser keeps them in a
// literal: the gate expands them itself), and single- or double-quoted
// text, separated by blanks, joined by | && || and ; (and a last ;). Most
// lines an agent runs are such, and building their tree directly skips
// the parser's start-up, which costs more than the rest of their
// classification. ok is false for every other line: expansions, escapes,
// other operators (& |& ;;), redirections, keywords, declarations,
// assignments, comments and newlines all go to the parser. A fuzz test
// holds the tree equal to the parser's (FuzzPlainLineMatchesParser).
func plainLine(src string) (f *syntax.File, ok bool) { return new(plainTree).build(src) }

// plainTree holds the nodes of one plain line's tree; an analysis keeps a
// few and builds the trees of its lines in them again and again, so that
// a plain line costs no allocation once they have grown to its size.
type plainTree struct {
	parts  []plainPart // room for maxPlainParts
	file   syntax.File
	top    []*syntax.Stmt
	stmts  []syntax.Stmt
	calls  []syntax.CallExpr
	bins   []syntax.BinaryCmd
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
	if t.parts == nil {
		t.parts = make([]plainPart, 0, maxPlainParts)
	}
	parts, n, ok := plainParts(src, t.parts[:0])
	if !ok || n.words == 0 {
		return nil, false
	}
	ws := grown(t.ws, n.words)
	args := grown(t.args, n.words)
	litBuf := grown(t.lits, n.lits)
	quoted := grown(t.quoted, n.quotes)
	stmts := grown(t.stmts, n.cmds+n.bins)
	calls := grown(t.calls, n.cmds)
	bins := grown(t.bins, n.bins)
	t.ws, t.args, t.lits, t.quoted, t.stmts, t.calls, t.bins = ws, args, litBuf, quoted, stmts, calls, bins
	t.top = t.top[:0]
	w, l, k := -1, 0, 0
	// The commands are joined as the parser joins them: a pipeline binds
	// tighter than && and ||, and both group from the left.
	var pipe, chain *syntax.Stmt // the pipeline and the && || list so far
	var chainOp syntax.BinCmdOperator
	var pipePos, chainPos syntax.Pos
	used, binsUsed, cmdStart := 0, 0, 0
	join := func(op syntax.BinCmdOperator, pos syntax.Pos, x, y *syntax.Stmt) *syntax.Stmt {
		b := &bins[binsUsed]
		binsUsed++
		*b = syntax.BinaryCmd{OpPos: pos, Op: op, X: x, Y: y}
		s := &stmts[used]
		used++
		*s = syntax.Stmt{Position: x.Position, Cmd: b}
		return s
	}
	endCmd := func() {
		c := &calls[used-binsUsed]
		*c = syntax.CallExpr{Args: args[cmdStart : w+1 : w+1]}
		s := &stmts[used]
		used++
		*s = syntax.Stmt{Cmd: c, Position: args[cmdStart].Pos()}
		cmdStart = w + 1
		if pipe == nil {
			pipe = s
		} else {
			pipe = join(syntax.Pipe, pipePos, pipe, s)
		}
	}
	endPipe := func() {
		if chain == nil {
			chain = pipe
		} else {
			chain = join(chainOp, chainPos, chain, pipe)
		}
		pipe = nil
	}
	for _, p := range parts {
		var part syntax.WordPart
		switch p.kind {
		case 'o':
			endCmd()
			pos := linePos(p.start)
			switch p.op {
			case '|':
				pipePos = pos
			case ';':
				endPipe()
				chain.Semicolon = pos
				t.top = append(t.top, chain)
				chain = nil
			default:
				endPipe()
				chainOp, chainPos = syntax.AndStmt, pos
				if p.op == 'o' {
					chainOp = syntax.OrStmt
				}
			}
			continue
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
	if cmdStart <= w {
		endCmd()
	}
	if pipe != nil {
		endPipe()
	}
	if chain != nil {
		t.top = append(t.top, chain)
	}
	t.file = syntax.File{Stmts: t.top}
	return &t.file, true
}

// grown is s with length n, its backing array reused when large enough.
func grown[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// plainParts splits a plain line into its parts, appended to buf, and
// counts them. ok is false for a line that is not plain.
func plainParts(src string, buf []plainPart) (parts []plainPart, n plainCounts, ok bool) {
	parts = buf
	wordStart := -1
	cmdWords := 0 // words of the command being read
	lastOp := byte(0)
	// endWord ends the word being read: the first of a command must be
	// one the parser takes as a command name.
	endWord := func(i int) bool {
		ok := wordStart < 0 || cmdWords != 1 || plainCommandName(src[wordStart:i])
		wordStart = -1
		return ok
	}
	for i := 0; i < len(src); {
		c := src[i]
		if c == ' ' || c == '\t' {
			if !endWord(i) {
				return nil, n, false
			}
			i++
			continue
		}
		p := plainPart{kind: 'a', start: i, first: wordStart < 0}
		switch {
		case plainByte(c):
			for i < len(src) && plainByte(src[i]) {
				i++
			}
			n.lits++
		case c == '\'' || c == '"':
			p.kind = c
			j := i + 1
			for ; j < len(src) && src[j] != c; j++ {
				if b := src[j]; !quotedByte(b) || c == '"' && (b == '$' || b == '`' || b == '\\') {
					return nil, n, false
				}
			}
			if j == len(src) {
				return nil, n, false
			}
			if c == '"' && j > i+1 {
				n.lits++
			}
			n.quotes++
			i = j + 1
		case c == '|' || c == '&' || c == ';':
			if !endWord(i) || cmdWords == 0 {
				return nil, n, false
			}
			var next byte
			if i+1 < len(src) {
				next = src[i+1]
			}
			p = plainPart{kind: 'o', op: c, start: i, end: i + 1}
			switch {
			case c == '|' && next == '|':
				p.op, p.end = 'o', i+2
			case c == '&' && next == '&':
				p.end = i + 2
			case c == '|' && next != '&', c == ';' && next != ';' && next != '&' && next != '|':
			default:
				return nil, n, false // & |& ;; ;& ;;& ;|
			}
			if p.op != ';' {
				n.bins++
			}
			lastOp, cmdWords = p.op, 0
			i = p.end
			if len(parts) == cap(parts) {
				return nil, n, false
			}
			parts = append(parts, p)
			continue
		default:
			return nil, n, false
		}
		p.end = i
		if p.first {
			wordStart = p.start
			if cmdWords == 0 {
				n.cmds++
			}
			cmdWords++
			n.words++
		}
		if len(parts) == cap(parts) {
			return nil, n, false
		}
		parts = append(parts, p)
	}
	if !endWord(len(src)) || cmdWords == 0 && lastOp != ';' {
		return nil, n, false
	}
	return parts, n, true
}

// quotedByte reports the bytes taken inside quotes: printable ASCII and
// tabs (other bytes have the parser check their encoding, or count
// columns its own way).
func quotedByte(c byte) bool { return c == '\t' || ' ' <= c && c <= '~' }

// linePos is the position of byte offset i of a one-line source.
func linePos(i int) syntax.Pos { return syntax.NewPos(uint(i), 1, uint(i)+1) }

// plainByte reports the bytes a plain word is made of: none of them means
// anything to the shell in a word of them only.
func plainByte(c byte) bool { return plainBytes[c] }

// plainBytes holds plainByte's answer for every byte.
var plainBytes = func() (t [256]bool) {
	for c := range 256 {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			t[c] = true
		}
		switch c {
		case '_', '.', '/', ',', ':', '@', '%', '+', '=', '-', '*', '?', '~', '^':
			t[c] = true
		}
	}
	return t
}()

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
