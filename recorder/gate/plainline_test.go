package gate

import (
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// checkPlainLine fails when plainLine takes src and builds a tree other
// than the parser's, fresh or in reused, a tree that held other lines
// before (as an analysis reuses its trees).
func checkPlainLine(t *testing.T, reused *plainTree, src string) bool {
	t.Helper()
	got, ok := plainLine(src)
	again, okAgain := reused.build(src)
	if ok != okAgain {
		t.Fatalf("plainLine(%q) took it %v, a reused tree %v", src, ok, okAgain)
	}
	if !ok {
		return false
	}
	want, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		t.Fatalf("plainLine took %q, which the parser refuses: %v", src, err)
	}
	for _, got := range []*syntax.File{got, again} {
		if !reflect.DeepEqual(got, want) {
			var g, w strings.Builder
			syntax.DebugPrint(&g, got)
			syntax.DebugPrint(&w, want)
			t.Fatalf("plainLine(%q) differs from the parser:\n%s\nwant:\n%s", src, g.String(), w.String())
		}
	}
	return true
}

func TestPlainLineMatchesTheParserOnTheCorpora(t *testing.T) {
	taken, all := 0, 0
	reused := new(plainTree)
	for _, f := range []string{"testdata/everyday.txt", "testdata/risky.txt", "testdata/heldout/everyday.txt", "testdata/heldout/attack.txt"} {
		for _, c := range readCorpus(t, f) {
			all++
			if checkPlainLine(t, reused, c) {
				taken++
			}
		}
	}
	t.Logf("%d of %d corpus lines are plain", taken, all)
	if taken == 0 {
		t.Fatal("no corpus line is plain")
	}
}

func TestPlainLineLeavesTheRestToTheParser(t *testing.T) {
	for _, src := range []string{"", "   ", "x=1", "x=1 y=2", "x=1 | y", "ls && x=1", "1x=2 y", "x='a' y", "x=\"a\" y", "x=a'b' y", "+=1 x", "=1 x",
		"x=1 if", "x=1 y=2 then", "x=1 '", "echo $HOME",
		"cat <<EOF", "cat <<-EOF", "cat <<<x", "ls >| f", "ls <> f", "ls >(x)", "cat <(x)", "ls >", "ls > | x", ">f ls", "2>f ls", "ls >f>g",
		"ls > 2>f", "ls >&", "ls &>> ", "ls >!f", "ls >>| f", "ls &>| f", "X=1 >f ls", "ls ><f", "ls >>&f", "ls >&|f", "ls >&>f",
		"ls > ;", "ls >f &", "ls < $x", "ls >\\x", "ls 2>&1 |& x",
		"ls &", "ls & rm f", "ls |& cat", "ls ;; x", "ls ;& x", "ls ;;& x", "ls ;| x", "| ls", "ls |", "ls &&", "&& ls", "ls ||",
		"ls; ;", "; ls", ";", "ls || | x", "ls ||| x", "ls &&& x", "ls | if x", "ls && time x", "ls || ! x", "ls; x=1",
		"ls && declare x", "echo if | fi x", "a ; if", "ls;\nx", "ls && {", "ls | (x)", "ls&&&x", "ls && x #c",
		`echo a\ b`, `echo "$x"`, "echo 'a", `echo "a`, `echo "a\"b"`, "echo $'a'", "echo 'a'$b", "echo {a,b}", "ls # c", "ls\nrm f", "if true", "time ls",
		"export A=1", "declare -x A", "let a=1", "coproc ls", "function f", "ls &", "! ls", "(ls)", "echo a[1]", "echo `ls`",
		"[[ -f x ]]", "ls !(x)", "ls *(a)", "ls ?(a)", "ls @(a)", "ls +(a)", "echo #", "! ls", "ls\x00", "echo é", "echo 'é'", "echo \"\xba\"", "echo 'a\rb'"} {
		if _, ok := plainLine(src); ok {
			t.Errorf("plainLine took %q", src)
		}
	}
	reused := new(plainTree)
	for _, src := range []string{"git status", " go  test\t./... ", "ls -la src/", "echo if then fi", "cmd a=b c,d e:f g@h i%j k+l -",
		"./gradlew test", "/usr/bin/env", "echo 'a'", `echo "a"`, `grep -rn 'TODO: x' src`, `git commit -m "fix: it"`,
		`echo a'b'"c"d`, `echo '' ""`, `'ls' -l`, `"if" x`, `echo 'a"b' "c'd"`, `sed -n '1,80p' f`, "echo 'a\tb' \"c\td\"",
		"echo ~", "ls *.go", "echo ?", "ls ~/x ~+ ~- ~u/y *? **/x", "a^b c^d", "~/bin/tool -x", "grep -r 'x' ~/src/*.go",
		"ls;rm f", "ls && rm f", "ls | sh", "ls;", "ls ; ", "a|b|c", "a && b || c && d", "a | b && c | d || e | f; g | h", "a;b;c",
		"git diff | head -100", "cd web && npm test", "a=1 ls", "ls | x=1 y", "a+=1 b", "_a=b c", "a=b=c d", "a= b", "a=1 b=2 c d=3",
		"ls >f", "ls > f", "ls 2>&1", "go test ./... 2>&1 | tail -30", "ls 2>/dev/null", "cmd <in >out 2>err", "cmd >>log", "cmd &>/dev/null",
		"cmd &>>log", "cmd <&0", "cmd >&-", "cmd 10>f", "cmd a2>f", "cmd 2 >f", "cmd >'a b'", `cmd >"x"y`, "ls&>f", "ls 2&>f", "ls>f|x",
		"sort -u names.txt > /tmp/names.sorted", "wc -c < main.go && x 2>f", "ls >f 2>g", "x=1 ls >f a=b", "ls 'a'2>f", "ls a'b'22>&1", "ls 2>&1 | x", "ls | x > f",
		"LC_ALL=C sort names.txt", "GOCACHE=/tmp/gocache go build ./... && CGO_ENABLED=0 x", "X=~/a Y=*.go z", "A1=1 b | C_=2 d", "x 'a|b' \"c && d\" | y", "echo if | x fi", "a | 'if' x"} {
		if !checkPlainLine(t, reused, src) {
			t.Errorf("plainLine left %q to the parser", src)
		}
	}
}

// FuzzPlainLineMatchesParser holds plainLine's tree equal to the parser's
// for every line it takes.
func FuzzPlainLineMatchesParser(f *testing.F) {
	for _, s := range []string{"git status", "go test ./...", "a=b c", "ls -la\tsrc", "echo if", "x y=z", "", " - ", "@ % +", `a 'b' "c" d'e'"f"`, `x "" ''`, "ls ~/x *.go a?b ^c",
		"a | b && c || d; e", "a;b", "a&&b|c", "a ;", "a |& b", "x|y=z", "a && b;; c", "a | b & c", "a || b |",
		"A=1 b", "a+=x b", "A=1 B= c && D=x=y e", "x=1", "a[1]=2 b", "A=1 if",
		"a >f", "a 2>&1 | b", "a <x >>y 2>&1 && c &>/dev/null", "a > 'f' 3<&0", "a >f>g", "a <<x", "a 2>", ">f a", "a &>>f; b >&- c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// The tree is reused after a line of other words, quotes and
		// parts, as an analysis reuses it.
		reused := new(plainTree)
		reused.build(`x "a" 'b' c"d"e "" f g h i j k l m n o p`)
		reused.build(`a | b && c 'd' || e "f"; g | h | i`)
		reused.build(`A=1 B= C+=x d e | F=g h`)
		reused.build(`a 2>&1 >f | b <"c"d && e &>>g`)
		checkPlainLine(t, reused, src)
	})
}
