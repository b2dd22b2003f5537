package gate

import (
	"slices"
	"strings"
)

// findValuePrimaries lists find primaries that take one value.
func findValuePrimary(p string) bool {
	switch p {
	case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
		"-regextype", "-type", "-xtype", "-size", "-perm", "-user", "-group", "-uid", "-gid",
		"-newer", "-anewer", "-cnewer", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin",
		"-links", "-inum", "-samefile", "-maxdepth", "-mindepth", "-fstype", "-printf", "-context",
		"-used", "-lname", "-ilname", "-files0-from", "-D", "-newermt", "-newerct", "-neweraa",
		"-newerma", "-newermm", "-newercm", "-newerat", "-newerBt", "-flags":
		return true
	}
	return strings.HasPrefix(p, "-newer") && len(p) == len("-newerXY")
}

// find searches files; -exec and friends run commands, -delete removes.
// Deleting is judged as rm -r of the starting points: fine inside the
// workspace, but not of the workspace as a whole, a guarded directory or
// anything outside. From the workspace root an action reaches .git, .cuff
// and .claude too, unless a -name test before it rules their contents out;
// the command an -exec runs then sees {} as a path in .git.
// findFollows reports find -L (or -follow): find then enters the folders
// links name.
func findFollows(args []arg) bool {
	for _, x := range args {
		if x.val == "-L" || x.val == "-follow" {
			return true
		}
	}
	return false
}

func (c *call) find() {
	args := c.args
	i := 0
	for i < len(args) && (args[i].val == "-H" || args[i].val == "-L" || args[i].val == "-P" || strings.HasPrefix(args[i].val, "-O")) {
		i++
	}
	if i < len(args) && args[i].val == "-D" {
		i += 2
	}
	var starts []arg
	for ; i < len(args); i++ {
		v := args[i].val
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == ")" || v == "," {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []arg{{val: "."}}
	}
	c.local("find searches files")
	var named []bool
	for _, x := range args[min(i, len(args)):] {
		if findAction(x.val) {
			named = findNamed(args, i)
			break
		}
	}
	deleting, everything := false, false
	for ; i < len(args); i++ {
		x := args[i]
		if x.lead {
			c.risky("indirection: a find expression word is only known at run time")
			return
		}
		switch v := x.val; {
		case v == "-exec" || v == "-execdir" || v == "-ok" || v == "-okdir":
			j := i + 1
			for j < len(args) && !(args[j].static() && (args[j].val == ";" || args[j].val == "+")) {
				j++
			}
			if j == len(args) {
				c.grey("find " + v + " has no terminating ; or +")
			}
			start := c.findReach(starts, !named[i])
			name, byName := findName(args, i)
			byName = byName && !strings.HasSuffix(start.val, "/.git")
			inner := make([]arg, 0, j-i-1)
			for _, y := range args[i+1 : j] {
				if byName && strings.Contains(y.val, "{}") {
					// The files it runs on are named so: a secret's name shows.
					y.val = strings.ReplaceAll(y.val, "{}", strings.TrimRight(start.val, "/")+"/"+name)
					y.dyn, y.glob = y.dyn || start.dyn, y.glob || strings.ContainsAny(name, "*?[")
					inner = append(inner, y)
					continue
				}
				inner = append(inner, placeholder(y, "{}", start))
			}
			rd := reading{recursive: true, hidden: true, follows: true, followsDirs: findFollows(c.args)}
			if byName && !findINamed(args, i) {
				rd.filters = []fileFilter{{include: true, pattern: name}}
			}
			c.execReads(args[i+1:j], "{}", starts, rd)
			c.wrap(codeNames(args[i+1:j], inner, "{}"), c.inner()) // children share find's input
			i = j
		case v == "-delete":
			deleting = true
			everything = everything || !named[i]
		case v == "-fprint" || v == "-fprint0" || v == "-fls" || v == "-fprintf":
			if i+1 < len(args) {
				c.writes(args[i+1], "find "+v+" writes")
				i++
			}
			if v == "-fprintf" {
				i++
			}
		case findValuePrimary(v):
			i++
		}
	}
	if deleting {
		for _, s := range starts {
			if everything && !buildOutput(s) {
				c.notAlways("find " + s.val + " -delete deletes a tree that may hold work")
			}
		}
		for _, s := range starts {
			if k := c.a.place(s, false).kind; !k.writable() {
				c.risky("destructive: find -delete removes files under " + s.val + ", outside the workspace")
				return
			}
			if g, rel := c.a.guarded(s, false); g != "" {
				c.guardRisk("destructive: find " + s.val + " -delete deletes " + guardedPart(g, rel))
				return
			}
			if rel, ok := c.a.relOf(s, true, false); ok && rel == "." && everything {
				c.guardRisk("destructive: find " + s.val + " -delete deletes the whole workspace, .git and .cuff included")
				return
			}
		}
	}
}

// findReach returns the starting point whose files an -exec command
// should be checked with: one outside the workspace or in a guarded
// directory if there is one, else, when the action may run on any file,
// the .git of a start at the workspace root.
func (c *call) findReach(starts []arg, anyName bool) arg {
	for _, s := range starts {
		if !c.a.place(s, false).kind.writable() {
			return s
		}
	}
	for _, s := range starts {
		if g, _ := c.a.guarded(s, false); g != "" {
			return s
		}
	}
	if anyName {
		for _, s := range starts {
			if rel, ok := c.a.relOf(s, true, false); ok && rel == "." {
				c.local(c.name + " runs its command on every file under " + s.val + ", those in .git, .cuff and .claude included: {} is checked as a file in .git")
				return arg{val: strings.TrimRight(s.val, "/") + "/.git", glob: s.glob}
			}
		}
	}
	return starts[0]
}

// findName is the pattern of the -name test before the action at args[at],
// when the expression before it has one and no -o.
func findName(args []arg, at int) (string, bool) {
	name := ""
	for i := 0; i < at; i++ {
		switch args[i].val {
		case "-o", "-or", ",", "!", "-not":
			return "", false
		case "-name", "-iname":
			if i+1 < at && args[i+1].static() && !strings.Contains(args[i+1].val, "/") {
				name = args[i+1].val
			}
		}
	}
	return name, name != ""
}

// execReads judges the files that find -exec (or fd -x) gives the
// command cmd in place of its placeholder ph: every file below the
// starting points that the search lets through (rd), which a program that
// prints what files hold then reads.
func (c *call) execReads(cmd []arg, ph string, starts []arg, rd reading) {
	if len(cmd) == 0 || !slices.ContainsFunc(cmd[1:], func(x arg) bool { return strings.Contains(x.val, ph) }) {
		return
	}
	prog, _ := progName(cmd[0].val)
	if noContents(prog) {
		return
	}
	for _, s := range starts {
		if why := c.a.secretIn(s, rd); why != "" {
			c.secretRead(c.name + " runs " + prog + " on the files it finds below " + s.val + ": " + why)
			return
		}
	}
}

// findINamed reports an -iname test before the action at: its pattern
// matches regardless of case, which a plain pattern match does not.
func findINamed(args []arg, at int) bool {
	return slices.ContainsFunc(args[:at], func(x arg) bool { return x.val == "-iname" })
}

// placeholder replaces a file-name placeholder in a word run by find, fd or
// xargs with a path under start, so that path checks see where it points.
func placeholder(x arg, ph string, start arg) arg {
	if !strings.Contains(x.val, ph) {
		return x
	}
	x.val = strings.ReplaceAll(x.val, ph, strings.TrimRight(start.val, "/")+"/f")
	x.dyn = x.dyn || start.dyn
	return x
}

// fdSpec describes fd's options that take a value.
func fdSpec() optSpec {
	return optSpec{short: "etEdjScoa", long: []string{"extension", "type", "exclude",
		"max-depth", "min-depth", "exact-depth", "threads", "size", "changed-within", "changed-before",
		"owner", "base-directory", "search-path", "max-results", "path-separator", "color", "ignore-file", "format", "and", "batch-size"}}
}

// fd searches files like find; -x and -X run commands.
func (c *call) fd() {
	c.local(c.name + " searches files")
	ops := scan(c.args, fdSpec())
	for i, x := range c.args {
		if x.val != "-x" && x.val != "-X" && x.val != "--exec" && x.val != "--exec-batch" {
			continue
		}
		j := i + 1
		for j < len(c.args) && !(c.args[j].static() && c.args[j].val == ";") {
			j++
		}
		// The search paths come after the pattern; without -H (or -u) fd
		// skips hidden files, .git, .cuff and .claude among them.
		before := scan(c.args[:i], fdSpec())
		starts := []arg{{val: "."}}
		if len(before.operands) > 1 {
			starts = before.operands[1:]
		}
		if o, ok := before.get("--search-path", "--base-directory"); ok && o.hasVal {
			starts = append(starts, o.val)
		}
		start := c.findReach(starts, ops.has("-H", "--hidden", "-u", "--unrestricted"))
		inner := make([]arg, 0, j-i)
		holder := false
		for _, y := range c.args[i+1 : j] {
			holder = holder || strings.Contains(y.val, "{")
			for _, ph := range [...]string{"{//}", "{/.}", "{/}", "{.}", "{}"} {
				y = placeholder(y, ph, start)
			}
			inner = append(inner, y)
		}
		if !holder && len(inner) > 0 {
			// Without a placeholder fd adds the path at the end.
			inner = append(inner, placeholder(arg{val: "{}"}, "{}", start))
		}
		c.execReads(append(c.args[i+1:j:j], arg{val: "{}"}), "{", starts, reading{recursive: true, follows: true,
			hidden:     ops.has("-H", "--hidden", "-u", "--unrestricted"),
			gitIgnores: !ops.has("-I", "--no-ignore", "-u", "--unrestricted", "--no-ignore-vcs")})
		c.wrap(codeNames(c.args[i+1:j], inner, "{"), c.inner())
		return
	}
}

// codeNames marks as computed the words that splice a file name into code
// run by a shell or an interpreter: a file name can hold shell syntax.
func codeNames(orig, inner []arg, ph string) []arg {
	if len(inner) == 0 {
		return inner
	}
	if name, _ := progName(inner[0].val); !shellName(name) && !interpreter(name) {
		return inner
	}
	for i := 1; i < len(inner); i++ {
		// A word past orig is the name fd adds itself (no placeholder).
		if i >= len(orig) || strings.Contains(orig[i].val, ph) {
			inner[i].dyn = true
		}
	}
	return inner
}

// xargs runs a command with arguments read from its input.
func (c *call) xargs() {
	ops := scan(c.args, optSpec{short: "aEILnPsd", long: []string{"arg-file", "delimiter", "max-lines",
		"max-args", "max-procs", "max-chars", "process-slot-var"}, stop: true})
	if ops.computed {
		c.risky("indirection: an option of xargs is only known at run time")
		return
	}
	replace := ""
	own := c.args[:len(c.args)-len(ops.operands)] // xargs's own options, not the command's
	for _, o := range own {
		switch {
		case o.val == "-i" || o.val == "--replace":
			replace = "{}"
		case strings.HasPrefix(o.val, "-i") && len(o.val) > 2 && !strings.HasPrefix(o.val, "--"):
			replace = o.val[2:]
		case strings.HasPrefix(o.val, "--replace="):
			replace = strings.TrimPrefix(o.val, "--replace=")
		}
	}
	if o, ok := ops.get("-I"); ok {
		replace = o.val.val
	}
	c.local("xargs runs a command with arguments from its input, which is checked on its own")
	inner := ops.operands
	if len(inner) == 0 {
		return // echo
	}
	cx := cmdCtx{depth: c.cx.depth, tail: replace == ""}
	whole := ops.has("-0", "--null", "-d", "--delimiter")
	if feed, hidden, ok := c.feedWords(whole); ok && len(feed) > 0 {
		// What the pipe lists is known: judge the command with it, once for
		// each kind of name it may be given.
		c.local("xargs's input lists " + quoteArgs(feed))
		if hidden && c.feedsSecrets(inner, feed) {
			return
		}
		if replace == "" {
			c.wrap(append(append([]arg{}, inner...), feed...), cmdCtx{depth: c.cx.depth})
			return
		}
		for _, f := range feed {
			marked := make([]arg, len(inner))
			for i, x := range inner {
				if strings.Contains(x.val, replace) {
					x.val = strings.ReplaceAll(x.val, replace, f.val)
					x.glob = x.glob || f.glob
				}
				marked[i] = x
			}
			c.wrap(codeNames(inner, marked, replace), cmdCtx{depth: c.cx.depth})
		}
		return
	}
	c.feedsUnknown(inner)
	if replace != "" {
		marked := make([]arg, len(inner))
		for i, x := range inner {
			if strings.Contains(x.val, replace) {
				x.dyn = true
				if strings.HasPrefix(x.val, replace) {
					x.lead = true
				}
			}
			marked[i] = x
		}
		inner = marked
	}
	c.wrap(inner, cx)
}

// feedsSecrets judges a lister's output fed to a command that reads what
// it is given: a pattern dir/* from find, grep -r, git ls-files or ls -a
// stands for every file below dir, hidden ones such as .env among them
// (ls -a | grep env | xargs cat), so it reads dir as a recursive read does.
func (c *call) feedsSecrets(inner, feed []arg) bool {
	if !inner[0].static() {
		return false
	}
	name, _ := progName(inner[0].val)
	if noContents(name) {
		return false
	}
	for _, f := range feed {
		dir, ok := strings.CutSuffix(f.val, "/*")
		if !ok || !f.glob {
			continue
		}
		if f.tracked {
			if why, known := c.a.trackedSecret(dir); known {
				if why != "" {
					c.secretRead("xargs " + name + " reads what the pipe lists, the files git tracks below " + dir + ": " + why)
					return true
				}
				continue
			}
		}
		if why := c.a.secretWord(arg{val: dir}, true, true); why != "" {
			c.secretRead("xargs " + name + " reads what the pipe lists, which may be any file below " + dir + ": " + why)
			return true
		}
	}
	return false
}

// feedsUnknown judges names from an input the gate cannot read (a file, a
// pipe from a program that does not list files) fed to a command that
// reads what it is given: echo .env > list one call, xargs cat < list the
// next, would read any credential file.
func (c *call) feedsUnknown(inner []arg) {
	if !inner[0].static() {
		return
	}
	name, _ := progName(inner[0].val)
	if noContents(name) || secretSafeReader(name) {
		return
	}
	for _, x := range inner[1:] {
		if (name == "sed" || name == "perl") && strings.HasPrefix(x.val, "-i") {
			return // edits in place, printing nothing of the files
		}
	}
	c.secretRead("xargs " + name + " reads files whose names come from an input the gate cannot see, which may name credential files")
}

// parallel runs command templates on arguments from its input or the
// command line; it can also run them on other machines.
func (c *call) parallel() {
	for _, x := range c.args {
		switch flagName(x.val) {
		case "S", "sshlogin", "sshloginfile", "slf", "transfer", "transferfile", "tf", "return", "trc", "basefile", "bf":
			if strings.HasPrefix(x.val, "-") {
				c.risky("network: parallel " + x.val + " runs commands on other machines")
				return
			}
		}
	}
	ops := scan(c.args, optSpec{short: "jaSdEIiLlnPsXNmk", long: []string{"jobs", "arg-file", "delimiter", "colsep", "results", "joblog", "halt", "timeout", "tmpdir", "workdir", "wd", "env", "tag", "tagstring"}, stop: true})
	var tmpl []arg
	for _, x := range ops.operands {
		if strings.HasPrefix(x.val, ":::") || strings.HasPrefix(x.val, "::::") {
			break
		}
		tmpl = append(tmpl, x)
	}
	if len(tmpl) == 0 {
		c.risky("indirection: parallel runs commands read from its input")
		return
	}
	c.grey("parallel runs a command template on arguments that are not checked")
	code := joinArgs(tmpl)
	code.val = strings.NewReplacer("{}", "f", "{.}", "f", "{/}", "f", "{//}", "d", "{/.}", "f", "{#}", "1", "{%}", "1").Replace(code.val)
	c.scriptArg(code)
}

// secretSafeReader reports programs that take file names but print
// nothing of what the files hold (only whether they match, or names).
func secretSafeReader(name string) bool {
	switch name {
	case "rm", "git", "go", "gofmt", "prettier", "eslint", "black", "ruff", "touch", "chmod", "mkdir", "dirname", "basename":
		return true
	}
	return false
}
