package gate

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// settledTree is a real tree whose folders are older than settleTime, so
// that a gate deciding many lines keeps their listings.
func settledTree(t *testing.T) *realTree {
	t.Helper()
	tr := newRealTree(t)
	tr.files(t, map[string]string{"ws/sub/a.txt": "a\n", "ws/sub/deep/b.txt": "b\n", "ws/lib/c.go": "package lib\n",
		"ws/go.mod": "module example.com/x\n\ngo 1.21\n", "ws/.git/HEAD": "ref: refs/heads/main\n",
		"ws/.git/config": "[remote \"origin\"]\n\turl = https://example.com/o/r.git\n"})
	time.Sleep(settleTime + 200*time.Millisecond)
	return tr
}

// decideText is a decision's verdict and reasons, to compare two gates.
func decideText(t *testing.T, g *Gate, cmd string) string {
	t.Helper()
	r := g.Decide(t.Context(), cmd, Input{Sandboxed: true})
	return fmt.Sprintf("%s %s %q", r.Verdict, r.Tier, r.Reasons)
}

// TestKeptListingsFollowChanges: a gate that decides many lines keeps the
// listings of settled folders, and still sees a credential file added to
// one of them, a go.mod rewritten, and a folder put in another's place.
func TestKeptListingsFollowChanges(t *testing.T) {
	t.Parallel()
	tr := settledTree(t)
	g := tr.g
	tr.check(t, g, []fsCase{{"true", VerdictAllow}, {"grep -r TODO .", VerdictAllow}, {"go build ./...", VerdictAllow},
		{"git remote -v", VerdictAllow}})
	if n := len(g.listings.m); n < 4 {
		t.Fatalf("the gate kept %d listings of a settled tree after two lines, want every folder the walk read", n)
	}
	// The remote's address given a token.
	tr.files(t, map[string]string{"ws/.git/config": "[remote \"origin\"]\n\turl = https://x:ghp_secret@example.com/o/r.git\n"})
	tr.check(t, g, []fsCase{{"git remote -v", VerdictAsk}})
	tr.files(t, map[string]string{"ws/.git/config": "[remote \"origin\"]\n\turl = https://example.com/o/r.git\n"})
	tr.check(t, g, []fsCase{{"git remote -v", VerdictAllow}})
	tr.files(t, map[string]string{"ws/sub/deep/.env": "TOKEN=x\n"})
	tr.check(t, g, []fsCase{{"grep -r TODO .", VerdictAsk}})
	if err := os.Remove(tr.ws + "/sub/deep/.env"); err != nil {
		t.Fatal(err)
	}
	tr.check(t, g, []fsCase{{"grep -r TODO .", VerdictAllow}})

	// go.mod rewritten to name a toolchain, which go would download.
	tr.files(t, map[string]string{"ws/go.mod": "module example.com/x\n\ngo 1.21\ntoolchain go1.99.1-DATA\n"})
	tr.check(t, g, []fsCase{{"go build ./...", VerdictAsk}})

	// A folder moved away and another, with a key in it, put in its place.
	if err := os.Rename(tr.ws+"/lib", tr.ws+"/lib.old"); err != nil {
		t.Fatal(err)
	}
	tr.files(t, map[string]string{"ws/lib/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n"})
	tr.check(t, g, []fsCase{{"grep -r TODO lib", VerdictAsk}, {"cat lib/*", VerdictAsk}})
}

// TestListingsKeptOnlyWhenSettled: a folder changed a moment ago is
// listed again at every line (a change within the same timestamp tick
// would not show), and a gate that decides one line keeps nothing.
func TestListingsKeptOnlyWhenSettled(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	for range 3 {
		// sub changes just before each line; the line lists it within
		// settleTime of the change unless the machine stalls for longer.
		tr.files(t, map[string]string{"ws/sub/a.txt": "a\n"})
		os.Remove(tr.ws + "/sub/b.txt")
		os.WriteFile(tr.ws+"/sub/b.txt", nil, 0o600)
		changed := time.Now()
		tr.check(t, tr.g, []fsCase{{"grep -r TODO .", VerdictAllow}})
		_, kept := tr.g.listings.m[tr.ws+"/sub"]
		switch {
		case time.Since(changed) >= settleTime:
			t.Log("the machine stalled longer than settleTime: nothing to tell")
		case kept:
			t.Errorf("the listing of %s/sub, changed a moment ago, was kept", tr.ws)
		}
	}

	settled := settledTree(t)
	once := settled.gate(t, Options{})
	settled.check(t, once, []fsCase{{"grep -r TODO .", VerdictAllow}})
	if n := len(once.listings.m); n != 0 {
		t.Errorf("a gate that decided one line kept %d listings", n)
	}
}

// TestKeptListingsAgreeWithAFreshGate changes a settled tree at random
// and after each change compares a gate that has decided every line
// before (and keeps listings) with a new gate per line (which keeps
// nothing): they must give the same answer for every command.
func TestKeptListingsAgreeWithAFreshGate(t *testing.T) {
	t.Parallel()
	tr := settledTree(t)
	dirs := []string{"ws", "ws/sub", "ws/sub/deep", "ws/lib", "ws/src"}
	cmds := []string{"grep -r TODO .", "grep -rn x sub", "cat lib/*", "ls -R", "tar -cf $TMPD/a.tar .", "git add -A",
		"cat sub/deep/*", "go build ./...", "rg TODO", "find . -type f | xargs wc -l", "git remote -v",
		"git config --get remote.origin.url"}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rnd := rand.New(rand.NewPCG(seed, 1))
	long := tr.g
	for _, c := range cmds {
		long.Decide(t.Context(), tr.expand(c), Input{Sandboxed: true}) // fill what it keeps
	}
	for step := range 60 {
		d := tr.root + "/" + dirs[rnd.IntN(len(dirs))]
		var did string
		switch rnd.IntN(7) {
		case 0:
			did = "add " + d + "/.env"
			os.WriteFile(d+"/.env", []byte("TOKEN=x\n"), 0o600)
		case 1:
			did = "remove " + d + "/.env"
			os.Remove(d + "/.env")
		case 2:
			did = "add " + d + "/notes.txt"
			os.WriteFile(d+"/notes.txt", []byte("x\n"), 0o600)
		case 3:
			did = "link " + d + "/key to ~/.ssh/id_rsa"
			os.WriteFile(tr.home+"/.ssh/id_rsa", []byte("k\n"), 0o600)
			os.Symlink(tr.home+"/.ssh/id_rsa", d+"/key")
		case 4:
			if d == tr.ws {
				continue
			}
			did = "swap " + d
			os.Rename(d, d+".old")
			os.MkdirAll(d, 0o700)
			os.WriteFile(d+"/server.pem", []byte("x\n"), 0o600)
		case 5:
			did = "rewrite go.mod"
			body := "module example.com/x\n\ngo 1.21\n"
			if rnd.IntN(2) == 0 {
				body += "toolchain go1.99.1-DATA\n"
			}
			os.WriteFile(tr.ws+"/go.mod", []byte(body), 0o600)
		case 6:
			did = "rewrite .git/config"
			url := "https://example.com/o/r.git"
			if rnd.IntN(2) == 0 {
				url = "https://x:ghp_secret@example.com/o/r.git"
			}
			os.WriteFile(tr.ws+"/.git/config", []byte("[remote \"origin\"]\n\turl = "+url+"\n"), 0o600)
		}
		for _, c := range cmds {
			c = tr.expand(c)
			fresh := tr.gate(t, Options{})
			if got, want := decideText(t, long, c), decideText(t, fresh, c); got != want {
				t.Fatalf("step %d, after %s: %q\n  the long-lived gate: %s\n  a new gate:          %s", step, did, c, got, want)
			}
		}
	}
	kept := 0
	for p := range long.listings.m {
		if strings.HasPrefix(p, tr.ws) {
			kept++
		}
	}
	t.Logf("listings kept at the end: %d (of folders left unchanged)", kept)
	if _, err := os.Stat(filepath.Join(tr.ws, "sub")); err != nil {
		t.Fatal(err)
	}
}

// TestKeptHooksListing: a gate deciding many lines looks up only the hooks
// its kept listing of the hooks folder names, and still sees a hook
// written after the listing was kept, and one made executable (which does
// not change the folder).
func TestKeptHooksListing(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	tr.files(t, map[string]string{"ws/.git/HEAD": "ref: refs/heads/main\n", "ws/.git/hooks/pre-commit.sample": "#!/bin/sh\n",
		"ws/.git/hooks/commit-msg": "#!/bin/sh\n"}) // not executable: git skips it
	time.Sleep(settleTime + 200*time.Millisecond)
	g := tr.g
	commit := func() Verdict { return g.Decide(t.Context(), "git commit -m x", Input{}).Verdict }
	for range 2 {
		if v := commit(); v != VerdictAllow {
			t.Fatalf("git commit with no hook to run: %s, want allow", v)
		}
	}
	if _, ok := g.listings.m[tr.ws+"/.git/hooks"]; !ok {
		t.Fatal("the hooks folder's listing was not kept")
	}
	if err := os.Chmod(tr.ws+"/.git/hooks/commit-msg", 0o700); err != nil {
		t.Fatal(err)
	}
	if v := commit(); v != VerdictNone {
		t.Errorf("git commit after commit-msg was made executable: %s, want none (runs agent code outside the sandbox)", v)
	}
	if err := os.Chmod(tr.ws+"/.git/hooks/commit-msg", 0o600); err != nil {
		t.Fatal(err)
	}
	if v := commit(); v != VerdictAllow {
		t.Fatalf("git commit with commit-msg no longer executable: %s, want allow", v)
	}
	if err := os.WriteFile(tr.ws+"/.git/hooks/pre-commit", []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if v := commit(); v != VerdictNone {
		t.Errorf("git commit after a pre-commit hook was written: %s, want none", v)
	}
}

// TestKeptCacheBounded: what a gate keeps stays under maxKeptWeight, and
// a path kept again replaces its old weight.
func TestKeptCacheBounded(t *testing.T) {
	var c dirCache
	old := time.Now()
	k := dirKey{ino: 1, mtime: old.Add(-time.Hour).UnixNano(), ctime: old.Add(-time.Hour).UnixNano()}
	big := make([]dirEntry, 4097)
	for i := range 200 {
		c.put(fmt.Sprintf("/d%d", i), k, big, old)
		c.put("/again", k, big[:10], old)
		if c.weight > maxKeptWeight {
			t.Fatalf("after %d listings the cache weighs %d, more than %d", i+1, c.weight, maxKeptWeight)
		}
		sum := 0
		for _, v := range c.m {
			sum += len(v.entries) + 1
		}
		if sum != c.weight {
			t.Fatalf("the cache counts %d but holds %d", c.weight, sum)
		}
	}
	if _, ok := c.get("/again", k); !ok {
		t.Error("the listing kept last was dropped")
	}
	unsettled := dirKey{ino: 2, mtime: old.UnixNano(), ctime: old.UnixNano()}
	c.put("/again", unsettled, big[:3], old)
	if _, ok := c.get("/again", unsettled); ok {
		t.Error("a listing read a moment after its folder changed was kept")
	}
	if _, ok := c.get("/again", k); ok {
		t.Error("the listing from before the change is still served")
	}
}

// TestConfigFIFODoesNotHang: a repository whose config is a named pipe
// (git would block reading it too) does not hang the gate: only regular
// files are read.
func TestConfigFIFODoesNotHang(t *testing.T) {
	t.Parallel()
	tr := newRealTree(t)
	tr.files(t, map[string]string{"ws/.git/HEAD": "ref: refs/heads/main\n"})
	if err := syscall.Mkfifo(tr.ws+"/.git/config", 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan Verdict, 1)
	go func() { done <- tr.g.Decide(t.Context(), "git commit -m x", Input{Sandboxed: true}).Verdict }()
	select {
	case v := <-done:
		if v != VerdictAllow {
			t.Errorf("git commit: %s, want allow", v)
		}
	case <-time.After(time.Minute):
		t.Fatal("the gate hangs reading a repository's config that is a named pipe")
	}
}

// TestKeptListingsConcurrent: one gate deciding lines on several
// goroutines at once (the MCP server's) keeps and reads listings safely
// (run with -race) and answers as a fresh gate does.
func TestKeptListingsConcurrent(t *testing.T) {
	t.Parallel()
	tr := settledTree(t)
	cmds := []string{"grep -r TODO .", "ls -R", "cat sub/*", "git status", "go build ./...", "find . -type f | xargs wc -l"}
	want := map[string]string{}
	for _, c := range cmds {
		want[c] = decideText(t, tr.gate(t, Options{}), c)
	}
	g := tr.g
	done := make(chan error, 4)
	for w := range 4 {
		go func() {
			for i := range 60 {
				c := cmds[(i+w)%len(cmds)]
				r := g.Decide(t.Context(), c, Input{Sandboxed: true})
				if got := fmt.Sprintf("%s %s %q", r.Verdict, r.Tier, r.Reasons); got != want[c] {
					done <- fmt.Errorf("%q: %s, a fresh gate says %s", c, got, want[c])
					return
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if len(g.listings.m) == 0 {
		t.Error("the gate kept no listing")
	}
}
