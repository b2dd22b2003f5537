package script

import (
	"strings"
	"testing"
)

func TestPrecedenceFollowsSpecExample(t *testing.T) {
	chain := []string{"1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
		"1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"}
	for i := 1; i < len(chain); i++ {
		if c, err := compareStrings(chain[i-1], chain[i], true); err != nil || c != -1 {
			t.Errorf("compare(%s, %s) = %d, %v; want -1", chain[i-1], chain[i], c, err)
		}
	}
	if c, _ := compareStrings("1.0.0-beta.2", "1.0.0-beta.11", false); c != 1 {
		t.Errorf("original comparison orders beta.2 below beta.11; the story's bug would not exist")
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "1.2", "01.0.0", "1.0.0-01", "1.0.0-a..b", "1.0.0+", "1.0.0-a_b"} {
		if _, err := parseSemver(s); err == nil {
			t.Errorf("parseSemver(%q) succeeded, want an error", s)
		}
	}
}

func TestHeadTail(t *testing.T) {
	s := strings.Repeat("a", 100) + strings.Repeat("b", 100)
	out, omitted := headTail(s, 30)
	if omitted != 140 || !strings.HasPrefix(out, strings.Repeat("a", 30)+"\n\n[... cuff: 140 bytes omitted ...]\n\n") ||
		!strings.HasSuffix(out, "\n\n"+strings.Repeat("b", 30)) {
		t.Errorf("headTail = %q, %d", out, omitted)
	}
	if out, omitted := headTail("short", 30); out != "short" || omitted != 0 {
		t.Errorf("headTail of a short string = %q, %d", out, omitted)
	}
}

func TestLineChanges(t *testing.T) {
	ins, del := lineChanges("a\nb\nc\n", "a\nx\ny\nc\n")
	if ins != 2 || del != 1 {
		t.Errorf("lineChanges = +%d -%d, want +2 -1", ins, del)
	}
}

// FuzzCompare checks that the fixed comparison is a total order on any
// versions that parse: reflexive and antisymmetric, and that parsing never
// panics.
func FuzzCompare(f *testing.F) {
	f.Add("1.4.0-rc.2", "1.4.0-rc.10")
	f.Add("1.0.0-alpha.beta", "1.0.0-alpha.1")
	f.Add("2.0.0+build.5", "2.0.0")
	f.Add("1.0.0-18446744073709551616", "1.0.0-x")
	f.Add("", "1..0")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, errA := parseSemver(x)
		b, errB := parseSemver(y)
		if errA != nil || errB != nil {
			return
		}
		if c := comparePrecedence(a, a, true); c != 0 {
			t.Errorf("compare(%q, itself) = %d", x, c)
		}
		if ab, ba := comparePrecedence(a, b, true), comparePrecedence(b, a, true); ab != -ba {
			t.Errorf("compare(%q, %q) = %d but compare(%q, %q) = %d", x, y, ab, y, x, ba)
		}
	})
}
