package runner

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// defaultPath is searched when neither the child's nor cuff's environment has a PATH.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// plan is a validated command, resolved against the file system and ready to start.
type plan struct {
	path    string   // the executable to exec
	argv    []string // what the child sees as its argv
	dir     string   // absolute working directory, symlinks resolved
	env     []string
	removed []string // host variables left out of env
}

// Validate checks the command without running it: the same checks Run makes before it
// starts anything. The error, if any, is an *Error.
func (c *Command) Validate() error {
	if _, err := c.prepare(); err != nil {
		return err
	}
	return nil
}

func (c *Command) prepare() (*plan, *Error) {
	if err := c.checkStatic(); err != nil {
		return nil, err
	}
	dir, err := resolveDir(c.Dir, c.Root)
	if err != nil {
		return nil, err
	}
	env, removed := c.Env.build(dir)
	argv := c.execArgv()
	field := "executable"
	if c.ShellMode() {
		field = "shell"
	}
	exe, err := lookupExecutable(field, argv[0], dir, env)
	if err != nil {
		return nil, err
	}
	if len(c.Wrap) > 0 {
		if !filepath.IsAbs(c.Wrap[0]) {
			return nil, invalid("wrap", "give the wrapper's absolute path", "wrapper %q is not an absolute path", c.Wrap[0])
		}
		wrapped := append(append(append([]string(nil), c.Wrap...), exe), argv[1:]...)
		return &plan{path: c.Wrap[0], argv: wrapped, dir: dir, env: env, removed: removed}, nil
	}
	return &plan{path: exe, argv: argv, dir: dir, env: env, removed: removed}, nil
}

// resolveDir turns the requested working directory into an absolute path with symlinks
// resolved, and checks that it exists, is a searchable directory and lies inside root.
// Messages name the directory as the caller gave it.
func resolveDir(dir, root string) (string, *Error) {
	shown := dir
	if shown == "" {
		shown = "."
	}
	var rootReal string
	if root != "" {
		r, err := realDir(root)
		if err != nil {
			return "", newError(CodeBadWorkDir, "root",
				"run cuff inside a project, or point it at an existing project directory",
				"the project root does not exist or is not a directory").wrap(err)
		}
		rootReal = r
	}
	want := dir
	switch {
	case want == "" && rootReal != "":
		want = rootReal
	case want == "":
		want = "."
	case !filepath.IsAbs(want) && rootReal != "":
		want = filepath.Join(rootReal, want)
	}
	info, err := os.Stat(want)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", newError(CodeBadWorkDir, "working_dir", "create it, or give an existing directory",
			"working directory %q does not exist", shown).wrap(err)
	case errors.Is(err, fs.ErrPermission):
		return "", newError(CodePermissionDenied, "working_dir", "check the permissions of its parent directories",
			"permission denied reaching working directory %q", shown).wrap(err)
	case err != nil:
		return "", newError(CodeBadWorkDir, "working_dir", "give an existing directory",
			"working directory %q cannot be used: %s", shown, errnoText(err)).wrap(err)
	case !info.IsDir():
		return "", newError(CodeBadWorkDir, "working_dir", "give a directory, not a file",
			"working directory %q is not a directory", shown)
	}
	real, err := realDir(want)
	if err != nil {
		return "", newError(CodeBadWorkDir, "working_dir", "give an existing directory",
			"working directory %q cannot be resolved: %s", shown, errnoText(err)).wrap(err)
	}
	if rootReal != "" && !within(rootReal, real) {
		return "", newError(CodeBadWorkDir, "working_dir",
			"use a directory inside the project; symlinks are followed before this check",
			"working directory %q is outside the project root", shown)
	}
	if err := unix.Access(real, unix.X_OK); err != nil {
		return "", newError(CodePermissionDenied, "working_dir", "check the directory's permissions (it needs x)",
			"permission denied entering working directory %q", shown).wrap(err)
	}
	return real, nil
}

func realDir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", &fs.PathError{Op: "stat", Path: p, Err: unix.ENOTDIR}
	}
	return real, nil
}

// within reports whether p is root or below it; both are clean absolute paths.
func within(root, p string) bool {
	if root == p || root == "/" {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// lookupExecutable finds name the way execvp would, but on the PATH of the child's
// environment, and distinguishes "not found" from "found but not executable".
// A name with a slash is taken relative to the working directory.
func lookupExecutable(field, name, dir string, env []string) (string, *Error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		switch executable(p) {
		case exeOK:
			return p, nil
		case exeMissing:
			return "", newError(CodeNotFound, field, "check the path; relative paths start at the working directory",
				"%s %q not found", field, name)
		case exeDir:
			return "", newError(CodePermissionDenied, field, "give a program, not a directory",
				"%s %q is a directory", field, name)
		default:
			return "", newError(CodePermissionDenied, field, "make it executable (chmod +x) or run it through its interpreter",
				"%s %q is not executable", field, name)
		}
	}
	pathList, ok := lookupEnv(env, "PATH")
	if !ok {
		pathList = os.Getenv("PATH")
	}
	if pathList == "" {
		pathList = defaultPath
	}
	denied := false
	for _, d := range filepath.SplitList(pathList) {
		if d == "" || !filepath.IsAbs(d) {
			continue // a relative PATH entry would depend on the working directory
		}
		p := filepath.Join(d, name)
		switch executable(p) {
		case exeOK:
			return p, nil
		case exeDenied:
			denied = true
		}
	}
	if denied {
		return "", newError(CodePermissionDenied, field, "make it executable (chmod +x) or give the path of another copy",
			"%s %q was found on PATH but is not executable", field, name)
	}
	return "", newError(CodeNotFound, field, "check the spelling, install it, or give its full path",
		"%s %q not found on PATH", field, name)
}

type exeState int

const (
	exeOK exeState = iota
	exeMissing
	exeDir
	exeDenied
)

func executable(p string) exeState {
	info, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return exeDenied
	case err != nil:
		return exeMissing
	case info.IsDir():
		return exeDir
	case info.Mode()&0o111 == 0:
		return exeDenied
	}
	if unix.Access(p, unix.X_OK) != nil {
		return exeDenied
	}
	return exeOK
}
