package scripts

import (
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/recorder/runner"
)

func TestValidateArgsRefusesEveryDangerousCharacter(t *testing.T) {
	if err := ValidateArgs([]string{"--verbose", "target=prod", "a b", "ünïcode", "", "-x", "path/to/file.txt", "50%", "a,b", "#1", "@home", "x+y", "^"}); err != nil {
		t.Fatalf("plain arguments refused: %v", err)
	}
	want := map[rune]string{
		';': "{';'}", '&': "{'&'}", '|': "{'|'}", '`': "{'`'}", '$': "{'$'}", '(': "{'('}", ')': "{')'}",
		'{': "{'{'}", '}': "{'}'}", '[': "{'['}", ']': "{']'}", '<': "{'<'}", '>': "{'>'}",
		'\\': `{'\\'}`, '\'': `{"'"}`, '"': `{'"'}`, '!': "{'!'}", '*': "{'*'}", '?': "{'?'}", '~': "{'~'}",
	}
	if len(want) != len([]rune(dangerousChars)) {
		t.Fatalf("table covers %d of %d characters", len(want), len([]rune(dangerousChars)))
	}
	for c, set := range want {
		err := ValidateArgs([]string{"ok", "a" + string(c) + "b"})
		if err == nil || err.Error() != "Argument contains dangerous characters: "+set || kindOf(err) != KindDangerousArgs {
			t.Errorf("%q: got %v, want the set %s", c, err, set)
		}
		if e := err.(*Error); !strings.Contains(e.Hint, "argument 2") {
			t.Errorf("hint does not name the argument: %q", e.Hint)
		}
	}
	err := ValidateArgs([]string{"$(rm -rf ~); echo `id`"})
	if err == nil || err.Error() != "Argument contains dangerous characters: {'$', '(', ')', ';', '`', '~'}" {
		t.Errorf("several characters: %v", err)
	}
}

func FuzzValidateArgs(f *testing.F) {
	for _, s := range []string{"plain", "a;b", "$(x)", "\\", "'\"", "", "\x00", "ü~"} {
		f.Add(s, "second")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		err := ValidateArgs([]string{a, b})
		dangerous := strings.ContainsAny(a, dangerousChars) || strings.ContainsAny(b, dangerousChars)
		if (err != nil) != dangerous {
			t.Fatalf("ValidateArgs(%q, %q) = %v", a, b, err)
		}
		if err == nil {
			return
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "Argument contains dangerous characters: {") || !strings.HasSuffix(msg, "}") {
			t.Fatalf("message %q", msg)
		}
		first := a
		if !strings.ContainsAny(a, dangerousChars) {
			first = b
		}
		for _, c := range dangerousChars {
			listed := strings.Contains(msg, pyRepr(string(c)))
			if listed != strings.ContainsRune(first, c) {
				t.Fatalf("%q: message %q lists %q: %v", first, msg, c, listed)
			}
		}
	})
}

func TestValidateEnvRefusesBlockedVariables(t *testing.T) {
	if err := ValidateEnv(map[string]string{"CI": "true", "LOG_LEVEL": "debug", "path": "x", "Home_dir": "y"}); err != nil {
		t.Fatalf("plain variables refused: %v", err)
	}
	if err := ValidateEnv(nil); err != nil {
		t.Fatal(err)
	}
	for _, v := range BlockedEnvVars() {
		err := ValidateEnv(map[string]string{"OK": "1", v: "x"})
		if err == nil || err.Error() != "Blocked environment variables: {'"+v+"'}" || kindOf(err) != KindBlockedEnv {
			t.Errorf("%s: got %v", v, err)
		}
	}
	err := ValidateEnv(map[string]string{"PATH": "/evil", "LD_PRELOAD": "x.so", "HOME": "/tmp", "X": "1"})
	if err == nil || err.Error() != "Blocked environment variables: {'HOME', 'LD_PRELOAD', 'PATH'}" {
		t.Errorf("several: %v", err)
	}
	for _, bad := range []string{"", "1X", "A-B", "A=B", "A B"} {
		if err := ValidateEnv(map[string]string{bad: "v"}); kindOf(err) != KindInvalid {
			t.Errorf("name %q: %v", bad, err)
		}
	}
	if err := ValidateEnv(map[string]string{"A": "x\x00y"}); kindOf(err) != KindInvalid {
		t.Errorf("NUL value: %v", err)
	}
}

func FuzzValidateEnv(f *testing.F) {
	f.Add("PATH", "x")
	f.Add("CI", "true")
	f.Add("1A", "")
	f.Add("LD_PRELOAD", "\x00")
	f.Fuzz(func(t *testing.T, k, v string) {
		err := ValidateEnv(map[string]string{k: v})
		blocked := false
		for _, b := range BlockedEnvVars() {
			blocked = blocked || b == k
		}
		if blocked != (kindOf(err) == KindBlockedEnv) {
			t.Fatalf("ValidateEnv(%q) = %v", k, err)
		}
		if err == nil && (!validEnvName(k) || strings.ContainsRune(v, 0)) {
			t.Fatalf("accepted %q=%q", k, v)
		}
	})
}

func TestRefusalsKeepTheirMeaningForTheRunner(t *testing.T) {
	cases := map[Kind]runner.Code{
		KindNotFound: runner.CodeNotFound, KindPermission: runner.CodePermissionDenied,
		KindDangerousArgs: runner.CodeInvalid, KindBlockedEnv: runner.CodeInvalid, KindTraversal: runner.CodeInvalid,
	}
	for kind, code := range cases {
		res := Refused(&Error{Kind: kind, Message: "m"})
		if res.Err == nil || res.Err.Code != code || res.Err.Message != "m" || res.Started() {
			t.Errorf("%s: %+v", kind, res.Err)
		}
	}
	nf, perm := Refused(&Error{Kind: KindNotFound}), Refused(&Error{Kind: KindPermission})
	if got := nf.ExitStatus(); got != runner.ExitNotFound {
		t.Errorf("not found exits %d", got)
	}
	if got := perm.ExitStatus(); got != runner.ExitNotExecutable {
		t.Errorf("permission exits %d", got)
	}
}
