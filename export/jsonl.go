// Package export owns turning sessions into files (markdown, JSON, CSV, SQLite, HTML) and recordings into policy.
// It may import session, transcript and recorder/gate; never tui or cmd.
package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// Format names an export format.
type Format string

// Export formats.
const (
	FormatJSON  Format = "json"
	FormatJSONL Format = "jsonl"
)

// writeBufferSize batches output into large writes.
const writeBufferSize = 1 << 20

// Result tells what an export passed over.
type Result struct {
	Events    int64
	Malformed int // lines that were not JSON objects, left out
	Truncated int // incomplete final lines, left out
	// Skipped are the sessions that could not be read at all, left out:
	// the export is partial.
	Skipped []session.Unreadable
}

// RawWriter writes events as JSON (one array) or JSONL, passing each line
// through exactly as recorded, so unknown kinds and fields survive and
// nothing is re-encoded.
type RawWriter struct {
	w      *bufio.Writer
	format Format
	n      int64
	res    Result
}

// NewRawWriter starts an export in format (json or jsonl) to w.
func NewRawWriter(w io.Writer, format Format) (*RawWriter, error) {
	if format != FormatJSON && format != FormatJSONL {
		return nil, fmt.Errorf("raw export does not write %q", format)
	}
	bw := bufio.NewWriterSize(w, writeBufferSize)
	if format == FormatJSON {
		bw.WriteString("[")
	}
	return &RawWriter{w: bw, format: format}, nil
}

// CopySession passes every valid line of one session file through. Lines
// are checked in parallel, chunk by chunk, and written in file order; a
// line that is not a JSON object is left out and counted, and an incomplete
// final line is left out.
// It stops when ctx ends, with its error.
func (rw *RawWriter) CopySession(ctx context.Context, r io.Reader) error {
	return rw.copySession(ctx, r, chunkSize)
}

func (rw *RawWriter) copySession(ctx context.Context, r io.Reader, size int) error {
	workers := runtime.GOMAXPROCS(0)
	type job struct {
		chunk []byte
		done  chan checked
	}
	jobs := make(chan job, workers)
	order := make(chan chan checked, workers*2)
	readErr := make(chan error, 1)
	skipped := make(chan int, 1)
	quit := make(chan struct{})
	stop := sync.OnceFunc(func() { close(quit) })
	defer stop()
	go func() { // reader: cut the stream into chunks of whole lines
		defer close(order)
		defer close(jobs)
		cr := newChunkReader(r, size)
		for {
			select {
			case <-quit:
				skipped <- cr.skipped
				readErr <- nil
				return
			default:
			}
			chunk, tail, err := cr.next()
			if len(chunk) > 0 {
				j := job{chunk: chunk, done: make(chan checked, 1)}
				jobs <- j
				order <- j.done
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					if len(bytes.TrimSpace(tail)) > 0 || cr.tornSkipped {
						rw.res.Truncated++
					}
					err = nil
				}
				skipped <- cr.skipped
				readErr <- err
				return
			}
		}
	}()
	for i := 0; i < workers; i++ {
		go func() {
			for j := range jobs {
				j.done <- checkLines(j.chunk)
			}
		}()
	}
	var cancelled error
	for done := range order {
		c := <-done
		if cancelled != nil {
			continue // let the reader and the workers run out
		}
		if cancelled = ctx.Err(); cancelled != nil {
			stop()
			continue
		}
		rw.res.Malformed += c.malformed
		for _, line := range c.lines {
			rw.writeLine(line)
		}
	}
	rw.res.Malformed += <-skipped
	if err := <-readErr; cancelled == nil {
		return err
	}
	return fmt.Errorf("export: %w", cancelled)
}

// chunkSize is how much of a session a worker checks at a time.
const chunkSize = 4 << 20

// checked is one chunk's valid lines and how many were not.
type checked struct {
	lines     [][]byte
	malformed int
}

func checkLines(chunk []byte) checked {
	var c checked
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		line := chunk[:i]
		chunk = chunk[i+1:]
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' || !json.Valid(line) {
			c.malformed++
			continue
		}
		c.lines = append(c.lines, line)
	}
	return c
}

// chunkReader hands out chunks that end at a newline. Each chunk is a fresh
// slice, owned by whoever receives it. A line longer than a chunk that
// cannot be an event (its first non-blank byte is not '{', as in the NUL
// bytes a crash leaves) is passed over without being held, and counted.
// Reading a file (an *io.SectionReader), a long line is measured before it
// is read, into a buffer of exactly its size, and a torn tail is never read.
type chunkReader struct {
	r        io.Reader
	size     int               // the size of a chunk (chunkSize outside tests)
	at       *io.SectionReader // set: read by offset
	pos      int64             // with at: the offset of the next byte to read
	buf      []byte            // bytes read but not yet handed out; buf[0] starts a line
	eof      bool
	skipping bool // inside a line being passed over
	// skipped counts the lines passed over that ended; tornSkipped is set
	// when the input ended inside one.
	skipped     int
	tornSkipped bool
}

// newChunkReader returns a chunkReader over r that hands out chunks of
// about size bytes.
func newChunkReader(r io.Reader, size int) *chunkReader {
	c := &chunkReader{r: r, size: size, buf: make([]byte, 0, size)}
	if sr, ok := r.(*io.SectionReader); ok {
		c.at = sr
	}
	return c
}

// next returns the next run of whole lines; at the end it returns io.EOF
// with any bytes after the last newline as tail.
func (c *chunkReader) next() (chunk, tail []byte, err error) {
	for {
		if c.skipping {
			if i := bytes.IndexByte(c.buf, '\n'); i >= 0 {
				c.buf = c.buf[:copy(c.buf, c.buf[i+1:])]
				c.skipping = false
				c.skipped++
			} else {
				c.buf = c.buf[:0]
			}
		}
		if !c.skipping {
			if i := bytes.LastIndexByte(c.buf, '\n'); i >= 0 && (len(c.buf) >= c.size || c.eof) {
				chunk = c.buf[:i+1]
				rest := c.buf[i+1:]
				c.buf = make([]byte, len(rest), max(c.size, 2*len(rest)))
				copy(c.buf, rest)
				return chunk, nil, nil
			}
			if len(c.buf) >= c.size && bytes.IndexByte(c.buf, '\n') < 0 {
				if c.at != nil {
					return c.longLine()
				}
				if notEvent(c.buf) {
					c.skipping = true // one line, longer than a chunk, that is no event
					continue
				}
			}
		}
		if c.eof {
			if c.skipping {
				c.tornSkipped = true
				return nil, nil, io.EOF
			}
			return nil, c.buf, io.EOF
		}
		if len(c.buf) == cap(c.buf) {
			grown := make([]byte, len(c.buf), 2*cap(c.buf))
			copy(grown, c.buf)
			c.buf = grown
		}
		if err := c.read(); err != nil {
			return nil, nil, err
		}
	}
}

// read reads more into buf, setting eof at the end.
func (c *chunkReader) read() error {
	var n int
	var err error
	if c.at != nil {
		n, err = c.at.ReadAt(c.buf[len(c.buf):cap(c.buf)], c.pos)
		c.pos += int64(n)
	} else {
		n, err = c.r.Read(c.buf[len(c.buf):cap(c.buf)])
	}
	c.buf = c.buf[:len(c.buf)+n]
	if errors.Is(err, io.EOF) {
		c.eof = true
	} else if err != nil {
		return err
	}
	return nil
}

// longLine handles a line longer than a chunk, read by offset: buf holds
// its start. It finds the line's end without holding what lies between,
// then returns the line as a chunk of its own, read into a buffer of its
// size — or passes it over (a line that cannot be an event), or stops at a
// torn tail.
func (c *chunkReader) longLine() (chunk, tail []byte, err error) {
	start := c.pos - int64(len(c.buf))
	skip := notEvent(c.buf)
	win := c.buf[:cap(c.buf)]
	for {
		n, err := c.at.ReadAt(win, c.pos)
		if i := bytes.IndexByte(win[:n], '\n'); i >= 0 {
			end := c.pos + int64(i) + 1
			c.pos, c.buf = end, c.buf[:0]
			if skip {
				c.skipped++
				return c.next()
			}
			line := make([]byte, end-start)
			if _, err := c.at.ReadAt(line, start); err != nil && !errors.Is(err, io.EOF) {
				return nil, nil, err
			}
			return line, nil, nil
		}
		c.pos += int64(n)
		if errors.Is(err, io.EOF) || n == 0 {
			c.eof, c.buf = true, c.buf[:0]
			c.tornSkipped = true // a torn tail, left unread
			return nil, nil, io.EOF
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// notEvent reports whether a line that starts with b cannot be an event:
// its first byte that is not white space is not '{'.
func notEvent(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\v\f")
	return len(t) > 0 && t[0] != '{' && t[0] != 0xC2 // 0xC2 may start white space readers trim
}

// WriteEvent writes one decoded event (of a foreign transcript, say),
// encoded as cuff writes events.
func (rw *RawWriter) WriteEvent(ev *transcript.Event) error {
	line, err := ev.MarshalJSON()
	if err != nil {
		return err
	}
	rw.writeLine(line)
	return nil
}

func (rw *RawWriter) writeLine(line []byte) {
	line = validUTF8(line)
	if rw.format == FormatJSON {
		if rw.n > 0 {
			rw.w.WriteString(",\n")
		} else {
			rw.w.WriteString("\n")
		}
		rw.w.Write(line)
	} else {
		rw.w.Write(line)
		rw.w.WriteByte('\n')
	}
	rw.n++
	rw.res.Events = rw.n
}

// Close finishes the export and flushes it.
func (rw *RawWriter) Close() (Result, error) {
	if rw.format == FormatJSON {
		if rw.n > 0 {
			rw.w.WriteString("\n")
		}
		rw.w.WriteString("]\n")
	}
	if err := rw.w.Flush(); err != nil {
		return rw.res, fmt.Errorf("write export: %w", err)
	}
	return rw.res, nil
}

// validUTF8 returns a JSON line with each byte that is not valid UTF-8
// written as \ufffd, the replacement character encoding/json decodes it to:
// JSON text must be UTF-8, and in a valid JSON line such bytes can only be
// inside strings, where the escape keeps the line valid. A line that is
// valid UTF-8 already is returned as it is.
func validUTF8(line []byte) []byte {
	if utf8.Valid(line) {
		return line
	}
	out := make([]byte, 0, len(line)+16)
	for len(line) > 0 {
		r, size := utf8.DecodeRune(line)
		if r == utf8.RuneError && size == 1 {
			out = append(out, `\ufffd`...)
		} else {
			out = append(out, line[:size]...)
		}
		line = line[size:]
	}
	return out
}
