package gate

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinks is how many symbolic links one path may pass through, as the
// kernel allows (ELOOP beyond).
const maxLinks = 40

// linkInfo is what the filesystem says about one absolute path.
type linkInfo struct {
	exists  bool
	link    bool   // a symbolic link
	target  string // its text
	dir     bool
	regular bool
	nlink   uint64 // names of a regular file
	broken  bool   // the link could not be read
}

// lookup says what is at the absolute clean path p: a link created earlier
// in the command line first, then the filesystem, as it is now.
func (a *analysis) lookup(p string) linkInfo {
	if t, ok := a.made[p]; ok {
		return linkInfo{exists: true, link: t != "", target: t, dir: t == ""}
	}
	return a.lstat(p)
}

// lstat says what the filesystem has at the absolute path p now (links
// the command line makes are not counted), asked once per command line.
func (a *analysis) lstat(p string) linkInfo {
	if li, ok := a.seen[p]; ok {
		return li
	}
	var li linkInfo
	var st unix.Stat_t
	err := a.lstatPath(p, &st)
	switch {
	case err != nil:
		// Missing, or not reachable: nothing to follow.
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		li.exists, li.link = true, true
		t, err := os.Readlink(p)
		li.target, li.broken = t, err != nil
	default:
		li.exists, li.dir = true, st.Mode&unix.S_IFMT == unix.S_IFDIR
		if st.Mode&unix.S_IFMT == unix.S_IFREG {
			li.regular, li.nlink = true, uint64(st.Nlink)
		}
	}
	if a.seen == nil {
		a.seen = map[string]linkInfo{}
	}
	a.seen[p] = li
	return li
}

// resolved is where a path really lands.
type resolved struct {
	path string // absolute and clean, every link followed as the kernel would
	// known is false when the path cannot be worked out: a link that
	// cannot be read, or a loop.
	known bool
	// viaLink: a symbolic link was followed on the way.
	viaLink bool
	// nlink is the number of names of the regular file it lands on, when
	// it exists.
	nlink uint64
	// exists: the path exists (after following links).
	exists bool
	dir    bool
}

// resolve follows p, an absolute path as written (".." and links not yet
// applied), through the filesystem: every symbolic link in a prefix is
// followed, ".." goes to the parent of the directory reached, and the last
// component is followed when follow is set (writing through a link writes
// its target; removing it removes the link). Components that do not exist
// are taken as written.
func (a *analysis) resolve(p string, follow bool) resolved {
	r := resolved{path: "/", known: true}
	rest := p
	// The workspace root was resolved when the gate was made: start there.
	for _, pre := range a.g.known {
		if pre.noMade && len(a.made) > 0 {
			continue
		}
		if after, ok := strings.CutPrefix(p, pre.given); ok && (after == "" || after[0] == '/') {
			r.path, r.exists, r.dir, rest = pre.real, true, true, after
			break
		}
	}
	links := 0
	missing := false // a component does not exist: nothing below it does either
	for rest != "" {
		var comp string
		comp, rest, _ = strings.Cut(rest, "/")
		switch comp {
		case "", ".":
			continue
		case "..":
			if strings.HasPrefix(r.path, "/proc/") && otherProcessPath(r.path) != "" {
				// Another process's cwd, root or fd, taken as written:
				// its ".." is that directory's parent, which is not known.
				r.known, r.path = false, p
				return r
			}
			r.path = path.Dir(r.path)
			r.exists, r.dir, r.nlink = true, true, 0
			missing = false // a directory made earlier in the line may be on the way
			continue
		}
		if comp == "thread-self" && r.path == "/proc" {
			// A link to self/task/TID: three levels down, which a ".."
			// after it climbs.
			rest = "self/task/0/" + rest
			continue
		}
		cand := joinPath(p, r.path, comp)
		last := strings.Trim(rest, "/") == "" && !strings.HasSuffix(p, "/")
		if to, ok := a.procLink(cand); ok {
			// /proc/self/cwd, /proc/self/root and the like: the command's
			// own working directory, or /.
			r.path, r.exists, r.dir, r.viaLink, missing = to, true, true, true, false
			continue
		}
		if _, made := a.made[cand]; missing && !made || cand == "/proc" || strings.HasPrefix(cand, "/proc/") {
			// Below a missing directory nothing exists; under /proc the
			// links are the looking process's own (cwd, root, fd): taken
			// as written, which absKind places outside.
			r.path, r.exists, r.dir, r.nlink = cand, false, false, 0
			missing = true
			continue
		}
		li := a.lookup(cand)
		if !li.link || last && !follow {
			r.path, r.exists, r.dir, r.nlink = cand, li.exists, li.dir, li.nlink
			missing = !li.exists
			continue
		}
		if li.broken {
			r.known = false
			r.path = cand
			return r
		}
		if links++; links > maxLinks {
			r.known = false
			r.path = cand
			return r
		}
		r.viaLink = true
		if strings.HasPrefix(li.target, "/") {
			r.path = "/"
		}
		rest = li.target + "/" + rest
	}
	return r
}

// joinPath is dir + "/" + comp ("/" + comp when dir is the root), taken
// from p when p starts with it, as it mostly does: no string is built.
func joinPath(p, dir, comp string) string {
	if dir == "/" {
		if n := 1 + len(comp); len(p) >= n && p[0] == '/' && p[1:n] == comp {
			return p[:n]
		}
		return "/" + comp
	}
	d := len(dir)
	if n := d + 1 + len(comp); len(p) >= n && p[d] == '/' && p[:d] == dir && p[d+1:n] == comp {
		return p[:n]
	}
	return dir + "/" + comp
}

// realDir resolves a directory given at configuration time (the workspace,
// a protected directory) once, so that paths resolved later compare with
// it: its longest existing ancestor with every link followed, and the rest
// as given.
func realDir(p string) string {
	if p == "" || p == virtualRoot || !strings.HasPrefix(p, "/") {
		return p
	}
	rest := ""
	for d := p; ; d = path.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return path.Clean(filepath.ToSlash(r) + rest)
		}
		if d == "/" {
			return p
		}
		rest = "/" + path.Base(d) + rest
	}
}

// maxGlobEntries bounds the directory entries a pattern is matched against.
const maxGlobEntries = 4096

// expand lists the files a pattern word matches now, as the shell would
// expand it, by their absolute paths. ok is false when there are too many entries to look at.
// A pattern that matches nothing stays as it is in the shell, and is
// judged as written by the callers.
func (a *analysis) expand(x arg) (matches []string, ok bool) {
	p, known := a.pathWord(x.val)
	if !known || x.dyn {
		return nil, true
	}
	dirs := []string{"/"}
	looked := 0
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, part := range parts {
		var next []string
		for _, d := range dirs {
			switch {
			case part == "" || part == ".":
				next = append(next, d)
			case !strings.ContainsAny(part, "*?["):
				next = append(next, strings.TrimSuffix(d, "/")+"/"+part)
			default:
				entries, ok := a.readDir(a.placeAbs(d, true).real)
				if !ok {
					continue
				}
				looked += len(entries)
				if looked > maxGlobEntries {
					return nil, false
				}
				pat := strings.ReplaceAll(part, "[!", "[^")
				for _, e := range entries {
					if strings.HasPrefix(e.Name, ".") && !strings.HasPrefix(part, ".") && !a.globDots {
						continue // as the shell: * does not match a leading dot
					}
					name := e.Name
					if a.globDots {
						// nocaseglob may be on: match as if both were lower case.
						pat, name = strings.ToLower(pat), strings.ToLower(name)
					}
					if m, err := path.Match(pat, name); m || err != nil {
						if i < len(parts)-1 && !e.Dir && !e.Link {
							continue
						}
						next = append(next, strings.TrimSuffix(d, "/")+"/"+e.Name)
					}
				}
			}
		}
		dirs = next
		if len(dirs) > maxGlobEntries {
			return nil, false
		}
	}
	for _, d := range dirs {
		if a.lstat(d).exists {
			matches = append(matches, d)
		}
	}
	return matches, true
}

// procLink is where a /proc link to a directory leads for the command
// that opens it: /proc/self/cwd (or thread-self, or a task of self) is its
// working directory, and /proc/self/root is /. ok is false for anything
// else, such as another process's working directory or root, which is not
// known (it may chdir, chroot or enter another mount namespace).
func (a *analysis) procLink(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "/proc/")
	if !ok {
		return "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) == 4 && parts[1] == "task" {
		parts = []string{parts[0], parts[3]}
	}
	if len(parts) != 2 {
		return "", false
	}
	who, what := parts[0], parts[1]
	self := who == "self" || who == "thread-self"
	if !self && (who == "" || strings.Trim(who, "0123456789") != "") {
		return "", false
	}
	switch {
	case what == "root" && self:
		return "/", true
	case what == "cwd" && self:
		if c := a.cwdReal(); c != "" {
			return c, true
		}
	}
	return "", false
}
