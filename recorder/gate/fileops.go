package gate

import (
	"path"
	"strings"
)

// rm removes files: local inside the workspace, destructive outside it or
// on the workspace as a whole.
func (c *call) rm() {
	ops := scan(c.args, optSpec{short: "nsuz", long: []string{"iterations", "size", "random-source", "remove"}})
	if c.name == "shred" || c.name == "srm" || c.name == "wipe" {
		c.risky("destructive: " + c.name + " destroys file contents beyond recovery")
		return
	}
	if ops.computed {
		c.risky("destructive: " + c.name + " of files only known at run time")
		return
	}
	if ops.has("--no-preserve-root") {
		c.risky("destructive: rm --no-preserve-root can delete the whole system")
		return
	}
	recursive := ops.has("-r", "-R", "--recursive")
	if recursive {
		for _, x := range ops.operands {
			if !buildOutput(x) {
				c.notAlways(c.name + " -r " + x.val + " deletes a tree that may hold work")
				break
			}
		}
	}
	if c.cx.tail && recursive {
		c.risky("destructive: " + c.name + " -r of paths read from its input, which may lie anywhere")
		return
	}
	for _, x := range ops.operands {
		v := path.Clean(x.val)
		if !x.dyn && (isRootLike(v) || c.a.cwdReal() == c.a.g.root && (v == "*" || v == ".*")) {
			c.risky("destructive: " + c.name + " " + x.val + " deletes a whole tree")
			return
		}
		if rel, ok := c.a.relOf(x, true, false); ok {
			if rel == "." || rel == "*" && x.glob {
				c.risky("destructive: " + c.name + " " + x.val + " deletes the whole workspace")
				return
			}
			if g := guardedIn(rel, x.glob); g != "" {
				c.guardRisk("destructive: " + c.name + " " + x.val + " deletes " + guardedPart(g, rel))
				return
			}
		}
		switch k := c.a.place(x, false).kind; k {
		case pathInside, pathTemp, pathHarmless:
		case pathUnknown:
			c.risky("destructive: " + c.name + " " + x.val + ", a path only known at run time")
			return
		default:
			what := "deletes " + x.val + ", outside the workspace"
			if recursive {
				what = "recursively " + what
			}
			c.risky("destructive: " + c.name + " " + what)
			return
		}
	}
	c.local(c.name + " removes files inside the workspace")
}

// buildOutput reports a path word naming a directory that builds make and
// remake (build, dist, target, node_modules, caches ...), whose recursive
// removal loses nothing.
func buildOutput(x arg) bool {
	if !x.static() {
		return false
	}
	switch path.Base(path.Clean(x.val)) {
	case "build", "builds", "dist", "out", "target", "bin", "obj", "node_modules", ".next", ".nuxt", ".cache",
		"coverage", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox", "htmlcov",
		".gradle", ".parcel-cache", ".turbo", "tmp", ".tmp", "_build", ".eggs", "site", "public", ".svelte-kit",
		".terraform", "vendor", ".venv", "venv", "cmake-build-debug", "cmake-build-release", "DerivedData":
		return true
	}
	b := path.Base(path.Clean(x.val))
	return strings.HasSuffix(b, ".egg-info") || strings.HasPrefix(b, "cmake-build-")
}

// fileTool handles programs that write files named by their arguments.
// toStdout reports a compressor's -c (--stdout, --to-stdout), alone or
// among other short options (-dc).
func toStdout(args []arg) bool {
	for _, x := range args {
		v := x.val
		if v == "--" {
			return false
		}
		if v == "--stdout" || v == "--to-stdout" || len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v, 'c') > 0 && strings.Trim(v[1:], "cdfkqvt123456789") == "" {
			return true
		}
	}
	return false
}

func (c *call) fileTool() {
	var spec optSpec
	switch c.name {
	case "cp", "mv", "install", "ln":
		spec = optSpec{short: "tSmogb", long: []string{"target-directory", "suffix", "mode", "owner", "group", "backup", "reflink", "sparse", "preserve", "no-preserve", "context"}}
	case "sort":
		spec = optSpec{short: "okStT", long: []string{"output", "key", "buffer-size", "field-separator", "temporary-directory", "compress-program", "files0-from", "parallel", "batch-size", "random-source", "sort"}}
	case "split":
		spec = optSpec{short: "abClnt", long: []string{"suffix-length", "additional-suffix", "bytes", "line-bytes", "lines", "number", "filter", "separator", "numeric-suffixes", "hex-suffixes"}}
	case "csplit":
		spec = optSpec{short: "bfn", long: []string{"suffix-format", "prefix", "digits"}}
	case "truncate":
		spec = optSpec{short: "sr", long: []string{"size", "reference"}}
	case "tee", "touch", "mkdir", "mkfifo":
		spec = optSpec{short: "mdtrZ", long: []string{"mode", "date", "reference", "time", "context"}}
	case "iconv", "shuf", "tree", "base64", "gpg":
		spec = optSpec{short: "ftoinrLIPpdDBFzuH", long: []string{"from-code", "to-code", "output", "input", "head-count", "random-source", "directory", "strip", "reject-file", "input-range", "homedir"}}
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4":
		// -d (decompress) and -c (to standard output) take no value: gzip -d
		// ~/x.gz writes ~/x.
		spec = optSpec{short: "SDTMFCoB", long: []string{"suffix", "threads", "memlimit", "format", "check", "output"}}
	case "uniq":
		// uniq -c IN ~/.bashrc writes ~/.bashrc: -c and -d take no value.
		spec = optSpec{short: "fsw", long: []string{"skip-fields", "skip-chars", "check-chars", "all-repeated", "group"}}
	case "xxd":
		spec = optSpec{short: "cglsonR", long: []string{"cols", "groupsize", "len", "seek", "name"}}
	default:
		spec = optSpec{short: "dSxc", long: []string{"directory", "suffix", "exclude"}}
	}
	ops := scan(c.args, spec)
	if ops.computed {
		c.grey("an option of " + c.name + " is only known at run time")
	}
	for _, o := range ops.opts {
		switch {
		case isLong(o.name, "compress-program") || isLong(o.name, "filter") || c.name == "zip" && (o.name == "-T" || isLong(o.name, "unzip-command")) ||
			c.name == "gpg" && (isLong(o.name, "exec-path") || isLong(o.name, "photo-viewer") || isLong(o.name, "keyserver") || isLong(o.name, "recv-keys") || isLong(o.name, "send-keys")):
			c.risky("interpreter: " + c.name + " " + o.name + " runs another program or reaches the network")
			return
		case o.name == "-o" || isLong(o.name, "output") || o.name == "-t" && (c.name == "cp" || c.name == "mv" || c.name == "install" || c.name == "ln") ||
			isLong(o.name, "target-directory") || o.name == "-d" && (c.name == "unzip" || c.name == "7z"):
			if o.hasVal {
				c.writes(o.val, c.name+" writes to")
			}
		}
	}
	if c.name == "zip" && strings.Contains(" "+joinArgs(c.args).val+" ", " -TT") {
		c.risky("interpreter: zip -TT runs another program")
		return
	}
	n := ops.operands
	if c.name == "rename" && len(n) > 0 {
		if !renameExpr(n[0]) {
			c.risky("interpreter: rename " + n[0].val + " may be a Perl expression, which runs code")
			return
		}
		n = n[1:]
		if len(n) > 0 && !strings.HasPrefix(ops.operands[0].val, "s") && !strings.HasPrefix(ops.operands[0].val, "y") {
			n = n[1:] // util-linux rename FROM TO FILES
		}
	}
	switch c.name {
	case "cp", "install", "ln":
		if len(n) > 1 && !ops.has("-t", "--target-directory") {
			c.writes(n[len(n)-1], c.name+" writes to")
		}
	case "mv":
		for _, x := range n { // the sources, and the destination unless -t names it
			c.writes(x, "mv moves")
		}
	case "uniq", "xxd":
		if len(n) > 1 {
			c.writes(n[1], c.name+" writes to")
		}
	case "split", "csplit":
		c.splitOutputs(ops)
	case "sort", "iconv", "shuf", "tree", "base64", "gpg", "zip":
		if c.name == "zip" && len(n) > 0 {
			c.writes(n[0], "zip writes")
		}
	case "yq":
		if ops.has("-i", "--inplace") {
			for _, x := range n[min(1, len(n)):] {
				c.writes(x, "yq -i rewrites")
			}
		}
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4":
		if toStdout(c.args) {
			break // it reads them and writes its standard output
		}
		for _, x := range n {
			c.writes(x, c.name+" writes")
		}
	default:
		for _, x := range n {
			c.writes(x, c.name+" writes")
		}
	}
	switch c.name {
	case "cp", "mv", "install", "ln":
		c.fileLinks(ops)
	}
	c.local(c.name + " works on files inside the workspace")
}

// splitOutputs judges the files split and csplit write: a prefix (split's
// second operand, csplit's -f, xx by default) and a suffix they make up,
// as a pattern.
func (c *call) splitOutputs(ops scanResult) {
	prefix := arg{val: "x"}
	if c.name == "csplit" {
		prefix = arg{val: "xx"}
		if o, ok := ops.get("-f", "--prefix"); ok && o.hasVal {
			prefix = o.val
		}
	} else if len(ops.operands) > 1 {
		prefix = ops.operands[1]
	}
	suffix := ""
	if o, ok := ops.get("--additional-suffix"); ok && o.hasVal {
		if !o.val.static() {
			c.risky("destructive: split writes files named by a suffix only known at run time")
			return
		}
		suffix = o.val.val
	}
	out := prefix
	out.val += "*" + suffix
	out.glob = true
	c.writes(out, c.name+" writes")
}

// renameExpr reports whether the first operand of rename is plain text or
// a Perl substitution without code (s/a/b/, y/a/b/): the Perl rename runs
// any other expression, and s///e runs code.
func renameExpr(x arg) bool {
	v := x.val
	if !x.static() {
		return false
	}
	if len(v) > 2 && (v[0] == 's' || v[0] == 'y') && !isAlnum(v[1]) {
		d := v[1]
		parts := strings.Split(v[2:], string(d))
		if len(parts) != 3 {
			return false
		}
		return strings.Trim(parts[2], "gimsxr") == "" // no e flag
	}
	return !strings.ContainsAny(v, "(){};$@`\\&|")
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// mktemp creates a file or directory named by its template (in -p DIR,
// $TMPDIR or /tmp): a write where the template or directory says.
func (c *call) mktemp() {
	ops := scan(c.args, optSpec{short: "p", long: []string{"tmpdir", "suffix"}})
	c.local("mktemp creates a temporary file")
	dir, hasDir := ops.get("-p", "--tmpdir")
	for _, x := range ops.operands {
		if hasDir && dir.hasVal && !strings.Contains(x.val, "/") {
			x = arg{val: strings.TrimRight(dir.val.val, "/") + "/" + x.val, dyn: x.dyn || dir.val.dyn}
		} else if !ops.has("-t") && !strings.Contains(x.val, "/") {
			continue // in $TMPDIR
		}
		x.val = strings.TrimRight(x.val, "X") + "x"
		c.writes(x, "mktemp creates")
	}
	if hasDir && dir.hasVal && len(ops.operands) == 0 {
		c.writes(arg{val: strings.TrimRight(dir.val.val, "/") + "/tmp.x", dyn: dir.val.dyn}, "mktemp creates")
	}
}

// dd copies blocks; writing to a device or outside the workspace is
// destructive.
func (c *call) dd() {
	c.notAlways("dd overwrites data block by block")
	for _, x := range c.args {
		if !x.static() && strings.HasPrefix(x.val, "of=") || x.lead {
			c.risky("destructive: dd writes to a file only known at run time")
			return
		}
		if v, ok := strings.CutPrefix(x.val, "of="); ok {
			c.writes(arg{val: v, dyn: x.dyn}, "dd writes")
		}
	}
	c.local("dd copies data")
}

// chmod changes permissions: local inside the workspace, risky elsewhere,
// and risky anywhere for set-user-id bits.
func (c *call) chmod() {
	ops := scan(c.args, optSpec{long: []string{"reference", "from"}})
	if ops.computed {
		c.risky("destructive: " + c.name + " of files only known at run time")
		return
	}
	n := ops.operands
	if len(n) > 0 && !ops.has("--reference") {
		mode := n[0].val
		if c.name == "chmod" && (strings.Contains(mode, "s") || len(mode) == 4 && mode[0] >= '2' && mode[0] <= '7') {
			c.risky("destructive: chmod " + mode + " sets set-user-id or set-group-id bits")
			return
		}
		n = n[1:]
	}
	recursive := ops.has("-R", "--recursive")
	if recursive {
		c.notAlways(c.name + " -R changes a whole tree")
	}
	for _, x := range n {
		if rel, ok := c.a.relOf(x, true, true); ok && recursive && (rel == "." || rel == "*" && x.glob) {
			c.guardRisk("destructive: " + c.name + " -R " + x.val + " changes the whole workspace, .git and .cuff included")
			return
		}
		if !c.a.where(x).writable() || isRootLike(x.val) {
			c.risky("destructive: " + c.name + " changes " + x.val + ", outside the workspace")
			return
		}
		if g, _ := c.a.guarded(x, true); g != "" {
			c.guardRisk("destructive: " + c.name + " changes permissions in " + guardedWhat(g))
			return
		}
	}
	c.local(c.name + " changes files inside the workspace")
}

// tar creates and extracts archives; several options run programs.
func (c *call) tar() {
	args := c.args
	if len(args) > 0 && args[0].static() && !strings.HasPrefix(args[0].val, "-") && strings.Trim(args[0].val, "AcdrtuxfvzjJZapPkmWOSMBGhiIlnowKLTNgV0123456789") == "" {
		// Old-style bundled options: "tar xzf a.tgz".
		args = append([]arg{{val: "-" + args[0].val}}, args[1:]...)
	}
	ops := scan(args, optSpec{short: "fCIFTXKNbgHLVM", long: []string{"file", "directory", "use-compress-program",
		"to-command", "checkpoint-action", "info-script", "new-volume-script", "rsh-command", "rmt-command",
		"files-from", "exclude-from", "starting-file", "newer", "after-date", "format", "owner", "group",
		"mode", "label", "transform", "xform", "exclude", "index-file", "volno-file", "tape-length"}})
	if ops.computed {
		c.grey("an option of tar is only known at run time")
	}
	extract := false
	for _, o := range ops.opts {
		switch {
		case o.name == "-I" || o.name == "-F" || isLong(o.name, "use-compress-program") || isLong(o.name, "to-command") ||
			isLong(o.name, "checkpoint-action") || isLong(o.name, "info-script") || isLong(o.name, "new-volume-script") ||
			isLong(o.name, "rsh-command") || isLong(o.name, "rmt-command"):
			c.risky("interpreter: tar " + o.name + " runs another program")
			return
		case o.name == "-x" || isLong(o.name, "extract") || isLong(o.name, "get"):
			extract = true
		case o.name == "-P" || isLong(o.name, "absolute-names"):
			c.risky("destructive: tar --absolute-names writes wherever the archive says")
			return
		}
	}
	for _, o := range ops.opts {
		switch {
		case o.name == "-f" || isLong(o.name, "file"):
			if i := strings.IndexByte(o.val.val, ':'); i > 0 && !strings.Contains(o.val.val[:i], "/") && !ops.has("--force-local") {
				c.risky("network: tar archive " + o.val.val + " is on another machine")
				return
			}
			if !extract && !ops.has("-t", "--list", "-d", "--diff", "--compare") {
				c.writes(o.val, "tar writes")
			}
		case extract && (o.name == "-C" || isLong(o.name, "directory")):
			c.writesUnlessDir(o.val, "tar extracts to")
		}
	}
	if extract {
		c.tarExtract(ops)
	}
	c.local("tar works on archives inside the workspace")
}
