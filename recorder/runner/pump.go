package runner

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// Read sizes: a pipe is read in small chunks until a read fills the chunk, then in
// chunks four times larger, up to maxReadSize, so quiet streams cost little memory.
const (
	minReadSize = 4 << 10
	maxReadSize = 256 << 10
	readGrowth  = 4
)

// pump copies one output pipe into a bounded buffer and, optionally, a live writer.
type pump struct {
	r    *os.File
	buf  *headTail // nil when the stream is not captured
	live io.Writer // nil when the stream is not streamed
	done chan struct{}

	// blockedSince is when the pump last started waiting in Read (unix nanoseconds),
	// or 0 while it is handling data. It tells a silent pipe from a busy one.
	blockedSince atomic.Int64

	total   int64 // bytes read; owned by the pump until done is closed
	liveErr error // first error from live; owned by the pump until done is closed
	readErr error // a read error other than end of file or a forced close
}

func newPump(r *os.File, buf *headTail, live io.Writer) *pump {
	return &pump{r: r, buf: buf, live: live, done: make(chan struct{})}
}

func (p *pump) run() {
	defer close(p.done)
	chunk := make([]byte, minReadSize)
	for {
		p.blockedSince.Store(time.Now().UnixNano())
		n, err := p.r.Read(chunk)
		p.blockedSince.Store(0)
		if n > 0 {
			p.total += int64(n)
			if p.buf != nil {
				_, _ = p.buf.Write(chunk[:n]) // headTail.Write never fails
			}
			if p.live != nil && p.liveErr == nil {
				if _, werr := p.live.Write(chunk[:n]); werr != nil {
					p.liveErr = werr
				}
			}
			if n == len(chunk) && n < maxReadSize {
				chunk = make([]byte, min(n*readGrowth, maxReadSize))
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				p.readErr = err
			}
			return
		}
	}
}

// silentFor reports whether the pump has been waiting for data for at least d.
func (p *pump) silentFor(d time.Duration, now time.Time) bool {
	since := p.blockedSince.Load()
	return since != 0 && now.Sub(time.Unix(0, since)) >= d
}

// output describes the stream once the pump is done.
func (p *pump) output() Output {
	if p.buf == nil {
		return Output{OriginalBytes: p.total}
	}
	return p.buf.output()
}
