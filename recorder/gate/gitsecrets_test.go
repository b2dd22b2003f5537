package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Each credential file these tests make holds the word secretMark, and
// no other file does: a command printed a secret when its output holds it.
const secretMark = "SECRETVALUE"

// leakCase is a command line run for real in a repository: an attack
// (leaks) that prints a secret, which the gate must not allow and must
// mark as a secret read, or its everyday neighbour, which prints none and
// which the gate does not ask about (it allows it, or leaves it to the
// policy, as before).
type leakCase struct {
	cmd   string
	leaks bool
}

// sh runs a command line with bash in the work tree, as the gate's user
// (HOME is the gate's), and returns what it printed.
func (r *stagingRepo) sh(t *testing.T, line string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a hang guard only
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", line)
	cmd.Dir = r.ws
	cmd.Env = append(os.Environ(), "HOME="+r.home, "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=", "GIT_PAGER=cat", "PAGER=cat",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_EDITOR=true", "EDITOR=true")
	out, _ := cmd.CombinedOutput() // a failing command prints what it prints
	return string(out)
}

// holds decides each case, then runs it for real (in a fresh repository
// from fresh, when given, else in r) and holds the verdict to what it
// printed.
func holds(t *testing.T, r *stagingRepo, fresh func(t *testing.T) *stagingRepo, cases []leakCase) {
	t.Helper()
	for _, c := range cases {
		rr := r
		if fresh != nil {
			rr = fresh(t)
		}
		line := strings.ReplaceAll(c.cmd, "ROOT", filepath.Dir(rr.ws))
		res := rr.g.Decide(t.Context(), line, Input{Sandboxed: true})
		out := rr.sh(t, line)
		printed := strings.Contains(out, secretMark)
		switch {
		case c.leaks && !printed:
			t.Errorf("%q was to print a secret for real, and printed:\n%s", line, out)
		case c.leaks && (res.Verdict == VerdictAllow || !res.Secret):
			t.Errorf("%q prints a secret, but the gate says %s (secret %v): %v", line, res.Verdict, res.Secret, res.Reasons)
		case !c.leaks && printed:
			t.Errorf("%q was to be harmless, and printed a secret:\n%s", line, out)
		case !c.leaks && (res.Verdict != VerdictAllow && res.Verdict != VerdictNone || res.Secret):
			t.Errorf("%q prints no secret, but the gate says %s (secret %v): %v", line, res.Verdict, res.Secret, res.Reasons)
		}
	}
}

// diffRepo is a repository with a committed source tree, a credential
// file a directory down (untracked, ignored), an empty directory and a
// file outside the work tree, and credential stores in the home folder.
func diffRepo(t *testing.T) *stagingRepo {
	t.Helper()
	r := newStagingRepo(t, map[string]string{
		"ws/src/a.go":           "package a\n",
		"ws/src/sub/.env":       "TOKEN=" + secretMark + "\n",
		"ws/.gitignore":         ".env\n",
		"ws/README.md":          "readme\n",
		"home/.ssh/id_rsa":      "KEY " + secretMark + "\n",
		"home/.kube/config":     "token: " + secretMark + "\n",
		"home/notes/todo.txt":   "todo\n",
		"tmp/b.go":              "package b\n",
		"tmp/empty/.keep":       "",
		"ws/.claude/keep":       "",
		"ws/docs/guide.md":      "guide\n",
		"ws/docs/old/guide.md":  "old guide\n",
		"ws/src/sub/handler.go": "package sub\n",
	})
	os.Remove(filepath.Dir(r.ws) + "/tmp/empty/.keep")
	r.git(t, "add", "-A")
	r.git(t, "commit", "-qm", "x")
	return r
}

// TestGitDiffOutsideTheWorkTreeReadsBothSides: with exactly two paths,
// one of them outside the work tree (or outside any repository), git diff
// compares them as files, --no-index implied: git diff src /tmp/empty
// printed src/sub/.env, git diff ~ /tmp/empty the home's credential
// stores.
func TestGitDiffOutsideTheWorkTreeReadsBothSides(t *testing.T) {
	r := diffRepo(t)
	holds(t, r, nil, []leakCase{
		{"git diff src ROOT/tmp/empty", true},
		{"git diff ROOT/tmp/empty src", true},
		{"git diff ~ ROOT/tmp/empty", true},
		{"git diff -- src ROOT/tmp/empty", true},
		{"git diff --text src ROOT/tmp/empty", true},
		{"git difftool --no-prompt -x cat src/sub/.env ROOT/tmp/b.go", true},
		{"cd ROOT/tmp && git diff empty ../ws/src", true},
		{"git diff src ../tmp/empty", true},
		// Everyday neighbours.
		{"git diff", false},
		{"git diff src", false},
		{"git diff HEAD src", false},
		{"git diff src/a.go ROOT/tmp/b.go", false},
		{"git diff --no-index src/a.go ROOT/tmp/b.go", false},
		{"git diff docs ROOT/tmp/empty", false},
	})
}

// TestGitDashCReadsFromItsDirectory: git -C DIR resolves its operands from
// DIR, not from where the command line runs: git -C src diff --no-index
// sub /tmp/empty printed src/sub/.env, git -C src diff --no-index
// /dev/null ../../home/.kube/config the kube token; a write with -o lands
// in DIR too.
func TestGitDashCReadsFromItsDirectory(t *testing.T) {
	r := diffRepo(t)
	holds(t, r, nil, []leakCase{
		{"git -C src diff --no-index sub ROOT/tmp/empty", true},
		{"git -C src diff --no-index /dev/null ../../home/.kube/config", true},
		{"git -C src diff sub ROOT/tmp/empty", true},
		{"git -C src grep --no-index -e TOKEN -- sub", true},
		{"git -C src diff --no-index sub/.env /dev/null", true},
		{"git -C src grep --untracked --no-exclude-standard -h TOKEN", true},
		{"git -C src add -f sub && git diff --cached", true},
		// Everyday neighbours.
		{"git -C src diff", false},
		{"git -C src diff --no-index a.go ROOT/tmp/b.go", false},
		{"git -C docs diff --no-index old ROOT/tmp/empty", false},
		{"git -C src log --oneline -1", false},
	})
	r.expect(t, []verdictCase{
		{"git -C .claude archive --format=tar -o settings.json HEAD", VerdictAsk},
		{"git -C .claude format-patch -o hooks HEAD~0", VerdictAsk},
		{"git -C src archive --format=tar -o ../.claude/x.tar HEAD", VerdictAsk},
		{"git -C src archive --format=tar -o out.tar HEAD", VerdictNone},
		{"git -C docs format-patch -o patches -1 HEAD", VerdictNone},
	})
}

// TestGitConfigCredentials: a remote's address with a token in it
// (https://x-access-token:TOKEN@host/...), an http.extraHeader or a
// credential helper holding a password make git's configuration a
// credential file: cat .git/config, grep -r, git remote -v, git remote
// get-url, git config --get remote.origin.url and git ls-remote --get-url
// printed them, allowed. Without such a value, all of them stay everyday.
func TestGitConfigCredentials(t *testing.T) {
	withRemote := func(url string, files map[string]string) func(t *testing.T) *stagingRepo {
		return func(t *testing.T) *stagingRepo {
			base := map[string]string{"ws/src/a.go": "package a\n"}
			for f, b := range files {
				base[f] = b
			}
			r := newStagingRepo(t, base)
			r.git(t, "remote", "add", "origin", url)
			return r
		}
	}
	reads := []string{"cat .git/config", "grep url .git/config", "grep -ri github .", "grep -rn . .git",
		"git remote -v", "git remote get-url origin", "git remote get-url --push origin", "git remote show -n origin",
		"git config --get remote.origin.url", "git config remote.origin.url", "git ls-remote --get-url",
		"git ls-remote --get-url origin", "head -50 .git/config", "tar cf - . | tar tvf - >/dev/null; tar cf - .git | strings"}
	for _, w := range []struct {
		name  string
		url   string
		files map[string]string
		leaks []string // of reads, those that print the secret
	}{
		{"a token in the remote's address", "https://x-access-token:ghp_" + secretMark + "@github.com/o/r.git", nil, reads},
		{"a token as the remote's user", "https://ghp_" + secretMark + "1234567890abcdef@github.com/o/r.git", nil, reads},
		{"an address rewritten with a token", "https://github.com/o/r.git", map[string]string{
			"home/.gitconfig": "[url \"https://u:" + secretMark + "@github.com/\"]\n\tinsteadOf = https://github.com/\n"},
			[]string{"git remote -v", "git remote get-url origin", "git remote get-url --push origin", "git remote show -n origin",
				"git ls-remote --get-url", "git ls-remote --get-url origin", "cat ~/.gitconfig", "grep -r " + secretMark + " ~"}},
		{"an address rewritten in an included file", "https://github.com/o/r.git", map[string]string{
			"home/.gitconfig":      "[include]\n\tpath = ~/.gitconfig-work\n",
			"home/.gitconfig-work": "[url \"https://u:" + secretMark + "@github.com/\"]\n\tinsteadOf = https://github.com/\n"},
			[]string{"git remote -v", "git remote get-url origin", "git ls-remote --get-url", "cat ~/.gitconfig-work"}},
		{"an extra header", "https://github.com/o/r.git", map[string]string{
			"home/.config/git/config": "[http]\n\textraHeader = AUTHORIZATION: basic " + secretMark + "\n"},
			[]string{"cat ~/.config/git/config", "grep -r " + secretMark + " ~/.config"}},
		{"a credential helper with a password", "https://github.com/o/r.git", map[string]string{
			"home/.gitconfig": "[credential]\n\thelper = \"!f() { echo username=u; echo password=" + secretMark + "; }; f\"\n"},
			[]string{"cat ~/.gitconfig", "grep -r password ~"}},
	} {
		t.Run(w.name, func(t *testing.T) {
			var cases []leakCase
			for _, c := range w.leaks {
				cases = append(cases, leakCase{c, true})
			}
			holds(t, nil, withRemote(w.url, w.files), cases)
		})
	}
	t.Run("no credentials", func(t *testing.T) {
		files := map[string]string{"home/.gitconfig": "[user]\n\tname = t\n[url \"git@github.com:\"]\n\tpushInsteadOf = https://github.com/\n",
			"home/.config/git/config": "[http]\n\tpostBuffer = 524288000\n"}
		var cases []leakCase
		for _, c := range append(reads, "cat ~/.gitconfig", "cat ~/.config/git/config", "git remote", "git config --get user.name",
			"git remote -v && git status") {
			if !strings.Contains(c, "ls-remote") {
				cases = append(cases, leakCase{c, false})
			}
		}
		holds(t, withRemote("https://github.com/o/r.git", files)(t), nil, cases)
		holds(t, withRemote("git@github.com:o/r.git", files)(t), nil, []leakCase{{"git remote -v", false}, {"cat .git/config", false}})
	})
}

// TestParseConfigAgreesWithGit reads a configuration file git wrote (and
// a few forms written by hand) and holds its keys and values to what git
// config --list reads from it.
func TestParseConfigAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	f := filepath.Join(t.TempDir(), "config")
	os.WriteFile(f, []byte("[Core]\n\tBare = false\n[Section.Sub] key = v1\n; comment\n# comment\n[http \"https://Host/\"]\n\textraHeader = AUTHORIZATION: basic x\n"), 0o644)
	for _, kv := range [][2]string{{"remote.origin.url", "https://x-access-token:t0k@github.com/o/r.git"},
		{"url.https://u:p@github.com/.insteadOf", "https://github.com/"}, {"user.name", "A Name"},
		{"credential.helper", "!f() { echo password=x; }; f"}, {"Remote.Up Stream.pushURL", "git@h:o/r"}} {
		cmd := exec.Command("git", "config", "-f", f, kv[0], kv[1])
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git config %v: %v %s", kv, err, out)
		}
	}
	out, err := exec.Command("git", "config", "-f", f, "--list").Output()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(f)
	var got []string
	for _, e := range parseConfig(data) {
		got = append(got, e.key()+"="+e.value)
	}
	want := strings.Split(strings.TrimSpace(string(out)), "\n")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parseConfig read\n%s\ngit config --list reads\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if configCredential(data) == "" {
		t.Errorf("no credential found in\n%s", data)
	}
}

// FuzzConfigCredential: whatever the bytes, reading a configuration and
// looking for credentials in it never panics, and each key it reads names
// its section.
func FuzzConfigCredential(f *testing.F) {
	f.Add([]byte("[remote \"origin\"]\n\turl = https://u:p@h/x\n"))
	f.Add([]byte("[http]\nextraheader = x\\\n y\n[credential] helper = !echo password=1\n"))
	f.Add([]byte("[a.B]k=\"v\"\n[\"\n[]\n=\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, e := range parseConfig(data) {
			if e.section == "" || !strings.HasPrefix(e.key(), e.section+".") {
				t.Errorf("entry %+v", e)
			}
		}
		configCredential(data)
		urlCredential(string(data))
		inlineSecret(string(data))
	})
}

// trackedRepo is a repository that tracks a credential file (a .env
// template, a test key) committed without a secret; with filled, the
// person has since filled the template in (the working copy differs from
// the index), and changed a source file too. Every file is older than the
// index, so git takes the index's stat data as they are (no racy entry).
func trackedRepo(filled bool) func(t *testing.T) *stagingRepo {
	return func(t *testing.T) *stagingRepo {
		r := newStagingRepo(t, map[string]string{"ws/.env": "TOKEN=template\n", "ws/src/a.go": "package a\n",
			"ws/docs/guide.md": "guide\n"})
		past := time.Now().Add(-time.Hour)
		age := func() {
			for _, f := range []string{".env", "src/a.go", "docs/guide.md"} {
				os.Chtimes(filepath.Join(r.ws, f), past, past)
			}
		}
		age()
		r.git(t, "add", "-A")
		r.git(t, "commit", "-qm", "template")
		if filled {
			os.WriteFile(filepath.Join(r.ws, ".env"), []byte("TOKEN="+secretMark+"\n"), 0o644)
			os.WriteFile(filepath.Join(r.ws, "src/a.go"), []byte("package a // changed\n"), 0o644)
			age()
		}
		r.git(t, "status", "--porcelain") // refreshes the index, as git status does: it is newer than every file
		return r
	}
}

// TestChangedTrackedSecret: a tracked credential file whose working copy
// differs from the index (a committed .env template, filled in locally)
// was printed by git diff, and staged by git add -u/-A, git commit -a and
// git stash, after which git diff --cached, git show and git stash show
// -p printed it. The gate tells a changed file as git does, from the
// index's stat data, and asks; what is committed already stays allowed.
func TestChangedTrackedSecret(t *testing.T) {
	holds(t, nil, trackedRepo(true), []leakCase{
		{"git diff", true},
		{"git diff HEAD", true},
		{"git diff .", true},
		{"git diff -- '*.env'", true},
		{"git diff-files -p", true},
		{"git diff-index -p HEAD", true},
		{"git diff --author main HEAD", true},
		{"git diff -U src .", true},
		{"git status -vv", true},
		{"git commit --dry-run -vv", true},
		{"git commit --dry-run -v -v src", true},
		{"yes n | git add -p", true},
		{"git add -u && git diff --cached", true},
		{"git add -A && git diff --cached", true},
		{"git add . && git diff --cached", true},
		{"git commit -qam x && git show", true},
		{"git commit -q -a -m x && git log -p -1", true},
		{"git commit -qm x . && git show", true},
		{"git commit -qm x -i . && git show", true},
		{"git stash -q && git stash show -p", true},
		{"git stash push -q && git stash show -p", true},
		{"git stash push -q -- . && git stash show -p", true},
		{"git stash save -q wip && git stash show -p", true},
		{"git show $(git stash create)", true},
		// Everyday neighbours: the changes elsewhere, and history.
		{"git diff src", false},
		{"git diff --cached", false},
		{"git diff HEAD~0 HEAD", false},
		{"git diff --stat HEAD HEAD~0", false},
		{"git diff -U5 HEAD src", false},
		{"git add src && git diff --cached", false},
		{"git commit -qm x src/a.go && git show", false},
		{"git stash push -q -- src && git stash show -p", false},
		{"git log -p", false},
		{"git commit --dry-run -v", false},
		{"git show HEAD:.gitignore 2>/dev/null; git status", false},
	})
	// Touched only: git looks at the contents, finds them unchanged and
	// prints nothing; the gate does the same.
	touched := func(t *testing.T) *stagingRepo {
		r := trackedRepo(false)(t)
		now := time.Now()
		os.Chtimes(filepath.Join(r.ws, ".env"), now, now)
		return r
	}
	holds(t, nil, touched, []leakCase{{"git diff", false}, {"git add -u && git diff --cached", false}, {"git commit -qam x; git show", false}})
	holds(t, nil, trackedRepo(false), []leakCase{
		{"git diff", false},
		{"git diff HEAD", false},
		{"git add -u && git diff --cached", false},
		{"git add -A && git status", false},
		{"git stash; git stash list", false},
		{"git log -p", false},
	})
}

// BenchmarkDecideGitDiff decides git diff in a repository whose index
// tracks 2,000 files and an unchanged .env: the index read and the stat
// of the tracked credential file that tell the gate git diff prints no
// secret. BenchmarkDecideGitLog, which reads no index, is its baseline.
func BenchmarkDecideGitDiff(b *testing.B) { benchmarkTrackedRepo(b, "git diff") }

func BenchmarkDecideGitLog(b *testing.B) { benchmarkTrackedRepo(b, "git log --oneline") }

func benchmarkTrackedRepo(b *testing.B, cmd string) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	ws := b.TempDir()
	past := time.Now().Add(-time.Hour)
	files := map[string]string{".env": "TOKEN=template\n"}
	for d := range 100 {
		for f := range 20 {
			files[filepath.Join("src", strconv.Itoa(d), strconv.Itoa(f)+".go")] = "package x\n"
		}
	}
	for f, body := range files {
		p := filepath.Join(ws, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
		os.Chtimes(p, past, past)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		c := exec.Command("git", args...)
		c.Dir = ws
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	g, err := New(Options{Workspace: ws, Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if r := g.Decide(b.Context(), cmd, Input{Sandboxed: true}); r.Verdict != VerdictAllow {
			b.Fatalf("%s %v", r.Verdict, r.Reasons)
		}
	}
}

// TestStagedSecretPrinted: a credential file the person staged (git add .
// where .env is not ignored) was printed by git diff --cached, git diff
// HEAD, git status -v and git commit --dry-run -v, and put where git show
// and git stash show -p print it by git commit and git stash, all allowed. The gate now reads HEAD's
// tree (loose or packed objects) and asks when a staged credential file
// differs from it; one committed as it is staged prints nothing and stays
// allowed.
func TestStagedSecretPrinted(t *testing.T) {
	for _, packed := range []bool{false, true} {
		staged := func(t *testing.T) *stagingRepo {
			r := newStagingRepo(t, map[string]string{"ws/src/a.go": "package a\n", "ws/README.md": "r\n"})
			r.git(t, "add", "-A")
			r.git(t, "commit", "-qm", "first")
			os.WriteFile(r.ws+"/.env", []byte("TOKEN="+secretMark+"\n"), 0o644)
			r.git(t, "add", ".env") // the person's git add
			if packed {
				r.git(t, "gc", "-q", "--prune=now")
			}
			return r
		}
		holds(t, nil, staged, []leakCase{
			{"git diff --cached", true},
			{"git diff --staged", true},
			{"git diff --cached -- .env", true},
			{"git diff --cached -U1", true},
			{"git status -v", true},
			{"git commit --dry-run -v", true},
			{"git diff-index -p --cached HEAD", true},
			{"git diff HEAD", true},
			{"git commit -qm wip && git show", true},
			{"git stash -q && git stash show -p", true},
			{"git diff HEAD src", false},
			{"git diff --cached --stat", false},
			{"git diff --cached --name-only", false},
			{"git diff --cached src", false},
			{"git status", false},
		})
		committed := func(t *testing.T) *stagingRepo {
			r := staged(t)
			r.git(t, "commit", "-qm", "with .env")
			return r
		}
		holds(t, nil, committed, []leakCase{{"git diff --cached", false}, {"git status -v", false}})
		changed := func(t *testing.T) *stagingRepo {
			r := committed(t)
			os.WriteFile(r.ws+"/.env", []byte("TOKEN="+secretMark+"2\n"), 0o644)
			r.git(t, "add", ".env")
			return r
		}
		holds(t, nil, changed, []leakCase{{"git diff --cached", true}})
	}
}

// TestStagedObjectByName: git ls-files -s prints the object name of what
// the index holds for a staged .env, and git cat-file -p or git show of
// that name printed it, allowed. Other objects stay allowed.
func TestStagedObjectByName(t *testing.T) {
	r := newStagingRepo(t, map[string]string{"ws/src/a.go": "package a\n"})
	r.git(t, "add", "-A")
	r.git(t, "commit", "-qm", "first")
	os.WriteFile(r.ws+"/.env", []byte("TOKEN="+secretMark+"\n"), 0o644)
	r.git(t, "add", ".env")
	env := strings.Fields(r.git(t, "ls-files", "-s", ".env"))[1]
	src := strings.Fields(r.git(t, "ls-files", "-s", "src/a.go"))[1]
	holds(t, r, nil, []leakCase{
		{"git cat-file -p " + env, true},
		{"git cat-file blob " + env[:10], true},
		{"git show " + env, true},
		{"git cat-file -p $(git ls-files -s .env | cut -d' ' -f2)", true},
		{"git cat-file -p " + src, false},
		{"git show HEAD --stat", false},
	})
}
