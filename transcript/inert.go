package transcript

import (
	"strings"
	"unicode/utf8"
)

// Inert returns s with everything a terminal would act on, or that would
// change how the text around it reads, written out as a visible escape
// instead: ESC and the other C0 controls except tab and newline, DEL, the C1
// controls, bidirectional embeddings, overrides, isolates and marks (the
// "Trojan Source" characters), line and paragraph separators, interlinear
// annotations, invisible tag characters and bytes that are not UTF-8. The
// escapes are Go-style: \x1b, \u202e, \U000e0041, \xff. A carriage return
// right before a newline is dropped; a lone one is escaped. Text with nothing
// to escape is returned unchanged, without copying.
//
// Recorded text passes through Inert before it reaches a terminal or a
// markdown export, so an ESC ] 52 (clipboard), a window-title sequence or a
// right-to-left override in an agent's output is shown, never executed.
func Inert(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
				// CRLF line ending: keep the newline only.
			case asciiUnsafe(c):
				writeEscape(&b, rune(c), 1)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeEscape(&b, rune(c), 1)
		case runeUnsafe(r):
			writeEscape(&b, r, size)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// IsInert reports whether s has nothing that Inert would escape.
func IsInert(s string) bool { return firstUnsafe(s) < 0 }

// firstUnsafe returns the index of the first byte Inert must look at more
// closely, or -1 if s is safe as it is.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiUnsafe(c) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || runeUnsafe(r) {
			return i
		}
		i += size
	}
	return -1
}

// asciiUnsafe reports whether the ASCII byte c is a control other than tab
// and newline.
func asciiUnsafe(c byte) bool {
	return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f
}

// runeUnsafe reports whether the non-ASCII rune r must be escaped.
func runeUnsafe(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls, CSI and OSC among them
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f: // bidi marks
		return true
	case r >= 0x202a && r <= 0x202e: // bidi embeddings and overrides
		return true
	case r >= 0x2066 && r <= 0x2069: // bidi isolates
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotations
		return true
	case r >= 0xe0000 && r <= 0xe007f: // tag characters: invisible text
		return true
	}
	return false
}

const hexDigits = "0123456789abcdef"

// writeEscape writes r as \xNN (a byte), \uNNNN or \UNNNNNNNN.
func writeEscape(b *strings.Builder, r rune, size int) {
	switch {
	case size == 1 && r < 0x100:
		b.WriteString(`\x`)
		b.WriteByte(hexDigits[r>>4])
		b.WriteByte(hexDigits[r&0xf])
	case r <= 0xffff:
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hexDigits[(r>>shift)&0xf])
		}
	default:
		b.WriteString(`\U`)
		for shift := 28; shift >= 0; shift -= 4 {
			b.WriteByte(hexDigits[(r>>shift)&0xf])
		}
	}
}
