package scripts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// maxWalkEntries bounds the directory entries one search visits, so that a
// pattern such as "**/*.sh" over a huge tree ends with an error instead of
// running for minutes.
const maxWalkEntries = 200_000

// globstar is the pattern segment that matches any number of directories.
const globstar = "**"

// ValidatePattern checks a glob pattern as written in scripts.patterns or
// scripts.exclude: it must be relative to the base directory, must not climb
// out of it with "..", and must be valid glob syntax (*, **, ?, [abc]).
func ValidatePattern(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return errors.New("pattern is empty; expected a glob such as scripts/*.sh")
	case strings.ContainsRune(p, 0):
		return fmt.Errorf("pattern %q contains a NUL byte", p)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return fmt.Errorf("pattern %q is absolute; patterns are relative to scripts.base_directory", p)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return fmt.Errorf("pattern %q leaves the base directory (..); move scripts.base_directory instead", p)
		}
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("pattern %q is not a valid glob (unclosed [ or trailing \\)", p)
	}
	return nil
}

// QuotePattern escapes the glob characters of a literal path, so that the
// pattern matches that path only ("scripts/[old].sh" becomes
// "scripts/\[old\].sh").
func QuotePattern(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if strings.IndexByte(`*?[]\`, p[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// cleanPattern normalises a valid pattern: no "./", no doubled slashes.
func cleanPattern(p string) string {
	return strings.TrimPrefix(path.Clean(p), "./")
}

// Match reports whether rel, a slash-separated path relative to the base
// directory, matches pattern. "*", "?" and "[...]" never match a slash; a
// segment "**" matches any number of directories, none included. A pattern
// that is not valid glob syntax matches nothing.
func Match(pattern, rel string) bool {
	if pattern == "" || rel == "" {
		return false
	}
	ps := strings.Split(cleanPattern(pattern), "/")
	ss := strings.Split(path.Clean(rel), "/")
	// next[j] is whether ps[i+1:] matches ss[j:], cur[j] whether ps[i:] does.
	next := make([]bool, len(ss)+1)
	cur := make([]bool, len(ss)+1)
	next[len(ss)] = true
	for i := len(ps) - 1; i >= 0; i-- {
		cur[len(ss)] = ps[i] == globstar && next[len(ss)]
		for j := len(ss) - 1; j >= 0; j-- {
			if ps[i] == globstar {
				cur[j] = next[j] || cur[j+1]
				continue
			}
			ok, err := path.Match(ps[i], ss[j])
			cur[j] = err == nil && ok && next[j+1]
		}
		next, cur = cur, next
	}
	return next[0]
}

// excluded reports whether rel or one of its parent directories matches one
// of the patterns, so that excluding "scripts/internal" excludes the files
// inside it.
func excluded(patterns []string, rel string) bool {
	for _, p := range patterns {
		for r := rel; r != "." && r != "/" && r != ""; r = path.Dir(r) {
			if Match(p, r) {
				return true
			}
		}
	}
	return false
}

func hasMeta(seg string) bool { return strings.ContainsAny(seg, `*?[\`) }

// walker expands patterns against the files under base.
type walker struct {
	base    string
	limit   int // most entries visited
	visited int
	done    map[string]bool // directory + remaining pattern already searched
	found   map[string]bool
	// problems are directories that could not be read, as warnings.
	problems []string
}

func newWalker(base string) *walker {
	return &walker{base: base, limit: maxWalkEntries, done: map[string]bool{}, found: map[string]bool{}}
}

// expand adds the regular files matching pattern (a valid, clean pattern).
func (w *walker) expand(pattern string) error {
	return w.walk("", strings.Split(pattern, "/"))
}

// files returns every file found so far, sorted.
func (w *walker) files() []string {
	out := make([]string, 0, len(w.found))
	for f := range w.found {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func (w *walker) abs(rel string) string {
	if rel == "" {
		return w.base
	}
	return filepath.Join(w.base, filepath.FromSlash(rel))
}

func (w *walker) count() error {
	w.visited++
	if w.visited > w.limit {
		return fmt.Errorf("the script patterns visit more than %d files and directories; make them narrower (e.g. scripts/**/*.sh instead of **/*.sh)", w.limit)
	}
	return nil
}

func (w *walker) walk(dir string, segs []string) error {
	if len(segs) == 0 {
		if dir != "" && isRegular(w.abs(dir)) {
			w.found[dir] = true
		}
		return nil
	}
	key := dir + "\x00" + strings.Join(segs, "/")
	if w.done[key] {
		return nil
	}
	w.done[key] = true
	seg, rest := segs[0], segs[1:]
	switch {
	case seg == globstar:
		if err := w.walk(dir, rest); err != nil {
			return err
		}
		entries, err := w.readDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			// Symlinked directories are not followed: they could loop.
			if e.IsDir() {
				if err := w.walk(join(dir, e.Name()), segs); err != nil {
					return err
				}
			}
		}
	case !hasMeta(seg):
		if err := w.count(); err != nil {
			return err
		}
		child := join(dir, seg)
		if len(rest) == 0 || isDir(w.abs(child)) {
			return w.walk(child, rest)
		}
	default:
		entries, err := w.readDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if ok, _ := path.Match(seg, e.Name()); !ok {
				continue
			}
			child := join(dir, e.Name())
			if len(rest) == 0 || isDir(w.abs(child)) {
				if err := w.walk(child, rest); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// readDir lists a directory; a directory that cannot be read is noted and
// skipped, one that does not exist is skipped silently.
func (w *walker) readDir(dir string) ([]fs.DirEntry, error) {
	entries, err := os.ReadDir(w.abs(dir))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			name := dir
			if name == "" {
				name = "."
			}
			w.problems = append(w.problems, fmt.Sprintf("Directory '%s' could not be read - its scripts are left out", name))
		}
		return nil, nil
	}
	for range entries {
		if err := w.count(); err != nil {
			return nil, err
		}
	}
	return entries, nil
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
