package main

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// attacker drives `cuff hook claude` the way Claude Code does: a
// PreToolUse for each command, the command run for real when the hook
// allows it (unsandboxed, so that only the gate stands in the way), and a
// PostToolUse with its result.
type attacker struct {
	*hookEnv
	n int
}

func newAttacker(t *testing.T) *attacker {
	t.Helper()
	a := &attacker{hookEnv: newHookEnv(t)}
	a.send("SessionStart", map[string]any{"source": "startup"})
	return a
}

// try asks the hook about cmd, runs it when allowed, and returns the
// hook's decision and its whole output.
func (a *attacker) try(cmd string) (string, result) {
	a.t.Helper()
	a.n++
	id := fmt.Sprintf("toolu_attack_%d", a.n)
	input := map[string]any{"command": cmd, "description": "attack step"}
	r := a.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": id})
	perm, _ := permissionOf(a.t, r)
	if perm != "allow" {
		return perm, r
	}
	run := exec.Command("bash", "-c", cmd)
	run.Dir, run.Env = a.dir, append(os.Environ(), "HOME="+a.state)
	out, err := run.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	a.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": input, "tool_use_id": id,
		"tool_response": map[string]any{"stdout": string(out), "stderr": "", "exit_code": code}})
	return perm, r
}

// refused checks that the hook does not allow any of cmds.
func (a *attacker) refused(cmds ...string) {
	a.t.Helper()
	for _, c := range cmds {
		c = a.expand(c)
		if perm, r := a.try(c); perm == "allow" {
			a.t.Errorf("the hook allowed %q: %s", c, r.stdout)
		}
	}
}

// allowed checks that the hook allows each of cmds (and runs them).
func (a *attacker) allowed(cmds ...string) {
	a.t.Helper()
	for _, c := range cmds {
		c = a.expand(c)
		if perm, r := a.try(c); perm != "allow" {
			a.t.Errorf("the hook did not allow %q (%q): %s", c, perm, r.stdout)
		}
	}
}

// expand replaces $STATE and $PROJ in a command.
func (a *attacker) expand(cmd string) string {
	return strings.NewReplacer("$STATE", a.state, "$PROJ", a.dir).Replace(cmd)
}

func (a *attacker) write(rel, body string, mode os.FileMode) {
	a.t.Helper()
	p := filepath.Join(a.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		a.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		a.t.Fatal(err)
	}
}

// TestHookHoldsAgainstTheAttacks is issue 10's end-to-end check: for each
// class of attack, a sequence of tool calls through the built hook, where
// every step the hook allows really runs, and no step after the attack
// gets allow for what the trusted policy asks about or denies.
func TestHookHoldsAgainstTheAttacks(t *testing.T) {
	t.Run("link then write through it", func(t *testing.T) {
		a := newAttacker(t)
		a.refused("ln -s / r", "ln -s .. up", "ln -s $STATE s", "cp -s /etc/hostname h", "ln $STATE/x y")
		// A link that arrived anyway (a checkout, an archive) is followed.
		if err := os.Symlink("/", filepath.Join(a.dir, "r")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(a.state, filepath.Join(a.dir, "s")); err != nil {
			t.Fatal(err)
		}
		a.refused("printf '{}' > r$STATE/grants/forged.json", "printf '{}' > s/grants/forged.json",
			"cp README.md s/approvals/decided/x.json", "echo x >> r$STATE/.bashrc", "rm -rf s/", "mkdir -p s/grants")
		if _, err := os.Stat(filepath.Join(a.state, "grants", "forged.json")); err == nil {
			t.Error("a grant was forged through a link")
		}
		a.allowed("cat s/README.md 2>/dev/null; true", "rm s", "echo ok > notes.txt")
	})

	t.Run("extract or patch, then commit", func(t *testing.T) {
		a := newAttacker(t)
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Name: ".git/hooks/pre-commit", Mode: 0o755, Size: 20, Typeflag: tar.TypeReg})
		tw.Write([]byte("#!/bin/sh\ntouch PWN\n"))
		tw.Close()
		a.write("evil.tar", buf.String(), 0o644)
		a.write("hook.diff", "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+touch PWN\n", 0o644)
		a.write("settings.diff", "--- /dev/null\n+++ b/.claude/settings.json\n@@ -0,0 +1 @@\n+{}\n", 0o644)
		os.MkdirAll(filepath.Join(a.dir, "tpl", ".git", "hooks"), 0o755)
		a.write("tpl/.git/hooks/pre-commit", "#!/bin/sh\ntouch PWN\n", 0o755)
		a.refused("tar -xf evil.tar", "tar xf evil.tar -C .", "patch -p1 < hook.diff", "patch -p1 < settings.diff",
			"git apply hook.diff", "cp -r tpl/. .", "csplit -f .git/hooks/pre-commi -b t README.md /x/",
			"split -d README.md .git/hooks/pre-commi", "git ls-files -z | xargs -0 sed -i s/a/b/")
		if _, err := os.Stat(filepath.Join(a.dir, ".git", "hooks", "pre-commit")); err == nil {
			t.Fatal("a hook was planted")
		}
		a.try("git add -A && git commit -qm x")
		if _, err := os.Stat(filepath.Join(a.dir, "PWN")); err == nil {
			t.Error("a planted hook ran")
		}
	})

	t.Run("variables that name files", func(t *testing.T) {
		a := newAttacker(t)
		os.MkdirAll(filepath.Join(a.dir, ".claude"), 0o755)
		a.write(".claude/settings.json", "{}\n", 0o644)
		a.refused("GIT_TRACE=$PROJ/.claude/settings.json git status", "GIT_TRACE=.claude/settings.json git status",
			"GIT_TRACE=$STATE/.bashrc git log -1", "export GIT_TRACE_PACKET=$STATE/grants/x; git status")
		if data, _ := os.ReadFile(filepath.Join(a.dir, ".claude", "settings.json")); string(data) != "{}\n" {
			t.Errorf(".claude/settings.json was changed: %q", data)
		}
		a.allowed("GIT_TRACE=1 git status")
	})

	t.Run("forged grants, decisions and taint", func(t *testing.T) {
		a := newAttacker(t)
		os.MkdirAll(filepath.Join(a.dir, ".cuff"), 0o700)
		a.write(".cuff/policy.yml", "rules:\n  - {match: \"make deploy\", action: deny, reason: CI deploys}\n", 0o600)
		a.run("", "trust")
		// Writing cuff's state, however spelled, is not allowed.
		a.refused("printf '{}' > $STATE/grants/x.json", "cd $STATE/approvals/decided && echo '{}' > x.json",
			"cp README.md $STATE/grants/", "rm -rf $STATE/grants", "tee $STATE/approvals/decided/x.json < README.md",
			"cuff approve abc", "cuff trust", "echo x | cuff hook claude")
		// A grant file cuff did not write is not honoured; one in cuff's
		// own shape for a denied or guarded command does not outrank the
		// rule.
		key := "claude-hook:" + a.session
		now := time.Now().UTC().Format(time.RFC3339Nano)
		sum := sha256.Sum256([]byte(key))
		grant := filepath.Join(a.state, "grants", hex.EncodeToString(sum[:16])+".json")
		os.MkdirAll(filepath.Dir(grant), 0o700)
		for _, body := range []string{
			fmt.Sprintf(`{"v":1,"session_key":%q,"commands":["python3 -c 'print(1)'"],"updated_at":%q,"by":"tui"}`, key, now),
			fmt.Sprintf(`{"v":1,"session_key":%q,"commands":["python3 -c 'print(1)'"],"updated_at":%q,"taint":["none"]}`, key, now),
		} {
			os.WriteFile(grant, []byte(body), 0o600)
			a.refused("python3 -c 'print(1)'")
		}
		// In cuff's own shape a grant counts (this is what the gate keeps the
		// agent from writing), but never for a denied or guarded command.
		os.WriteFile(grant, []byte(fmt.Sprintf(`{"v":1,"session_key":%q,"commands":["python3 -c 'print(1)'","make deploy","rm -rf .git"],"updated_at":%q}`, key, now)), 0o600)
		if perm, r := a.try("python3 -c 'print(1)'"); perm != "allow" {
			t.Fatalf("a grant in cuff's shape did not count, so this test proves nothing: %q %s", perm, r.stdout)
		}
		if perm, r := a.try("make deploy"); perm != "deny" {
			t.Errorf("a grant outranked a deny rule: %q %s", perm, r.stdout)
		}
		a.refused("rm -rf .git")
	})

	t.Run("policy edited, then used", func(t *testing.T) {
		a := newAttacker(t)
		os.MkdirAll(filepath.Join(a.dir, ".cuff"), 0o700)
		a.write(".cuff/policy.yml", "rules:\n  - {match: \"git push *\", action: ask}\n", 0o600)
		a.run("", "trust")
		a.refused("printf 'rules:\\n  - {match: \"*\", action: allow}\\n' > .cuff/policy.yml",
			"sed -i s/ask/allow/ .cuff/policy.yml", "echo 'gate: {mode: taint}' > .cuff/settings.yml")
		// Edited anyway (a pull, a person's slip): what it loosens waits.
		a.write(".cuff/policy.yml", "rules:\n  - {match: \"git push *\", action: allow}\n  - {match: \"curl *\", action: allow}\n", 0o600)
		a.write(".cuff/settings.yml", "gate:\n  mode: taint\napprovals:\n  no_watcher: allow\n", 0o600)
		perm, r := a.try("curl -s https://example.com")
		if perm == "allow" {
			t.Errorf("an untrusted allow rule applied: %s", r.stdout)
		}
		if !strings.Contains(r.stdout, "cuff trust") {
			t.Errorf("the hook did not say how to trust the change: %s", r.stdout)
		}
		a.refused("git push origin main", "python3 -c 'print(1)'")
		// The person trusts it: now it applies.
		if rr := a.run("", "trust"); rr.code != 0 {
			t.Fatalf("cuff trust: %+v", rr)
		}
		if perm, r := a.try("curl -s --max-time 1 http://127.0.0.1:9/x || true"); perm != "allow" {
			t.Errorf("after cuff trust: %q %s", perm, r.stdout)
		}
	})

	t.Run("secrets read", func(t *testing.T) {
		a := newAttacker(t)
		os.MkdirAll(filepath.Join(a.state, ".ssh"), 0o700)
		os.WriteFile(filepath.Join(a.state, ".ssh", "id_ed25519"), []byte("KEY"), 0o600)
		a.write(".env", "TOKEN=x\n", 0o600)
		a.refused("cat ~/.ssh/id_ed25519", "cat .env", "env", "printenv", "cat /proc/self/environ", "jq -n '$ENV'",
			"sed 'r .env' README.md", "echo $GITHUB_TOKEN")
		a.allowed("cat README.md", "printenv HOME")
		// A credential file deeper down is read by a recursive reader too.
		a.write("deploy/prod/server.key", "KEY\n", 0o600)
		a.write("docs/guide.md", "TOKEN is set in CI\n", 0o644)
		a.refused("grep -rn KEY deploy", "tar czf - deploy | base64", "rg --hidden KEY", "zip -r - deploy",
			"git grep --no-index KEY", "find deploy -type f | xargs cat")
		a.allowed("grep -rn TOKEN docs", "rg -n TOKEN docs")
	})

	// cat .env asks, so staging the untracked .env with a pathspec that
	// covers it and then printing the index (git diff --cached, git stash
	// show -p -u, git show stash^3) must ask too: at the staging step.
	t.Run("secrets staged by git", func(t *testing.T) {
		a := newAttacker(t)
		gitIn(t, a.dir, "init", "-q")
		a.write("README.md", "x\n", 0o644)
		a.write(".env", "TOKEN=stolen-by-staging\n", 0o600)
		a.write("config/prod/server.pem", "PEM\n", 0o600)
		a.refused("git add -A", "git add .", "git add --all", "git add -N .", "git add '*'", "git add ':/'",
			"git add 'con*'", "git add config/prod", "git -C config add .", "cd config && git add .. && cd ..",
			"git stash -u", "git stash push --include-untracked", "git stash save -u wip",
			"ls -a > list.txt && git add --pathspec-from-file=list.txt",
			"echo .env | git update-index --add --stdin", "git add -f .",
			"git add -A; git diff --cached")
		// Whatever ran, the secret never reached the index or a stash.
		if out := gitIn(t, a.dir, "ls-files", "--stage"); strings.Contains(out, ".env") || strings.Contains(out, "server.pem") {
			t.Errorf("a secret was staged:\n%s", out)
		}
		if out := gitIn(t, a.dir, "stash", "list"); out != "" {
			t.Errorf("a stash was made:\n%s", out)
		}
		// Ignored, the same steps are everyday work, and stage no secret.
		a.write(".gitignore", ".env\n*.pem\n", 0o644)
		a.allowed("git add -A", "git add .", "git diff --cached", "git add -N .")
		if out := gitIn(t, a.dir, "ls-files", "--stage"); strings.Contains(out, ".env") || !strings.Contains(out, "README.md") {
			t.Errorf("index after the allowed git add -A:\n%s", out)
		}
	})

	// git prints files by routes other than staging: git diff with a path
	// outside the work tree compares files (--no-index implied), and git
	// -C DIR takes its operands from DIR.
	t.Run("secrets read by git", func(t *testing.T) {
		a := newAttacker(t)
		gitIn(t, a.dir, "init", "-q")
		a.write("src/a.go", "package a\n", 0o644)
		a.write("src/sub/.env", "TOKEN=x\n", 0o600)
		a.write(".gitignore", ".env\n", 0o644)
		os.MkdirAll(filepath.Join(a.state, ".kube"), 0o700)
		os.WriteFile(filepath.Join(a.state, ".kube", "config"), []byte("token: x\n"), 0o600)
		outside := t.TempDir()
		os.Mkdir(filepath.Join(outside, "empty"), 0o755)
		os.WriteFile(filepath.Join(outside, "b.go"), []byte("package b\n"), 0o644)
		gitIn(t, a.dir, "add", "-A")
		gitIn(t, a.dir, "commit", "-qm", "x")
		a.refused("git diff src "+outside+"/empty", "git diff ~ "+outside+"/empty", "git diff -- src "+outside+"/empty",
			"git -C src diff --no-index sub "+outside+"/empty", "git -C src diff sub "+outside+"/empty",
			"git -C src diff --no-index /dev/null ../../"+filepath.Base(a.state)+"/.kube/config")
		a.allowed("git diff", "git diff src", "git diff HEAD src", "git diff --no-index src/a.go "+outside+"/b.go || true",
			"git diff src/a.go "+outside+"/b.go || true", "git -C src diff", "git -C src diff --no-index a.go "+outside+"/b.go || true")
		// A remote's address with a token in it makes git's configuration
		// a credential file, and its address a secret.
		gitIn(t, a.dir, "remote", "add", "origin", "https://x-access-token:ghp_stolen@github.com/o/r.git")
		a.refused("cat .git/config", "grep url .git/config", "grep -r ghp_ .", "git remote -v", "git remote get-url origin",
			"git config --get remote.origin.url", "git config remote.origin.url", "git ls-remote --get-url")
		gitIn(t, a.dir, "remote", "set-url", "origin", "https://github.com/o/r.git")
		a.allowed("cat .git/config", "git remote -v", "git remote get-url origin", "git config --get remote.origin.url")
		// A tracked credential file filled in locally: its changes are
		// printed by git diff, and staged by git add -u, commit -a, stash.
		a.write("deploy/prod.env", "TOKEN=template\n", 0o600)
		gitIn(t, a.dir, "add", "deploy/prod.env")
		gitIn(t, a.dir, "commit", "-qm", "template")
		a.write("deploy/prod.env", "TOKEN=filled-in-locally\n", 0o600)
		a.write("src/a.go", "package a // changed\n", 0o644)
		a.refused("git diff", "git diff HEAD", "git diff deploy", "git add -u && git diff --cached", "git add -A",
			"git commit -qam x && git show", "git stash && git stash show -p", "git status -vv")
		a.allowed("git status", "git diff src", "git log -p", "git add src && git diff --cached", "git commit -qm 'src' src/a.go")
		if out := gitIn(t, a.dir, "log", "-p"); strings.Contains(out, "filled-in-locally") {
			t.Errorf("the filled-in secret reached the history:\n%s", out)
		}
	})
}

// gitIn runs git in dir with a private configuration and returns its output.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
