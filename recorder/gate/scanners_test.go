package gate

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestScanSed(t *testing.T) {
	cases := []struct {
		script string
		execs  bool
		writes string
		bad    bool
	}{
		{script: "s/a/b/g"},
		{script: "1,40p"},
		{script: "/^#/d; s|x|y|"},
		{script: "s/[/]/X/"},
		{script: "$!N;s/\\n/ /;P;D"},
		{script: "/start/,/end/{s/a/b/;p}"},
		{script: "1i\\\nheader"},
		{script: "a hello; e world"},
		{script: ":a;N;$!ba;s/\\n/,/g"},
		{script: "y/abc/xyz/"},
		{script: "\\,x,d"},
		{script: "1e curl x", execs: true},
		{script: "e", execs: true},
		{script: "s/.*/date/e", execs: true},
		{script: "s/x/y/gpe", execs: true},
		{script: "2 ! e ls", execs: true},
		{script: "w /etc/x", writes: "/etc/x"},
		{script: "s/a/b/w out.txt", writes: "out.txt"},
		{script: "W /dev/stdout"},
		{script: "1r /etc/passwd"},
		{script: "s/a/b", bad: true},
		{script: "k", bad: true},
		{script: "s/a/b/ x", bad: true},
		{script: "/unterminated", bad: true},
	}
	for _, tc := range cases {
		fx, err := scanSed(tc.script)
		if (err != nil) != tc.bad {
			t.Errorf("%q: error %v, want bad=%v", tc.script, err, tc.bad)
			continue
		}
		if fx.execs != tc.execs || strings.Join(fx.writes, ",") != tc.writes {
			t.Errorf("%q: execs %v writes %q, want %v %q", tc.script, fx.execs, fx.writes, tc.execs, tc.writes)
		}
	}
}

func TestScanAwk(t *testing.T) {
	cases := []struct {
		prog string
		runs bool
		net  bool
		ind  bool
		dyn  bool
		out  string
		bad  bool
	}{
		{prog: "{print $1}"},
		{prog: "NR>1 {sum+=$3} END {print sum}"},
		{prog: "/a|b/ {print}"},
		{prog: `$0 ~ /x/ { n++ } END { print n / 2 }`},
		{prog: `{ if ($2 > 10) print $1 }`},
		{prog: `{ print ($1 > $2) }`},
		{prog: `{ print "a|b" }`},
		{prog: `{ print > "out.txt" }`, out: "out.txt"},
		{prog: `{ print $1 > "/dev/stderr" }`},
		{prog: `{ print > $1 ".txt" }`, dyn: true},
		{prog: `BEGIN { system("ls") }`, runs: true},
		{prog: `{ print | "sort" }`, runs: true},
		{prog: `BEGIN { "date" | getline d }`, runs: true},
		{prog: `BEGIN { print "x" |& "cmd" }`, runs: true},
		{prog: `BEGIN { s = "/inet/tcp/0/h/80"; print 1 > s }`, net: true, dyn: true},
		{prog: `BEGIN { f = "system"; @f("ls") }`, ind: true},
		{prog: `@load "filefuncs"`, ind: true},
		{prog: `{ getline line < $2 }`, dyn: true},
		{prog: `{ getline line < "file" }`},
		{prog: `{ print "unterminated }`, bad: true},
	}
	for _, tc := range cases {
		fx, err := scanAwk(tc.prog)
		if (err != nil) != tc.bad {
			t.Errorf("%q: error %v, want bad=%v", tc.prog, err, tc.bad)
			continue
		}
		if (fx.runs != "") != tc.runs || fx.network != tc.net || fx.indirect != tc.ind || fx.dynIO != tc.dyn || strings.Join(fx.writes, ",") != tc.out {
			t.Errorf("%q: %+v", tc.prog, fx)
		}
	}
}

func TestResolveWord(t *testing.T) {
	g := testGate(t, Options{})
	cases := map[string]string{
		`c''url`:          "curl",
		`\curl`:           "curl",
		`"cu"'rl'`:        "curl",
		`$'\x63\165rl'`:   "curl",
		`$'\u0063url'`:    "curl",
		`$'a\tb\cAc'`:     "a\tb\x01c",
		`"a\$b\"c\\d\e"`:  `a$b"c\d\e`,
		"cu\\\nrl":        "curl",
		`{a,b}c`:          "ac bc",
		`x{1..3}`:         "x1 x2 x3",
		`"$HOME"/x`:       "$HOME/x",
		`~/bin`:           "~/bin",
		`[ -f x ]`:        "[ -f x ]",
		`{1..1000000000}`: "{1..1000000000}",
	}
	for src, want := range cases {
		r := g.Check(t.Context(), "echo "+src, 0)
		if len(r.Commands) == 0 {
			t.Fatalf("%q: no command", src)
		}
		if got := strings.Join(r.Commands[0].Argv[1:], " "); got != want {
			t.Errorf("%q: argv %q, want %q", src, got, want)
		}
	}
}

// FuzzScanSed checks that the sed scanner never panics or hangs.
func FuzzScanSed(f *testing.F) {
	for _, s := range []string{"s/a/b/g", "1e x", "s/[/]/x/w f", "/a/,/b/{p;d}", "y/ab/cd/", "a\\\ntext", ":a;N;ba", "\\,a,d", "s/a/b", "$!N"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = scanSed(s)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("scanSed(%q) hangs", s)
		}
	})
}

// FuzzScanAwk checks that the awk scanner never panics.
func FuzzScanAwk(f *testing.F) {
	for _, s := range []string{"{print $1}", "BEGIN{system(\"x\")}", "{print > \"f\"}", "/a|b/", "@load \"x\"", "{ x = 1 / 2 / 3 }", "\"unterminated", "/["} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = scanAwk(s)
	})
}

// FuzzParsePolicy checks that any policy file loads or fails with an error,
// and that a loaded policy can be matched and checked.
func FuzzParsePolicy(f *testing.F) {
	f.Add("rules:\n  - match: \"git push *\"\n    action: ask\n    examples: [\"git push\"]\n")
	f.Add("rules: [{match: \"[a-\", action: deny}]")
	f.Add("rules:\n  - {match: \"*?[\", action: allow, examples: \"x\"}\n  - {match: \"*\", action: ask}\n")
	f.Add("- x")
	f.Add("rules: {a: b}")
	f.Fuzz(func(t *testing.T, yml string) {
		p, err := ParsePolicy("fuzz.yml", []byte(yml))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, r := range p.Rules {
			p.Match(r.Match)
		}
		CheckPolicy(p)
	})
}

// TestScanOptionNames: scan names long options by their text before any =
// and short ones one byte at a time, values attached or following, and
// keeps every operand in order.
func TestScanOptionNames(t *testing.T) {
	var args []arg
	for _, v := range []string{"--color=auto", "-xvf", "a.tar", "--long", "-\xff", "op1", "-", "--", "-not-an-option", "op3"} {
		args = append(args, arg{val: v})
	}
	r := scan(args, optSpec{short: "f", long: []string{"file"}})
	var names, vals []string
	for _, o := range r.opts {
		names = append(names, o.name)
		vals = append(vals, o.val.val)
	}
	var ops []string
	for _, x := range r.operands {
		ops = append(ops, x.val)
	}
	wantNames := []string{"--color", "-x", "-v", "-f", "--long", "-" + string(rune(0xff))}
	wantVals := []string{"auto", "", "", "a.tar", "", ""}
	wantOps := []string{"op1", "-", "-not-an-option", "op3"}
	if !slices.Equal(names, wantNames) || !slices.Equal(vals, wantVals) || !slices.Equal(ops, wantOps) {
		t.Errorf("scan: names %q values %q operands %q; want %q %q %q", names, vals, ops, wantNames, wantVals, wantOps)
	}
}
