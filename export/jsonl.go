// Package export turns recorded sessions into files people and tools read:
// JSON, JSONL and, later, markdown, CSV, SQLite and HTML.
package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"

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

// CopySession passes every valid line of one session file through.
func (rw *RawWriter) CopySession(r io.Reader) error {
	rd := transcript.NewReader(r)
	for {
		line, err := rd.NextRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *transcript.LineError
		if errors.As(err, &le) {
			continue
		}
		if err != nil {
			return err
		}
		rw.writeLine(line)
	}
	st := rd.Stats()
	rw.res.Malformed += st.Malformed
	rw.res.Truncated += st.Truncated
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
