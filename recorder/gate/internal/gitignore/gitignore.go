// Package gitignore tells which paths git's ignore files exclude, for the
// gate to know what `git add .` would stage. Where a pattern's meaning is
// in doubt it errs towards "not ignored": an ignore pattern it cannot read
// matches nothing and a negation it cannot read matches everything, so a
// doubt makes the gate look at more files, never fewer.
package gitignore

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Rules are the patterns of one ignore file, which apply below Base: the
// directory that holds a .gitignore, relative to the top of the work tree
// ("" for the top, and for info/exclude and core.excludesFile).
type Rules struct {
	Base     string
	patterns []pattern
}

type pattern struct {
	re       *regexp.Regexp // nil: matches nothing, or everything when always
	negate   bool           // "!pattern": re-includes
	dirOnly  bool           // "pattern/": directories only
	basename bool           // no slash: matched against the last component
	always   bool           // a negation whose meaning is in doubt
}

// Parse reads an ignore file's text as git does: one pattern a line, a
// UTF-8 byte order mark and a CR before each newline dropped, "#" comments
// and blank lines skipped, unescaped trailing spaces trimmed.
func Parse(base string, data []byte) *Rules {
	r := &Rules{Base: strings.Trim(base, "/")}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
			line = bytes.TrimSuffix(line, []byte("\r"))
		} else {
			data = nil
		}
		if p, ok := parseLine(string(line)); ok {
			r.patterns = append(r.patterns, p)
		}
	}
	return r
}

// parseLine turns one line into a pattern; ok is false for comments and
// blank lines.
func parseLine(s string) (pattern, bool) {
	if s == "" || s[0] == '#' {
		return pattern{}, false
	}
	s = trimTrailingSpaces(s)
	var p pattern
	if s == "" {
		return pattern{}, false
	}
	if s[0] == '!' {
		p.negate = true
		s = s[1:]
	}
	if s == "" {
		return pattern{}, false
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = s[:len(s)-1]
	}
	p.basename = !strings.Contains(s, "/")
	s = strings.TrimPrefix(s, "/")
	re, sure := compile(s)
	switch {
	case !sure && p.negate:
		p.always = true
	case sure && re != "":
		p.re = regexp.MustCompile("^" + re + "$")
	}
	return p, true
}

// trimTrailingSpaces drops trailing blanks (spaces only, as git does)
// unless a backslash escapes the last of them.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		end--
	}
	if end < len(s) && backslashed(s, end) {
		end++ // "foo\ " keeps one space
	}
	return s[:end]
}

// backslashed reports whether s[i] is escaped by an odd run of backslashes.
func backslashed(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// compile turns a wildmatch pattern (as git matches ignore patterns, with
// "*" and "?" stopping at "/", "**" spanning directories) into a regular
// expression. sure is false when the pattern holds something whose
// meaning is in doubt; re is "" for a pattern that matches nothing.
func compile(p string) (re string, sure bool) {
	var b strings.Builder
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '*' && strings.HasPrefix(p[i:], "**") && (i == 0 || p[i-1] == '/'):
			j := i
			for j < len(p) && p[j] == '*' {
				j++
			}
			switch {
			case j == len(p):
				b.WriteString(".*") // "a/**": everything inside
				i = j
			case p[j] == '/':
				b.WriteString("(?:.*/)?") // "**/" and "/**/": any directories
				i = j + 1
			default:
				b.WriteString("[^/]*") // "**x": a plain star
				i = j
			}
		case c == '*':
			for i < len(p) && p[i] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
			i++
		case c == '[':
			class, n, ok := bracket(p[i:])
			if !ok {
				return "", false
			}
			b.WriteString(class)
			i += n
		case c == '\\':
			if i+1 == len(p) {
				return "", false // a trailing backslash matches nothing in git; in doubt
			}
			b.WriteString(regexp.QuoteMeta(p[i+1 : i+2]))
			i += 2
		case c >= 0x80:
			return "", false // wildmatch compares bytes; leave non-ASCII to doubt
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			i++
		}
	}
	return b.String(), true
}

// bracket converts the bracket expression at the start of p ("[a-z]",
// "[!.]", "[[:digit:]]") into a regular expression class that never
// matches "/", and says how many bytes it took. ok is false when the
// expression is unterminated, could match "/", or is otherwise in doubt.
func bracket(p string) (class string, n int, ok bool) {
	var b strings.Builder
	i := 1
	b.WriteByte('[')
	negated := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negated {
		b.WriteString("^/")
		i++
	}
	first := true
	var prev byte
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c == ']' && !first:
			b.WriteByte(']')
			return b.String(), i + 1, true
		case c == '[' && strings.HasPrefix(p[i:], "[:"):
			end := strings.Index(p[i+2:], ":]")
			if end < 0 {
				return "", 0, false
			}
			name := p[i+2 : i+2+end]
			switch name {
			case "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit":
			default:
				return "", 0, false
			}
			if name == "punct" || name == "graph" || name == "print" {
				if !negated {
					return "", 0, false // these hold "/"
				}
			}
			b.WriteString(p[i : i+2+end+2])
			i += 2 + end + 1
			prev = 0
		case c == '-' && !first && i+1 < len(p) && p[i+1] != ']':
			hi := p[i+1]
			if hi == '\\' && i+2 < len(p) {
				hi = p[i+2]
				i++
			}
			if prev == 0 || hi < prev || prev <= '/' && '/' <= hi && !negated || hi >= 0x80 {
				return "", 0, false
			}
			b.WriteByte('-')
			b.WriteString(regexp.QuoteMeta(string(hi)))
			i++
			prev = 0
		default:
			if c == '\\' && i+1 < len(p) {
				i++
				c = p[i]
			}
			if c >= 0x80 || c == '/' {
				return "", 0, false
			}
			b.WriteString(classByte(c))
			prev = c
		}
		first = false
	}
	return "", 0, false
}

// classByte writes one byte for inside a regular expression class.
func classByte(c byte) string {
	if strings.IndexByte(`\]^-[`, c) >= 0 {
		return `\` + string(c)
	}
	return string(c)
}

// Match reports whether rel (a path relative to the top of the work tree,
// below r.Base) is ignored by these rules: the last pattern that matches
// decides; matched is false when none does.
func (r *Rules) Match(rel string, dir bool) (ignored, matched bool) {
	sub := rel
	if r.Base != "" {
		var ok bool
		if sub, ok = strings.CutPrefix(rel, r.Base+"/"); !ok {
			return false, false
		}
	}
	name := sub[strings.LastIndexByte(sub, '/')+1:]
	for i := len(r.patterns) - 1; i >= 0; i-- {
		p := &r.patterns[i]
		if p.dirOnly && !dir {
			continue
		}
		hit := p.always
		if p.re != nil {
			if p.basename {
				hit = p.re.MatchString(name)
			} else {
				hit = p.re.MatchString(sub)
			}
		}
		if hit {
			return !p.negate, true
		}
	}
	return false, false
}

// negates reports whether a rule of the stack re-includes what it
// matches (a "!" pattern), or may.
func (s Stack) negates() bool {
	for _, r := range s {
		for _, p := range r.patterns {
			if p.negate {
				return true
			}
		}
	}
	return false
}

// Stack is the ignore files that apply to a path, most important first:
// the .gitignore files from the path's own directory up to the top, then
// $GIT_DIR/info/exclude, then core.excludesFile.
type Stack []*Rules

// Ignored reports whether git takes rel as ignored, judging rel alone (not
// its parent directories, which the caller checks on the way down: git
// never looks inside an ignored directory).
func (s Stack) Ignored(rel string, dir bool) bool {
	for _, r := range s {
		if ignored, matched := r.Match(rel, dir); matched {
			return ignored
		}
	}
	return false
}

// ErrTooMany is returned by Walk when the tree holds more entries than it
// was allowed to look at.
var ErrTooMany = errors.New("more files than the gate looks at")

// WalkOptions say how Walk looks through a tree.
type WalkOptions struct {
	// Rules are the ignore rules that apply to the whole tree besides its
	// .gitignore files: info/exclude, then core.excludesFile.
	Rules Stack
	// NoIgnore applies no ignore rule at all (git add --force, or a tool
	// that reads ignored files).
	NoIgnore bool
	// NoHidden skips files and directories whose names start with a dot.
	NoHidden bool
	// Links also reports symbolic links, which git stages as links but
	// some readers follow.
	Links bool
	// SkipDir, when set, leaves out the directories whose names it
	// reports (grep --exclude-dir).
	SkipDir func(name string) bool
	// GitConfig also reports the config file of each .git directory met
	// (as .git/config, whether it exists or not): a reader that is not
	// git reads it.
	GitConfig bool
	// Max is how many directory entries Walk looks at before it gives up
	// with ErrTooMany.
	Max int
	// List, when set, lists a directory (a caller that reads directories
	// its own way); os.ReadDir does otherwise. Its ErrTooMany ends the
	// walk; a directory it cannot read is left out, as git stages nothing
	// from it.
	List func(dir string) ([]Entry, error)
	// IgnoreFiles are the names of the ignore files read in each
	// directory, the least important first; nil means .gitignore alone.
	// ripgrep also reads .ignore and .rgignore.
	IgnoreFiles []string
	// RepoBoundary drops the rules from above at a directory holding a
	// .git (a repository inside the tree), as ripgrep does.
	RepoBoundary bool
}

// Entry is one name in a directory, with its type.
type Entry struct {
	Name      string
	Dir, Link bool // a directory (not a link to one); a symbolic link
}

// Walk calls fn, in no set order, with the path relative to top of every
// regular file below dir that git's ignore rules leave for `git add` to
// stage (and of every link, with link set, when o.Links): top is the work
// tree's top and dir a directory in it. Like git it never enters .git, nor
// a directory given by a symbolic link, nor an ignored directory; it reads
// a .gitignore only when it is a regular file. fn returns false to stop.
func Walk(top, dir string, o WalkOptions, fn func(rel string, link bool) bool) error {
	w := walker{top: top, o: o, left: o.Max, fn: fn}
	rel, ok := relTo(top, dir)
	if !ok {
		return nil
	}
	stack := append(Stack(nil), o.Rules...)
	if !o.NoIgnore && rel != "" {
		// The directories above dir: their .gitignore files apply, and
		// none of them may be ignored.
		stack = w.pushAll(stack, "")
		parts := strings.Split(rel, "/")
		for i := range parts {
			p := strings.Join(parts[:i+1], "/")
			if parts[i] == ".git" || stack.Ignored(p, true) {
				return nil
			}
			if i < len(parts)-1 {
				stack = w.pushAll(stack, p)
			}
		}
	}
	_, err := w.dir(rel, stack)
	return err
}

type walker struct {
	top  string
	o    WalkOptions
	left int
	fn   func(rel string, link bool) bool
}

// ignoreFiles are the names of the ignore files the walk reads.
func (w *walker) ignoreFiles() []string {
	if w.o.IgnoreFiles == nil {
		return []string{".gitignore"}
	}
	return w.o.IgnoreFiles
}

// pushAll puts the ignore files of directory rel in front of the stack.
func (w *walker) pushAll(stack Stack, rel string) Stack {
	for _, name := range w.ignoreFiles() {
		stack = w.push(stack, rel, name)
	}
	return stack
}

// push puts the ignore file name of directory rel in front of the stack.
func (w *walker) push(stack Stack, rel, name string) Stack {
	p := w.abs(rel) + "/" + name
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxIgnoreFile {
		return stack
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return stack
	}
	return append(Stack{Parse(rel, data)}, stack...)
}

// maxIgnoreFile bounds the .gitignore read: a larger one (git reads it)
// is left out, which can only make more files count as staged.
const maxIgnoreFile = 1 << 20

func (w *walker) abs(rel string) string {
	if rel == "" {
		return w.top
	}
	return w.top + "/" + rel
}

// dir walks directory rel; more is false once fn asked to stop.
func (w *walker) dir(rel string, stack Stack) (more bool, err error) {
	entries, err := w.list(w.abs(rel))
	if err != nil {
		if errors.Is(err, ErrTooMany) {
			return false, err
		}
		return true, nil
	}
	if !w.o.NoIgnore {
		if w.o.RepoBoundary && rel != "" && slices.ContainsFunc(entries, func(e Entry) bool { return e.Name == ".git" }) {
			stack = nil
		}
		for _, name := range w.ignoreFiles() {
			for _, e := range entries {
				if e.Name == name && !e.Dir && !e.Link {
					stack = w.push(stack, rel, name) // read only when it is a regular file, as git does
					break
				}
			}
		}
	}
	// A negation may let a hidden file through (ripgrep): then hidden
	// files are looked at too.
	noHidden := w.o.NoHidden && !stack.negates()
	for _, e := range entries {
		if w.left--; w.left < 0 {
			return false, ErrTooMany
		}
		if noHidden && e.Name[0] == '.' {
			continue
		}
		p := e.Name
		if rel != "" {
			p = rel + "/" + e.Name
		}
		if e.Name == ".git" {
			if w.o.GitConfig && e.Dir && (w.o.SkipDir == nil || !w.o.SkipDir(e.Name)) && !w.fn(p+"/config", false) {
				return false, nil
			}
			continue
		}
		switch {
		case e.Dir:
			if !w.o.NoIgnore && stack.Ignored(p, true) || w.o.SkipDir != nil && w.o.SkipDir(e.Name) {
				continue
			}
			if more, err := w.dir(p, stack); !more || err != nil {
				return more, err
			}
		case !e.Link || w.o.Links:
			if !w.o.NoIgnore && stack.Ignored(p, false) {
				continue
			}
			if !w.fn(p, e.Link) {
				return false, nil
			}
		}
	}
	return true, nil
}

// list lists directory dir with o.List, or os.ReadDir.
func (w *walker) list(dir string) ([]Entry, error) {
	if w.o.List != nil {
		return w.o.List(dir)
	}
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	entries := make([]Entry, 0, len(des))
	for _, d := range des {
		t := d.Type()
		if t.IsDir() || t.IsRegular() || t&os.ModeSymlink != 0 {
			entries = append(entries, Entry{Name: d.Name(), Dir: t.IsDir(), Link: t&os.ModeSymlink != 0})
		}
	}
	return entries, nil
}

// relTo is p relative to top ("" for top itself); ok is false when p
// lies outside it.
func relTo(top, p string) (string, bool) {
	if p == top {
		return "", true
	}
	rel, ok := strings.CutPrefix(p, top+"/")
	return rel, ok && rel != ""
}
