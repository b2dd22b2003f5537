package script

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The commands' outputs are computed from the project's files and the
// semver model, so that they agree with the code the session shows.

// failingTestOutput is `go test ./version/` after the regression cases were
// added and before the fix: every case the original comparison gets wrong.
func failingTestOutput(testText string) (string, error) {
	line, _, err := lineOf(testText, `t.Errorf("Compare(%q, %q) = %d, want %d"`)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString("--- FAIL: TestCompare (0.00s)\n")
	failed := 0
	for _, c := range regressionCases {
		got, err := compareStrings(c[0], c[1], false)
		if err != nil {
			return "", err
		}
		want, _ := compareStrings(c[0], c[1], true)
		if got == want {
			continue
		}
		failed++
		fmt.Fprintf(&sb, "    --- FAIL: TestCompare/%s_vs_%s (0.00s)\n", c[0], c[1])
		fmt.Fprintf(&sb, "        version_test.go:%d: Compare(%q, %q) = %d, want %d\n", line, c[0], c[1], got, want)
	}
	if failed == 0 {
		return "", fmt.Errorf("no regression case fails before the fix")
	}
	fmt.Fprintf(&sb, "FAIL\nFAIL\t%s/version\t0.006s\nFAIL\n", modulePath)
	return sb.String(), nil
}

// buildFailure is what `go test ./version/` prints when compare.go uses
// packages it does not import: the compiler's errors on stderr, the
// package summary on stdout.
func buildFailure(compareText string) (stdout, stderr string, err error) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "# %s/version [%s/version.test]\n", modulePath, modulePath)
	found := 0
	for i, line := range strings.Split(compareText, "\n") {
		for _, pkg := range []string{"strconv", "cmp"} {
			if col := strings.Index(line, pkg+"."); col >= 0 {
				fmt.Fprintf(&sb, "%s:%d:%d: undefined: %s\n", comparePath, i+1, col+1, pkg)
				found++
			}
		}
	}
	if found == 0 {
		return "", "", fmt.Errorf("build failure: %s uses no missing package", comparePath)
	}
	return fmt.Sprintf("FAIL\t%s/version [build failed]\nFAIL\n", modulePath), sb.String(), nil
}

// corpusVerboseOutput is `go test -v -run TestCompareCorpus ./version/`:
// one RUN line per subtest, then one PASS line per subtest.
func corpusVerboseOutput(versions []string) string {
	var sb strings.Builder
	sb.WriteString("=== RUN   TestCompareCorpus\n")
	for i := 1; i < len(versions); i++ {
		fmt.Fprintf(&sb, "=== RUN   TestCompareCorpus/%s<%s\n", versions[i-1], versions[i])
	}
	sb.WriteString("--- PASS: TestCompareCorpus (0.09s)\n")
	for i := 1; i < len(versions); i++ {
		fmt.Fprintf(&sb, "    --- PASS: TestCompareCorpus/%s<%s (0.00s)\n", versions[i-1], versions[i])
	}
	fmt.Fprintf(&sb, "PASS\nok  \t%s/version\t0.118s\n", modulePath)
	return sb.String()
}

// fuzzOutput is what the fuzzer printed in the given seconds before it was
// killed: a progress line every three seconds.
func fuzzOutput(seconds int) string {
	const workers, step = 8, 3
	var sb strings.Builder
	fmt.Fprintf(&sb, "fuzz: elapsed: 0s, gathering baseline coverage: 0/%d completed\n", fuzzSeedCount)
	fmt.Fprintf(&sb, "fuzz: elapsed: 0s, gathering baseline coverage: %d/%d completed, now fuzzing with %d workers\n",
		fuzzSeedCount, fuzzSeedCount, workers)
	execs, interesting := 0, 0
	for t := step; t < seconds; t += step {
		rate := 96000 + (t*7919)%11000
		execs += rate * step
		if t == step {
			interesting = 44 // the first seconds find most new coverage
		} else {
			interesting += max(0, 10-t/step)
		}
		if t%15 == 0 {
			interesting++ // now and then a rare path
		}
		fmt.Fprintf(&sb, "fuzz: elapsed: %ds, execs: %d (%d/sec), new interesting: %d (total: %d)\n",
			t, execs, rate, interesting, fuzzSeedCount+interesting)
	}
	return sb.String()
}

// sortOutput is `verkit sort` over args, one version a line, lowest first.
func sortOutput(args []string) (string, error) {
	vs := slices.Clone(args)
	var sortErr error
	slices.SortStableFunc(vs, func(a, b string) int {
		c, err := compareStrings(a, b, true)
		if err != nil && sortErr == nil {
			sortErr = err
		}
		return c
	})
	if sortErr != nil {
		return "", sortErr
	}
	return strings.Join(vs, "\n") + "\n", nil
}

// diffStat is `git status --short && git diff --stat` for the files the
// agent changed, from a line diff of before and after.
func diffStat(before, after files, changed []string, untracked []string) string {
	var sb strings.Builder
	for _, p := range changed {
		fmt.Fprintf(&sb, " M %s\n", p)
	}
	for _, p := range untracked {
		fmt.Fprintf(&sb, "?? %s\n", p)
	}
	nameWidth, countWidth := 0, 0
	type stat struct{ ins, del int }
	stats := make([]stat, len(changed))
	totalIns, totalDel := 0, 0
	for i, p := range changed {
		ins, del := lineChanges(before[p], after[p])
		stats[i] = stat{ins, del}
		totalIns += ins
		totalDel += del
		nameWidth = max(nameWidth, len(p))
		countWidth = max(countWidth, len(fmt.Sprint(ins+del)))
	}
	for i, p := range changed {
		s := stats[i]
		fmt.Fprintf(&sb, " %-*s | %*d %s%s\n", nameWidth, p, countWidth, s.ins+s.del,
			strings.Repeat("+", s.ins), strings.Repeat("-", s.del))
	}
	fmt.Fprintf(&sb, " %d files changed, %d insertions(+), %d deletions(-)\n", len(changed), totalIns, totalDel)
	return sb.String()
}

// lineChanges counts the lines a minimal line diff inserts and deletes.
func lineChanges(a, b string) (ins, del int) {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for i := range x {
		for j := range y {
			if x[i] == y[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	lcs := prev[len(y)]
	return len(y) - lcs, len(x) - lcs
}

// History of the demo project's version package, newest commit first.
var commitSubjects = []string{
	"version: document that build metadata is ignored",
	"version: table-driven tests for String",
	"version: accept hyphens in identifiers",
	"version: MustParse for tests and constants",
	"version: reject leading zeros in numeric identifiers",
	"version: parse build metadata",
	"version: faster Parse without regexp",
	"version: clearer errors for missing fields",
	"version: test more invalid inputs",
	"version: Less for sort.Slice",
}

// commit names one commit of the project's history.
type commit struct {
	hash    string
	subject string
	when    time.Time
}

// firstSubject is the subject of the commit that added compare.go.
const firstSubject = "version: add Compare and Less"

// gitLogOutput is `git log -p -- version/` over the project's history: many
// small commits, the oldest of which added compare.go as it is today. It
// also returns that oldest commit.
func gitLogOutput(testText string) (string, commit) {
	const commits = 64
	authors := []string{"Nora Marsh <nora@nmarsh.dev>", "Jonas Kowalski <jk@kowalski.io>", "Nora Marsh <nora@nmarsh.dev>"}
	when := time.Date(2026, time.January, 16, 18, 22, 41, 0, time.FixedZone("", 3600))
	var sb strings.Builder
	header := func(i int) (commit, [sha1.Size]byte) {
		sum := sha1.Sum([]byte(fmt.Sprintf("verkit commit %d", i)))
		c := commit{hash: hex.EncodeToString(sum[:]), subject: commitSubjects[i%len(commitSubjects)], when: when}
		if i == commits-1 {
			c.subject = firstSubject
		}
		fmt.Fprintf(&sb, "commit %s\nAuthor: %s\nDate:   %s\n\n    %s\n\n", c.hash,
			authors[i%len(authors)], when.Format("Mon Jan 2 15:04:05 2006 -0700"), c.subject)
		return c, sum
	}
	filler := strings.Split(testText, "\n")
	for i := 0; i < commits-1; i++ {
		_, sum := header(i)
		fmt.Fprintf(&sb, "diff --git a/%[1]s b/%[1]s\nindex %[2]x..%[3]x 100644\n--- a/%[1]s\n+++ b/%[1]s\n",
			testPath, sum[2:6], sum[6:10])
		for h := 0; h < 2+i%3; h++ {
			const skip = 8 // past the imports
			writeHunk(&sb, filler, skip+(i*37+h*53)%(len(filler)-skip-30), 6+(i+h)%9)
		}
		sb.WriteString("\n")
		when = when.Add(-time.Duration(29+i%50) * time.Hour).Add(-time.Duration(i*7) * time.Minute)
	}
	first, sum := header(commits - 1)
	writeNewFileDiff(&sb, comparePath, compareSource, sum)
	return sb.String(), first
}

// writeHunk writes a hunk over n lines of text from start that replaces the
// middle line with the next, headed by the enclosing function as git shows it.
func writeHunk(sb *strings.Builder, text []string, start, n int) {
	funcLine := ""
	for k := start; k >= 0; k-- {
		if strings.HasPrefix(text[k], "func ") {
			funcLine = " " + text[k]
			break
		}
	}
	fmt.Fprintf(sb, "@@ -%d,%d +%d,%d @@%s\n", start+1, n-1, start+1, n-1, funcLine)
	for k := 0; k < n; k++ {
		mark := " "
		switch k {
		case n / 2:
			mark = "-"
		case n/2 + 1:
			mark = "+"
		}
		sb.WriteString(mark + text[start+k] + "\n")
	}
}

// writeNewFileDiff writes the diff that creates path with text.
func writeNewFileDiff(sb *strings.Builder, path, text string, sum [sha1.Size]byte) {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	fmt.Fprintf(sb, "diff --git a/%s b/%s\nnew file mode 100644\nindex 0000000..%x\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n",
		path, path, sum[:4], path, len(lines))
	for _, l := range lines {
		sb.WriteString("+" + l + "\n")
	}
}

// headTail keeps the first and last keep bytes of s with cuff's marker in
// between, as the recorder does when a stream exceeds its limit, and
// returns the number of bytes left out.
func headTail(s string, keep int) (string, int64) {
	if len(s) <= 2*keep {
		return s, 0
	}
	omitted := len(s) - 2*keep
	return fmt.Sprintf("%s\n\n[... cuff: %d bytes omitted ...]\n\n%s", s[:keep], omitted, s[len(s)-keep:]), int64(omitted)
}
