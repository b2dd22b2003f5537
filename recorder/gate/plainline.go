package gate

import "mvdan.cc/sh/v3/syntax"

// maxPlainWords bounds the words of a line taken by plainLine.
const maxPlainWords = 64

// plainLine is the syntax tree mvdan.cc/sh's parser gives for a command
// line of plain words only (git status, go test ./..., ls -la src): one
// simple command whose words hold letters, digits and _ . / , : @ % + = -,
// separated by blanks. Most lines an agent runs are such, and building
// their tree directly skips the parser's start-up, which costs more than
// the rest of their classification. ok is false for every other line:
// quotes, expansions, operators, redirections, keywords, declarations,
// assignments, comments and newlines all go to the parser. A fuzz test
// holds the tree equal to the parser's (FuzzPlainLineMatchesParser).
func plainLine(src string) (f *syntax.File, ok bool) {
	n, start := 0, -1
	for i := 0; i <= len(src); i++ {
		if i < len(src) && plainByte(src[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if i < len(src) && src[i] != ' ' && src[i] != '\t' {
			return nil, false
		}
		if start >= 0 {
			if n == 0 && !plainCommandName(src[start:i]) {
				return nil, false
			}
			if n++; n > maxPlainWords {
				return nil, false
			}
			start = -1
		}
	}
	if n == 0 {
		return nil, false
	}
	type word struct {
		word  syntax.Word
		lit   syntax.Lit
		parts [1]syntax.WordPart
	}
	tree := new(struct {
		file  syntax.File
		stmt  syntax.Stmt
		call  syntax.CallExpr
		stmts [1]*syntax.Stmt
	})
	ws := make([]word, n)
	args := make([]*syntax.Word, n)
	k := 0
	for i := 0; i <= len(src); i++ {
		if i < len(src) && plainByte(src[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			w := &ws[k]
			w.lit = syntax.Lit{ValuePos: linePos(start), ValueEnd: linePos(i), Value: src[start:i]}
			w.parts[0] = &w.lit
			w.word.Parts = w.parts[:]
			args[k] = &w.word
			k++
			start = -1
		}
	}
	tree.call.Args = args
	tree.stmt = syntax.Stmt{Cmd: &tree.call, Position: args[0].Pos()}
	tree.stmts[0] = &tree.stmt
	tree.file.Stmts = tree.stmts[:]
	return &tree.file, true
}

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
	case '_', '.', '/', ',', ':', '@', '%', '+', '=', '-':
		return true
	}
	return false
}

// plainCommandName reports a first word that the parser reads as a command
// name: not an assignment (x=1) and no word that starts a compound
// command, a declaration or a test.
func plainCommandName(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] == '=' {
			return false
		}
	}
	switch w {
	case "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "case", "esac", "while", "until",
		"select", "function", "time", "coproc", "let", "declare", "local", "export", "readonly", "typeset",
		"nameref":
		return false
	}
	return true
}
