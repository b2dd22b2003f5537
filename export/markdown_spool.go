package export

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/cuff-dev/cuff/transcript"
)

// Sizes of a spool's buffers: writes are batched, and reads go through a
// few windows on the file. Reading follows a few sequences at once, each in
// the order it was written: entries rendered as they completed, calls
// rendered only at the end, lines read back.
const (
	spoolBufferSize = 256 << 10
	spoolWindows    = 4
	spoolWindowSize = 256 << 10
)

// spoolWindow is a part of the spool file that was read.
type spoolWindow struct {
	off  int64
	buf  []byte
	used uint64 // when it was last read from
}

// mdSpool is the temporary file of a markdown export: the line of every
// event of the session and the entries rendered so far.
type mdSpool struct {
	f       *os.File
	w       *bufio.Writer
	size    int64 // bytes written
	removed bool  // the file's name is gone already
	err     error // the first error, after which the spool is of no use
	dirty   bool  // written since the last flush
	wins    [spoolWindows]spoolWindow
	reads   uint64
}

func newMDSpool() (*mdSpool, error) {
	f, err := os.CreateTemp("", "cuff-markdown-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("markdown export: temporary file: %w", err)
	}
	// Where the system allows it, the name goes at once, so that the file
	// disappears with its descriptor whatever happens to the process.
	removed := os.Remove(f.Name()) == nil
	return &mdSpool{f: f, w: bufio.NewWriterSize(f, spoolBufferSize), removed: removed}, nil
}

// put appends b and tells where it is.
func (s *mdSpool) put(b []byte) (mdSpan, error) {
	if s.err != nil {
		return mdSpan{}, s.err
	}
	if uint64(len(b)) > math.MaxUint32 {
		s.err = errors.New("markdown export: an event or entry over 4 GB")
		return mdSpan{}, s.err
	}
	if _, err := s.w.Write(b); err != nil {
		s.err = fmt.Errorf("markdown export: write temporary file: %w", err)
		return mdSpan{}, s.err
	}
	sp := mdSpan{off: s.size, n: uint32(len(b))}
	s.size += int64(sp.n)
	s.dirty = true
	return sp, nil
}

// putEvent appends the line of ev: as recorded, or as cuff writes events
// when it was not read from a file.
func (s *mdSpool) putEvent(ev *transcript.Event) (mdSpan, error) {
	line := []byte(ev.Raw)
	if len(line) == 0 {
		var err error
		if line, err = ev.MarshalJSON(); err != nil {
			return mdSpan{}, fmt.Errorf("markdown export: %w", err)
		}
	}
	return s.put(line)
}

// read returns the bytes at sp, valid until the next read.
func (s *mdSpool) read(sp mdSpan) ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.dirty {
		if err := s.w.Flush(); err != nil {
			s.err = fmt.Errorf("markdown export: write temporary file: %w", err)
			return nil, s.err
		}
		s.dirty = false
		for i := range s.wins {
			s.wins[i].buf = s.wins[i].buf[:0]
		}
	}
	s.reads++
	end := sp.off + int64(sp.n)
	w := &s.wins[0]
	for i := range s.wins {
		c := &s.wins[i]
		if sp.off >= c.off && end <= c.off+int64(len(c.buf)) {
			w = c
			break
		}
		if c.used < w.used {
			w = c
		}
	}
	if sp.off < w.off || end > w.off+int64(len(w.buf)) { // not read yet: into the least used window
		n := min(max(spoolWindowSize, int64(sp.n)), s.size-sp.off)
		if int64(cap(w.buf)) < n {
			w.buf = make([]byte, n)
		}
		w.buf, w.off = w.buf[:n], sp.off
		if got, err := s.f.ReadAt(w.buf, sp.off); int64(got) < n {
			s.err = fmt.Errorf("markdown export: read temporary file: %w", errors.Join(err, io.ErrUnexpectedEOF))
			return nil, s.err
		}
	}
	w.used = s.reads
	i := sp.off - w.off
	return w.buf[i : i+int64(sp.n)], nil
}

// event reads back the event that r records.
func (s *mdSpool) event(r *mdRecord) (*transcript.Event, error) {
	line, err := s.read(r.line())
	if err != nil {
		return nil, err
	}
	ev, err := transcript.Decode(line)
	if err != nil {
		return nil, fmt.Errorf("markdown export: read back an event: %w", err)
	}
	if k := bodyKind(ev.Body); k != r.body {
		if r.body != mdNone {
			return nil, fmt.Errorf("markdown export: event %d read back as another kind", ev.Seq)
		}
		// An event without a body, but of a kind that has one, reads back
		// with one; it is shown as it was.
		ev.Body = nil
	}
	return ev, nil
}

// close removes the spool.
func (s *mdSpool) close() error {
	err := s.f.Close()
	if !s.removed {
		err = errors.Join(err, os.Remove(s.f.Name()))
	}
	if err != nil {
		return fmt.Errorf("markdown export: temporary file: %w", err)
	}
	return nil
}
