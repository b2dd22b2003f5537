package gate

import (
	"strings"
	"testing"
)

// guardedCase is a command and the verdict it must get; why, when set, is
// a piece of the reasons, so that a case cannot pass for another reason.
type guardedCase struct {
	cmd  string
	want Verdict
	why  string
}

func checkGuardedCases(t *testing.T, g *Gate, cases []guardedCase) {
	t.Helper()
	for _, tc := range cases {
		r := g.Check(t.Context(), tc.cmd, 0)
		if r.Verdict != tc.want {
			t.Errorf("%q: got %s (%s), want %s; reasons: %v", tc.cmd, r.Verdict, r.Tier, tc.want, r.Reasons)
			continue
		}
		if tc.why != "" && !strings.Contains(strings.Join(r.Reasons, "\n"), tc.why) {
			t.Errorf("%q: %s, but the reasons do not say %q: %v", tc.cmd, r.Verdict, tc.why, r.Reasons)
		}
	}
}

// TestGuardedDirectories checks that deleting, moving or writing the
// workspace's .cuff, .claude, .codex and .git is asked about however the
// path is spelled, while reading them and git's own commands stay allowed.
func TestGuardedDirectories(t *testing.T) {
	g := testGate(t, Options{}) // workspace /home/u/project, home /home/u
	checkGuardedCases(t, g, []guardedCase{
		// rm and its kin, each guarded directory and the files inside.
		{"rm -rf .cuff/recordings .cuff/policy.yml", VerdictAsk, "(.cuff)"},
		{"rm .cuff/policy.yml", VerdictAsk, "part of cuff's policy"},
		{"rm -rf .cuff", VerdictAsk, "(.cuff)"},
		{"rm -rf .claude", VerdictAsk, "(.claude)"},
		{"rm -rf .codex", VerdictAsk, "(.codex)"},
		{"rm -rf .git", VerdictAsk, "the repository's history"},
		{"rm -f .claude/settings.json", VerdictAsk, "(.claude)"},
		{"unlink .cuff/policy.yml", VerdictAsk, "(.cuff)"},
		{"rmdir .cuff", VerdictAsk, "(.cuff)"},
		{"rmdir .git/refs/tags", VerdictAsk, "(.git)"},
		{"shred -u .cuff/policy.yml", VerdictAsk, "shred"},
		// Other spellings of the same paths.
		{"rm -rf ./.cuff", VerdictAsk, "(.cuff)"},
		{"rm -rf .cuff/", VerdictAsk, "(.cuff)"},
		{"rm -rf /home/u/project/.git", VerdictAsk, "(.git)"},
		{"rm -rf ~/project/.claude", VerdictAsk, "(.claude)"},
		{"rm -rf src/../.git", VerdictAsk, "(.git)"},
		{"rm -rf src/../../project/.cuff", VerdictAsk, "(.cuff)"},
		{"cd .git && rm -rf objects", VerdictAsk, "(.git)"},
		{"cd src && rm -rf ../.git", VerdictAsk, "(.git)"},
		{"rm -rf {.git,build}", VerdictAsk, "(.git)"},
		{`rm -rf ".git"`, VerdictAsk, "(.git)"},
		{`rm -rf \.cuff`, VerdictAsk, "(.cuff)"},
		{"rm -rf vendor/lib/.git", VerdictAsk, "(.git)"},
		// Globs: a leading dot matched explicitly, or any pattern at the
		// workspace root (the shell may have dotglob on).
		{"rm -rf .[a-z]*", VerdictAsk, "(.git)"},
		{"rm -rf .c*", VerdictAsk, "(.cuff)"},
		{"rm -rf .??*", VerdictAsk, "(.git)"},
		{"rm -rf .[!.]*", VerdictAsk, "(.git)"},
		{"rm -rf .cl?ude", VerdictAsk, "(.claude)"},
		{"rm -rf src/.*", VerdictAsk, "(.git)"},
		{"rm -rf ./.g*", VerdictAsk, "(.git)"},
		{"rm -rf /home/u/project/.c*", VerdictAsk, "(.cuff)"},
		{"rm -rf src/@(.git)", VerdictAsk, "(.git)"},
		{"rm -rf .*.swp", VerdictAllow, ""},
		{"rm -rf build/.cache", VerdictAllow, ""},
		{"rm -rf .gitignore.orig .github-old", VerdictAllow, ""},
		{"rm -rf src/*/testdata", VerdictAllow, ""},
		{"rm -rf build dist", VerdictAllow, ""},
		// find -delete is rm -r of its starting points.
		{"find .cuff -delete", VerdictAsk, "(.cuff)"},
		{"find .git -delete", VerdictAsk, "(.git)"},
		{"find .claude -name '*.json' -delete", VerdictAsk, "(.claude)"},
		{"find . -delete", VerdictAsk, "the whole workspace"},
		{"find ./ -mindepth 1 -delete", VerdictAsk, "the whole workspace"},
		{"find /home/u/project -type f -delete", VerdictAsk, "the whole workspace"},
		{"find -delete", VerdictAsk, "the whole workspace"},
		{"find . -name '*.json' -delete", VerdictAsk, "the whole workspace"},
		{"find . -iname 'SETTINGS.JSON' -delete", VerdictAsk, "the whole workspace"},
		{"find . -name '*.pack' -delete", VerdictAsk, "the whole workspace"},
		{"find . -name '*' -delete", VerdictAsk, "the whole workspace"},
		{"find . ! -name '*.go' -delete", VerdictAsk, "the whole workspace"},
		{"find . -name '*.pyc' -o -delete", VerdictAsk, "the whole workspace"},
		{"find . -delete -name '*.pyc'", VerdictAsk, "the whole workspace"},
		{"find . -name '*.tmp' , -delete", VerdictAsk, "the whole workspace"},
		{"find . \\( -name '*.pyc' -o -type f \\) -delete", VerdictAsk, "the whole workspace"},
		{"find src . -name x -delete -o -delete", VerdictAsk, "the whole workspace"},
		{"find ~/other -delete", VerdictAsk, "outside the workspace"},
		{"find . -name '*.orig' -delete", VerdictAllow, ""},
		{"find . -type f -name '*.pyc' -delete", VerdictAllow, ""},
		{"find . -iname '*.ORIG' -delete", VerdictAllow, ""},
		{"find . \\( -name '*.pyc' -o -name '*.pyo' \\) -delete", VerdictAllow, ""},
		{"find . -path ./.git -prune -o -name '*.rej' -delete", VerdictAllow, ""},
		{"find . -name .DS_Store -delete", VerdictAllow, ""},
		{"find src -delete", VerdictAllow, ""},
		{"find build -mindepth 1 -delete", VerdictAllow, ""},
		// find -exec and kin: {} may be a file in .git when find starts at
		// the root and no -name test rules the guarded contents out.
		{"find . -exec rm {} +", VerdictAsk, "(.git)"},
		{"find . -type f -exec rm -f {} \\;", VerdictAsk, "(.git)"},
		{"find . -execdir rm {} \\;", VerdictAsk, "(.git)"},
		{"find . -ok rm {} \\;", VerdictAsk, "(.git)"},
		{"find . -okdir rm {} \\;", VerdictAsk, "(.git)"},
		{"find . -type f -exec sed -i s/a/b/ {} +", VerdictAsk, "(.git)"},
		{"find . -exec mv {} /tmp/x \\;", VerdictAsk, "(.git)"},
		{"find . -exec truncate -s0 {} +", VerdictAsk, "(.git)"},
		{"find src . -name x -o -exec rm {} +", VerdictAsk, "(.git)"},
		{"find src . -exec rm {} +", VerdictAsk, "(.git)"},
		{"find .cuff -exec rm {} +", VerdictAsk, "(.cuff)"},
		{"find .claude -type f -exec sed -i s/deny/allow/ {} +", VerdictAsk, ".claude/f"},
		{"find . -name x -exec rm {} +", VerdictAllow, ""},
		{"find . -name '*.go' -exec sed -i s/a/b/ {} +", VerdictAllow, ""},
		{"find . -type f -exec grep -l foo {} +", VerdictAllow, ""},
		{"find . -exec wc -l {} +", VerdictAllow, ""},
		{"find . -type d -name __pycache__ -exec rm -rf {} +", VerdictAllow, ""},
		{"find src -type f -exec rm {} +", VerdictAllow, ""},
		// find's own output files.
		{"find . -fprint .cuff/policy.yml", VerdictAsk, ".cuff/policy.yml"},
		{"find . -fprintf .git/HEAD '%p'", VerdictAsk, "(.git)"},
		{"find . -fls .claude/settings.json", VerdictAsk, ".claude/settings.json"},
		{"find . -name '*.go' -fprint /tmp/files.txt", VerdictAllow, ""},
		// fd: hidden files, .git among them, only with -H or -u.
		{"fd -H -x rm", VerdictAsk, "(.git)"},
		{"fd -u . -X rm -rf", VerdictAsk, "(.git)"},
		{"fd . .cuff -x rm {}", VerdictAsk, "(.cuff)"},
		{"fd -e pyc -x rm", VerdictAllow, ""},
		// Writing into them with anything but git.
		{"cp /dev/null .cuff/policy.yml", VerdictAsk, ".cuff/policy.yml"},
		{"ln -sf /dev/null .cuff/policy.yml", VerdictAsk, ".cuff/policy.yml"},
		{"tee .cuff/policy.yml < /tmp/p", VerdictAsk, ".cuff/policy.yml"},
		{"sed -i s/a/b/ .claude/settings.json", VerdictAsk, ".claude/settings.json"},
		{"mv /tmp/x .cuff/policy.yml", VerdictAsk, ".cuff/policy.yml"},
		{"truncate -s0 .cuff/policy.yml", VerdictAsk, ".cuff/policy.yml"},
		{"truncate -s0 .git/index", VerdictAsk, "(.git)"},
		{"echo ref: refs/heads/x > .git/HEAD", VerdictAsk, "(.git)"},
		{"cat /tmp/pack > .git/objects/pack/p.pack", VerdictAsk, "(.git)"},
		{"dd if=/dev/zero of=.git/index", VerdictAsk, "(.git)"},
		{"touch .git/shallow", VerdictAsk, "(.git)"},
		{"sed -i s/a/b/ .cl*/settings.json", VerdictAsk, "(.claude)"},
		{"echo x > .c*/policy.yml", VerdictAsk, "(.cuff)"},
		{"tar -xf /tmp/a.tar -C .claude", VerdictAsk, ".claude"},
		{"chmod -R 000 .git", VerdictAsk, "(.git)"},
		{"chmod +x .git/hooks/pre-commit", VerdictAsk, "(.git)"},
		// Moving them away, or over them.
		{"mv .git old-git", VerdictAsk, "(.git)"},
		{"mv .cuff /tmp/x", VerdictAsk, ".cuff"},
		{"cp -r /tmp/evil/.claude .", VerdictAsk, ".claude"},
		{"cp -r /tmp/other/.git ./", VerdictAsk, "(.git)"},
		{"cp -rt . /tmp/other/.git", VerdictAsk, "(.git)"},
		{"mv /tmp/x/.cuff .", VerdictAsk, ".cuff"},
		{"mv -t /tmp/x .cuff", VerdictAsk, ".cuff"},
		{"mv --target-directory=/tmp/x .git", VerdictAsk, "(.git)"},
		{"mv -t /tmp/x build", VerdictAllow, ""},
		{"rm -rf /home/u/project/*", VerdictAsk, "the whole workspace"},
		{"cp -r .git /tmp/backup", VerdictAllow, ""},
		{"cp -r src/. /tmp/copy", VerdictAllow, ""},
		// Links give them a second name the gate would not recognise.
		{"ln -s .git g", VerdictAsk, "(.git)"},
		{"ln -s ../.cuff/policy.yml sub/p", VerdictAsk, "(.cuff)"},
		{"ln -s /home/u/project/.claude c", VerdictAsk, "(.claude)"},
		{"cp -rs /home/u/project/.git /tmp/g", VerdictAsk, "(.git)"},
		{"cp -al .cuff /tmp/c", VerdictAsk, "(.cuff)"},
		{"ln -s src/main.go m.go", VerdictAllow, ""},
		{"cp -s src/main.go /tmp/m.go", VerdictAllow, ""},
		// git: cleaning ignored files or untracked directories reaches
		// .cuff and .claude; moving or removing them with git too.
		{"git clean -fdx", VerdictAsk, "ignored files"},
		{"git clean -X -f", VerdictAsk, "ignored files"},
		{"git clean -xf .", VerdictAsk, "ignored files"},
		{"git clean -fd", VerdictAsk, "untracked directories"},
		{"cd src && git clean -fdx ..", VerdictAsk, "ignored files"},
		{"git clean -f .cuff", VerdictAsk, "(.cuff)"},
		{"cd build && git clean -fdx :/", VerdictAsk, "ignored files"},
		{"git clean -fdx ':(top)'", VerdictAsk, "ignored files"},
		{"git clean -f :/.cuff/recordings", VerdictAsk, "(.cuff)"},
		{"git checkout -- ':(top).claude/settings.json'", VerdictAsk, "(.claude)"},
		{"git clean -fdx build/", VerdictNone, ""},
		{"cd build && git clean -fdx", VerdictNone, ""},
		{"git clean -n -x", VerdictNone, ""},
		{"git clean -f", VerdictNone, ""},
		{"git stash -a", VerdictAsk, "ignored files"},
		{"git stash push --all", VerdictAsk, "ignored files"},
		{"git mv .claude x", VerdictAsk, "(.claude)"},
		{"git rm -r .claude", VerdictAsk, "(.claude)"},
		{"git checkout -- .claude/settings.json", VerdictAsk, "(.claude)"},
		{"git restore .claude", VerdictAsk, "(.claude)"},
		{"git restore --staged --worktree .claude", VerdictAsk, "(.claude)"},
		{"git rm --cached .claude/settings.local.json", VerdictAllow, ""},
		{"git restore --staged .claude/settings.json", VerdictAllow, ""},
		{"git mv old.go new.go", VerdictAllow, ""},
		{"git stash", VerdictAllow, ""},
		{"git stash push -- .claude/settings.json", VerdictAsk, "(.claude)"},
		{"git stash -- .cuff/policy.yml", VerdictAsk, "(.cuff)"},
		{"git stash push -m wip .claude", VerdictAsk, "(.claude)"},
		{"git stash push -m .claude -- src/app.go", VerdictAllow, ""},
		{"git stash save .claude", VerdictNone, ""}, // a message, not a path
		// Reading stays allowed, and so do git's own writes to .git.
		{"cat .cuff/policy.yml", VerdictAllow, ""},
		{"ls -la .git", VerdictAllow, ""},
		{"cat .git/HEAD", VerdictAllow, ""},
		{"grep -r hooks .claude", VerdictAllow, ""},
		{"find .git -name HEAD", VerdictAllow, ""},
		{"du -sh .git", VerdictAllow, ""},
		{"wc -l .cuff/recordings/sessions/*.jsonl", VerdictAllow, ""},
		{"cp .claude/settings.json /tmp/settings.json", VerdictAllow, ""},
		{"diff .cuff/policy.yml /tmp/policy.yml", VerdictAllow, ""},
		{"git status", VerdictAllow, ""},
		{"git add .claude/settings.json", VerdictAllow, ""},
		{"git commit -m 'add hooks'", VerdictAllow, ""},
	})
}

// TestGuardedFromSubdirectory checks paths given relative to a working
// directory below the workspace root.
func TestGuardedFromSubdirectory(t *testing.T) {
	g := testGate(t, Options{Dir: "/home/u/project/src"})
	checkGuardedCases(t, g, []guardedCase{
		{"rm -rf ../.git", VerdictAsk, "(.git)"},
		{"rm -rf ../.cuff/recordings", VerdictAsk, "(.cuff)"},
		{"find .. -delete", VerdictAsk, "the whole workspace"},
		{"find .. -exec rm {} +", VerdictAsk, "(.git)"},
		{"git clean -fdx", VerdictNone, ""},
		{"find . -delete", VerdictAllow, ""},
		{"rm -rf ../build", VerdictAllow, ""},
	})
}

// TestGuardedUnderTemp checks a workspace under /tmp, where writing is
// otherwise harmless: its guarded directories stay guarded.
func TestGuardedUnderTemp(t *testing.T) {
	g := testGate(t, Options{Workspace: "/tmp/proj", Home: "/tmp/home", Protected: []string{"/tmp/home/.claude", "/tmp/state/cuff"}})
	checkGuardedCases(t, g, []guardedCase{
		{"rm -rf /tmp/proj/.git", VerdictAsk, "(.git)"},
		{"rm -rf .cuff", VerdictAsk, "(.cuff)"},
		{"find /tmp/proj -delete", VerdictAsk, "the whole workspace"},
		{"ln -s /tmp/home/.claude c", VerdictAsk, "/tmp/home/.claude"},
		{"ln -s ~/.claude/settings.json s", VerdictAsk, "(.claude)"},
		{"ln -s /tmp/state/cuff/grants g", VerdictAsk, "in /tmp/state/cuff"},
		{"rm -rf /tmp/other/.git", VerdictAllow, ""},
		{"ln -s /tmp/other/x y", VerdictAsk, "outside the work tree"},
	})
}

func TestGuardedIn(t *testing.T) {
	for _, tc := range []struct {
		rel     string
		pattern bool
		want    string
	}{
		{".git", false, ".git"},
		{".cuff/policy.yml", false, ".cuff"},
		{"a/b/.claude/x", false, ".claude"},
		{".gitignore", false, ""},
		{".github/workflows/ci.yml", false, ""},
		{"git", false, ""},
		{".c*", true, ".cuff"},
		{"*", true, ".git"},        // the root: dotglob may be on
		{"?git", true, ".git"},     // likewise
		{"src/*", true, ""},        // deeper: * skips dot files
		{"src/.*", true, ".git"},   // a literal leading dot
		{"src/[.]git", true, ""},   // a bracket does not match a leading dot
		{".[!.]*", true, ".git"},   // [! is negation
		{"*.log", true, ""},        // no guarded name ends in .log
		{"src/!(x)", true, ".git"}, // extended globs are not matched: assume the worst
		{".cod[e-f]x", true, ".codex"},
	} {
		if got := guardedIn(tc.rel, tc.pattern); got != tc.want {
			t.Errorf("guardedIn(%q, %v) = %q, want %q", tc.rel, tc.pattern, got, tc.want)
		}
	}
}

func TestSafeFindName(t *testing.T) {
	for pat, want := range map[string]bool{
		"*.pyc": true, "*.orig": true, "__pycache__": true, ".DS_Store": true, "*~": true, "*.o": true,
		"*": false, ".*": false, "*.json": false, "*.yml": false, "*.pack": false, "HEAD": false,
		"index*": false, "[0-9a-f]*": false, "??": false, "*.jsonl": false, "config": false, "[": false,
	} {
		if got := safeFindName(pat, false); got != want {
			t.Errorf("safeFindName(%q) = %v, want %v", pat, got, want)
		}
	}
	if safeFindName("head", true) || !safeFindName("head", false) {
		t.Error("-iname HEAD must fold case, -name head must not")
	}
}

// FuzzFindNamed checks the find expression parser on arbitrary words: it
// never panics, marks only actions, and a -name test it accepts always
// precedes the action on the path through the expression.
func FuzzFindNamed(f *testing.F) {
	for _, s := range []string{
		"-name *.pyc -delete", "( -name a -o -name b ) -delete", "-path ./.git -prune -o -name *.rej -delete",
		"! -name x -exec rm {} ;", "-name x , -delete", "( ( ( -delete", ") ) -delete", "-exec", "-name",
		"-fprintf", "-not -not -name *.o -delete", "-o -o -a", "-name *.pyc -exec rm {} + -delete",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		words := strings.Fields(expr)
		args := make([]arg, len(words))
		for i, w := range words {
			args[i] = arg{val: w}
		}
		named := findNamed(args, 0)
		if len(named) != len(args) {
			t.Fatalf("findNamed returned %d marks for %d words", len(named), len(args))
		}
		for i, ok := range named {
			if ok && !findAction(args[i].val) {
				t.Fatalf("word %d (%q) is marked but is no action", i, args[i].val)
			}
			if !ok {
				continue
			}
			seen := false
			for _, w := range args[:i] {
				if w.val == "-name" || w.val == "-iname" {
					seen = true
				}
			}
			if !seen {
				t.Fatalf("action %d of %q is marked without a -name test before it", i, expr)
			}
		}
	})
}
