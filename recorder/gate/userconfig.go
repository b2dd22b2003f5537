package gate

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// userConfig is what the user's and the system's git configuration (and
// the files they include) set that the gate needs: every core.hooksPath
// value and core.excludesFile.
type userConfig struct {
	// hooks are the core.hooksPath values, as written.
	hooks []string
	// excludes is core.excludesFile (or git's default), "" when a file
	// includes another (not followed for it: fewer ignore rules only make
	// more files count as staged).
	excludes string
	// complete is false when a file could not be read as git reads it (a
	// named pipe, too large, an include past the gate's limit or naming
	// another user's home): then the hooks are not known.
	complete bool
	// live is set when one of the files lies where a command the gate
	// allows may write (a dotfiles repository in the work tree that
	// ~/.gitconfig links to or includes, a temporary folder): then it is
	// read at every line, not once per gate.
	live bool
}

// userGitConfig is the user's git configuration for this line: read once
// per gate, since those files lie outside the work tree, where no command
// the gate allows writes (the MCP server drops its gates after a command
// that ran outside the sandbox) — unless one of them lies where such a
// command may write, when it is read again at every line.
func (a *analysis) userGitConfig() userConfig {
	g := a.g
	g.userConfigOnce.Do(func() {
		// Read as the files are, whatever links this line makes.
		var files []string
		g.userConf, files = a.readUserConfig(readConfigOnce(), physicalNow)
		g.userConf.live = a.configLive(files) || !g.userConf.complete
	})
	if !g.userConf.live {
		return g.userConf
	}
	uc, _ := a.readUserConfig(a.readConfigState, a.physical)
	return uc
}

// readConfigOnce is readConfigFile reading each file once.
func readConfigOnce() func(string) ([]byte, bool) {
	type read struct {
		data   []byte
		usable bool
	}
	seen := map[string]read{}
	return func(p string) ([]byte, bool) {
		r, ok := seen[p]
		if !ok {
			r.data, r.usable = readConfigFile(p)
			seen[p] = r
		}
		return r.data, r.usable
	}
}

// readUserConfig reads the user's and the system's configuration with
// read, resolving included paths with resolve; files are the files read,
// includes too.
func (a *analysis) readUserConfig(read func(string) ([]byte, bool), resolve func(string) string) (uc userConfig, files []string) {
	g := a.g
	top := g.userConfigFiles()
	all, complete := configWithIncludes(top, read, g.expandHome, resolve)
	uc.complete = complete
	for _, f := range all {
		if v := coreKey(configData(read, f), "hookspath"); v != "" {
			uc.hooks = append(uc.hooks, v)
		}
	}
	if len(all) > len(top) {
		return uc, all // an include: excludesFile is not followed
	}
	if d := g.xdgConfigHome(); d != "" {
		uc.excludes = d + "/git/ignore"
	}
	for _, f := range top {
		if v := coreKey(configData(read, f), "excludesfile"); v != "" {
			uc.excludes = g.configPath(v)
		}
	}
	return uc, all
}

// configData is what read gives for f.
func configData(read func(string) ([]byte, bool), f string) []byte {
	data, _ := read(f)
	return data
}

// configLive reports whether one of files (the configuration and what it
// includes) lies, its links followed, where a command the gate allows may
// write.
func (a *analysis) configLive(files []string) bool {
	for _, f := range files {
		real := f
		if r, err := filepath.EvalSymlinks(f); err == nil {
			real = filepath.ToSlash(r)
		}
		switch a.absKind(real) {
		case pathInside, pathTemp, pathUnknown:
			return true
		}
	}
	return false
}

// physical is the absolute path p with its links and ".." resolved as the
// kernel resolves them, links this line makes counted.
func (a *analysis) physical(p string) string {
	return a.placeAbs(p, true).real
}

// physicalNow is the absolute path p with its links and ".." resolved as
// the file system has them now: its longest existing part resolved, the
// rest as written.
func physicalNow(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return filepath.ToSlash(r)
	}
	return realDir(path.Dir(p)) + "/" + path.Base(p)
}

// readConfigFile reads the git configuration file p; usable is false for
// one that exists and cannot be read as git reads it (not a regular file:
// git reads a named pipe too; larger than maxConfigFile; unreadable). A
// missing file reads as empty and usable.
func readConfigFile(p string) (data []byte, usable bool) {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return nil, true
	case err != nil || !fi.Mode().IsRegular() || fi.Size() > maxConfigFile:
		return nil, false
	}
	data, err = os.ReadFile(p)
	if err != nil || len(data) > maxConfigFile {
		return nil, false
	}
	return data, true
}

// configWithIncludes is files and the files they include (every include,
// whatever its condition; a relative one from the including file's
// folder, resolved as the kernel resolves it), each read with read.
// complete is false when a file could not be read as git reads it, an
// include names what the gate does not expand (~user/, %(prefix)/), or
// there were more than maxConfigIncludes files.
func configWithIncludes(files []string, read func(string) ([]byte, bool), expandHome, resolve func(string) string) (all []string, complete bool) {
	complete = true
	for i := 0; i < len(files); i++ {
		data, ok := read(files[i])
		if !ok {
			complete = false
		}
		if data == nil || !includes(data) {
			continue
		}
		for _, e := range parseConfig(data) {
			if (e.section != "include" && e.section != "includeif") || e.name != "path" || e.value == "" {
				continue
			}
			p := expandHome(e.value)
			switch {
			case strings.HasPrefix(p, "~") || strings.Contains(p, "%("):
				complete = false
				continue
			case !path.IsAbs(p):
				p = path.Dir(files[i]) + "/" + p
			}
			if len(files) >= maxConfigIncludes {
				complete = false
				return files, complete
			}
			files = append(files, resolve(p))
		}
	}
	return files, complete
}
