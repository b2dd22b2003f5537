package gitignore

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		base, text, path string
		dir              bool
		want             bool
	}{
		{"", ".env\n", ".env", false, true},
		{"", ".env\n", "a/b/.env", false, true},
		{"", "/.env\n", "a/.env", false, false},
		{"", "/.env\n", ".env", false, true},
		{"", ".env*\n!.env.example\n", ".env.example", false, false},
		{"", ".env*\n!.env.example\n", ".env.local", false, true},
		{"", "!.env\n.env\n", ".env", false, true}, // the last match decides
		{"", "build/\n", "build", true, true},
		{"", "build/\n", "build", false, false},
		{"", "a/*.pem\n", "a/b/x.pem", false, false},
		{"", "a/*.pem\n", "a/x.pem", false, true},
		{"", "a/**/x.pem\n", "a/x.pem", false, true},
		{"", "a/**/x.pem\n", "a/b/c/x.pem", false, true},
		{"", "**/secrets\n", "x/y/secrets", true, true},
		{"", "a/**\n", "a/q/r", false, true},
		{"", "a/**\n", "a", true, false},
		{"", "*.py[cod]\n", "m.pyc", false, true},
		{"", "*.py[!cod]\n", "m.pyc", false, false},
		{"", "x[[:digit:]]\n", "x7", false, true},
		{"", "\\#x\n", "#x", false, true},
		{"", "#x\n", "#x", false, false},
		{"", "\\!x\n", "!x", false, true},
		{"", "x \n", "x", false, true},
		{"", "x\\ \n", "x ", false, true},
		{"", ".env\r\n", ".env", false, true},
		{"", "\xef\xbb\xbf.env\n", ".env", false, true},
		{"sub", "/k.pem\n", "sub/k.pem", false, true},
		{"sub", "/k.pem\n", "k.pem", false, false},
		{"sub", "k.pem\n", "sub/deep/k.pem", false, true},
		// In doubt: an ignore pattern matches nothing, a negation everything.
		{"", "x[\n", "x[", false, false},
		{"", "*\n!x[\n", "anything", false, false},
		{"", "a[/]b\n", "a/b", false, false},
	}
	for _, c := range cases {
		got, _ := Parse(c.base, []byte(c.text)).Match(c.path, c.dir)
		if got != c.want {
			t.Errorf("%q in %q: %q (dir %v) ignored %v, want %v", c.text, c.base, c.path, c.dir, got, c.want)
		}
	}
}

func TestWalkStopsAtItsBudget(t *testing.T) {
	top := t.TempDir()
	for _, f := range []string{"a", "b", "c", "d/e"} {
		os.MkdirAll(filepath.Dir(filepath.Join(top, f)), 0o755)
		os.WriteFile(filepath.Join(top, f), nil, 0o644)
	}
	err := Walk(top, top, WalkOptions{Max: 3}, func(string, bool) bool { return true })
	if !errors.Is(err, ErrTooMany) {
		t.Errorf("Walk over 5 entries with a budget of 3: %v", err)
	}
}

// gitAvailable skips the test where git is not installed.
func gitAvailable(t testing.TB) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
}

// untrackedByGit is what git itself lists as untracked and not ignored
// in the repository at top (git ls-files -o --exclude-standard): what
// git add -A would stage, with a private configuration.
func untrackedByGit(t testing.TB, top string) []string {
	t.Helper()
	cmd := exec.Command("git", "-c", "core.excludesFile=/dev/null", "ls-files", "-o", "--exclude-standard", "-z")
	cmd.Dir = top
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+top)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			files = append(files, string(f))
		}
	}
	slices.Sort(files)
	return files
}

// walked is what Walk finds in the whole tree.
func walked(t testing.TB, top string) []string {
	t.Helper()
	var files []string
	info, _ := os.ReadFile(top + "/.git/info/exclude")
	if err := Walk(top, top, WalkOptions{Rules: Stack{Parse("", info)}, Max: 100000}, func(rel string, _ bool) bool {
		files = append(files, rel)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// gitRepo makes a repository with the files (path → content; content
// "/" makes a directory) and returns its top.
func gitRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	top, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "init", "-q", top)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for f, body := range files {
		p := filepath.Join(top, f)
		if body == "/" {
			os.MkdirAll(p, 0o755)
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return top
}

// TestWalkAgreesWithGit holds Walk to git's own list of what git add -A
// stages, over ignore files at several levels, negations, directory
// patterns and info/exclude.
func TestWalkAgreesWithGit(t *testing.T) {
	gitAvailable(t)
	trees := []map[string]string{
		{".gitignore": ".env\n", ".env": "x", "a/.env": "x", "a/b.go": "x", "README": "x"},
		{".gitignore": "/.env\n", ".env": "x", "a/.env": "x"},
		{".gitignore": "*.pem\n!public.pem\n", "k.pem": "x", "public.pem": "x", "d/public.pem": "x", "d/k.pem": "x"},
		{".gitignore": "secrets/\n!secrets/keep.pem\n", "secrets/keep.pem": "x", "secrets/a.pem": "x"},
		{".gitignore": "secrets/*\n!secrets/keep.pem\n", "secrets/keep.pem": "x", "secrets/a.pem": "x"},
		{".gitignore": "config\n", "config/prod/.env": "x", "src/config.go": "x"},
		{".gitignore": "config/\n", "config": "file", "x/config/y": "x"},
		{"sub/.gitignore": "!.env\n", ".gitignore": ".env\n", "sub/.env": "x", ".env": "x", "other/.env": "x"},
		{"sub/.gitignore": "/deep/.env\n", "sub/deep/.env": "x", "sub/x/deep/.env": "x"},
		{".gitignore": "a/**/k.key\n", "a/k.key": "x", "a/b/c/k.key": "x", "b/a/k.key": "x"},
		{".gitignore": "**/node_modules\n", "node_modules/x/.env": "x", "w/node_modules/.env": "x", ".env": "x"},
		{".gitignore": "*.p[eE]m\n", "a.pem": "x", "b.pEm": "x", "c.pfm": "x"},
		{".gitignore": ".env \n", ".env": "x"},
		{".gitignore": ".env\r\n*.key\r\n", ".env": "x", "a.key": "x"},
		{".gitignore": "\\!x\n\\#y\n", "!x": "x", "#y": "x"},
		{".gitignore": "*\n!*/\n!*.go\n", "a/b.go": "x", "a/.env": "x", "c.go": "x"},
		{".gitignore": "*\n!.gitignore\n", ".env": "x"},
		{".git/info/exclude": ".env\n", ".env": "x", "d/.env": "x"},
		{".gitignore": "d\n!d/.env\n", "d/.env": "x"},
		{".gitignore": "[\n.env\n", ".env": "x", "[": "x"},
		{".gitignore": "x[!a-c].env\n", "xd.env": "x", "xa.env": "x"},
		{".gitignore": "**.env\n", "a.env": "x", "d/b.env": "x"},
		{".gitignore": "d/**\n!d/keep/\n!d/keep/**\n", "d/keep/.env": "x", "d/other/.env": "x"},
	}
	for i, files := range trees {
		top := gitRepo(t, files)
		if want, got := untrackedByGit(t, top), walked(t, top); !slices.Equal(want, got) {
			t.Errorf("tree %d %v:\ngit lists %q\nWalk finds %q", i, files, want, got)
		}
	}
}

// FuzzIgnored builds a repository with one .gitignore (two patterns) and
// a file, and holds Walk to git: whatever the patterns, Walk never misses
// a file git would stage. With git at hand it compares exactly; the seeds
// run in every go test.
func FuzzIgnored(f *testing.F) {
	seeds := [][3]string{
		{".env", "", ".env"}, {"*.pem", "!a.pem", "a.pem"}, {"/d/", "", "d/x"}, {"d/**", "!d/k", "d/k"},
		{"**/x", "", "a/b/x"}, {"[a-", "", "[a-"}, {"x\\", "", "x\\"}, {"a/*/b", "", "a/q/b"}, {"*", "!*/", "q/r"},
		{"[[:alpha:]]", "", "q"}, {"[]]", "", "]"}, {"[!]]", "", "a"}, {"\\ ", "", " "}, {"é", "", "é"},
		{"*.[", "", "a.["}, {"a/**b", "", "a/xb"}, {"**/", "", "d/x"}, {"!", "", "x"}, {"/**/k", "", "a/k"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, p1, p2, file string) {
		r := Parse("", []byte(p1+"\n"+p2+"\n"))
		r.Match(file, false) // never panics
		file = strings.Trim(file, "/")
		if file == "" || strings.ContainsAny(p1+p2+file, "\x00\n\r") || strings.Contains(file, "//") ||
			len(file) > 60 || slices.ContainsFunc(strings.Split(file, "/"), func(s string) bool {
			return s == "." || s == ".." || s == ".git" || s == ".gitignore" || strings.HasPrefix(s, "-")
		}) {
			return
		}
		if _, err := exec.LookPath("git"); err != nil {
			return
		}
		top := gitRepo(t, map[string]string{".gitignore": p1 + "\n" + p2 + "\n", file: "x"})
		want, got := untrackedByGit(t, top), walked(t, top)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("patterns %q %q: git stages %q, Walk misses it (Walk: %q)", p1, p2, w, got)
			}
		}
	})
}

// TestWalkReportsGitConfig: with GitConfig, each .git directory's config
// is reported (a reader that is not git reads it), nothing else of .git;
// a .git directory left out by SkipDir is not.
func TestWalkReportsGitConfig(t *testing.T) {
	top := t.TempDir()
	for _, f := range []string{".git/config", ".git/HEAD", "sub/.git/config", "sub/a.go", "b.go"} {
		os.MkdirAll(filepath.Join(top, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(top, f), nil, 0o644)
	}
	walk := func(o WalkOptions) []string {
		var got []string
		o.NoIgnore, o.Max = true, 1000
		Walk(top, top, o, func(rel string, _ bool) bool { got = append(got, rel); return true })
		slices.Sort(got)
		return got
	}
	if got, want := walk(WalkOptions{GitConfig: true}), []string{".git/config", "b.go", "sub/.git/config", "sub/a.go"}; !slices.Equal(got, want) {
		t.Errorf("with GitConfig: %q, want %q", got, want)
	}
	if got, want := walk(WalkOptions{}), []string{"b.go", "sub/a.go"}; !slices.Equal(got, want) {
		t.Errorf("without GitConfig: %q, want %q", got, want)
	}
	if got, want := walk(WalkOptions{GitConfig: true, SkipDir: func(n string) bool { return n == ".git" }}), []string{"b.go", "sub/a.go"}; !slices.Equal(got, want) {
		t.Errorf("with .git skipped: %q, want %q", got, want)
	}
}
