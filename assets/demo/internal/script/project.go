package script

import (
	"fmt"
	"strings"
)

// The demo project: a small Go module whose version sorting is wrong once a
// pre-release number reaches two digits.
const (
	projectDir    = "/home/dev/src/verkit"
	modulePath    = "github.com/nmarsh/verkit"
	comparePath   = "version/compare.go"
	testPath      = "version/version_test.go"
	corpusPath    = "version/precedence_test.go"
	corpusSize    = 1499 // versions in the precedence corpus: 1,498 adjacent pairs
	fuzzSeedCount = 38   // corpus entries added as fuzz seeds
)

// files is the part of the demo project the session reads and edits, keyed
// by path relative to projectDir.
type files map[string]string

// abs returns the absolute path of a project file.
func abs(rel string) string { return projectDir + "/" + rel }

// edit replaces the one occurrence of old in the file, as the Edit tool does;
// anything but exactly one occurrence is an error in the story.
func (fs files) edit(rel, old, new string) error {
	text, ok := fs[rel]
	if !ok {
		return fmt.Errorf("edit %s: no such file", rel)
	}
	if n := strings.Count(text, old); n != 1 {
		return fmt.Errorf("edit %s: old_string occurs %d times, want 1", rel, n)
	}
	fs[rel] = strings.Replace(text, old, new, 1)
	return nil
}

// numbered renders lines first..last (1-based, inclusive) of text the way
// Claude Code's Read and Edit tools show file contents.
func numbered(text string, first, last int) string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	first = max(first, 1)
	last = min(last, len(lines))
	var sb strings.Builder
	for i := first; i <= last; i++ {
		fmt.Fprintf(&sb, "%6d→%s\n", i, lines[i-1])
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// lineOf returns the 1-based line and column of the first occurrence of
// needle in text, or an error when it is missing.
func lineOf(text, needle string) (line, col int, err error) {
	i := strings.Index(text, needle)
	if i < 0 {
		return 0, 0, fmt.Errorf("%q not found", needle)
	}
	line = strings.Count(text[:i], "\n") + 1
	col = i - strings.LastIndex(text[:i], "\n")
	return line, col, nil
}

// editSnippet is the Edit tool's answer: the edited region with a few
// lines of context, numbered.
func editSnippet(rel, text, inserted string) (string, error) {
	start, _, err := lineOf(text, inserted)
	if err != nil {
		return "", fmt.Errorf("snippet of %s: %w", rel, err)
	}
	end := start + strings.Count(inserted, "\n")
	const context = 4
	return fmt.Sprintf("The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s",
		abs(rel), numbered(text, start-context, end+context)), nil
}

// compareSource is version/compare.go before the fix.
const compareSource = `package version

import "strings"

// Compare returns -1, 0 or +1 when a has lower, equal or higher precedence
// than b. Build metadata does not take part in precedence.
func Compare(a, b Version) int {
	if c := cmpInt(a.Major, b.Major); c != 0 {
		return c
	}
	if c := cmpInt(a.Minor, b.Minor); c != 0 {
		return c
	}
	if c := cmpInt(a.Patch, b.Patch); c != 0 {
		return c
	}
	return comparePrerelease(a.Pre, b.Pre)
}

// Less reports whether a has lower precedence than b.
func Less(a, b Version) bool { return Compare(a, b) < 0 }

// comparePrerelease orders two pre-release identifier lists. A version
// without a pre-release has higher precedence than one with.
func comparePrerelease(a, b []string) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return 1
	case len(b) == 0:
		return -1
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(a), len(b))
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
`

// The fix, as two Edit calls: first the loop and the new function, then
// the imports the first edit forgot.
const (
	fixOld = `		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(a), len(b))
}
`
	fixNew = `		if c := compareIdentifier(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(a), len(b))
}

// compareIdentifier orders two pre-release identifiers as the spec says:
// numeric identifiers compare by value and sort below alphanumeric ones,
// which compare in ASCII order. Comparing "10" and "2" as strings put
// 1.4.0-rc.10 before 1.4.0-rc.2 (issue #42).
func compareIdentifier(a, b string) int {
	an, aErr := strconv.ParseUint(a, 10, 64)
	bn, bErr := strconv.ParseUint(b, 10, 64)
	switch {
	case aErr == nil && bErr == nil:
		return cmp.Compare(an, bn)
	case aErr == nil:
		return -1
	case bErr == nil:
		return 1
	}
	return strings.Compare(a, b)
}
`
	importOld = `import "strings"`
	importNew = "import (\n\t\"cmp\"\n\t\"strconv\"\n\t\"strings\"\n)"
)

// regressionCases are the TestCompare cases the agent adds for the issue.
var regressionCases = [][2]string{
	{"1.4.0-rc.2", "1.4.0-rc.10"},
	{"1.4.0-rc.10", "1.4.0-rc.9"},
	{"1.0.0-alpha.9", "1.0.0-alpha.10"},
	{"1.0.0-alpha.1", "1.0.0-alpha.beta"},
	{"2.0.0-11.a", "2.0.0-2.a"},
}

// compareOrdered is the original test suite's ordered list: single-digit
// pre-release numbers only, which is why the bug went unnoticed.
var compareOrdered = []string{
	"0.9.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
	"1.0.0-beta.x", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0-0.3.7", "1.1.0", "1.9.0", "1.10.0",
	"2.0.0-rc.1", "2.0.0", "10.0.0",
}

// compareCaseLine formats one TestCompare table row with the precedence
// the fixed code gives.
func compareCaseLine(a, b string) (string, error) {
	want, err := compareStrings(a, b, true)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("\t\t{%q, %q, %d},\n", a, b, want), nil
}

// versionTestSource builds version/version_test.go before the agent's edit.
// Every existing case passes with the original comparison; the function
// checks that, so the story's "the old tests were green" holds.
func versionTestSource() (string, error) {
	var sb strings.Builder
	sb.WriteString("package version\n\nimport (\n\t\"reflect\"\n\t\"testing\"\n)\n\n")
	sb.WriteString("func TestParse(t *testing.T) {\n\ttests := []struct {\n\t\tin      string\n\t\twant    Version\n\t\twantErr bool\n\t}{\n")
	cores := []string{"0.1.0", "1.0.0", "1.2.3", "2.10.4", "10.20.30"}
	pres := []string{"", "alpha", "alpha.1", "beta.2", "rc.1", "0.3.7", "x.7.z.92", "x-y-z.--"}
	builds := []string{"", "build.5", "sha.5114f85"}
	for _, c := range cores {
		for _, p := range pres {
			for _, b := range builds {
				s := c
				if p != "" {
					s += "-" + p
				}
				if b != "" {
					s += "+" + b
				}
				v, err := parseSemver(s)
				if err != nil {
					return "", fmt.Errorf("valid parse case: %w", err)
				}
				fmt.Fprintf(&sb, "\t\t{%q, %s, false},\n", s, v.goLiteral())
			}
		}
	}
	invalid := []string{"", "1", "1.2", "1.2.3.4", "01.1.1", "1.01.1", "1.1.01", "v1.2.3", "-1.0.0",
		"1.2.3-", "1.2.3+", "1.2.3-0123", "1.2.3-rc.01", "1.2.3-alpha..1", "1.2.3-alpha_beta",
		"1.2.3+build..1", "1.2.3 ", "a.b.c", "99999999999999999999.0.0"}
	for _, s := range invalid {
		if _, err := parseSemver(s); err == nil {
			return "", fmt.Errorf("invalid parse case %q parses", s)
		}
		fmt.Fprintf(&sb, "\t\t{%q, Version{}, true},\n", s)
	}
	sb.WriteString(`	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Parse(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			}
			if err == nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
`)
	var pairs [][2]string
	for i, v := range compareOrdered {
		pairs = append(pairs, [2]string{v, v})
		if i > 0 {
			pairs = append(pairs, [2]string{compareOrdered[i-1], v}, [2]string{v, compareOrdered[i-1]})
		}
	}
	pairs = append(pairs, [][2]string{{"1.0.0+build.1", "1.0.0+build.2"}, {"1.0.0-rc.1+a", "1.0.0-rc.1"},
		{"1.0.0-alpha", "1.0.0"}, {"0.0.1", "10.0.0"}}...)
	for _, p := range pairs {
		buggy, err := compareStrings(p[0], p[1], false)
		if err != nil {
			return "", err
		}
		if fixed, _ := compareStrings(p[0], p[1], true); fixed != buggy {
			return "", fmt.Errorf("existing case %s vs %s already fails", p[0], p[1])
		}
		line, _ := compareCaseLine(p[0], p[1])
		sb.WriteString(line)
	}
	sb.WriteString(`	}
	for _, tt := range tests {
		t.Run(tt.a+"_vs_"+tt.b, func(t *testing.T) {
			got := Compare(MustParse(tt.a), MustParse(tt.b))
			if got != tt.want {
				t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestString(t *testing.T) {
	for _, s := range []string{"0.0.0", "1.2.3", "1.2.3-rc.1", "1.2.3+build.5", "1.2.3-x.7.z.92+sha.5114f85"} {
		if got := MustParse(s).String(); got != s {
			t.Errorf("MustParse(%q).String() = %q", s, got)
		}
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse(\"1.2\") did not panic")
		}
	}()
	MustParse("1.2")
}
`)
	return sb.String(), nil
}

// regressionEdit returns the Edit that adds regressionCases after the last
// existing TestCompare row.
func regressionEdit() (old, new string, err error) {
	old = "\t\t{\"0.0.1\", \"10.0.0\", -1},\n\t}\n"
	var sb strings.Builder
	sb.WriteString("\t\t{\"0.0.1\", \"10.0.0\", -1},\n\t\t// Numeric identifiers compare by value (issue #42).\n")
	for _, c := range regressionCases {
		line, err := compareCaseLine(c[0], c[1])
		if err != nil {
			return "", "", err
		}
		sb.WriteString(line)
	}
	sb.WriteString("\t}\n")
	return old, sb.String(), nil
}

// corpus lists corpusSize versions in strictly increasing precedence: for
// each 1.N.0, alpha and beta (bare, then .1 to .12), rc.1 to rc.12, then
// the release. The Go test the agent writes builds the same list.
func corpus() ([]string, error) {
	var out []string
	for minor := 0; len(out) < corpusSize; minor++ {
		core := fmt.Sprintf("1.%d.0", minor)
		for _, tag := range []string{"alpha", "beta"} {
			out = append(out, core+"-"+tag)
			for n := 1; n <= 12; n++ {
				out = append(out, fmt.Sprintf("%s-%s.%d", core, tag, n))
			}
		}
		for n := 1; n <= 12; n++ {
			out = append(out, fmt.Sprintf("%s-rc.%d", core, n))
		}
		out = append(out, core)
	}
	out = out[:corpusSize]
	for i := 1; i < len(out); i++ {
		if c, err := compareStrings(out[i-1], out[i], true); err != nil || c != -1 {
			return nil, fmt.Errorf("corpus not increasing at %s, %s (%d, %v)", out[i-1], out[i], c, err)
		}
	}
	return out, nil
}

// corpusSource is the test file the agent writes with the Write tool.
var corpusSource = fmt.Sprintf(`package version

import (
	"fmt"
	"testing"
)

// corpusSize is how many versions the precedence corpus holds.
const corpusSize = %d

// corpus returns corpusSize versions in strictly increasing precedence: for
// each 1.N.0, alpha and beta (bare, then .1 to .12), rc.1 to rc.12, then the
// release itself. Two-digit numbers are the point: they caught issue #42.
func corpus() []string {
	var out []string
	for minor := 0; len(out) < corpusSize; minor++ {
		core := fmt.Sprintf("1.%%d.0", minor)
		for _, tag := range []string{"alpha", "beta"} {
			out = append(out, core+"-"+tag)
			for n := 1; n <= 12; n++ {
				out = append(out, fmt.Sprintf("%%s-%%s.%%d", core, tag, n))
			}
		}
		for n := 1; n <= 12; n++ {
			out = append(out, fmt.Sprintf("%%s-rc.%%d", core, n))
		}
		out = append(out, core)
	}
	return out[:corpusSize]
}

func TestCompareCorpus(t *testing.T) {
	versions := corpus()
	for i := 1; i < len(versions); i++ {
		lo, hi := versions[i-1], versions[i]
		t.Run(lo+"<"+hi, func(t *testing.T) {
			a, b := MustParse(lo), MustParse(hi)
			if got := Compare(a, b); got != -1 {
				t.Errorf("Compare(%%q, %%q) = %%d, want -1", lo, hi, got)
			}
			if got := Compare(b, a); got != 1 {
				t.Errorf("Compare(%%q, %%q) = %%d, want 1", hi, lo, got)
			}
		})
	}
}

// FuzzCompare checks that Compare is antisymmetric on any two versions
// that parse.
func FuzzCompare(f *testing.F) {
	for _, v := range corpus()[:%d] {
		f.Add(v, "1.0.0-rc.10")
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		a, errA := Parse(x)
		b, errB := Parse(y)
		if errA != nil || errB != nil {
			t.Skip()
		}
		if ab, ba := Compare(a, b), Compare(b, a); ab != -ba {
			t.Errorf("Compare(%%q, %%q) = %%d but Compare(%%q, %%q) = %%d", x, y, ab, y, x, ba)
		}
	})
}
`, corpusSize, fuzzSeedCount)
