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
// line (ended by a newline) from a trailing fragment.
type LineReader struct {
	br   *bufio.Reader
	buf  []byte
	line int
}

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

// Next returns the next line without its newline. complete is false for a
// final fragment with no newline, which is returned once with a nil error;
// after it (or at a clean end) Next returns io.EOF. The slice is valid until
// the next call.
func (l *LineReader) Next() (line []byte, complete bool, err error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.br.ReadSlice('\n')
		if err == nil {
			l.line++
			if len(l.buf) == 0 {
				return chunk[:len(chunk)-1], true, nil
			}
			l.buf = append(l.buf, chunk[:len(chunk)-1]...)
			return l.buf, true, nil
		}
		l.buf = append(l.buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF && len(l.buf) > 0 {
			return l.buf, false, nil
		}
		return nil, false, err
	}
}
