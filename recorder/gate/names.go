package gate

import (
	"os"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// This file holds what the gate knows about names and values that only
// exist at run time: secret variables of many spellings, environment
// reads the gate cannot see (a jq program in a file, a nameref), and file
// names listed or built by the command line itself.

// secretVarSpelling reports variable names, upper-cased, that hold
// credentials under spellings secretVar's words miss: *_PWD (MYSQL_PWD;
// PWD and OLDPWD are directories), *_JWT, passphrases, and the URLs of
// data stores and brokers, which carry a user and a password
// (redis://:pw@host, amqp://user:pw@host). Other URLs (API_URL, BASE_URL)
// and proxies are left alone.
func secretVarSpelling(u string) bool {
	switch u {
	case "PWD", "OLDPWD":
		return false
	}
	if strings.HasSuffix(u, "_PWD") || strings.Contains(u, "JWT") || strings.Contains(u, "PASSPHRASE") ||
		strings.Contains(u, "CONNECTION_STRING") || strings.Contains(u, "CONN_STR") {
		return true
	}
	if !strings.HasSuffix(u, "_URL") && !strings.HasSuffix(u, "_URI") && !strings.HasSuffix(u, "_URLS") {
		return false
	}
	// By the words of the name (UPGRADE_URL holds no PG): one that starts
	// or ends with a data store's name (MONGODB_URI, RABBITMQ_URL, MYDB_URL).
	for part := range strings.SplitSeq(u, "_") {
		for _, w := range [...]string{"REDIS", "MONGO", "POSTGRES", "PG", "MYSQL", "MARIADB", "DB", "DATABASE", "SQL", "AMQP",
			"RABBIT", "BROKER", "CACHE", "ELASTIC", "OPENSEARCH", "KAFKA", "NATS", "SMTP", "MAIL", "MEMCACHE", "CLICKHOUSE",
			"NEO4J", "CASSANDRA", "COUCH", "INFLUX", "CELERY", "QUEUE", "MQ", "LDAP", "FTP", "SFTP", "DSN"} {
			if strings.HasPrefix(part, w) || strings.HasSuffix(part, w) {
				return true
			}
		}
	}
	return false
}

// jqPrograms reports the jq family: programs whose first operand is a jq
// program, which can read the environment ($ENV, env).
func jqProgram(name string) bool {
	switch name {
	case "jq", "gojq", "jaq", "yq", "xq", "tomlq", "jqp", "gojq-yaml":
		return true
	}
	return false
}

// jqModule finds jq's import and include directives, which load a module
// the gate does not see.
var jqModule = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^A-Za-z0-9_$.])(import|include)\s*"`) })

// yqEnv finds yq's environment operators: env(NAME), strenv(NAME) and
// envsubst.
var yqEnv = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^A-Za-z0-9_$.])(str)?env\s*\(|envsubst`) })

// yqFileOps finds mikefarah yq's operators that read a file the program
// names (load, load_str, load_xml, load_props, load_base64, …) and eval,
// which runs a program taken from the data: load_str("~/.ssh/id_rsa").
var yqFileOps = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_$.])(load(_[a-z0-9]+)?|eval)\s*\(`)
})

// programEnv says why a jq-like program may read the environment, or "":
// its program text reads it ($ENV, env, yq's env(NAME)), or the program
// comes from somewhere the gate does not look (-f FILE, a module search
// path given with -L, an import or include directive).
func (c *call) programEnv() string {
	if why := c.configDump(); why != "" {
		return why
	}
	if !jqProgram(c.name) {
		return ""
	}
	yq := c.name == "yq" || c.name == "xq" || c.name == "tomlq"
	for i, x := range c.args {
		v := x.val
		switch {
		case v == "--":
			return ""
		case strings.Contains(v, "$ENV") || jqEnv().MatchString(v) || yqEnv().MatchString(v):
			return c.name + " reads the environment ($ENV, env)"
		case yqFileOps().MatchString(v) && !fileOpsOff(c.args):
			return c.name + " reads files its program names (load, load_str, eval), which the gate does not judge"
		case v == "--from-file" || strings.HasPrefix(v, "--from-file="):
			return c.name + " " + v + " runs a program from a file, which the gate does not read: it may print the environment"
		case v == "--library-path" || strings.HasPrefix(v, "--library-path=") || strings.HasPrefix(v, "-L"):
			return c.name + " " + v + " loads modules the gate does not read: they may print the environment"
		case jqModule().MatchString(v):
			return c.name + " loads a module the gate does not read (import, include): it may print the environment"
		case yq && v == "-f" && i+1 < len(c.args) && c.args[i+1].val != "extract" && c.args[i+1].val != "process":
			// mikefarah's yq takes -f for --front-matter; the Python yq
			// hands it to jq, which reads the program from the file.
			return c.name + " -f " + c.args[i+1].val + " may run a program from a file, which the gate does not read: it may print the environment"
		case !yq && len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v, 'f') > 0:
			return c.name + " " + v + " runs a program from a file, which the gate does not read: it may print the environment"
		}
	}
	if i := jqProgramIndex(c.args, yq); i >= 0 && c.args[i].dyn {
		// A program made at run time: what it may become.
		for _, s := range c.shapes(c.args[i].val) {
			if strings.IndexByte(s.text, lineHole) >= 0 || s.list != nil {
				return c.name + " runs the program " + c.args[i].val + ", made from output the gate cannot see: it may print the environment"
			}
			if strings.Contains(s.text, "$ENV") || jqEnv().MatchString(s.text) || yqEnv().MatchString(s.text) || jqModule().MatchString(s.text) ||
				yqFileOps().MatchString(s.text) && !fileOpsOff(c.args) {
				return c.name + " runs the program " + c.args[i].val + ", which may be " + s.text + ": it reads the environment"
			}
		}
	}
	return ""
}

// fileOpsOff reports yq's --security-disable-file-ops, which turns the
// load operators off.
func fileOpsOff(args []arg) bool {
	for _, x := range args {
		if x.val == "--" {
			return false
		}
		if x.val == "--security-disable-file-ops" {
			return true
		}
	}
	return false
}

// jqProgramIndex is the index in args of a jq-like program's program
// text (its first operand; after yq's eval subcommand), or -1.
func jqProgramIndex(args []arg, yq bool) int {
	first := true
	for i := 0; i < len(args); i++ {
		v := args[i].val
		switch {
		case v == "--":
			if i+1 < len(args) {
				return i + 1
			}
			return -1
		case v == "--arg" || v == "--argjson" || v == "--slurpfile" || v == "--rawfile":
			i += 2
		case v == "--indent" || yq && (v == "-I" || v == "-o" || v == "-p" || v == "--output-format" || v == "--input-format"):
			i++
		case v == "--args" || v == "--jsonargs":
		case strings.HasPrefix(v, "-") && v != "-":
		case yq && first && (v == "e" || v == "eval" || v == "ea" || v == "eval-all"):
			first = false
		default:
			return i
		}
	}
	return -1
}

// namerefs records the variables that a declaration makes references to
// other variables (declare -n r=NAME, local -n, typeset -n): expanding r
// expands the variable it names, a secret one's value when NAME holds a
// secret or is only known at run time (or set later: declare -n r;
// r=NAME).
func (c *collector) namerefs(d *syntax.DeclClause) {
	switch d.Variant.Value {
	case "declare", "typeset", "local":
	default:
		return // export -n takes the export away
	}
	ref := false
	for _, as := range d.Args {
		if as.Name == nil && as.Value != nil {
			if v := as.Value.Lit(); len(v) > 1 && v[0] == '-' && strings.IndexByte(v, 'n') > 0 {
				ref = true
			}
		}
	}
	if !ref {
		return
	}
	c.anyRefs = true
	for _, as := range d.Args {
		if as.Name == nil {
			continue
		}
		target, static := "", true
		if as.Value != nil {
			target, static = literalText(c.src, as.Value)
		}
		if static && target != "" && !secretVar(target) {
			continue // a reference to a variable that holds no secret
		}
		if c.refs == nil {
			c.refs = map[string]string{}
		}
		if target == "" || !static {
			target = "a variable named at run time"
		}
		c.refs[as.Name.Value] = target
	}
}

// refExpansion says why expanding pe reads a secret through a nameref
// made earlier in the script, or "".
func (c *collector) refExpansion(pe *syntax.ParamExp) string {
	if pe.Param == nil || c.refs == nil || pe.Length || pe.Width || pe.Excl {
		return ""
	}
	target, ok := c.refs[pe.Param.Value]
	if !ok || pe.Exp != nil && (pe.Exp.Op == syntax.AlternateUnset || pe.Exp.Op == syntax.AlternateUnsetOrNull) {
		return ""
	}
	return secretPrefix + "$" + pe.Param.Value + " is a reference (declare -n) to " + target + ", which holds a secret that the command gets"
}

// Names made at run time. A word given to a reader that holds expansions
// (cat $x, cat `find src -type f`, cat $(echo .e)nv) names whatever its
// expansions may become. The gate works that out as far as it can see:
// a variable set earlier in the line (x=..., a=(...), for f in ...) holds
// what it was set to; echo, printf and compgen -G print what their words
// say; a lister (find, ls, git ls-files, git status, fd, rg --files)
// prints the names of files below where it looks. What it cannot see (the
// output of any other program, or of a filter that rewrites a list) is a
// hole that may be any text: a pattern of literal text and holes matches
// hidden names too (*nv matches .env), and a word that is only a hole,
// given to a program that prints what files hold, may name any file where
// the reader runs, so a credential file there asks.

// Holes in a name's text: lineHole stands for the output of something
// the line runs that the gate cannot see; outsideHole for a variable the
// line did not set (from the environment), judged only by the literal text
// around it, as before.
const (
	lineHole    = '\x00'
	outsideHole = '\x01'
)

// maxNameShapes bounds the shapes a word is worked out into; maxNameDepth
// bounds variables whose values refer to other variables.
const (
	maxNameShapes = 32
	maxNameDepth  = 4
)

// namer works out what words may become, within a budget of words
// parsed (maxNameWork) for one word of a command.
type namer struct {
	c    *call
	left int
}

// maxNameWork bounds the words parsed to work out one word.
const maxNameWork = 256

// shapes works out what the word text v may become.
func (c *call) shapes(v string) []nameShape {
	n := namer{c: c, left: maxNameWork}
	return n.nameShapes(v, 0)
}

// nameShape is one thing a word may become.
type nameShape struct {
	text string // literal text with holes
	glob bool   // text holds live pattern characters, expanded as the shell does
	// list is set when the word is a lister's output: patterns dir/* (any
	// file below dir) or dir/NAME (files called NAME below dir), as
	// listing models them; hidden says whether hidden files are listed.
	list   []arg
	hidden bool
	lsOnly bool // the lister is ls, which lists one level, not a tree
	lsDeep bool // ... unless an option only known at run time asks for a tree
}

// holeShape is a word that may be anything.
var holeShape = nameShape{text: string(lineHole)}

// nameShapes works out what the word text v (quotes removed, expansions as
// written) may become.
func (n *namer) nameShapes(v string, depth int) []nameShape {
	c := n.c
	if depth > maxNameDepth || n.left <= 0 {
		return []nameShape{holeShape}
	}
	n.left--
	p := c.a.g.parsers.Get().(*syntax.Parser)
	w, err := p.Document(strings.NewReader(v))
	c.a.g.parsers.Put(p)
	if err != nil || w == nil {
		return []nameShape{holeShape}
	}
	out := []nameShape{{}}
	for _, part := range w.Parts {
		pieces := n.partShapes(v, part, depth)
		if len(w.Parts) > 1 {
			for i := range pieces {
				if pieces[i].list != nil {
					pieces[i] = holeShape // a list inside a longer word: any text
				}
			}
		}
		next := make([]nameShape, 0, len(out)*len(pieces))
		for _, o := range out {
			for _, pc := range pieces {
				if len(next) == maxNameShapes {
					return []nameShape{holeShape}
				}
				next = append(next, nameShape{text: o.text + pc.text, glob: o.glob || pc.glob, list: pc.list, hidden: pc.hidden, lsOnly: pc.lsOnly})
			}
		}
		out = next
	}
	return out
}

// partShapes works out what one part of a word may become.
func (n *namer) partShapes(src string, part syntax.WordPart, depth int) []nameShape {
	switch p := part.(type) {
	case *syntax.Lit:
		t := dqUnescape(p.Value)
		return []nameShape{{text: t, glob: strings.ContainsAny(t, "*?[")}}
	case *syntax.ParamExp:
		return n.paramShapes(p, depth)
	case *syntax.CmdSubst:
		return n.substShapes(src, p, depth)
	case *syntax.ProcSubst:
		return []nameShape{{text: "/dev/fd/63"}}
	}
	return []nameShape{{text: string(outsideHole)}}
}

// paramShapes works out what a parameter expansion may become: the values
// the line set the variable to, the home folder, the working directory.
func (n *namer) paramShapes(pe *syntax.ParamExp, depth int) []nameShape {
	c := n.c
	if pe.Param == nil || pe.Length || pe.Width || pe.Excl {
		return []nameShape{{text: string(outsideHole)}}
	}
	name := pe.Param.Value
	if shellSet(name) {
		return []nameShape{holeShape}
	}
	vals, set := c.a.valuesOf(name)
	if !set {
		switch {
		case name == "HOME" && c.a.g.home != "":
			return []nameShape{{text: c.a.g.home}}
		case name == "PWD" && c.a.cwd != "":
			return []nameShape{{text: c.a.cwd}}
		}
		hole := nameShape{text: string(outsideHole)}
		if v := os.Getenv(name); v != "" && !strings.ContainsAny(v, " \t\n\x00") && pe.Exp == nil && pe.Repl == nil && pe.Slice == nil {
			// The environment's value as the gate sees it now, which the
			// command most likely gets (cat $AWS_SHARED_CREDENTIALS_FILE),
			// besides what the literal text around it says.
			return []nameShape{{text: v, glob: strings.ContainsAny(v, "*?[")}, hole}
		}
		return []nameShape{hole}
	}
	if pe.Exp != nil || pe.Repl != nil || pe.Slice != nil {
		return []nameShape{holeShape} // a value the line set, changed: any text
	}
	var out []nameShape
	for _, x := range vals {
		switch {
		case x.dyn:
			out = append(out, n.nameShapes(x.val, depth+1)...)
		case x.glob:
			out = append(out, nameShape{text: x.val, glob: true})
		default:
			out = append(out, nameShape{text: x.val})
		}
		if len(out) > maxNameShapes {
			return []nameShape{holeShape}
		}
	}
	return out
}

// valuesOf lists the words the line sets the variable name to, in the
// script being classified: assignments (x=..., a=(...), declare x=...)
// and for loops. set is false when the line does not set it.
func (a *analysis) valuesOf(name string) (vals []arg, set bool) {
	if a.level == 0 || a.level > len(a.cols) {
		return nil, false
	}
	col := a.cols[a.level-1]
	src := col.src
	add := func(as *syntax.Assign) {
		if as.Name == nil || as.Name.Value != name || as.Naked {
			return
		}
		set = true
		if as.Array != nil {
			for _, el := range as.Array.Elems {
				if el.Value != nil {
					vals = append(vals, words(src, []*syntax.Word{el.Value})...)
				}
			}
			return
		}
		if as.Value != nil {
			v := resolveWord(src, as.Value)
			if as.Append {
				// x+=nv: what x held before, then nv.
				v = arg{val: "$(?)" + v.val, dyn: true}
			}
			vals = append(vals, v)
		} else {
			vals = append(vals, arg{})
		}
	}
	for _, s := range a.sites {
		switch {
		case s.kind == siteCall:
			for _, as := range s.call.Assigns {
				add(as)
			}
		case s.kind == siteDecl:
			for _, as := range s.decl.Args {
				add(as)
			}
		}
	}
	for _, fc := range col.fors {
		if it := fc.Loop.(*syntax.WordIter); it.Name != nil && it.Name.Value == name {
			set = true
			vals = append(vals, words(src, it.Items)...)
		}
	}
	if a.setsOutOfSight(name, col) {
		set = true
		vals = append(vals, arg{val: "$(?)", dyn: true})
	}
	return vals, set
}

// setsOutOfSight reports whether the script may set the variable name to
// a value the gate does not see: printf -v, read, mapfile, readarray,
// getopts, wait -p, let, ${name:=...}, or through a nameref (declare -n
// r=name; r=...), which may set any variable.
func (a *analysis) setsOutOfSight(name string, col *collector) bool {
	if col.anyRefs || strings.Contains(col.src, "${"+name+":=") || strings.Contains(col.src, "${"+name+"=") {
		return true
	}
	for _, s := range a.sites {
		if s.kind != siteCall || len(s.call.Args) < 2 {
			continue
		}
		switch s.call.Args[0].Lit() {
		case "printf", "read", "mapfile", "readarray", "getopts", "wait", "let":
			for _, w := range s.call.Args[1:] {
				if l := w.Lit(); l == name || strings.HasPrefix(l, name+"=") || strings.HasPrefix(l, "-v"+name) {
					return true
				}
			}
		}
	}
	return false
}

// redirectName says why a file given to a command's input (cmd < WORD)
// may be a credential file once its expansions are known, or "".
func (a *analysis) redirectName(w arg) string {
	c := call{a: a, name: "cat"}
	return c.runTimeName(0, w, reading{})
}

// substShapes works out what a command substitution prints, as names.
func (n *namer) substShapes(src string, cs *syntax.CmdSubst, depth int) []nameShape {
	c := n.c
	if len(cs.Stmts) != 1 {
		return []nameShape{holeShape}
	}
	var calls []*syntax.CallExpr
	var collect func(st *syntax.Stmt) bool
	collect = func(st *syntax.Stmt) bool {
		switch cmd := st.Cmd.(type) {
		case *syntax.CallExpr:
			if len(cmd.Args) == 0 || len(cmd.Assigns) > 0 {
				return false
			}
			calls = append(calls, cmd)
			return true
		case *syntax.BinaryCmd:
			return (cmd.Op == syntax.Pipe || cmd.Op == syntax.PipeAll) && collect(cmd.X) && collect(cmd.Y)
		}
		return false
	}
	if !collect(cs.Stmts[0]) {
		return []nameShape{holeShape}
	}
	argv := words(src, calls[0].Args)
	if !argv[0].static() {
		return []nameShape{holeShape}
	}
	name, _ := progName(argv[0].val)
	args := argv[1:]
	rewritten := false // a filter that changes the text, not only picks lines
	for _, f := range calls[1:] {
		fw := words(src, f.Args)
		fname, _ := progName(fw[0].val)
		switch fname {
		case "sort", "uniq", "head", "tail", "tac", "shuf":
			continue
		case "grep", "egrep", "fgrep":
			if !hasArgPrefix(fw[1:], "-o") {
				continue
			}
		}
		rewritten = true
	}
	switch name {
	case "echo", "printf", "compgen", "pwd", "realpath", "readlink":
		if rewritten {
			return []nameShape{holeShape}
		}
		return n.printedShapes(name, args, depth)
	}
	if name == "ls" && !hasArgPrefix(args, "-R") && !hasArg(args, "--recursive") {
		// ls lists its operands and one level of the directories among
		// them.
		roots := scan(args, optSpec{short: "IwT", long: []string{"ignore", "hide", "width", "tabsize", "format", "sort", "time", "color", "block-size", "quoting-style", "indicator-style", "time-style"}})
		list := roots.operands
		if len(list) == 0 {
			list = []arg{{val: "."}}
		}
		// An operand that may be an option (a file named -aR matched by
		// a pattern) may make it list hidden files, and recursively.
		out := []nameShape{{list: list, hidden: listsHidden(name, args) || roots.computed, lsOnly: true, lsDeep: roots.computed}}
		if rewritten {
			out = append(out, holeShape)
		}
		return out
	}
	list, ok := c.listing(name, args)
	hidden := listsHidden(name, args)
	if name == "git" && len(args) > 0 && args[0].val == "status" {
		// git status prints the files that differ and those git does not
		// track (not what it ignores), below the work tree's top.
		list, ok, hidden = []arg{{val: "./*", glob: true}}, true, true
	}
	if !ok {
		return []nameShape{holeShape}
	}
	out := []nameShape{{list: list, hidden: hidden}}
	if rewritten {
		out = append(out, holeShape) // a rewritten list: any text
	}
	return out
}

// printedShapes works out what echo, printf, compgen -G, pwd, realpath and
// readlink print, one shape a word (an unquoted substitution is split into
// words; a quoted one is judged by each word too, which asks more, not less).
func (n *namer) printedShapes(name string, args []arg, depth int) []nameShape {
	c := n.c
	var out []nameShape
	add := func(x arg) {
		switch {
		case x.dyn:
			out = append(out, n.nameShapes(x.val, depth+1)...)
		default:
			out = append(out, nameShape{text: x.val, glob: x.glob})
			if name == "echo" && strings.IndexByte(x.val, '\\') >= 0 {
				out = append(out, nameShape{text: ansiC(x.val)}) // echo -e, or sh's echo
			}
		}
	}
	switch name {
	case "pwd":
		if c.a.cwd == "" {
			return []nameShape{holeShape}
		}
		return []nameShape{{text: c.a.cwd}}
	case "echo", "realpath", "readlink":
		for _, x := range args {
			if x.mayOpt() && !x.dyn {
				continue
			}
			add(x)
		}
	case "compgen":
		for i, x := range args {
			if x.is("-G") && i+1 < len(args) {
				add(arg{val: args[i+1].val, dyn: args[i+1].dyn, glob: true})
			}
			if x.is("-f") && i+1 < len(args) {
				add(arg{val: args[i+1].val + "*", dyn: args[i+1].dyn, glob: true})
			}
		}
		if out == nil {
			return []nameShape{holeShape}
		}
	case "printf":
		if len(args) == 0 || !args[0].static() || args[0].val == "-v" {
			return []nameShape{holeShape}
		}
		vals := make([]string, 0, len(args)-1)
		for _, x := range args[1:] {
			if x.dyn || x.glob {
				vals = append(vals, string(lineHole))
			} else {
				vals = append(vals, x.val)
			}
		}
		for _, f := range strings.Fields(printfText(ansiC(args[0].val), vals)) {
			out = append(out, nameShape{text: f})
		}
	}
	if len(out) > maxNameShapes {
		return []nameShape{holeShape}
	}
	return out
}

// maxPrintfText bounds the text printfText makes.
const maxPrintfText = 4096

// printfText is what printf prints for format and values, as far as names
// go: %s and %b print a value, %% a percent sign; any other conversion
// (numbers, %q) prints a hole; backslash escapes become the character or
// a blank. The format is reused while values remain, as printf does.
func printfText(format string, vals []string) string {
	var b strings.Builder
	next := 0
	for {
		used := false
		for i := 0; i < len(format) && b.Len() < maxPrintfText; i++ {
			ch := format[i]
			switch {
			case ch == '\\' && i+1 < len(format):
				i++
				switch format[i] {
				case '\\', '"', '\'':
					b.WriteByte(format[i])
				default:
					b.WriteByte(' ')
				}
			case ch == '%' && i+1 < len(format) && format[i+1] == '%':
				i++
				b.WriteByte('%')
			case ch == '%':
				j := i + 1
				for j < len(format) && strings.IndexByte("-+ #0123456789.*", format[j]) >= 0 {
					j++
				}
				if j == len(format) {
					b.WriteByte('%')
					break
				}
				v := ""
				if next < len(vals) {
					v = vals[next]
					next++
					used = true
				}
				switch format[j] {
				case 's':
					b.WriteString(v)
				case 'b':
					b.WriteString(ansiC(v))
				default:
					b.WriteByte(lineHole)
				}
				i = j
			default:
				b.WriteByte(ch)
			}
		}
		if !used || next >= len(vals) || b.Len() >= maxPrintfText {
			return b.String()
		}
	}
}

// printsContents reports programs that print, copy or send what the files
// named to them hold, for which a name that may be any file is a read of
// any file where they run.
func printsContents(name string) bool {
	switch name {
	case "cat", "tac", "nl", "head", "tail", "less", "more", "most", "bat", "batcat", "base64", "base32", "basenc",
		"xxd", "od", "hexdump", "hd", "strings", "sed", "awk", "gawk", "mawk", "cut", "sort", "uniq", "paste", "join",
		"fold", "fmt", "pr", "column", "rev", "expand", "unexpand", "grep", "egrep", "fgrep", "zgrep", "rg", "ag",
		"ack", "ugrep", "diff", "cmp", "comm", "jq", "yq", "gojq", "jaq", "iconv", "zcat", "bzcat", "xzcat", "zstdcat",
		"gzip", "bzip2", "xz", "zstd", "cp", "mv", "openssl", "gpg", "tar", "zip", "7z", "curl", "wget", "scp",
		"rsync", "dd", "install", "split", "csplit", "shuf", "look", "vim", "vi", "view", "nano", "emacs", "ex",
		"perl", "python", "python3", "ruby", "node":
		return true
	}
	return false
}

// runTimeName says why the word x, given to the command as a file to read
// as rd reads, may name credential files once its expansions are known,
// or "".
func (c *call) runTimeName(i int, x arg, rd reading) string {
	if !x.dyn || !strings.ContainsAny(x.val, "$`") {
		return ""
	}
	if i > 0 && i <= len(c.args) && optionValue(c.name, c.args[i-1]) {
		return "" // the value of an option (head -n $n), not a file
	}
	if jqProgram(c.name) {
		if i > 1 && i <= len(c.args) && (c.args[i-2].is("--arg") || c.args[i-2].is("--argjson")) {
			return "" // jq --arg NAME VALUE: a string for the program
		}
		if i == jqProgramIndex(c.args, c.name == "yq" || c.name == "xq" || c.name == "tomlq") {
			return "" // the program, judged by programEnv
		}
	}
	v := x.val
	if strings.HasPrefix(v, "-") {
		// An option: the value of --opt=VALUE may name a file.
		_, val, ok := strings.Cut(v, "=")
		if !ok {
			return ""
		}
		v = val
	}
	contents := printsContents(c.name) || c.name == "git" && hasArg(c.args, "--no-index")
	for _, s := range c.a.splitShapes(c.shapes(v)) {
		if why := c.shapeSecret(s, rd, contents); why != "" {
			return why
		}
	}
	return ""
}

// shapeSecret judges one shape of a name.
func (c *call) shapeSecret(s nameShape, rd reading, contents bool) string {
	a := c.a
	if s.list != nil {
		return c.listSecret(s)
	}
	if !strings.ContainsAny(s.text, string(lineHole)+string(outsideHole)) {
		if s.text == "" {
			return ""
		}
		if why := a.secretIn(arg{val: s.text, glob: s.glob}, rd); why != "" {
			return "it may be " + s.text + ": " + why
		}
		return ""
	}
	// A pattern: where its literal start says it lies, and what names
	// it may end in.
	first := strings.IndexAny(s.text, string(lineHole)+string(outsideHole))
	dir := s.text[:strings.LastIndexByte(s.text[:first], '/')+1]
	rest := s.text[len(dir):]
	var real string
	if d := strings.TrimSuffix(dir, "/"); dir != "" {
		if d == "" {
			d = "/"
		}
		if p, ok := a.pathWord(d); ok {
			real = a.placeAbs(p, true).real
		}
		if why := a.g.secretPath(real); why != "" {
			return "it lies in " + dir + ", where " + why
		}
	} else {
		real = a.cwd
	}
	anyName := strings.Trim(rest, string(lineHole)+string(outsideHole)+"*") == ""
	if anyName {
		if contents && strings.IndexByte(rest, lineHole) >= 0 {
			// Any name at all, from something the gate cannot see: any
			// file, wherever it lies.
			return "its name is output the gate cannot see, which may name any file, credential files among them"
		}
		return ""
	}
	last := strings.LastIndexAny(rest, string(lineHole)+string(outsideHole))
	if tail := rest[last+1:]; strings.Contains(tail, "/") {
		base := tail[strings.LastIndexByte(tail, '/')+1:]
		if secretName(base) {
			return "it ends in " + base + ", which holds credentials"
		}
		if strings.IndexByte(rest[:last+1], lineHole) >= 0 {
			return a.storeHolds(tail, base)
		}
		return ""
	}
	base := rest
	if i := strings.LastIndexByte(rest, '/'); i >= 0 && i > last {
		base = rest[i+1:]
	}
	for _, sample := range secretSamples {
		if holeMatch(base, sample) {
			return "its name may be " + sample
		}
	}
	for _, fill := range holeFillers {
		if name := fillHoles(base, fill); secretName(name) {
			return "its name may be " + name
		}
	}
	if real != "" && !strings.ContainsRune(rest[:last], '/') {
		entries, _ := a.readDir(real)
		for _, e := range entries {
			if holeMatch(base, e.Name) {
				if why := a.g.secretPath(real + "/" + e.Name); why != "" {
					return "it may be " + e.Name + ", and " + why
				}
			}
		}
	}
	return ""
}

// secretSamples are credential files' names that a name pattern is tried
// against.
var secretSamples = []string{".env", ".env.local", ".env.production", "id_rsa", "id_ed25519", "id_ecdsa", "server.pem",
	"tls.key", "server.key", "credentials", "credentials.json", "secrets.yml", "secrets.json", "master.key", ".netrc",
	".git-credentials", ".pgpass", ".npmrc", ".pypirc", ".vault-token", "environ", "terraform.tfstate", "kubeconfig"}

// holeMatch reports whether name matches pattern, in which a hole or a *
// stands for any text (leading dots and slashes too) and ? for any one
// character.
func holeMatch(pattern, name string) bool {
	// Iterative wildcard matching with one backtracking point.
	p, n, star, mark := 0, 0, -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == name[n]) && !isWild(pattern[p]):
			p++
			n++
		case p < len(pattern) && pattern[p] == '?':
			p++
			n++
		case p < len(pattern) && isWild(pattern[p]):
			star, mark = p, n
			p++
		case star >= 0:
			p, mark = star+1, mark+1
			n = mark
		default:
			return false
		}
	}
	for p < len(pattern) && isWild(pattern[p]) {
		p++
	}
	return p == len(pattern)
}

func isWild(b byte) bool { return b == lineHole || b == outsideHole || b == '*' }

// listSecret judges a lister's output taken as file names: a pattern
// dir/* is any file below dir (the files git tracks there, for git
// ls-files), dir/NAME those called NAME; ls lists one level.
func (c *call) listSecret(s nameShape) string {
	a := c.a
	if s.lsOnly {
		return c.lsSecret(s)
	}
	for _, f := range s.list {
		if !f.glob {
			if why := a.secretIn(f, reading{}); why != "" {
				return "it lists " + f.val + ": " + why
			}
			continue
		}
		i := strings.LastIndexByte(f.val, '/')
		if i < 0 {
			continue
		}
		dir, name := f.val[:i], f.val[i+1:]
		if f.tracked {
			if why, known := a.trackedSecret(dir); known {
				if why != "" {
					return "it lists the files git tracks below " + dir + ": " + why
				}
				continue
			}
		}
		rd := reading{recursive: true, hidden: s.hidden}
		if name != "*" {
			rd.filters = []fileFilter{{include: true, pattern: name}}
		}
		if why := a.secretIn(arg{val: dir, glob: strings.ContainsAny(dir, "*?[")}, rd); why != "" {
			return "it lists files below " + dir + ", where " + why
		}
	}
	return ""
}

// lsSecret judges what ls prints, taken as file names: its operands, and
// the entries of those that are directories (hidden ones with -a or -A).
func (c *call) lsSecret(s nameShape) string {
	a := c.a
	for _, root := range s.list {
		if root.dyn {
			continue // judged as the hole that comes with it
		}
		if why := a.secretIn(root, reading{}); why != "" {
			return "it lists " + root.val + ": " + why
		}
		var dirs []string
		if root.glob {
			matches, ok := a.expand(root)
			if !ok {
				return "it lists " + root.val + ", a pattern that matches too many files to check"
			}
			dirs = matches
		} else if p, ok := a.pathWord(root.val); ok {
			dirs = []string{p}
		}
		for _, d := range dirs {
			real := a.placeAbs(d, true).real
			if real == "" || !a.lookup(real).dir {
				continue
			}
			if s.lsDeep {
				if why := a.secretIn(arg{val: real}, reading{recursive: true, hidden: true}); why != "" {
					return "it may list what lies below " + root.val + ": " + why
				}
				continue
			}
			entries, _ := a.readDir(real)
			for _, e := range entries {
				if strings.HasPrefix(e.Name, ".") && !s.hidden {
					continue
				}
				if why := a.secretIn(arg{val: real + "/" + e.Name}, reading{}); why != "" {
					return "it lists " + root.val + ", where " + why
				}
			}
		}
	}
	return ""
}

// storeHolds says why a path that ends in tail (starting with a slash,
// after a directory the gate cannot see) may be a credential file: a home
// folder's credential store, or the system's, holds a file called base,
// or the home folder holds tail. It looks only at the stores' own files
// (~/.aws/config), not deeper.
func (a *analysis) storeHolds(tail, base string) string {
	g := a.g
	for _, h := range g.secretHomes {
		if p := h + tail; a.lstat(p).exists {
			if why := g.secretPath(p); why != "" {
				return "it may be " + p + ": " + why
			}
		}
		for _, s := range homeSecretPlaces {
			if p := h + "/" + s.path + "/" + base; a.lstat(p).exists {
				if why := g.secretPath(p); why != "" {
					return "it may be " + p + ": " + why
				}
			}
		}
	}
	for _, s := range systemSecrets {
		if p := s + "/" + base; a.lstat(p).exists {
			return "it may be " + p + ", which holds credentials"
		}
	}
	return ""
}

// holeFillers are texts tried in place of a name's holes, so that the
// rules of secretName (a suffix such as .env or .pem, a prefix such as
// id_, a word such as credential) judge what the name may become.
var holeFillers = []string{"", "x", "id_rsa", ".env", "credentials", "secret"}

// fillHoles puts fill in place of each hole (and *) of pattern.
func fillHoles(pattern, fill string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		if isWild(pattern[i]) {
			b.WriteString(fill)
			continue
		}
		b.WriteByte(pattern[i])
	}
	return b.String()
}

// optionValue reports a short option of a program that prints files
// (head -n, cut -d, grep -m) whose value is the next word, which is then
// not a file's name. Options that name a file (grep -f, sed -f, awk -f)
// are not among them.
func optionValue(name string, prev arg) bool {
	if !prev.static() || !strings.HasPrefix(prev.val, "-") {
		return false
	}
	if strings.HasPrefix(prev.val, "--") {
		switch prev.val {
		case "--lines", "--bytes", "--regexp", "--max-count", "--after-context", "--before-context", "--context",
			"--delimiter", "--fields", "--characters", "--key", "--field-separator", "--assign", "--width":
			switch name {
			case "head", "tail", "grep", "egrep", "fgrep", "zgrep", "rg", "cut", "sort", "awk", "gawk", "mawk", "fold", "fmt", "base64", "base32":
				return true
			}
		}
		return false
	}
	if len(prev.val) != 2 {
		return false
	}
	var takes string
	switch name {
	case "head", "tail":
		takes = "nc"
	case "cut":
		takes = "dfcb"
	case "sort":
		takes = "ktS"
	case "grep", "egrep", "fgrep", "zgrep":
		takes = "emABCdD"
	case "rg", "ag", "ugrep":
		takes = "emABCgtTMj"
	case "awk", "gawk", "mawk":
		takes = "Fv"
	case "base64", "base32", "basenc", "fold", "fmt":
		takes = "w"
	case "xxd":
		takes = "lscgo"
	case "od":
		takes = "NjAtw"
	case "hexdump", "hd":
		takes = "nse"
	case "diff":
		takes = "UC"
	case "nl":
		takes = "wsvib"
	case "column":
		takes = "stco"
	case "split":
		takes = "lbna"
	}
	return strings.IndexByte(takes, prev.val[1]) >= 0
}

// configDump says why a command prints environment variables or stored
// credentials that its input or a tool's configuration holds, or "":
// envsubst replaces $NAME in its input with the variable's value (any
// variable, unless a list of names that hold no secret is given); pip
// config and bundle config print index and gem source addresses with
// their user:password.
func (c *call) configDump() string {
	switch c.name {
	case "envsubst":
		ops := scan(c.args, optSpec{})
		if ops.has("-v", "--variables", "--help", "-h", "--version", "-V") {
			return ""
		}
		if len(ops.operands) == 0 {
			return "envsubst puts the value of any environment variable its input names in its output, tokens and keys among them"
		}
		for _, x := range ops.operands {
			if !x.static() {
				return "envsubst " + x.val + " puts the values of variables only known at run time in its output"
			}
			for _, m := range envName().FindAllStringSubmatch(x.val, -1) {
				if secretVar(m[1]) {
					return "envsubst puts the value of $" + m[1] + ", which holds a secret, in its output"
				}
			}
		}
	case "pip", "pip3", "bundle", "bundler":
		ops := scan(c.args, optSpec{})
		if len(ops.operands) == 0 || ops.operands[0].val != "config" {
			return ""
		}
		rest := ops.operands[1:]
		if c.name == "pip" || c.name == "pip3" {
			if len(rest) > 0 && (rest[0].val == "list" || rest[0].val == "get" || rest[0].val == "debug") {
				return c.name + " config " + rest[0].val + " prints the configuration, where an index address holds user:password"
			}
			return ""
		}
		if len(rest) == 0 || rest[0].val == "list" || rest[0].val == "get" || len(rest) == 1 && !strings.HasPrefix(rest[0].val, "-") {
			return c.name + " config prints the settings, where a gem source's credentials live"
		}
	}
	return ""
}

// envName finds $NAME and ${NAME} in envsubst's list of variables.
var envName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`) })

// shellSet reports variables that bash sets from what the line's own
// commands do: $_ (the last word of the command before: ls .env; cat $_),
// read's REPLY, mapfile's MAPFILE, what [[ =~ ]] matched, getopts's
// OPTARG, the words of the command being run.
func shellSet(name string) bool {
	switch name {
	case "_", "REPLY", "MAPFILE", "BASH_REMATCH", "OPTARG", "BASH_ARGV", "BASH_COMMAND", "COPROC", "READLINE_LINE":
		return true
	}
	return false
}

// splitShapes adds the fields that word splitting may cut each shape into:
// an unquoted expansion is split at blanks (x=".env README.md"; cat $x
// reads .env), and at the characters of IFS when the line sets it (to
// anything, when only known at run time).
func (a *analysis) splitShapes(shapes []nameShape) []nameShape {
	seps := " \t\n"
	if vals, set := a.valuesOf("IFS"); set {
		for _, v := range vals {
			if v.dyn {
				return append(shapes, holeShape)
			}
			seps += v.val
		}
	}
	out := shapes
	for _, s := range shapes {
		if s.list != nil || !strings.ContainsAny(s.text, seps) {
			continue
		}
		for _, f := range strings.FieldsFunc(s.text, func(r rune) bool { return strings.ContainsRune(seps, r) }) {
			if len(out) > 4*maxNameShapes {
				return append(out, holeShape)
			}
			out = append(out, nameShape{text: f, glob: s.glob})
		}
	}
	return out
}
