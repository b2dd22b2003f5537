package common

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestSanitize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "hello", "hello"},
		{"osc 52", "a\x1b]52;c;aGk=\x07b", `a\x1b]52;c;aGk=\x07b`},
		{"title", "\x1b]0;t\x1b\\", `\x1b]0;t\x1b\`},
		{"csi", "\x1b[2J", `\x1b[2J`},
		{"c1", "\u009b2J", `\u009b2J`},
		{"rlo", "a\u202eb", `a\u202eb`},
		{"tab stops", "a\tb", "a       b"},
		{"tab after wide", "日本\tx", "日本    x"},
		{"tab after emoji", "🎉\tx", "🎉      x"},
		{"tabs per line", "ab\tc\n\td", "ab      c\n        d"},
		{"crlf", "a\r\nb", "a\nb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// checkDrawable fails if s holds anything but newlines and printable text.
func checkDrawable(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, out)
	}
	for _, r := range out {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x202e || r == 0x2066 {
			t.Fatalf("Sanitize(%q) = %q still holds %U", in, out, r)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "x\ty", "\x1b]52;c;aGk=\x07", "\x1b[31mred", "日本\t🎉\tz", "\r\n", "\u202e", "\xff\t\xfe",
		"\x9b1m", "a\u200d\u200db\tc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		checkDrawable(t, s, out)
		if Sanitize(out) != out {
			t.Fatalf("Sanitize is not idempotent on %q", s)
		}
		// Each tab became the spaces up to the next tab stop: the text
		// before a tab's replacement ends on a tab stop.
		in := strings.Split(Sanitize(strings.ReplaceAll(s, "\t", "\x00")), "\n")
		if strings.Count(s, "\n") == len(in)-1 && !strings.Contains(s, "\r") {
			for i, l := range strings.Split(out, "\n") {
				if w := ansi.StringWidth(l); w < ansi.StringWidth(strings.ReplaceAll(in[i], `\x00`, "")) {
					t.Fatalf("line %d of %q lost width: %q", i, s, l)
				}
			}
		}
	})
}

func TestKeepSGR(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1;31mred\x1b[0m", "\x1b[1;31mred\x1b[0m"},
		{"\x1b]8;id=1;http://evil\x07link\x1b]8;;\x07", "link"},
		{"\x1b]8;;http://x\x1b\\text\x1b]8;;\x1b\\", "text"},
		{"a\x1b[2Jb", "ab"},
		{"a\x1b[?25lb", "ab"},
		{"a\x1bcb", "ab"},
		{"bell\x07", "bell"},
		{"tab\there", "tabhere"},
		{"c1\u009b31m", "c131m"},
		{"keep\nlines", "keep\nlines"},
		{"unterminated \x1b]0;title", "unterminated "},
	}
	for _, tt := range tests {
		if got := KeepSGR(tt.in); got != tt.want {
			t.Errorf("KeepSGR(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzKeepSGR(f *testing.F) {
	for _, s := range []string{"", "\x1b[31mx\x1b[0m", "\x1b]8;;u\x07t", "\x1b[", "\x1b", "\x1bP1$r\x1b\\", "\x9b\x07"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := KeepSGR(s)
		for i := 0; i < len(out); i++ {
			c := out[i]
			if c == 0x1b {
				n, keep := escapeLength(out[i:])
				if !keep {
					t.Fatalf("KeepSGR(%q) = %q keeps a non-SGR sequence at %d", s, out, i)
				}
				i += n - 1
				continue
			}
			if (c < 0x20 && c != '\n') || c == 0x7f {
				t.Fatalf("KeepSGR(%q) = %q keeps control %#x", s, out, c)
			}
		}
		if KeepSGR(out) != out {
			t.Fatalf("KeepSGR is not idempotent on %q", s)
		}
	})
}

func TestWrapAndTruncate(t *testing.T) {
	lines := Wrap("one two three four five six", 10)
	for _, l := range lines {
		if ansi.StringWidth(l) > 10 {
			t.Errorf("line %q is wider than 10", l)
		}
	}
	if got := HardWrap(strings.Repeat("x", 25), 10); len(got) != 3 {
		t.Errorf("HardWrap gave %d lines, want 3", len(got))
	}
	if got := Truncate("日本語テキスト", 5); ansi.StringWidth(got) > 5 || !strings.HasSuffix(got, "…") {
		t.Errorf("Truncate = %q", got)
	}
	if got := Truncate("x", 0); got != "" {
		t.Errorf("Truncate(width 0) = %q", got)
	}
}

func TestMarkdownOnlySGR(t *testing.T) {
	md := NewMarkdown(true)
	lines, err := md.Render("# Title\n\nSome **bold** and a [link](http://example.com/x).\n\n```go\nfunc f() {}\n```", 40)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Join(lines, "\n")
	if KeepSGR(out) != out {
		t.Errorf("markdown output holds non-SGR sequences: %q", out)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 40 {
			t.Errorf("line %q is %d wide", l, w)
		}
	}
	if !strings.Contains(ansi.Strip(out), "bold") || !strings.Contains(ansi.Strip(out), "func f") {
		t.Errorf("markdown lost text: %q", ansi.Strip(out))
	}
}

func TestHighlight(t *testing.T) {
	h := NewHighlighter(true)
	lines := h.Code("echo hi | grep h\nls -la", "bash")
	if len(lines) != 2 || ansi.Strip(lines[0]) != "echo hi | grep h" || !strings.Contains(lines[0], "\x1b[") {
		t.Errorf("bash highlight = %q", lines)
	}
	big := strings.Repeat("x", MaxHighlightBytes+1)
	if got := h.Code(big, "bash"); got[0] != big {
		t.Error("a block over the cap was highlighted")
	}
	if got := h.Code("plain", "no-such-language"); got[0] != "plain" {
		t.Errorf("unknown language = %q", got)
	}
}

func BenchmarkSanitize(b *testing.B) {
	s := strings.Repeat("ok  \tgithub.com/example/project\t0.012s 日本語\n", 2000)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Sanitize(s)
	}
}
