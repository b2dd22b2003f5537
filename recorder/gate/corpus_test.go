package gate

import (
	"bufio"
	"os"
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

// minEverydayAllowed is the share of everyday commands that must be
// allowed out of the box, when commands run in cuff's sandbox.
const minEverydayAllowed = 0.95

// TestEverydayCommandsAreAllowed measures the everyday corpus in the
// sandbox (the goal) and outside it (logged: what runs the project's code
// gets no decision there, by design).
func TestEverydayCommandsAreAllowed(t *testing.T) {
	g := testGate(t, Options{})
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
	g := testGate(t, Options{})
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
