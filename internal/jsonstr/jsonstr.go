// Package jsonstr decodes the contents of JSON strings from their bytes, as
// encoding/json does, for readers that find strings without decoding the
// rest of their document (the transcript scanner, the timeline's spill).
package jsonstr

import (
	"bytes"
	"errors"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrBadString reports bytes that are not the contents of a JSON string.
var ErrBadString = errors.New("not the contents of a JSON string")

// Unescape appends the text of a JSON string's contents (the bytes between
// its quotes) to dst, as encoding/json decodes it: escapes resolved, an
// invalid UTF-8 byte or a lone surrogate replaced by U+FFFD.
func Unescape(dst, s []byte) ([]byte, error) {
	text, n, _, err := Scan(dst, s)
	if err == nil && n != len(s) {
		err = ErrBadString // a quote that is not escaped
	}
	return text, err
}

// Scan reads the contents of a JSON string that start s, up to the
// quote that closes it or the end of s, appending the text to dst as
// Unescape does. It returns the text, how many bytes the contents take
// (where the closing quote is), and whether they are plain: valid UTF-8
// with no \u escape, so that each character of the text other than an
// escaped one is written as itself.
func Scan(dst, s []byte) (text []byte, n int, plain bool, err error) {
	plain = true
	i := 0
	for i < len(s) {
		// Copy the run up to the next byte that needs a look.
		j := i
		for j < len(s) {
			c := s[j]
			if c == '\\' || c == '"' || c < ' ' || c >= utf8.RuneSelf {
				break
			}
			j++
		}
		dst = append(dst, s[i:j]...)
		i = j
		if i == len(s) {
			break
		}
		switch c := s[i]; {
		case c == '"':
			return dst, i, plain, nil
		case c == '\\':
			if i+1 >= len(s) {
				return dst, i, false, ErrBadString
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				plain = false
				r := hex4(s[i+2:])
				if r < 0 {
					return dst, i, false, ErrBadString
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2 := escapedRune(s[i:]); r2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
							i += 6
							dst = utf8.AppendRune(dst, dec)
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				dst = utf8.AppendRune(dst, r)
				continue
			default:
				return dst, i, false, ErrBadString
			}
			i += 2
		case c < ' ':
			return dst, i, false, ErrBadString
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				plain = false
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst, i, plain, nil
}

// escapedRune reads a \uXXXX escape at the start of s, or returns -1.
func escapedRune(s []byte) rune {
	if !bytes.HasPrefix(s, []byte(`\u`)) {
		return -1
	}
	return hex4(s[2:])
}

// hex4 reads four hexadecimal digits at the start of s, or returns -1.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
