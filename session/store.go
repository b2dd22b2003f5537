// Package session owns where sessions live: store, ids, index and meta, listing, lookup, stats, follow, Source.
// It may import transcript only; never recorder, export, tui or cmd.
package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DirName is the name of a project's store directory.
const DirName = ".cuff"

// DirMode is the permission of every directory cuff creates.
const DirMode = 0o700

// Store is one project's recordings: <Dir>/recordings/index.json and
// <Dir>/recordings/sessions/<id>.jsonl with <id>.meta.json beside each.
type Store struct {
	// Dir is the .cuff directory.
	Dir string
	// Recordings is the recordings directory, Dir/recordings unless the
	// settings name another.
	Recordings string
	// Redact rewrites every line before it is written (secret redaction).
	Redact func(line []byte) ([]byte, error)
	// Warn receives problems that were repaired on the way, such as a
	// rebuilt index. Nil discards them.
	Warn func(msg string)
	// NoSync skips fsync on appends; for tests and benchmarks only.
	NoSync bool
	// Created, when set, is called when this store creates its .cuff
	// directory (not when it existed), e.g. to add it to .gitignore.
	Created func(dir string)
}

// Open returns the store in the .cuff directory dir. Nothing is created
// until the first write.
func Open(dir string) *Store {
	return &Store{Dir: dir, Recordings: filepath.Join(dir, "recordings")}
}

// SessionsDir is where session files live.
func (s *Store) SessionsDir() string { return filepath.Join(s.Recordings, "sessions") }

// IndexPath is the quick-lookup index file.
func (s *Store) IndexPath() string { return filepath.Join(s.Recordings, "index.json") }

// EventsPath is the JSONL file of session id. id must be valid.
func (s *Store) EventsPath(id string) string { return filepath.Join(s.SessionsDir(), id+".jsonl") }

// MetaPath is the meta file of session id. id must be valid.
func (s *Store) MetaPath(id string) string { return filepath.Join(s.SessionsDir(), id+".meta.json") }

func (s *Store) leasePath(id string) string { return filepath.Join(s.SessionsDir(), id+".lock") }

func (s *Store) warn(format string, args ...any) {
	if s.Warn != nil {
		s.Warn(fmt.Sprintf(format, args...))
	}
}

// ensureDirs creates the store's directories (0700), tightening looser
// ones that already exist inside the project (the folder that holds Dir):
// a recordings directory the settings place elsewhere is used as it is.
func (s *Store) ensureDirs() error {
	_, err := os.Stat(s.Dir)
	created := errors.Is(err, fs.ErrNotExist)
	project := resolved(filepath.Dir(s.Dir))
	for _, d := range []string{s.Dir, s.Recordings, s.SessionsDir()} {
		if err := ensureDir(d, within(resolved(d), project)); err != nil {
			return err
		}
	}
	if created && s.Created != nil {
		s.Created(s.Dir)
	}
	return nil
}

// resolved is p with symbolic links resolved as far as p exists.
func resolved(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rest := ""
	for d := abs; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(d) == d {
			return abs
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}

// within reports whether path p lies in (or is) directory dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func ensureDir(d string, tighten bool) error {
	fi, err := os.Stat(d)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(d, DirMode); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", d, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", d)
	}
	if tighten && fi.Mode().Perm()&^DirMode != 0 {
		if err := os.Chmod(d, DirMode); err != nil {
			return fmt.Errorf("tighten permissions of %s: %w", d, err)
		}
	}
	return nil
}

// Locate finds the project's .cuff directory. An explicit dir (from --dir
// or CUFF_DIR) names the .cuff directory itself, or a folder holding one.
// Otherwise it walks up from cwd to the first folder that holds a .cuff
// directory or is a git root, and uses that folder's .cuff (created on
// first write); with neither up to /, cwd's. The walk stops at the git
// root so that a stray .cuff above the repository (in the home folder, in
// /tmp) never takes over a project's recordings.
//
// A .cuff that is a symbolic link leading out of the folder that holds it
// (or nowhere) is refused with a *LinkError: a cloned repository could
// point it anywhere, and cuff would write, and tighten the modes of, what
// it points to.
func Locate(explicit, cwd string) (string, error) {
	dir, err := locate(explicit, cwd)
	if err != nil {
		return "", err
	}
	if err := checkLink(dir, filepath.Dir(dir)); err != nil {
		return "", err
	}
	for _, inner := range innerDirs {
		if err := checkLink(filepath.Join(dir, inner), filepath.Dir(dir)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// innerDirs are the folders inside .cuff that cuff writes into: a link
// among them leaving the project is refused as a .cuff link is.
var innerDirs = []string{"recordings", filepath.Join("recordings", "sessions"), filepath.Join("recordings", "trash"), "logs"}

func locate(explicit, cwd string) (string, error) {
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", explicit, err)
		}
		if filepath.Base(abs) != DirName && isDir(filepath.Join(abs, DirName)) {
			return filepath.Join(abs, DirName), nil
		}
		if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
			return "", fmt.Errorf("--dir %s is a file, not a directory: name the .cuff directory or the folder that holds it", explicit)
		}
		return abs, nil
	}
	for d := cwd; ; d = filepath.Dir(d) {
		if isDir(filepath.Join(d, DirName)) {
			return filepath.Join(d, DirName), nil
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return filepath.Join(d, DirName), nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return filepath.Join(cwd, DirName), nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// LinkError is a store directory that is a symbolic link leaving the project.
type LinkError struct {
	Dir, Target string
	Project     string // the folder the link must stay in
	Dangling    bool
}

func (e *LinkError) Error() string {
	if e.Dangling {
		return fmt.Sprintf("%s is a symbolic link to %s, which does not exist: cuff does not create its store through a link", e.Dir, e.Target)
	}
	return fmt.Sprintf("%s is a symbolic link to %s, outside the project %s: cuff refuses a store that leaves the project (a cloned repository could point it anywhere)",
		e.Dir, e.Target, e.Project)
}

// Hint tells the user the way out.
func (e *LinkError) Hint() string {
	return fmt.Sprintf("Hint: Remove the link (rm %s), or name the store itself with --dir %s", e.Dir, e.Target)
}

// checkLink refuses a store directory that is a symbolic link whose target
// is not inside project.
func checkLink(dir, project string) error {
	fi, err := os.Lstat(dir)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	target, err := filepath.EvalSymlinks(dir)
	if err != nil {
		link, _ := os.Readlink(dir)
		return &LinkError{Dir: dir, Target: link, Project: project, Dangling: true}
	}
	if !within(target, resolved(project)) {
		return &LinkError{Dir: dir, Target: target, Project: project}
	}
	return nil
}
