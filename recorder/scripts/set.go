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
	"time"
)

// Script is one exposed script.
type Script struct {
	// Name is the tool name, such as script_scripts_build.
	Name string
	// Path is the script's slash-separated path relative to the base directory.
	Path string
	// Description is the first line of its first comment block, or "Run <path>".
	Description string
	// Interpreter are the command words that run it; nil means it is executed directly.
	Interpreter []string
	Executable  bool // it has an execute bit
	Symlink     bool // its path is a symbolic link
	Binary      bool // its start holds a NUL byte

	abs string
}

// InterpreterString is the interpreter as one string ("npx ts-node"), ""
// for direct execution.
func (s *Script) InterpreterString() string { return strings.Join(s.Interpreter, " ") }

// Conflict is a tool name claimed by more than one script, or by a script
// and the list tool. None of the claimants is exposed under that name; each
// script can still be run by its path.
type Conflict struct {
	Name  string
	Paths []string
	// ListTool is set when the name is the list tool's.
	ListTool bool
}

func (c Conflict) String() string {
	if c.ListTool {
		return fmt.Sprintf("Script '%s' maps to %s, the name of the list tool - it is not exposed", c.Paths[0], c.Name)
	}
	if len(c.Paths) == 2 {
		return fmt.Sprintf("Scripts '%s' and '%s' map to the same tool name %s - neither is exposed by that name",
			c.Paths[0], c.Paths[1], c.Name)
	}
	return fmt.Sprintf("Scripts '%s' map to the same tool name %s - none of them is exposed by that name",
		strings.Join(c.Paths, "', '"), c.Name)
}

func (c Conflict) err() *Error {
	if c.ListTool {
		return newError(KindConflict, "rename the script, or set scripts.expose_list_scripts: false",
			"Tool name conflict: %s is the list tool's name (script %s)", c.Name, c.Paths[0])
	}
	return newError(KindConflict, "run one by its path, rename one, or add one to scripts.exclude",
		"Tool name conflict: %s is shared by %s", c.Name, strings.Join(c.Paths, ", "))
}

// Set is the result of one discovery: the scripts exposed under the
// configured patterns, with what was found wrong on the way. It is not
// changed after Load and may be shared.
type Set struct {
	// Scripts are the exposed scripts, sorted by name.
	Scripts   []*Script
	Conflicts []Conflict
	Warnings  []Warning
	// LoadedAt is when the discovery ran.
	LoadedAt time.Time

	cfg      Config
	base     string // absolute, as configured
	realBase string // with symlinks resolved
	byName   map[string]*Script
	refused  map[string]*Error // tool names that were found but are not exposed
	files    []string          // every file the patterns matched, excluded ones left out
}

// Load finds the scripts that the configuration exposes. A bad pattern, a
// missing base directory or a search that would visit too many files is an
// error; problems with single scripts are Warnings and Conflicts.
func Load(cfg Config) (*Set, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	base, err := cfg.BaseDir()
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(base)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("scripts.base_directory %q is not a directory; create it or point the setting at the folder that holds the scripts", cfg.BaseDirectory)
	}
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return nil, fmt.Errorf("scripts.base_directory %q: %w", cfg.BaseDirectory, err)
	}
	s := &Set{cfg: cfg, base: base, realBase: realBase, LoadedAt: time.Now(),
		byName: map[string]*Script{}, refused: map[string]*Error{}}
	w := newWalker(base)
	for _, p := range cfg.Patterns {
		if err := w.expand(cleanPattern(p)); err != nil {
			return nil, err
		}
	}
	for _, msg := range w.problems {
		s.Warnings = append(s.Warnings, Warning{Kind: WarnUnreadable, Message: msg})
	}
	claims := map[string][]*Script{}
	for _, rel := range w.files() {
		if excluded(cfg.Exclude, rel) {
			continue
		}
		s.files = append(s.files, rel)
		sc, warns := inspect(filepath.Join(base, filepath.FromSlash(rel)), rel, cfg.Interpreters)
		s.Warnings = append(s.Warnings, warns...)
		if e := s.escapes(rel, sc.abs); e != nil {
			s.refused[sc.Name] = e
			s.Warnings = append(s.Warnings, Warning{Kind: WarnEscape, Path: rel,
				Message: fmt.Sprintf("Script '%s' resolves outside base directory - it is not exposed", rel)})
			continue
		}
		claims[sc.Name] = append(claims[sc.Name], sc)
	}
	for name, scs := range claims {
		switch {
		case len(scs) > 1:
			c := Conflict{Name: name}
			for _, sc := range scs {
				c.Paths = append(c.Paths, sc.Path)
			}
			s.Conflicts = append(s.Conflicts, c)
			s.refused[name] = c.err()
		case name == ListToolName && cfg.ExposeListScripts:
			c := Conflict{Name: name, Paths: []string{scs[0].Path}, ListTool: true}
			s.Conflicts = append(s.Conflicts, c)
			s.refused[name] = c.err()
		default:
			s.byName[name] = scs[0]
			s.Scripts = append(s.Scripts, scs[0])
		}
	}
	sort.Slice(s.Scripts, func(i, j int) bool { return s.Scripts[i].Name < s.Scripts[j].Name })
	sort.Slice(s.Conflicts, func(i, j int) bool { return s.Conflicts[i].Name < s.Conflicts[j].Name })
	return s, nil
}

// Config is the configuration the set was loaded with.
func (s *Set) Config() Config { return s.cfg }

// Files are the paths of every script the patterns matched (excluded ones
// left out), exposed or not, sorted.
func (s *Set) Files() []string { return append([]string(nil), s.files...) }

// escapes reports a script whose path resolves outside the base directory.
func (s *Set) escapes(rel, abs string) *Error {
	resolved, err := filepath.EvalSymlinks(abs)
	if err == nil && !within(s.realBase, resolved) {
		return newError(KindSymlinkEscape, "point the symlink at a file inside the base directory, or copy the script there",
			"Script resolves outside base directory: %s", rel)
	}
	return nil
}

// Lookup returns the exposed script with a tool name. The script is checked
// again on disk, so a script removed or replaced since the discovery is
// refused as it would be on its first run.
func (s *Set) Lookup(name string) (*Script, error) {
	if e, ok := s.refused[name]; ok {
		return nil, e
	}
	sc, ok := s.byName[name]
	if !ok {
		return nil, newError(KindNotFound, "run 'cuff scripts list' to see the scripts and their tool names",
			"Script not found: %s", name)
	}
	return s.check(sc.Path)
}

// Resolve finds a script by tool name (script_scripts_build) or by path
// relative to the base directory (scripts/build.sh) and checks it: the path
// must stay inside the base directory, also after symlinks are followed,
// match a pattern, match no exclude pattern, and be a file.
func (s *Set) Resolve(ref string) (*Script, error) {
	if _, ok := s.byName[ref]; ok {
		return s.Lookup(ref)
	}
	if _, ok := s.refused[ref]; ok {
		return s.Lookup(ref)
	}
	if strings.HasPrefix(ref, ToolPrefix) && !strings.ContainsAny(ref, "/.") {
		if _, err := os.Lstat(filepath.Join(s.base, ref)); errors.Is(err, fs.ErrNotExist) {
			return s.Lookup(ref)
		}
	}
	return s.check(ref)
}

// check validates a script path and inspects the file.
func (s *Set) check(ref string) (*Script, error) {
	if ref == "" || strings.ContainsRune(ref, 0) {
		return nil, newError(KindInvalid, "name a script by its tool name or its path", "Script path is empty or holds a NUL byte")
	}
	abs := filepath.Clean(ref)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(s.base, ref)
	}
	if !within(s.base, abs) {
		return nil, newError(KindTraversal, "name a script inside scripts.base_directory", "Path traversal detected: %s", ref)
	}
	rel, err := filepath.Rel(s.base, abs)
	if err != nil {
		return nil, newError(KindTraversal, "name a script inside scripts.base_directory", "Path traversal detected: %s", ref)
	}
	rel = filepath.ToSlash(rel)
	if e := s.escapes(ref, abs); e != nil {
		return nil, e
	}
	if !s.allowed(rel) {
		return nil, newError(KindNotAllowed, "add a pattern that matches it to scripts.patterns in .cuff/settings.yml",
			"Script not in allowed patterns: %s", ref)
	}
	if excluded(s.cfg.Exclude, rel) {
		return nil, newError(KindExcluded, "remove the pattern that matches it from scripts.exclude",
			"Script is excluded: %s", ref)
	}
	if !isRegular(abs) {
		return nil, newError(KindNotFound, "run 'cuff scripts list' to see the scripts", "Script not found: %s", ref)
	}
	sc, _ := inspect(abs, rel, s.cfg.Interpreters)
	return sc, nil
}

func (s *Set) allowed(rel string) bool {
	for _, p := range s.cfg.Patterns {
		if Match(p, rel) {
			return true
		}
	}
	return false
}

// within reports whether p is base or lies inside it (both clean and absolute).
func within(base, p string) bool {
	rel, err := filepath.Rel(base, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// inspect reads what the scripts plugin wants to know about a file and the
// warnings discovery gives about it.
func inspect(abs, rel string, interpreters map[string]string) (*Script, []Warning) {
	name := path.Base(rel)
	sc := &Script{Name: ToolName(rel), Path: rel, abs: abs}
	warns := sensitiveWarning(rel, name)
	head, err := readHead(abs)
	switch {
	case err != nil:
		warns = append(warns, Warning{Kind: WarnUnreadable, Path: rel,
			Message: fmt.Sprintf("Script '%s' could not be read - its interpreter is guessed from its name", rel)})
	case IsBinary(head):
		sc.Binary = true
		warns = append(warns, Warning{Kind: WarnBinary, Path: rel,
			Message: fmt.Sprintf("Script '%s' appears to be binary - verify this is intentional", rel)})
	case !HasShebang(head):
		warns = append(warns, Warning{Kind: WarnNoShebang, Path: rel,
			Message: fmt.Sprintf("Script '%s' has no shebang line - interpreter will be guessed", rel)})
	}
	if fi, err := os.Stat(abs); err == nil {
		sc.Executable = fi.Mode().Perm()&0o111 != 0
		if fi.Mode().Perm()&0o002 != 0 {
			warns = append(warns, Warning{Kind: WarnWorldWritable, Path: rel,
				Message: fmt.Sprintf("SECURITY: Script '%s' is world-writable - this allows any user to modify the script", rel)})
		}
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		sc.Symlink = true
		warns = append(warns, Warning{Kind: WarnSymlink, Path: rel,
			Message: fmt.Sprintf("Script '%s' is a symlink - target will be validated at runtime", rel)})
	}
	sc.Description = Description(head)
	if sc.Description == "" {
		sc.Description = "Run " + rel
	}
	sc.Interpreter = Interpreter(name, head, interpreters)
	return sc, warns
}
