package gate

import (
	"errors"
	"fmt"
	"strings"
)

// sedEffects is what a sed script can do besides editing text.
type sedEffects struct {
	execs  bool     // the e command or the e flag of s: runs shell commands
	writes []string // files written by w, W or the w flag of s
	reads  []string // files read by r and R
}

// scanSed parses a GNU sed script far enough to find the commands that run
// programs or write files. A script it cannot follow is an error, so that
// nothing hides behind a construct the parser does not know.
func scanSed(script string) (sedEffects, error) {
	p := sedParser{s: script}
	for {
		p.skip(" \t\n;")
		if p.eof() {
			return p.fx, nil
		}
		if p.peek() == '#' {
			p.toEOL()
			continue
		}
		if err := p.command(); err != nil {
			return p.fx, err
		}
	}
}

type sedParser struct {
	s  string
	i  int
	fx sedEffects
}

func (p *sedParser) eof() bool  { return p.i >= len(p.s) }
func (p *sedParser) peek() byte { return p.s[p.i] }

func (p *sedParser) skip(set string) {
	for !p.eof() && strings.IndexByte(set, p.peek()) >= 0 {
		p.i++
	}
}

// toEOL returns the rest of the line and moves past it.
func (p *sedParser) toEOL() string {
	start := p.i
	for !p.eof() && p.peek() != '\n' {
		p.i++
	}
	return p.s[start:p.i]
}

// text skips the text of a, i and c, which may continue over lines ending
// in a backslash.
func (p *sedParser) text() {
	for !p.eof() && p.peek() != '\n' {
		if p.peek() == '\\' && p.i+1 < len(p.s) {
			p.i++
		}
		p.i++
	}
}

// delimited reads up to an unescaped delim, treating bracket expressions
// as literal, and moves past the delimiter.
func (p *sedParser) delimited(delim byte) error {
	inBracket := false
	for !p.eof() {
		c := p.peek()
		switch {
		case c == '\\':
			p.i += 2
			continue
		case inBracket && c == ']':
			inBracket = false
		case !inBracket && c == '[' && delim != '[':
			inBracket = true
			if p.i+1 < len(p.s) && p.s[p.i+1] == ']' {
				p.i++
			} else if p.i+2 < len(p.s) && p.s[p.i+1] == '^' && p.s[p.i+2] == ']' {
				p.i += 2
			}
		case !inBracket && c == delim:
			p.i++
			return nil
		}
		p.i++
	}
	return fmt.Errorf("unterminated %q expression", delim)
}

// address skips one address: a line number, $, first~step, a regex, or
// +N / ~N after a comma.
func (p *sedParser) address() (bool, error) {
	if p.eof() {
		return false, nil
	}
	switch c := p.peek(); {
	case c >= '0' && c <= '9' || c == '+' || c == '~':
		p.i++
		p.skip("0123456789~")
	case c == '$':
		p.i++
	case c == '/':
		p.i++
		if err := p.delimited('/'); err != nil {
			return false, err
		}
		p.skip("IM")
	case c == '\\':
		if p.i+1 >= len(p.s) {
			return false, errors.New("address delimiter missing")
		}
		d := p.s[p.i+1]
		p.i += 2
		if err := p.delimited(d); err != nil {
			return false, err
		}
		p.skip("IM")
	default:
		return false, nil
	}
	return true, nil
}

func (p *sedParser) command() error {
	if ok, err := p.address(); err != nil {
		return err
	} else if ok {
		p.skip(" \t")
		if !p.eof() && p.peek() == ',' {
			p.i++
			p.skip(" \t")
			if ok, err := p.address(); err != nil {
				return err
			} else if !ok {
				return errors.New("address expected after ','")
			}
		}
	}
	p.skip(" \t")
	for !p.eof() && p.peek() == '!' {
		p.i++
		p.skip(" \t")
	}
	if p.eof() {
		return errors.New("command expected after an address")
	}
	cmd := p.peek()
	p.i++
	switch cmd {
	case '{':
		return nil // a command may follow at once
	case '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'q', 'Q', 'L':
		p.skip(" \t")
		p.skip("0123456789")
	case 'b', 't', 'T', ':', 'v':
		for !p.eof() && p.peek() != '\n' && p.peek() != ';' && (cmd == ':' || p.peek() != '}') {
			p.i++
		}
	case 'a', 'i', 'c':
		p.text()
	case 'r', 'R':
		p.fx.reads = append(p.fx.reads, strings.TrimSpace(p.toEOL()))
	case 'w', 'W':
		p.write(strings.TrimSpace(p.toEOL()))
	case 'e':
		p.fx.execs = true
		p.toEOL()
	case 's':
		return p.substitute()
	case 'y':
		if p.eof() {
			return errors.New("y needs a delimiter")
		}
		d := p.peek()
		p.i++
		if err := p.delimited(d); err != nil {
			return err
		}
		if err := p.delimited(d); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown sed command %q", cmd)
	}
	return p.end()
}

// end checks that a command is followed by a separator.
func (p *sedParser) end() error {
	p.skip(" \t")
	if p.eof() {
		return nil
	}
	switch p.peek() {
	case ';', '\n', '}', '#':
		return nil
	}
	return fmt.Errorf("unexpected %q after a sed command", p.peek())
}

func (p *sedParser) substitute() error {
	if p.eof() || p.peek() == '\n' || p.peek() == '\\' {
		return errors.New("s needs a delimiter")
	}
	d := p.peek()
	p.i++
	if err := p.delimited(d); err != nil {
		return err
	}
	// The replacement has no bracket expressions.
	for !p.eof() && p.peek() != d {
		if p.peek() == '\\' {
			p.i++
		}
		p.i++
	}
	if p.eof() {
		return errors.New("unterminated s replacement")
	}
	p.i++
	for !p.eof() {
		switch c := p.peek(); {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c >= '0' && c <= '9':
			p.i++
		case c == 'e':
			p.fx.execs = true
			p.i++
		case c == 'w':
			p.i++
			p.write(strings.TrimSpace(p.toEOL()))
			return nil
		default:
			return p.end()
		}
	}
	return nil
}

func (p *sedParser) write(file string) {
	if file != "/dev/stdout" && file != "/dev/stderr" {
		p.fx.writes = append(p.fx.writes, file)
	}
}

// sed edits text; its scripts can run commands and write files.
func (c *call) sed() {
	ops := scan(c.args, optSpec{short: "efl", long: []string{"expression", "file", "line-length"}})
	if ops.computed {
		c.grey("an argument of sed is only known at run time")
	}
	c.local("sed edits text")
	var scripts []arg
	for _, o := range ops.opts {
		switch {
		case o.name == "-e" || isLong(o.name, "expression"):
			scripts = append(scripts, o.val)
		case o.name == "-f" || isLong(o.name, "file"):
			if o.val.val != "/dev/stdin" && o.val.val != "-" {
				c.risky("interpreter: sed -f runs the script in " + o.val.val + ", which the gate does not read")
			} else {
				c.risky("indirection: sed reads its script from its input")
			}
			return
		}
	}
	files := ops.operands
	if len(scripts) == 0 && len(files) > 0 {
		scripts, files = files[:1], files[1:]
	}
	if !ops.has("--sandbox") && len(scripts) > 0 {
		// sed joins its -e fragments with newlines before parsing.
		joined := scripts[0]
		for _, s := range scripts[1:] {
			joined.val += "\n" + s.val
			joined.dyn = joined.dyn || s.dyn
		}
		c.sedScript(joined)
	}
	if ops.has("-i", "--in-place") || hasInPlace(c.args) {
		for _, f := range files {
			c.writes(f, "sed -i rewrites")
		}
	}
}

// hasInPlace finds -i with an attached suffix, which scan reads as flags.
func hasInPlace(args []arg) bool {
	for _, x := range args {
		if x.val == "--" {
			return false
		}
		if strings.HasPrefix(x.val, "-") && !strings.HasPrefix(x.val, "--") && strings.Contains(x.val, "i") {
			return true
		}
	}
	return false
}

func (c *call) sedScript(s arg) {
	if s.lead && !strings.ContainsAny(strings.TrimLeft(s.val, "$"), "/;") {
		c.risky("indirection: the sed script " + s.val + " is only known at run time and may run commands")
		return
	}
	fx, err := scanSed(s.val)
	switch {
	case err != nil:
		c.risky("indirection: the sed script cannot be checked (" + err.Error() + ")")
	case fx.execs:
		c.risky("interpreter: the sed script runs shell commands (e)")
	case s.dyn:
		c.grey("part of the sed script is only known at run time")
	}
	for _, w := range fx.writes {
		c.writes(arg{val: w, dyn: s.dyn}, "the sed script writes")
	}
	for _, r := range fx.reads {
		if why := c.a.secretWord(arg{val: r, dyn: s.dyn}, false, false); why != "" {
			c.secretRead("the sed script reads " + r + ": " + why)
		}
	}
}
