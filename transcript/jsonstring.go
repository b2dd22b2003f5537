package transcript

import "unicode/utf8"

// bigString is the length from which a body's text fields are escaped by
// appendJSONString straight into the line's buffer rather than by
// encoding/json, whose growing scratch buffer costs more than the
// escaping when a run prints megabytes.
const bigString = 64 << 10

// AppendJSONString appends s to dst as a JSON string (see
// appendJSONString): for writers of JSONL other than the appender.
func AppendJSONString(dst []byte, s string) []byte { return appendJSONString(dst, s) }

// appendJSONString appends s to dst as a JSON string, as encoding/json
// decodes it back: invalid UTF-8 becomes U+FFFD; U+2028 and U+2029 are
// escaped so that the line stays valid JavaScript too.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time: most output is printable ASCII.
		for i+8 <= len(s) {
			b := s[i : i+8]
			w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			if !plainWord(w) {
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			switch r {
			case '\u2028':
				dst = append(dst, `\u2028`...)
			case '\u2029':
				dst = append(dst, `\u2029`...)
			default:
				dst = append(dst, `\ufffd`...)
			}
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Masks for plain8.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainWord reports whether none of the eight bytes of w needs escaping:
// all are printable ASCII other than '"' and '\\'.
func plainWord(w uint64) bool {
	below := (w - 0x20*ones) &^ w // high bit set where a byte is < 0x20
	quote := w ^ '"'*ones
	quote = (quote - ones) &^ quote // where a byte is '"'
	slash := w ^ '\\'*ones
	slash = (slash - ones) &^ slash // where a byte is '\\'
	return (w|below|quote|slash)&highs == 0
}
