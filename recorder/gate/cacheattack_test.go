//go:build linux

package gate

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Issue 10, an attacker's review of the gate's kept listings (and of the
// go.mod lines it kept at first, which a write through a mapping defeated,
// and /proc's listing, whose times never move): each test changes a
// settled tree in a way the agent could, and asks a gate that has decided
// lines before (and keeps what it read) and a new gate the same command;
// they must agree.

// agree fails when the long-lived gate and a new gate decide cmd apart.
func agree(t *testing.T, tr *realTree, long *Gate, cmd, after string) {
	t.Helper()
	cmd = tr.expand(cmd)
	fresh := tr.gate(t, Options{})
	if got, want := decideText(t, long, cmd), decideText(t, fresh, cmd); got != want {
		t.Errorf("after %s: %q\n  the long-lived gate: %s\n  a new gate:          %s", after, cmd, got, want)
	}
}

// warm has the gate decide cmd twice, so that from the second line on it
// keeps what it reads.
func warm(t *testing.T, tr *realTree, g *Gate, cmds ...string) {
	t.Helper()
	for range 2 {
		for _, c := range cmds {
			g.Decide(t.Context(), tr.expand(c), Input{Sandboxed: true})
		}
	}
}

// goModBody is a go.mod whose last line is padding of the same length as
// a toolchain line, so that the file can be rewritten in place through a
// mapping (which cannot change its size).
const (
	goModHead     = "module example.com/x\n\ngo 1.21\n"
	goModPad      = "// padding padding padd\n"
	goModToolLine = "toolchain go1.99.1-DATA\n"
)

// mmapGoModAttack writes go.mod in dir through a shared writable mapping,
// lets it settle, has a long-lived gate keep its lines, then writes a
// toolchain line through the same mapping. The first write through the
// mapping stamps the file (the write fault); later writes to the page
// while it stays dirty (ext4: until writeback, some 30 s) or for ever
// (tmpfs, which does not track writes through mappings) stamp nothing:
// the file's content changes and its stat(2) stays the same.
func mmapGoModAttack(t *testing.T, tr *realTree) {
	if len(goModPad) != len(goModToolLine) {
		t.Fatalf("padding %d bytes, toolchain line %d", len(goModPad), len(goModToolLine))
	}
	p := tr.ws + "/go.mod"
	if err := os.WriteFile(p, []byte(goModHead+goModPad), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, len(goModHead+goModPad), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	m[0] = 'm' // the write fault: stamps the file now
	time.Sleep(settleTime + 200*time.Millisecond)
	long := tr.g
	warm(t, tr, long, "go build ./...")
	var before, after unix.Stat_t
	if err := unix.Stat(p, &before); err != nil {
		t.Fatal(err)
	}
	copy(m[len(goModHead):], goModToolLine)
	if err := unix.Stat(p, &after); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "toolchain go1.99.1-DATA") {
		t.Fatalf("go.mod after the write through the mapping: %q", data)
	}
	t.Logf("stat unchanged by the write through the mapping: %v", dirKeyOf(&before) == dirKeyOf(&after))
	agree(t, tr, long, "go build ./...", "a toolchain line written into go.mod through a mapping")
}

// TestCacheAttackGoModMmapExt4: go.mod on the test's temporary folder
// (ext4 here) rewritten through a mapping while its page stays dirty.
func TestCacheAttackGoModMmapExt4(t *testing.T) {
	t.Parallel()
	mmapGoModAttack(t, newRealTree(t))
}

// TestCacheAttackGoModMmapTmpfs: the same on /dev/shm (tmpfs), where a
// write through a mapping never stamps the file.
func TestCacheAttackGoModMmapTmpfs(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm")
	}
	dir, err := os.MkdirTemp("/dev/shm", "cuff-gate-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	mmapGoModAttack(t, realTreeIn(t, dir))
}

// realTreeIn is newRealTree rooted at root instead of a t.TempDir.
func realTreeIn(t *testing.T, root string) *realTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	tr := &realTree{root: root, ws: root + "/ws", home: root + "/home", state: root + "/home/.local/state/cuff"}
	for _, d := range []string{tr.ws + "/src", tr.ws + "/.git/hooks", tr.state + "/grants", tr.home + "/.ssh", root + "/outside", root + "/tmp"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	tr.files(t, map[string]string{"ws/src/main.go": "package main\n", "ws/README.md": "x\n"})
	tr.g = tr.gate(t, Options{})
	return tr
}

// TestCacheAttackProcListing: /proc's change times are those of its
// mount and never move, while its listing (the processes) changes all the
// time. A gate that kept /proc's listing does not see a process started
// after it, so a wildcard that names only that process's memory matches
// nothing for the gate (which then judges the word as written: allowed)
// while the shell expands it to /proc/PID/mem.
func TestCacheAttackProcListing(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	long := tr.g
	warm(t, tr, long, "cat /proc/[0-9]*/status") // any line that lists /proc
	if _, ok := long.listings.m["/proc"]; ok {
		t.Errorf("the gate kept /proc's listing, whose times never move")
	}
	child := exec.Command("sleep", "120")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	pid := strconv.Itoa(child.Process.Pid)
	// /proc/1234[5]/mem names the new process's memory and nothing else.
	glob := "/proc/" + pid[:len(pid)-1] + "[" + pid[len(pid)-1:] + "]"
	for _, c := range []string{"cat " + glob + "/mem", "cat " + glob + "/envir[o]n"} {
		agree(t, tr, long, c, "a process started (pid "+pid+")")
	}
}

// TestCacheAttackProcFdListing: /proc/PID/fd's change times do not move
// when the process opens and closes files (its size is the count of open
// files): a file closed and another opened keeps its stat(2) the same and
// changes its names.
func TestCacheAttackProcFdListing(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	tr.files(t, map[string]string{"home/.ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n"})
	pid, run := shell(t)
	run("exec 4</dev/null")
	fd := "/proc/" + strconv.Itoa(pid) + "/fd"
	var st unix.Stat_t
	if err := unix.Stat(fd, &st); err != nil {
		t.Fatal(err)
	}
	time.Sleep(settleTime + 200*time.Millisecond)
	long := tr.g
	cmd := "cat " + fd + "/[0-9]"
	warm(t, tr, long, cmd)
	if _, ok := long.listings.m[fd]; !ok {
		t.Skipf("the gate did not keep %s's listing", fd)
	}
	run("exec 4<&- 5<" + tr.home + "/.ssh/id_rsa")
	var st2 unix.Stat_t
	if err := unix.Stat(fd, &st2); err != nil {
		t.Fatal(err)
	}
	t.Logf("stat of %s unchanged: %v", fd, dirKeyOf(&st) == dirKeyOf(&st2))
	agree(t, tr, long, cmd, "fd 4 closed and fd 5 opened on ~/.ssh/id_rsa")
}

// agreeIn is agree for a command run outside the sandbox (git's hooks).
func agreeIn(t *testing.T, tr *realTree, long *Gate, cmd, after string, in Input) {
	t.Helper()
	cmd = tr.expand(cmd)
	fresh := tr.gate(t, Options{})
	got := long.Decide(t.Context(), cmd, in)
	want := fresh.Decide(t.Context(), cmd, in)
	if g, w := fmt.Sprintf("%s %s %q", got.Verdict, got.Tier, got.Reasons), fmt.Sprintf("%s %s %q", want.Verdict, want.Tier, want.Reasons); g != w {
		t.Errorf("after %s: %q\n  the long-lived gate: %s\n  a new gate:          %s", after, cmd, g, w)
	}
}

// heldAttacks are changes that the kept listings' key does see: each
// changes a settled tree under root the way an agent could and compares a
// long-lived gate with a new one.
func heldAttacks(t *testing.T, tr *realTree) {
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n"
	tr.files(t, map[string]string{
		"ws/go.mod":   goModHead + goModPad,
		"ws/evil.mod": goModHead + goModToolLine,        // same size as go.mod
		"ws/x1/a.txt": "a\n", "ws/x2/.env": "TOKEN=x\n", // exchanged
		"ws/c/a.txt":  "a\n",                      // a .env added, then its times set back
		"ws/l1/a.txt": "a\n", "ws/l2/id_rsa": key, // ws/l retargeted from l1 to l2
		"ws/d/a.txt":       "a\n", // moved away, changed, moved back
		"ws/e/a.txt":       "a\n", // a hard link to ~/.ssh/id_rsa added
		"home/.ssh/id_rsa": key,
		"ws/.git/HEAD":     "ref: refs/heads/main\n", "ws/.git/config": "[core]\n",
		"hooksA/pre-commit.sample": "#!/bin/sh\n", "hooksB/pre-commit": "#!/bin/sh\n",
		"ws/m/a.txt": "a\n", // a file's content changed through a mapping: no listing changes
	})
	if err := os.Chmod(tr.root+"/hooksB/pre-commit", 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(tr.ws + "/.git/hooks"); err != nil {
		t.Fatal(err)
	}
	tr.link(t, tr.root+"/hooksA", "ws/.git/hooks")
	tr.link(t, "l1", "ws/l")
	big := map[string]string{}
	for i := range maxDirEntries + 3 {
		big["ws/big/f"+strconv.Itoa(i)] = ""
	}
	tr.files(t, big)
	old := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(tr.ws+"/evil.mod", old, old); err != nil {
		t.Fatal(err)
	}
	time.Sleep(settleTime + 200*time.Millisecond)
	// Folders changed a moment ago: never kept.
	tr.files(t, map[string]string{"ws/now/a.txt": "a\n"})

	long := tr.g
	cmds := []string{"go build ./...", "grep -r TODO x1", "grep -r TODO c", "grep -r TODO l/", "cat l/*", "grep -r TODO d",
		"cat e/*", "grep -r TODO big", "cat big/*", "grep -r TODO now", "cat m/*"}
	warm(t, tr, long, cmds...)
	long.Decide(t.Context(), "git commit -m x", Input{})
	long.Decide(t.Context(), "git commit -m x", Input{})
	if _, ok := long.listings.m[tr.ws+"/x1"]; !ok {
		t.Fatalf("the gate kept no listing of x1")
	}
	all := func(after string) {
		t.Helper()
		for _, c := range cmds {
			agree(t, tr, long, c, after)
		}
		agreeIn(t, tr, long, "git commit -m x", after, Input{})
	}
	all("nothing")

	// go.mod replaced, by rename, with a file of the same size whose
	// times were set two days back.
	var was, moved, now unix.Stat_t
	unix.Stat(tr.ws+"/go.mod", &was)
	unix.Stat(tr.ws+"/evil.mod", &moved)
	if err := os.Rename(tr.ws+"/evil.mod", tr.ws+"/go.mod"); err != nil {
		t.Fatal(err)
	}
	unix.Stat(tr.ws+"/go.mod", &now)
	t.Logf("go.mod replaced by rename: ino %d→%d; the moved file's ctime set by the rename: %v", was.Ino, now.Ino, moved.Ctim != now.Ctim)
	all("go.mod replaced by rename")

	// Two folders exchanged in one step (renameat2 RENAME_EXCHANGE).
	if err := unix.Renameat2(unix.AT_FDCWD, tr.ws+"/x1", unix.AT_FDCWD, tr.ws+"/x2", unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	all("x1 and x2 exchanged")

	// A .env added, then the folder's times set back.
	tr.files(t, map[string]string{"ws/c/.env": "TOKEN=x\n"})
	if err := os.Chtimes(tr.ws+"/c", old, old); err != nil {
		t.Fatal(err)
	}
	all("c/.env added and c's times set back")

	// The link ws/l retargeted (a new link renamed over it).
	if err := os.Symlink("l2", tr.ws+"/l.new"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tr.ws+"/l.new", tr.ws+"/l"); err != nil {
		t.Fatal(err)
	}
	all("l retargeted to l2")

	// d moved away, a .env written in it, moved back, times set back.
	if err := os.Rename(tr.ws+"/d", tr.root+"/outside/d"); err != nil {
		t.Fatal(err)
	}
	tr.files(t, map[string]string{"outside/d/.env": "TOKEN=x\n"})
	if err := os.Rename(tr.root+"/outside/d", tr.ws+"/d"); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(tr.ws+"/d", old, old)
	all("d moved away, changed and moved back")

	// A hard link to the private key.
	if err := os.Link(tr.home+"/.ssh/id_rsa", tr.ws+"/e/notes"); err != nil {
		t.Fatal(err)
	}
	all("e/notes hard-linked to ~/.ssh/id_rsa")

	// A credential file added to a folder whose listing was cut short.
	tr.files(t, map[string]string{"ws/big/.env": "TOKEN=x\n"})
	all("big/.env added")

	// A folder changed within the same second it was first listed.
	tr.files(t, map[string]string{"ws/now/.env": "TOKEN=x\n"})
	all("now/.env added")

	// The hooks folder (a link) retargeted to one with an executable hook.
	if err := os.Symlink(tr.root+"/hooksB", tr.ws+"/.git/hooks.new"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tr.ws+"/.git/hooks.new", tr.ws+"/.git/hooks"); err != nil {
		t.Fatal(err)
	}
	all("the hooks link retargeted")
}

// TestCacheAttackHeldExt4: the changes the key sees, on ext4.
func TestCacheAttackHeldExt4(t *testing.T) {
	t.Parallel()
	heldAttacks(t, newRealTree(t))
}

// TestCacheAttackHeldTmpfs: the same on /dev/shm (tmpfs).
func TestCacheAttackHeldTmpfs(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("/dev/shm", "cuff-gate-")
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	heldAttacks(t, realTreeIn(t, dir))
}

// TestIncludedHooksPath (not a cache: a new gate per line too): a
// repository whose .git/config includes a tracked file (the common
// `git config --local include.path ../.gitconfig` set-up) takes
// core.hooksPath from that file (here tools/git.cfg; a file named
// .gitconfig* is guarded by its name), which the agent may edit like any file
// of the work tree; git commit then runs the agent's hook outside the
// sandbox. The gate read core.hooksPath from .git/config only and allowed
// it; it now follows includes.
func TestIncludedHooksPath(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	initCmd := exec.Command(git, "init", "-q", tr.ws)
	initCmd.Env = append(os.Environ(), "HOME="+tr.home, "GIT_CONFIG_NOSYSTEM=1")
	if out, err := initCmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	tr.files(t, map[string]string{"ws/.git/HEAD": "ref: refs/heads/main\n",
		"ws/.git/config": "[core]\n\tbare = false\n[include]\n\tpath = ../tools/git.cfg\n", "ws/tools/git.cfg": "[pull]\n\trebase = true\n"})
	if v := tr.g.Decide(t.Context(), "git commit -m x", Input{}).Verdict; v != VerdictAllow {
		t.Fatalf("git commit with no hook: %s, want allow", v)
	}
	for _, c := range []string{"mkdir -p h && printf '#!/bin/sh\\nid\\n' > h/pre-commit && chmod +x h/pre-commit",
		"printf '[core]\\n\\thooksPath = h\\n' >> tools/git.cfg"} {
		if v := tr.gate(t, Options{}).Decide(t.Context(), c, Input{Sandboxed: true}).Verdict; v != VerdictAllow {
			t.Fatalf("%q in the sandbox: %s; the attack needs allow", c, v)
		}
	}
	tr.files(t, map[string]string{"ws/h/pre-commit": "#!/bin/sh\nid\n", "ws/tools/git.cfg": "[pull]\n\trebase = true\n[core]\n\thooksPath = h\n"})
	if err := os.Chmod(tr.ws+"/h/pre-commit", 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := exec.Command(git, "-C", tr.ws, "config", "core.hooksPath")
	cfg.Env = append(os.Environ(), "HOME="+tr.home, "GIT_CONFIG_NOSYSTEM=1")
	out, _ := cfg.Output()
	if got := strings.TrimSpace(string(out)); got != "h" {
		t.Fatalf("git reads core.hooksPath = %q, want h (through the include)", got)
	}
	// git runs the hook: it leaves a mark.
	tr.files(t, map[string]string{"ws/h/pre-commit": "#!/bin/sh\ntouch hook-ran\n"})
	commit := exec.Command(git, "-C", tr.ws, "commit", "-q", "--allow-empty", "-m", "x")
	commit.Env = append(os.Environ(), "HOME="+tr.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b",
		"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v %s", err, out)
	}
	if _, err := os.Stat(tr.ws + "/hook-ran"); err != nil {
		t.Fatalf("git commit did not run h/pre-commit: %v", err)
	}
	r := tr.gate(t, Options{}).Decide(t.Context(), "git commit -m x", Input{})
	if r.Verdict == VerdictAllow {
		t.Errorf("git commit with core.hooksPath = h (from the included tools/git.cfg) and h/pre-commit executable: allow (%q), want none: it runs the agent's hook outside the sandbox", r.Reasons)
	}
}

// TestOtherProcessOpenSecret (not a cache: a new gate too; found during
// the review): /proc/PID/fd/N of another process of the user opens the
// very file that process holds open, a private key here (a browser's
// cookie database, kept open while it runs, is the usual one). The gate
// took the link as written and allowed reading it; it now asks.
func TestOtherProcessOpenSecret(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	tr.files(t, map[string]string{"home/.ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n"})
	pid, run := shell(t)
	run("exec 5<" + tr.home + "/.ssh/id_rsa")
	fd := "/proc/" + strconv.Itoa(pid) + "/fd/5"
	if data, err := os.ReadFile(fd); err != nil || !strings.Contains(string(data), "PRIVATE KEY") {
		t.Fatalf("reading %s: %q %v", fd, data, err)
	}
	for _, c := range []string{"cat " + fd, "cp " + fd + " $TMPD/k"} {
		if r := tr.gate(t, Options{}).Decide(t.Context(), tr.expand(c), Input{Sandboxed: true}); r.Verdict == VerdictAllow {
			t.Errorf("%q reads ~/.ssh/id_rsa, which another process holds open: allow (%q)", c, r.Reasons)
		}
	}
}

// shell starts sh, a process of the user's that runs what run gives it
// and answers when done, and returns its pid.
func shell(t *testing.T) (int, func(cmd string)) {
	t.Helper()
	sh := exec.Command("sh")
	in, err := sh.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); sh.Process.Kill(); sh.Wait() })
	lines := bufio.NewScanner(out)
	return sh.Process.Pid, func(cmd string) {
		t.Helper()
		if _, err := in.Write([]byte(cmd + "; echo ok\n")); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() || lines.Text() != "ok" {
			t.Fatalf("%s: %q %v", cmd, lines.Text(), lines.Err())
		}
	}
}
