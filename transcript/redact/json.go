package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// SecretKey reports whether a JSON key or variable name names a secret
// ("password", "api_key", "accessToken", "Authorization", "auth"), so
// that its whole value is redacted. Counters such as "input_tokens" are
// not secrets.
func SecretKey(name string) bool {
	if passSegment(name) {
		return true
	}
	var buf [64]byte
	norm := buf[:0]
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
			continue
		case c-'A' < 26:
			c += 'a' - 'A'
		}
		norm = append(norm, c)
	}
	n := string(norm)
	if n == "auth" {
		return true
	}
	// A suffix that still names the secret: SECRET_KEY_BASE, TOKEN_B64.
	for _, suf := range [...]string{"base64", "base", "b64", "hex", "value", "raw", "data", "string", "str"} {
		if t, ok := strings.CutSuffix(n, suf); ok && t != "" {
			n = t
			break
		}
	}
	// Endings of normalised key names (lower case, without '_', '-', '.'
	// and spaces) whose values are secret as a whole.
	for _, suf := range [...]string{
		"password", "passwd", "passphrase", "secret", "token", "apikey", "accesskey",
		"secretkey", "privatekey", "authkey", "authorization", "credential",
		"credentials", "cookie",
	} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	return false
}

// passSegment reports whether a name ends in the segment pass, pwd or
// passwd after another segment: DB_PASS, mysqlPwd, smtp.pass. Alone, pass
// is a test's count and PWD the working directory.
func passSegment(name string) bool {
	i := len(name)
	for i > 0 && isLetter(name[i-1]) && !(i < len(name) && name[i-1] >= 'a' && name[i-1] <= 'z' && name[i] >= 'A' && name[i] <= 'Z') {
		i--
	}
	if i == 0 {
		return false
	}
	switch strings.ToLower(name[i:]) {
	case "pass", "pwd", "passwd":
		return strings.ContainsRune("_.- ", rune(name[i-1])) || name[i] >= 'A' && name[i] <= 'Z' && isLower(name[i-1])
	}
	return false
}

// JSON returns raw with every string inside it redacted, walking objects
// and arrays. Key order, numbers and layout are kept byte for byte where
// nothing changes. A string or number under a secret-looking key
// (see SecretKey) is replaced as a whole. Invalid JSON is an error.
func (r *Redactor) JSON(raw []byte) ([]byte, error) {
	if !json.Valid(raw) {
		var v json.RawMessage
		err := json.Unmarshal(raw, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("redact JSON: invalid JSON at byte %d: %w", se.Offset, err)
		}
		if err == nil {
			err = errors.New("not valid JSON")
		}
		return nil, fmt.Errorf("redact JSON: %w", err)
	}
	return r.ValidJSON(raw), nil
}

// ValidJSON is JSON for input the caller knows to be valid JSON (such as
// what encoding/json just produced): it skips the validity check, which
// costs more than the redaction itself. Given invalid JSON the output is
// unspecified (the bytes are redacted as text), but it never panics.
func (r *Redactor) ValidJSON(raw []byte) (out []byte) {
	if r.disabled {
		return raw
	}
	defer func() {
		if recover() != nil { // the walker ran off invalid input
			out = r.Bytes(raw)
		}
	}()
	w := jsonWalker{r: r, in: raw}
	w.value(w.space(0), false)
	if !w.changed {
		return raw
	}
	w.out = append(w.out, raw[w.copied:]...)
	if len(w.found) == 0 {
		return w.out
	}
	// A secret found by its context in one string (a private key's lines
	// between BEGIN and END, a password after its flag) may be repeated
	// without that context in another: the gate's reasons quote words of
	// the command. Those copies, and their pieces, go too.
	echo := jsonWalker{r: r, in: w.out, echoes: w.found}
	echo.value(echo.space(0), false)
	if !echo.changed {
		return w.out
	}
	return append(echo.out, w.out[echo.copied:]...)
}

// minEcho is the shortest secret, or piece of one, that is looked for again
// in the other strings of a JSON value: shorter ones are ordinary words.
const minEcho = 8

// noteFound keeps the secrets that the spans of s cover, lower-cased, for
// the second pass.
func (w *jsonWalker) noteFound(s string, spans []span) {
	for _, sp := range spans {
		if v := s[sp.start:sp.end]; len(v) >= minEcho && v != w.r.marker && !plainWord(v) {
			w.found = append(w.found, strings.ToLower(v))
		}
	}
}

// echoSpans returns the spans of s that repeat a secret found elsewhere:
// the secret itself, or a run of word bytes (letters, digits, "+=_-") at
// least minEcho long that is part of one, in any case.
func (w *jsonWalker) echoSpans(s string) []span {
	lower := strings.ToLower(s)
	if len(lower) != len(s) { // a case change that changes lengths: compare as is
		lower = s
	}
	var spans []span
	for _, sec := range w.echoes {
		for from := 0; ; {
			k := strings.Index(lower[from:], sec)
			if k < 0 {
				break
			}
			spans = append(spans, span{from + k, from + k + len(sec)})
			from += k + len(sec)
		}
	}
	for i := 0; i < len(lower); {
		if !isEchoByte(lower[i]) {
			i++
			continue
		}
		j := i
		for j < len(lower) && isEchoByte(lower[j]) {
			j++
		}
		if j-i >= minEcho {
			for _, sec := range w.echoes {
				if strings.Contains(sec, lower[i:j]) {
					spans = append(spans, span{i, j})
					break
				}
			}
		}
		i = j
	}
	return spans
}

// plainWord reports whether v is one case of letters only ("required",
// "PROVIDED"): a value like that (password: required) is no secret worth
// hunting through the rest of the event, where the word means itself.
func plainWord(v string) bool {
	lower, upper := false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		default:
			return false
		}
	}
	return !(lower && upper)
}

func isEchoByte(c byte) bool { return isWordChar(c) || c == '+' || c == '=' || c == '-' }

// jsonWalker copies valid JSON, rewriting only strings that change.
type jsonWalker struct {
	r       *Redactor
	in      []byte
	out     []byte
	copied  int // in[:copied] has been written to out
	changed bool
	found   []string // secrets replaced so far, lower-cased
	// echoes, in a second pass, are the secrets the first found: what
	// repeats them is replaced, and nothing else.
	echoes []string
}

// space skips JSON whitespace from i.
func (w *jsonWalker) space(i int) int {
	for i < len(w.in) {
		switch w.in[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value walks the value at i and returns the index after it. secret says
// the value sits under a secret key.
func (w *jsonWalker) value(i int, secret bool) int {
	switch c := w.in[i]; {
	case c == '{':
		return w.object(i)
	case c == '[':
		if !secret {
			if end, ok := w.stringArray(i); ok {
				return end
			}
		}
		i = w.space(i + 1)
		for w.in[i] != ']' {
			i = w.space(w.value(i, secret))
			if w.in[i] == ',' {
				i = w.space(i + 1)
			}
		}
		return i + 1
	case c == '"':
		end := w.stringEnd(i)
		if secret {
			w.replaceSecret(i, end)
		} else {
			w.redactString(i, end)
		}
		return end
	case c == 't' || c == 'n':
		return i + 4
	case c == 'f':
		return i + 5
	default: // number
		end := i + 1
		for end < len(w.in) && strings.IndexByte("+-.0123456789eE", w.in[end]) >= 0 {
			end++
		}
		if secret {
			w.replaceSecret(i, end)
		}
		return end
	}
}

// object walks the object at i and returns the index after it.
func (w *jsonWalker) object(i int) int {
	i = w.space(i + 1)
	for w.in[i] != '}' {
		keyEnd := w.stringEnd(i)
		key := decodeString(w.in[i:keyEnd])
		w.redactString(i, keyEnd)
		i = w.space(keyEnd)
		i = w.space(i + 1) // the colon
		i = w.space(w.value(i, SecretKey(key)))
		if w.in[i] == ',' {
			i = w.space(i + 1)
		}
	}
	return i + 1
}

// stringEnd returns the index after the string literal starting at i.
func (w *jsonWalker) stringEnd(i int) int {
	for j := i + 1; ; {
		q := bytes.IndexByte(w.in[j:], '"')
		if q < 0 {
			return len(w.in)
		}
		j += q
		bs := 0
		for k := j - 1; k > i && w.in[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return j + 1
		}
		j++
	}
}

// redactString rewrites the string literal in[start:end] if redaction
// changes its text.
func (w *jsonWalker) redactString(start, end int) {
	lit := w.in[start:end]
	s := decodeString(lit)
	var spans []span
	if w.echoes != nil {
		spans = w.echoSpans(s)
	} else {
		spans = w.r.spansOf(s)
		w.noteFound(s, spans)
	}
	if len(spans) == 0 {
		return
	}
	if out, changed := w.r.replace(s, mergeSpans(spans)); changed {
		w.splice(start, end, out)
	}
}

// replaceSecret replaces the value in[start:end] by the marker, unless it
// is an empty string or already the marker.
func (w *jsonWalker) replaceSecret(start, end int) {
	lit := w.in[start:end]
	if lit[0] == '"' {
		s := decodeString(lit)
		if s == "" || s == w.r.marker {
			return
		}
		w.noteFound(s, []span{{0, len(s)}})
	}
	w.splice(start, end, w.r.marker)
}

// splice writes everything before start unchanged, then s as a JSON string
// in place of in[start:end].
func (w *jsonWalker) splice(start, end int, s string) {
	if w.out == nil {
		w.out = make([]byte, 0, len(w.in)+len(w.in)/8)
	}
	w.out = append(w.out, w.in[w.copied:start]...)
	w.out = appendJSONString(w.out, s)
	w.copied = end
	w.changed = true
}

// decodeString decodes a JSON string literal that passed json.Valid;
// invalid UTF-8 and lone surrogates become U+FFFD as with encoding/json.
func decodeString(lit []byte) string {
	inner := lit[1 : len(lit)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var b strings.Builder
	b.Grow(len(inner))
	for i := 0; i < len(inner); {
		run := inner[i:]
		if k := bytes.IndexByte(run, '\\'); k >= 0 {
			run = run[:k]
		}
		if len(run) > 0 {
			writeUTF8(&b, run)
			i += len(run)
			continue
		}
		if i+1 >= len(inner) {
			break
		}
		switch e := inner[i+1]; e {
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, n := decodeUnicodeEscape(inner[i:])
			b.WriteRune(r)
			i += n
			continue
		default: // '"', '\\', '/'
			b.WriteByte(e)
		}
		i += 2
	}
	return b.String()
}

// writeUTF8 writes p, with each invalid byte as U+FFFD.
func writeUTF8(b *strings.Builder, p []byte) {
	if utf8.Valid(p) {
		b.Write(p)
		return
	}
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		b.WriteRune(r)
		p = p[size:]
	}
}

// decodeUnicodeEscape decodes \uXXXX at the start of b, joining a
// surrogate pair, and returns the rune and the bytes used.
func decodeUnicodeEscape(b []byte) (rune, int) {
	r1 := hex4(b[2:])
	if r1 < 0 {
		return utf8.RuneError, 2
	}
	if !utf16.IsSurrogate(r1) {
		return r1, 6
	}
	if len(b) >= 12 && b[6] == '\\' && b[7] == 'u' {
		if r2 := hex4(b[8:]); r2 >= 0 {
			if r := utf16.DecodeRune(r1, r2); r != utf8.RuneError {
				return r, 12
			}
		}
	}
	return utf8.RuneError, 6
}

// hex4 parses four hex digits, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// appendJSONString appends s as a JSON string literal without HTML
// escaping; invalid UTF-8 becomes U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// maxArgvBytes bounds the string arrays redacted as one command line.
const maxArgvBytes = 1 << 20

// stringArray redacts an array of strings at i (an argv, most often) as the
// command line its elements make together, so that a flag and its value in
// two elements (["docker","login","-p","PW"], ["-u","me:PW"]) are seen
// together; what is found is replaced in the element that holds it. It
// returns the index after the array, and false (having changed nothing)
// when the array holds anything but strings, or is too big.
func (w *jsonWalker) stringArray(i int) (int, bool) {
	type elem struct {
		start, end int // the literal in w.in
		text       string
		at         int // offset in the joined line
	}
	var elems []elem
	total := 0
	j := w.space(i + 1)
	for w.in[j] != ']' {
		if w.in[j] != '"' {
			return 0, false
		}
		end := w.stringEnd(j)
		text := decodeString(w.in[j:end])
		if total += len(text) + 1; total > maxArgvBytes {
			return 0, false
		}
		elems = append(elems, elem{start: j, end: end, text: text})
		j = w.space(end)
		if w.in[j] == ',' {
			j = w.space(j + 1)
		}
	}
	if len(elems) < 2 {
		return 0, false
	}
	var line strings.Builder
	for k := range elems {
		elems[k].at = line.Len()
		line.WriteString(elems[k].text)
		line.WriteByte(' ')
	}
	if w.echoes != nil {
		for _, e := range elems {
			w.redactString(e.start, e.end)
		}
		return j + 1, true
	}
	joined := w.r.spansOf(line.String())
	w.noteFound(line.String(), joined)
	for _, e := range elems {
		spans := w.r.spansOf(e.text)
		w.noteFound(e.text, spans)
		for _, sp := range joined {
			if s, t := max(sp.start, e.at), min(sp.end, e.at+len(e.text)); s < t {
				spans = append(spans, span{s - e.at, t - e.at})
			}
		}
		if len(spans) == 0 {
			continue
		}
		if out, changed := w.r.replace(e.text, mergeSpans(spans)); changed {
			w.splice(e.start, e.end, out)
		}
	}
	return j + 1, true
}
