// Package common holds what the TUI's components share: making recorded
// text safe to draw, the markdown and syntax-highlighting caches, and small
// text helpers.
package common

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/transcript"
)

// TabWidth is the distance between tab stops.
const TabWidth = 8

// Sanitize makes recorded text safe and predictable to draw: everything a
// terminal would act on (ESC, CSI and OSC sequences, other C0 and C1
// controls, bidirectional overrides) is shown escaped by transcript.Inert,
// and tabs are expanded to spaces at tab stops so that the layout does not
// depend on the terminal. Wide characters and emoji are kept.
func Sanitize(s string) string {
	return ExpandTabs(transcript.Inert(s))
}

// ExpandTabs replaces each tab with the spaces that reach the next tab
// stop, measuring the columns before it in display cells.
func ExpandTabs(s string) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 32)
	col := 0
	for len(s) > 0 {
		i := strings.IndexAny(s, "\t\n")
		if i < 0 {
			b.WriteString(s)
			break
		}
		seg := s[:i]
		b.WriteString(seg)
		if s[i] == '\n' {
			b.WriteByte('\n')
			col = 0
		} else {
			col += ansi.StringWidth(seg)
			pad := TabWidth - col%TabWidth
			b.WriteString(strings.Repeat(" ", pad))
			col += pad
		}
		s = s[i+1:]
	}
	return b.String()
}

// KeepSGR removes from s every escape sequence except SGR (colours and
// text attributes) and every control character except newline. It is the
// last line of defence for text that a library rendered from recorded
// content: glamour, for instance, turns links into OSC 8 hyperlinks, whose
// target need not be what the link text says.
func KeepSGR(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			n, keep := escapeLength(s[i:])
			if keep {
				b.WriteString(s[i : i+n])
			}
			i += n
		case c == '\n':
			b.WriteByte(c)
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !(r >= 0x80 && r <= 0x9f) && !(r == utf8.RuneError && size == 1) {
				b.WriteString(s[i : i+size])
			}
			i += size
		}
	}
	return b.String()
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == utf8.RuneError
}

// escapeLength returns how many bytes the escape sequence at the start of s
// takes, and whether it is an SGR sequence worth keeping.
func escapeLength(s string) (int, bool) {
	if len(s) < 2 {
		return len(s), false
	}
	switch s[1] {
	case '[': // CSI: parameters, intermediates, one final byte
		j := 2
		private := j < len(s) && s[j] >= '<' && s[j] <= '?'
		for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
			j++
		}
		inter := j
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			return j + 1, s[j] == 'm' && !private && inter == j
		}
		return j, false
	case ']', 'P', 'X', '^', '_': // OSC, DCS, SOS, PM, APC: up to BEL or ST
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1, false
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2, false
			}
		}
		return len(s), false
	}
	return 2, false
}
