package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
// which the gate allows.
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
		case !c.leaks && res.Verdict != VerdictAllow:
			t.Errorf("%q prints no secret, but the gate says %s: %v", line, res.Verdict, res.Reasons)
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
		// Everyday neighbours.
		{"git -C src diff", false},
		{"git -C src diff --no-index a.go ROOT/tmp/b.go", false},
		{"git -C docs diff --no-index old ROOT/tmp/empty", false},
		{"git -C src log --oneline -1", false},
	})
	for _, c := range []struct {
		cmd  string
		want Verdict
	}{
		{"git -C .claude archive --format=tar -o settings.json HEAD", VerdictAsk},
		{"git -C .claude format-patch -o hooks HEAD~0", VerdictAsk},
		{"git -C src archive --format=tar -o ../.claude/x.tar HEAD", VerdictAsk},
		{"git -C src archive --format=tar -o out.tar HEAD", VerdictNone},
		{"git -C docs format-patch -o patches -1 HEAD", VerdictNone},
	} {
		if res := r.g.Decide(t.Context(), c.cmd, Input{Sandboxed: true}); res.Verdict != c.want {
			t.Errorf("%q: %s, want %s: %v", c.cmd, res.Verdict, c.want, res.Reasons)
		}
	}
}
