package gate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxFeedWords bounds the words taken from echo or printf as xargs's input.
const maxFeedWords = 64

// feedWords works out what the command writing this one's input (through
// a pipe) lists, so that xargs's command can be judged with it: the words
// echo or printf print, or, for a program that lists file names (find,
// grep -l, rg --files, git ls-files, ls, fd), a pattern standing for any
// file under each place it searches. Filters that only pick lines (sort,
// uniq, head, tail, grep without -o) pass what they read on. ok is false
// when the list is unknown; hidden when the lister's patterns stand for
// hidden files too (find, grep -r, git ls-files, ls -a, rg --hidden).
//
// With whole set (xargs -0 or -d), an item is what lies between
// delimiters, not a word: what echo and printf print is then unknown.
func (c *call) feedWords(whole bool) (list []arg, hidden, ok bool) {
	if c.cx.feeds == nil || c.cx.stmt == nil {
		return nil, false, false
	}
	st := c.cx.stmt
	for hops := 0; hops < 8; hops++ {
		src := c.cx.feeds[st]
		if src == nil {
			return nil, false, false
		}
		call, isCall := src.Cmd.(*syntax.CallExpr)
		if !isCall || len(call.Args) == 0 || len(call.Assigns) > 0 {
			return nil, false, false
		}
		argv := words(c.cx.src, call.Args)
		if !argv[0].static() {
			return nil, false, false
		}
		name, _ := progName(argv[0].val)
		args := argv[1:]
		switch name {
		case "sort", "uniq", "head", "tail", "tac", "shuf":
			if firstOperand(args) < len(args) {
				return nil, false, false // reads files, not the pipe
			}
			st = src
			continue
		case "grep", "egrep", "fgrep":
			if !hasListFlag(args) {
				if hasArgPrefix(args, "-o") || firstOperand(args)+1 < len(args) {
					return nil, false, false
				}
				st = src
				continue
			}
		}
		if whole && (name == "echo" || name == "printf") {
			return nil, false, false
		}
		list, ok := c.listing(name, args)
		return list, listsHidden(name, args), ok
	}
	return nil, false, false
}

// listsHidden reports listers whose output includes hidden files, such as
// .env, below the places they search.
func listsHidden(name string, args []arg) bool {
	switch name {
	case "find", "gfind", "git", "grep", "egrep", "fgrep":
		return true
	}
	for _, x := range args {
		v := x.val
		switch {
		case v == "--":
			return false
		case v == "--hidden" || v == "--all" || v == "--almost-all" || v == "--no-ignore-dot":
			return true
		case strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--"):
			switch name {
			case "ls":
				if strings.ContainsAny(v, "aA") {
					return true
				}
			case "rg", "ripgrep", "ag", "ack":
				if strings.Contains(v, "u") {
					return true
				}
			case "fd", "fdfind":
				if strings.ContainsAny(v, "Hu") {
					return true
				}
			}
		}
	}
	return false
}

// hasListFlag reports grep's -l, -L and their long forms.
func hasListFlag(args []arg) bool {
	for _, x := range args {
		v := x.val
		if v == "--" {
			return false
		}
		if v == "--files-with-matches" || v == "--files-without-match" ||
			strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "--") && strings.ContainsAny(v, "lL") {
			return true
		}
	}
	return false
}

// listing models what a file-listing program prints, by name and
// arguments.
func (c *call) listing(name string, args []arg) ([]arg, bool) {
	under := func(roots []arg, pattern string) ([]arg, bool) {
		if len(roots) == 0 {
			roots = []arg{{val: "."}}
		}
		out := make([]arg, 0, len(roots))
		for _, r := range roots {
			if !r.static() {
				return nil, false
			}
			out = append(out, arg{val: strings.TrimRight(r.val, "/") + "/" + pattern, glob: true})
		}
		return out, true
	}
	switch name {
	case "echo", "printf":
		ws := args
		if name == "printf" {
			// Only a format that prints each argument as it is, one a
			// word: any other text in it is printed too.
			if len(ws) == 0 {
				return nil, false
			}
			switch ws[0].val {
			case `%s\n`, "%s\n", "%s ":
			default:
				return nil, false
			}
			ws = ws[1:]
		}
		for len(ws) > 0 && name == "echo" && strings.HasPrefix(ws[0].val, "-") {
			ws = ws[1:]
		}
		if len(ws) > maxFeedWords {
			return nil, false
		}
		var out []arg
		for _, w := range ws {
			// xargs reads quotes and backslashes itself, and an echo may
			// turn escapes into blanks: such words are not the items.
			if w.dyn || strings.ContainsAny(w.val, `'"\`) {
				return nil, false
			}
			for _, f := range strings.Fields(w.val) {
				out = append(out, arg{val: f, glob: w.glob})
			}
		}
		return out, true
	case "find", "gfind":
		var roots []arg
		i := 0
		for ; i < len(args) && !strings.HasPrefix(args[i].val, "-") && args[i].val != "(" && args[i].val != "!"; i++ {
			roots = append(roots, args[i])
		}
		pattern := "*"
		for j := i; j < len(args); j++ {
			switch args[j].val {
			case "-o", "-or", ",", "!", "-not", "(":
				return under(roots, "*")
			case "-name":
				if j+1 < len(args) && args[j+1].static() && !strings.Contains(args[j+1].val, "/") {
					pattern = args[j+1].val
				}
			}
		}
		return under(roots, pattern)
	case "git":
		if len(args) == 0 {
			return nil, false
		}
		ops := scan(args[1:], optSpec{short: "xX", long: []string{"exclude", "exclude-from", "exclude-per-directory", "format", "diff-filter"}})
		switch sub := args[0].val; {
		case sub == "ls-files", sub == "diff" && ops.has("--name-only", "--name-status"), sub == "grep" && ops.has("-l", "-L", "--files-with-matches", "--name-only"):
			var roots []arg
			for _, x := range ops.operands {
				if sub == "grep" || sub == "diff" {
					continue // patterns and revisions, not paths: the whole tree
				}
				roots = append(roots, x)
			}
			out, ok := under(roots, "*")
			// Files the index tracks, unless untracked or ignored ones are
			// asked for, or files outside any repository.
			tracked := !ops.has("-o", "--others", "-i", "--ignored", "--no-index", "--untracked")
			for i := range out {
				out[i].tracked = tracked
			}
			return out, ok
		}
	case "rg", "ripgrep", "ag", "ack", "fd", "fdfind", "ls":
		ops := scan(args, optSpec{short: "egtTmA", long: []string{"glob", "type", "max-count", "regexp", "type-add", "extension", "exclude"}})
		roots := ops.operands
		switch name {
		case "rg", "ripgrep", "ag", "ack":
			if !ops.has("--files") && len(roots) > 0 {
				roots = roots[1:] // the pattern
			}
		case "fd", "fdfind":
			if len(roots) > 0 {
				roots = roots[1:]
			}
		}
		return under(roots, "*")
	case "grep", "egrep", "fgrep":
		ops := scan(args, optSpec{short: "efmABCD", long: []string{"regexp", "file", "max-count", "include", "exclude", "exclude-dir"}})
		roots := ops.operands
		if !ops.has("-e", "--regexp", "-f", "--file") && len(roots) > 0 {
			roots = roots[1:]
		}
		return under(roots, "*")
	}
	return nil, false
}
