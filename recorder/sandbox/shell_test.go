package sandbox

import (
	"strings"
	"testing"
)

func TestUnwrapGivesBackTheLine(t *testing.T) {
	o := Options{Root: "/p r/o'j", StateDir: "/s", Write: []string{"/w"}}
	for _, line := range []string{"git status", "cd sub && go test ./...", "cat <<'EOF'\n'x' \"$y\"\nEOF", "echo $'\\t' `date` \\\n  next", ""} {
		got, ok := Unwrap(o.ShellWrap("/usr/local/bin/cuff", line))
		if !ok || got != line {
			t.Errorf("Unwrap(ShellWrap(%q)) = %q, %v", line, got, ok)
		}
	}
	for _, s := range []string{"git status", "{ __cuff_cd=$(echo) } 4>&1", "{ __cuff_cd=$(cuff sandbox --shell) ; } 4>&1"} {
		if got, ok := Unwrap(s); ok {
			t.Errorf("Unwrap(%q) = %q, true", s, got)
		}
	}
}

func FuzzUnwrap(f *testing.F) {
	o := Options{Root: "/p", StateDir: "/s"}
	for _, s := range []string{"ls", "a 'b' \"c\" $d", "x\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		w := o.ShellWrap("/bin/cuff", line)
		got, ok := Unwrap(w)
		if !ok {
			return // a line no shell can parse stays wrapped
		}
		if got != line && got != stripNUL(line) {
			t.Fatalf("Unwrap(ShellWrap(%q)) = %q", line, got)
		}
	})
}

func stripNUL(s string) string { return strings.ReplaceAll(s, "\x00", "") }
