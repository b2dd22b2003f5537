package gate

import (
	"archive/tar"
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readCorpus reads a command corpus: one command per line, "⏎" for a
// newline inside a command, "#" comments and blank lines skipped.
func readCorpus(t testing.TB, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatalf("open corpus: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.ReplaceAll(line, "⏎", "\n"))
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	return out
}

// testGate is a strict gate over a fixed workspace, as the corpus assumes.
func testGate(t testing.TB, opts Options) *Gate {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = "/home/u/project"
	}
	if opts.Home == "" {
		opts.Home = "/home/u"
	}
	g, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return g
}

// corpusTree makes a project on disk for the corpora: a workspace at
// ROOT/home/u/project with what an everyday project holds (installed node
// tools, a virtual environment, a repository without hooks), and a strict
// gate over it with the home folder ROOT/home/u.
func corpusTree(t testing.TB, opts Options) *Gate {
	t.Helper()
	g, _ := corpusTreeAt(t, opts)
	return g
}

// corpusTreeAt is corpusTree that also returns the tree's root (the
// workspace is ROOT/home/u/project), for tests that add to the tree.
func corpusTreeAt(t testing.TB, opts Options) (*Gate, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := root + "/home/u/project"
	for _, d := range []string{"src", "node_modules/.bin", ".venv/bin", ".git/hooks", ".cuff/recordings", ".claude", "web", "frontend", "subdir", "internal", "logs"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{"node_modules/.bin/tsc", "node_modules/.bin/jest", "node_modules/.bin/eslint", "node_modules/.bin/prettier",
		"node_modules/.bin/vitest", "node_modules/.bin/mocha", ".venv/bin/activate", ".venv/bin/python", ".venv/bin/pytest",
		".git/HEAD", ".git/hooks/pre-commit.sample", ".claude/settings.json", ".cuff/policy.yml", "go.mod", "package.json",
		"Makefile", "README.md", "main.go", "src/app.go", "src/app.ts", "config.yaml", "file.txt", "list.txt", "files.txt"}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(root+"/home/u/.ssh", 0o700); err != nil {
		t.Fatal(err)
	}
	// A harmless archive and patch for the everyday neighbours of the
	// extractors.
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	tw.WriteHeader(&tar.Header{Name: "lib/a.go", Mode: 0o644, Size: 9, Typeflag: tar.TypeReg})
	tw.Write([]byte("package a"))
	tw.Close()
	patch := "--- a/src/app.go\n+++ b/src/app.go\n@@ -1 +1 @@\n-x\n+y\n"
	for f, body := range map[string][]byte{"x.tar": tb.Bytes(), "fix.patch": []byte(patch)} {
		if err := os.WriteFile(filepath.Join(ws, f), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts.Workspace, opts.Home = ws, root+"/home/u"
	if opts.Dir != "" {
		opts.Dir = ws + "/" + opts.Dir
	}
	opts.Protected = append(opts.Protected, root+"/home/u/.local/state/cuff", root+"/home/u/.claude")
	g, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return g, root
}

// minEverydayAllowed is the share of everyday commands that must be
// allowed out of the box, when commands run in cuff's sandbox.
const minEverydayAllowed = 0.95

// TestEverydayCommandsAreAllowed measures the everyday corpus in the
// sandbox (the goal) and outside it (logged: what runs the project's code
// gets no decision there, by design).
func TestEverydayCommandsAreAllowed(t *testing.T) {
	g := corpusTree(t, Options{})
	cmds := readCorpus(t, "testdata/everyday.txt")
	if len(cmds) < 150 {
		t.Fatalf("everyday corpus has %d commands, want at least 150", len(cmds))
	}
	allowed, outside := 0, 0
	for _, c := range cmds {
		if g.Decide(t.Context(), c, Input{}).Verdict == VerdictAllow {
			outside++
		}
		r := g.Decide(t.Context(), c, Input{Sandboxed: true})
		if r.Verdict == VerdictAllow {
			allowed++
			continue
		}
		t.Logf("not allowed (%s, %s): %q: %s", r.Verdict, r.Tier, c, strings.Join(r.Reasons, "; "))
	}
	share := float64(allowed) / float64(len(cmds))
	t.Logf("everyday: %d of %d allowed in the sandbox (%.1f%%), %d outside it (%.1f%%)", allowed, len(cmds), 100*share,
		outside, 100*float64(outside)/float64(len(cmds)))
	if share < minEverydayAllowed {
		t.Errorf("only %.1f%% of everyday commands are allowed, want at least %.0f%%", 100*share, 100*minEverydayAllowed)
	}
}

func TestRiskyCommandsAreAskedOrDenied(t *testing.T) {
	g := corpusTree(t, Options{})
	cmds := readCorpus(t, "testdata/risky.txt")
	if len(cmds) < 150 {
		t.Fatalf("risky corpus has %d commands, want at least 150", len(cmds))
	}
	for _, c := range cmds {
		r := g.Decide(t.Context(), c, Input{Sandboxed: true})
		if r.Verdict < VerdictAsk {
			t.Errorf("risky command got %s (%s): %q: %s", r.Verdict, r.Tier, c, strings.Join(r.Reasons, "; "))
		}
	}
}
