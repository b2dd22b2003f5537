package gate

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The attack vocabulary: ways to make a second name for a place outside
// the work tree, places to write through, and writers. Command lines built
// from them must never be allowed when they write outside the work tree
// (or into its guarded directories): whatever the gate allows is run for
// real in a throwaway tree, in a mount namespace where nothing but that
// tree is writable, and the places outside the work tree are compared
// before and after.
var (
	attackLinks = []string{"ln -s / r", "ln -s .. up", "ln -s ~ h", "ln -s ../outside o", "cp -s $ROOT/outside/f cs",
		"ln ../outside/f hl", "mkdir -p d && ln -s ../.. d/u", "ln -sf $STATE st", "ln -s .git/hooks gh",
		"ln -s $ROOT/outside/f rel/../fl", "cp -a links/. .", "mv links/out o2", "tar -xf evil.tar", "unzip -o evil.zip",
		"patch -p1 < evil.diff", "git apply evil.diff", "cp -r tpl/. ."}
	attackTargets = []string{"r$ROOT/outside/x", "up/outside/x", "h/.bashrc", "o/x", "../outside/x", "~/.bashrc",
		"$STATE/grants/g.json", ".git/hooks/pre-commit", ".claude/settings.json", "d/u/outside/x", "hl", "cs", "fl", "st/x",
		"gh/pre-push", "o2/x", "pre/x", "/proc/self/cwd/../outside/x", "$ROOT/outside/x", "./../outside/x", "src/../../outside/x",
		"ok.txt", "src/new.go", "src", "src/deep/er", "d/u", "links/out", "pre/x-link"}
	attackWriters = []string{"echo x > T", "printf x >> T", "cp README.md T", "tee T < README.md", "touch T",
		"sed -i s/a/b/ T", "mkdir -p T", "mv notes.txt T", "install -D README.md T", "dd if=README.md of=T",
		"truncate -s0 T", "GIT_TRACE=T git status", "tar -cf T README.md", "sort -o T README.md", "split -l1 README.md T",
		"cd T && echo x > f", "cat README.md | tee -a T", "echo T | xargs touch", "find . -maxdepth 0 -exec cp README.md T \\;",
		"rm -rf T/", "chmod 600 T", "ln -sf README.md T", "cp -r src T", "rsync README.md T", "csplit -f T README.md /x/",
		"(cd T); echo x > ../../outside/x", "cd T | true; echo x > ../../outside/y", "cd T & echo x > ../../outside/z",
		"cd T || echo x > ../f", "pushd T; echo x > ../f; popd", "env -C T touch ../f", "git -C T init",
		"mktemp -p T", "unzip -d T evil.zip", "tar -xf evil.tar -C T", "patch -d T -p1 < evil.diff"}
	attackSeps = []string{" && ", "; ", "\n", " || "}
)

// attackCommand builds a command line from choices in r.
func attackCommand(next func(n int) int) string {
	var parts []string
	for i, n := 0, 1+next(3); i < n; i++ {
		switch next(3) {
		case 0:
			parts = append(parts, attackLinks[next(len(attackLinks))])
		default:
			w := attackWriters[next(len(attackWriters))]
			parts = append(parts, strings.ReplaceAll(w, "T", attackTargets[next(len(attackTargets))]))
		}
	}
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(attackSeps[next(len(attackSeps))])
		}
		b.WriteString(p)
	}
	return b.String()
}

// isolation says whether commands can be run in a mount namespace where
// only the throwaway tree is writable (root, unshare and mount needed).
var isolation = sync.OnceValue(func() error {
	if _, err := exec.LookPath("unshare"); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "cuff-isolation-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	out, err := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c",
		isolateScript(dir, "touch "+dir+"/ok && ! touch /cuff-isolation-probe 2>/dev/null")).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v: %s", err, out)
	}
	if _, err := os.Stat(dir + "/ok"); err != nil {
		return err
	}
	return nil
})

// isolateScript is a shell script that makes every mount read-only but
// root (bound to itself), then runs cmd there.
func isolateScript(root, cmd string) string {
	return `set -e
mount --bind ` + shq(root) + ` ` + shq(root) + `
for m in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do
  case "$m" in ` + shq(root) + `|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue;; esac
  mount -o remount,bind,ro "$m" 2>/dev/null || true
done
set +e
` + cmd
}

func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// attackTree is a throwaway tree: ROOT/ws is the work tree, with what the
// vocabulary needs; ROOT/home, ROOT/state, ROOT/outside lie outside it.
type attackTree struct {
	root string
	g    *Gate
}

func newAttackTree(t testing.TB) *attackTree {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	at := &attackTree{root: root}
	at.reset(t)
	g, err := New(Options{Workspace: root + "/ws", Home: root + "/home", TempDirs: []string{root + "/tmp"},
		Protected: []string{root + "/state"}})
	if err != nil {
		t.Fatal(err)
	}
	at.g = g
	return at
}

// reset makes the tree afresh.
func (at *attackTree) reset(t testing.TB) {
	t.Helper()
	r := at.root
	for _, d := range []string{"ws", "home", "state", "outside", "tmp"} {
		if err := os.RemoveAll(filepath.Join(r, d)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"ws/src", "ws/.git/hooks", "ws/.claude", "ws/.cuff", "ws/rel", "ws/links", "ws/tpl/.git/hooks",
		"home", "state/grants", "outside", "tmp", "ws/pre"} {
		if err := os.MkdirAll(filepath.Join(r, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, body := range map[string]string{"ws/README.md": "a b\n", "ws/notes.txt": "n\n", "ws/src/main.go": "package main\n",
		"ws/.claude/settings.json": "{}\n", "home/.bashrc": "# rc\n", "outside/f": "f\n", "ws/tpl/.git/hooks/pre-commit": "#!/bin/sh\n",
		"ws/.git/HEAD": "ref: refs/heads/main\n"} {
		if err := os.WriteFile(filepath.Join(r, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Symlink("../../outside", filepath.Join(r, "ws/links/out"))
	os.Symlink(r+"/outside", filepath.Join(r, "ws/pre/x-link"))
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: "lnk", Typeflag: tar.TypeSymlink, Linkname: r + "/outside", Mode: 0o777})
	tw.WriteHeader(&tar.Header{Name: ".git/hooks/post-checkout", Typeflag: tar.TypeReg, Mode: 0o755, Size: 2})
	tw.Write([]byte("x\n"))
	tw.Close()
	os.WriteFile(filepath.Join(r, "ws/evil.tar"), tb.Bytes(), 0o644)
	os.WriteFile(filepath.Join(r, "ws/evil.diff"), []byte("--- /dev/null\n+++ b/.claude/settings.json\n@@ -0,0 +1 @@\n+{}\n"), 0o644)
}

// snapshot describes everything outside the work tree, and the work tree's
// guarded places, by path.
func (at *attackTree) snapshot(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, top := range []string{"home", "state", "outside", "ws/.git", "ws/.claude", "ws/.cuff"} {
		base := filepath.Join(at.root, top)
		filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return nil
			}
			desc := fi.Mode().String()
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				l, _ := os.Readlink(p)
				desc += " -> " + l
			case fi.Mode().IsRegular():
				data, _ := os.ReadFile(p)
				sum := sha256.Sum256(data)
				desc += " " + hex.EncodeToString(sum[:8])
			}
			out[strings.TrimPrefix(p, at.root+"/")] = desc
			return nil
		})
	}
	return out
}

// run runs cmd in the work tree, isolated; the output is for failures.
func (at *attackTree) run(t testing.TB, cmd string) string {
	t.Helper()
	script := isolateScript(at.root, "cd "+shq(at.root+"/ws")+" && HOME="+shq(at.root+"/home")+
		" TMPDIR="+shq(at.root+"/tmp")+" timeout 10 bash -c "+shq(cmd)+" </dev/null")
	out, _ := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script).CombinedOutput()
	return string(out)
}

// check classifies cmd and, if the gate allows it, runs it and compares.
// It reports whether the command was allowed.
func (at *attackTree) check(t testing.TB, cmd string) bool {
	t.Helper()
	cmd = strings.NewReplacer("$ROOT", at.root, "$STATE", at.root+"/state").Replace(cmd)
	r := at.g.Decide(t.Context(), cmd, Input{Sandboxed: true})
	if r.Verdict != VerdictAllow {
		return false
	}
	before := at.snapshot(t)
	out := at.run(t, cmd)
	after := at.snapshot(t)
	var changed []string
	for p, d := range after {
		if before[p] != d {
			changed = append(changed, p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			changed = append(changed, p+" (removed)")
		}
	}
	sort.Strings(changed)
	if len(changed) > 0 {
		t.Errorf("allowed %q, which changed %v outside the work tree\noutput: %s\nreasons: %v", cmd, changed, out, r.Reasons)
	}
	at.reset(t)
	return true
}

// TestAttackVocabularyNeverWritesOutside runs a fixed sample of command
// lines from the attack vocabulary (issue 10's fuzz property).
func TestAttackVocabularyNeverWritesOutside(t *testing.T) {
	if err := isolation(); err != nil {
		t.Skipf("cannot isolate commands here (unshare --mount as root): %v", err)
	}
	at := newAttackTree(t)
	rng := rand.New(rand.NewPCG(10, 2026))
	n := 200
	if testing.Short() {
		n = 40
	}
	ran := 0
	for range n {
		if at.check(t, attackCommand(rng.IntN)) {
			ran++
		}
	}
	// Everyday writes are in the vocabulary too: some lines must be
	// allowed, or this test checks nothing.
	if ran == 0 {
		t.Fatal("no command line was allowed, so nothing was run")
	}
	t.Logf("%d of %d command lines allowed and run; none wrote outside the work tree", ran, n)
}

// FuzzAttackVocabulary builds command lines from the attack vocabulary with
// the fuzzer's bytes as choices.
func FuzzAttackVocabulary(f *testing.F) {
	for _, seed := range []string{"\x00\x01\x02\x03", "\x02\x05\x09\x01\x00\x04", "\x01\x02\x07\x01\x02\x03\x0b", "abcdefgh"} {
		f.Add([]byte(seed))
	}
	if err := isolation(); err != nil {
		f.Skipf("cannot isolate commands here (unshare --mount as root): %v", err)
	}
	at := newAttackTree(f)
	f.Fuzz(func(t *testing.T, choices []byte) {
		i := 0
		next := func(n int) int {
			if i >= len(choices) {
				return 0
			}
			i++
			return int(choices[i-1]) % n
		}
		at.check(t, attackCommand(next))
	})
}

// TestAttackHarnessSeesWritesOutside: the comparison sees a write outside
// the work tree, through a link and into a guarded place, so that the
// property above cannot pass by seeing nothing.
func TestAttackHarnessSeesWritesOutside(t *testing.T) {
	if err := isolation(); err != nil {
		t.Skipf("cannot isolate commands here (unshare --mount as root): %v", err)
	}
	at := newAttackTree(t)
	for _, cmd := range []string{"echo x > ../outside/x", "ln -s ~ h && echo x >> h/.bashrc", "echo x > .git/hooks/pre-commit"} {
		before := at.snapshot(t)
		at.run(t, cmd)
		if after := at.snapshot(t); fmt.Sprint(after) == fmt.Sprint(before) {
			t.Errorf("%q changed nothing the comparison sees", cmd)
		}
		at.reset(t)
	}
	if out := at.run(t, "touch /cuff-attack-probe 2>&1; echo done"); !strings.Contains(out, "Read-only") {
		t.Errorf("the rest of the machine is writable in isolation: %s", out)
	}
}
