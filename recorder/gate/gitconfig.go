package gate

import (
	"bytes"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// Git's configuration can hold credentials: a remote's address with a
// token in it (https://x-access-token:TOKEN@github.com/o/r.git), an
// http.extraHeader with a bearer token, a credential helper that prints a
// password, a tool's token. Such a file is a credential file, decided by
// what it holds when the agent asks: reading it asks, and so do the git
// commands that print the remotes' addresses.

// maxConfigFile bounds the git configuration file the gate reads; a larger
// one is taken as holding no credential (git's own files are small).
const maxConfigFile = 1 << 20

// maxConfigIncludes bounds how many files one configuration pulls in.
const maxConfigIncludes = 64

// gitConfigFileSecret says why the real path p, whose base name is base,
// is a git configuration file that holds credentials, or "". Only files
// git reads as configuration are opened: a repository's config (and
// config.worktree), ~/.gitconfig (and ~/.gitconfig-* beside it, the
// usual names of included files), git/config under XDG_CONFIG_HOME and
// /etc/gitconfig.
func gitConfigFileSecret(p, base string) string {
	switch {
	case strings.HasPrefix(base, ".gitconfig"), p == "/etc/gitconfig":
	case base == "config" || base == "config.worktree":
		dir := path.Dir(p)
		if d := path.Base(dir); d != ".git" && d != "git" && !hasGitComponent(dir) && !looksLikeGitDir(dir) {
			return ""
		}
	default:
		return ""
	}
	if kind := configCredential(readConfig(p)); kind != "" {
		return p + " is git configuration that holds " + kind
	}
	return ""
}

// readConfig reads a git configuration file, nil when it is not a
// regular file of at most maxConfigFile bytes.
func readConfig(p string) []byte {
	data, _ := readConfigFile(p)
	return data
}

// readConfig is the package's readConfig, read once per command line
// (never kept across lines: a file's state as stat(2) gives it does not
// tell a change made through a shared memory mapping).
func (a *analysis) readConfig(p string) []byte {
	data, _ := a.readConfigState(p)
	return data
}

// readConfigState is readConfigFile, once per command line.
func (a *analysis) readConfigState(p string) ([]byte, bool) {
	if c, ok := a.configs[p]; ok {
		return c.data, c.usable
	}
	data, usable := a.loadConfig(p)
	if a.configs == nil {
		a.configs = map[string]configRead{}
	}
	a.configs[p] = configRead{data, usable}
	return data, usable
}

// configRead is a configuration file as readConfigState read it.
type configRead struct {
	data   []byte
	usable bool
}

// loadConfig reads the git configuration file p as readConfigFile does,
// through a stat that allocates nothing.
func (a *analysis) loadConfig(p string) ([]byte, bool) {
	var st unix.Stat_t
	switch err := a.statPath(p, &st); {
	case err == unix.ENOENT || err == unix.ENOTDIR:
		return nil, true
	case err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxConfigFile:
		return nil, false
	}
	data, err := readFileSized(p, nil, maxConfigFile, st.Size)
	if err != nil || len(data) > maxConfigFile {
		return nil, false
	}
	return data, true
}

// configEntry is one key = value of a git configuration file: section and
// name lower-cased, the subsection as written.
type configEntry struct {
	section, sub, name, value string
}

// key is the entry's key as git names it: section.sub.name.
func (e configEntry) key() string {
	if e.sub == "" {
		return e.section + "." + e.name
	}
	return e.section + "." + e.sub + "." + e.name
}

// parseConfig reads the entries of a git configuration file, leniently:
// what it cannot read as an entry is left out, and comments stay in the
// values they follow (which can only make a value look more like a
// credential).
func parseConfig(data []byte) []configEntry {
	var out []configEntry
	section, sub := "", ""
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // git skips a byte order mark
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) { // a value continued on the next line
			i++
			line = line[:len(line)-1] + strings.TrimSpace(lines[i])
		}
		if strings.HasPrefix(line, "[") {
			end := strings.LastIndexByte(line, ']')
			if end < 0 {
				continue
			}
			head := strings.TrimSpace(line[1:end])
			line = strings.TrimSpace(line[end+1:]) // git takes a key after the header on the same line
			section, sub = head, ""
			if q := strings.IndexByte(head, '"'); q >= 0 {
				section = strings.TrimSpace(head[:q])
				sub = strings.ReplaceAll(strings.TrimSuffix(head[q+1:], "\""), "\\", "")
			} else if d := strings.IndexByte(head, '.'); d >= 0 {
				section, sub = head[:d], head[d+1:] // the old [section.sub] form, lower-cased by git
				sub = strings.ToLower(sub)
			}
			section = strings.ToLower(section)
		}
		if line == "" || line[0] == '#' || line[0] == ';' || section == "" {
			continue
		}
		name, value, _ := strings.Cut(line, "=")
		out = append(out, configEntry{section: section, sub: sub, name: strings.ToLower(strings.TrimSpace(name)),
			value: configValue(value)})
	}
	return out
}

// configValue is a value as git reads it from the text after "=": a ; or
// # outside double quotes starts a comment, quotes are dropped (a"b"c is
// abc), \" \\ \n \t \b are escapes, and space outside quotes is kept
// between words only.
func configValue(s string) string {
	var b strings.Builder
	quoted, spaces := false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case !quoted && (c == ';' || c == '#'):
			return b.String()
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if b.Len() > 0 {
				spaces++
			}
			continue
		}
		for ; spaces > 0; spaces-- {
			b.WriteByte(' ')
		}
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(s[i]) // \" and \\; git refuses other escapes
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// configCredential says what credential a git configuration holds ("a
// remote's address with a token", ...), or "".
func configCredential(data []byte) string {
	for _, e := range parseConfig(data) {
		if kind := entryCredential(e); kind != "" {
			return kind
		}
	}
	return ""
}

// entryCredential says what credential one entry holds, or "".
func entryCredential(e configEntry) string {
	switch {
	case urlCredential(e.sub) || urlCredential(e.value):
		return "an address with a password or token in it (" + e.key() + ")"
	case e.name == "extraheader" && e.value != "":
		return "an http.extraHeader (" + e.key() + ")"
	case e.section == "credential" && e.name == "helper" && inlineSecret(e.value):
		return "a credential helper that prints a secret (" + e.key() + ")"
	case secretConfigKey(e.section+"."+e.name) && e.value != "" && !isBool(e.value):
		return "a value named like a credential (" + e.key() + ")"
	}
	return ""
}

// isBool reports a value git reads as a boolean.
func isBool(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// inlineSecret reports a credential helper's command that holds a secret
// itself (echo password=...), not one that reads it from elsewhere.
func inlineSecret(v string) bool {
	lower := strings.ToLower(v)
	for _, k := range [...]string{"password=", "oauth_refresh_token=", "token="} {
		if i := strings.Index(lower, k); i >= 0 && i+len(k) < len(v) && !strings.ContainsRune("$`\"' ;", rune(v[i+len(k)])) {
			return true
		}
	}
	return false
}

// urlCredential reports text holding an address whose user part holds a
// secret: scheme://user:password@ (a password that is not empty), or
// scheme://TOKEN@ with a user that looks like a token.
func urlCredential(s string) bool {
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return false
		}
		s = s[i+3:]
		end := strings.IndexAny(s, "/?# \t\"'")
		host := s
		if end >= 0 {
			host = s[:end]
		}
		at := strings.LastIndexByte(host, '@')
		if at < 0 {
			continue
		}
		user, pass, hasPass := strings.Cut(host[:at], ":")
		if hasPass && pass != "" || tokenLike(user) {
			return true
		}
	}
}

// tokenLike reports a URL's user part that is a token rather than a name:
// a known token prefix, or a long run of letters and digits with both.
func tokenLike(user string) bool {
	for _, p := range [...]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-"} {
		if strings.HasPrefix(user, p) {
			return true
		}
	}
	if len(user) < 20 {
		return false
	}
	letter, digit := false, false
	for _, r := range user {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		case r == '_' || r == '-' || r == '%':
		default:
			return false
		}
	}
	return letter && digit
}

// userConfigFiles are the system's and the user's git configuration
// files, in the order git reads them (a later one's setting wins):
// /etc/gitconfig, $XDG_CONFIG_HOME/git/config (or ~/.config/git/config),
// ~/.gitconfig.
func (g *Gate) userConfigFiles() []string {
	files := []string{"/etc/gitconfig"}
	if d := g.xdgConfigHome(); d != "" {
		files = append(files, d+"/git/config")
	}
	if g.home != "" {
		files = append(files, g.home+"/.gitconfig")
	}
	return files
}

// xdgConfigHome is $XDG_CONFIG_HOME, or ~/.config when it is not set.
func (g *Gate) xdgConfigHome() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	if g.home != "" {
		return g.home + "/.config"
	}
	return ""
}

// expandHome is a path from git's configuration with a leading ~/ made
// the home folder's.
func (g *Gate) expandHome(p string) string {
	if strings.HasPrefix(p, "~/") && g.home != "" {
		return g.home + p[1:]
	}
	return p
}

// gitConfigFiles lists the configuration files git reads in the
// repository around dir (whose git directory is gitDir, its common one
// common, both "" outside any): the system's, the user's, the
// repository's, and the files they include (every include, whatever its
// condition), up to maxConfigIncludes.
func (a *analysis) gitConfigFiles(gitDir, common string) []string {
	files := a.g.userConfigFiles()
	if common != "" {
		files = append(files, common+"/config", gitDir+"/config.worktree")
	}
	all, _ := configWithIncludes(files, a.readConfigState, a.g.expandHome, a.physical)
	return all
}

// remoteCredential says which configuration file git reads, run in dir,
// holds an address with a password or token in it (a remote's, or one
// url.X.insteadOf rewrites remotes' addresses to), or "". dir "" is not
// known: then only the user's and the system's files are looked at, and
// the answer says so.
func (c *call) remoteCredential(dir string) string {
	gitDir, common := "", ""
	if dir != "" {
		_, gitDir, common = c.a.repoAround(dir)
	}
	for _, f := range c.a.gitConfigFiles(gitDir, common) {
		for _, e := range parseConfig(c.a.readConfig(f)) {
			if urlCredential(e.sub) || urlCredential(e.value) {
				return f + " holds an address with a password or token in it (" + e.key() + ")"
			}
		}
	}
	if dir == "" {
		return "the repository is only known at run time, and its configuration may hold an address with a password or token in it"
	}
	return ""
}

// configKeySecret says why the value git config prints for key, as the
// configuration files of the repository around dir (or the one --file
// names) set it, holds a credential, or "".
func (c *call) configKeySecret(dir string, ops scanResult, key string) string {
	var files []string
	for _, o := range ops.opts {
		if (o.name == "-f" || o.name == "--file") && o.hasVal {
			files = []string{c.a.place(c.fromBase(o.val), true).real}
		}
	}
	if files == nil {
		gitDir, common := "", ""
		if dir != "" {
			_, gitDir, common = c.a.repoAround(dir)
		}
		files = c.a.gitConfigFiles(gitDir, common)
	}
	want := normalKey(key)
	for _, f := range files {
		for _, e := range parseConfig(c.a.readConfig(f)) {
			if e.key() == want {
				if kind := entryCredential(e); kind != "" {
					return f + " sets it to " + kind
				}
			}
		}
	}
	return ""
}

// normalKey is a configuration key as parseConfig names it: section and
// name lower-cased, the subsection as written.
func normalKey(k string) string {
	first, last := strings.IndexByte(k, '.'), strings.LastIndexByte(k, '.')
	if first < 0 {
		return strings.ToLower(k)
	}
	if first == last {
		return strings.ToLower(k)
	}
	return strings.ToLower(k[:first]) + k[first:last] + strings.ToLower(k[last:])
}
