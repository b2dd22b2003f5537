package gate

import (
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
)

// maxWalk bounds the entries of a directory tree that cp -r, mv and
// extraction checks look at for symbolic links.
const maxWalk = 4096

// linkMode is how a copying or linking command treats what it is given.
type linkMode struct {
	symbolic bool // ln -s, cp -s: makes symbolic links to the sources
	hard     bool // ln, cp -l: makes hard links to the sources
	keeps    bool // cp -r/-a/-d/-P, mv: symbolic links are copied as links
	tree     bool // cp -r, mv: directories are copied with all they hold
}

// fileLinks judges the names that cp, mv, ln and install create: each
// new name is checked as a write, a symbolic link by where it points from
// its new place, a hard link by the file it is a second name of, and
// directory trees copied or moved by the links inside them. A directory
// named .git or .claude copied into a directory writes that directory's
// namesake there.
func (c *call) fileLinks(ops scanResult) {
	n := ops.operands
	target, hasTarget := ops.get("-t", "--target-directory")
	srcs := n
	into := false // the destination is a directory the sources go into
	var dest arg
	switch {
	case hasTarget && target.hasVal:
		dest, into = target.val, true
	case len(n) > 1:
		dest, srcs = n[len(n)-1], n[:len(n)-1]
		noTarget := ops.has("-T", "--no-target-directory")
		into = !noTarget && (len(srcs) > 1 || dirWord(dest.val) ||
			c.a.place(dest, !(c.name == "ln" && ops.has("-n", "--no-dereference"))).isDir(c.a))
	case len(n) == 1 && c.name == "ln":
		dest, into = arg{val: "."}, true // ln TARGET: a link in the current directory
	default:
		return
	}
	mode := linkMode{}
	switch c.name {
	case "ln":
		mode.symbolic = ops.has("-s", "--symbolic")
		mode.hard = !mode.symbolic
	case "cp":
		mode.symbolic = ops.has("-s", "--symbolic-link")
		mode.hard = ops.has("-l", "--link")
		mode.keeps = !ops.has("-L", "--dereference") && ops.has("-r", "-R", "--recursive", "-a", "--archive", "-d", "-P", "--no-dereference")
		mode.tree = ops.has("-r", "-R", "--recursive", "-a", "--archive")
	case "mv":
		mode.keeps, mode.tree = true, true
	}
	var expanded []arg
	for _, src := range srcs {
		if !src.glob || src.dyn {
			expanded = append(expanded, src)
			continue
		}
		matches, ok := c.a.expand(src)
		if !ok {
			c.grey(c.name + " " + src.val + " matches too many files to check")
			continue
		}
		if len(matches) == 0 {
			expanded = append(expanded, src)
		}
		for _, m := range matches {
			expanded = append(expanded, arg{val: m})
		}
	}
	for _, src := range expanded {
		if mode.symbolic || mode.hard || mode.keeps {
			if !src.static() || !dest.static() {
				c.risky("indirection: " + c.name + " of " + src.val + " to " + dest.val + ": a name only known at run time, whose links cannot be checked")
				return
			}
		}
		newName := c.newName(src, dest, into)
		if (mode.hard || c.name == "mv") && c.renamesSecret(src, newName) {
			return
		}
		switch {
		case mode.symbolic:
			text := src.val
			if ops.has("-r", "--relative") || c.name == "cp" {
				text = c.a.place(src, true).real // what the link leads to
			}
			c.madeLink(newName, text, src.val)
		case mode.hard:
			c.hardLink(src)
		case mode.keeps || mode.tree:
			c.copiedTree(src, newName, mode)
		}
		if c.e.unliftable && c.worstTier() >= TierRisky {
			return
		}
		if !src.dyn && guardedComp(path.Base(src.val), src.glob, true) != "" && !ops.has("-T", "--no-target-directory") {
			// Copied or moved into dest when it is (or becomes) a
			// directory: dest's own .git or .claude.
			d := dest
			d.val = strings.TrimRight(d.val, "/") + "/" + path.Base(src.val)
			d.glob = d.glob || src.glob
			c.writes(d, c.name+" writes")
		}
	}
}

// renamesSecret judges a move or a hard link that gives credential
// material a name that is not a credential's: reading that name would not
// ask (mv .env notes.txt, then cat notes.txt), so the rename is the read.
func (c *call) renamesSecret(src arg, newName string) bool {
	why := c.a.secretWord(src, false, false)
	if why == "" || newName != "" && c.a.secretWord(arg{val: newName}, false, false) != "" {
		return false
	}
	c.secretRead(c.name + " gives " + src.val + " (" + why + ") a name that does not say so, where reading it would not ask")
	return true
}

// dirWord reports path words that name a directory whatever the
// filesystem says: ".", "..", and anything ending in "/" or "/.".
func dirWord(v string) bool {
	return v == "." || v == ".." || strings.HasSuffix(v, "/") || strings.HasSuffix(v, "/.") || strings.HasSuffix(v, "/..")
}

// worstTier is the highest tier found so far for the command.
func (c *call) worstTier() Tier {
	t, _ := worst(c.e.findings)
	return t
}

// isDir reports whether the place is an existing directory.
func (p place) isDir(a *analysis) bool {
	if p.real == "" || !p.exists {
		return false
	}
	return a.lookup(p.real).dir
}

// newName is the real absolute path of the name a copy or link of src
// gets: inside dest when into, else dest itself. "" when unknown.
func (c *call) newName(src, dest arg, into bool) string {
	d := c.a.place(dest, !into)
	if d.real == "" {
		return ""
	}
	if !into {
		return d.real
	}
	base := path.Base(strings.TrimRight(src.val, "/"))
	if base == "/" || base == "." {
		return d.real
	}
	return strings.TrimSuffix(d.real, "/") + "/" + base
}

// madeLink judges creating a symbolic link at newName whose text is text
// (shown is how the command names it): a link that leads outside the work
// tree, into a guarded or protected directory, or somewhere only known at
// run time gives later commands a second name for that place, through
// which they would write unseen. The link is remembered for the rest of
// the command line.
func (c *call) madeLink(newName, text, shown string) {
	if newName == "" {
		c.risky("indirection: " + c.name + " makes a link whose place is only known at run time")
		return
	}
	abs := text
	switch {
	case text == "~" || strings.HasPrefix(text, "~/"):
		abs = c.a.g.home + text[1:]
	case !strings.HasPrefix(text, "/"):
		abs = path.Dir(newName) + "/" + text
	}
	to := c.a.placeAbs(abs, true)
	where := shown
	if to.real != "" && to.real != shown {
		where += " (" + to.real + ")"
	}
	if what := c.a.linksGuarded(arg{val: text}); what != "" {
		c.guardRisk("indirection: " + c.name + " links to " + text + ", " + what + ": later commands could change it through the link unchecked")
		return
	}
	switch {
	case to.kind == pathUnknown:
		c.risky("indirection: " + c.name + " makes " + newName + " a link to " + where + ", which cannot be followed to where it leads")
	case to.kind != pathInside:
		c.risky("indirection: " + c.name + " makes a link to " + where + ", outside the work tree: later commands could write there through it unchecked")
	case guardedIn(to.rel, false) != "" || controlFile(to.rel):
		c.guardRisk("indirection: " + c.name + " makes a link to " + where + ", " + c.guardedWhatOf(to.rel) + ": later commands could change it through the link unchecked")
	}
	if c.a.made == nil {
		c.a.made = map[string]string{}
	}
	c.a.made[newName] = text
	delete(c.a.places, placeKey{newName, true})
	clear(c.a.places) // places resolved before may pass through the new link
}

// guardedWhatOf describes the guarded directory or control file that rel
// is in.
func (c *call) guardedWhatOf(rel string) string {
	if g := guardedIn(rel, false); g != "" {
		return guardedPart(g, rel)
	}
	return "a file that makes tools run commands or that holds permissions"
}

// hardLink judges making a second name for the file src: a file outside
// the work tree or in a guarded directory could then be changed through a
// name that looks like a workspace file.
func (c *call) hardLink(src arg) {
	for _, follow := range [...]bool{false, true} {
		pl := c.a.place(src, follow)
		switch {
		case pl.kind == pathUnknown:
			c.risky("indirection: " + c.name + " makes a second name for " + src.val + ", a file only known at run time")
			return
		case pl.kind != pathInside:
			c.risky("indirection: " + c.name + " makes a second name (a hard link) for " + src.val + ", outside the work tree: writing it would change that file")
			return
		case guardedIn(pl.rel, false) != "" || controlFile(pl.rel):
			c.guardRisk("indirection: " + c.name + " makes a second name (a hard link) for " + src.val + ", " + c.guardedWhatOf(pl.rel))
			return
		}
	}
}

// copiedTree judges copying or moving src to newName: each name the copy
// makes is a write (a tree copied into the workspace root may carry a
// .git/hooks or a .claude); with links kept as links, a relative link
// means something else in its new place, and each link in a copied tree is
// a new name for where it leads.
func (c *call) copiedTree(src arg, newName string, mode linkMode) {
	pl := c.a.place(src, false)
	if pl.real == "" || !pl.exists {
		return
	}
	li := c.a.lookup(pl.real)
	switch {
	case li.link && mode.keeps:
		c.madeLink(newName, li.target, src.val+" (a link to "+li.target+")")
	case li.link && mode.tree:
		if to := c.a.place(src, true); to.exists && c.a.lookup(to.real).dir {
			c.copiedEntries(to.real, src.val, newName, mode)
		}
	case li.dir && mode.tree:
		c.copiedEntries(pl.real, src.val, newName, mode)
	}
}

// copiedEntries judges the names a copy of the directory dir (shown as
// shown) makes under newName.
func (c *call) copiedEntries(dir, shown, newName string, mode linkMode) {
	stopped, over := walkTree(dir, func(rel string, link bool, target string, err error) bool {
		name := newName + "/" + rel
		if to := c.a.placeAbs(name, false); to.kind == pathInside {
			if g := guardedIn(to.rel, false); g != "" {
				c.guardRisk("destructive: " + c.name + " " + shown + " writes " + to.rel + ", " + guardedPart(g, to.rel))
				return false
			}
			if controlFile(to.rel) {
				c.guardRisk("indirection: " + c.name + " " + shown + " writes " + to.rel + ", a file that makes tools run commands or that holds permissions")
				return false
			}
		}
		if !link || !mode.keeps {
			return true
		}
		if err != nil {
			c.risky("indirection: " + c.name + " copies " + shown + "/" + rel + ", a link that cannot be read")
			return false
		}
		c.madeLink(name, target, shown+"/"+rel+" (a link to "+target+")")
		return c.worstTier() < TierRisky
	})
	if over && !stopped {
		c.grey(c.name + " copies or moves more than " + strconv.Itoa(maxWalk) + " files of " + shown + ": what they hold is not checked")
	}
}

// walkTree calls fn for each entry under dir (rel is its path from dir;
// for a symbolic link, link is set and target is its text), looking at no
// more than maxWalk entries; links are not followed. fn returns false to
// stop; stopped reports that it did, over that the walk reached the bound.
func walkTree(dir string, fn func(rel string, link bool, target string, err error) bool) (stopped, over bool) {
	seen := 0
	var walk func(prefix string) bool
	walk = func(prefix string) bool {
		entries, err := os.ReadDir(dir + "/" + prefix)
		if err != nil {
			return true
		}
		for _, e := range entries {
			if seen++; seen > maxWalk {
				over = true
				return false
			}
			rel := prefix + e.Name()
			link := e.Type()&fs.ModeSymlink != 0
			var t string
			var err error
			if link {
				t, err = os.Readlink(dir + "/" + rel)
			}
			if !fn(rel, link, t, err) {
				stopped = true
				return false
			}
			if e.IsDir() && !walk(rel+"/") {
				return false
			}
		}
		return true
	}
	walk("")
	return stopped, over
}
