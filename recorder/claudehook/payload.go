package claudehook

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Oversize says how a hook payload over the size limit was cut to fit.
type Oversize struct {
	Bytes   int64 // the payload's size
	Strings int   // the strings that were cut
}

// ReadInput reads a hook payload of at most limit bytes. A bigger one (a
// tool's output of hundreds of megabytes) is not dropped: its strings are
// cut, longest part last, until the whole fits the limit, so that the event
// is recorded with what fits and is still valid JSON; Oversize says so
// (nil for a payload within the limit). A cut is made at a word boundary,
// so that no part of a token is kept that redaction could no longer
// recognise, and is marked in the text. Memory stays within about twice the
// limit whatever the payload's size.
func ReadInput(r io.Reader, limit int64) ([]byte, *Oversize, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := io.ReadAll(io.LimitReader(br, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(head)) <= limit {
		return head, nil, nil
	}
	s := &shrinker{in: bufio.NewReaderSize(io.MultiReader(bytes.NewReader(head), br), 64<<10),
		budget: limit, strCap: max(limit/4, 1)}
	over := &Oversize{}
	if err := s.value(); err != nil {
		return nil, nil, fmt.Errorf("hook payload over %d bytes that is not a JSON value: %w", limit, err)
	}
	over.Bytes, over.Strings = s.read, s.cut
	return s.out, over, nil
}

// shrinker copies one JSON value from in to out, cutting strings so that
// out stays within budget bytes.
type shrinker struct {
	in     *bufio.Reader
	out    []byte
	budget int64
	strCap int64 // the most one string keeps
	read   int64
	cut    int
}

// errTooBig is a payload whose structure alone (keys, numbers) is over the
// budget: there is nothing left to cut.
var errTooBig = errors.New("too big even with every string cut")

func (s *shrinker) next() (byte, error) {
	c, err := s.in.ReadByte()
	if err == nil {
		s.read++
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return c, err
}

func (s *shrinker) emit(c ...byte) error {
	if int64(len(s.out)+len(c)) > s.budget {
		return errTooBig
	}
	s.out = append(s.out, c...)
	return nil
}

// space skips white space and returns the next byte.
func (s *shrinker) space() (byte, error) {
	for {
		c, err := s.next()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c, nil
	}
}

// value copies one value, its first byte not yet read.
func (s *shrinker) value() error {
	c, err := s.space()
	if err != nil {
		return err
	}
	return s.valueFrom(c)
}

func (s *shrinker) valueFrom(c byte) error {
	switch {
	case c == '{':
		return s.container('{', '}', true)
	case c == '[':
		return s.container('[', ']', false)
	case c == '"':
		return s.str(false)
	case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f' || c == 'n':
		return s.literal(c)
	}
	return fmt.Errorf("unexpected %q at byte %d", c, s.read)
}

// container copies an object or an array.
func (s *shrinker) container(open, close byte, object bool) error {
	if err := s.emit(open); err != nil {
		return err
	}
	first := true
	for {
		c, err := s.space()
		if err != nil {
			return err
		}
		if c == close && first {
			return s.emit(close)
		}
		if !first {
			switch c {
			case close:
				return s.emit(close)
			case ',':
				if err := s.emit(','); err != nil {
					return err
				}
				if c, err = s.space(); err != nil {
					return err
				}
			default:
				return fmt.Errorf("unexpected %q at byte %d", c, s.read)
			}
		}
		first = false
		if object {
			if c != '"' {
				return fmt.Errorf("a key must be a string, not %q, at byte %d", c, s.read)
			}
			if err := s.str(true); err != nil {
				return err
			}
			if c, err = s.space(); err != nil {
				return err
			}
			if c != ':' {
				return fmt.Errorf("want ':' at byte %d", s.read)
			}
			if err := s.emit(':'); err != nil {
				return err
			}
			if c, err = s.space(); err != nil {
				return err
			}
		}
		if err := s.valueFrom(c); err != nil {
			return err
		}
	}
}

// literal copies a number, true, false or null.
func (s *shrinker) literal(c byte) error {
	lit := []byte{c}
	for {
		b, err := s.in.Peek(1)
		if err != nil || !bytes.ContainsAny(b, "+-.0123456789eEtrufalsn") {
			break
		}
		d, _ := s.next()
		lit = append(lit, d)
		if len(lit) > 64 {
			return fmt.Errorf("a literal longer than 64 bytes at byte %d", s.read)
		}
	}
	switch string(lit) {
	case "true", "false", "null":
	default:
		if lit[0] == 't' || lit[0] == 'f' || lit[0] == 'n' {
			return fmt.Errorf("unexpected %q at byte %d", lit, s.read)
		}
	}
	return s.emit(lit...)
}

// cutNote stands where a string was cut: between its head and its tail.
const cutNote = " … [cut by cuff: the hook payload was over its size limit] … "

// str copies a string whose opening quote was read. A key is never cut. A
// string too long to keep keeps its head and its tail (where a command's
// output says how it ended), each cut at a word boundary, the note between.
func (s *shrinker) str(key bool) error {
	keep := s.strCap
	if room := s.budget - int64(len(s.out)) - int64(len(cutNote)) - 64; room < keep {
		keep = max(room, 0)
	}
	if key {
		keep = 1 << 10
	}
	tailKeep := keep / 2
	headKeep := keep - tailKeep
	var raw []byte  // the head's bytes as written, escapes included
	var tail []byte // the last bytes read once the head is full, whole escapes
	cut := false
	for {
		c, err := s.next()
		if err != nil {
			return err
		}
		if c == '"' {
			break
		}
		if c < 0x20 {
			return fmt.Errorf("a control character in a string at byte %d", s.read)
		}
		esc := []byte{c}
		if c == '\\' {
			e, err := s.next()
			if err != nil {
				return err
			}
			esc = append(esc, e)
			if e == 'u' {
				for range 4 {
					h, err := s.next()
					if err != nil {
						return err
					}
					esc = append(esc, h)
				}
			}
		}
		if !cut && int64(len(raw)+len(esc)) <= headKeep {
			raw = append(raw, esc...)
			continue
		}
		cut = true // read to the end of the string, keeping its last bytes
		tail = append(tail, esc...)
		if int64(len(tail)) > 2*tailKeep+64 {
			tail = dropFront(tail, int64(len(tail))-tailKeep)
		}
	}
	if cut {
		if key {
			return fmt.Errorf("a key longer than %d bytes at byte %d", keep, s.read)
		}
		s.cut++
		if over := int64(len(tail)) - tailKeep; over > 0 {
			tail = dropFront(tail, over)
		}
		raw = append(append(wordCut(raw), cutNote...), wordCutFront(tail)...)
	}
	if err := s.emit('"'); err != nil {
		return err
	}
	if err := s.emit(raw...); err != nil {
		return err
	}
	return s.emit('"')
}

// unitLen is the length of the first unit of a string as written: an
// escape (\n, \u00e9) or a byte.
func unitLen(raw []byte) int {
	if raw[0] == '\\' && len(raw) > 1 {
		if raw[1] == 'u' {
			return min(6, len(raw))
		}
		return 2
	}
	return 1
}

// dropFront drops at least n bytes from the front of raw, whole escapes.
func dropFront(raw []byte, n int64) []byte {
	i := 0
	for int64(i) < n && i < len(raw) {
		i += unitLen(raw[i:])
	}
	return raw[i:]
}

// wordCutFront drops the start of a string's kept tail up to a word
// boundary, as wordCut does with a head: the run of token characters the
// cut fell in (no part of a token is kept), and a UTF-8 sequence it split.
func wordCutFront(raw []byte) []byte {
	for len(raw) > 0 {
		if raw[0] == '\\' {
			n := unitLen(raw)
			if n == 2 && (raw[1] == '/' || raw[1] == '\\') {
				raw = raw[n:] // an escaped token character
				continue
			}
			break
		}
		r, size := utf8.DecodeRune(raw)
		if r == utf8.RuneError && size <= 1 || tokenByte(r) {
			raw = raw[max(size, 1):]
			continue
		}
		break
	}
	return raw
}

// wordCut drops the end of a cut string back to a word boundary: the last
// run of letters, digits and the other characters tokens are made of is
// gone, and so is a UTF-8 sequence the cut split.
func wordCut(raw []byte) []byte {
	for len(raw) > 0 {
		r, size := utf8.DecodeLastRune(raw)
		if r == utf8.RuneError && size <= 1 || tokenByte(r) {
			raw = raw[:len(raw)-max(size, 1)]
			continue
		}
		break
	}
	return raw
}

// tokenByte reports whether r may be part of a secret token.
func tokenByte(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '_' || r == '-' || r == '+' || r == '/' || r == '=' || r == '.' || r == '%' || r == '\\'
}
