package transcript

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestInert(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello world", "hello world"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"crlf", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"lone cr", "50%\r60%", `50%\x0d60%`},
		{"osc 52 clipboard", "\x1b]52;c;ZWNobyBoaQ==\x07", `\x1b]52;c;ZWNobyBoaQ==\x07`},
		{"window title", "\x1b]0;pwned\x1b\\", `\x1b]0;pwned\x1b\`},
		{"csi clear", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"bell and backspace", "a\bb\a", `a\x08b\x07`},
		{"del", "x\x7fy", `x\x7fy`},
		{"utf-8 c1 csi", "a\u009b31mb", `a\u009b31mb`},
		{"raw 8-bit csi byte", "a\x9b31mb", `a\x9b31mb`},
		{"invalid utf-8", "ok\xff\xfe", `ok\xff\xfe`},
		{"rlo trojan source", "if x \u202e} {", `if x \u202e} {`},
		{"isolates", "\u2066a\u2069", `\u2066a\u2069`},
		{"bidi marks", "\u200e\u200f\u061c", `\u200e\u200f\u061c`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"tag characters", "hi\U000E0041\U000E0042", `hi\U000e0041\U000e0042`},
		{"wide and emoji kept", "日本語 🎉 ünïcödé", "日本語 🎉 ünïcödé"},
		{"nul", "a\x00b", `a\x00b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Inert(tt.in); got != tt.want {
				t.Errorf("Inert(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if IsInert(tt.in) != (tt.in == tt.want) {
				t.Errorf("IsInert(%q) = %v", tt.in, IsInert(tt.in))
			}
		})
	}
}

// checkInert fails if out still holds anything a terminal would act on.
func checkInert(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Inert(%q) = %q is not valid UTF-8", in, out)
	}
	for _, r := range out {
		if (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f || runeUnsafe(r) {
			t.Fatalf("Inert(%q) = %q still holds %U", in, out, r)
		}
	}
}

func FuzzInert(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]52;c;aGk=\x07", "\x1b[31mred\x1b[0m", "\r\n\r", "\u202e\u2066",
		"\xff\xc3", "日本🎉", "\x9b\u009b", "a\tb", "\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Inert(s)
		checkInert(t, s, out)
		if again := Inert(out); again != out {
			t.Fatalf("Inert is not idempotent: %q -> %q -> %q", s, out, again)
		}
		if IsInert(s) && out != s {
			t.Fatalf("safe input %q changed to %q", s, out)
		}
		if !strings.Contains(s, "\r") && strings.Count(out, "\n") != strings.Count(s, "\n") {
			t.Fatalf("newlines changed: %q -> %q", s, out)
		}
	})
}

func BenchmarkInert(b *testing.B) {
	safe := strings.Repeat("ok  \tgithub.com/example/project 0.012s 日本語\n", 1000)
	hostile := strings.Repeat("line \x1b[31mred\x1b[0m \u202e\n", 1000)
	b.Run("safe", func(b *testing.B) {
		b.SetBytes(int64(len(safe)))
		for b.Loop() {
			Inert(safe)
		}
	})
	b.Run("hostile", func(b *testing.B) {
		b.SetBytes(int64(len(hostile)))
		for b.Loop() {
			Inert(hostile)
		}
	})
}
