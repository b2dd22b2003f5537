package gate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// analysis is the state of classifying one command line.
type analysis struct {
	g *Gate
	// keepListings: the gate has decided a line before this one, and keeps
	// and reuses the directory listings it reads (dirCache).
	keepListings bool
	entries      []*entry
	// cwd is the absolute working directory, followed through cd; empty
	// once it is unknown.
	cwd   string
	depth int  // scripts inside scripts
	over  bool // maxCommands was reached
	// salvaging: the pieces of an unparsable command are being examined.
	salvaging bool
	// wroteCode is set once a command wrote a build file or source code in
	// the workspace; runners that the built-in policy would allow are
	// then left to a person, since they would run that new code.
	wroteCode string
	// made holds the symbolic links that earlier commands of the line
	// create, by absolute path, with their target text.
	made map[string]string
	// seen caches what the filesystem says about a path, and places where
	// path words land, for this command line.
	seen   map[string]linkInfo
	places map[placeKey]place
	// cdMayFail: a cd whose target is not a directory now changed cwd;
	// what runs after it unless it succeeded may run elsewhere.
	cdMayFail bool
	// secretVars are the variables this line set to credential files'
	// paths, with why.
	secretVars map[string]string
	// globDots: a shopt of the line may make globs match names with a
	// leading dot, or match regardless of case (dotglob, nocaseglob):
	// cat * then reads .env.
	globDots bool
	// followed are the folders links led a recursive read into this line,
	// each looked through once.
	followed map[string]bool
	// written holds the files the line's commands write, by real path.
	written map[string]bool
	// indexes are the git indexes read for this line, by git directory:
	// read once, however many checks of the line look at one.
	indexes map[string]indexRead
	// hooksSeen caches the hooks directories of the repositories looked
	// up, by the directory they were looked up from.
	hooksSeen map[string]hooksDirs
	// sites are the sites of the script being classified (the innermost
	// one, for scripts inside scripts).
	sites []site
	// dirs holds the directories listed for this command line (readDir).
	dirs map[string]dirListing
	// configs are the git configuration files read in this line
	// (readConfig), nil for one that is not a readable regular file.
	configs map[string]configRead

	// Reused between command lines (the analysis is pooled by the Gate):
	// storage for the first commands, one collector per nesting level of
	// scripts, and the parser's reader.
	arena [arenaSize]entry
	used  int
	calls [arenaSize]call
	// usedCalls counts the calls taken from calls.
	usedCalls int
	cols      []*collector
	level     int
	reader    strings.Reader
	// plains are the trees of plain lines (plainTree); usedPlain counts
	// those this command line took.
	plains    []*plainTree
	usedPlain int
	// cpath holds the path being looked up as a C string (lstatPath).
	cpath []byte
	// dirBuf, nameBuf and fileBuf are scratch space for reading
	// directories and small files (readDir, readFileInto).
	dirBuf, nameBuf, fileBuf []byte
	// args backs the words of the line's commands (analysis.words).
	args []arg
}

// arenaSize is how many simple commands an analysis holds without
// allocating.
const arenaSize = 8

// reset prepares a pooled analysis for another command line.
func (a *analysis) reset(g *Gate) {
	for i := range a.used {
		a.arena[i] = entry{}
	}
	clear(a.calls[:a.usedCalls])
	a.usedCalls, a.usedPlain = 0, 0
	a.args = a.args[:0]
	clear(a.entries)
	a.g, a.entries, a.cwd, a.used, a.level = g, a.entries[:0], g.dir, 0, 0
	a.depth, a.over, a.salvaging, a.wroteCode, a.cdMayFail, a.globDots = 0, false, false, "", false, false
	clear(a.hooksSeen)
	clear(a.made)
	clear(a.written)
	clear(a.indexes)
	clear(a.secretVars)
	clear(a.followed)
	clear(a.seen)
	clear(a.places)
	clear(a.dirs)
	clear(a.configs)
}

// siteKind is what kind of place a command comes from.
type siteKind uint8

const (
	siteCall      siteKind = iota // a simple command
	siteDecl                      // declare, export, local, readonly, typeset
	siteRedir                     // redirections of a compound command
	siteNote                      // a construct that runs code by itself
	siteBackquote                 // a `...` substitution, parsed again from its text
)

// site is one place in a script that the gate classifies.
type site struct {
	kind   siteKind
	stmt   *syntax.Stmt
	call   *syntax.CallExpr
	decl   *syntax.DeclClause
	node   syntax.Node
	reason string
	piped  bool // standard input comes from a pipe
	loop   bool // inside a loop or a function body
	// feeds finds the statement that writes a piped statement's input.
	feeds map[*syntax.Stmt]*syntax.Stmt
	// afterAnd: the statement runs only if what && has on its left
	// succeeded.
	afterAnd bool
	// scopes are the child shells the statement runs in, outermost first:
	// subshells, pipeline members, background jobs, substitutions.
	scopes []syntax.Node
}

// newEntry starts the explanation of one simple command.
func (a *analysis) newEntry(text string) *entry {
	var e *entry
	if a.used < len(a.arena) {
		e = &a.arena[a.used]
		a.used++
	} else {
		e = new(entry)
	}
	e.Text, e.Argv = text, []string{}
	a.entries = append(a.entries, e)
	return e
}

// finishEntry decides an entry that has no command words.
func (a *analysis) finishEntry(e *entry) {
	t, ok := worst(e.findings)
	if !ok {
		t = TierLocal
	}
	e.finish(t, "", false)
}

// script parses src and classifies every simple command in it.
func (a *analysis) script(src string) {
	if a.depth > maxScriptDepth {
		e := a.newEntry(src)
		e.add(TierRisky, fmt.Sprintf("indirection: scripts nested more than %d deep are not checked", maxScriptDepth))
		a.finishEntry(e)
		return
	}
	f, err := a.parse(src)
	if err != nil && strings.Contains(src, "((") {
		// Bash reads "((" that is not arithmetic as two subshells.
		if f2, err2 := a.parse(respaceParens(src)); err2 == nil {
			f, err, src = f2, nil, respaceParens(src)
		}
	}
	if err != nil {
		e := a.newEntry(src)
		e.add(TierUnparsed, "does not parse as a shell command: "+err.Error())
		a.finishEntry(e)
		if !a.salvaging {
			a.salvaging = true
			a.salvage(src)
			a.salvaging = false
		}
		return
	}
	a.run(src, f)
}

// loopSecrets records a for loop's variable as naming credential material
// when one of the words it takes does (for f in .env; do cat "$f"; done).
func (a *analysis) loopSecrets(src string, it *syntax.WordIter) {
	if it.Name == nil {
		return
	}
	for _, x := range words(src, it.Items) {
		if why := a.secretWord(x, false, false); why != "" {
			if a.secretVars == nil {
				a.secretVars = map[string]string{}
			}
			a.secretVars[it.Name.Value] = why
			return
		}
	}
}

// readVars records the variables read, mapfile and readarray fill from
// their input, which the gate cannot see: a name read from a file the
// agent wrote (while read f; do cat "$f"; done < list) may be a
// credential file's.
func (a *analysis) readVars(src string, call *syntax.CallExpr) {
	args := words(src, call.Args[1:])
	valued := "dnOsuCc" // mapfile's options that take a value
	if call.Args[0].Lit() == "read" {
		valued = "adinNptu"
	}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if strings.HasPrefix(v, "-") {
			if len(v) == 2 && strings.ContainsAny(v[1:], valued) {
				i++ // an option with a value
			}
			continue
		}
		if !args[i].static() || !validName(v) {
			continue
		}
		if a.secretVars == nil {
			a.secretVars = map[string]string{}
		}
		if _, ok := a.secretVars[v]; !ok {
			a.secretVars[v] = "was read from an input the gate cannot see, which may name credential files"
		}
	}
}

// shoptGlobs reports a shopt command (or builtin/command shopt) that may
// turn on an option making globs match more names than the shell's
// default: dotglob (a leading dot), nocaseglob (any case), or an option
// not written as a plain word (quoted, or only known at run time).
func shoptGlobs(args []*syntax.Word) bool {
	if len(args) > 0 && (args[0].Lit() == "builtin" || args[0].Lit() == "command") {
		args = args[1:]
	}
	if len(args) == 0 || args[0].Lit() != "shopt" {
		return false
	}
	set := false
	for _, w := range args[1:] {
		switch v := w.Lit(); {
		case v == "":
			return true
		case strings.HasPrefix(v, "-"):
			set = set || strings.Contains(v, "s")
		case v == "dotglob" || v == "nocaseglob":
			if set {
				return true
			}
		}
	}
	return false
}

// validName reports a shell variable name.
func validName(v string) bool {
	for i, r := range v {
		if r != '_' && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return v != ""
}

// run classifies the sites of a parsed script.
func (a *analysis) run(src string, f *syntax.File) {
	if a.level == len(a.cols) {
		a.cols = append(a.cols, new(collector))
	}
	col := a.cols[a.level]
	a.level++
	outerSites := a.sites
	defer func() {
		a.level--
		col.reset()
		a.sites = outerSites
	}()
	sites := col.collect(src, f)
	a.sites = sites
	for _, fc := range col.fors {
		a.loopSecrets(src, fc.Loop.(*syntax.WordIter))
	}
	for _, s := range sites {
		if s.kind == siteCall && len(s.call.Args) > 1 {
			switch s.call.Args[0].Lit() {
			case "read", "mapfile", "readarray":
				a.readVars(src, s.call)
			case "shopt", "builtin", "command":
				a.globDots = a.globDots || shoptGlobs(s.call.Args)
			}
		}
	}
	for _, s := range sites {
		if s.loop && s.kind == siteCall && len(s.call.Args) > 0 {
			switch s.call.Args[0].Lit() {
			case "cd", "pushd", "popd":
				a.cwd = "" // the directory changes between iterations
			}
		}
	}
	// A cd inside a subshell, a pipeline, a background job or a command
	// substitution changes that child's directory only: when the child
	// ends, the directory is the one from before it.
	type scope struct {
		node      syntax.Node
		cwd       string
		cdMayFail bool
	}
	var open []scope
	for _, s := range sites {
		for len(open) > 0 && !slices.Contains(s.scopes, open[len(open)-1].node) {
			last := open[len(open)-1]
			a.cwd, a.cdMayFail = last.cwd, last.cdMayFail
			open = open[:len(open)-1]
		}
		for _, n := range s.scopes[len(open):] {
			open = append(open, scope{n, a.cwd, a.cdMayFail})
		}
		if len(a.entries) >= maxCommands {
			if !a.over {
				a.over = true
				e := a.newEntry(src)
				e.add(TierRisky, fmt.Sprintf("more than %d commands: the rest is not checked", maxCommands))
				a.finishEntry(e)
			}
			return
		}
		a.site(src, s)
	}
	if len(open) > 0 {
		a.cwd, a.cdMayFail = open[0].cwd, open[0].cdMayFail
	}
}

// backquoteText returns the script inside `...`, with the backslashes that
// backquotes give meaning to removed.
func backquoteText(s string) string {
	s = strings.TrimPrefix(s, "`")
	s = strings.TrimSuffix(s, "`")
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\`$\"", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// respaceParens turns "((" into "( (", as bash does when what follows is
// not an arithmetic expression.
func respaceParens(src string) string {
	return strings.ReplaceAll(src, "((", "( (")
}

// maxSalvagePieces bounds the pieces of an unparsable command examined.
const maxSalvagePieces = 256

// salvage classifies the pieces of a command that does not parse, split at
// unquoted operators, so that a denied or risky command inside broken
// syntax still counts. The command is asked about in any case.
func (a *analysis) salvage(src string) {
	for i, piece := range splitPieces(src) {
		if i == maxSalvagePieces {
			return
		}
		if strings.TrimSpace(piece) == "" {
			continue
		}
		if f, err := a.parse(piece); err == nil {
			a.run(piece, f)
		}
	}
}

// splitPieces splits shell text at unquoted control characters.
func splitPieces(src string) []string {
	var (
		out   []string
		start int
		quote byte
	)
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && quote != '\'':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case strings.IndexByte(";&|\n(){}`!", c) >= 0 || c == '$' && i+1 < len(src) && src[i+1] == '(':
			out = append(out, src[start:i])
			start = i + 1
		}
	}
	return append(out, src[start:])
}

// collector gathers the sites of a syntax tree; its buffers cover typical
// command lines without allocation.
type collector struct {
	src   string
	sites []site
	stack []syntax.Node
	piped map[*syntax.Stmt]bool
	// feeds maps the first statement on the right of a pipe to the last
	// one on its left: what writes the pipe it reads.
	feeds map[*syntax.Stmt]*syntax.Stmt
	// afterAnd marks the statements on the right of an &&.
	afterAnd map[*syntax.Stmt]bool
	// members marks the parts of pipelines.
	members map[*syntax.Stmt]bool
	loops   int
	// fors are the for loops over a list of words, whose variable takes
	// each of them.
	fors []*syntax.ForClause
	// refs are the variables declared as references to secret variables
	// (declare -n), with the variable each names (namerefs).
	refs     map[string]string
	anyRefs  bool                   // a declaration makes a nameref, to any variable
	walk     func(syntax.Node) bool // c.visit
	siteBuf  [4]site
	stackBuf [24]syntax.Node
}

// collect lists the sites of a parsed script in source order.
func (c *collector) collect(src string, f *syntax.File) []site {
	c.src = src
	c.sites, c.stack = c.siteBuf[:0], c.stackBuf[:0]
	if c.walk == nil {
		c.walk = c.visit // made once: a method value is an allocation
	}
	syntax.Walk(f, c.walk)
	return c.sites
}

// reset drops what the collector refers to, for its next use.
func (c *collector) reset() {
	clear(c.siteBuf[:])
	clear(c.stackBuf[:])
	c.sites, c.stack, c.piped, c.feeds, c.afterAnd, c.members, c.loops, c.src = nil, nil, nil, nil, nil, nil, 0, ""
	c.fors = c.fors[:0]
	clear(c.refs)
	c.anyRefs = false
}

// visit is the syntax.Walk callback: it keeps the stack of open nodes and
// records a site for each statement and each construct that runs code.
func (c *collector) visit(n syntax.Node) bool {
	if n == nil {
		switch c.stack[len(c.stack)-1].(type) {
		case *syntax.WhileClause, *syntax.ForClause, *syntax.FuncDecl:
			c.loops--
		}
		c.stack = c.stack[:len(c.stack)-1]
		return true
	}
	if cs, ok := n.(*syntax.CmdSubst); ok && cs.Backquotes {
		// The parser reads backquoted text differently from bash in corner
		// cases (a '#' inside a word); parse the text again as bash would
		// see it, instead of trusting the nested tree.
		c.sites = append(c.sites, site{kind: siteBackquote, node: cs, loop: c.loops > 0})
		return false
	}
	c.stack = append(c.stack, n)
	switch n := n.(type) {
	case *syntax.WhileClause:
		c.loops++
	case *syntax.ForClause:
		c.loops++
		if _, ok := n.Loop.(*syntax.WordIter); ok {
			c.fors = append(c.fors, n)
		}
	case *syntax.DeclClause:
		c.namerefs(n)
	case *syntax.FuncDecl:
		c.loops++
		if selfCalling(n) {
			c.note(n, "destructive: the function "+n.Name.Value+" calls itself, which can exhaust the machine (a fork bomb)")
		}
	case *syntax.BinaryCmd:
		if n.Op == syntax.AndStmt {
			// What && runs on its right runs only if its left succeeded,
			// a cd there included.
			if c.afterAnd == nil {
				c.afterAnd = map[*syntax.Stmt]bool{}
			}
			syntax.Walk(n.Y, func(m syntax.Node) bool {
				if st, ok := m.(*syntax.Stmt); ok {
					c.afterAnd[st] = true
				}
				return true
			})
		}
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			if c.members == nil {
				c.members = map[*syntax.Stmt]bool{}
			}
			for _, st := range [...]*syntax.Stmt{n.X, n.Y} {
				if b, ok := st.Cmd.(*syntax.BinaryCmd); !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
					c.members[st] = true // each part of a pipeline runs in a child shell
				}
			}
			c.markPiped(n.Y)
			if c.feeds == nil {
				c.feeds = map[*syntax.Stmt]*syntax.Stmt{}
			}
			c.feeds[pipeEnd(n.Y, false)] = pipeEnd(n.X, true)
		}
	case *syntax.Stmt:
		s := site{stmt: n, loop: c.loops > 0, piped: c.piped[n], feeds: c.feeds, afterAnd: c.afterAnd[n], scopes: c.scopes(n)}
		switch cmd := n.Cmd.(type) {
		case *syntax.CallExpr:
			s.kind, s.call = siteCall, cmd
		case *syntax.DeclClause:
			s.kind, s.decl = siteDecl, cmd
		default:
			if len(n.Redirs) == 0 {
				return true
			}
			s.kind = siteRedir
		}
		c.sites = append(c.sites, s)
	case *syntax.ParamExp:
		if n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && strings.Contains(n.Exp.Word.Lit(), "P") {
			c.note(n, "indirection: ${var@P} expands a prompt string, which runs command substitutions")
		}
		r := secretExpansion(n)
		if r == "" {
			r = c.refExpansion(n)
		}
		if r != "" && !c.inTest() {
			c.note(n, r)
		}
	case *syntax.TestClause, *syntax.ArithmCmd, *syntax.ArithmExp:
		if r := hiddenCode(c.src, n); r != "" {
			c.note(n, r)
		}
	}
	return true
}

// inTest reports whether the node being visited is inside a test ([[ ]],
// test or [), which uses a value without printing it.
func (c *collector) inTest() bool {
	for i := len(c.stack) - 1; i >= 0; i-- {
		switch n := c.stack[i].(type) {
		case *syntax.TestClause:
			return true
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				switch n.Args[0].Lit() {
				case "test", "[":
					return true
				}
			}
			return false
		}
	}
	return false
}

func (c *collector) note(n syntax.Node, reason string) {
	c.sites = append(c.sites, site{kind: siteNote, node: n, reason: reason})
}

// scopes lists the child shells that statement st (now on top of the
// stack) runs in: subshells, substitutions, background statements and
// members of pipelines, the statement itself included.
func (c *collector) scopes(st *syntax.Stmt) []syntax.Node {
	var out []syntax.Node
	for _, n := range c.stack {
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
			out = append(out, n)
		case *syntax.Stmt:
			if n.Background || c.members[n] {
				out = append(out, n)
			}
		}
	}
	return out
}

// pipeEnd is the statement at one end of a pipeline: the last one (the
// one that writes the pipe) or the first one (the one that reads it).
func pipeEnd(st *syntax.Stmt, last bool) *syntax.Stmt {
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
			return st
		}
		if last {
			st = b.Y
		} else {
			st = b.X
		}
	}
}

// markPiped marks every statement on the right-hand side of a pipe: any of
// them may read it.
func (c *collector) markPiped(y *syntax.Stmt) {
	if c.piped == nil {
		c.piped = map[*syntax.Stmt]bool{}
	}
	syntax.Walk(y, func(m syntax.Node) bool {
		if st, ok := m.(*syntax.Stmt); ok {
			c.piped[st] = true
		}
		return true
	})
}

// selfCalling reports a function whose body calls the function itself.
func selfCalling(f *syntax.FuncDecl) bool {
	if f.Name == nil || f.Body == nil {
		return false
	}
	found := false
	syntax.Walk(f.Body, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == f.Name.Value {
			found = true
		}
		return !found
	})
	return found
}

// hiddenCode finds a quoted string holding a command substitution inside
// an arithmetic or test expression, where bash evaluates array subscripts
// and so runs it.
func hiddenCode(src string, n syntax.Node) string {
	var r string
	syntax.Walk(n, func(m syntax.Node) bool {
		w, ok := m.(*syntax.Word)
		if !ok || r != "" {
			return r == ""
		}
		if v, static := literalText(src, w); static && holdsCode(v) {
			r = "indirection: " + v + " holds a command substitution that subscript evaluation runs"
		}
		return true
	})
	return r
}

// holdsCode reports text that a later evaluation would run as a command.
func holdsCode(s string) bool {
	return strings.Contains(s, "$(") || strings.Contains(s, "`")
}

// site classifies one site.
func (a *analysis) site(src string, s site) {
	if a.cdMayFail && s.stmt != nil && !s.afterAnd {
		// A cd before this statement may have failed, and this statement
		// runs anyway: it runs in the old directory or the new one.
		a.cwd, a.cdMayFail = "", false
	}
	switch s.kind {
	case siteCall:
		a.callSite(src, s)
	case siteDecl:
		a.declSite(src, s)
	case siteRedir:
		e := a.newEntry(redirText(src, s.stmt))
		a.redirects(e, src, s.stmt)
		a.finishEntry(e)
	case siteNote:
		e := a.newEntry(wordText(src, s.node))
		e.add(TierRisky, s.reason)
		e.secret = strings.HasPrefix(s.reason, secretPrefix)
		a.finishEntry(e)
	case siteBackquote:
		a.nestedScript(backquoteText(wordText(src, s.node)))
	}
}

func redirText(src string, st *syntax.Stmt) string {
	parts := make([]string, 0, len(st.Redirs))
	for _, r := range st.Redirs {
		parts = append(parts, wordText(src, r))
	}
	return strings.Join(parts, " ")
}

// stmtText is the text of a simple command with its redirections, without
// the trailing operator.
func stmtText(src string, st *syntax.Stmt) string {
	start, end := st.Cmd.Pos().Offset(), st.Cmd.End().Offset()
	for _, r := range st.Redirs {
		start = min(start, r.Pos().Offset())
		end = max(end, r.End().Offset())
	}
	if int(end) > len(src) || start > end {
		return ""
	}
	return src[start:end]
}

func (a *analysis) callSite(src string, s site) {
	e := a.newEntry(stmtText(src, s.stmt))
	for _, as := range s.call.Assigns {
		a.assign(e, src, as)
	}
	a.redirects(e, src, s.stmt)
	if len(s.call.Args) == 0 {
		a.finishEntry(e)
		return
	}
	argv := a.words(src, s.call.Args)
	a.command(e, argv, cmdCtx{stmt: s.stmt, src: src, piped: s.piped, feeds: s.feeds})
}

func (a *analysis) declSite(src string, s site) {
	d := s.decl
	e := a.newEntry(stmtText(src, s.stmt))
	e.Argv = append(e.Argv, d.Variant.Value)
	e.add(TierLocal, d.Variant.Value+" sets shell variables")
	for _, as := range d.Args {
		if as.Name == nil && as.Value != nil {
			v := resolveWord(src, as.Value)
			e.Argv = append(e.Argv, v.val)
			if v.dyn {
				e.add(TierRisky, "indirection: "+d.Variant.Value+" of names computed at run time ("+v.val+") can set any variable")
			}
			continue
		}
		if as.Name != nil {
			e.Argv = append(e.Argv, wordText(src, as))
			if !as.Naked {
				a.assign(e, src, as)
			}
		}
	}
	if dump := declDump(d.Variant.Value, e.Argv[1:]); dump != "" {
		e.add(TierRisky, secretPrefix+dump)
		e.secret = true
	}
	a.redirects(e, src, s.stmt)
	a.finishEntry(e)
}

// declDump says why a declaration builtin prints secrets: without names
// it prints every variable (export -p, declare -x, typeset), and with -p
// the values of those named, or "".
func declDump(variant string, args []string) string {
	names := 0
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			names++
			if slices.Contains(args, "-p") && !strings.Contains(a, "=") && secretVar(a) {
				return variant + " -p " + a + " prints a variable that holds a secret"
			}
		}
	}
	if names > 0 {
		return ""
	}
	return variant + " " + strings.Join(args, " ") + " prints every variable, secrets among them"
}

// assign classifies setting a variable, for one command or for the shell.
func (a *analysis) assign(e *entry, src string, as *syntax.Assign) {
	if as.Name == nil {
		return
	}
	name := as.Name.Value
	if as.Array != nil {
		for _, el := range as.Array.Elems {
			if v, ok := literalText(src, el.Value); ok && holdsCode(v) {
				e.addExtra(TierRisky, "indirection: an element of "+name+" holds a command substitution that a later evaluation may run")
			}
		}
	}
	val, static := literalText(src, as.Value)
	if static && val != "" {
		if why := a.secretWord(arg{val: val}, false, false); why != "" {
			// A variable set to a credential file's path: reading $name
			// reads it.
			if a.secretVars == nil {
				a.secretVars = map[string]string{}
			}
			a.secretVars[name] = why
		}
	}
	kind, reason := a.classifyEnv(name, val, static)
	switch kind {
	case envRisky:
		e.addExtra(TierRisky, reason)
	case envFile:
		if !static {
			e.addExtra(TierRisky, "destructive: "+reason+", and its value is only known at run time")
			break
		}
		a.writeTarget(e, fileVarTarget(val), name+"= makes programs write to", true)
	case envLoad:
		e.addExtra(TierLocal, "sets "+name)
		if !e.AgentCode {
			e.AgentCode, e.agentWhy = true, reason
		}
	case envCommand:
		switch {
		case !static:
			e.addExtra(TierRisky, "indirection: "+reason+", and its value is only known at run time")
		case strings.TrimSpace(val) != "":
			if a.commandValue(val) >= TierGrey {
				e.addExtra(TierRisky, "indirection: "+reason+", and the gate cannot vouch for "+val)
			} else {
				e.addExtra(TierLocal, reason+"; that command is checked on its own")
			}
		}
	default:
		e.addExtra(TierLocal, "sets "+name)
	}
	if static && holdsCode(val) {
		e.addExtra(TierRisky, "indirection: the value of "+name+" holds a command substitution that a later evaluation may run")
	}
}

// commandValue classifies a command line held by a variable or setting that
// a program runs behind the scenes (GIT_SSH_COMMAND, core.pager, CC). It
// returns the worst tier of its commands; anything short of local is
// treated as risky by callers, since nobody sees such a command run.
func (a *analysis) commandValue(code string) Tier {
	start := len(a.entries)
	a.nestedScript(strings.TrimLeft(strings.TrimSpace(code), "|"))
	t := TierLocal
	for _, e := range a.entries[start:] {
		t = max(t, e.Tier)
	}
	return t
}

// nestedScript classifies code that the shell or a program runs later, in
// a copy of the current directory state.
func (a *analysis) nestedScript(code string) {
	saved := a.cwd
	a.depth++
	a.script(code)
	a.depth--
	a.cwd = saved
}

// redirects classifies the redirections of a statement.
func (a *analysis) redirects(e *entry, src string, st *syntax.Stmt) {
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
			syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
			a.writeTarget(e, resolveWord(src, r.Word), "output goes to", true)
		case syntax.DplOut, syntax.DplIn:
			w := resolveWord(src, r.Word)
			if w.static() && (w.val == "-" || strings.Trim(w.val, "0123456789") == "" || strings.TrimRight(w.val, "0123456789") == "-") {
				continue
			}
			a.writeTarget(e, w, "output goes to", true)
		case syntax.RdrIn:
			w := resolveWord(src, r.Word)
			if a.where(w) == pathNetwork {
				e.addExtra(TierRisky, "network: input comes from "+w.val)
			} else if why := a.secretWord(w, false, false); why != "" {
				e.addExtra(TierRisky, secretPrefix+"input comes from "+w.val+": "+why)
				e.secret = true
			} else if why := a.redirectName(w); why != "" {
				e.addExtra(TierRisky, secretPrefix+"input comes from "+w.val+", a name made at run time: "+why)
				e.secret = true
			}
		}
	}
}

// writeTarget classifies writing to the file x. extra puts the concern
// with the redirections rather than with the command's words. A pattern is
// expanded as the shell would, and each file it matches is judged.
func (a *analysis) writeTarget(e *entry, x arg, what string, extra bool) {
	t, r, guarded := a.judgeWrite(x, what)
	if x.glob && t < TierRisky {
		matches, ok := a.expand(x)
		if !ok {
			t, r = TierRisky, "destructive: "+what+" "+x.val+", a pattern that matches too many files to check"
		}
		for _, m := range matches {
			if mt, mr, mg := a.judgeWrite(arg{val: m}, what); mt > t {
				t, r, guarded = mt, mr, mg
			}
		}
	}
	if r == "" {
		return
	}
	e.guarded = e.guarded || guarded
	if extra {
		e.addExtra(t, r)
	} else {
		e.add(t, r)
		e.unliftable = true
	}
}

// judgeWrite says what writing to the file x (following links) can do,
// and whether it touches a guarded directory, a control file or a
// protected directory (cuff's state, the agent's settings).
func (a *analysis) judgeWrite(x arg, what string) (Tier, string, bool) {
	t, r := a.judgeWriteAt(x, what)
	if t < TierRisky {
		return t, r, false
	}
	pl := a.place(x, true)
	guarded := pl.kind == pathInside && (guardedIn(pl.rel, x.glob) != "" || controlFile(pl.rel) || x.glob && controlPattern(pl.rel)) ||
		pl.real != "" && a.g.protectedDir(pl.real) != ""
	return t, r, guarded
}

func (a *analysis) judgeWriteAt(x arg, what string) (Tier, string) {
	pl := a.place(x, true)
	shown := x.val
	if pl.viaLink && pl.real != "" {
		shown += " (through a link: " + pl.real + ")"
	}
	if pl.kind == pathInside {
		rel := pl.rel
		if x.glob {
			if g := guardedIn(rel, true); g != "" {
				return TierRisky, "destructive: " + what + " " + shown + ", which may be " + guardedPart(g, rel)
			}
			if controlPattern(rel) {
				return TierRisky, "indirection: " + what + " " + shown + ", which may be a file that makes tools run commands or that holds permissions"
			}
		} else {
			if controlFile(rel) {
				return TierRisky, "indirection: " + what + " " + shown + ", a file that makes tools run commands or that holds permissions"
			}
			if g := guardedIn(rel, false); g != "" {
				return TierRisky, "destructive: " + what + " " + shown + ", " + guardedPart(g, rel)
			}
			if a.wroteCode == "" && buildFile(rel, !strings.HasPrefix(what, "sed")) {
				a.wroteCode = x.val
			}
			a.wrote(pl.real)
		}
		if pl.nlink > 1 {
			return TierRisky, "destructive: " + what + " " + shown + ", a file with " + strconv.FormatUint(pl.nlink, 10) +
				" names (hard links), which may lie outside the work tree"
		}
		return TierLocal, ""
	}
	switch pl.kind {
	case pathNetwork:
		return TierRisky, "network: " + what + " " + shown
	case pathDevice:
		return TierRisky, "destructive: " + what + " the device " + shown
	case pathOutside:
		return TierRisky, "destructive: " + what + " " + shown + ", outside the workspace"
	case pathUnknown:
		if pl.viaLink {
			return TierRisky, "destructive: " + what + " " + shown + ", through a link that cannot be followed"
		}
		return TierRisky, "destructive: " + what + " " + shown + ", a file only known at run time"
	case pathTemp:
		if pl.nlink > 1 {
			return TierRisky, "destructive: " + what + " " + shown + ", a file with " + strconv.FormatUint(pl.nlink, 10) +
				" names (hard links), which may lie outside the work tree"
		}
	}
	return TierLocal, ""
}

// wrote remembers a file that a command of the line writes, so that a
// later command that runs it is known to run new code.
func (a *analysis) wrote(real string) {
	if a.written == nil {
		a.written = map[string]bool{}
	}
	a.written[real] = true
}
