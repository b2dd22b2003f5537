package gate

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// pathDir is one directory of $PATH, as written and whether it lies in
// the work tree.
type pathDir struct {
	dir    string
	inTree bool
}

// treePathDirs returns $PATH's directories when at least one of them lies
// in the work tree (an activated .venv/bin, a ./bin or node_modules/.bin
// that direnv added), else nil; read once per gate. The agent can write
// those directories, so a bare command name found there first runs what
// it wrote: `pip list` with .venv/bin on PATH runs .venv/bin/pip.
func (g *Gate) treePathDirs() []pathDir {
	g.pathInTree.Do(func() {
		var dirs []pathDir
		any := false
		for _, d := range filepath.SplitList(os.Getenv("PATH")) {
			if d == "" {
				d = "." // an empty entry is the current directory
			}
			real := d
			if !filepath.IsAbs(real) {
				real = filepath.Join(g.root, real) // relative entries follow the working directory, the tree's at best
			}
			if r, err := filepath.EvalSymlinks(real); err == nil {
				real = r
			}
			in := within(filepath.Clean(real), g.root) || !filepath.IsAbs(d)
			any = any || in
			dirs = append(dirs, pathDir{dir: real, inTree: in})
		}
		if any {
			g.pathDirs = dirs
		}
	})
	return g.pathDirs
}

// pathInTree says where a bare command name would be found in a work-tree
// directory of $PATH before any other (or written there by this line), or "".
func (a *analysis) pathInTree(name string) string {
	dirs := a.g.treePathDirs()
	if len(dirs) == 0 || name == "" || strings.Contains(name, "/") || bashBuiltin(name) {
		return ""
	}
	for _, d := range dirs {
		p := d.dir + "/" + name
		if d.inTree && a.written[p] {
			return p
		}
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Mode&0o111 == 0 {
			continue
		}
		if d.inTree {
			return p
		}
		return "" // found outside the tree first
	}
	return ""
}

// bashBuiltin reports names the shell runs itself, never looked up on $PATH.
func bashBuiltin(name string) bool {
	switch name {
	case "echo", "printf", "cd", "pwd", "test", "[", "true", "false", ":", "read", "export", "set", "unset",
		"source", ".", "eval", "exec", "exit", "return", "shift", "local", "declare", "typeset", "readonly",
		"alias", "unalias", "type", "command", "builtin", "hash", "kill", "wait", "jobs", "fg", "bg", "trap",
		"umask", "ulimit", "pushd", "popd", "dirs", "let", "mapfile", "readarray", "getopts", "compgen",
		"complete", "shopt", "times", "caller", "enable", "help", "history", "fc", "disown", "suspend", "logout":
		return true
	}
	return false
}
