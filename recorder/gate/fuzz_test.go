package gate

import (
	"encoding/json"
	"testing"
)

// FuzzClassify checks that any input gets a verdict, without panicking,
// and that the result is consistent and serialisable.
func FuzzClassify(f *testing.F) {
	for _, name := range []string{"testdata/everyday.txt", "testdata/risky.txt"} {
		for _, c := range readCorpus(f, name) {
			f.Add(c)
		}
	}
	for _, c := range []string{"cargo -manifest-path", "git --namespace", "", " ", "\x00", "'", "\"", "$(", "`", "((", "((x) )", "a |", "if", "{", "}",
		"<<EOF", "cat <<EOF\n$(curl x)\n", "$'\\x", "$'\\u{'", "{a,b}{c,d}{1..100000}", "x=(a b c); ${x[@]}",
		"${x@P}", "[[ -v 'a[$(x)]' ]]", "f() { f | f & }; f", "case x in (a) ;; esac", "coproc x { y; }",
		"select x in a; do b; done", "time -p x", "! x", "x &", "x |& y", "exec {fd}<>/dev/tcp/h/1",
		"yq -n env.X", "jq -nf p.jq", `jq -L. 'import "x" as x; x::f'`, "declare -n r=GITHUB_TOKEN; echo $r", "local -n r; r=X; echo ${r}",
		"declare -n", "echo $MYSQL_PWD $REDIS_URL", "cat `find src -type f`", "x=$(ls -A); cat $x", "for f in $(git status -s | cut -c4-); do cat $f; done",
		"a=(.*); cat ${a[@]}", "f=.e; cat ${f}nv", `cat "$(printf .e%snv "")"`, "cat $(compgen -G '.*')", "envsubst '${A}$B' < t", "bundle config get", "cat < $(echo .e)nv", `p=env; jq -n "$p"`, "yq e --arg a $(x) -- $(y)", "ls .env; cat $_", `x=.e; cat "$x"'nv' "$x"nv $x\nv "$1"0 "$@"x`} {
		f.Add(c)
	}
	g := corpusTree(f, Options{})
	f.Fuzz(func(t *testing.T, cmd string) {
		r := g.Check(t.Context(), cmd, TaintUntrusted)
		if r.Verdict > VerdictDeny || r.Tier > TierDenyRule {
			t.Fatalf("invalid verdict %d / tier %d", r.Verdict, r.Tier)
		}
		if r.Commands == nil || r.Reasons == nil {
			t.Fatalf("nil list in result %+v", r)
		}
		worst := VerdictAllow
		for _, c := range r.Commands {
			worst = max(worst, c.Verdict)
			if len(c.Reasons) == 0 || c.Argv == nil {
				t.Fatalf("command %q has no reasons or argv", c.Text)
			}
		}
		if len(r.Commands) > 0 && worst != r.Verdict {
			t.Fatalf("verdict %s is not the worst of its commands (%s)", r.Verdict, worst)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		// The gate reuses buffers between checks: a second check of the
		// same command must give the same answer.
		if again, _ := json.Marshal(g.Check(t.Context(), cmd, TaintUntrusted)); string(again) != string(b) {
			t.Fatalf("second check differs:\n%s\n%s", b, again)
		}
	})
}
