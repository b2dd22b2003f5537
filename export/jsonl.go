// Package export owns turning sessions into files (markdown, JSON, CSV, SQLite, HTML) and recordings into policy.
// It may import session, transcript and recorder/gate; never tui or cmd.
package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"

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
func (rw *RawWriter) CopySession(r io.Reader) error {
	workers := runtime.GOMAXPROCS(0)
	type job struct {
		chunk []byte
		done  chan checked
	}
	jobs := make(chan job, workers)
	order := make(chan chan checked, workers*2)
	readErr := make(chan error, 1)
	go func() { // reader: cut the stream into chunks of whole lines
		defer close(order)
		defer close(jobs)
		cr := &chunkReader{r: r, buf: make([]byte, 0, chunkSize)}
		for {
			chunk, tail, err := cr.next()
			if len(chunk) > 0 {
				j := job{chunk: chunk, done: make(chan checked, 1)}
				jobs <- j
				order <- j.done
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					if len(bytes.TrimSpace(tail)) > 0 {
						rw.res.Truncated++
					}
					err = nil
				}
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
	for done := range order {
		c := <-done
		rw.res.Malformed += c.malformed
		for _, line := range c.lines {
			rw.writeLine(line)
		}
	}
	return <-readErr
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
// slice, owned by whoever receives it.
type chunkReader struct {
	r   io.Reader
	buf []byte // bytes read but not yet handed out
	eof bool
}

// next returns the next run of whole lines; at the end it returns io.EOF
// with any bytes after the last newline as tail.
func (c *chunkReader) next() (chunk, tail []byte, err error) {
	for {
		if i := bytes.LastIndexByte(c.buf, '\n'); i >= 0 && (len(c.buf) >= chunkSize || c.eof) {
			chunk = c.buf[:i+1]
			rest := c.buf[i+1:]
			c.buf = make([]byte, len(rest), max(chunkSize, 2*len(rest)))
			copy(c.buf, rest)
			return chunk, nil, nil
		}
		if c.eof {
			return nil, c.buf, io.EOF
		}
		if len(c.buf) == cap(c.buf) {
			grown := make([]byte, len(c.buf), 2*cap(c.buf))
			copy(grown, c.buf)
			c.buf = grown
		}
		n, err := c.r.Read(c.buf[len(c.buf):cap(c.buf)])
		c.buf = c.buf[:len(c.buf)+n]
		if errors.Is(err, io.EOF) {
			c.eof = true
		} else if err != nil {
			return nil, nil, err
		}
	}
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
