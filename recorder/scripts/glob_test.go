package scripts

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMatchSupportsStarGlobstarQuestionAndClasses(t *testing.T) {
	cases := []struct {
		pattern, path string
		want          bool
	}{
		{"scripts/*.sh", "scripts/build.sh", true},
		{"scripts/*.sh", "scripts/ci/build.sh", false}, // * does not cross /
		{"scripts/*.sh", "build.sh", false},
		{"*.sh", "build.sh", true},
		{"*.sh", "scripts/build.sh", false}, // anchored at the base directory
		{"tools/**/*.sh", "tools/a.sh", true},
		{"tools/**/*.sh", "tools/db/a.sh", true},
		{"tools/**/*.sh", "tools/db/x/y/a.sh", true},
		{"tools/**/*.sh", "other/tools/a.sh", false},
		{"**/*_test.sh", "run_test.sh", true},
		{"**/*_test.sh", "a/b/run_test.sh", true},
		{"**", "a/b/c", true},
		{"scripts/build?.sh", "scripts/build2.sh", true},
		{"scripts/build?.sh", "scripts/build.sh", false},
		{"scripts/[abc].sh", "scripts/b.sh", true},
		{"scripts/[abc].sh", "scripts/d.sh", false},
		{"scripts/[", "scripts/[", false}, // bad syntax matches nothing
		{"./scripts/*.sh", "scripts/x.sh", true},
		{`scripts/\[old\].sh`, "scripts/[old].sh", true},
		{`scripts/\[old\].sh`, "scripts/o.sh", false},
		{"build/deploy.sh", "build/deploy.sh", true},
		{"", "x", false},
	}
	for _, c := range cases {
		if got := Match(c.pattern, c.path); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
}

func TestValidatePatternRejectsEscapesAndBadSyntax(t *testing.T) {
	for _, p := range []string{"scripts/*.sh", "**/*.py", "build/deploy.sh", "bin/*", "[ab]/*.sh"} {
		if err := ValidatePattern(p); err != nil {
			t.Errorf("ValidatePattern(%q) = %v", p, err)
		}
	}
	for p, want := range map[string]string{
		"":              "empty",
		"  ":            "empty",
		"/etc/*.sh":     "absolute",
		"../*.sh":       "leaves the base directory",
		"a/../../b.sh":  "leaves the base directory",
		"scripts/[.sh":  "not a valid glob",
		"scripts/a\x00": "NUL",
	} {
		err := ValidatePattern(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ValidatePattern(%q) = %v, want an error about %q", p, err, want)
		}
	}
}

func TestQuotePatternMatchesOnlyThatPath(t *testing.T) {
	for _, p := range []string{"scripts/[old].sh", "a*b?.sh", `back\slash.sh`, "plain/x.sh"} {
		q := QuotePattern(p)
		if err := ValidatePattern(q); err != nil {
			t.Fatalf("QuotePattern(%q) = %q: %v", p, q, err)
		}
		if !Match(q, p) {
			t.Errorf("QuotePattern(%q) = %q does not match the path", p, q)
		}
	}
	if Match(QuotePattern("a*.sh"), "abc.sh") {
		t.Error("a quoted * still matches other names")
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("scripts/*.sh", "scripts/build.sh")
	f.Add("**/**/x", "a/b/x")
	f.Add("[", "[")
	f.Add("a/**", "a")
	f.Add(`\*`, "*")
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		got := Match(pattern, rel) // must not panic or hang
		if got != Match(pattern, rel) {
			t.Fatal("not deterministic")
		}
		// "**" matches every path; a quoted path matches itself.
		if rel != "" && !Match("**", rel) {
			t.Fatalf("** does not match %q", rel)
		}
		if rel != "" && !strings.Contains(rel, "//") && !strings.HasSuffix(rel, "/") &&
			!slices.ContainsFunc(strings.Split(rel, "/"), func(s string) bool { return s == "." || s == ".." || s == "" }) {
			if q := QuotePattern(rel); !Match(q, rel) {
				t.Fatalf("QuotePattern(%q) = %q does not match it", rel, q)
			}
		}
	})
}

func TestLoadFindsPatternsMinusExcludeUnderTheBaseDirectory(t *testing.T) {
	dir := tree(t, map[string]string{
		"scripts/build.sh":          "#!/bin/sh\n",
		"scripts/internal_x.sh":     "#!/bin/sh\n",
		"scripts/run_test.sh":       "#!/bin/sh\n",
		"scripts/notes.txt":         "x",
		"tools/a/b/deep.sh":         "#!/bin/sh\n",
		"tools/a/b/deep_test.sh":    "#!/bin/sh\n",
		"build/deploy.sh":           "#!/bin/sh\n",
		"build/other.sh":            "#!/bin/sh\n",
		"vendor/internal/hidden.sh": "#!/bin/sh\n",
		"vendor/ok.sh":              "#!/bin/sh\n",
	})
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"scripts/*.sh", "build/deploy.sh", "tools/**/*.sh", "vendor/**/*.sh"},
		Exclude: []string{"scripts/internal_*.sh", "**/*_test.sh", "vendor/internal"}})
	want := []string{"script_build_deploy", "script_scripts_build", "script_tools_a_b_deep", "script_vendor_ok"}
	if got := names(s); !slices.Equal(got, want) {
		t.Errorf("scripts %v, want %v", got, want)
	}

	// Patterns are relative to base_directory, and so are the tool names.
	s = mustLoad(t, Config{Root: dir, BaseDirectory: "tools", Patterns: []string{"**/*.sh"}})
	if got := names(s); !slices.Equal(got, []string{"script_a_b_deep", "script_a_b_deep_test"}) {
		t.Errorf("base directory tools: %v", got)
	}
	if _, err := Load(Config{Root: dir, BaseDirectory: "nope", Patterns: []string{"*.sh"}}); err == nil ||
		!strings.Contains(err.Error(), `scripts.base_directory "nope" is not a directory`) {
		t.Errorf("missing base directory: %v", err)
	}
	if _, err := Load(Config{Root: dir, Patterns: []string{"../*.sh"}}); err == nil || !strings.Contains(err.Error(), "scripts.patterns") {
		t.Errorf("bad pattern: %v", err)
	}
	if _, err := Load(Config{Root: dir, Patterns: []string{"*.sh"}, Exclude: []string{"/x"}}); err == nil || !strings.Contains(err.Error(), "scripts.exclude") {
		t.Errorf("bad exclude: %v", err)
	}
}

func TestGlobstarDoesNotFollowSymlinkLoops(t *testing.T) {
	dir := tree(t, map[string]string{"a/x.sh": "#!/bin/sh\n"})
	if err := os.Symlink("..", filepath.Join(dir, "a", "loop")); err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"**/*.sh"}})
	if got := names(s); !slices.Equal(got, []string{"script_a_x"}) {
		t.Errorf("got %v", got)
	}
}

func TestAWalkOverTheLimitIsAnErrorNotAHang(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		write(t, dir, fmt.Sprintf("d/f%d.sh", i), "#!/bin/sh\n")
	}
	w := newWalker(dir)
	w.limit = 20
	err := w.expand("**/*.sh")
	if err == nil || !strings.Contains(err.Error(), "more than 20") {
		t.Fatalf("got %v", err)
	}
}

func TestUnreadableDirectoryIsAWarning(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	dir := tree(t, map[string]string{"scripts/locked/a.sh": "#!/bin/sh\n", "scripts/b.sh": "#!/bin/sh\n"})
	locked := filepath.Join(dir, "scripts", "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"scripts/**/*.sh"}})
	if !slices.Equal(names(s), []string{"script_scripts_b"}) || len(s.Warnings) == 0 || s.Warnings[0].Kind != WarnUnreadable {
		t.Errorf("scripts %v warnings %v", names(s), s.Warnings)
	}
}

func BenchmarkMatch(b *testing.B) {
	for b.Loop() {
		Match("tools/**/deploy-*.sh", "tools/a/b/c/d/deploy-prod.sh")
	}
}

func BenchmarkLoad1000Scripts(b *testing.B) {
	dir := b.TempDir()
	for i := range 1000 {
		write(b, dir, fmt.Sprintf("scripts/d%d/s%d.sh", i%20, i), "#!/bin/sh\n# Does thing\necho hi\n")
	}
	cfg := Config{Root: dir, Patterns: []string{"scripts/**/*.sh"}, Exclude: []string{"**/*_test.sh"}}
	for b.Loop() {
		if _, err := Load(cfg); err != nil {
			b.Fatal(err)
		}
	}
}
