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
	kind       byte // 'a' plain bytes, '\'' or '"' quoted, 'o' an operator, 'v' an assignment, 'r' a redirection
	op         byte // of an operator: '|', '&' (&&), 'o' (||) or ';'
	start, end int  // src[start:end]
	eq         int  // of an assignment: where its = is, from start
	first      bool // it starts a word
	redir      bool // of a word: a redirection's
	// Of a redirection: its operator, where it starts (after the file
	// descriptor's number, when there is one: src[start:opStart]).
	rop     syntax.RedirOperator
	opStart int
}

// plainCounts counts what a plain line's tree is made of.
type plainCounts struct {
	words, lits, quotes int // words: a command's words after its assignments
	cmds                int // simple commands
	bins                int // | && || operators
	assigns, values     int // assignments, and those with a value
	redirs              int // redirections, each with a word not counted in words
}

// plainLine is the syntax tree mvdan.cc/sh's parser gives for a command
// line of plain commands (git status, go test ./..., grep -rn 'TODO'
// src, ls ~/src/*.go, git diff | head -50, cd web && npm test): simple
// commands whose words hold letters, digits and _ . / , : @ % + = - ^ and
// the pattern and tilde characters * ? ~ (the parser keeps them in a
// literal: the gate expands them itself), and single- or double-quoted
// text, separated by blanks, joined by | && || and ; (and a last ;), each
// command led by assignments of plain bytes (LC_ALL=C sort x) and followed
// by redirections of a file or descriptor (< > >> <& >& &> &>>, with a
// descriptor's number: go test 2>&1 | tail). Most
// lines an agent runs are such, and building their tree directly skips
// the parser's start-up, which costs more than the rest of their
// classification. ok is false for every other line: expansions, escapes,
// other operators (& |& ;; here-documents, process substitutions, >| <>),
// a redirection before the command's name, keywords, declarations,
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
	assign []syntax.Assign
	asgPtr []*syntax.Assign
	values []plainWord
	redirs []syntax.Redirect
	rdPtr  []*syntax.Redirect
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
	ws := grown(t.ws, n.words+n.redirs)
	args := grown(t.args, n.words)
	litBuf := grown(t.lits, n.lits)
	quoted := grown(t.quoted, n.quotes)
	stmts := grown(t.stmts, n.cmds+n.bins)
	calls := grown(t.calls, n.cmds)
	bins := grown(t.bins, n.bins)
	assign := grown(t.assign, n.assigns)
	asgPtr := grown(t.asgPtr, n.assigns)
	values := grown(t.values, n.values)
	t.ws, t.args, t.lits, t.quoted, t.stmts, t.calls, t.bins = ws, args, litBuf, quoted, stmts, calls, bins
	redirs := grown(t.redirs, n.redirs)
	rdPtr := grown(t.rdPtr, n.redirs)
	t.assign, t.asgPtr, t.values, t.redirs, t.rdPtr = assign, asgPtr, values, redirs, rdPtr
	t.top = t.top[:0]
	w, wi, l, k := -1, -1, 0, 0 // the last argument, word, literal and quoted part made
	var cur *plainWord          // the word being made
	rd, rdStart := 0, 0         // redirections made, the first of this command's
	asg, asgStart, v := 0, 0, 0 // assignments made, the first of this command's, values made
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
		pos := args[cmdStart].Pos()
		if asg > asgStart {
			c.Assigns = asgPtr[asgStart:asg:asg]
			pos = c.Assigns[0].Pos()
		}
		s := &stmts[used]
		used++
		*s = syntax.Stmt{Cmd: c, Position: pos}
		if rd > rdStart {
			s.Redirs = rdPtr[rdStart:rd:rd]
		}
		cmdStart, asgStart, rdStart = w+1, asg, rd
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
		case 'v':
			// As the parser splits NAME=value and NAME+=value.
			nameEnd, app := p.start+p.eq, false
			if src[nameEnd-1] == '+' {
				nameEnd, app = nameEnd-1, true
			}
			litBuf[l] = syntax.Lit{ValuePos: linePos(p.start), ValueEnd: linePos(nameEnd), Value: src[p.start:nameEnd]}
			a := &assign[asg]
			*a = syntax.Assign{Append: app, Name: &litBuf[l]}
			l++
			if from := p.start + p.eq + 1; from < p.end {
				litBuf[l] = syntax.Lit{ValuePos: linePos(from), ValueEnd: linePos(p.end), Value: src[from:p.end]}
				values[v].one[0] = &litBuf[l]
				values[v].word = syntax.Word{Parts: values[v].one[:]}
				a.Value = &values[v].word
				l++
				v++
			}
			asgPtr[asg] = a
			asg++
			continue
		case 'r':
			r := &redirs[rd]
			*r = syntax.Redirect{OpPos: linePos(p.opStart), Op: p.rop}
			if p.opStart > p.start {
				litBuf[l] = syntax.Lit{ValuePos: linePos(p.start), ValueEnd: linePos(p.opStart), Value: src[p.start:p.opStart]}
				r.N = &litBuf[l]
				l++
			}
			rdPtr[rd] = r
			rd++
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
			wi++
			cur = &ws[wi]
			cur.one[0] = part
			cur.word = syntax.Word{Parts: cur.one[:]}
			if p.redir {
				redirs[rd-1].Word = &cur.word
			} else {
				w++
				args[w] = &cur.word
			}
			continue
		}
		if len(cur.word.Parts) == 1 {
			cur.word.Parts = append(make([]syntax.WordPart, 0, 4), cur.one[0])
		}
		cur.word.Parts = append(cur.word.Parts, part)
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
	wordStart, wordParts := -1, 0
	cmdWords, cmdArgs := 0, 0 // words of the command being read, and those after its assignments
	lastOp := byte(0)
	// redirWord: the word being read is a redirection's; wantWord: a
	// redirection waits for its word.
	redirWord, wantWord := false, false
	// endWord ends the word being read: a command's first words may be
	// assignments, and its first other word must be one the parser takes
	// as a command name.
	endWord := func(i int) bool {
		if wordStart < 0 {
			return true
		}
		w := src[wordStart:i]
		wordStart = -1
		if redirWord {
			redirWord = false
			return true
		}
		if cmdArgs > 0 {
			cmdArgs++
			n.words++
			return true
		}
		if last := &parts[len(parts)-1]; wordParts == 1 && last.kind == 'a' {
			if eq := assignmentEq(w); eq > 0 {
				last.kind, last.eq = 'v', eq
				n.assigns++
				if eq+1 < len(w) {
					n.values++
					n.lits++ // the name's and the value's instead of the word's one
				}
				return true
			}
		}
		cmdArgs++
		n.words++
		return plainCommandName(w)
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
		case c == '<' || c == '>' || c == '&' && i+1 < len(src) && src[i+1] == '>':
			if wantWord || redirWord && wordStart >= 0 {
				return nil, n, false // no word between two redirections, or one right after another's word
			}
			p = plainPart{kind: 'r', start: i, opStart: i}
			if last := len(parts) - 1; c != '&' && wordStart >= 0 && wordParts == 1 && parts[last].kind == 'a' &&
				parts[last].end == i && allDigits(src[wordStart:i]) {
				// The file descriptor's number, as in 2>&1: no word.
				p.start = wordStart
				parts = parts[:last]
				wordStart = -1
				cmdWords-- // its literal stays counted, as the number's
			} else if !endWord(i) {
				return nil, n, false
			}
			if cmdArgs == 0 {
				return nil, n, false // before the command's name
			}
			var next, after byte
			if i+1 < len(src) {
				next = src[i+1]
			}
			if i+2 < len(src) {
				after = src[i+2]
			}
			switch {
			case c == '<' && next == '&':
				p.rop, p.end = syntax.DplIn, i+2
			case c == '<' && next != '<' && next != '>' && next != '(':
				p.rop, p.end = syntax.RdrIn, i+1
			case c == '>' && next == '>':
				p.rop, p.end = syntax.AppOut, i+2
			case c == '>' && next == '&':
				p.rop, p.end = syntax.DplOut, i+2
			case c == '>' && next != '|' && next != '(' && next != '!':
				p.rop, p.end = syntax.RdrOut, i+1
			case c == '&' && after == '>':
				p.rop, p.end = syntax.AppAll, i+3
			case c == '&':
				p.rop, p.end = syntax.RdrAll, i+2
			default:
				return nil, n, false // here-documents, process substitutions, >| <>
			}
			// The word must follow: blanks, then plain bytes or quotes.
			i = p.end
			if i < len(src) && !plainByte(src[i]) && src[i] != ' ' && src[i] != '\t' && src[i] != '\'' && src[i] != '"' {
				return nil, n, false
			}
			n.redirs++
			wantWord = true
			if len(parts) == cap(parts) {
				return nil, n, false
			}
			parts = append(parts, p)
			continue
		case c == '|' || c == '&' || c == ';':
			if wantWord || !endWord(i) || cmdArgs == 0 {
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
			lastOp, cmdWords, cmdArgs = p.op, 0, 0
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
			wordStart, wordParts = p.start, 0
			if wantWord {
				wantWord, redirWord = false, true
			} else {
				if cmdWords == 0 {
					n.cmds++
				}
				cmdWords++
			}
		}
		p.redir = redirWord
		wordParts++
		if len(parts) == cap(parts) {
			return nil, n, false
		}
		parts = append(parts, p)
	}
	if wantWord || !endWord(len(src)) || cmdWords > 0 && cmdArgs == 0 || cmdWords == 0 && lastOp != ';' {
		return nil, n, false
	}
	return parts, n, true
}

// allDigits reports a non-empty string of ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// assignmentEq is where the = of an assignment word of plain bytes is, as
// the parser takes it (NAME=value or NAME+=value, NAME a valid name), or
// 0 for another word.
func assignmentEq(w string) int {
	eq := strings.IndexByte(w, '=')
	name := w[:max(eq, 0)]
	if n := len(name); n > 0 && name[n-1] == '+' {
		name = name[:n-1]
	}
	if eq <= 0 || !syntax.ValidName(name) {
		return 0
	}
	return eq
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
