package stream

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/internal/jsonstr"
)

// Scanner reads the fields a decoder needs straight from the bytes of one
// JSON line and passes over everything else without decoding it: a
// reader made for transcript records, which hold most of their bytes in
// texts and outputs that counting never looks at.
//
// What it reads is what encoding/json puts in the same Go values from the
// line as Clip cuts it — the fuzz tests hold it to that — or it gives up
// (ok false) and the caller decodes the line with encoding/json. It gives
// up on a line that is not valid JSON, a key written with escapes or
// outside ASCII, a field given twice, nesting deeper than maxScanDepth, and
// a value of the wrong type inside what encoding/json hands to an
// Unmarshaler (which would stop decoding the line there; see Strict).
//
// A binding reads an object with Members, naming each field it wants with
// Fields, and each value with String, Bool, Int64, Int, Raw, Null or
// Mismatch; Skip passes over any value. Indexes are byte offsets in the
// line.
type Scanner struct {
	data  []byte
	cut   ClipOptions
	whole []string
	key   []byte // the latest key read, as Clip tracks it
	depth int
	// strict > 0: inside a value encoding/json would give to an
	// Unmarshaler, where a wrong type stops the decoding of the line.
	strict int
	buf    []byte
	intern *[internSlots]string
}

// maxScanDepth bounds the nesting a Scanner follows; deeper lines are left
// to encoding/json (which allows 10,000 levels).
const maxScanDepth = 1000

// internSlots is how many texts a Scanner keeps to share between lines,
// each in the slot of its hash (a newer text takes the slot).
const internSlots = 256

// maxInterned is the length of the longest text a Scanner shares.
const maxInterned = 64

// Reset starts reading data. Long strings are cut as Clip cuts them with
// cut (none when cut.Head is 0), except the values of the keys in whole.
func (s *Scanner) Reset(data []byte, cut ClipOptions, whole ...string) {
	s.data, s.cut, s.whole, s.key, s.depth, s.strict = data, cut, whole, nil, 0, 0
}

// Byte is the byte at i, or 0 past the end.
func (s *Scanner) Byte(i int) byte {
	if i < len(s.data) {
		return s.data[i]
	}
	return 0
}

// Space is the index of the first byte at or after i that is not JSON
// white space.
func (s *Scanner) Space(i int) int {
	for i < len(s.data) {
		switch s.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// End reports whether nothing but white space follows i.
func (s *Scanner) End(i int) bool { return s.Space(i) == len(s.data) }

// Fields names the fields of a Go struct by their JSON keys, for Members.
// As encoding/json does, a key matches its field exactly or, failing
// that, regardless of case (no two keys of one struct may differ only in
// case, so a key matches one field at most).
type Fields struct {
	keys  []string
	table [256]uint8 // by caseless hash: a field's number + 1, 0 for none
}

// NewFields names fields 0, 1, … by their keys (at most 255, ASCII).
func NewFields(keys ...string) *Fields {
	if len(keys) > 255 {
		panic("stream: more than 255 fields")
	}
	f := &Fields{keys: keys}
	for i, k := range keys {
		if k == "" || f.Index([]byte(k)) >= 0 {
			panic("stream: key " + k + " is empty or named twice, regardless of case")
		}
		h := fieldHash([]byte(k))
		for f.table[h] != 0 {
			h++
		}
		f.table[h] = uint8(i + 1)
	}
	return f
}

// Index is the field a key (ASCII, unescaped) names, or -1.
func (f *Fields) Index(key []byte) int {
	if len(key) == 0 {
		return -1
	}
	for h := fieldHash(key); f.table[h] != 0; h++ {
		if i := int(f.table[h]) - 1; equalFoldASCII(key, f.keys[i]) {
			return i
		}
	}
	return -1
}

// fieldHash hashes a key regardless of the case of its letters.
func fieldHash(key []byte) uint8 {
	n := len(key)
	return uint8(n*31 + int(lower(key[0]))*7 + int(lower(key[n/2]))*3 + int(lower(key[n-1])))
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalFoldASCII reports whether key and name are the same regardless of
// the case of their ASCII letters.
func equalFoldASCII(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i, c := range key {
		if c != name[i] && lower(c) != lower(name[i]) {
			return false
		}
	}
	return true
}

// Members reads the object at i (its '{'): for each member whose key names
// a field it calls member with the field and the index of the value, which
// member reads and returns the end of; other members are skipped. It
// returns the index after the object.
func (s *Scanner) Members(i int, fields *Fields, member func(field, v int) (int, bool)) (int, bool) {
	if s.Byte(i) != '{' || !s.enter() {
		return 0, false
	}
	defer s.leave()
	i = s.Space(i + 1)
	if s.Byte(i) == '}' {
		return i + 1, true
	}
	var seen uint64
	for {
		if s.Byte(i) != '"' {
			return 0, false
		}
		end, flags, ok := s.scanString(i)
		if !ok || flags != 0 {
			return 0, false // not JSON, or a key escaped or outside ASCII
		}
		key := s.data[i+1 : end-1]
		i = s.Space(end)
		if s.Byte(i) != ':' {
			return 0, false
		}
		i = s.Space(i + 1)
		s.key = key
		if f := fields.Index(key); f < 0 {
			i, ok = s.Skip(i)
		} else {
			if seen&(1<<f) != 0 {
				return 0, false // given twice: encoding/json merges, we don't
			}
			seen |= 1 << f
			i, ok = member(f, i)
		}
		if !ok {
			return 0, false
		}
		var last bool
		if i, last, ok = s.next(i, '}'); last || !ok {
			return i, ok
		}
	}
}

// Elements reads the array at i (its '['), calling elem with the index of
// each element, which elem reads and returns the end of. It returns the
// index after the array.
func (s *Scanner) Elements(i int, elem func(v int) (int, bool)) (int, bool) {
	if s.Byte(i) != '[' || !s.enter() {
		return 0, false
	}
	defer s.leave()
	i = s.Space(i + 1)
	if s.Byte(i) == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = elem(i); !ok {
			return 0, false
		}
		var last bool
		if i, last, ok = s.next(i, ']'); last || !ok {
			return i, ok
		}
	}
}

// next reads what follows an object's member or an array's element at i:
// a comma (then next is where the next one starts) or close (then end is
// true and next is the index after it).
func (s *Scanner) next(i int, close byte) (next int, end, ok bool) {
	i = s.Space(i)
	switch s.Byte(i) {
	case ',':
		return s.Space(i + 1), false, true
	case close:
		return i + 1, true, true
	}
	return 0, false, false
}

func (s *Scanner) enter() bool {
	s.depth++
	return s.depth <= maxScanDepth
}

func (s *Scanner) leave() { s.depth-- }

// Strict reads with f a value that encoding/json gives to an Unmarshaler
// which decodes it with encoding/json: there, a value of the wrong type
// makes the whole line stop decoding, so Mismatch gives up instead.
func (s *Scanner) Strict(f func() (int, bool)) (int, bool) {
	s.strict++
	defer func() { s.strict-- }()
	return f()
}

// Mismatch passes over the value at i, which does not fit the Go value it
// is meant for: encoding/json leaves that value as it was and goes on, or,
// inside Strict, stops — and then so does the scanner.
func (s *Scanner) Mismatch(i int) (int, bool) {
	if s.strict > 0 {
		return 0, false
	}
	return s.Skip(i)
}

// Null reads the null at i.
func (s *Scanner) Null(i int) (int, bool) { return s.literal(i, "null") }

// String reads the string at i into dst, cut as Clip would; null leaves
// dst as it is.
func (s *Scanner) String(i int, dst *string) (int, bool) {
	switch s.Byte(i) {
	case '"':
		end, flags, ok := s.scanString(i)
		if !ok {
			return 0, false
		}
		*dst = s.text(s.data[i+1:end-1], flags, false)
		return end, true
	case 'n':
		return s.Null(i)
	}
	return s.Mismatch(i)
}

// Interned is String for texts that repeat from line to line (types,
// roles, ids of a session): short ones are kept and shared.
func (s *Scanner) Interned(i int, dst *string) (int, bool) {
	if s.Byte(i) != '"' {
		return s.String(i, dst)
	}
	end, flags, ok := s.scanString(i)
	if !ok {
		return 0, false
	}
	*dst = s.text(s.data[i+1:end-1], flags, true)
	return end, true
}

// Bool reads the true or false at i into dst; null leaves it as it is.
func (s *Scanner) Bool(i int, dst *bool) (int, bool) {
	switch s.Byte(i) {
	case 't':
		end, ok := s.literal(i, "true")
		if ok {
			*dst = true
		}
		return end, ok
	case 'f':
		end, ok := s.literal(i, "false")
		if ok {
			*dst = false
		}
		return end, ok
	case 'n':
		return s.Null(i)
	}
	return s.Mismatch(i)
}

// Int64 reads the integer at i into dst; null leaves it as it is, and so
// does a number that is not an integer or does not fit (a mismatch).
func (s *Scanner) Int64(i int, dst *int64) (int, bool) {
	switch c := s.Byte(i); {
	case c == '-' || '0' <= c && c <= '9':
		end, ok := s.skipNumber(i)
		if !ok {
			return 0, false
		}
		n, fits := parseInt(s.data[i:end])
		if !fits {
			return s.Mismatch(i)
		}
		*dst = n
		return end, true
	case c == 'n':
		return s.Null(i)
	}
	return s.Mismatch(i)
}

// Int is Int64 for an int.
func (s *Scanner) Int(i int, dst *int) (int, bool) {
	n := int64(*dst)
	end, ok := s.Int64(i, &n)
	if ok && int64(int(n)) == n {
		*dst = int(n)
	} else if ok {
		return s.Mismatch(i)
	}
	return end, ok
}

// Raw reads the value at i as it is written, cut as Clip would cut it,
// as encoding/json fills a json.RawMessage (null included).
func (s *Scanner) Raw(i int, dst *json.RawMessage) (int, bool) {
	key := s.key
	end, ok := s.Skip(i)
	if !ok {
		return 0, false
	}
	if s.cut.Head > 0 {
		*dst = clip(nil, s.data[i:end], s.cut.Head, s.cut.Tail, key, s.whole)
	} else {
		*dst = append(json.RawMessage(nil), s.data[i:end]...)
	}
	return end, true
}

// Skip passes over the value at i, checking that it is valid JSON, and
// returns the index after it.
func (s *Scanner) Skip(i int) (int, bool) {
	switch c := s.Byte(i); {
	case c == '"':
		end, _, ok := s.scanString(i)
		return end, ok
	case c == '{':
		if !s.enter() {
			return 0, false
		}
		defer s.leave()
		i = s.Space(i + 1)
		if s.Byte(i) == '}' {
			return i + 1, true
		}
		for {
			if s.Byte(i) != '"' {
				return 0, false
			}
			end, _, ok := s.scanString(i)
			if !ok {
				return 0, false
			}
			s.key = s.data[i+1 : end-1]
			i = s.Space(end)
			if s.Byte(i) != ':' {
				return 0, false
			}
			if i, ok = s.Skip(s.Space(i + 1)); !ok {
				return 0, false
			}
			var last bool
			if i, last, ok = s.next(i, '}'); last || !ok {
				return i, ok
			}
		}
	case c == '[':
		return s.Elements(i, s.Skip)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.Null(i)
	case c == '-' || '0' <= c && c <= '9':
		return s.skipNumber(i)
	}
	return 0, false
}

func (s *Scanner) literal(i int, lit string) (int, bool) {
	if len(s.data)-i < len(lit) || string(s.data[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// skipNumber passes over a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) skipNumber(i int) (int, bool) {
	d := s.data
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		i = digits(d, i)
	default:
		return 0, false
	}
	if i < len(d) && d[i] == '.' {
		j := digits(d, i+1)
		if j == i+1 {
			return 0, false
		}
		i = j
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		j := digits(d, i)
		if j == i {
			return 0, false
		}
		i = j
	}
	return i, true
}

func digits(d []byte, i int) int {
	for i < len(d) && '0' <= d[i] && d[i] <= '9' {
		i++
	}
	return i
}

// parseInt reads a JSON number as an int64, as strconv.ParseInt would: it
// reports false for a fraction, an exponent or a value out of range.
func parseInt(b []byte) (int64, bool) {
	neg := b[0] == '-'
	if neg {
		b = b[1:]
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<64-1)/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n < uint64(c-'0') {
			return 0, false
		}
	}
	switch {
	case neg && n <= 1<<63:
		return -int64(n), true
	case !neg && n < 1<<63:
		return int64(n), true
	}
	return 0, false
}

// What scanString saw in a string besides plain ASCII.
const (
	sawEscape   = 1 << iota // a backslash
	sawNonASCII             // a byte of 0x80 or more
)

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special is non-zero when some byte of x needs a look inside a string: a
// control character (< 0x20), a quote or a backslash. (With bit 1 flipped,
// a quote, 0x22, is 0x20 and the control characters stay below it.)
func special(x uint64) uint64 {
	q := x ^ (ones * 0x02)
	b := x ^ (ones * '\\')
	return (q-ones*0x21)&^q&highs | (b-ones)&^b&highs
}

// scanString passes over the string at i (its opening quote), checking
// its escapes and that it holds no control character. It returns the
// index after the closing quote and what it saw.
func (s *Scanner) scanString(i int) (end int, flags int, ok bool) {
	d := s.data
	i++
	var high uint64 // the bytes passed over, or-ed: is any of them 0x80 or more?
	for {
		var seen uint64
		i, seen = nextSpecial(d, i)
		high |= seen
		if i >= len(d) {
			return 0, 0, false
		}
		switch d[i] {
		case '"':
			if high&highs != 0 {
				flags |= sawNonASCII
			}
			return i + 1, flags, true
		case '\\':
			flags |= sawEscape
			if i+1 >= len(d) {
				return 0, 0, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex4(d[i+2:]) {
					return 0, 0, false
				}
				i += 6
			default:
				return 0, 0, false
			}
		default: // a control character
			return 0, 0, false
		}
	}
}

// nextSpecial is the index of the first byte at or after i that a string
// scan must look at (see special), or len(d), eight bytes at a time; and
// the bytes before it or-ed together.
func nextSpecial(d []byte, i int) (int, uint64) {
	var seen uint64
	for ; i+8 <= len(d); i += 8 {
		x := binary.LittleEndian.Uint64(d[i:])
		if m := special(x); m != 0 {
			// The lowest flag is exact (what may be wrong above it is
			// a borrow carried up): the first special byte.
			k := bits.TrailingZeros64(m) / 8
			return i + k, seen | x&(1<<(8*k)-1)
		}
		seen |= x
	}
	for ; i < len(d); i++ {
		c := d[i]
		if c < 0x20 || c == '"' || c == '\\' {
			break
		}
		seen |= uint64(c)
	}
	return i, seen
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// text is the Go string of a string's contents as written (between its
// quotes, checked by scanString), cut as Clip would cut it.
func (s *Scanner) text(body []byte, flags int, intern bool) string {
	if s.cut.Head > 0 && clips(body, s.cut.Head, s.cut.Tail) && !wholeKey(s.key, s.whole) {
		h := cutAt(body, s.cut.Head)
		cut := append(s.buf[:0], body[:h]...)
		if s.cut.Tail > 0 {
			cut = append(cut, clipMark...)
			cut = append(cut, body[tailFrom(body, len(body)-s.cut.Tail):]...)
		}
		s.buf = cut
		body = cut
		intern = false
	}
	if flags&sawEscape != 0 {
		return unquote(body)
	}
	if flags&sawNonASCII != 0 && !utf8.Valid(body) {
		return unquote(body)
	}
	if !intern || len(body) > maxInterned || len(body) == 0 {
		return string(body)
	}
	if s.intern == nil {
		s.intern = new([internSlots]string)
	}
	slot := &s.intern[textHash(body)]
	if *slot != string(body) {
		*slot = string(body)
	}
	return *slot
}

// textHash hashes a short text for the intern table (FNV-1a).
func textHash(b []byte) uint8 {
	h := uint32(2166136261)
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return uint8(h ^ h>>8 ^ h>>16 ^ h>>24)
}

// clips reports whether Clip cuts a string with these contents.
func clips(body []byte, head, tail int) bool {
	return len(body) > head+tail+len(clipMark) && body[0] != '{' && body[0] != '['
}

// unquote decodes the contents of a valid JSON string (checked by
// scanString) as encoding/json does.
func unquote(s []byte) string {
	b, _, _, _ := jsonstr.Scan(make([]byte, 0, len(s)+utf8.UTFMax), s)
	return string(b)
}

func isHex4(s []byte) bool {
	return len(s) >= 4 && isHex(s[0]) && isHex(s[1]) && isHex(s[2]) && isHex(s[3])
}
