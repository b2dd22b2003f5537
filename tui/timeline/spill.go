package timeline

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/cuff-dev/cuff/internal/jsonstr"
	"github.com/cuff-dev/cuff/transcript"
)

// Field names a big text field of an item's body: one that a timeline may
// leave in the session file instead of keeping it in memory.
type Field uint8

// The fields that may be left in the session file.
const (
	Output Field = iota // a tool result's output
	Stdout              // a bash run's standard output
	Stderr              // a bash run's standard error
)

// key is the field's name in an event's line.
func (f Field) key() string {
	switch f {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	}
	return "output"
}

// spillMin is the shortest field worth leaving in the file: a shorter one
// costs about as much kept as its reference does.
const spillMin = 256

// ErrChanged reports that a field left in the session file cannot be read
// back as it was: the file was rewritten in place since it was read.
var ErrChanged = errors.New("the session file changed since it was read")

// castagnoli checks that a field read back is the one that was left.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// backing is the file a timeline leaves big fields in.
type backing struct {
	r    io.ReaderAt
	keys [3][]byte // `"output":"`, `"stdout":"`, `"stderr":"`, by Field

	mu      sync.Mutex // a Spiller leaves outputs while the timeline is used
	scratch []byte     // for unescaping while outputs are left
	// left are outputs a Spiller left, by the body they were left from,
	// until the body's event is added.
	left map[transcript.Body]*spilled
}

// Spill makes the timeline leave the big outputs of events added with
// AddLine in r, the file they were read from, and read them back when they
// are shown or searched. r must keep the bytes it had (a file that only
// grows, or one kept open while it is replaced by a rename); a field that
// reads back differently is reported with ErrChanged, never shown wrong.
func (t *Timeline) Spill(r io.ReaderAt) {
	b := &backing{r: r}
	for f := range b.keys {
		b.keys[f] = []byte(`"` + Field(f).key() + `":"`)
	}
	t.backing = b
}

// fieldRef is where a field left in the file is, and what it holds.
type fieldRef struct {
	off   int64  // where the field's JSON string starts, after its quote
	raw   uint32 // its length in the file, escaped
	size  uint32 // its length unescaped
	lines uint32 // its line count, as fieldLines counts them
	sum   uint32 // CRC-32C of the bytes in the file
	field Field
	plain bool // the bytes are valid UTF-8 with no \u escape (see rawIndex)
}

// spilled are the fields an item left in the file: most leave one (an
// output, a stdout), a few two (stdout and stderr).
type spilled struct {
	b     *backing
	ref   fieldRef
	other *fieldRef
}

func (s *spilled) find(f Field) *fieldRef {
	switch {
	case s == nil:
		return nil
	case s.ref.field == f:
		return &s.ref
	case s.other != nil && s.other.field == f:
		return s.other
	}
	return nil
}

// refs calls fn with each field left in the file.
func (s *spilled) refs(fn func(*fieldRef) bool) bool {
	if s == nil {
		return false
	}
	return fn(&s.ref) || s.other != nil && fn(s.other)
}

// Spiller leaves the big outputs of events in the file of a timeline
// before the events are added to it, and on another goroutine than the one
// adding them: the feed does it for what it follows while the view adds
// what the feed brings.
type Spiller struct{ b *backing }

// Spiller returns the timeline's Spiller, or nil when the timeline leaves
// nothing in a file.
func (t *Timeline) Spiller() *Spiller {
	if t.backing == nil {
		return nil
	}
	return &Spiller{b: t.backing}
}

// Wants reports whether body has outputs big enough to leave in the file.
func (s *Spiller) Wants(body transcript.Body) bool {
	switch b := body.(type) {
	case *transcript.ToolResult:
		return len(b.Output) >= spillMin
	case *transcript.BashRun:
		return len(b.Stdout) >= spillMin || len(b.Stderr) >= spillMin
	}
	return false
}

// Leave leaves the big outputs of ev, decoded from line (the bytes at off
// of the timeline's file), in the file, emptying them in ev's body; Add
// finds them when ev is added. ev must not be in a timeline yet, nor its
// body be read by another goroutine.
func (s *Spiller) Leave(ev *transcript.Event, line []byte, off int64) {
	sp := s.b.spill(ev.Body, line, off)
	if sp == nil {
		return
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if s.b.left == nil {
		s.b.left = map[transcript.Body]*spilled{}
	}
	s.b.left[ev.Body] = sp
}

// claim returns what a Spiller left of body, if anything.
func (b *backing) claim(body transcript.Body) *spilled {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.left) == 0 || body == nil {
		return nil
	}
	sp := b.left[body]
	delete(b.left, body)
	return sp
}

// spill leaves the big fields of body, decoded from line (the bytes at off),
// in the file, emptying them in body. It returns nil when none was left.
func (b *backing) spill(body transcript.Body, line []byte, off int64) *spilled {
	b.mu.Lock()
	defer b.mu.Unlock()
	var sp *spilled
	leave := func(f Field, value *string) {
		v := *value
		if len(v) < spillMin || int64(len(line)) > math.MaxUint32 {
			return
		}
		from, to, plain, ok := b.locate(line, f, v)
		if !ok {
			return
		}
		raw := line[from:to]
		r := fieldRef{off: off + int64(from), raw: uint32(len(raw)), size: uint32(len(v)), lines: uint32(fieldLines(v)),
			sum: crc32.Checksum(raw, castagnoli), field: f, plain: plain}
		if sp == nil {
			sp = &spilled{b: b, ref: r}
		} else {
			sp.other = &r
		}
		*value = ""
	}
	switch body := body.(type) {
	case *transcript.ToolResult:
		leave(Output, &body.Output)
	case *transcript.BashRun:
		leave(Stdout, &body.Stdout)
		leave(Stderr, &body.Stderr)
	}
	return sp
}

// locate finds the JSON string of field f in line whose text is value:
// the byte range of its contents, and whether they are plain (see
// scanString). It accepts only a string that unescapes to exactly value,
// so the key showing up elsewhere in the line (inside another string, in a
// nested object) is never taken for the field.
func (b *backing) locate(line []byte, f Field, value string) (from, to int, plain, ok bool) {
	pat := b.keys[f]
	for i := 0; ; {
		j := bytes.Index(line[i:], pat)
		if j < 0 {
			return 0, 0, false, false
		}
		from = i + j + len(pat)
		text, n, plain, err := jsonstr.Scan(b.scratch[:0], line[from:])
		b.scratch = text[:0]
		if err == nil && from+n < len(line) && string(text) == value {
			return from, from + n, plain, true
		}
		i = from
	}
}

// read returns the text of a field left in the file, checked against
// what was left.
func (b *backing) read(r *fieldRef) (string, error) {
	raw := make([]byte, r.raw)
	n, err := b.r.ReadAt(raw, r.off)
	switch {
	case n < len(raw) && (err == nil || errors.Is(err, io.EOF)):
		return "", ErrChanged // the file is shorter than it was
	case n < len(raw):
		return "", fmt.Errorf("read back an output: %w", err)
	}
	if !r.same(raw) {
		return "", ErrChanged
	}
	text, err := jsonstr.Unescape(nil, raw)
	if err != nil || len(text) != int(r.size) {
		return "", ErrChanged
	}
	return string(text), nil
}

// same reports whether raw are the bytes that were left.
func (r *fieldRef) same(raw []byte) bool {
	return len(raw) == int(r.raw) && crc32.Checksum(raw, castagnoli) == r.sum
}

// fieldLines is how many lines the view counts in a field: none when it
// is empty, and a trailing newline does not start another.
func fieldLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimRight(s, "\n"), "\n") + 1
}

// fieldOf is the value of a field in the item's bodies, as kept in memory.
func (it *Item) fieldOf(f Field) string {
	switch f {
	case Output:
		if r := it.ToolResult(); r != nil {
			return r.Output
		}
	case Stdout:
		if r := it.BashRun(); r != nil {
			return r.Stdout
		}
	case Stderr:
		if r := it.BashRun(); r != nil {
			return r.Stderr
		}
	}
	return ""
}

// Field returns one of the item's big text fields: a tool result's Output,
// a bash run's Stdout or Stderr, read back from the session file when the
// timeline left it there. It fails with ErrChanged when the file no longer
// holds it, or with the error reading it.
func (it *Item) Field(f Field) (string, error) {
	if r := it.spill.find(f); r != nil {
		return it.spill.b.read(r)
	}
	return it.fieldOf(f), nil
}

// FieldLines is how many lines one of the item's big text fields has (0
// when it is empty; a trailing newline does not count), without reading it
// back.
func (it *Item) FieldLines(f Field) int {
	if r := it.spill.find(f); r != nil {
		return int(r.lines)
	}
	return fieldLines(it.fieldOf(f))
}

// FieldLater returns a function that reads one of the item's big text
// fields (see Field) and may run on another goroutine: what it needs is
// taken now, so the item may change meanwhile.
func (it *Item) FieldLater(f Field) func() (string, error) {
	if r := it.spill.find(f); r != nil {
		ref, b := *r, it.spill.b
		return func() (string, error) { return b.read(&ref) }
	}
	v := it.fieldOf(f)
	return func() (string, error) { return v, nil }
}
