package redact

import "regexp"

// pemFinder finds the bodies of PEM private-key blocks, including a block
// cut off before its END line (head/tail output truncation does that).
type pemFinder struct {
	begin *regexp.Regexp
	end   *regexp.Regexp
}

func newPEMFinder() *pemFinder {
	return &pemFinder{
		begin: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`),
		end:   regexp.MustCompile(`-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`),
	}
}

// find reports the span between each BEGIN line and its END line, keeping
// the surrounding line breaks so the block still reads as a block.
func (p *pemFinder) find(s string, add func(start, end int)) {
	heads := p.begin.FindAllStringIndex(s, -1)
	for i, h := range heads {
		start := h[1]
		limit := len(s)
		if i+1 < len(heads) {
			limit = heads[i+1][0]
		}
		var stop int
		if loc := p.end.FindStringIndex(s[start:limit]); loc != nil {
			stop = start + loc[0]
		} else {
			stop = scanKeyBody(s, start, limit)
		}
		start, stop = trimBreaks(s, start, stop)
		if start < stop {
			add(start, stop)
		}
	}
}

// scanKeyBody returns where the material of a truncated key block ends:
// base64 lines, PEM header lines ("Proc-Type: …") and line breaks, real or
// JSON-escaped, are consumed; anything else stops the scan.
func scanKeyBody(s string, pos, limit int) int {
	lineStart := true
	for pos < limit {
		c := s[pos]
		switch {
		case c == '\n' || c == '\r':
			pos++
			lineStart = true
		case c == '\\' && pos+1 < limit && (s[pos+1] == 'n' || s[pos+1] == 'r'):
			pos += 2
			lineStart = true
		case lineStart && (c == ' ' || c == '\t'):
			pos++
		case lineStart && isHeaderLine(s, pos, limit):
			pos = lineEnd(s, pos, limit)
			lineStart = false
		case isBase64(c):
			pos++
			lineStart = false
		default:
			return pos
		}
	}
	return pos
}

// isHeaderLine reports whether s[pos:] starts with "Name: " as in
// "Proc-Type: 4,ENCRYPTED" or "Version: GnuPG".
func isHeaderLine(s string, pos, limit int) bool {
	j := pos
	for j < limit && (isLetter(s[j]) || s[j] == '-') {
		j++
	}
	return j > pos && j+1 < limit && s[j] == ':' && s[j+1] == ' '
}

// lineEnd returns the index of the next real or JSON-escaped line break.
func lineEnd(s string, pos, limit int) int {
	for pos < limit {
		c := s[pos]
		if c == '\n' || c == '\r' || (c == '\\' && pos+1 < limit && (s[pos+1] == 'n' || s[pos+1] == 'r')) {
			return pos
		}
		pos++
	}
	return pos
}

// trimBreaks narrows s[start:stop] to exclude leading and trailing
// whitespace and JSON-escaped line breaks.
func trimBreaks(s string, start, stop int) (int, int) {
	for start < stop {
		if isSpace(s[start]) {
			start++
			continue
		}
		if s[start] == '\\' && start+1 < stop && isEscapedSpace(s[start+1]) {
			start += 2
			continue
		}
		break
	}
	for stop > start {
		if isSpace(s[stop-1]) {
			stop--
			continue
		}
		if stop-2 >= start && s[stop-2] == '\\' && isEscapedSpace(s[stop-1]) {
			stop -= 2
			continue
		}
		break
	}
	return start, stop
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isEscapedSpace(c byte) bool { return c == 'n' || c == 'r' || c == 't' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isBase64(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}
