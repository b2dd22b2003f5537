package stream

import (
	"bytes"
	"unicode/utf8"
)

// BriefKeep is how much of a long string Shorten keeps for a brief read:
// enough for a title, an "Exit code N" line and any marker a decoder looks
// for at the start of a text.
const BriefKeep = 320

// Shorten copies a JSON line to dst with every string value longer than
// keep bytes (as written, escapes included) cut to about its first keep
// bytes, at a boundary that splits no escape and no UTF-8 sequence, so the
// line stays valid JSON when it was. Kept whole are keys, the values of
// the keys named in whole (what a decoder counts or matches by its exact
// text, such as a command) and strings that start with '{' or '[', as
// they may hold JSON a decoder reads (a Codex output's exit code comes
// after the output). It is what reading for counts and
// statistics needs: the shape of each record and the start of its text,
// at a fraction of the cost of decoding tool outputs that run to
// megabytes. A line that is not well-formed is copied as far as strings
// can be told apart in it, then as it is.
func Shorten(dst, line []byte, keep int, whole ...string) []byte {
	return Clip(dst, line, keep, 0, whole...)
}

// ClipOptions says how much of each long string a decoder keeps (see
// Clip); the zero value keeps everything.
type ClipOptions struct {
	Head, Tail int
}

// clipMark stands for what Clip leaves out of the middle of a string.
const clipMark = " … "

// Clip is Shorten keeping the last tail bytes of each long string too, the
// two ends joined by " … " (with tail 0 it is Shorten): for reading text
// to index, where a long output's end (a build's failure) matters as its
// start does.
func Clip(dst, line []byte, head, tail int, whole ...string) []byte {
	return clip(dst, line, head, tail, nil, whole)
}

// clip is Clip with key the latest key before line (the one whose value
// line is, when it is one).
func clip(dst, line []byte, head, tail int, key []byte, whole []string) []byte {
	for {
		open := bytes.IndexByte(line, '"')
		if open < 0 {
			return append(dst, line...)
		}
		dst = append(dst, line[:open+1]...)
		line = line[open+1:]
		end := stringEnd(line)
		if end < 0 {
			return append(dst, line...)
		}
		body := line[:end]
		rest := bytes.TrimLeft(line[end+1:], " \t\r\n")
		switch {
		case len(rest) > 0 && rest[0] == ':': // a key: never cut
			key = body
		case clips(body, head, tail) && !wholeKey(key, whole):
			h := cutAt(body, head)
			dst = append(dst, body[:h]...)
			if tail > 0 {
				dst = append(dst, clipMark...)
				body = body[tailFrom(body, len(body)-tail):]
			} else {
				body = nil
			}
		}
		dst = append(dst, body...)
		dst = append(dst, '"')
		line = line[end+1:]
	}
}

func wholeKey(key []byte, whole []string) bool {
	for _, k := range whole {
		if string(key) == k {
			return true
		}
	}
	return false
}

// stringEnd is the index of the quote that closes the JSON string whose
// contents s starts with, or -1.
func stringEnd(s []byte) int {
	from := 0
	for {
		q := bytes.IndexByte(s[from:], '"')
		if q < 0 {
			return -1
		}
		q += from
		n := 0
		for p := q - 1; p >= 0 && s[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		from = q + 1
	}
}

// tailFrom is the first boundary at or after n in the contents of a JSON
// string that splits no escape and no UTF-8 sequence.
func tailFrom(s []byte, n int) int {
	i := 0
	for i < n {
		i += unitWidth(s, i)
	}
	return min(i, len(s))
}

// unitWidth is the width of the escape or UTF-8 sequence at s[i].
func unitWidth(s []byte, i int) int {
	switch c := s[i]; {
	case c == '\\' && i+1 < len(s) && s[i+1] == 'u':
		return 6
	case c == '\\':
		return 2
	case c >= utf8.RuneSelf:
		_, w := utf8.DecodeRune(s[i:])
		return w
	}
	return 1
}

// cutAt is where to cut the contents of a JSON string to at most n bytes
// without splitting an escape or a UTF-8 sequence.
func cutAt(s []byte, n int) int {
	i := 0
	for i < n {
		w := unitWidth(s, i)
		if i+w > n {
			break
		}
		i += w
	}
	return i
}
