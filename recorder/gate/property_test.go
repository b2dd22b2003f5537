package gate

import (
	"math/rand/v2"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// wrapper builds a command line that runs cmd.
type wrapper struct {
	name string
	// argv: the wrapper takes a command's words, so it only applies to a
	// single simple command.
	argv bool
	wrap func(cmd string) string
}

func quoted(cmd string) string {
	q, err := syntax.Quote(cmd, syntax.LangBash)
	if err != nil {
		panic(err)
	}
	return q
}

func testWrappers() []wrapper {
	return []wrapper{
		{"$()", false, func(c string) string { return "echo $( " + c + "\n)" }},
		{"backquote", false, func(c string) string {
			if strings.Contains(c, "`") || strings.Contains(c, `\`) {
				return "echo $( " + c + "\n)"
			}
			return "echo `" + c + "`"
		}},
		{"pipe in", false, func(c string) string { return "ls | { " + c + "\n}" }},
		{"pipe out", false, func(c string) string { return c + "\n true | wc -l" }},
		{"and", false, func(c string) string { return "true && " + c }},
		{"or", false, func(c string) string { return "false || { " + c + "\n}" }},
		{"subshell", false, func(c string) string { return "( " + c + "\n)" }},
		{"if", false, func(c string) string { return "if true; then " + c + "\nfi" }},
		{"function", false, func(c string) string { return "f() { " + c + "\n}; f" }},
		{"bash -c", false, func(c string) string { return "bash -c " + quoted(c) }},
		{"sh -c", false, func(c string) string { return "sh -c " + quoted(c) }},
		{"eval", false, func(c string) string { return "eval " + quoted(c) }},
		{"procsubst", false, func(c string) string { return "cat <(" + c + "\n)" }},
		{"env", true, func(c string) string { return "env " + c }},
		{"timeout", true, func(c string) string { return "timeout 5 " + c }},
		{"nice", true, func(c string) string { return "nice -n 10 " + c }},
		{"nohup", true, func(c string) string { return "nohup " + c }},
		{"sudo", true, func(c string) string { return "sudo " + c }},
		{"command", true, func(c string) string { return "command " + c }},
		{"xargs", true, func(c string) string { return "xargs " + c }},
		{"stdbuf", true, func(c string) string { return "stdbuf -o0 " + c }},
		{"time", true, func(c string) string { return "time " + c }},
	}
}

// simpleCommand reports whether cmd is one simple command with words, the
// kind that wrappers taking a command's words (env, timeout) can run.
func simpleCommand(cmd string) bool {
	f, err := syntax.NewParser().Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	st := f.Stmts[0]
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || len(c.Args) == 0 || len(st.Redirs) > 0 {
		return false
	}
	// A name starting with '-' would be read as the wrapper's option, and
	// one like A=b as env's assignment.
	name := resolveWord(cmd, c.Args[0])
	return !name.mayOpt() && !strings.Contains(name.val, "=")
}

// TestWrappingNeverLowersTheVerdict wraps every risky command of the corpus
// in random stacks of wrappers and checks that the verdict never drops.
func TestWrappingNeverLowersTheVerdict(t *testing.T) {
	pol, err := ParsePolicy("policy.yml", []byte("rules:\n  - {match: \"curl *\", action: deny}\n  - {match: \"git push *\", action: deny}\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := testGate(t, Options{Policy: pol})
	bases := readCorpus(t, "testdata/risky.txt")
	rng := rand.New(rand.NewPCG(1, 2))
	const perBase = 12
	wrappers := testWrappers()
	checked := 0
	for _, base := range bases {
		want := g.Check(t.Context(), base, 0).Verdict
		if want < VerdictAsk {
			t.Fatalf("corpus command %q is not asked about (%s)", base, want)
		}
		for range perBase {
			cmd, names := base, []string{}
			for range 1 + rng.IntN(3) {
				w := wrappers[rng.IntN(len(wrappers))]
				if w.argv && !simpleCommand(cmd) {
					continue
				}
				cmd, names = w.wrap(cmd), append(names, w.name)
			}
			got := g.Check(t.Context(), cmd, 0)
			checked++
			if got.Verdict < want {
				t.Errorf("wrapping %q in %v lowered %s to %s:\n%s\nreasons: %v", base, names, want, got.Verdict, cmd, got.Reasons)
			}
		}
	}
	t.Logf("checked %d wrapped commands", checked)
}

func hasTier(r Result, t Tier) bool {
	for _, c := range r.Commands {
		if c.Tier == t {
			return true
		}
	}
	return false
}

// FuzzWrapping checks the wrapping property on arbitrary commands: any
// command that is asked about or denied stays so inside each wrapper.
func FuzzWrapping(f *testing.F) {
	for _, c := range readCorpus(f, "testdata/risky.txt") {
		f.Add(c, uint8(0))
	}
	g := testGate(f, Options{})
	wrappers := testWrappers()
	f.Fuzz(func(t *testing.T, cmd string, pick uint8) {
		if _, err := syntax.Quote(cmd, syntax.LangBash); err != nil || strings.HasSuffix(cmd, "\\") {
			return // the wrappers cannot carry it: NUL bytes, or a trailing \ that would continue the line
		}
		base := g.Check(t.Context(), cmd, 0)
		want := base.Verdict
		if want < VerdictAsk || hasTier(base, TierUnparsed) {
			// Only commands: text that does not parse is not a command,
			// and appending to it can complete a different one.
			return
		}
		w := wrappers[int(pick)%len(wrappers)]
		if w.argv && !simpleCommand(cmd) {
			return
		}
		wrapped := w.wrap(cmd)
		if got := g.Check(t.Context(), wrapped, 0); got.Verdict < want {
			t.Fatalf("wrapping %q in %s lowered %s to %s:\n%s\nreasons: %v", cmd, w.name, want, got.Verdict, wrapped, got.Reasons)
		}
	})
}
