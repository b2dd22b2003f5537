package gate

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/cuff-dev/cuff/recorder/gate/internal/gitignore"
	"mvdan.cc/sh/v3/syntax"
)

// Reading credential material puts it in the agent's context, from where
// one more command sends it anywhere: in strict mode it asks, whatever
// reads it. The reasons start with "secret:" so that callers can mark the
// agent's session as having read secrets (taint mode allows the read).

// secretPrefix starts the reason of every secret read.
const secretPrefix = "secret: "

// homeSecrets are the places in a home folder that hold credentials.
var homeSecrets = []string{
	".ssh", ".aws", ".azure", ".config/gcloud", ".kube", ".docker/config.json", ".netrc", ".git-credentials",
	".npmrc", ".pypirc", ".gnupg", ".password-store", ".config/gh/hosts.yml", ".config/hub", ".vault-token",
	".terraform.d/credentials.tfrc.json", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
	".pgpass", ".my.cnf", ".local/share/keyrings", ".claude/.credentials.json", ".codex/auth.json", ".config/op",
	".bash_history", ".zsh_history", ".history", ".python_history", ".psql_history", ".mysql_history",
	".node_repl_history", ".sqlite_history", ".lesshst", ".local/share/fish/fish_history", ".config/rclone",
	".s3cfg", ".boto", ".m2/settings.xml", ".gradle/gradle.properties", ".config/git/credentials", ".oci",
	".config/doctl", ".mozilla", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
	"Library/Keychains", "Library/Cookies", "Library/Application Support/Google/Chrome", ".local/share/atuin",
	".config/gcloud", ".config/containers/auth.json", ".wrangler", ".config/netlify", ".vercel",
	".config/sops", ".config/age", ".terraformrc", ".config/solana", ".fly", ".ansible", ".config/pip/pip.conf",
	".pip/pip.conf", ".config/gh", ".config/hcloud", ".config/linode-cli", ".ngrok2", ".config/ngrok",
	".config/stripe", ".config/heroku", ".aptible", ".dropbox", ".config/fly", ".supabase", ".railway",
}

// systemSecrets are the system's own credential files and directories.
var systemSecrets = []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssl/private", "/run/secrets",
	"/var/run/secrets", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key",
	"/etc/ssh/ssh_host_dsa_key", "/root/.ssh"}

// secretName reports file names that hold credentials wherever they lie.
func secretName(base string) bool {
	lower := strings.ToLower(base)
	for _, b := range [...]string{"~", ".bak", ".old", ".orig", ".backup", ".save", ".swp", ".copy"} {
		if l, ok := strings.CutSuffix(lower, b); ok && l != "" {
			lower = l // a copy is what it copies: .env~, id_rsa.bak
			break
		}
	}
	if codeExt(path.Ext(lower)) {
		return false // source code, whatever it is called (private_key.go)
	}
	switch {
	case lower == ".env", lower == ".envrc", strings.HasPrefix(lower, ".env.") && !envExample(lower), strings.HasSuffix(lower, ".env"),
		(strings.HasPrefix(lower, ".env-") || strings.HasPrefix(lower, ".env_")) && !envExample(lower):
		return true
	case strings.HasPrefix(lower, "id_") && !strings.HasSuffix(lower, ".pub") && !strings.Contains(lower, "."):
		return true // id_rsa, id_ed25519 ...
	case (strings.Contains(lower, "private_key") || strings.Contains(lower, "private-key") || strings.Contains(lower, "privatekey")) &&
		!strings.HasSuffix(lower, ".pub") && !strings.HasSuffix(lower, ".go") && !strings.HasSuffix(lower, ".md"):
		return true
	case strings.HasSuffix(lower, "-key.json") || strings.HasSuffix(lower, "_key.json") || strings.HasPrefix(lower, "vault_pass") ||
		strings.HasPrefix(lower, ".vault_pass") || strings.HasPrefix(lower, "vault-password") || strings.HasPrefix(lower, "authkey_"):
		return true
	}
	for _, ext := range [...]string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".kdbx", ".tfstate", ".ovpn", ".gpg", ".age",
		".p8", ".tfvars"} {
		if strings.HasSuffix(lower, ext) {
			return !strings.HasSuffix(lower, ".pub.pem") && lower != "public.pem" && lower != "public.key"
		}
	}
	switch lower {
	case ".netrc", ".pgpass", ".pypirc", ".git-credentials", ".vault-token", ".htpasswd", "master.key",
		"credentials", "credentials.json", "credentials.yml", "credentials.yaml", "credentials.toml", "credentials.xml",
		"secrets.yml", "secrets.yaml", "secrets.json", "secrets.toml", "secret.json", "secret.yaml", "secret.yml",
		"kubeconfig", "wallet.dat", "terraform.tfstate.backup", "auth.json", ".npmrc", "service-account.json",
		"_netrc", ".secrets", ".secret", ".dockercfg", ".s3cfg", ".boto", ".my.cnf", "key.json", "keyfile.json",
		".token", "token.json", "tokens.json", "token.txt", "token.yml", "token.yaml", ".git-credentials.txt",
		"htpasswd", ".pgpass.conf", "pgpass.conf":
		return true
	}
	if strings.HasPrefix(lower, "service-account") && strings.HasSuffix(lower, ".json") {
		return true
	}
	if strings.Contains(lower, "credential") || strings.Contains(lower, "secret") || strings.Contains(lower, "password") {
		switch path.Ext(lower) {
		case "", ".json", ".yml", ".yaml", ".toml", ".txt", ".ini", ".cfg", ".conf", ".env", ".properties", ".xml", ".csv", ".dat", ".key", ".asc":
			return true
		}
	}
	return false
}

// codeExt reports the extensions of source code and documents, which no
// credential file has: a recursive read limited to them reads none.
func codeExt(ext string) bool {
	switch ext {
	case ".go", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".py", ".rb", ".rs", ".java", ".kt", ".c", ".h", ".cc",
		".cpp", ".hpp", ".cs", ".swift", ".m", ".php", ".scala", ".sh", ".lua", ".md", ".rst", ".html", ".css", ".scss",
		".vue", ".svelte", ".proto", ".sql", ".tf", ".zig", ".ex", ".exs", ".erl", ".hs", ".ml", ".dart", ".r", ".jl":
		return true
	}
	return false
}

// onlyCode reports filters that let only source files through (grep
// --include='*.go', rg -g '*.ts', find -name '*.py'): no credential file
// can be among what they read.
func (rd reading) onlyCode() bool {
	if rd.follows || len(rd.filters) == 0 || !rd.filters[0].include {
		return false
	}
	for _, f := range rd.filters {
		ext, ok := strings.CutPrefix(f.pattern, "*")
		if !f.include || !ok || strings.ContainsAny(ext, "*?[\\/") || !codeExt(strings.ToLower(ext)) {
			return false
		}
	}
	return true
}

// envExample reports .env files that only show which variables exist.
func envExample(lower string) bool {
	for _, s := range [...]string{"example", "sample", "template", "dist", "defaults", "schema", "tpl", "md"} {
		if w, ok := strings.CutSuffix(lower, s); ok && len(w) > 0 && strings.IndexByte(".-_", w[len(w)-1]) >= 0 {
			return true
		}
	}
	return false
}

// secretPlace is a credential store: a file or a directory tree.
type secretPlace struct {
	path, slash string // the path, and the path with a trailing slash
	shown       string // how explanations name it
	ssh         bool   // ~/.ssh, where public keys and known hosts are not secret
}

// secretPlaces lists the credential stores of the system, once per gate.
func secretPlaces() []secretPlace {
	var out []secretPlace
	for _, s := range systemSecrets {
		out = append(out, secretPlace{path: s, slash: s + "/", shown: s})
	}
	return out
}

// homeSecretPlaces are the credential stores in a home folder, by their
// paths in it.
var homeSecretPlaces = func() []secretPlace {
	var out []secretPlace
	for _, s := range homeSecrets {
		out = append(out, secretPlace{path: s, slash: s + "/", shown: "~/" + s, ssh: s == ".ssh"})
	}
	return out
}()

// otherProcessPath says which of another process's links p goes through
// ("fd", "map_files", "cwd" or "root", also under task/TID), "" for none:
// /proc/PID/fd/N opens the very file that process holds open, and its
// working directory and root are wherever it is (it may chdir, chroot or
// enter another mount namespace after the gate looked). /proc/self and
// /proc/thread-self are the reader's own.
func otherProcessPath(p string) string {
	parts := strings.Split(strings.TrimPrefix(p, "/proc/"), "/")
	if len(parts) >= 3 && parts[1] == "task" {
		parts = append(parts[:1], parts[3:]...)
	}
	if len(parts) < 2 || parts[0] == "self" || parts[0] == "thread-self" {
		return ""
	}
	switch k := parts[1]; {
	case (k == "fd" || k == "map_files") && len(parts) >= 3, k == "cwd", k == "root":
		return k
	}
	return ""
}

// homeLead and systemLead are the bytes the home folder's credential
// stores start with (a dot, or L of Library) and the second bytes of the
// system's (after the slash): a path that does not start so lies in none
// of them, which spares looking through the lists for most paths.
var homeLead, systemLead = func() (home, system [256]bool) {
	for _, s := range homeSecrets {
		home[s[0]] = true
	}
	for _, s := range systemSecrets {
		system[s[1]] = true
	}
	return home, system
}()

// secretPath says why the real absolute path p holds credentials, or "".
// The system's stores are looked at first, then those of each home
// folder (as given, then as it really is) that p lies in.
func (g *Gate) secretPath(p string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "/proc/") {
		if last := p[strings.LastIndexByte(p, '/')+1:]; last == "environ" || last == "mem" {
			return p + " holds a process's environment or memory"
		}
		switch otherProcessPath(p) {
		case "fd", "map_files":
			return p + " opens whatever file that process holds open, which may be a key or a browser's cookies"
		case "cwd", "root":
			return p + " lies in another process's working directory or root, which may be anywhere, a credential store among them"
		}
		// Anything else under /proc is judged by its name below: a name
		// under another process's cwd or fd is a file of that process.
	}
	base := p[strings.LastIndexByte(p, '/')+1:]
	if len(p) > 1 && systemLead[p[1]] {
		if why, ok := inSecretPlace(p, p, base, g.secrets); ok {
			return why
		}
	}
	for _, h := range g.secretHomes {
		if below(p, h) && len(p) > len(h)+1 && homeLead[p[len(h)+1]] {
			if why, ok := inSecretPlace(p, p[len(h)+1:], base, homeSecretPlaces); ok {
				return why
			}
		}
	}
	if secretName(base) {
		return base + " holds credentials"
	}
	return gitConfigFileSecret(p, base)
}

// inSecretPlace says why p, whose path relative to where places lie is
// rel, holds credentials when it lies in one of places: ok is set, and
// why is "" for a public file of ~/.ssh.
func inSecretPlace(p, rel, base string, places []secretPlace) (why string, ok bool) {
	for _, s := range places {
		if rel == s.path || strings.HasPrefix(rel, s.slash) {
			if s.ssh && publicSSH(base) {
				return "", true
			}
			return p + " lies in " + s.shown + ", which holds credentials", true
		}
	}
	return "", false
}

// publicSSH reports the files of ~/.ssh that hold nothing secret.
func publicSSH(base string) bool {
	return strings.HasSuffix(base, ".pub") || strings.HasPrefix(base, "known_hosts") || base == "config" ||
		base == "authorized_keys"
}

// below reports whether the path s lies below dir: it starts with dir
// and a slash (strings.HasPrefix(s, dir+"/") without building it).
func below(s, dir string) bool {
	return len(s) > len(dir) && s[len(dir)] == '/' && s[:len(dir)] == dir
}

// containsSecrets reports whether reading the directory p recursively
// (as rd reads) reads credentials: it is the home folder or one above it,
// or a directory with a credential store inside, or a credential file
// lies anywhere below it (a project's .env, config/prod/server.key); with
// list unset, p is known not to exist and is not listed. The walk looks at
// up to maxSecretWalk entries and asks beyond that.
func (a *analysis) containsSecrets(p string, rd reading, list bool) string {
	g := a.g
	hidden := rd.hidden
	for _, h := range [...]string{g.realHome, g.home} {
		if h != "" && hidden && (p == h || p == "/" || below(h, p)) {
			return p + " holds the home folder's credential stores (~/.ssh, ~/.aws, ...)"
		}
		if h != "" && hidden && below(p, h) {
			rel := p[len(h)+1:]
			for _, s := range homeSecrets {
				if below(s, rel) {
					return "~/" + rel + " holds ~/" + s
				}
			}
		}
	}
	for _, s := range systemSecrets {
		if below(s, p) || p == "/" {
			return p + " holds " + s
		}
	}
	if why := g.secretPath(p); why != "" {
		return why
	}
	if !list {
		return ""
	}
	return a.secretBelow(p, rd)
}

// maxSecretWalk bounds how many entries the gate looks at below a
// directory that a command reads recursively.
const maxSecretWalk = 50000

// secretBelow looks through the directory p, as rd reads it, for a
// credential file, and says why reading it reads credentials, or "".
func (a *analysis) secretBelow(p string, rd reading) string {
	if rd.onlyCode() {
		return "" // nothing it reads can be a credential file: no need to look
	}
	top, o := p, gitignore.WalkOptions{NoIgnore: true, NoHidden: !rd.hidden, Links: true, Max: maxSecretWalk, GitConfig: rd.hidden}
	if rd.gitIgnores {
		// ripgrep in a repository: git's ignore files, its own .ignore
		// and .rgignore above them, a repository inside starting afresh.
		if t, _, common := a.repoAround(p); t != "" {
			top, o.NoIgnore, o.Rules = t, false, a.excludeRules(common)
			o.IgnoreFiles, o.RepoBoundary = []string{".gitignore", ".ignore", ".rgignore"}, true
		}
	}
	if rd.shallow {
		o.SkipDir = func(string) bool { return true }
	} else if len(rd.excludeDir) > 0 {
		o.SkipDir = func(name string) bool {
			for _, p := range rd.excludeDir {
				if m, err := globMatchName(p, name); m && err == nil && !strings.Contains(p, "[") {
					return true // a bracket's meaning differs between Go and fnmatch in corners: keep the directory
				}
			}
			return false
		}
	}
	o.List = a.listForWalk
	found := ""
	err := gitignore.Walk(top, p, o, func(rel string, link bool) bool {
		f := top + "/" + rel
		name := path.Base(rel)
		if !rd.reads(name) {
			return true
		}
		why := a.g.secretPath(f)
		if why == "" && link {
			if real, err := filepath.EvalSymlinks(f); err == nil {
				why = a.g.secretPath(real) // a reader that follows links reads what it names
				if why == "" && rd.followsDirs && !a.followed[real] {
					if st, err := os.Stat(real); err == nil && st.IsDir() {
						// It enters the folder the link names: judged as a
						// read of that folder, each folder once a line.
						if a.followed == nil {
							a.followed = map[string]bool{}
						}
						a.followed[real] = true
						if w := a.containsSecrets(real, rd, true); w != "" {
							why = f + " leads to " + real + ": " + w
						}
					}
				}
			}
		}
		if why != "" {
			found = f + " holds credentials"
			return false
		}
		return true
	})
	if found == "" && errors.Is(err, gitignore.ErrTooMany) {
		return p + " holds more than " + strconv.Itoa(maxSecretWalk) + " entries, too many for the gate to look through for credential files"
	}
	return found
}

// listForWalk lists a directory for gitignore.Walk as readDir reads it
// (once per command line); one with more names than readDir reads is read
// whole by os.ReadDir (the walk's own bound still holds).
func (a *analysis) listForWalk(dir string) ([]gitignore.Entry, error) {
	entries, ok := a.readDir(dir)
	if !ok {
		return nil, errUnreadable
	}
	if len(entries) > maxGlobEntries {
		des, err := os.ReadDir(dir)
		if err != nil {
			return nil, err
		}
		out := make([]gitignore.Entry, len(des))
		for i, d := range des {
			out[i] = gitignore.Entry{Name: d.Name(), Dir: d.IsDir(), Link: d.Type()&fs.ModeSymlink != 0}
		}
		return out, nil
	}
	return entries, nil
}

// errUnreadable is listForWalk's error for a directory it cannot read.
var errUnreadable = errors.New("the directory cannot be read")

// secretVar reports variables that hold credentials: by their name, or,
// for one of the environment, by a value that is an address with a
// password or token in it (a proxy's http://user:pass@host, a database's
// postgres://u:p@db under any name).
func secretVar(name string) bool {
	return secretVarName(name) || urlCredential(os.Getenv(name))
}

// secretVarName reports variable names that hold credentials.
func secretVarName(name string) bool {
	u := strings.ToUpper(name)
	switch u {
	case "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "XAUTHORITY", "KEYMAP", "KEYTIMEOUT", "GIT_ASKPASS",
		"SSH_ASKPASS", "SUDO_ASKPASS", "PASSWORD_STORE_DIR", "HISTFILE":
		return false
	}
	if strings.Contains(u, "AUTHOR") || strings.HasSuffix(u, "_PATH") || strings.HasSuffix(u, "_DIR") || strings.HasSuffix(u, "_FILE") {
		return false
	}
	if secretVarSpelling(u) {
		return true
	}
	for _, w := range [...]string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "ACCESS_KEY", "PRIVATE_KEY",
		"CREDENTIAL", "AUTH", "COOKIE", "SESSION_KEY", "SIGNING_KEY", "ENCRYPTION_KEY", "MASTER_KEY", "CLIENT_KEY", "DSN",
		"DATABASE_URL", "WEBHOOK"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return strings.HasSuffix(u, "_PASS") || strings.HasSuffix(u, "_PW") || strings.HasSuffix(u, "_KEY") && !strings.HasSuffix(u, "PUBLIC_KEY")
}

// noContents lists programs that take file names without reading what
// the files hold (names, sizes, hashes and metadata only), and those whose
// operands are not files.
func noContents(name string) bool {
	switch name {
	case "ls", "dir", "vdir", "stat", "du", "test", "[", "realpath", "readlink", "basename", "dirname", "touch",
		"mkdir", "rmdir", "chmod", "chown", "chgrp", "cd", "pushd", "popd", "which", "type", "whereis", "tree",
		"wc", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "shasum", "b2sum", "cksum",
		"sum", "echo", "printf", "find", "fd", "fdfind", "rm", "unlink", "shred", "mv", "ln", "cuff", "file",
		"command", "kill", "pkill", "sleep", "export", "unset", "alias", "hash", "true", "false", ":", "lsof", "df":
		return true
	}
	return false
}

// namesFiles are the files a program that prints no contents reads names
// from, one a line (or NUL-separated): du and wc --files0-from, find
// -files0-from, file -f, tree --fromfile. Each name it cannot use lands in
// an error message, so the whole file is printed.
func namesFiles(name string, args []arg) []arg {
	var out []arg
	for i, x := range args {
		v := x.val
		switch {
		case (name == "du" || name == "wc") && strings.HasPrefix(v, "--files0-from"),
			name == "find" && v == "-files0-from",
			name == "file" && (v == "-f" || strings.HasPrefix(v, "--files-from") || strings.HasPrefix(v, "-f") && !strings.HasPrefix(v, "--")):
			if _, val, ok := strings.Cut(v, "="); ok {
				out = append(out, arg{val: val, dyn: x.dyn})
			} else if name == "file" && len(v) > 2 && v[1] == 'f' && v[2] != '-' {
				out = append(out, arg{val: v[2:], dyn: x.dyn})
			} else if i+1 < len(args) {
				out = append(out, args[i+1])
			}
		case name == "tree" && v == "--fromfile":
			for _, y := range args {
				if !strings.HasPrefix(y.val, "-") {
					out = append(out, y)
				}
			}
		}
	}
	return out
}

// subcommandFirst reports programs whose first operand names a
// subcommand (go test, git log, npm run), not a file.
func subcommandFirst(name string) bool {
	switch name {
	case "git", "go", "cargo", "npm", "yarn", "pnpm", "bun", "make", "docker", "kubectl", "pip", "pip3", "uv",
		"poetry", "gradle", "mvn", "dotnet", "swift", "deno", "rustup", "brew", "apt", "apt-get", "cuff", "gh":
		return true
	}
	return false
}

// reading is how a command reads the files and directories it is given.
type reading struct {
	recursive bool // directories are read with everything below them
	hidden    bool // files and directories named with a leading dot too
	// gitIgnores: what git ignores is skipped (rg in a repository).
	gitIgnores bool
	// filters are grep's --include and --exclude (rg's -g GLOB and -g
	// !GLOB) in their order; excludeDir are --exclude-dir's patterns.
	filters    []fileFilter
	excludeDir []string
	// shallow: only the files at the top of a directory are read (diff of
	// two directories without -r).
	shallow bool
	// follows: links below are read through (find -exec cat, grep -R),
	// so a link named like code may still lead to a credential file.
	follows bool
	// followsDirs: a link below to a directory is entered and what it
	// holds is read (grep -R, rg -L, find -L, cp -L, zip, tar -h): a link
	// in the tree to the home folder reads ~/.ssh.
	followsDirs bool
}

// fileFilter is one --include (include set) or --exclude base-name pattern.
type fileFilter struct {
	include bool
	pattern string
}

// reads reports whether a recursive read as rd reads the file called
// name, as GNU grep decides: the last filter that matches it decides; with
// none matching, it is read unless the first filter is an --include.
func (rd reading) reads(name string) bool {
	for i := len(rd.filters) - 1; i >= 0; i-- {
		f := rd.filters[i]
		m, err := globMatchName(f.pattern, name)
		if err != nil {
			m = f.include // a pattern Go cannot read: as if it let the file through
		}
		if m {
			return f.include
		}
	}
	return len(rd.filters) == 0 || !rd.filters[0].include
}

// grepSpec and rgSpec are the options of grep and ripgrep that take a value.
var (
	grepSpec = optSpec{short: "efmABCDd", long: []string{"regexp", "file", "max-count", "after-context", "before-context",
		"context", "include", "exclude", "exclude-dir", "exclude-from", "label", "devices", "directories", "binary-files",
		"group-separator"}}
	rgSpec = optSpec{short: "egtTmABCjMrEdf", long: []string{"regexp", "file", "glob", "iglob", "type", "type-not",
		"type-add", "type-clear", "max-count", "after-context", "before-context", "context", "threads", "max-columns",
		"replace", "encoding", "max-depth", "sort", "sortr", "colors", "pre", "pre-glob", "ignore-file",
		"path-separator", "context-separator", "field-context-separator", "field-match-separator", "engine",
		"dfa-size-limit", "regex-size-limit", "max-filesize", "hyperlink-format"}}
)

// filterValues marks the words of args that are the values of a search
// tool's name filters (rg -g '!.env', --type, grep --exclude=.env): a
// pattern that picks files, not a file it reads. What the filters let the
// search read is judged as the recursive read it is (readingOf).
func filterValues(name string, args []arg) map[int]bool {
	var short string
	var long []string
	switch name {
	case "rg", "ripgrep":
		short, long = "gtTe", []string{"glob", "iglob", "type", "type-not", "regexp"}
	case "grep", "egrep", "fgrep":
		short, long = "e", []string{"include", "exclude", "exclude-dir", "regexp"}
	default:
		return nil
	}
	var marks map[int]bool
	mark := func(i int) {
		if marks == nil {
			marks = map[int]bool{}
		}
		marks[i] = true
	}
	for i, x := range args {
		v := x.val
		if v == "--" {
			break
		}
		if strings.HasPrefix(v, "--") {
			n, _, eq := strings.Cut(v[2:], "=")
			if slices.Contains(long, n) {
				mark(i) // --glob=!.env
				if !eq && i+1 < len(args) {
					mark(i + 1)
				}
			}
			continue
		}
		if len(v) == 2 && v[0] == '-' && strings.IndexByte(short, v[1]) >= 0 && i+1 < len(args) {
			mark(i + 1)
		}
	}
	return marks
}

// searchPattern is the index in args of grep's or rg's pattern when it is
// the first operand (no -e, -f, --regexp or --file gives it), written as a
// plain word, or -1. A glob is not one: the shell may expand it to several
// words, and all but the first are then files.
func searchPattern(name string, args []arg) int {
	var spec optSpec
	switch name {
	case "grep", "egrep", "fgrep":
		spec = grepSpec
	case "rg", "ripgrep":
		spec = rgSpec
	default:
		return -1
	}
	first := -1
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if !args[i].static() {
			if strings.HasPrefix(v, "-") || first < 0 {
				return -1 // an option or the pattern only known at run time
			}
			continue
		}
		switch {
		case v == "--":
			if first < 0 && i+1 < len(args) {
				first = i + 1
			}
			i = len(args)
		case strings.HasPrefix(v, "--"):
			n, _, eq := strings.Cut(v[2:], "=")
			if n == "regexp" || n == "file" {
				return -1
			}
			if !eq && slices.Contains(spec.long, n) {
				i++
			}
		case strings.HasPrefix(v, "-") && v != "-":
			for j := 1; j < len(v); j++ {
				if v[j] == 'e' || v[j] == 'f' {
					return -1
				}
				if strings.IndexByte(spec.short, v[j]) >= 0 {
					if j == len(v)-1 {
						i++
					}
					break
				}
			}
		case first < 0:
			first = i
		}
	}
	if first >= len(args) || first >= 0 && !args[first].static() {
		return -1
	}
	return first
}

// readingOf says how the command name with args reads: recursively, with
// hidden files, through which filters.
func readingOf(name string, args []arg) reading {
	has := func(flags ...string) bool {
		for _, x := range args {
			if x.val == "--" {
				return false
			}
			for _, f := range flags {
				if x.val == f || len(f) == 2 && strings.HasPrefix(x.val, "-") && !strings.HasPrefix(x.val, "--") && strings.Contains(x.val[1:], f[1:]) {
					return true
				}
				if strings.HasPrefix(f, "--") && isLong(strings.SplitN(x.val, "=", 2)[0], f[2:]) {
					return true
				}
			}
		}
		return false
	}
	var rd reading
	switch name {
	case "grep", "egrep", "fgrep", "zgrep":
		ops := scan(args, grepSpec)
		rd = reading{recursive: ops.has("-r", "-R", "--recursive", "--dereference-recursive"), hidden: true,
			follows: ops.has("-R", "--dereference-recursive"), followsDirs: ops.has("-R", "--dereference-recursive")}
		for _, o := range ops.opts {
			switch {
			case (o.name == "-d" || isLong(o.name, "directories")) && o.val.val == "recurse":
				rd.recursive = true
			// Filters by their full names only: an abbreviation left
			// unread filters nothing, so the gate looks at more files.
			case o.name == "--include":
				rd.filters = append(rd.filters, fileFilter{include: true, pattern: o.val.val})
			case o.name == "--exclude":
				rd.filters = append(rd.filters, fileFilter{pattern: o.val.val})
			case o.name == "--exclude-dir":
				rd.excludeDir = append(rd.excludeDir, o.val.val)
			}
		}
		for _, x := range args {
			// An option only known at run time may be any filter. An
			// unquoted --include=*.go is one: the shell may expand it to
			// names of files called --include=..., each a narrower filter
			// than the pattern, which only lets fewer files through.
			if computedOption(x) && !(x.glob && !x.dyn && strings.HasPrefix(x.val, "--include=")) {
				rd.filters, rd.excludeDir = nil, nil
				break
			}
		}
	case "rgrep":
		rd = reading{recursive: true, hidden: true}
	case "rg", "ripgrep":
		ops := scan(args, rgSpec)
		u := 0
		for _, o := range ops.opts {
			if o.name == "-u" || isLong(o.name, "unrestricted") {
				u++
			}
		}
		noIgnore := u > 0 || ops.computed
		follows := ops.has("-L", "--follow")
		for _, o := range ops.opts {
			if strings.HasPrefix(o.name, "--no-ignore") || o.name == "--no-require-git" {
				noIgnore = true
			}
		}
		if os.Getenv("RIPGREP_CONFIG_PATH") != "" {
			u = 2 // a configuration file adds options the gate does not see
		}
		rd = reading{recursive: true, hidden: u > 1 || ops.has("--hidden", "-.") || ops.computed, gitIgnores: !noIgnore && u == 0,
			follows: follows, followsDirs: follows}
		for _, o := range ops.opts {
			if o.name != "-g" && !isLong(o.name, "glob") && !isLong(o.name, "iglob") {
				continue
			}
			rd.hidden = true // a glob that names a hidden file searches it
			g := o.val.val
			if neg, ok := strings.CutPrefix(g, "!"); ok {
				if !strings.ContainsAny(neg, "/{") {
					rd.filters = append(rd.filters, fileFilter{pattern: neg})
				}
				continue
			}
			// A file a positive glob matches is searched even where git,
			// .ignore or .rgignore ignore it: rg -g '.e*' reads .env.
			rd.gitIgnores = false
			if strings.ContainsAny(g, "/{") || isLong(o.name, "iglob") {
				rd.filters = append(rd.filters, fileFilter{include: true, pattern: "*"}) // a path or brace glob: any file
			} else {
				rd.filters = append(rd.filters, fileFilter{include: true, pattern: g})
			}
		}
	case "ag", "ugrep":
		rd = reading{recursive: true, hidden: has("--hidden", "-u", "--unrestricted", "-uu", "-uuu", "-."),
			follows:     has("-f", "--follow", "-R", "-S", "--dereference-recursive"),
			followsDirs: has("-f", "--follow", "-R", "-S", "--dereference-recursive")}
	case "ack":
		rd = reading{recursive: true, hidden: true} // ack reads hidden files
	case "cp", "scp", "rsync":
		rd = reading{recursive: has("-r", "-R", "-a", "--recursive", "--archive"), hidden: true}
		rd.followsDirs = name == "cp" && has("-L", "--dereference") || name == "rsync" && has("-L", "--copy-links", "--copy-dirlinks", "-k")
	case "tar", "gtar", "bsdtar", "zip", "7z", "7za", "cpio", "git-ls-files":
		rd = reading{recursive: true, hidden: true}
		switch name {
		case "zip":
			rd.followsDirs = !has("-y", "--symlinks") // zip stores what a link names unless told -y
		case "tar", "gtar", "bsdtar":
			old := len(args) > 0 && !strings.HasPrefix(args[0].val, "-") && strings.Contains(args[0].val, "h") // tar chf
			rd.followsDirs = old || has("-h", "--dereference", "-L")
		case "cpio":
			rd.followsDirs = has("-L", "--dereference")
		}
	case "gzip", "gunzip", "zstd", "lz4", "bzip2", "xz", "pigz", "brotli":
		rd = reading{recursive: has("-r", "--recursive"), hidden: true}
	case "diff":
		// Without -r, diff still compares the files at the top of two
		// directories.
		rd = reading{recursive: true, hidden: true, shallow: !has("-r", "--recursive")}
	case "git":
		rd = reading{recursive: has("--no-index"), hidden: true} // git diff --no-index DIR DIR
	}
	return rd
}

// globMatchName reports whether a base name matches a shell pattern as
// fnmatch does: "[!x]" negates like "[^x]".
func globMatchName(pattern, name string) (bool, error) {
	if strings.Contains(pattern, "[!") {
		pattern = strings.ReplaceAll(pattern, "[!", "[^")
	}
	return path.Match(pattern, name)
}

var expansion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9$#!?*@-]|` + "`[^`]*`")
})

// secretWord says why reading the path word x reads credentials, or "":
// with recursive, a directory with all below it, hidden files with hidden.
// A word holding expansions is read as the pattern it may become.
func (a *analysis) secretWord(x arg, recursive, hidden bool) string {
	return a.secretIn(x, reading{recursive: recursive, hidden: hidden})
}

// urlWord reports a word that is a URL, scheme://…, rather than a path:
// a word with "://" and no scheme before it (cat ://.env reads :/.env),
// or one whose "scheme:" is a folder where the command runs (cat A://.env
// reads A:/.env), is a path.
func (a *analysis) urlWord(v string) bool {
	i := strings.Index(v, "://")
	if !urlScheme(v, i) {
		return false
	}
	p, ok := a.pathWord(v[:i+1])
	return ok && !a.lstat(path.Clean(p)).exists
}

// urlScheme reports whether v[:i] is a URL scheme (a letter, then
// letters, digits, + - .).
func urlScheme(v string, i int) bool {
	if i <= 0 {
		return false
	}
	for j, r := range v[:i] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || j > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// secretIn says why reading the path word x as rd reads credentials, or "".
func (a *analysis) secretIn(x arg, rd reading) string {
	recursive := rd.recursive
	if x.proc || x.val == "" || x.val == "-" || a.urlWord(x.val) {
		return ""
	}
	if x.dyn {
		if why := a.secretMention(x.val); why != "" {
			return why
		}
		pat := expansion().ReplaceAllString(x.val, "*")
		for _, p := range [...]string{"$HOME", "${HOME}"} {
			if strings.HasPrefix(x.val, p) && a.g.home != "" {
				pat = a.g.home + expansion().ReplaceAllString(x.val[len(p):], "*")
			}
		}
		return a.secretPattern(pat)
	}
	if x.glob {
		matches, ok := a.expand(x)
		if !ok {
			return a.secretPattern(x.val)
		}
		for _, m := range matches {
			if why := a.secretIn(arg{val: m}, rd); why != "" {
				return why
			}
		}
		if len(matches) == 0 {
			return a.secretPattern(x.val)
		}
		return ""
	}
	if v := x.val; strings.HasPrefix(v, "~") && v != "~" && !strings.HasPrefix(v, "~/") {
		// Another user's home (~root/.ssh/id_rsa), which is not looked
		// up: judged by its name.
		if why := a.secretMention(v); why != "" {
			return why
		}
		if secretName(path.Base(v)) {
			return path.Base(v) + " holds credentials"
		}
		if recursive && !strings.Contains(strings.Trim(v, "/"), "/") {
			return v + " is a home folder, with its credential stores (~/.ssh, ~/.aws, ...)"
		}
	}
	pl := a.place(x, true)
	if pl.real == "" {
		return ""
	}
	if why := a.g.secretPath(pl.real); why != "" {
		return why
	}
	if pl.viaLink {
		// The link itself may be the secret's name.
		if why := a.g.secretPath(a.place(x, false).real); why != "" {
			return why
		}
	}
	if recursive && (!pl.exists || a.lookup(pl.real).dir) {
		// In the workspace a path was looked up on the way: one that is
		// not there has no files to list.
		return a.containsSecrets(pl.real, rd, pl.kind != pathInside || pl.exists)
	}
	return ""
}

// secretMarks are pieces of text that name credential material.
var secretMarks = []string{".ssh/", "/.ssh", "id_rsa", "id_ed25519", "id_ecdsa", ".aws/", ".env", ".pem", "/environ",
	".netrc", ".git-credentials", ".gnupg", ".kube/config", "_history", "credentials", ".pgpass", ".vault-token"}

// secretMention says why a word holding expansions reads credentials: it
// names them in its own text (cat $(echo ~/.ssh/id_rsa)), or expands a
// variable this command line set to such a path.
func (a *analysis) secretMention(v string) string {
	for _, m := range secretMarks {
		if strings.Contains(v, m) && !strings.Contains(v, m+".example") && !strings.Contains(v, m+".sample") {
			return v + " mentions " + strings.Trim(m, "/")
		}
	}
	for name, why := range a.secretVars {
		if strings.Contains(v, "$"+name) || strings.Contains(v, "${"+name) {
			return "$" + name + " holds a path that " + why
		}
	}
	return ""
}

// secretPattern says why a path pattern (an expansion or a wildcard) may
// name credentials: it lies in a credential store, or its last part may be
// a credential file's name.
func (a *analysis) secretPattern(pat string) string {
	p, ok := a.pathWord(pat)
	if !ok {
		p = pat
	}
	if strings.HasPrefix(p, "/proc/") && (strings.HasSuffix(p, "/environ") || strings.HasSuffix(p, "/*")) {
		return pat + " may be a process's environment"
	}
	dir := p[:strings.LastIndexByte(p, '/')+1]
	if i := strings.IndexAny(dir, "*?["); i >= 0 {
		dir = dir[:strings.LastIndexByte(dir[:i], '/')+1]
	}
	if d := strings.TrimSuffix(dir, "/"); d != "" {
		if why := a.g.secretPath(a.placeAbs(d, true).real); why != "" {
			return pat + " lies where " + why
		}
	}
	base := path.Base(p)
	for _, sample := range [...]string{".env", ".env.local", "id_rsa", "id_ed25519", "server.pem", "tls.key", "credentials",
		"credentials.json", "secrets.yml", "master.key", ".netrc", "environ"} {
		b := base
		if a.globDots {
			b = strings.ToLower(b) // nocaseglob may be on
		}
		if m, err := path.Match(b, sample); (m || err != nil) && (strings.HasPrefix(sample, ".") == strings.HasPrefix(base, ".") || strings.HasPrefix(base, "*") && !strings.HasPrefix(sample, ".") || a.globDots) {
			if base == "*" && !a.globDots {
				continue // any name: judged by where it lies
			}
			return pat + " may name " + sample
		}
	}
	return ""
}

// secretReads judges what a command reads for credentials: its operands
// and option values (a directory when it reads recursively), and the
// files named after = in options.
func (c *call) secretReads() {
	if noContents(c.name) {
		for _, f := range namesFiles(c.name, c.args) {
			if why := c.a.secretWord(f, false, true); why != "" {
				c.secretRead(c.name + " reads the names listed in " + f.val + " and prints those it cannot use: " + why)
				return
			}
		}
		return
	}
	if c.e.findings == nil && len(c.args) == 0 {
		return
	}
	rd := readingOf(c.name, c.args)
	if (c.name == "rg" || c.name == "ripgrep") && scan(c.args, rgSpec).has("--files") {
		return // names only
	}
	skip := -1
	if subcommandFirst(c.name) {
		skip = firstOperand(c.args) // the subcommand, not a file
	}
	if c.name == "git" && skip < len(c.args) && (c.args[skip].val == "check-ignore" || c.args[skip].val == "check-attr") {
		return // they print names, patterns and attributes, never what a file holds
	}
	filters := filterValues(c.name, c.args)
	if i := searchPattern(c.name, c.args); i >= 0 {
		if filters == nil {
			filters = map[int]bool{}
		}
		filters[i] = true // grep -rn SECRET_KEY src: a pattern, not a file named SECRET_KEY
	}
	dest := copyDestination(c.name, c.args)
	var moved map[int]string
	if c.name == "tar" || c.name == "gtar" || c.name == "bsdtar" {
		moved = tarMoved(c.args)
	}
	for i, x := range c.args {
		if _, ok := moved[i]; ok {
			continue // read from a -C directory: archiveReads judges it there
		}
		if i == skip || i == dest || filters[i] || i > 0 && c.name == "git" && (c.args[i-1].val == "-m" || c.args[i-1].val == "--message") {
			continue // git's -m takes a message, never a file's name; a copy's destination is written, not read
		}
		v := x.val
		if strings.ContainsAny(v, " \t\n") && !strings.Contains(v, "/") && !x.dyn {
			continue // a message or a pattern, not a file's name
		}
		if strings.HasPrefix(v, "-") && !x.dyn {
			if _, val, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "--") {
				x = arg{val: val}
			} else {
				continue
			}
		}
		if i := strings.Index(x.val, "@"); i >= 0 && (i == 0 || x.val[i-1] == '=') && len(x.val) > i+1 {
			x.val = x.val[i+1:] // curl -d @file, -F name=@file: the file is read and sent
		}
		x = c.fromBase(x)
		if x.dyn && c.jqProgramAt(i) {
			continue // a jq program made at run time is a program, not a file's name (programEnv judges it)
		}
		if why := c.a.secretIn(x, rd); why != "" {
			c.secretRead(c.name + " reads " + x.val + ": " + why)
			return
		}
		if x.dyn && dataSubst().MatchString(x.val) && !(i == firstOperand(c.args) && patternFirst(c.name)) {
			c.secretRead(c.name + " reads " + x.val + ", a name printed from data the gate cannot see, which may name credential files")
			return
		}
		if why := c.listedSecret(x); why != "" && !(i == firstOperand(c.args) && patternFirst(c.name)) {
			c.secretRead(c.name + " reads " + x.val + ": " + why)
			return
		}
		if why := c.runTimeName(i, x, rd); why != "" && !(i == firstOperand(c.args) && patternFirst(c.name)) {
			c.secretRead(c.name + " reads " + x.val + ", a name made at run time: " + why)
			return
		}
	}
	if why := c.archiveReads(rd); why != "" {
		c.secretRead(why)
		return
	}
	if rd.recursive && c.searchesHere() {
		if why := c.a.secretIn(arg{val: "."}, rd); why != "" {
			c.secretRead(c.name + " searches " + c.a.cwdText() + ", as no path is given: " + why)
		}
	}
}

// searchesHere reports a recursive search (grep -r, rg) given no path to
// search, which searches the working directory. The first operand is the
// pattern, unless -e or -f give it.
func (c *call) searchesHere() bool {
	spec := grepSpec
	switch c.name {
	case "grep", "egrep", "fgrep", "zgrep", "rgrep":
	case "rg", "ripgrep", "ag", "ack", "ugrep":
		if c.cx.piped {
			return false // it searches its input
		}
		spec = rgSpec
	default:
		return false
	}
	ops := scan(c.args, spec)
	paths := ops.operands
	if !ops.has("-e", "--regexp", "-f", "--file") && len(paths) > 0 {
		paths = paths[1:]
	}
	return len(paths) == 0 || ops.computed
}

// archiveReads says why an archiver reads credentials in ways its
// operands do not show, or "": names read from standard input or a list
// (tar -T -, zip -@, cpio -o, rsync --files-from=-) may be any file where
// it runs; zip -R takes its operands as patterns matched at any depth; tar
// -C DIR reads the operands after it from DIR.
func (c *call) archiveReads(rd reading) string {
	here := func(what string) string {
		if why := c.a.secretIn(arg{val: "."}, reading{recursive: true, hidden: true}); why != "" {
			return c.name + " " + what + ", which may be any file in " + c.a.cwdText() + ": " + why
		}
		return ""
	}
	switch c.name {
	case "tar", "gtar", "bsdtar":
		for i, x := range c.args {
			switch v := x.val; {
			case v == "-T" || v == "--files-from" || v == "-I" && c.name == "bsdtar":
				if i+1 < len(c.args) && c.args[i+1].val == "-" {
					return here("reads the names of the files to archive from its input")
				}
			case v == "--files-from=-" || v == "-T-":
				return here("reads the names of the files to archive from its input")
			}
			if list, ok := tarList(c.args, i); ok {
				if why := c.listedNames(list, rd); why != "" {
					return c.name + " archives the files " + list.val + " names: " + why
				}
			}
		}
		for i, d := range tarMoved(c.args) {
			x := c.args[i]
			if why := c.a.secretIn(arg{val: strings.TrimRight(d, "/") + "/" + x.val}, rd); why != "" {
				return c.name + " reads " + x.val + " in " + d + ": " + why
			}
		}
	case "zip":
		for _, x := range c.args {
			switch {
			case x.val == "-@" || x.val == "--names-stdin":
				return here("reads the names of the files to archive from its input")
			case x.val == "-R" || x.val == "--recurse-patterns" || strings.HasPrefix(x.val, "-") && !strings.HasPrefix(x.val, "--") && strings.Contains(x.val, "R"):
				return here("-R matches its patterns against every file below")
			}
		}
	case "cpio":
		for _, x := range c.args {
			if x.val == "-o" || x.val == "--create" || x.val == "-p" || x.val == "--pass-through" ||
				strings.HasPrefix(x.val, "-") && !strings.HasPrefix(x.val, "--") && strings.ContainsAny(x.val, "op") {
				return here("reads the names of the files to copy from its input")
			}
		}
	case "rsync":
		for i, x := range c.args {
			if x.val == "--files-from=-" || x.val == "--files-from" && i+1 < len(c.args) && c.args[i+1].val == "-" {
				return here("reads the names of the files to copy from its input")
			}
		}
	}
	return ""
}

// tarList is the list file a tar option at i names (-T FILE,
// --files-from=FILE, bsdtar -I FILE), unless it is standard input.
func tarList(args []arg, i int) (arg, bool) {
	v := args[i].val
	switch {
	case (v == "-T" || v == "--files-from") && i+1 < len(args) && args[i+1].val != "-":
		return args[i+1], true
	case strings.HasPrefix(v, "--files-from=") && v != "--files-from=-":
		return arg{val: v[len("--files-from="):], dyn: args[i].dyn}, true
	case strings.HasPrefix(v, "-T") && len(v) > 2 && v != "-T-":
		return arg{val: v[2:], dyn: args[i].dyn}, true
	}
	return arg{}, false
}

// maxListedNames bounds the list file read for the names it holds.
const maxListedNames = 1 << 20

// listedNames says why the files a list file names (one a line) hold
// credentials, or "": read now, unless this line writes it first or it
// cannot be read, when its names are any.
func (c *call) listedNames(list arg, rd reading) string {
	pl := c.a.place(list, true)
	if list.dyn || pl.real == "" || c.a.written[pl.real] {
		return "a list the gate cannot read before it runs, which may name any file"
	}
	data, err := readFileInto(pl.real, nil, maxListedNames)
	if err != nil || len(data) > maxListedNames {
		return "a list the gate cannot read, which may name any file"
	}
	for line := range strings.Lines(string(data)) {
		if name := strings.TrimRight(line, "\r\n"); name != "" {
			if why := c.a.secretIn(arg{val: name}, rd); why != "" {
				return name + ": " + why
			}
		}
	}
	return ""
}

// tarMoved maps each relative operand of tar that follows a -C DIR
// (--directory) to the directory it is read from: DIR, taken from the
// directory before it when relative.
func tarMoved(args []arg) map[int]string {
	var out map[int]string
	dir := ""
	for i := 0; i < len(args); i++ {
		v := args[i].val
		next := ""
		switch {
		case v == "-C" || v == "--directory":
			if i+1 < len(args) {
				next, i = args[i+1].val, i+1
			}
		case strings.HasPrefix(v, "--directory="):
			next = v[len("--directory="):]
		case strings.HasPrefix(v, "-C") && len(v) > 2:
			next = v[2:]
		case v == "-f" || v == "--file" || v == "-T" || v == "--files-from" || v == "-X" || v == "--exclude-from" ||
			len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.HasSuffix(v, "f"):
			i++ // the value: an archive or a list, not an operand
			continue
		case strings.HasPrefix(v, "-") || args[i].dyn:
			continue
		default:
			if dir != "" && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "~") {
				if out == nil {
					out = map[int]string{}
				}
				out[i] = dir
			}
			continue
		}
		switch {
		case strings.HasPrefix(next, "/") || dir == "":
			dir = next
		default:
			dir = strings.TrimRight(dir, "/") + "/" + next
		}
	}
	return out
}

// copyDestination is the index in args of the operand that cp, scp or
// rsync copy to (the last, unless -t names the target), or -1.
func copyDestination(name string, args []arg) int {
	switch name {
	case "cp", "scp", "rsync":
	default:
		return -1
	}
	last, n := -1, 0
	for i, x := range args {
		switch {
		case x.val == "-t" || strings.HasPrefix(x.val, "--target-directory") || x.mayOpt() || x.dyn:
			if x.val == "-t" || strings.HasPrefix(x.val, "--target-directory") || x.dyn {
				return -1
			}
		default:
			last, n = i, n+1
		}
	}
	if n < 2 {
		return -1
	}
	return last
}

// listedSecret says why a word that is a substitution of a file lister
// that shows hidden files (cat "$(ls -a | grep env)", $(find . -type f))
// may name a credential file: it stands for any file below where the
// lister looks, as xargs's input does.
func (c *call) listedSecret(x arg) string {
	inner, ok := strings.CutPrefix(x.val, "$(")
	if !x.dyn || !ok {
		return ""
	}
	if i := strings.IndexAny(inner, "|);&"); i >= 0 {
		inner = inner[:i]
	}
	fields := strings.Fields(inner)
	if len(fields) == 0 || strings.ContainsAny(inner, "$`'\"\\") {
		return ""
	}
	args := make([]arg, 0, len(fields)-1)
	for _, f := range fields[1:] {
		args = append(args, arg{val: f, glob: strings.ContainsAny(f, "*?[")})
	}
	name := fields[0]
	if !listsHidden(name, args) {
		return ""
	}
	list, ok := c.listing(name, args)
	if !ok {
		return ""
	}
	for _, f := range list {
		if dir, ok := strings.CutSuffix(f.val, "/*"); ok && f.glob {
			if why := c.a.secretWord(arg{val: dir}, true, true); why != "" {
				return "it lists files below " + dir + ", where " + why
			}
		}
	}
	return ""
}

// jqProgramAt reports whether args[i] of a jq-like program is its program
// text (not read from a file with -f).
func (c *call) jqProgramAt(i int) bool {
	yq := c.name == "yq" || c.name == "xq" || c.name == "tomlq"
	if !jqProgram(c.name) || slices.ContainsFunc(c.args, func(x arg) bool {
		return x.val == "-f" || x.val == "--from-file" || strings.HasPrefix(x.val, "--from-file=") ||
			len(x.val) > 1 && x.val[0] == '-' && x.val[1] != '-' && strings.IndexByte(x.val, 'f') > 0
	}) {
		return false
	}
	return jqProgramIndex(c.args, yq) == i
}

// patternFirst reports programs whose first operand is a pattern or a
// script, not a file.
func patternFirst(name string) bool {
	switch name {
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "gawk", "mawk", "jq", "perl":
		return true
	}
	return false
}

// dataSubst matches a word that is a command substitution printing what a
// file or an input holds (cat $(cat list), $(<list)), so a name in it may
// be any file's.
var dataSubst = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^(\\$\\(|\x60)\\s*(<|(cat|head|tail|sort|uniq|tac|rev|cut|tr|awk|sed|jq|xargs|paste|shuf)(\\s|$))")
})

// envDump reports commands that print the environment or every shell
// variable, secrets among them.
func (c *call) envDump() string {
	if why := c.programEnv(); why != "" {
		return why
	}
	args := c.args
	switch c.name {
	case "env", "printenv":
		if c.name == "env" {
			ops := scan(args, optSpec{short: "uCS", long: []string{"unset", "chdir", "split-string"}, stop: true})
			rest := ops.operands
			for len(rest) > 0 && assignWord(rest[0].val) {
				rest = rest[1:]
			}
			if len(rest) == 0 && !ops.has("-S", "--split-string") {
				return "env prints every environment variable, tokens and keys among them"
			}
			return ""
		}
		if len(args) == 0 || onlyOptions(args) {
			return c.name + " prints every environment variable, tokens and keys among them"
		}
		if c.name == "printenv" {
			for _, x := range args {
				if !x.static() || secretVar(x.val) {
					return "printenv " + x.val + " prints a variable that holds a secret"
				}
			}
		}
	case "set":
		if len(args) == 0 {
			return "set prints every shell variable, secrets among them"
		}
	case "export", "declare", "typeset", "readonly", "local":
		if onlyOptions(args) {
			return c.name + " " + joinArgs(args).val + " prints every variable, secrets among them"
		}
		for _, x := range args {
			if !strings.HasPrefix(x.val, "-") && !strings.Contains(x.val, "=") && secretVar(x.val) && hasArg(args, "-p") {
				return c.name + " -p " + x.val + " prints a variable that holds a secret"
			}
		}
	case "ps":
		for i, x := range args {
			v := x.val
			format := i > 0 && (args[i-1].val == "-o" || args[i-1].val == "o" || args[i-1].val == "-O" || args[i-1].val == "O" || args[i-1].val == "--format")
			if strings.Contains(v, "environ") || !format && !strings.HasPrefix(v, "-") && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && strings.ContainsRune(v, 'e') {
				return "ps " + v + " prints the environment of processes"
			}
		}
	case "gpg", "gpg2":
		for _, x := range args {
			if strings.HasPrefix(x.val, "--export-secret") || x.val == "--export-ssh-key" || strings.HasPrefix(x.val, "--show-session-key") {
				return "gpg " + x.val + " prints private key material"
			}
		}
	case "security":
		for _, x := range args {
			if strings.Contains(x.val, "password") || x.val == "dump-keychain" || x.val == "export" {
				return "security " + x.val + " prints stored passwords"
			}
		}
	case "secret-tool", "keyctl", "pass", "gopass", "kwallet-query", "ssh-add":
		return c.name + " reads stored secrets"
	case "jq", "gojq", "jaq":
		for _, x := range args {
			if strings.Contains(x.val, "$ENV") || jqEnv().MatchString(x.val) {
				return c.name + " reads the environment ($ENV, env)"
			}
		}
	}
	return ""
}

// jqEnv finds jq's env builtin (env, env.X), not words that merely hold it.
var jqEnv = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[^A-Za-z0-9_$.])env\b`) })

// onlyOptions reports an argument list with no operand.
func onlyOptions(args []arg) bool {
	for _, x := range args {
		if !strings.HasPrefix(x.val, "-") || x.dyn {
			return false
		}
	}
	return true
}

// secretExpansion reports an expansion of a variable that holds a secret
// ($GITHUB_TOKEN), which hands its value to the command: one that prints
// it puts it in the agent's context. ${#X}, ${X:+...} and tests of it do
// not expose the value.
func secretExpansion(pe *syntax.ParamExp) string {
	if pe.Param != nil && pe.Excl && pe.Names == 0 && pe.Index == nil && !pe.Length && !pe.Width &&
		(pe.Exp == nil || pe.Exp.Op != syntax.AlternateUnset && pe.Exp.Op != syntax.AlternateUnsetOrNull) {
		// ${!v}: the value of the variable whose name $v holds, any of
		// them, secrets among them (${!prefix*} and ${!a[@]} list names).
		return secretPrefix + "${!" + pe.Param.Value + "} reads the variable named by $" + pe.Param.Value + ", which may hold a secret"
	}
	if pe.Param == nil || pe.Length || pe.Width || pe.Excl || !secretVar(pe.Param.Value) {
		return ""
	}
	if pe.Exp != nil && (pe.Exp.Op == syntax.AlternateUnset || pe.Exp.Op == syntax.AlternateUnsetOrNull) {
		return ""
	}
	return secretPrefix + "$" + pe.Param.Value + " holds a secret, which the command gets"
}

// SecretFile says why reading the file or directory p (absolute, or
// relative to the gate's working directory) reads credential material, or
// "" when it does not; links are followed. Callers use it for tools other
// than the shell (an agent's file reader) to mark a session that read
// secrets.
func (g *Gate) SecretFile(p string) string {
	if p == "" {
		return ""
	}
	a := g.analyses.Get().(*analysis)
	a.reset(g)
	defer g.analyses.Put(a)
	return a.secretWord(arg{val: p}, true, true)
}
