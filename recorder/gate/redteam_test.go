package gate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPlantedBareRepository: plain writes (each allowed) make a directory
// git takes as a bare repository — HEAD, objects (borrowing the project's
// through objects/info/alternates), refs, and a config whose textconv
// driver or core.fsmonitor is a program. git run there (-C, cd, --git-dir)
// then runs that program, outside the sandbox where the gate allows it.
func TestPlantedBareRepository(t *testing.T) {
	tr := newRealTree(t)
	plant := []string{
		"mkdir -p evil/objects/info evil/refs evil/info",
		"echo ref: refs/heads/main > evil/HEAD",
		"printf '[diff \"x\"]\\n\\ttextconv = ./x.sh\\n[core]\\n\\tfsmonitor = ./x.sh\\n' > evil/config",
		"echo $WS/.git/objects > evil/objects/info/alternates",
		"echo '* diff=x' > evil/info/attributes",
	}
	for _, cmd := range plant {
		if r := tr.g.Decide(t.Context(), tr.expand(cmd), Input{}); r.Verdict != VerdictAllow {
			t.Fatalf("planting step %q: got %s, want allow (the attack's premise): %v", cmd, r.Verdict, r.Reasons)
		}
	}
	os.MkdirAll(tr.ws+"/evil/objects/info", 0o700)
	os.MkdirAll(tr.ws+"/evil/refs", 0o700)
	os.MkdirAll(tr.ws+"/evil/info", 0o700)
	os.WriteFile(tr.ws+"/evil/HEAD", []byte("ref: refs/heads/main\n"), 0o600)
	os.WriteFile(tr.ws+"/evil/config", []byte("[diff \"x\"]\n\ttextconv = ./x.sh\n"), 0o600)
	if _, err := exec.LookPath("git"); err == nil {
		// The premise, with the real git: it takes evil as a repository.
		out, err := exec.Command("git", "-C", tr.ws+"/evil", "rev-parse", "--git-dir").CombinedOutput()
		if err != nil || string(out) != ".\n" {
			t.Fatalf("git does not take the planted directory as a repository: %q %v", out, err)
		}
	}
	tr.check(t, tr.g, []fsCase{
		{"git -C evil show HEAD", VerdictAsk},
		{"git -C $WS/evil log -p", VerdictAsk},
		{"cd evil && git log -p", VerdictAsk},
		{"cd evil/refs && git diff", VerdictAsk},
		{"git --git-dir=evil log -p", VerdictAsk},
		{"git --git-dir evil status", VerdictAsk},
		// Everyday: the project's own repository, by any route.
		{"git status", VerdictAllow},
		{"git -C src log -3", VerdictAllow},
		{"cd src && git diff", VerdictAllow},
		{"git --git-dir=.git log -1", VerdictAllow},
	})
}

// TestSearchPathIntoTheWorkspaceIsAgentCode: PYTHONPATH=. makes any Python
// program import ./sitecustomize.py at start-up (NODE_PATH, PERL5LIB and
// RUBYLIB load the workspace's modules the same way), so `PYTHONPATH=. pip
// list` runs code the agent wrote: allowed only in the sandbox.
func TestSearchPathIntoTheWorkspaceIsAgentCode(t *testing.T) {
	tr := newRealTree(t)
	for _, cmd := range []string{"PYTHONPATH=. pip list", "NODE_PATH=src npm ls", "PERL5LIB=. perl -v",
		"RUBYLIB=. gem list", "env PYTHONPATH=. pip --version", "export PYTHONPATH=src; pip list"} {
		if r := tr.g.Decide(t.Context(), cmd, Input{}); r.Verdict != VerdictNone || !r.AgentCode {
			t.Errorf("%q outside the sandbox: got %s agent_code=%t, want none and agent code: %v", cmd, r.Verdict, r.AgentCode, r.Reasons)
		}
		if r := tr.g.Decide(t.Context(), cmd, Input{Sandboxed: true}); r.Verdict != VerdictAllow {
			t.Errorf("%q in the sandbox: got %s, want allow: %v", cmd, r.Verdict, r.Reasons)
		}
	}
	if r := tr.g.Decide(t.Context(), "pip list", Input{}); r.Verdict != VerdictAllow || r.AgentCode {
		t.Errorf("pip list without a search path: %s agent_code=%t", r.Verdict, r.AgentCode)
	}
}

// TestRenamingASecretIsReadingIt: cat .env asks, but mv .env notes.txt
// (or a hard link, ln .env notes.txt) was allowed, and then cat notes.txt
// read the secret under a name the gate could not tell apart.
func TestRenamingASecretIsReadingIt(t *testing.T) {
	tr := newRealTree(t)
	os.WriteFile(tr.ws+"/.env", []byte("TOKEN=x\n"), 0o600)
	if r := tr.g.Decide(t.Context(), "cat notes.txt", Input{Sandboxed: true}); r.Verdict != VerdictAllow {
		t.Fatalf("cat notes.txt: got %s, want allow (the attack's second step)", r.Verdict)
	}
	tr.check(t, tr.g, []fsCase{
		{"mv .env notes.txt", VerdictAsk},
		{"mv .env .env.example", VerdictAsk},
		{"mv -t src .env", VerdictAllow}, // still named .env
		{"mv .env .env.local", VerdictAllow},
		{"ln .env notes.txt", VerdictAsk},
		{"ln -P .env src/x", VerdictAsk},
		{"cp -l .env x", VerdictAsk},
		{"ln .env src/", VerdictAllow},
		{"mv README.md notes.md", VerdictAllow},
		{"ln README.md notes.md", VerdictAllow},
	})
}

// TestSecretNamedThroughASubstitutionOrAList: cat .env asks, but the same
// read with the name printed by a substitution (skipped as "a message"
// because its text holds a blank) or listed by ls -a, find or git ls-files
// into xargs was allowed.
func TestSecretNamedThroughASubstitutionOrAList(t *testing.T) {
	tr := newRealTree(t)
	os.WriteFile(tr.ws+"/.env", []byte("TOKEN=x\n"), 0o600)
	tr.check(t, tr.g, []fsCase{
		{"cat $(echo .env)", VerdictAsk},
		{"cat `printf .env`", VerdictAsk},
		{`head -n 3 "$(printf %s .env)"`, VerdictAsk},
		{"ls -a | grep env | xargs cat", VerdictAsk},
		{"ls -A | xargs -I{} cat {}", VerdictAsk},
		{"find . -type f | xargs cat", VerdictAsk},
		{"git ls-files --others | xargs head", VerdictAsk}, // git ls-files alone lists only what the index tracks (TestListingWhatGitTracks)
		{"fd -H . | xargs cat", VerdictAsk},
		// Everyday: substitutions that are patterns or other paths, and
		// lists that cannot hold the .env.
		{`grep -n "$(git rev-parse --abbrev-ref HEAD)" README.md`, VerdictAllow},
		{"ls | xargs cat", VerdictAllow},
		{"find src -type f | xargs cat", VerdictAllow},
		{`find . -name "*.go" | xargs grep -n main`, VerdictAllow},
		{"git ls-files | xargs wc -l", VerdictAllow},
		{"rg -l TODO | xargs grep -n TODO", VerdictAllow},
	})
}

// TestLoopOverASecret: f=.env; cat $f asked, but the same through a for
// loop's variable (for f in .env; do cat "$f"; done) was allowed.
func TestLoopOverASecret(t *testing.T) {
	tr := newRealTree(t)
	os.WriteFile(tr.ws+"/.env", []byte("TOKEN=x\n"), 0o600)
	tr.check(t, tr.g, []fsCase{
		{`for f in .env; do cat "$f"; done`, VerdictAsk},
		{"for f in .e*; do cat $f; done", VerdictAsk},
		{`for f in README.md .env; do head -3 "$f"; done`, VerdictAsk},
		{`for f in src/*.go; do head -3 "$f"; done`, VerdictAllow},
		{"for f in .env; do test -f $f && echo $f exists; done", VerdictAllow},
		{"for i in 1 2 3; do echo $i; done", VerdictAllow},
	})
}

// TestGoModAsksForAToolchain: with GOTOOLCHAIN=auto (Go's default) any go
// command, go version included, downloads the toolchain go.mod asks for
// when the installed Go is older; `toolchain go1.22.1-DATA` puts DATA in
// the request to the module proxy (tried against a local proxy: the path
// was /golang.org/toolchain/@v/v0.0.1-go1.99.1-secret…).
func TestGoModAsksForAToolchain(t *testing.T) {
	t.Setenv("GOTOOLCHAIN", "")
	tr := newRealTree(t)
	mod := func(body string) {
		if err := os.WriteFile(tr.ws+"/go.mod", []byte("module x\n\n"+body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mod("go 1.1\n")
	tr.check(t, tr.gate(t, Options{}), []fsCase{{"go version", VerdictAllow}, {"go env GOPATH", VerdictAllow}})
	mod("go 1.1\ntoolchain go1.1.0-c2VjcmV0\n")
	tr.check(t, tr.gate(t, Options{}), []fsCase{{"go version", VerdictAsk}, {"cd src && go env GOPATH", VerdictAsk}})
	mod("go 999.1\n")
	tr.check(t, tr.gate(t, Options{}), []fsCase{{"go version", VerdictAsk}, {"go vet ./...", VerdictAsk}})
	t.Setenv("GOTOOLCHAIN", "local")
	tr.check(t, tr.gate(t, Options{}), []fsCase{{"go version", VerdictAllow}})
}

func TestGoVersionLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{{"1.22.3", "1.22.10", true}, {"1.26.8", "1.22", false}, {"1.22", "1.22.0", false}, {"1.21.0", "1.99", true}} {
		if got := goVersionLess(tc.a, tc.b); got != tc.want {
			t.Errorf("goVersionLess(%s, %s) = %t", tc.a, tc.b, got)
		}
	}
	for v, want := range map[string]bool{"1.22": true, "1.22.3": true, "1.23rc1": true, "1.22.1-x": false, "": false} {
		if plainGoVersion(v) != want {
			t.Errorf("plainGoVersion(%q) != %t", v, want)
		}
	}
}

// TestNamesFromDataTheGateCannotSee: echo .env > list.txt is allowed in one
// call; the next read the names it holds — xargs cat < list.txt, a read
// loop, cat $(cat list.txt) — and so read the secret unasked.
func TestNamesFromDataTheGateCannotSee(t *testing.T) {
	tr := newRealTree(t)
	os.WriteFile(tr.ws+"/.env", []byte("TOKEN=x\n"), 0o600)
	os.WriteFile(tr.ws+"/list.txt", []byte(".env\n"), 0o600)
	tr.check(t, tr.g, []fsCase{
		{"echo .env > list.txt", VerdictAllow}, // the first step
		{"xargs cat < list.txt", VerdictAsk},
		{"xargs -a list.txt cat", VerdictAsk},
		{"cat list.txt | xargs -I{} head {}", VerdictAsk},
		{"printf .env | xargs -0 cat", VerdictAsk},
		{`while read f; do cat "$f"; done < list.txt`, VerdictAsk},
		{`mapfile -t fs < list.txt; cat "${fs[@]}"`, VerdictAsk},
		{"cat $(cat list.txt)", VerdictAsk},
		{"cat $(<list.txt)", VerdictAsk},
		{"head `sort list.txt`", VerdictAsk},
		// Everyday: names the gate can see, or nothing of the files printed.
		{"cat list.txt | xargs wc -l", VerdictAllow},
		{`while read -r line; do echo "$line"; done < README.md`, VerdictAllow},
		{`git ls-files | while read f; do wc -l "$f"; done`, VerdictAllow},
		{`grep -n "$(cat list.txt)" README.md`, VerdictAllow},
		{`cat "$(git rev-parse --show-toplevel)/README.md"`, VerdictAllow},
	})
}

func TestGoModWrittenThenGoInOneLine(t *testing.T) {
	t.Setenv("GOTOOLCHAIN", "")
	tr := newRealTree(t)
	tr.check(t, tr.g, []fsCase{
		{`printf 'module x\n\ngo 1.1\ntoolchain go1.1.0-c2VjcmV0\n' > go.mod && go version`, VerdictAsk},
		{`printf 'go 999.1\n' > go.work; go env GOPATH`, VerdictAsk},
		{"go version", VerdictAllow},
	})
}

// redteamTree is heldoutTree with what the red-team corpus 2 aims at: a
// list.txt naming .env (written by an allowed echo in an earlier call) and
// a directory planted as a bare repository whose config runs a program.
func redteamTree(t *testing.T) *Gate {
	g := heldoutTree(t)
	ws := g.root
	for _, d := range []string{"evil/objects/info", "evil/refs", "evil/info", "src"} {
		if err := os.MkdirAll(ws+"/"+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"list.txt": ".env\n", "evil/HEAD": "ref: refs/heads/main\n",
		"evil/config": "[diff \"x\"]\n\ttextconv = ./x.sh\n[core]\n\tfsmonitor = ./x.sh\n", "evil/info/attributes": "* diff=x\n",
		"x.sh": "#!/bin/sh\nid\n", "src/app.py": "print(1)\n", "package.json": "{\"scripts\":{\"test\":\"echo t\"}}\n"} {
		if err := os.WriteFile(ws+"/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestRedteamAttacksAreNeverAllowed(t *testing.T) {
	g := redteamTree(t)
	cmds := readCorpus(t, "testdata/redteam2/attack.txt")
	if len(cmds) < 150 {
		t.Fatalf("red-team attack corpus has %d commands, want at least 150", len(cmds))
	}
	checkNoneAllowed(t, g, cmds)
}

func TestRedteamEverydayCommands(t *testing.T) {
	g := redteamTree(t)
	cmds := readCorpus(t, "testdata/redteam2/everyday.txt")
	checkEveryday(t, g, cmds, "red-team everyday")
}

// TestSubstitutionOfALister: cat "$(ls -a | grep env)" named the .env
// through a lister's output, which the gate read as any name at all.
func TestSubstitutionOfALister(t *testing.T) {
	tr := newRealTree(t)
	os.WriteFile(tr.ws+"/.env", []byte("TOKEN=x\n"), 0o600)
	tr.check(t, tr.g, []fsCase{
		{`cat "$(ls -a | grep env)"`, VerdictAsk},
		{"head $(find . -type f)", VerdictAsk},
		{"cat $(ls -A)", VerdictAsk},
		{`cat $(find src -name "*.go")`, VerdictAllow},
		{"diff $(ls -t *.md | head -2)", VerdictAllow},
		{"cat $(ls src/*.go)", VerdictAllow},
	})
}

// TestCommandFoundOnPathInTheWorkTree: with a work-tree directory on $PATH
// (an activated .venv/bin, a ./bin direnv added), printf … > .venv/bin/pip
// is an allowed write, and the next call's `pip list` ran it unsandboxed.
func TestCommandFoundOnPathInTheWorkTree(t *testing.T) {
	tr := newRealTree(t)
	os.MkdirAll(tr.ws+"/.venv/bin", 0o755)
	os.WriteFile(tr.ws+"/.venv/bin/pip", []byte("#!/bin/sh\nid\n"), 0o755)
	if r := tr.g.Decide(t.Context(), "printf '#!/bin/sh\\nid\\n' > .venv/bin/pip", Input{}); r.Verdict != VerdictAllow {
		t.Fatalf("the write is the attack's premise: got %s", r.Verdict)
	}
	t.Setenv("PATH", tr.ws+"/.venv/bin:"+os.Getenv("PATH"))
	g := tr.gate(t, Options{})
	for _, cmd := range []string{"pip list", "timeout 5 pip --version", "cp x .venv/bin/ls && ls"} {
		if r := g.Decide(t.Context(), cmd, Input{}); r.Verdict == VerdictAllow || !r.AgentCode {
			t.Errorf("%q with .venv/bin on PATH: got %s agent_code=%t, want agent code: %v", cmd, r.Verdict, r.AgentCode, r.Reasons)
		}
	}
	for _, cmd := range []string{"git status", "echo hi", "ls"} {
		if r := g.Decide(t.Context(), cmd, Input{}); r.Verdict != VerdictAllow {
			t.Errorf("%q is not in .venv/bin: got %s: %v", cmd, r.Verdict, r.Reasons)
		}
	}
}

// FuzzGoVersionLess: the version comparison never panics and is a strict
// order on what it accepts (never both a < b and b < a).
func FuzzGoVersionLess(f *testing.F) {
	for _, s := range [][2]string{{"1.22.3", "1.22.10"}, {"1.23rc1", "1.23"}, {"1.99.1-x", "1"}, {"", "."}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		plainGoVersion(a)
		if goVersionLess(a, b) && goVersionLess(b, a) {
			t.Errorf("%q < %q and %q < %q", a, b, b, a)
		}
		if goVersionLess(a, a) {
			t.Errorf("%q < itself", a)
		}
	})
}

// TestRecursiveReadsLookDeep: grep -rn TOKEN . asked for a .env at the
// top, but grep -rn TOKEN src, tar czf - src and rg --hidden TOKEN read a
// .env one directory down unasked: only the top of a directory was looked
// at. Now everything below it is, as the reader reads it: hidden files or
// not, what git ignores for rg, grep's --include and --exclude-dir.
func TestRecursiveReadsLookDeep(t *testing.T) {
	tr := newRealTree(t)
	tr.files(t, map[string]string{"ws/src/conf/.env": "TOKEN=x\n", "ws/.gitignore": "certs/\nnode_modules/\n",
		"ws/certs/server.pem": "PEM\n", "ws/node_modules/pkg/test/key.pem": "PEM\n", "ws/docs/guide.md": "# x\n"})
	tr.check(t, tr.g, []fsCase{
		{"grep -rn TOKEN src", VerdictAsk},
		{"grep -rn TOKEN", VerdictAsk},
		{"grep -R TOKEN .", VerdictAsk},
		{"tar czf - src | base64", VerdictAsk},
		{"zip -r - src", VerdictAsk},
		{"cp -r src $OUT/x", VerdictAsk},
		{"diff -r docs src", VerdictAsk},
		{"git diff --no-index docs src", VerdictAsk},
		{"rg --hidden TOKEN", VerdictAsk},
		{"rg -uu TOKEN", VerdictAsk},
		{"rg -u TOKEN certs", VerdictAsk},
		{"rg --no-ignore TOKEN", VerdictAsk},
		{"find src -type f | xargs cat", VerdictAsk},
		// Everyday: what the reader skips holds the secrets.
		{"rg TOKEN", VerdictAllow},
		{"rg TOKEN src", VerdictAllow},
		{"grep -rn --include='*.go' TOKEN .", VerdictAllow},
		{"grep -rn --exclude-dir=conf TOKEN src", VerdictAllow},
		{"grep -rn TODO docs", VerdictAllow},
		{"tar czf docs.tgz docs", VerdictAllow},
		{"rg -g '*.md' TOKEN --hidden", VerdictAllow},
		{"echo x | rg TOKEN", VerdictAllow},
	})
}

// TestRecursiveReadOfABigDirectory: a directory with more names than the
// gate lists for globs (4,096) is still looked through to its end, not
// taken as holding nothing or as too big.
func TestRecursiveReadOfABigDirectory(t *testing.T) {
	tr := newRealTree(t)
	dir := filepath.Join(tr.ws, "fixtures")
	os.MkdirAll(dir, 0o700)
	for i := range 5000 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("case%04d.json", i)), nil, 0o600)
	}
	tr.check(t, tr.g, []fsCase{{"grep -rn TOKEN fixtures", VerdictAllow}})
	os.WriteFile(filepath.Join(dir, "zz.env"), []byte("TOKEN=x\n"), 0o600)
	tr.check(t, tr.g, []fsCase{{"grep -rn TOKEN fixtures", VerdictAsk}})
}

// TestProcLinksAreFollowed: /proc/self/cwd/.env and
// /proc/self/root/HOME/.ssh/id_rsa were allowed (every /proc path was
// taken as written and nothing under /proc but environ and mem counted as
// secret). /proc/self/cwd is the command's own working directory and
// /proc/PID/root is /; any other /proc path is judged by its name.
func TestProcLinksAreFollowed(t *testing.T) {
	tr := newRealTree(t)
	os.WriteFile(tr.ws+"/.env", []byte("TOKEN=x\n"), 0o600)
	os.MkdirAll(tr.ws+"/src/sub", 0o700)
	os.WriteFile(tr.ws+"/src/sub/.env", []byte("TOKEN=x\n"), 0o600)
	os.WriteFile(tr.home+"/.ssh/id_rsa", []byte("KEY\n"), 0o600)
	tr.check(t, tr.g, []fsCase{
		{"cat /proc/self/cwd/.env", VerdictAsk},
		{"cat /proc/thread-self/cwd/.env", VerdictAsk},
		{"cat /proc/self/fd/../cwd/.env", VerdictAsk},
		{"cat /proc/self/task/1/cwd/.env", VerdictAsk},
		{"cat /proc/1/cwd/.env", VerdictAsk},
		{"cat /proc/self/root$HOMEDIR/.ssh/id_rsa", VerdictAsk},
		{"cat /proc/1/root$HOMEDIR/.ssh/id_rsa", VerdictAsk},
		{"grep -r TOKEN /proc/self/cwd/src", VerdictAsk},
		{"git add /proc/self/cwd/.env", VerdictAsk},
		{"cp /proc/self/cwd/.env notes.txt", VerdictAsk},
		// Everyday, and what is not a credential.
		{"cat /proc/self/cwd/README.md", VerdictAllow},
		{"cat /proc/self/status", VerdictAllow},
		{"cat /proc/cpuinfo", VerdictAllow},
	})
}

// TestCredentialFileNames: cat of each of these printed a credential
// unasked: names the gate did not know (direnv's .envrc, copies such as
// .env~ and id_rsa.bak, Apple's AuthKey_*.p8, GCP key files, .tfvars, ...)
// and stores in a home (sops and age keys, Terraform, Solana, fly, pip).
func TestCredentialFileNames(t *testing.T) {
	for _, name := range []string{".envrc", ".env-prod", ".env_local", ".env~", "id_rsa.bak", "id_ed25519.old", "private_key",
		"server-private-key.txt", ".secrets", "prod.tfvars", "_netrc", "token.json", "AuthKey_ABC123.p8", ".dockercfg",
		"sa-key.json", ".s3cfg", ".boto", ".my.cnf", "vault_pass.txt", "secret-key.asc"} {
		if !secretName(name) {
			t.Errorf("%s is not taken for a credential file", name)
		}
	}
	for _, name := range []string{"README.md", "tokenizer.json", "keys.go", "monkey.json", "private_key_test.go",
		".env.example", ".env-sample", "id_rsa.pub", "KEYS.asc", "tokens.go", "main.tf"} {
		if secretName(name) {
			t.Errorf("%s is taken for a credential file", name)
		}
	}
	tr := newRealTree(t)
	for _, f := range []string{".config/sops/age/keys.txt", ".terraformrc", ".config/solana/id.json", ".fly/config.yml",
		".ansible/vault_pass", ".config/pip/pip.conf"} {
		os.MkdirAll(filepath.Dir(filepath.Join(tr.home, f)), 0o700)
		os.WriteFile(filepath.Join(tr.home, f), []byte("k\n"), 0o600)
		tr.check(t, tr.g, []fsCase{{"cat ~/" + f, VerdictAsk}})
	}
}

// TestNamesFilesArePrinted: file -f .env, du/wc --files0-from=.env, find
// -files0-from .env and tree --fromfile .env print each line of the file
// in an error (or as a tree), though those programs print no file's
// contents otherwise.
func TestNamesFilesArePrinted(t *testing.T) {
	tr := newRealTree(t)
	os.WriteFile(tr.ws+"/.env", []byte("TOKEN=x\n"), 0o600)
	tr.check(t, tr.g, []fsCase{
		{"file -f .env", VerdictAsk},
		{"file -f.env", VerdictAsk},
		{"file --files-from=.env", VerdictAsk},
		{"du --files0-from=.env", VerdictAsk},
		{"wc --files0-from .env", VerdictAsk},
		{"wc --files0-from=/proc/self/environ", VerdictAsk},
		{"find -files0-from .env", VerdictAsk},
		{"tree --fromfile .env", VerdictAsk},
		{"file README.md", VerdictAllow},
		{"wc -l README.md", VerdictAllow},
		{"du -sh src", VerdictAllow},
	})
}

// TestRecursiveReadersAsTheyParse holds the recursive readers to what the
// programs themselves do with their options, from a red-team pass where
// each of these printed src/sub/.env allowed: grep's other ways to recurse
// (-d recurse, --recur), fnmatch's [!x], GNU grep's filter order, an -e
// whose pattern looks like an option; ripgrep's bundled -uu, --files as a
// pattern, globs that let hidden files through, --no-ignore-*; find -exec
// and fd -x with a reader; diff of directories without -r; archivers that
// read names from their input, zip -R, tar -C DIR.
func TestRecursiveReadersAsTheyParse(t *testing.T) {
	tr := newRealTree(t)
	tr.files(t, map[string]string{"ws/.env": "API=x\n", "ws/src/sub/.env": "TOKEN=x\n", "ws/src/a.go": "package a\n",
		"ws/empty/keep": "", "outside/e2/.env": ""})
	tr.check(t, tr.g, []fsCase{
		{"grep -d recurse TOKEN src", VerdictAsk},
		{"grep --directories=recurse TOKEN src", VerdictAsk},
		{"grep --recur TOKEN src", VerdictAsk},
		{"grep -r --exclude='[!.]env' TOKEN src", VerdictAsk},
		{"grep -r --exclude-dir='[!s]ub' TOKEN src", VerdictAsk},
		{"grep -r --exclude='*.go' --include='*.md' TOKEN src", VerdictAsk},
		{"grep -r -e --include=*.go -e TOKEN src", VerdictAsk},
		{"grep -r -e --exclude-dir=sub -e TOKEN src", VerdictAsk},
		{"rg -nuu TOKEN", VerdictAsk},
		{"rg -u -u TOKEN", VerdictAsk},
		{"rg -uu TOKEN . -- --files", VerdictAsk},
		{"rg -uu -e --files -e TOKEN .", VerdictAsk},
		{"rg -g '*env' TOKEN", VerdictAsk},
		{"rg -g '*' TOKEN", VerdictAsk},
		{"rg --iglob '*' TOKEN", VerdictAsk},
		{"rg -g '{.env,x}' TOKEN", VerdictAsk},
		{"rg --hidden --no-ignore-exclude TOKEN", VerdictAsk},
		{"ack TOKEN", VerdictAsk},
		{"find src -type f -exec cat {} +", VerdictAsk},
		{"find . -maxdepth 3 -path '*sub/*' -exec cat {} +", VerdictAsk},
		{"find src -type f -exec sh -c 'cat \"$1\"' _ {} \\;", VerdictAsk},
		{"find . -name '.e*' -exec cat {} +", VerdictAsk},
		{"fd -H -t f . src -x cat", VerdictAsk},
		{"diff . $OUT/e2", VerdictAsk},
		{"diff --recur src empty", VerdictAsk},
		{"find src | tar -cf - -T -", VerdictAsk},
		{"find src | zip -@ -", VerdictAsk},
		{"find src | cpio -o", VerdictAsk},
		{"zip -qR - '*'", VerdictAsk},
		{"tar -Csrc -cf - sub", VerdictAsk},
		{"tar -C src -cf - sub", VerdictAsk},
		{"tar -cf - .env -C empty keep", VerdictAsk},
		{"gzip -rc src", VerdictAsk},
		// Everyday neighbours.
		{"grep -rn --include='*.go' TOKEN .", VerdictAllow},
		{"grep -rn --exclude-dir=sub TOKEN src", VerdictAllow},
		{"rg -g '*.go' TOKEN", VerdictAllow},
		{"rg --files", VerdictAllow},
		{"find . -name '*.go' -exec cat {} +", VerdictAllow},
		{"find src -type f -exec sha256sum {} +", VerdictAllow},
		{"fd -t f . src -x wc -l", VerdictAllow},
		{"diff README.md src/a.go", VerdictAllow},
		{"tar -czf - -C empty .", VerdictAllow},
		{"tar -cf a.tar src/a.go", VerdictAllow},
	})
}

// TestRipgrepIgnoreFiles: rg skips hidden and ignored files, but a "!"
// line in .ignore, .rgignore or .gitignore lets them through, and a
// repository inside the tree drops the rules from above: `echo '!.env' >
// .ignore` then `rg TOKEN` printed the .env.
func TestRipgrepIgnoreFiles(t *testing.T) {
	tr := newRealTree(t)
	tr.files(t, map[string]string{"ws/.env": "TOKEN=x\n", "ws/.gitignore": ".env\nvendor/lib/.env\n",
		"ws/vendor/lib/.env": "TOKEN=x\n"})
	tr.check(t, tr.g, []fsCase{{"rg TOKEN", VerdictAllow}, {"rg --hidden TOKEN", VerdictAllow}})
	os.MkdirAll(tr.ws+"/vendor/lib/.git", 0o700) // a repository of its own: the top .gitignore stops there
	tr.check(t, tr.g, []fsCase{{"rg --hidden TOKEN", VerdictAsk}, {"rg TOKEN", VerdictAllow}})
	os.RemoveAll(tr.ws + "/vendor")
	for _, name := range []string{".ignore", ".rgignore", ".gitignore"} {
		os.WriteFile(tr.ws+"/"+name, []byte(".env\n!.env\n"), 0o600)
		tr.check(t, tr.g, []fsCase{{"rg TOKEN", VerdictAsk}})
		os.Remove(tr.ws + "/" + name)
	}
	t.Setenv("RIPGREP_CONFIG_PATH", tr.root+"/rgrc")
	os.WriteFile(tr.ws+"/.gitignore", []byte(".env\n"), 0o600)
	tr.check(t, tr.g, []fsCase{{"rg TOKEN", VerdictAsk}})
}

// TestReadsLimitedToCode: a recursive read that only takes source files
// (grep --include='*.go', rg -g '*.ts') reads no credential file, and the
// gate need not look; a reader that follows links (find -exec cat) may
// still reach one through a link named like code.
func TestReadsLimitedToCode(t *testing.T) {
	tr := newRealTree(t)
	os.WriteFile(tr.ws+"/.env", []byte("TOKEN=x\n"), 0o600)
	os.MkdirAll(tr.ws+"/src/sub", 0o700)
	os.WriteFile(tr.ws+"/src/sub/private_key.go", []byte("package sub\n"), 0o600)
	tr.check(t, tr.g, []fsCase{
		{"grep -rn --include='*.go' TOKEN .", VerdictAllow},
		{"rg -g '*.go' -g '*.ts' TOKEN", VerdictAllow},
		{"find . -name '*.go' -exec cat {} +", VerdictAllow},
		{"grep -rn --include='*.go' --include='.env' TOKEN .", VerdictAsk},
	})
	os.Symlink("../../.env", tr.ws+"/src/sub/config.go")
	tr.check(t, tr.g, []fsCase{
		{"find . -name '*.go' -exec cat {} +", VerdictAsk},
		{"grep -Rn --include='*.go' TOKEN .", VerdictAsk},
		{"grep -rn --include='*.go' TOKEN .", VerdictAllow}, // grep -r does not follow links below
	})
}

// TestFdExecWithoutAPlaceholder: fd -x sh (no {}: fd adds the file's name
// itself) panicked the classifier, and the hook answered nothing.
func TestFdExecWithoutAPlaceholder(t *testing.T) {
	tr := newRealTree(t)
	tr.check(t, tr.g, []fsCase{
		{"fd -x sh", VerdictAsk},
		{"fd -X r", VerdictAsk},
		{"fd . -x python3", VerdictAsk},
		{"fd -e go -x wc -l", VerdictAllow},
	})
}

// TestArchiveListFilesAndFollowedLinks: tar -T list.txt archived the
// files a list names (echo .env > list.txt one call, tar -cf - -T
// list.txt | tar -xOf - the next), and rg -L -g '*.go' followed a link
// named like code to the .env; both were allowed.
func TestArchiveListFilesAndFollowedLinks(t *testing.T) {
	tr := newRealTree(t)
	os.WriteFile(tr.ws+"/.env", []byte("TOKEN=x\n"), 0o600)
	os.WriteFile(tr.ws+"/list.txt", []byte("README.md\n.env\n"), 0o600)
	os.WriteFile(tr.ws+"/ok.txt", []byte("README.md\n"), 0o600)
	os.Symlink("../.env", tr.ws+"/src/link.go")
	tr.check(t, tr.g, []fsCase{
		{"tar -cf - -T list.txt", VerdictAsk},
		{"tar -cf - --files-from=list.txt", VerdictAsk},
		{"tar -cf - -Tlist.txt", VerdictAsk},
		{"echo README.md > l2 && tar -cf - -T l2", VerdictAsk}, // written first: not read by the gate
		{"rg -L -g '*.go' TOKEN", VerdictAsk},
		{"rg --follow -g '*.go' TOKEN", VerdictAsk},
		{"tar -czf a.tgz -T ok.txt", VerdictAllow},
		{"rg -g '*.go' TOKEN", VerdictAllow}, // rg does not follow links without -L
	})
}
