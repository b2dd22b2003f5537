package export

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/cuff-dev/cuff/transcript"
)

// FileReader returns a ReadFunc that reads the session file path(id) and
// decodes its lines on every core (DecodeParallel). Decoding is most of the
// cost of an export, so this is the fast way to feed a Sink.
func FileReader(path func(id string) string) ReadFunc {
	return func(id string, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
		f, err := transcript.Open(path(id))
		if err != nil {
			return transcript.ReadStats{}, &UnreadableError{Err: err}
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return transcript.ReadStats{}, err
		}
		return DecodeParallel(io.NewSectionReader(f, 0, fi.Size()), fn)
	}
}

// decoded is one chunk's events and what was left out of it.
type decoded struct {
	events    []*transcript.Event
	lines     int
	malformed int
	unknown   int
}

// DecodeParallel streams the events of JSONL read from r to fn in order,
// as transcript.Reader does — malformed lines are skipped and counted, an
// incomplete final line is left out — but decodes chunks of lines on every
// core. At most a few chunks are in memory at a time. An error from fn
// stops the reading and is returned.
func DecodeParallel(r io.Reader, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
	return decodeParallel(r, chunkSize, fn)
}

// decodeParallel is DecodeParallel with chunks of about size bytes.
func decodeParallel(r io.Reader, size int, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
	workers := runtime.GOMAXPROCS(0)
	type job struct {
		chunk []byte
		done  chan decoded
	}
	stop := make(chan struct{})
	jobs := make(chan job)
	order := make(chan chan decoded, workers)
	type readEnd struct {
		err       error
		truncated int
		skipped   int // lines too long for a chunk that were no events
	}
	readDone := make(chan readEnd, 1)
	go func() { // cut the stream into chunks of whole lines
		defer close(order)
		defer close(jobs)
		cr := newChunkReader(r, size)
		for {
			chunk, tail, err := cr.next()
			if len(chunk) > 0 {
				j := job{chunk: chunk, done: make(chan decoded, 1)}
				select {
				case jobs <- j:
				case <-stop:
					readDone <- readEnd{}
					return
				}
				select {
				case order <- j.done:
				case <-stop:
					readDone <- readEnd{}
					return
				}
			}
			if err != nil {
				end := readEnd{err: err, skipped: cr.skipped}
				if errors.Is(err, io.EOF) {
					end.err = nil
					if len(tail) > 0 || cr.tornSkipped {
						end.truncated = 1
					}
				}
				readDone <- end
				return
			}
		}
	}()
	for i := 0; i < workers; i++ {
		go func() {
			for j := range jobs {
				j.done <- decodeChunk(j.chunk)
			}
		}()
	}
	var st transcript.ReadStats
	var fnErr error
	for done := range order {
		d := <-done
		st.Lines += d.lines
		st.Malformed += d.malformed
		st.Unknown += d.unknown
		for _, ev := range d.events {
			if fnErr = fn(ev); fnErr != nil {
				break
			}
		}
		if fnErr != nil {
			close(stop)
			for done := range order { // let the workers finish and exit
				<-done
			}
			break
		}
	}
	end := <-readDone
	st.Truncated = end.truncated
	st.Lines += end.skipped
	st.Malformed += end.skipped
	if fnErr != nil {
		return st, fnErr
	}
	if end.err != nil {
		return st, fmt.Errorf("read: %w", end.err)
	}
	return st, nil
}

func decodeChunk(chunk []byte) decoded {
	var d decoded
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		line := bytes.TrimSpace(chunk[:i])
		chunk = chunk[i+1:]
		d.lines++
		if len(line) == 0 {
			continue
		}
		ev, err := transcript.Decode(line)
		if err != nil {
			d.malformed++
			continue
		}
		if ev.Body == nil {
			d.unknown++
		}
		d.events = append(d.events, ev)
	}
	return d
}
