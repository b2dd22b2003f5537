package gate

import (
	"os"
	"os/exec"
	"testing"
)

// namesTree is a real tree whose work tree is a git repository with two
// untracked credential files, ./.env and ./src/sub/.env, and whose home
// holds ~/.ssh/id_rsa.
func namesTree(t *testing.T) *realTree {
	t.Helper()
	tr := newRealTree(t)
	if err := os.MkdirAll(tr.ws+"/src/sub", 0o700); err != nil {
		t.Fatal(err)
	}
	for f, body := range map[string]string{tr.ws + "/.env": "TOKEN=x\n", tr.ws + "/src/sub/.env": "TOKEN=y\n",
		tr.ws + "/src/sub/a.go": "package sub\n", tr.ws + "/notes.md": "# notes\n", tr.home + "/.ssh/id_rsa": "KEY\n"} {
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
		{"declare -n r=HOME; echo $r", VerdictAllow},
		{"declare -n r=GITHUB_TOKEN; echo ${#r}", VerdictAllow},
		{"declare x=1; echo $x", VerdictAllow},
	})
}
