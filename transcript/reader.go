package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// readBufferSize is the reader's buffer; lines longer than this are
// assembled across reads, so no line is ever too long.
const readBufferSize = 256 << 10

// LineError reports a line that is not a valid event. It is not fatal: the
// reader goes on with the next line.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// ReadStats counts what a reader passed over.
type ReadStats struct {
	Lines     int // complete lines read, blank ones included
	Malformed int // lines that were not valid events
	Truncated int // an incomplete final line (no newline) that was skipped
	Unknown   int // events of a kind this version does not know, kept raw
}

// Reader streams events from JSONL. It accepts lines of any length, keeps
// unknown kinds as raw events, reports malformed lines as *LineError and goes
// on, and skips an incomplete final line (one a writer has not finished or a
// crash cut short). Invalid UTF-8 inside strings is tolerated.
type Reader struct {
	lines *LineReader
	stats ReadStats
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{lines: NewLineReader(r)}
}

// NewReaderAt returns a Reader over the bytes [start, end) of r, typically
// a session file: see NewLineReaderAt.
func NewReaderAt(r io.ReaderAt, start, end int64) *Reader {
	return &Reader{lines: NewLineReaderAt(r, start, end)}
}

// Stats returns what the reader has passed over so far.
func (r *Reader) Stats() ReadStats { return r.stats }

// Line is the number of the last line returned (1-based).
func (r *Reader) Line() int { return r.lines.Line() }

// Next returns the next event. It returns io.EOF at the end, a *LineError
// for a malformed line (call Next again to go on), and other errors from the
// underlying reader.
func (r *Reader) Next() (*Event, error) {
	for {
		line, err := r.nextLine()
		if err != nil {
			return nil, err
		}
		if line == nil {
			continue
		}
		ev, err := Decode(line)
		if err != nil {
			r.stats.Malformed++
			return nil, &LineError{Line: r.lines.Line(), Err: err}
		}
		if ev.Body == nil {
			r.stats.Unknown++
		}
		return ev, nil
	}
}

// NextRaw returns the bytes of the next line that is a JSON object, without
// decoding it: the fast path for exports that pass lines through unchanged.
// The slice is valid only until the next call. Malformed lines are reported
// as *LineError, as by Next.
func (r *Reader) NextRaw() ([]byte, error) {
	for {
		line, err := r.nextLine()
		if err != nil {
			return nil, err
		}
		if line == nil {
			continue
		}
		if line[0] != '{' || !json.Valid(line) {
			r.stats.Malformed++
			return nil, &LineError{Line: r.lines.Line(), Err: errors.New("not a JSON object")}
		}
		return line, nil
	}
}

// nextLine returns the next complete line trimmed of surrounding white space,
// nil for a blank line, or an error (io.EOF at the end).
func (r *Reader) nextLine() ([]byte, error) {
	line, complete, err := r.lines.Next()
	if err != nil {
		return nil, err
	}
	if !complete {
		r.stats.Truncated++
		return nil, io.EOF
	}
	r.stats.Lines++
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil, nil
	}
	return line, nil
}

// LineReader splits a stream into lines of any length. It tells a complete
// line (ended by a newline) from a trailing fragment. A line that cannot be
// an event — its first byte that is not white space is not '{', as in a run
// of NUL bytes a crash left — is passed over without being held: only its
// first skipKeep bytes are returned, which no decoder takes for an event.
type LineReader struct {
	br   *bufio.Reader
	buf  []byte
	line int
	off  int64
	at   *atReader // set when reading a file by offset
}

// skipKeep is how much of a line that cannot be an event is kept.
const skipKeep = 64

// NewLineReader returns a LineReader over r.
func NewLineReader(r io.Reader) *LineReader { return NewLineReaderSize(r, readBufferSize) }

// NewLineReaderSize returns a LineReader with a buffer of about size bytes:
// a small one for small inputs saves allocating the default for each of
// many short files. Lines longer than the buffer are still read whole.
func NewLineReaderSize(r io.Reader, size int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, min(max(size, minReadBuffer), readBufferSize))}
}

// minReadBuffer is the smallest buffer a LineReader uses.
const minReadBuffer = 4 << 10

// Line is the number of the last complete line returned (1-based).
func (l *LineReader) Line() int { return l.line }

// Offset is how many bytes of the stream the lines returned so far took,
// newlines included: where the next line starts.
func (l *LineReader) Offset() int64 { return l.off }

// Next returns the next line without its newline. complete is false for a
// final fragment with no newline, which is returned once with a nil error;
// after it (or at a clean end) Next returns io.EOF. The slice is valid until
// the next call.
func (l *LineReader) Next() (line []byte, complete bool, err error) {
	if l.at != nil {
		return l.nextAt()
	}
	l.buf = l.buf[:0]
	skipping := false
	var n int64 // bytes of this line read so far
	for {
		chunk, err := l.br.ReadSlice('\n')
		n += int64(len(chunk))
		if err == nil {
			l.line++
			l.off += n
			switch {
			case skipping:
				return l.buf, true, nil
			case len(l.buf) == 0:
				return chunk[:len(chunk)-1], true, nil
			}
			l.buf = append(l.buf, chunk[:len(chunk)-1]...)
			return l.buf, true, nil
		}
		if !skipping {
			l.buf = append(l.buf, chunk...)
			// 0xC2 may start U+0085 or U+00A0, which readers trim too.
			if c := firstNonBlank(l.buf); c >= 0 && c != '{' && c != 0xC2 {
				skipping = true
				l.buf = l.buf[:min(len(l.buf), skipKeep)]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && n > 0 {
			return l.buf, false, nil
		}
		return nil, false, err
	}
}

// firstNonBlank returns the first byte of b that is not ASCII white space
// (as bytes.TrimSpace sees it), or -1.
func firstNonBlank(b []byte) int {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n', '\v', '\f':
			continue
		}
		return int(c)
	}
	return -1
}

// NewLineReaderAt returns a LineReader over the bytes [start, end) of r,
// typically a session file. It finds where a line ends before it reads the
// line: a line costs no more memory than its own size (a long one is read
// once, into a buffer of exactly its size), a line that cannot be an event
// costs none, and neither does a final fragment of any size (only its head
// is returned). Offset counts from start, complete lines only.
func NewLineReaderAt(r io.ReaderAt, start, end int64) *LineReader {
	return &LineReader{at: &atReader{r: r, pos: start, end: end, start: start}}
}

// atReader is the state of a LineReader that reads by offset.
type atReader struct {
	r               io.ReaderAt
	pos, end, start int64  // next byte to look at; end of the input; where it began
	win             []byte // a window of the input read ahead
	winAt           int64  // offset of win[0]
}

// window returns the bytes from pos on that are in the window, reading the
// next window when it is used up; nil at the end.
func (a *atReader) window() ([]byte, error) {
	if a.pos >= a.winAt && a.pos < a.winAt+int64(len(a.win)) {
		return a.win[a.pos-a.winAt:], nil
	}
	if a.pos >= a.end {
		return nil, nil
	}
	if a.win == nil {
		a.win = make([]byte, min(int64(readBufferSize), max(a.end-a.pos, minReadBuffer)))
	}
	n := min(int64(cap(a.win)), a.end-a.pos)
	a.win = a.win[:n]
	got, err := a.r.ReadAt(a.win, a.pos)
	if int64(got) < n {
		a.win = a.win[:got]
		if err == nil || errors.Is(err, io.EOF) {
			a.end = a.pos + int64(got) // the file shrank meanwhile
		} else {
			return nil, err
		}
	}
	a.winAt = a.pos
	if got == 0 {
		return nil, nil
	}
	return a.win, nil
}

func (l *LineReader) nextAt() (line []byte, complete bool, err error) {
	a := l.at
	start := a.pos
	l.buf = l.buf[:0] // the head of the line, while it is not known to fit the window
	decided, event := false, false
	for {
		w, err := a.window()
		if err != nil {
			return nil, false, err
		}
		if w == nil { // the end: a fragment, or nothing
			if a.pos == start {
				return nil, false, io.EOF
			}
			return l.buf, false, nil // only the head of a fragment, whatever its size
		}
		if !decided {
			if c := firstNonBlank(w); c >= 0 {
				decided, event = true, c == '{' || c == 0xC2
			}
		}
		i := bytes.IndexByte(w, '\n')
		if i < 0 {
			if len(l.buf) < skipKeep {
				l.buf = append(l.buf, w[:min(len(w), skipKeep-len(l.buf))]...)
			}
			a.pos += int64(len(w))
			continue
		}
		nl := a.pos + int64(i)
		a.pos = nl + 1
		l.line++
		l.off = a.pos - a.start
		switch {
		case nl-start <= int64(i): // the whole line is in this window
			return w[:i], true, nil
		case decided && !event:
			return l.buf, true, nil
		}
		// A long line that may be an event: read it whole, once.
		buf := make([]byte, nl-start)
		if _, err := a.r.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return nil, false, err
		}
		return buf, true, nil
	}
}
