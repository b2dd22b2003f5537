package gate

import (
	"errors"
	"strings"
)

// awkEffects is what an awk program can do besides computing text.
type awkEffects struct {
	runs     string   // why it runs commands (system, pipes, coprocesses), if it does
	network  bool     // names gawk's /inet special files
	indirect bool     // @ constructs: indirect calls, @load, @include
	writes   []string // literal files written by print > "file"
	reads    []string // literal files read by getline < "file"
	environ  bool     // reads ENVIRON
	dynIO    bool     // redirection to or from a computed file name
}

// awkTok is one token of an awk program.
type awkTok struct {
	kind byte // 's' string, 'r' regex, 'i' identifier, 'n' number, 'o' operator, '\n'
	text string
}

// lexAwk splits an awk program into tokens. It tells regular expressions
// from division by the previous token, as awk's grammar does.
func lexAwk(prog string) ([]awkTok, error) {
	var toks []awkTok
	regexOK := func() bool {
		if len(toks) == 0 {
			return true
		}
		t := toks[len(toks)-1]
		switch t.kind {
		case 'i':
			return t.text == "print" || t.text == "printf" || t.text == "return" || t.text == "in" || t.text == "case"
		case 's', 'r', 'n':
			return false
		case 'o':
			return t.text != ")" && t.text != "]" && t.text != "$" && t.text != "++" && t.text != "--"
		}
		return true
	}
	for i := 0; i < len(prog); {
		c := prog[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(prog) && prog[i+1] == '\n':
			i += 2
		case c == '\n':
			toks = append(toks, awkTok{'\n', "\n"})
			i++
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
		case c == '"':
			j := i + 1
			var b strings.Builder
			for ; j < len(prog) && prog[j] != '"'; j++ {
				if prog[j] == '\\' && j+1 < len(prog) {
					j++
				}
				b.WriteByte(prog[j])
			}
			if j >= len(prog) {
				return nil, errors.New("unterminated string")
			}
			toks = append(toks, awkTok{'s', b.String()})
			i = j + 1
		case c == '/' && regexOK():
			j, inBracket := i+1, false
			for ; j < len(prog); j++ {
				switch ch := prog[j]; {
				case ch == '\\':
					j++
				case ch == '[':
					inBracket = true
				case ch == ']':
					inBracket = false
				case ch == '/' && !inBracket:
					goto done
				case ch == '\n':
					return nil, errors.New("unterminated regular expression")
				}
			}
			return nil, errors.New("unterminated regular expression")
		done:
			toks = append(toks, awkTok{'r', prog[i+1 : j]})
			i = j + 1
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(prog) && (prog[j] == '_' || prog[j] >= 'a' && prog[j] <= 'z' || prog[j] >= 'A' && prog[j] <= 'Z' || prog[j] >= '0' && prog[j] <= '9') {
				j++
			}
			toks = append(toks, awkTok{'i', prog[i:j]})
			i = j
		case c >= '0' && c <= '9' || c == '.':
			j := i + 1
			for j < len(prog) && (prog[j] >= '0' && prog[j] <= '9' || prog[j] == '.' || prog[j] == 'e' || prog[j] == 'E' || prog[j] == 'x' || prog[j] >= 'a' && prog[j] <= 'f') {
				j++
			}
			toks = append(toks, awkTok{'n', prog[i:j]})
			i = j
		default:
			op := string(c)
			if i+1 < len(prog) {
				switch two := prog[i : i+2]; two {
				case "|&", "||", ">>", ">=", "<=", "==", "!=", "!~", "&&", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "**":
					op = two
				}
			}
			toks = append(toks, awkTok{'o', op})
			i += len(op)
		}
	}
	return toks, nil
}

// scanAwk finds what an awk program does besides computing text.
func scanAwk(prog string) (awkEffects, error) {
	var fx awkEffects
	toks, err := lexAwk(prog)
	if err != nil {
		return fx, err
	}
	depth, printDepth := 0, -1 // printDepth: paren depth of an open print statement
	for i, t := range toks {
		next := func() (awkTok, bool) {
			if i+1 < len(toks) {
				return toks[i+1], true
			}
			return awkTok{}, false
		}
		switch {
		case t.kind == 's' && strings.Contains(t.text, "/inet"):
			fx.network = true
		case t.kind == 'i' && t.text == "system":
			if n, ok := next(); ok && n.text == "(" {
				fx.runs = "system() runs a shell command"
			}
		case t.kind == 'i' && (t.text == "print" || t.text == "printf"):
			printDepth = depth
		case t.kind == 'o' && t.text == "<" && afterGetline(toks, i):
			if i+1 >= len(toks) || toks[i+1].kind != 's' {
				fx.dynIO = true
			} else if strings.Contains(toks[i+1].text, "/inet") {
				fx.network = true
			} else {
				fx.reads = append(fx.reads, toks[i+1].text)
			}
		case t.kind == 'i' && (t.text == "ENVIRON" || t.text == "PROCINFO"):
			fx.environ = fx.environ || t.text == "ENVIRON"
		case t.kind == '\n' || t.kind == 'o' && (t.text == ";" || t.text == "}" || t.text == "{"):
			printDepth = -1
		case t.kind == 'o':
			switch t.text {
			case "(", "[":
				depth++
			case ")", "]":
				depth--
			case "|":
				fx.runs = "a pipe runs a shell command"
			case "|&":
				fx.runs = "|& runs a coprocess"
			case "@":
				fx.indirect = true
			case ">", ">>":
				if printDepth >= 0 && depth == printDepth {
					if n, ok := next(); ok && n.kind == 's' && i+2 < len(toks) && isAwkEnd(toks[i+2]) || ok && n.kind == 's' && i+2 == len(toks) {
						if n.text != "/dev/stdout" && n.text != "/dev/stderr" && n.text != "-" {
							fx.writes = append(fx.writes, n.text)
						}
					} else {
						fx.dynIO = true
					}
				}
			}
		}
	}
	return fx, nil
}

// afterGetline reports whether the < at toks[i] redirects getline's input:
// "getline < f" or "getline var < f".
func afterGetline(toks []awkTok, i int) bool {
	if i >= 1 && toks[i-1].kind == 'i' && toks[i-1].text == "getline" {
		return true
	}
	return i >= 2 && toks[i-2].kind == 'i' && toks[i-2].text == "getline" && toks[i-1].kind == 'i'
}

func isAwkEnd(t awkTok) bool {
	return t.kind == '\n' || t.kind == 'o' && (t.text == ";" || t.text == "}")
}

// awk runs an awk program; system(), pipes, coprocesses and redirections
// reach beyond text processing.
func (c *call) awk() {
	ops := scan(c.args, optSpec{short: "FvfEeilWdop", long: []string{"field-separator", "assign", "file", "exec", "source", "include", "load"}})
	if ops.computed {
		c.grey("an argument of " + c.name + " is only known at run time")
	}
	c.local(c.name + " processes text")
	if ops.has("-S", "--sandbox") {
		return
	}
	var progs []arg
	for _, o := range ops.opts {
		switch {
		case o.name == "-f" || o.name == "-E" || o.name == "-i" || o.name == "-l" || isLong(o.name, "file") ||
			isLong(o.name, "exec") || isLong(o.name, "include") || isLong(o.name, "load"):
			c.risky("interpreter: " + c.name + " " + o.name + " runs a program file or extension the gate does not read")
			return
		case o.name == "-e" || isLong(o.name, "source"):
			progs = append(progs, o.val)
		}
	}
	if len(progs) == 0 && len(ops.operands) > 0 {
		progs = ops.operands[:1]
	}
	for _, p := range progs {
		c.awkProgram(p)
	}
}

func (c *call) awkProgram(p arg) {
	if p.lead && strings.HasPrefix(p.val, "$") && !strings.ContainsAny(p.val, "{}") {
		c.risky("indirection: the awk program " + p.val + " is only known at run time")
		return
	}
	fx, err := scanAwk(p.val)
	switch {
	case err != nil:
		c.risky("indirection: the awk program cannot be checked (" + err.Error() + ")")
	case fx.runs != "":
		c.risky("interpreter: the awk program runs commands: " + fx.runs)
	case fx.network:
		c.risky("network: the awk program opens /inet connections")
	case fx.indirect:
		c.risky("indirection: the awk program uses @ (indirect calls or extensions)")
	case fx.dynIO:
		c.risky("indirection: the awk program redirects to or from a file computed at run time")
	case p.dyn:
		c.grey("part of the awk program is only known at run time")
	}
	for _, w := range fx.writes {
		c.writes(arg{val: w, dyn: p.dyn}, "the awk program writes")
	}
	if fx.environ {
		c.secretRead("the awk program reads ENVIRON, the environment with its tokens and keys")
	}
	for _, r := range fx.reads {
		if why := c.a.secretWord(arg{val: r, dyn: p.dyn}, false, false); why != "" {
			c.secretRead("the awk program reads " + r + ": " + why)
		}
	}
}
