package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Denial is one thing the sandbox stopped, as read from a command's output.
type Denial struct {
	// Op is what was stopped: write (a file or folder outside the
	// writable places) or connect/bind/network (the network).
	Op string `json:"op"`
	// Path is where the write would have landed (absolute, links
	// resolved), when the message names it.
	Path string `json:"path,omitempty"`
	// Addr is the address (host:port) the network call was for, when the
	// message names it.
	Addr string `json:"addr,omitempty"`
	// Line is the message the denial was read from.
	Line string `json:"line,omitempty"`
}

// String describes the denial for people: "write /home/u/.bashrc".
func (d Denial) String() string {
	switch {
	case d.Path != "":
		return d.Op + " " + d.Path
	case d.Addr != "":
		return d.Op + " " + d.Addr
	}
	return d.Op + " (" + d.Line + ")"
}

// Limits of what Denials reads.
const (
	maxDenials   = 20
	maxLineBytes = 4096
)

// permissionWords are how programs print EACCES, EPERM and (for a rename
// or link between places Landlock treats apart) EXDEV.
var permissionWords = []string{"permission denied", "operation not permitted", "eacces", "eperm",
	"errno 13", "errno 1]", "invalid cross-device link"}

var (
	// addrPattern finds host:port (or "host port N") in network errors.
	addrPattern = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\[[0-9A-Fa-f:.]+\]|(?:\d{1,3}\.){3}\d{1,3}|localhost)(?::| port )(\d{1,5})\b`)
	})
	// netWords mark a message about the network.
	netWords = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\b(connect|dial|bind|listen|socket|network)\b`) })
	// specialFile marks a message about making a link, pipe or socket,
	// which the shared temporary folders refuse although files may be
	// written there.
	specialFile = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(symbolic link|symlink|fifo|named pipe|socket|bind)\b`)
	})
	// quoted finds quoted words: 'x', "x", ‘x’, “x”, `x'.
	quoted = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("'([^']+)'|\"([^\"]+)\"|‘([^’]+)’|“([^”]+)”|`([^'`]+)'")
	})
)

// Denials reads a command's output for the permission errors this policy
// caused: a message naming a path that the policy keeps read-only but the
// user could write (so it was not the file's own permissions), or a network
// call while the network is closed. dir is the command's working
// directory, against which relative paths are read.
func (p *Policy) Denials(dir string, outputs ...string) []Denial {
	var out []Denial
	seen := map[string]bool{}
	add := func(d Denial) {
		key := d.Op + "\x00" + d.Path + "\x00" + d.Addr
		if len(out) < maxDenials && !seen[key] {
			seen[key] = true
			out = append(out, d)
		}
	}
	for _, text := range outputs {
		for line := range strings.Lines(text) {
			if len(out) >= maxDenials {
				return out
			}
			line = strings.TrimSpace(line)
			if len(line) > maxLineBytes {
				line = line[:maxLineBytes]
			}
			lower := strings.ToLower(line)
			if !slices.ContainsFunc(permissionWords, func(w string) bool { return strings.Contains(lower, w) }) {
				continue
			}
			found := false
			for _, path := range pathsIn(line) {
				if !filepath.IsAbs(path) {
					if dir == "" {
						continue
					}
					path = filepath.Join(dir, path)
				}
				real := realPath(path)
				if (!p.Writes(real) || p.sharedOnly(real) && specialFile().MatchString(line)) && userMayWrite(real) {
					add(Denial{Op: "write", Path: real, Line: line})
					found = true
				}
			}
			if found || p.Net || !netWords().MatchString(line) {
				continue
			}
			d := Denial{Op: netOp(lower), Line: line}
			if m := addrPattern().FindStringSubmatch(line); m != nil {
				d.Addr = m[1] + ":" + m[2]
			}
			add(d)
		}
	}
	return out
}

// sharedOnly reports whether path is writable only as part of a shared
// temporary folder: files and folders, not links, pipes or sockets.
func (p *Policy) sharedOnly(path string) bool {
	shared := false
	for _, g := range p.Writable {
		if path == g.Path || within(g.Path, path) {
			if !g.Shared {
				return false
			}
			shared = true
		}
	}
	return shared
}

// netOp names the network call a message is about.
func netOp(lower string) string {
	switch {
	case strings.Contains(lower, "bind") || strings.Contains(lower, "listen"):
		return "bind"
	case strings.Contains(lower, "connect") || strings.Contains(lower, "dial"):
		return "connect"
	}
	return "network"
}

// pathsIn picks the words of a message that look like paths: quoted words,
// and bare words holding a slash (trailing punctuation dropped).
func pathsIn(line string) []string {
	var out []string
	for _, m := range quoted().FindAllStringSubmatch(line, -1) {
		for _, g := range m[1:] {
			if g != "" && !strings.ContainsAny(g, "\n\x00") {
				out = append(out, g)
			}
		}
	}
	rest := quoted().ReplaceAllString(line, " ")
	for i, w := range strings.Fields(rest) {
		if i == 0 && strings.HasSuffix(w, ":") && isProgram(strings.TrimSuffix(w, ":")) {
			continue // the program that prints the message: "/usr/bin/sh: 1: cannot create …"
		}
		w = strings.TrimRight(w, ":,;.)")
		w = strings.TrimLeft(w, "(")
		if strings.Contains(w, "/") && !strings.Contains(w, "://") && !addrPattern().MatchString(w) {
			out = append(out, w)
		}
	}
	return out
}

// isProgram reports whether p names an executable file.
func isProgram(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// userMayWrite reports whether the user cuff runs as could change path
// outside the sandbox: the file (or, for a new one, its folder) grants
// write permission. A permission error on a path the user cannot write
// anyway is the file's own, not the sandbox's.
func userMayWrite(path string) bool {
	if err := unix.Access(path, unix.W_OK); err == nil {
		return true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	parent := filepath.Dir(path)
	if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
		return false
	}
	return unix.Access(parent, unix.W_OK|unix.X_OK) == nil
}
