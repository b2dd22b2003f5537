package gate

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// namesTree is a real tree whose work tree is a git repository with two
// untracked credential files, ./.env and ./src/sub/.env, and whose home
// holds ~/.ssh/id_rsa.
func namesTree(t testing.TB) *realTree {
	t.Helper()
	tr := newRealTree(t)
	if err := os.MkdirAll(tr.ws+"/src/sub", 0o700); err != nil {
		t.Fatal(err)
	}
	for f, body := range map[string]string{tr.ws + "/.env": "TOKEN=x\n", tr.ws + "/src/sub/.env": "TOKEN=y\n",
		tr.ws + "/src/sub/a.go": "package sub\n", tr.ws + "/notes.md": "# notes\n", tr.home + "/.ssh/id_rsa": "KEY\n",
		tr.home + "/.aws/config": "[default]\n"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command("git", "init", "-q", tr.ws).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v: %s", err, out)
		}
	}
	return tr
}

// TestEnvironmentReadsOutOfSight: env and printenv ask, as do jq '$ENV'
// and echo $GITHUB_TOKEN; but yq's env, a jq program read from a file or
// a module (which the gate cannot see), a bash nameref to a secret
// variable, and secret variables of other spellings (MYSQL_PWD, REDIS_URL,
// CI_JOB_JWT) printed the values unasked.
func TestEnvironmentReadsOutOfSight(t *testing.T) {
	tr := namesTree(t)
	os.WriteFile(tr.ws+"/p.jq", []byte("env\n"), 0o600)
	tr.check(t, tr.g, []fsCase{
		{"yq -n env", VerdictAsk},
		{"yq -n env.GITHUB_TOKEN", VerdictAsk},
		{"yq -n 'env(GITHUB_TOKEN)'", VerdictAsk},
		{"yq -n 'strenv(GITHUB_TOKEN)'", VerdictAsk},
		{"yq -n '$ENV'", VerdictAsk},
		{"echo '{}' | yq '.a = env.AWS_SECRET_ACCESS_KEY'", VerdictAsk},
		{"echo env > p.jq && jq -n -f p.jq", VerdictAsk},
		{"jq -n -f p.jq", VerdictAsk},
		{"jq -n --from-file p.jq", VerdictAsk},
		{"jq -nf p.jq", VerdictAsk},
		{"gojq -n -f p.jq", VerdictAsk},
		{"yq -n --from-file p.jq", VerdictAsk},
		{`jq -L . -n 'import "x" as x; x::f'`, VerdictAsk},
		{`jq -n 'include "x"; f'`, VerdictAsk},
		{"jq -L. -n 1", VerdictAsk},
		{"declare -n r=GITHUB_TOKEN; echo $r", VerdictAsk},
		{"typeset -n r=GITHUB_TOKEN; echo $r", VerdictAsk},
		{"f() { local -n r=AWS_SECRET_ACCESS_KEY; echo $r; }; f", VerdictAsk},
		{"declare -n r=$1; echo $r", VerdictAsk},
		{"declare -n r; r=GITHUB_TOKEN; echo $r", VerdictAsk},
		{"echo $MYSQL_PWD", VerdictAsk},
		{"echo $REDIS_URL", VerdictAsk},
		{"printenv MONGODB_URI", VerdictAsk},
		{"echo $CI_JOB_JWT", VerdictAsk},
		{`echo "$VAULT_JWT"`, VerdictAsk},
		{"echo $DB_PWD", VerdictAsk},
		{"echo $GPG_PASSPHRASE", VerdictAsk},
		{"printenv AMQP_URL", VerdictAsk},
		{"echo $RABBITMQ_URL $EMAIL_URL", VerdictAsk},
		{"yq -n -f p.jq", VerdictAsk},
		{"echo '$GITHUB_TOKEN' | envsubst", VerdictAsk},
		{`jq -n "$(cat p.jq)"`, VerdictAsk},
		{"p=env; jq -n $p", VerdictAsk},
		{`p=$(echo ZW52 | base64 -d); jq -n "$p"`, VerdictAsk},
		{`jq -n $(printf '\x65nv')`, VerdictAsk},
		{`yq e "$(echo ZW52 | base64 -d)"`, VerdictAsk},
		{"envsubst < README.md", VerdictAsk},
		{"envsubst '$GITHUB_TOKEN' < README.md", VerdictAsk},
		{"envsubst \"$X\" < README.md", VerdictAsk},
		{"pip config list", VerdictAsk},
		{"pip3 config get global.index-url", VerdictAsk},
		{"bundle config", VerdictAsk},
		{"bundle config get BUNDLE_GEMS__EXAMPLE__COM", VerdictAsk},
		// Everyday neighbours.
		{"jq -n 1", VerdictAllow},
		{"jq .name package.json", VerdictAllow},
		{"yq '.services' compose.yml", VerdictAllow},
		{"yq -i '.version = \"1.2\"' chart.yml", VerdictAllow},
		{"echo $PWD", VerdictAllow},
		{"cd $OLDPWD", VerdictAllow},
		{"echo $HOME $PATH", VerdictAllow},
		{"echo $API_URL", VerdictAllow},
		{"echo $BASE_URL", VerdictAllow},
		{"echo $UPGRADE_URL $FEEDBACK_URL", VerdictAllow},
		{"yq -f extract README.md", VerdictAllow},
		{"declare -n r=HOME; echo $r", VerdictAllow},
		{"declare -n r=GITHUB_TOKEN; echo ${#r}", VerdictAllow},
		{"declare x=1; echo $x", VerdictAllow},
		{"export -n EDITOR; echo $EDITOR", VerdictAllow},
		{"envsubst '$HOME $USER' < README.md", VerdictNone}, // unknown to the gate, but no secret
		{"envsubst -v '$HOME'", VerdictNone},
		{"pip list", VerdictAllow},
		{`jq -r ".version" package.json`, VerdictAllow},
		{`jq --arg v "$(git rev-parse HEAD)" '.rev = $v' package.json`, VerdictAllow},
		{`yq -i ".version = \"$VERSION\"" chart.yml`, VerdictAllow},
	})
}

// TestNamesListedAtRunTime: cat $(find src -type f) asked, but the same
// list reaching the reader through backquotes, a variable, a loop, an
// array, or another lister (echo of a pattern, compgen -G, git status),
// read the untracked .env files unasked.
func TestNamesListedAtRunTime(t *testing.T) {
	tr := namesTree(t)
	tr.check(t, tr.g, []fsCase{
		{"cat `find src -type f`", VerdictAsk},
		{"cat `ls -A`", VerdictAsk},
		{"cat `git ls-files -o`", VerdictAsk},
		{"x=$(find src -type f); cat $x", VerdictAsk},
		{"x=`find src -type f`; cat $x", VerdictAsk},
		{`x="$(find src -type f)"; cat "$x"`, VerdictAsk},
		{"for f in $(find src -type f); do cat $f; done", VerdictAsk},
		{"for f in `find . -type f`; do head $f; done", VerdictAsk},
		{"cat $(echo src/sub/.*)", VerdictAsk},
		{`cat $(compgen -G "src/sub/.*")`, VerdictAsk},
		{`a=(src/sub/.*); cat "${a[@]}"`, VerdictAsk},
		{"a=(src/sub/.e*); cat ${a[0]}", VerdictAsk},
		{"tail -n +1 $(git status --porcelain -uall | cut -c4-)", VerdictAsk},
		{"base64 $(git status --porcelain -uall | awk '{print $2}')", VerdictAsk},
		{"xxd $(ls -a src/sub)", VerdictAsk},
		// Everyday neighbours.
		{`for f in *.md; do cat "$f"; done`, VerdictAllow},
		{`grep -n "$(git rev-parse --abbrev-ref HEAD)" README.md`, VerdictAllow},
		{`cat "$(git rev-parse --show-toplevel)/README.md"`, VerdictAllow},
		{"head -n 5 $(ls *.md)", VerdictAllow},
		{"n=$(wc -l < README.md); head -n $n README.md", VerdictAllow},
		{"n=$(wc -l < README.md); tail --lines $n README.md", VerdictAllow},
		{"cat `ls *.md`", VerdictAllow},
		{"x=$(ls *.md); head $x", VerdictAllow},
		{"a=(*.md); cat \"${a[@]}\"", VerdictAllow},
		{"for f in $(ls src/*.go); do wc -l $f; done", VerdictAllow},
		{"for f in $(find src -name '*.go'); do cat $f; done", VerdictAllow},
		{"x=$(find src -type f); wc -l $x", VerdictAllow},
		{"cat $(echo src/*.go)", VerdictAllow},
	})
}

// TestNamesBuiltAtRunTime: a file's name put together from pieces, one of
// them computed (cat $(echo .e)nv, f=.e; cat ${f}nv), is a pattern made of
// the literal text with anything in place of each piece: *nv matches .env.
func TestNamesBuiltAtRunTime(t *testing.T) {
	tr := namesTree(t)
	tr.check(t, tr.g, []fsCase{
		{"cat $(echo .e)nv", VerdictAsk},
		{"f=.e; cat ${f}nv", VerdictAsk},
		{`cat "$(printf .e%snv "")"`, VerdictAsk},
		{`cat "$(printf %s .e nv)"`, VerdictAsk},
		{"cat src/sub/$(echo .e)nv", VerdictAsk},
		{"cat ~/.ssh/$(echo id)_rsa", VerdictAsk},
		{"f=id_; cat ~/.ssh/${f}rsa", VerdictAsk},
		{`cat $(printf '\x2eenv')`, VerdictAsk},
		{`cat $(printf '%b' '\056env')`, VerdictAsk},
		{`cat $(echo -e '\x2eenv')`, VerdictAsk},
		{"cat $(echo LmVudgo= | base64 -d)", VerdictAsk},
		{"f=$(echo LmVudgo= | base64 -d); cat \"$f\"", VerdictAsk},
		{"cat $(tr A-Z a-z <<< $HOMEDIR/.SSH/ID_RSA)", VerdictAsk},
		{"cat $(echo L2hvbWU= | base64 -d)/config", VerdictAsk},
		{"cat ${x:-.e}nv", VerdictAsk},
		{"cat $(echo .e)$(echo nv)", VerdictAsk},
		{"x=.e; y=nv; cat $x$y", VerdictAsk},
		{`x=.e; cat "$x"'nv'`, VerdictAsk},
		{`x=.e; cat "$x"nv`, VerdictAsk},
		{`x=.e; cat "$x""nv"`, VerdictAsk},
		{`x=.e; cat $x\nv`, VerdictAsk},
		{`set -- .e; cat "$1"nv`, VerdictAsk},
		{`x=".env README.md"; cat $x`, VerdictAsk},
		{"IFS=X; x=.envX; cat $x", VerdictAsk},
		{"IFS=$(echo X); x=.envX; cat $x", VerdictAsk},
		{"cat $(echo src/sub)/.env", VerdictAsk},
		{"git diff --no-index /dev/null $(echo LmVudgo= | base64 -d)", VerdictAsk},
		{"git diff --no-index /dev/null $(echo .e)nv", VerdictAsk},
		{"ls .env; cat $_", VerdictAsk},
		{`: .env; cat "$_"`, VerdictAsk},
		{"echo .env | { read; cat $REPLY; }", VerdictAsk},
		{"mapfile < list.txt; cat ${MAPFILE[@]}", VerdictAsk},
		{"[[ .env =~ .* ]]; cat $BASH_REMATCH", VerdictAsk},
		{`printf -v x '\x2eenv'; cat $x`, VerdictAsk},
		{"x=.e; x+=nv; cat $x", VerdictAsk},
		{"cat < $(echo .e)nv", VerdictAsk},
		{"cat /dev/fd/3 3< $(echo .e)nv", VerdictAsk},
		{": ${x:=.env}; cat $x", VerdictAsk},
		{"declare -n r=x; r=.env; cat $x", VerdictAsk},
		{"read -r x <<< .e; cat ${x}nv", VerdictAsk},
		// Everyday neighbours.
		{`cat "$(git rev-parse --show-toplevel)/go.mod"`, VerdictAllow},
		{"v=README; cat $v.md", VerdictAllow},
		{"cat src/$(echo main).go", VerdictAllow},
		{"x=README; x+=.md; cat $x", VerdictAllow},
		{`x="README.md src/main.go"; cat $x`, VerdictAllow},
		{"wc -c $(echo LmVudgo= | base64 -d)", VerdictAllow}, // a count, not the contents
		{"git log -- $(git rev-parse --show-toplevel)", VerdictAllow},
		{"mkdir -p build && cd $_ && ls", VerdictAllow},
		{"wc -l < $(ls *.md)", VerdictAllow},
		{"printf -v n %d 3; head -n $n README.md", VerdictAllow},
	})
}

// FuzzNamesMadeAtRunTime: working out what a word may name never panics
// nor hangs; printfText stays bounded; a name always matches itself and a
// lone hole matches any name; a word given to cat that holds the name of
// the tree's .env as literal text around an expansion asks.
func FuzzNamesMadeAtRunTime(f *testing.F) {
	for _, s := range []string{"$(echo .e)nv", "${f}nv", "$(printf .e%snv '')", "`find src -type f`", "$(ls -A)",
		"$(git status --porcelain -uall | cut -c4-)", "$(compgen -G 'src/sub/.*')", "${a[@]}", "$(printf '\\x2eenv')",
		"$(printf %s%s%q .e nv x)", "$(echo -e '\\056env')", "$(printf %", "$(", "`", "${x:-.e}nv", "$(echo $(echo $(echo x)))", "$x$x$x$x", "${x[@]}$x"} {
		f.Add(s)
	}
	tr := namesTree(f)
	f.Fuzz(func(t *testing.T, word string) {
		if out := printfText(word, []string{word, "x"}); len(out) > maxPrintfText+len(word)+8 {
			t.Fatalf("printfText(%q) made %d bytes", word, len(out))
		}
		if !strings.ContainsAny(word, "*?\x00\x01") && !holeMatch(word, word) {
			t.Fatalf("%q does not match itself", word)
		}
		if !holeMatch(string(lineHole), word) {
			t.Fatalf("a hole does not match %q", word)
		}
		if strings.ContainsAny(word, "\n;&|<>(){}'\"\\ \t#=*?[") {
			return
		}
		cmd := "x=" + word + "; cat ${x}$(echo .e)nv"
		if i := strings.Index(word, "://"); urlScheme(word, i) {
			return // a URL, unless its scheme is a folder here (TestSchemelessURLIsAPath): no such folder in this tree
		}
		if r := tr.g.Decide(t.Context(), cmd, Input{Sandboxed: true}); r.Verdict == VerdictAllow {
			t.Fatalf("%q: allowed: %v", cmd, r.Reasons)
		}
	})
}

// FuzzSecretVarSpelling: the spellings of secret variables never panic,
// PWD and OLDPWD are directories, and what ends in _PWD or holds JWT is a
// secret unless it names a path (_PATH, _DIR, _FILE).
func FuzzSecretVarSpelling(f *testing.F) {
	for _, s := range []string{"MYSQL_PWD", "PWD", "OLDPWD", "REDIS_URL", "UPGRADE_URL", "CI_JOB_JWT", "JWT_FILE", "MONGODB_URI", "_", "_URL", "a_pwd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := secretVarName(name)
		u := strings.ToUpper(name)
		switch {
		case u == "PWD" || u == "OLDPWD":
			if got {
				t.Fatalf("%q counts as a secret", name)
			}
		case strings.HasSuffix(u, "_PATH") || strings.HasSuffix(u, "_DIR") || strings.HasSuffix(u, "_FILE") || strings.Contains(u, "AUTHOR"):
		case strings.HasSuffix(u, "_PWD") || strings.Contains(u, "JWT"):
			if !got {
				t.Fatalf("%q does not count as a secret", name)
			}
		}
	})
}
