package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stagingRepo is a real git repository with credential files in it, and
// a strict gate over it.
type stagingRepo struct {
	ws, home string
	g        *Gate
}

func newStagingRepo(t *testing.T, files map[string]string) *stagingRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := &stagingRepo{ws: root + "/ws", home: root + "/home"}
	os.MkdirAll(r.home, 0o700)
	r.git(t, "init", "-q", r.ws)
	for f, body := range files {
		p := filepath.Join(root, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	r.g, err = New(Options{Workspace: r.ws, Home: r.home, TempDirs: []string{root + "/tmp"}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// git runs git in the work tree as the gate's user (HOME is the gate's).
func (r *stagingRepo) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = filepath.Dir(r.ws)
	if _, err := os.Stat(r.ws); err == nil {
		cmd.Dir = r.ws
	}
	cmd.Env = append(os.Environ(), "HOME="+r.home, "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// verdictCase is a command line and the verdict it should get.
type verdictCase struct {
	cmd  string
	want Verdict
}

// expect decides each case as a sandboxed command in the repository.
func (r *stagingRepo) expect(t *testing.T, cases []verdictCase) {
	t.Helper()
	for _, c := range cases {
		if res := r.g.Decide(t.Context(), c.cmd, Input{Sandboxed: true}); res.Verdict != c.want {
			t.Errorf("%q: %s, want %s: %v", c.cmd, res.Verdict, c.want, res.Reasons)
		}
	}
}

// secretsGitWouldStage asks git itself (git add --dry-run with the same
// arguments) which credential files the command would stage that the
// repository does not track yet.
func (r *stagingRepo) secretsGitWouldStage(t *testing.T, args []string) []string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"add", "--dry-run"}, args...)...)
	cmd.Dir = r.ws
	cmd.Env = append(os.Environ(), "HOME="+r.home, "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=")
	out, _ := cmd.CombinedOutput() // a pathspec git refuses stages nothing
	tracked := strings.Split(r.git(t, "ls-files"), "\n")
	var secrets []string
	for _, line := range strings.Split(string(out), "\n") {
		f, ok := strings.CutPrefix(line, "add '")
		f = strings.TrimSuffix(f, "'")
		if ok && secretName(filepath.Base(f)) && !slices.Contains(tracked, f) {
			secrets = append(secrets, f)
		}
	}
	return secrets
}

// TestStagingASecretIsReadingIt: cat .env asked, but git add -A (or git
// add ., git stash -u) staged the untracked .env, and then git diff
// --cached printed it. The gate now asks exactly when git itself (asked
// with --dry-run) would stage a credential file the repository does not
// track: ignore rules at every level, info/exclude, core.excludesFile and
// what the index tracks are honoured as git honours them.
func TestStagingASecretIsReadingIt(t *testing.T) {
	specs := [][]string{{"-A"}, {"."}, {"--all"}, {"sub"}, {"sub/"}, {":/"}, {"docs"}, {"-A", "docs"}, {"-f", "."},
		{"-u"}, {"sub/ok.go"}, {"-N", "."}, {"--", "."}, {"-fA"}, {"nothing"}}
	worlds := []struct {
		name  string
		files map[string]string
		setup func(t *testing.T, r *stagingRepo)
	}{
		{"nothing ignored", nil, nil},
		{"ignored in .gitignore", map[string]string{"ws/.gitignore": ".env\n*.pem\n"}, nil},
		{"ignored but re-included", map[string]string{"ws/.gitignore": ".env\n*.pem\n!sub/server.pem\n"}, nil},
		{"ignored a level down", map[string]string{"ws/.gitignore": ".env\n", "ws/sub/.gitignore": "*.pem\n"}, nil},
		{"ignored in info/exclude", map[string]string{"ws/.git/info/exclude": ".env\nserver.pem\n"}, nil},
		{"ignored by core.excludesFile", map[string]string{"home/.gitconfig": "[core]\n\texcludesFile = ~/.gitignore_global\n",
			"home/.gitignore_global": ".env\n*.pem\n"}, nil},
		{"ignored by the default global ignore file", map[string]string{"home/.config/git/ignore": ".env\n*.pem\n"}, nil},
		{"tracked already", map[string]string{"ws/.gitignore": "*.pem\n"}, func(t *testing.T, r *stagingRepo) {
			r.git(t, "add", "-f", ".env")
			r.git(t, "commit", "-qm", "x")
		}},
		{"a negation the gate cannot read", map[string]string{"ws/.gitignore": ".env\n*.pem\n![[:nope:]]\n"}, nil},
	}
	for _, w := range worlds {
		t.Run(w.name, func(t *testing.T) {
			files := map[string]string{"ws/.env": "TOKEN=x\n", "ws/sub/server.pem": "PEM\n", "ws/sub/ok.go": "package sub\n",
				"ws/docs/guide.md": "# guide\n"}
			for f, b := range w.files {
				files[f] = b
			}
			r := newStagingRepo(t, files)
			if w.setup != nil {
				w.setup(t, r)
			}
			for _, s := range specs {
				cmd := "git add " + strings.Join(s, " ")
				res := r.g.Decide(t.Context(), cmd, Input{Sandboxed: true})
				staged := r.secretsGitWouldStage(t, s)
				switch {
				case len(staged) > 0 && res.Verdict == VerdictAllow:
					t.Errorf("%q is allowed, but git would stage %q", cmd, staged)
				case len(staged) > 0 && !res.Secret:
					t.Errorf("%q: %s without marking a secret read (%v)", cmd, res.Verdict, res.Reasons)
				case len(staged) == 0 && res.Verdict != VerdictAllow && w.name != "a negation the gate cannot read":
					t.Errorf("%q: %s, but git stages no credential file: %v", cmd, res.Verdict, res.Reasons)
				}
			}
		})
	}
}

// TestStagingIntoAStash: git stash push --include-untracked copies
// untracked files into a stash, which git stash show -p -u prints.
func TestStagingIntoAStash(t *testing.T) {
	r := newStagingRepo(t, map[string]string{"ws/.env": "TOKEN=x\n", "ws/src/a.go": "package a\n"})
	r.git(t, "add", "src")
	r.git(t, "commit", "-qm", "x")
	r.expect(t, []verdictCase{
		{"git stash push --include-untracked", VerdictAsk},
		{"git stash push -u -- .", VerdictAsk},
		{"git stash -u", VerdictAsk},
		{"git stash save -u wip", VerdictAsk},
		{"git stash push -u -- src", VerdictAllow},
		{"git stash push", VerdictAllow},
		{"echo .env | git update-index --add --stdin", VerdictAsk},
		{"echo .env | git hash-object -w --stdin-paths", VerdictAsk},
		{"git ls-files -o > l.txt; git add --pathspec-from-file=l.txt", VerdictAsk},
		{"git --work-tree=. add -A", VerdictAsk},
		{"git update-index --refresh", VerdictNone},
		{"git hash-object src/a.go", VerdictNone},
	})
}

// BenchmarkDecideGitAddAll decides git add -A in a repository of 2,000
// files in 100 directories, with an ignored node_modules of 20,000 more
// and the .env ignored: the walk the gate does to learn that git would
// stage no credential file.
func BenchmarkDecideGitAddAll(b *testing.B) {
	root := b.TempDir()
	ws := root + "/ws"
	files := map[string]string{".gitignore": ".env\nnode_modules/\n", ".env": "TOKEN=x\n"}
	for d := range 100 {
		for f := range 20 {
			files[filepath.Join("src", strconv.Itoa(d), strconv.Itoa(f)+".go")] = "package x\n"
			files[filepath.Join("node_modules", strconv.Itoa(d), strconv.Itoa(f)+".js")] = ""
		}
	}
	for f, body := range files {
		p := filepath.Join(ws, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	os.MkdirAll(ws+"/.git", 0o755)
	g, err := New(Options{Workspace: ws, Home: root + "/home"})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if r := g.Decide(b.Context(), "git add -A", Input{Sandboxed: true}); r.Verdict != VerdictAllow {
			b.Fatalf("%s %v", r.Verdict, r.Reasons)
		}
	}
}

// TestStagingAfterTheLineChangedWhatGitIgnores: .env is ignored when the
// gate decides, but an earlier command of the same line (or one running
// alongside) un-ignores it before git add reads .gitignore. Then the
// ignore rules cannot be trusted; commands that change no file, and
// anything after a git add that runs in the foreground, leave them be.
func TestStagingAfterTheLineChangedWhatGitIgnores(t *testing.T) {
	r := newStagingRepo(t, map[string]string{"ws/.env": "TOKEN=x\n", "ws/.gitignore": ".env\n", "ws/src/a.go": "package a\n"})
	r.expect(t, []verdictCase{
		{"echo '!.env' >> .gitignore && git add -A", VerdictAsk},
		{"sed -i /env/d .gitignore; git add -A", VerdictAsk},
		{"rm .gitignore; git add .", VerdictAsk},
		{"git checkout HEAD -- .gitignore && git add -A", VerdictAsk},
		{"git stash && git add -A", VerdictAsk},
		{"git add -A & echo '!.env' >> .gitignore", VerdictAsk},
		{"git add -A | (echo '!.env' >> .gitignore)", VerdictAsk},
		{"git add -A $(rm .gitignore)", VerdictAsk},
		{"git add -A 2> .gitignore", VerdictAsk},
		{"export GIT_DIR=.git; git add -A", VerdictAsk},
		{"bash -c 'git add -A'", VerdictAsk},
		// Everyday: nothing before it changes a file.
		{"git add -A", VerdictAllow},
		{"cd src && git add .", VerdictAllow},
		{"git status && git add -A && git commit -m 'x'", VerdictAllow},
		{"git add -A 2>/dev/null; git diff --cached --stat", VerdictAllow},
		{"git add -A && git commit -m \"$(cat <<'EOF'\nAdd a feature | with & signs\n\nDetails.\nEOF\n)\"", VerdictAllow},
	})
}

// TestListingWhatGitTracks: git ls-files (or git diff --name-only, git
// grep -l) lists only what the index tracks, so what it feeds a reader
// holds a credential file exactly when the index tracks one; git
// ls-files --others lists untracked files too.
func TestListingWhatGitTracks(t *testing.T) {
	r := newStagingRepo(t, map[string]string{"ws/.env": "TOKEN=x\n", "ws/src/a.go": "package a\n", "ws/config/prod.key": "K\n"})
	r.git(t, "add", "src")
	r.git(t, "commit", "-qm", "x")
	check := func(cmd string, want Verdict) { t.Helper(); r.expect(t, []verdictCase{{cmd, want}}) }
	check("git ls-files | xargs cat", VerdictAllow)
	check("git ls-files src | xargs wc -l", VerdictAllow)
	check("git ls-files -o | xargs cat", VerdictAsk)
	check("git ls-files --others --exclude-standard | xargs cat", VerdictAsk)
	r.git(t, "add", "-f", "config/prod.key")
	r.git(t, "commit", "-qm", "key")
	check("git ls-files | xargs cat", VerdictAsk)
	check("git ls-files src | xargs cat", VerdictAllow)
	check("git diff --name-only HEAD~1 | xargs cat", VerdictAsk)
}

// TestGitGrepPrintsWhatItSearches: git grep --untracked TOKEN and git grep
// --no-index printed the untracked .env's lines, allowed. git grep reads
// the files the index tracks, --untracked adds what git add would stage,
// --no-index every file.
func TestGitGrepPrintsWhatItSearches(t *testing.T) {
	r := newStagingRepo(t, map[string]string{"ws/.env": "TOKEN=x\n", "ws/src/a.go": "package a\n", "ws/.gitignore": "*.key\n",
		"ws/k.key": "K\n"})
	r.git(t, "add", "src", ".gitignore")
	r.git(t, "commit", "-qm", "x")
	check := func(cmd string, want Verdict) { t.Helper(); r.expect(t, []verdictCase{{cmd, want}}) }
	check("git grep -n TOKEN", VerdictAllow)
	check("git grep --untracked TOKEN", VerdictAsk)
	check("git grep --untracked -h ''", VerdictAsk)
	check("git grep --no-index -e .", VerdictAsk)
	check("git grep --untracked TOKEN -- src", VerdictAsk) // the gate looks at the whole directory
	check("cd src && git grep --untracked TOKEN", VerdictAllow)
	r.git(t, "rm", "-q", "--cached", ".gitignore")
	os.WriteFile(r.ws+"/.gitignore", []byte(".env\n*.key\n"), 0o644)
	check("git grep --untracked TOKEN", VerdictAllow)
	check("git grep --untracked --no-exclude-standard TOKEN", VerdictAsk)
	r.git(t, "add", "-f", "k.key")
	r.git(t, "commit", "-qm", "key")
	check("git grep -n TOKEN", VerdictAsk)
}
