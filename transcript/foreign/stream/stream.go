// Package stream is the plumbing the foreign transcript decoders share: the
// emitter that numbers events and holds the first few back until the
// session_start can be written with a title, the decode statistics, and
// lenient JSON and text helpers.
package stream

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/transcript"
)

// Lookahead is how many events an emitter holds back while it waits for
// the session's title; after that the session_start is written without one.
const Lookahead = 64

// maxUnknownKinds bounds the distinct unknown type names kept in Stats, so
// that a hostile file cannot grow the map without end.
const maxUnknownKinds = 100

// maxMalformedLines bounds the malformed line numbers kept in Stats.
const maxMalformedLines = 20

// Stats counts what a decoder passed over.
type Stats struct {
	Lines     int // complete lines read, blank ones included
	Events    int // events emitted, the session_start included
	Skipped   int // lines of a known type that carry nothing cuff records
	Unknown   int // lines of a type the decoder does not know, skipped
	Malformed int // lines that are not JSON objects, skipped
	Truncated int // an incomplete final line (no newline), skipped

	// UnknownTypes counts unknown lines by type name (at most 100 names).
	UnknownTypes map[string]int
	// MalformedLines are the numbers of the first malformed lines (at most 20).
	MalformedLines []int
}

// AddUnknown counts one line of an unknown type.
func (s *Stats) AddUnknown(kind string) {
	s.Unknown++
	if s.UnknownTypes == nil {
		s.UnknownTypes = map[string]int{}
	}
	if _, ok := s.UnknownTypes[kind]; ok || len(s.UnknownTypes) < maxUnknownKinds {
		s.UnknownTypes[kind]++
	}
}

// AddMalformed counts one malformed line.
func (s *Stats) AddMalformed(line int) {
	s.Malformed++
	if len(s.MalformedLines) < maxMalformedLines {
		s.MalformedLines = append(s.MalformedLines, line)
	}
}

// Emit receives decoded events in order.
type Emit func(*transcript.Event) error

// Emitter numbers events 1..N and stamps them with the session id. Until
// Begin is called it holds events back, so that the session_start, written
// first, can carry what the decoder learns from the first lines (title,
// working directory, branch).
type Emitter struct {
	// Start is the body of the session_start; decoders fill it in as they
	// learn. It is written by Begin.
	Start transcript.SessionStart
	// StartTS is the session_start's time; the first event's when zero.
	StartTS time.Time
	// SessionID stamps every event.
	SessionID string
	// Prepare, when set, is called first thing in Begin, so that the
	// decoder can fill in Start and SessionID just in time.
	Prepare func()

	stats   *Stats
	started bool
	pending []*transcript.Event
	seq     int64
	out     Emit
	err     error
}

// NewEmitter returns an emitter that counts into stats.
func NewEmitter(stats *Stats) *Emitter { return &Emitter{stats: stats} }

// SetOutput sets where events go from now on.
func (e *Emitter) SetOutput(out Emit) { e.out = out }

// Err is the first error the output returned; once set, nothing more is
// passed on.
func (e *Emitter) Err() error { return e.err }

// Started reports whether the session_start has been written.
func (e *Emitter) Started() bool { return e.started }

// Held is how many events wait for Begin.
func (e *Emitter) Held() int { return len(e.pending) }

// Emit passes ev on, or holds it until Begin.
func (e *Emitter) Emit(ev *transcript.Event) {
	if !e.started {
		e.pending = append(e.pending, ev)
		if len(e.pending) >= Lookahead {
			e.Begin()
		}
		return
	}
	e.send(ev)
}

// Begin writes the session_start and then every event held back. It does
// nothing the second time.
func (e *Emitter) Begin() {
	if e.started {
		return
	}
	e.started = true
	if e.Prepare != nil {
		e.Prepare()
	}
	ts := e.StartTS
	if ts.IsZero() && len(e.pending) > 0 {
		ts = e.pending[0].TS
	}
	start := e.Start
	e.send(transcript.New(e.SessionID, ts, &start))
	for _, ev := range e.pending {
		e.send(ev)
	}
	e.pending = nil
}

func (e *Emitter) send(ev *transcript.Event) {
	if e.err != nil {
		return
	}
	e.seq++
	ev.SessionID = e.SessionID
	ev.Seq = e.seq
	ev.ID = transcript.EventID(e.SessionID, e.seq)
	e.stats.Events++
	if e.out == nil {
		e.err = errors.New("decoder has no output")
		return
	}
	if err := e.out(ev); err != nil {
		e.err = err
	}
}

// LineDecoder is what the foreign decoders implement: one line at a time,
// then Close at the end of the input.
type LineDecoder interface {
	Line(line []byte, out Emit) error
	Close(out Emit) error
	Stats() Stats
}

// Run feeds r line by line to d, lines of any length, then closes it. An
// incomplete final line is counted (Stats.Truncated) and skipped. It
// returns the first error of r or of out.
func Run(r io.Reader, d LineDecoder, out Emit) (Stats, error) {
	lr := transcript.NewLineReader(r)
	truncated := 0
	stats := func() Stats {
		st := d.Stats()
		st.Truncated += truncated
		return st
	}
	for {
		line, complete, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return stats(), fmt.Errorf("read line %d: %w", lr.Line()+1, err)
		}
		if !complete {
			truncated++
			break
		}
		if err := d.Line(line, out); err != nil {
			return stats(), err
		}
	}
	if err := d.Close(out); err != nil {
		return stats(), err
	}
	return stats(), nil
}

// Unmarshal decodes a JSON line into v leniently: a field whose value has
// the wrong type is left empty rather than failing the line. It reports
// false for a line that is not a JSON object.
func Unmarshal(line []byte, v any) bool {
	if len(line) == 0 || line[0] != '{' {
		return false
	}
	err := json.Unmarshal(line, v)
	if err == nil {
		return true
	}
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// TrimSpace returns line without surrounding white space.
func TrimSpace(line []byte) []byte {
	start, end := 0, len(line)
	for start < end && isSpace(line[start]) {
		start++
	}
	for end > start && isSpace(line[end-1]) {
		end--
	}
	return line[start:end]
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }

// ParseTime reads an RFC 3339 timestamp; it returns the zero time for
// anything else.
func ParseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// TitleLength bounds a session title.
const TitleLength = 80

// Title turns a prompt into a one-line title: white space collapsed, cut
// at TitleLength runes with an ellipsis. Invalid UTF-8 is replaced.
func Title(text string) string {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	out := make([]rune, 0, TitleLength)
	space := false
	for _, r := range text {
		if r == '\n' || r == '\t' || r == '\r' || r == ' ' {
			space = len(out) > 0
			continue
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, r)
		if len(out) >= TitleLength {
			out = append(out[:TitleLength-1], '…')
			break
		}
	}
	return string(out)
}

// DurationMS is the time from a to b in milliseconds, 0 when either is
// unknown or b is before a.
func DurationMS(a, b time.Time) int64 {
	if a.IsZero() || b.IsZero() || b.Before(a) {
		return 0
	}
	return b.Sub(a).Milliseconds()
}

// DecodeLine is the part of a decoder's Line that every format shares:
// count the line, skip a blank one, decode it into a fresh T (a malformed
// line is counted and skipped), reset *made, hand the record to handle, and
// count it skipped when handle knew it but made no event. Once ready says
// the session can be named, the held-back events are passed on.
func DecodeLine[T any](st *Stats, em *Emitter, raw []byte, out Emit, made *int, handle func(*T) bool, ready func() bool) error {
	return DecodeLineWith(st, em, raw, out, made, func(raw []byte, rec *T) bool { return Unmarshal(raw, rec) }, handle, ready)
}

// DecodeLineWith is DecodeLine reading each record with decode (Unmarshal,
// or a faster reader that agrees with it), which reports false for a line
// that is not a JSON object.
func DecodeLineWith[T any](st *Stats, em *Emitter, raw []byte, out Emit, made *int, decode func([]byte, *T) bool, handle func(*T) bool, ready func() bool) error {
	st.Lines++
	em.SetOutput(out)
	raw = TrimSpace(raw)
	if len(raw) == 0 {
		return em.Err()
	}
	var rec T
	if !decode(raw, &rec) {
		st.AddMalformed(st.Lines)
		return em.Err()
	}
	*made = 0
	if handle(&rec) && *made == 0 {
		st.Skipped++
	}
	if ready() {
		em.Begin()
	}
	return em.Err()
}
