//go:build linux

package gate

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Issue 10, a second attacker's review after the fixes of the first
// (cacheattack_test.go): core.hooksPath as git really reads it (values,
// paths and includes the gate read otherwise), the ways a command line
// itself gives git configuration, and /proc paths that reach another
// process's open files.

// gitEnv is the environment real git runs with in these tests: the tree's
// home folder, no system configuration, an author.
func gitEnv(tr *realTree) []string {
	return append(os.Environ(), "HOME="+tr.home, "GIT_CONFIG_NOSYSTEM=1", "XDG_CONFIG_HOME=", "GIT_AUTHOR_NAME=a",
		"GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
}

// hookRepo makes tr.ws a real repository whose .git/config includes the
// tracked file tools/git.cfg (the common set-up the agent can edit), and
// writes files (relative to tr.root).
func hookRepo(t *testing.T, tr *realTree, files map[string]string) string {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	init := exec.Command(git, "init", "-q", tr.ws)
	init.Env = gitEnv(tr)
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	tr.files(t, map[string]string{"ws/.git/config": "[core]\n\tbare = false\n[include]\n\tpath = ../tools/git.cfg\n",
		"ws/tools/git.cfg": "[pull]\n\trebase = true\n"})
	tr.files(t, files)
	return git
}

// executableHook writes an executable pre-commit hook in dir (absolute)
// that leaves the mark file ran.
func executableHook(t *testing.T, dir, ran string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/pre-commit", []byte("#!/bin/sh\ntouch '"+ran+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
}

// gitRunsHook reports whether real git commit, run in tr.ws, ran the hook
// that leaves ran.
func gitRunsHook(t *testing.T, tr *realTree, git, ran string, args ...string) bool {
	t.Helper()
	os.Remove(ran)
	cmd := exec.Command(git, append(args, "commit", "-q", "--allow-empty", "-m", "x")...)
	cmd.Dir = tr.ws
	cmd.Env = gitEnv(tr)
	out, err := cmd.CombinedOutput()
	if _, serr := os.Stat(ran); serr == nil {
		return true
	}
	t.Logf("git commit: %v %s", err, out)
	return false
}

// TestHooksPathAsGitReadsIt: each case sets core.hooksPath (in the
// included tools/git.cfg, which the agent may edit) in a way real git
// reads as a folder holding the agent's executable pre-commit hook; git
// commit then runs it outside the sandbox, and the gate must not allow it.
func TestHooksPathAsGitReadsIt(t *testing.T) {
	t.Parallel()
	u, err := user.Current()
	if err != nil {
		t.Skip(err)
	}
	pad := strings.Repeat("x", maxConfigFile)
	cases := []struct {
		name  string
		files func(tr *realTree) map[string]string
		hooks string // relative to tr.ws
		setup func(t *testing.T, tr *realTree)
	}{
		{name: "a comment after the value", hooks: "h",
			files: func(*realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "[core]\n\thooksPath = h ; the project's hooks\n"}
			}},
		{name: "a quoted part inside the value", hooks: "hx",
			files: func(*realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "[core]\n\thooksPath = h\"x\"\n"}
			}},
		{name: "a byte order mark before the section", hooks: "h",
			files: func(*realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "\xef\xbb\xbf[core]\n\thooksPath = h\n"}
			}},
		{name: "an included file larger than maxConfigFile", hooks: "h",
			files: func(*realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "[core]\n\thooksPath = h\n#" + pad + "\n"}
			}},
		{name: "an include beyond maxConfigIncludes files", hooks: "h",
			files: func(*realTree) map[string]string {
				f := map[string]string{"ws/tools/e2.cfg": "[include]\n\tpath = e3.cfg\n", "ws/tools/e3.cfg": "[core]\n\thooksPath = h\n"}
				var cfg strings.Builder
				for i := range maxConfigIncludes - 1 {
					cfg.WriteString("[include]\n\tpath = d" + strconv.Itoa(i) + ".cfg\n")
					f["ws/tools/d"+strconv.Itoa(i)+".cfg"] = "[pull]\n\trebase = true\n"
				}
				cfg.WriteString("[include]\n\tpath = e2.cfg\n")
				f["ws/tools/git.cfg"] = cfg.String()
				return f
			}},
		{name: "a link then .. in the value", hooks: "sub/h",
			files: func(*realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "[core]\n\thooksPath = link/../h\n", "ws/sub/deeper/a.txt": "a\n"}
			},
			setup: func(t *testing.T, tr *realTree) { tr.link(t, "sub/deeper", "link") }},
		{name: "a link then .. in an include's path", hooks: "h",
			files: func(*realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "[include]\n\tpath = link/../evil.cfg\n", "ws/sub/deeper/a.txt": "a\n",
					"ws/sub/evil.cfg": "[core]\n\thooksPath = h\n"}
			},
			setup: func(t *testing.T, tr *realTree) { tr.link(t, "../sub/deeper", "tools/link") }},
		{name: "~user/", hooks: "h",
			files: func(tr *realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "[core]\n\thooksPath = ~" + u.Username + "/" + upTo(u.HomeDir) + tr.ws[1:] + "/h\n"}
			}},
		{name: "~user/ in an include's path", hooks: "h",
			files: func(tr *realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "[include]\n\tpath = ~" + u.Username + "/" + upTo(u.HomeDir) + tr.ws[1:] + "/sub/evil.cfg\n",
					"ws/sub/evil.cfg": "[core]\n\thooksPath = h\n"}
			}},
		{name: "a trailing slash", hooks: "h",
			files: func(*realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "[core]\n\thooksPath = h/\n"}
			}},
		{name: "%(prefix)/", hooks: "h",
			files: func(tr *realTree) map[string]string {
				return map[string]string{"ws/tools/git.cfg": "[core]\n\thooksPath = %(prefix)/" + upTo(gitPrefix(t)) + tr.ws[1:] + "/h\n"}
			}},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			tr := newRealTree(t)
			git := hookRepo(t, tr, tc.files(tr))
			if tc.setup != nil {
				tc.setup(t, tr)
			}
			ran := tr.root + "/hook-ran"
			executableHook(t, tr.ws+"/"+tc.hooks, ran)
			if !gitRunsHook(t, tr, git, ran) {
				t.Skipf("git does not run %s/pre-commit here", tc.hooks)
			}
			r := tr.gate(t, Options{}).Decide(t.Context(), "git commit -m x", Input{})
			if r.Verdict == VerdictAllow {
				t.Errorf("git commit runs %s/pre-commit (git reads core.hooksPath so) outside the sandbox: allow (%q)", tc.hooks, r.Reasons)
			}
		})
	}
}

// TestHooksPathFromTheCommandLine: a command line that gives git its
// configuration itself (an option, the environment, another repository)
// so that git commit runs the agent's executable hook (h/pre-commit, or
// tools/other's hooks folder).
func TestHooksPathFromTheCommandLine(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	git := hookRepo(t, tr, map[string]string{"ws/tools/g.cfg": "[core]\n\thooksPath = h\n",
		"ws/tools/git/config": "[core]\n\thooksPath = h\n"})
	ran := tr.root + "/hook-ran"
	executableHook(t, tr.ws+"/h", ran)
	other := exec.Command(git, "init", "-q", tr.ws+"/tools/other")
	other.Env = gitEnv(tr)
	if out, err := other.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	executableHook(t, tr.ws+"/tools/other/.git/hooks", ran)
	if gitRunsHook(t, tr, git, ran) {
		t.Fatalf("git commit ran the hook with no configuration pointing at it")
	}
	if !gitRunsHook(t, tr, git, ran, "-c", "core.hooksPath=h") {
		t.Fatalf("git -c core.hooksPath=h commit did not run h/pre-commit")
	}
	for _, c := range []string{
		"git -c core.hooksPath=h commit -m x",
		"git -ccore.hooksPath=h commit -m x",
		"git -c core.hookspath=h commit -m x",
		"git -c CORE.HOOKSPATH=h commit -m x",
		"GIT_CONFIG_GLOBAL=tools/g.cfg git commit -m x",
		"env GIT_CONFIG_GLOBAL=tools/g.cfg git commit -m x",
		"export GIT_CONFIG_GLOBAL=tools/g.cfg; git commit -m x",
		"XDG_CONFIG_HOME=$WS/tools git commit -m x",
		"HOME=$WS/tools git commit -m x",
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=h git commit -m x",
		"HP=h git --config-env=core.hooksPath=HP commit -m x",
		"git -C tools/other commit -m x",
		"cd tools/other && git commit -m x",
		"git --git-dir=tools/other/.git commit -m x",
		"GIT_DIR=tools/other/.git git commit -m x",
		"git --git-dir tools/other/.git --work-tree . commit -m x",
	} {
		c = tr.expand(c)
		r := tr.gate(t, Options{}).Decide(t.Context(), c, Input{})
		if r.Verdict != VerdictAllow {
			continue
		}
		// Allowed: run it as the agent would, and see whether the hook ran.
		os.Remove(ran)
		sh := exec.Command("sh", "-c", c)
		sh.Dir, sh.Env = tr.ws, gitEnv(tr)
		out, _ := sh.CombinedOutput()
		if _, err := os.Stat(ran); err == nil {
			t.Errorf("%q runs the agent's hook outside the sandbox: allow (%q)", c, r.Reasons)
		} else {
			t.Logf("%q: allow, and the hook did not run (%s)", c, out)
		}
	}
}

// upTo is the "../" that lead from the folder p up to /.
func upTo(p string) string {
	return strings.Repeat("../", strings.Count(strings.Trim(p, "/"), "/")+1)
}

// gitPrefix is the folder real git puts in place of %(prefix) in a path.
func gitPrefix(t *testing.T) string {
	out, err := exec.Command("git", "-c", "x.y=%(prefix)/", "config", "--type=path", "x.y").Output()
	if err != nil {
		t.Skipf("git does not expand %%(prefix): %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestHookChainThroughAnotherGitDir: every step decided by a new gate
// for a command run outside the sandbox (the agent hook's case) and run
// when allowed: a bare repository in the work tree (its hooks folder is
// not a .git folder, so writing a hook there is an ordinary write), then
// git commit pointed at it by --git-dir, or by -C into a folder whose
// .git file names it. git runs the agent's hook.
func TestHookChainThroughAnotherGitDir(t *testing.T) {
	t.Parallel()
	for _, steps := range [][]string{
		{"git init -q --bare tools/b.git", "$HOOK tools/b.git/hooks", "git --git-dir=tools/b.git --work-tree=. commit -q --allow-empty -m x"},
		{"git init -q --bare tools/b.git", "$HOOK tools/b.git/hooks",
			"mkdir -p tools/o && printf 'gitdir: ../b.git\\n' > tools/o/.git && git -C tools/o commit -q --allow-empty -m x"},
		// git init --separate-git-dir: a work tree whose .git file names
		// a repository outside any .git folder, whose hooks are ordinary files.
		{"git init -q --separate-git-dir=tools/b.git tools/o", "$HOOK tools/b.git/hooks", "git -C tools/o commit -q --allow-empty -m x"},
		{"git init -q --separate-git-dir=tools/b.git tools/o", "$HOOK tools/b.git/hooks", "cd tools/o && git commit -q --allow-empty -m x"},
		{"git init -q --bare tools/b.git", "$HOOK tools/b.git/hooks", "mkdir -p tools/o && ln -s ../b.git tools/o/.git",
			"git -C tools/o commit -q --allow-empty -m x"},
		// git init copies a template's hooks into the new repository.
		{"$HOOK tools/tpl/hooks", "git init -q --template=tools/tpl tools/other", "git -C tools/other commit -q --allow-empty -m x"},
		{"$HOOK tools/tpl/hooks", "git init -q --template=tools/tpl tools/other", "cd tools/other && git commit -q --allow-empty -m x"},
		// and into an existing one, where a hook of that name is missing.
		{"$HOOK tools/tpl/hooks", "git init -q --template=tools/tpl", "git commit -q --allow-empty -m x"},
		{"$HOOK tools/tpl/hooks", "git init -q --template=tools/tpl .", "git commit -q --allow-empty -m x"},
		{"git init -q --bare tools/b.git", "$HOOK tools/b.git/hooks", "git clone -q --template=tools/b.git tools/b.git tools/c",
			"git -C tools/c commit -q --allow-empty -m x"},
	} {
		tr := newRealTree(t)
		hookRepo(t, tr, nil)
		ran := tr.root + "/hook-ran"
		for i, c := range steps {
			if d, ok := strings.CutPrefix(c, "$HOOK "); ok {
				steps[i] = "mkdir -p " + d + " && printf '#!/bin/sh\\ntouch " + ran + "\\n' > " + d + "/pre-commit && chmod +x " + d + "/pre-commit"
			}
		}
		last := steps[len(steps)-1]
		held := false
		for _, c := range steps {
			r := tr.gate(t, Options{}).Decide(t.Context(), c, Input{})
			if r.Verdict != VerdictAllow {
				t.Logf("%q: %s %q: the chain stops", c, r.Verdict, r.Reasons)
				held = true
				break
			}
			sh := exec.Command("sh", "-c", c)
			sh.Dir, sh.Env = tr.ws, gitEnv(tr)
			if out, err := sh.CombinedOutput(); err != nil {
				t.Logf("%q: %v %s", c, err, out)
			}
		}
		if _, err := os.Stat(ran); !held && err == nil {
			t.Errorf("each step allowed, and the last (%q) ran the agent's hook outside the sandbox", last)
		}
	}
}

// inNamespace runs script in a user and mount namespace of its own
// (unshare -Urm), which then sleeps, and returns the path under which
// other processes of the user reach its root: /proc/PID/root.
func inNamespace(t *testing.T, script string) string {
	t.Helper()
	sh := exec.Command("unshare", "-Urm", "sh", "-c", script+" && echo ok && exec sleep 600")
	out, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Skipf("unshare: %v", err)
	}
	t.Cleanup(func() { sh.Process.Kill(); sh.Wait() })
	buf := make([]byte, 3)
	if n, _ := out.Read(buf); string(buf[:n]) != "ok\n" {
		t.Skipf("%s in a user namespace: %q", script, buf[:n])
	}
	return "/proc/" + strconv.Itoa(sh.Process.Pid) + "/root"
}

// TestCacheAttackOverlayLowerLayer: overlayfs stamps a merged folder with
// its upper folder's times, so a name added to a lower layer (an ordinary
// folder the agent writes to directly) changes the merged listing and not
// its stat(2). A user may mount an overlay in a user and mount namespace
// of their own (unshare -Urm, Linux 5.11+), and every process of the user
// reaches it through /proc/PID/root of a process in that namespace. Held:
// the gate asks for a wildcard under /proc, and lists the folder of its
// own namespace (see TestProcRootOfAnotherMountNamespace), not the overlay.
func TestCacheAttackOverlayLowerLayer(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	for _, d := range []string{"ov/lower", "ov/upper", "ov/work", "ov/merged"} {
		if err := os.MkdirAll(tr.root+"/"+d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	tr.files(t, map[string]string{"ov/lower/a.txt": "a\n"})
	o := tr.root + "/ov"
	merged := inNamespace(t, "mount -t overlay overlay -o lowerdir="+o+"/lower,upperdir="+o+"/upper,workdir="+o+"/work "+o+"/merged") + o + "/merged"
	time.Sleep(settleTime + 200*time.Millisecond)
	long := tr.g
	cmds := []string{"cat " + merged + "/*", "grep -r TODO " + merged, "cat " + o + "/*/*"}
	warm(t, tr, long, cmds...)
	var before, after unix.Stat_t
	unix.Stat(merged, &before)
	tr.files(t, map[string]string{"ov/lower/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n"})
	unix.Stat(merged, &after)
	names, _ := os.ReadDir(merged)
	t.Logf("stat of the merged folder unchanged: %v; it lists %d names", dirKeyOf(&before) == dirKeyOf(&after), len(names))
	for _, c := range cmds {
		agree(t, tr, long, c, "id_rsa added to the overlay's lower folder")
	}
}

// TestProcRootOfAnotherMountNamespace: /proc/PID/root/X of a process in
// another mount namespace is X as that namespace sees it, which a user
// namespace of the user's own may have bound anywhere: here the folder of
// gh's token bound over an empty folder. The gate resolved the path in
// its own namespace (an empty folder) and judged what was not there; it
// now takes another process's root (and working directory) as unknown.
func TestProcRootOfAnotherMountNamespace(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	tr.files(t, map[string]string{"home/.config/gh/hosts.yml": "github.com:\n    oauth_token: gho_0123456789abcdefghijklmnopqrstuvwxyz\n",
		"outside/empty/a.txt": "a\n"})
	root := inNamespace(t, "mount --bind "+tr.home+"/.config/gh "+tr.root+"/outside/empty")
	p := root + tr.root + "/outside/empty"
	if data, err := os.ReadFile(p + "/hosts.yml"); err != nil || !strings.Contains(string(data), "oauth_token") {
		t.Fatalf("reading %s/hosts.yml: %q %v", p, data, err)
	}
	for _, c := range []string{"cat " + p + "/hosts.yml", "grep -r oauth " + p, "cp -r " + p + " $TMPD/x", "tar -cf $TMPD/x.tar -C " + p + " ."} {
		c = tr.expand(c)
		for _, sb := range []bool{true, false} {
			if r := tr.gate(t, Options{}).Decide(t.Context(), c, Input{Sandboxed: sb}); r.Verdict == VerdictAllow {
				t.Errorf("%q (sandboxed %v) reads ~/.config/gh/hosts.yml: allow (%q)", c, sb, r.Reasons)
			}
		}
	}
	setup := "unshare -Urm sh -c 'mount --bind $HOMEDIR/.config/gh $OUT/empty && exec sleep 600' &"
	for _, sb := range []bool{true, false} {
		r := tr.gate(t, Options{}).Decide(t.Context(), tr.expand(setup), Input{Sandboxed: sb})
		t.Logf("the set-up %q (sandboxed %v): %s %q", setup, sb, r.Verdict, r.Reasons)
	}
}

// TestOtherProcessOpenSecretSpellings: the paths that reach another
// process's open file (/proc/PID/fd/N) other than as written: through
// links and .. that the kernel follows before climbing, redirections, a
// link put in the work tree first, and another process's cwd.
func TestOtherProcessOpenSecretSpellings(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	tr.files(t, map[string]string{"home/.ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n",
		"home/.config/gh/hosts.yml": "github.com:\n    oauth_token: gho_0123456789abcdefghijklmnopqrstuvwxyz\n"})
	pid, run := shell(t)
	run("exec 5<" + tr.home + "/.ssh/id_rsa; cd " + tr.home + "/.config/gh")
	p := strconv.Itoa(pid)
	self := strconv.Itoa(os.Getpid())
	// Many processes of a user (systemd --user, a session's daemons) run
	// in /: /proc/PID/cwd then leads anywhere by an absolute path.
	rootShell, runInRoot := shell(t)
	runInRoot("cd /")
	rootPid := strconv.Itoa(rootShell)
	cases := []string{
		"/proc/" + p + "/fd/5",
		"/proc//" + p + "/fd/5",
		"/proc/./" + p + "/./fd/5",
		"/proc/" + p + "/fd//5",
		"/proc/" + p + "/task/" + p + "/fd/5",
		"/proc/" + p + "/task/" + p + "/../../fd/5",
		"/proc/self/root/proc/" + p + "/fd/5",
		"/proc/" + p + "/root/proc/" + p + "/fd/5",
		"/dev/fd/../../" + p + "/fd/5",
		"/proc/self/fd/../../" + p + "/fd/5",
		"/proc/thread-self/../../../" + p + "/fd/5",
		"/proc/self/../" + p + "/fd/5",
		"/proc/" + self + "/../" + p + "/fd/5",
		"/proc/" + p + "/cwd/hosts.yml",
		"/proc/" + p + "/cwd/../gh/hosts.yml",
		"/proc/" + p + "/root" + tr.home + "/.config/gh/hosts.yml",
		"/proc/" + rootPid + "/cwd" + tr.home + "/.config/gh/hosts.yml",
	}
	for _, f := range cases {
		if data, err := os.ReadFile(f); err != nil || !strings.Contains(string(data), "PRIVATE KEY") && !strings.Contains(string(data), "oauth") {
			t.Logf("%s does not read the secret here (%v): skipped", f, err)
			continue
		}
		for _, c := range []string{"cat " + f, "cat < " + f, "exec 3<" + f + "; cat <&3", "head -c 100 " + f} {
			if r := tr.gate(t, Options{}).Decide(t.Context(), c, Input{Sandboxed: true}); r.Verdict == VerdictAllow {
				t.Errorf("%q reads a secret another process holds open: allow (%q)", c, r.Reasons)
			}
		}
	}
	// A link in the work tree, made first, read next.
	link := "ln -s /proc/" + p + "/fd/5 notes.txt"
	r := tr.gate(t, Options{}).Decide(t.Context(), link, Input{Sandboxed: true})
	t.Logf("%q: %s %q", link, r.Verdict, r.Reasons)
	tr.link(t, "/proc/"+p+"/fd/5", "notes.txt")
	tr.link(t, "/proc/"+p+"/cwd", "cfg")
	for _, c := range []string{"cat notes.txt", "cat cfg/hosts.yml", "grep -r oauth cfg/", "cat cfg/*"} {
		if r := tr.gate(t, Options{}).Decide(t.Context(), c, Input{Sandboxed: true}); r.Verdict == VerdictAllow {
			t.Errorf("%q (after %s) reads a secret: allow (%q)", c, link, r.Reasons)
		}
	}
}

// TestCacheAttackGlobalHooksPathFromTheWorkTree: a gate read the user's
// git configuration once, taking those files as lying outside the work
// tree. A dotfiles repository is the common case where they do not:
// ~/.gitconfig is a link into it (GNU stow and the like), or includes a
// file of it. The agent, working in that repository, sets core.hooksPath
// there with ordinary writes; a gate that decided a line before still
// allowed git commit, which runs the agent's hook. Such files are now read
// at every line (userGitConfig).
func TestCacheAttackGlobalHooksPathFromTheWorkTree(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"link", "include"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			tr := newRealTree(t)
			git := hookRepo(t, tr, map[string]string{"ws/gitconfig": "[user]\n\tname = a\n"})
			if how == "link" {
				if err := os.Symlink(tr.ws+"/gitconfig", tr.home+"/.gitconfig"); err != nil {
					t.Fatal(err)
				}
			} else {
				tr.files(t, map[string]string{"home/.gitconfig": "[include]\n\tpath = " + tr.ws + "/gitconfig\n"})
			}
			ran := tr.root + "/hook-ran"
			long := tr.g
			for range 2 {
				if r := long.Decide(t.Context(), "git commit -m x", Input{}); r.Verdict != VerdictAllow {
					t.Fatalf("git commit with no hook: %s %q", r.Verdict, r.Reasons)
				}
			}
			steps := []string{
				"mkdir -p h && printf '#!/bin/sh\\ntouch " + ran + "\\n' > h/pre-commit && chmod +x h/pre-commit",
				"printf '[core]\\n\\thooksPath = " + tr.ws + "/h\\n' >> gitconfig",
			}
			for _, c := range steps {
				if r := long.Decide(t.Context(), c, Input{Sandboxed: true}); r.Verdict != VerdictAllow {
					t.Skipf("%q: %s %q: the attack needs allow", c, r.Verdict, r.Reasons)
				}
				sh := exec.Command("sh", "-c", c)
				sh.Dir, sh.Env = tr.ws, gitEnv(tr)
				if out, err := sh.CombinedOutput(); err != nil {
					t.Fatalf("%q: %v %s", c, err, out)
				}
			}
			if !gitRunsHook(t, tr, git, ran) {
				t.Fatalf("git commit did not run h/pre-commit")
			}
			agreeIn(t, tr, long, "git commit -m x", "core.hooksPath set in the work tree's gitconfig, which ~/.gitconfig reads ("+how+")", Input{})
			if r := long.Decide(t.Context(), "git commit -m x", Input{}); r.Verdict == VerdictAllow {
				t.Errorf("the long-lived gate allows git commit, which runs the agent's hook: %q", r.Reasons)
			}
		})
	}
}

// TestCacheAttackGlobalExcludesFromTheWorkTree: the same for
// core.excludesFile, whose path a gate reads once: ~/.gitconfig links to
// the dotfiles repository's gitconfig, which names an ignore file that
// ignores .env; the agent points core.excludesFile elsewhere, and git add
// -A then stages .env while the long-lived gate still takes it as ignored.
func TestCacheAttackGlobalExcludesFromTheWorkTree(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	git := hookRepo(t, tr, map[string]string{"ws/gitconfig": "[core]\n\texcludesFile = ~/.gitignore_global\n",
		"home/.gitignore_global": ".env\n", "ws/.env": "TOKEN=x\n", "ws/empty-ignore": "# none\n",
		"ws/.git/config": "[core]\n\tbare = false\n"}) // no include, which makes the gate take nothing as ignored
	if err := os.Symlink(tr.ws+"/gitconfig", tr.home+"/.gitconfig"); err != nil {
		t.Fatal(err)
	}
	long := tr.g
	cmd := "git add -A"
	for range 2 {
		if r := long.Decide(t.Context(), cmd, Input{Sandboxed: true}); r.Verdict != VerdictAllow {
			t.Fatalf("git add -A with .env ignored: %s %q", r.Verdict, r.Reasons)
		}
	}
	edit := "printf '[core]\\n\\texcludesFile = " + tr.ws + "/empty-ignore\\n' > gitconfig"
	if r := long.Decide(t.Context(), edit, Input{Sandboxed: true}); r.Verdict != VerdictAllow {
		t.Skipf("%q: %s %q: the attack needs allow", edit, r.Verdict, r.Reasons)
	}
	tr.files(t, map[string]string{"ws/gitconfig": "[core]\n\texcludesFile = " + tr.ws + "/empty-ignore\n"})
	st := exec.Command(git, "add", "-A", "--dry-run")
	st.Dir, st.Env = tr.ws, gitEnv(tr)
	out, err := st.CombinedOutput()
	if !strings.Contains(string(out), ".env") {
		t.Fatalf("git add -A does not stage .env: %v %s", err, out)
	}
	agree(t, tr, long, cmd, "core.excludesFile pointed away from the file that ignores .env")
}

// TestHooksPathFromANamedPipe: an included configuration file that is a
// named pipe. The gate reads only regular files (a pipe would block it);
// git opens the pipe and reads what a writer gives it, here a process
// the agent left running that writes core.hooksPath = h at every open.
// A configuration the gate cannot read whole now means any hook may run.
func TestHooksPathFromANamedPipe(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	git := hookRepo(t, tr, nil)
	if err := os.Remove(tr.ws + "/tools/git.cfg"); err != nil {
		t.Fatal(err)
	}
	fifo := tr.ws + "/tools/git.cfg"
	for _, c := range []string{"mkfifo tools/git.cfg",
		"(while :; do printf '[core]\\n\\thooksPath = h\\n' > tools/git.cfg; sleep 0.1; done) >/dev/null 2>&1 &",
		"nohup sh -c 'while :; do printf \"[core]\\n\\thooksPath = h\\n\" > tools/git.cfg; sleep 0.1; done' >/dev/null 2>&1 &"} {
		r := tr.gate(t, Options{}).Decide(t.Context(), c, Input{Sandboxed: true})
		t.Logf("%q (sandboxed): %s %q", c, r.Verdict, r.Reasons)
	}
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() {
		close(stop)
		// Unblock a writer waiting for a reader, then wait for it.
		if f, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
	})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until git opens it
			if err != nil {
				return
			}
			f.WriteString("[core]\n\thooksPath = h\n")
			f.Close()
		}
	}()
	ran := tr.root + "/hook-ran"
	executableHook(t, tr.ws+"/h", ran)
	if !gitRunsHook(t, tr, git, ran) {
		t.Skip("git did not read core.hooksPath from the pipe")
	}
	if r := tr.gate(t, Options{}).Decide(t.Context(), "git commit -m x", Input{}); r.Verdict == VerdictAllow {
		t.Errorf("git commit reads core.hooksPath = h from the pipe tools/git.cfg and runs h/pre-commit: allow (%q)", r.Reasons)
	}
}

// TestClockNotSettableInAUserNamespace: the kept listings rest on no
// process of the user being able to stamp a folder with a time it has
// held before, which only setting the system's clock would do. A user
// namespace of the user's own gives CAP_SYS_TIME there, which the
// realtime clock ignores (time namespaces offset only the monotonic and
// boot clocks); a user who is root in the first namespace (containers,
// as here) can set it, and the gate must then not allow it.
func TestClockNotSettableInAUserNamespace(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	if out, err := exec.Command("unshare", "-Ur", "date", "-s", "@1000000000").CombinedOutput(); err == nil {
		t.Errorf("date -s in a user namespace set the realtime clock: %s", out)
	}
	tr := newRealTree(t)
	for _, c := range []string{"date -s @1000000000", "unshare -Ur date -s @1000000000", "timedatectl set-time '2020-01-01'",
		"hwclock --hctosys", "python3 -c 'import time; time.clock_settime(time.CLOCK_REALTIME, 1e9)'"} {
		for _, sb := range []bool{true, false} {
			if r := tr.gate(t, Options{}).Decide(t.Context(), c, Input{Sandboxed: sb}); r.Verdict == VerdictAllow {
				t.Errorf("%q (sandboxed %v) sets the clock: allow (%q)", c, sb, r.Reasons)
			}
		}
	}
}

// TestHookFoundPastAnUnusableDotGit: git, looking for its repository,
// passes over a .git that is neither a folder nor a regular file (a named
// pipe, a dangling link) and goes on to the parent folders; the gate
// stopped at the first .git it found and, finding no repository there,
// no hook either (it now goes on as git does). The repository here has the user's own pre-commit hook,
// which runs code the agent may have written (a linter's configuration,
// the tests), so git commit outside the sandbox is not allowed in it.
func TestHookFoundPastAnUnusableDotGit(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	git := hookRepo(t, tr, map[string]string{"ws/sub/a.txt": "a\n", "ws/sub2/a.txt": "a\n"})
	ran := tr.root + "/hook-ran"
	executableHook(t, tr.ws+"/.git/hooks", ran)
	if r := tr.gate(t, Options{}).Decide(t.Context(), "git commit -m x", Input{}); r.Verdict == VerdictAllow {
		t.Fatalf("git commit with the repository's pre-commit hook: allow (%q)", r.Reasons)
	}
	tr.files(t, map[string]string{"ws/mk.py": "import os\nos.symlink('nowhere', 'sub/.git')\n", "ws/mk.sh": "ln -s nowhere sub/.git\n"})
	for _, c := range []string{"ln -s nowhere sub/.git", "mkfifo sub2/.git", "python3 mk.py", "sh mk.sh", "tar -xf a.tar"} {
		r := tr.gate(t, Options{}).Decide(t.Context(), c, Input{Sandboxed: true})
		t.Logf("%q (sandboxed): %s %q", c, r.Verdict, r.Reasons)
	}
	if err := os.Symlink("nowhere", tr.ws+"/sub/.git"); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(tr.ws+"/sub2/.git", 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"sub", "sub2"} {
		if !gitRunsHook(t, tr, git, ran, "-C", sub) {
			t.Errorf("git -C %s commit did not run the parent repository's hook", sub)
			continue
		}
		for _, c := range []string{"cd " + sub + " && git commit -m x", "git -C " + sub + " commit -m x"} {
			if r := tr.gate(t, Options{}).Decide(t.Context(), c, Input{}); r.Verdict == VerdictAllow {
				t.Errorf("%q runs the repository's pre-commit hook (git passes over %s/.git): allow (%q)", c, sub, r.Reasons)
			}
		}
	}
}
