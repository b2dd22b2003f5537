package gate

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Extractors and patchers write where their input says: an archive's
// members, a patch's file names. The gate reads the input (a file named
// on the command line, or text given in the command itself) and judges
// each name as a write into the destination; input it cannot read (a
// pipe, a file written earlier in the same line, a format it does not
// know) is risky, since it may name .git/hooks or .claude/settings.json.

// input is where an extractor or patcher reads from.
type input struct {
	file     arg    // a file named by an option, an operand or "< file"
	text     string // a here-document or here-string's text
	fromText bool   // the input is text, not a file
	known    bool   // file or text is set
	what     string // how the input is given, for explanations
}

// stdinOf finds what a command reads on standard input: a file redirected
// in, or a static here-document; else, unknown (a pipe, the terminal).
func (c *call) stdinOf() input {
	st := c.cx.stmt
	if st == nil || c.cx.depth > 0 || c.cx.tail {
		return input{what: "its input"}
	}
	for i := len(st.Redirs) - 1; i >= 0; i-- {
		r := st.Redirs[i]
		if r.N != nil && r.N.Value != "0" {
			continue
		}
		switch r.Op {
		case syntax.RdrIn:
			w := resolveWord(c.cx.src, r.Word)
			return input{file: w, known: true, what: w.val}
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			body, ok := hdocBody(c.cx.src, r)
			return input{text: body, fromText: true, known: ok, what: "a here-document"}
		}
	}
	if c.cx.piped {
		return input{what: "a pipe"}
	}
	return input{what: "its input"}
}

// readInput returns the bytes of an input, or why it cannot be read.
func (c *call) readInput(in input) ([]byte, string) {
	if !in.known {
		return nil, in.what + " is only known when the command runs"
	}
	if in.fromText {
		return []byte(in.text), ""
	}
	x := in.file
	if !x.static() || x.proc {
		return nil, x.val + " is only known when the command runs"
	}
	if x.val == "-" {
		return c.readInput(c.stdinOf())
	}
	pl := c.a.place(x, true)
	if pl.real == "" {
		return nil, x.val + " is only known when the command runs"
	}
	if c.a.written[pl.real] {
		return nil, x.val + " is written earlier in the same command line"
	}
	data, err := readLimited(pl.real)
	if err != nil {
		return nil, "cannot read " + x.val + " (" + shortErr(err) + ")"
	}
	return data, ""
}

// shortErr is an error's text without the path it repeats.
func shortErr(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// writesMembers judges what an extractor or patcher writes into the
// directory dest: each member is a write of its name (every possible
// stripping of leading directories when strip < 0, as patch without -p
// may pick any), a symbolic link by where it leads, a hard link by what it
// is a second name of.
func (c *call) writesMembers(dest arg, members []member, strip int, what string) {
	base := strings.TrimRight(dest.val, "/")
	if base == "" {
		base = "/"
	}
	join := func(name string) arg {
		name = strings.TrimLeft(name, "/")
		if base == "/" {
			return arg{val: "/" + name, dyn: dest.dyn}
		}
		return arg{val: base + "/" + name, dyn: dest.dyn}
	}
	for _, m := range members {
		names := []string{}
		switch {
		case strip >= 0:
			if n, ok := stripComponents(strings.TrimLeft(m.name, "/"), strip); ok {
				names = append(names, n)
			}
		default:
			n := strings.TrimLeft(m.name, "/")
			for ok := true; ok; n, ok = stripComponents(n, 1) {
				names = append(names, n)
			}
		}
		for _, n := range names {
			w := join(n)
			switch m.kind {
			case memberSymlink:
				c.madeLink(c.a.place(w, false).real, m.link, n)
			case memberHardlink:
				c.hardLink(join(m.link))
			case memberSpecial:
				c.risky("destructive: " + what + " makes " + n + ", a device or special file")
			case memberDir:
				if g := guardedIn(c.a.place(w, true).rel, false); g != "" && c.a.where(w) == pathInside {
					c.guardRisk("destructive: " + what + " writes " + n + ", " + guardedPart(g, c.a.place(w, true).rel))
				}
				c.writesUnlessDir(w, what)
			default:
				c.writes(w, what+" writes")
			}
			if c.worstTier() >= TierRisky {
				return
			}
		}
	}
}

// writesUnlessDir judges a directory an extractor makes: only where it
// lands matters (its guarded namesakes are judged by writesMembers).
func (c *call) writesUnlessDir(w arg, what string) {
	if k := c.a.where(w); !k.writable() {
		c.writes(w, what+" makes the directory")
	}
}

// opaqueInput makes an extractor or patcher whose input cannot be read
// risky: it may write any name under its destination.
func (c *call) opaqueInput(why string) {
	c.risky("indirection: " + c.name + " writes the files its input names, and " + why + ": it may write .git/hooks, .claude or anything under its destination")
}

// tarExtract judges tar -x: the archive's members, written under each -C
// directory (or the working directory).
func (c *call) tarExtract(ops scanResult) {
	if ops.has("-O", "--to-stdout") {
		return
	}
	var dirs []arg
	var archive arg
	hasArchive := false
	strip := 0
	for _, o := range ops.opts {
		switch {
		case o.name == "-C" || isLong(o.name, "directory"):
			dirs = append(dirs, o.val)
		case o.name == "-f" || isLong(o.name, "file"):
			archive, hasArchive = o.val, true
		case isLong(o.name, "strip-components"):
			n, err := strconv.Atoi(o.val.val)
			if err != nil || n < 0 || !o.val.static() {
				c.risky("indirection: tar --strip-components " + o.val.val + " makes the names it writes unknown")
				return
			}
			strip = n
		case isLong(o.name, "transform") || isLong(o.name, "xform"):
			c.risky("indirection: tar " + o.name + " renames the members, so where they go is not checked")
			return
		}
	}
	if len(dirs) == 0 {
		dirs = []arg{{val: "."}}
	}
	in := input{file: archive, known: hasArchive, what: "the archive"}
	if !hasArchive || archive.val == "-" {
		in = c.stdinOf()
	}
	data, why := c.readInput(in)
	if why != "" {
		c.opaqueInput(why)
		return
	}
	members, err := tarMembers(data)
	if err != nil {
		c.opaqueInput("the archive " + in.what + " cannot be listed (" + err.Error() + ")")
		return
	}
	for _, d := range dirs {
		c.writesMembers(d, members, strip, "tar extracts and")
	}
}

// unzip extracts a zip archive: its members are written under -d DIR (or
// the working directory); listing, testing and printing write nothing.
func (c *call) unzip() {
	ops := scan(c.args, optSpec{short: "dxP", long: []string{}})
	c.local("unzip works on archives")
	if ops.computed {
		c.grey("an option of unzip is only known at run time")
	}
	for _, o := range ops.opts {
		switch o.name {
		case "-l", "-v", "-t", "-z", "-Z", "-p", "-c":
			return
		case "-:", "-^":
			c.risky("destructive: unzip " + o.name + " writes members named with ../ or control characters as they are")
			return
		}
	}
	if len(ops.operands) == 0 {
		return
	}
	dest := arg{val: "."}
	if o, ok := ops.get("-d"); ok && o.hasVal {
		dest = o.val
	}
	archive := ops.operands[0]
	if archive.static() && !strings.HasSuffix(strings.ToLower(archive.val), ".zip") {
		if pl := c.a.place(archive, true); !pl.exists {
			archive.val += ".zip" // unzip tries NAME, then NAME.zip
		}
	}
	data, why := c.readInput(input{file: archive, known: true, what: archive.val})
	if why != "" {
		c.opaqueInput(why)
		return
	}
	members, err := zipMembers(data)
	if err != nil {
		c.opaqueInput("the archive " + archive.val + " cannot be listed (" + err.Error() + ")")
		return
	}
	for i := range members {
		// unzip skips "../" in member names (only -: keeps them, judged
		// above): a member ../../.bashrc lands in DIR/.bashrc.
		members[i].name = dropDotDot(members[i].name)
	}
	if ops.has("-j") {
		for i := range members {
			if members[i].kind == memberDir {
				members[i].kind, members[i].name = memberFile, ""
				continue
			}
			members[i].name = members[i].name[strings.LastIndexByte(members[i].name, '/')+1:]
		}
	}
	c.writesMembers(dest, members, 0, "unzip extracts and")
}

// dropDotDot removes the ".." components of a member name, as unzip does.
func dropDotDot(name string) string {
	if !strings.Contains(name, "..") {
		return name
	}
	parts := strings.Split(name, "/")
	kept := parts[:0]
	for _, p := range parts {
		if p != ".." {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "/")
}

// patchCmd judges patch by the files its patch names: each is rewritten,
// created or removed under -d DIR (or the working directory).
func (c *call) patchCmd() {
	ops := scan(c.args, optSpec{short: "pdiorBYzDFgV", long: []string{"strip", "directory", "input", "output",
		"reject-file", "prefix", "basename-prefix", "suffix", "ifdef", "fuzz", "get", "version-control", "quoting-style", "read-only"}})
	c.local("patch changes files as its patch says")
	if ops.computed {
		c.risky("indirection: an option of patch is only known at run time")
		return
	}
	if ops.has("--dry-run") {
		return
	}
	strip := -1
	dest := arg{val: "."}
	var in input
	for _, o := range ops.opts {
		switch {
		case o.name == "-p" || isLong(o.name, "strip"):
			n, err := strconv.Atoi(o.val.val)
			if err != nil || n < 0 {
				strip = -1
				continue
			}
			strip = n
		case o.name == "-d" || isLong(o.name, "directory"):
			dest = o.val
		case o.name == "-i" || isLong(o.name, "input"):
			in = input{file: o.val, known: true, what: o.val.val}
		case o.name == "-o" || isLong(o.name, "output") || o.name == "-r" || isLong(o.name, "reject-file"):
			c.writes(o.val, "patch writes")
		case o.name == "-B" || isLong(o.name, "prefix") || o.name == "-Y" || isLong(o.name, "basename-prefix") ||
			o.name == "-z" || isLong(o.name, "suffix"):
			c.writes(arg{val: o.val.val + "*", dyn: o.val.dyn, glob: true}, "patch writes backups to")
		}
	}
	n := ops.operands
	if len(n) > 1 && !in.known {
		in = input{file: n[1], known: true, what: n[1].val}
	}
	if len(n) > 0 {
		// patch FILE: every hunk goes to FILE.
		c.writes(n[0], "patch rewrites")
		return
	}
	if !in.known {
		in = c.stdinOf()
	}
	data, why := c.readInput(in)
	if why != "" {
		c.opaqueInput(why)
		return
	}
	c.writesMembers(dest, patchMembers(data), strip, "patch")
}

// gitApply judges git apply and git am by the files their patches name;
// --check and the summaries write nothing, and --cached changes only the
// index.
func (c *call) gitApply(sub string, rest []arg) {
	ops := scan(rest, optSpec{short: "pC", long: []string{"directory", "include", "exclude", "build-fake-ancestor", "whitespace", "patch-format", "resolvemsg", "quoted-cr", "empty"}})
	if ops.computed {
		c.risky("indirection: an option of git " + sub + " is only known at run time")
		return
	}
	if sub == "apply" {
		if ops.has("--cached") || !ops.has("--apply") && ops.has("--check", "--stat", "--numstat", "--summary") {
			return
		}
	}
	if sub == "am" && ops.has("--abort", "--skip", "--quit", "--show-current-patch", "--continue", "--resolved", "-r") {
		return
	}
	strip := -1
	dest := arg{val: c.a.g.root}
	for _, o := range ops.opts {
		switch {
		case o.name == "-p":
			if n, err := strconv.Atoi(o.val.val); err == nil && n >= 0 {
				strip = n
			}
		case isLong(o.name, "directory"):
			dest = arg{val: c.a.g.root + "/" + o.val.val, dyn: o.val.dyn}
		}
	}
	inputs := []input{}
	for _, x := range ops.operands {
		inputs = append(inputs, input{file: x, known: true, what: x.val})
	}
	if len(inputs) == 0 {
		inputs = append(inputs, c.stdinOf())
	}
	for _, in := range inputs {
		data, why := c.readInput(in)
		if why != "" {
			c.opaqueInput(why)
			return
		}
		c.writesMembers(dest, patchMembers(data), strip, "git "+sub)
	}
}

// cpio copies files in and out of archives; extracting and passing
// through write the names its input gives.
func (c *call) cpio() {
	ops := scan(c.args, optSpec{short: "FOIEDHRM", long: []string{"file", "directory", "format", "pattern-file", "owner", "message", "rsh-command"}})
	for _, o := range ops.opts {
		switch {
		case isLong(o.name, "rsh-command"):
			c.risky("interpreter: cpio --rsh-command runs another program")
			return
		case o.name == "-F" || o.name == "-O" || isLong(o.name, "file"):
			if ops.has("-o", "--create") {
				c.writes(o.val, "cpio writes")
			}
		}
	}
	switch {
	case ops.has("-t", "--list"):
		c.local("cpio lists an archive")
	case ops.has("-o", "--create"):
		c.local("cpio writes an archive")
	case ops.has("-i", "--extract", "-p", "--pass-through"):
		c.opaqueInput("the gate does not read cpio archives")
	default:
		c.unknown("cpio works on archives")
	}
}

// sevenZip handles 7z: extracting writes what the archive names, which
// the gate cannot list.
func (c *call) sevenZip() {
	if len(c.args) == 0 {
		c.local(c.name + " prints help")
		return
	}
	switch c.args[0].val {
	case "l", "t", "i", "h":
		c.local(c.name + " lists or tests an archive")
	case "x", "e":
		for _, x := range c.args {
			if x.val == "-so" {
				c.local(c.name + " extracts to its output")
				return
			}
		}
		c.opaqueInput("the gate does not read 7z archives")
	default:
		if len(c.args) > 1 {
			c.writes(c.args[1], c.name+" writes")
		}
		c.local(c.name + " makes an archive")
	}
}
