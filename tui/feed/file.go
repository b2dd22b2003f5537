package feed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
	"unicode"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// Tail-first loading: files up to DirectBytes are read whole at once;
// bigger ones show their last TailLines lines first.
const (
	DirectBytes   = 2 << 20
	TailLines     = 300
	tailFirstRead = 256 << 10
	tailMaxRead   = 64 << 20
	// firstFrameGrace is how long indexing waits after the tail was handed
	// out, for the first screen to be drawn.
	firstFrameGrace = 30 * time.Millisecond
)

// runFile loads a JSONL file tail first, then follows it.
func (f *Feed) runFile(path string) error {
	file, err := transcript.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		// Not there yet: Follow waits for it to appear.
		if f.target.Source != nil {
			return f.target.Source.Follow(f.ctx, f.target.ID, f.followItem)
		}
		return session.Follow(f.ctx, path, session.FollowOptions{}, f.followItem)
	}
	if err != nil {
		return err // it names the file and what is wrong with it
	}
	kept := false // the full index reads outputs back from the file
	defer func() {
		if !kept {
			file.Close()
		}
	}()
	fi, err := file.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if fi.IsDir() {
		return fmt.Errorf("%s is a directory, not a session file", path)
	}
	switch format := formatOf(file); {
	case format == foreign.FormatClaude || format == foreign.FormatCodex:
		kept = true // LoadOlder reads the older parts from it
		context.AfterFunc(f.ctx, func() { file.Close() })
		return f.runForeign(file, fi, format, path)
	case format == foreign.FormatUnknown && f.target.Source != nil:
		// Empty so far (or not a transcript): the source's follower tells
		// the format from the first line that comes.
		return f.target.Source.Follow(f.ctx, f.target.ID, f.followItem)
	}
	if fi.Size() <= DirectBytes {
		// Small: read it whole in one go (one batch, one layout), then follow.
		data := make([]byte, fi.Size())
		n, err := file.ReadAt(data, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s: %w", path, err)
		}
		data = data[:n]
		end := bytes.LastIndexByte(data, '\n') + 1
		last := f.pushLines(bytes.SplitAfter(data[:end], []byte{'\n'}), true)
		return session.Follow(f.ctx, path, session.FollowOptions{From: int64(end), Seen: fi, AfterSeq: last, Runs: &f.runs}, f.followItem)
	}
	start, end, tail, err := readTail(file, fi.Size())
	if err != nil {
		return err
	}
	if start == 0 {
		last := f.pushLines(tail, true)
		return session.Follow(f.ctx, path, session.FollowOptions{From: end, Seen: fi, AfterSeq: last, Runs: &f.runs}, f.followItem)
	}
	f.mu.Lock()
	f.pending.Partial = true
	f.mu.Unlock()
	last := f.pushLines(tail, false)
	// The first screen is handed out even when the tail holds nothing (a
	// last line longer than tailMaxRead): the index waits for it.
	f.signal()
	// The full index leaves big outputs in the file and reads them back
	// when they are shown or searched: the file stays open until the feed
	// stops, even after it is removed or replaced by a rename (a prune).
	kept = true
	context.AfterFunc(f.ctx, func() { file.Close() })
	f.lineFile, f.nextLine = file, end
	indexed := make(chan error, 1)
	go func() { indexed <- f.indexHead(file, start) }()
	err = session.Follow(f.ctx, path, session.FollowOptions{From: end, Seen: fi, AfterSeq: last, Runs: &f.runs}, f.followItem)
	if ierr := <-indexed; ierr != nil && err == nil && f.ctx.Err() == nil {
		err = ierr
	}
	return err
}

// formatOf tells the format of a transcript from its first line.
func formatOf(file *os.File) foreign.Format {
	head := make([]byte, foreign.HeadSize)
	n, _ := file.ReadAt(head, 0)
	return foreign.Detect(head[:n])
}

// readTail reads the last lines of a file: at least TailLines of them, or
// the whole file, or tailMaxRead bytes, whichever comes first. It returns
// where the first whole line starts, where the last whole line ends, and
// the lines between.
func readTail(file *os.File, size int64) (start, end int64, lines [][]byte, err error) {
	for chunk := int64(tailFirstRead); ; chunk *= 4 {
		from := max(0, size-chunk)
		buf := make([]byte, size-from)
		if _, err := file.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
			return 0, 0, nil, fmt.Errorf("read %s: %w", file.Name(), err)
		}
		last := bytes.LastIndexByte(buf, '\n')
		if last < 0 {
			if from == 0 {
				return 0, 0, nil, nil // one unfinished line: follow from the start
			}
			if chunk >= tailMaxRead {
				// The file ends in a line longer than tailMaxRead, still being
				// written: show no tail, index what comes before it, and follow
				// from its start.
				nl, err := lastNewline(file, from)
				if err != nil {
					return 0, 0, nil, err
				}
				return nl, nl, nil, nil
			}
			continue
		}
		body := buf[:last+1]
		first := 0
		if from > 0 {
			i := bytes.IndexByte(body, '\n')
			if i == len(body)-1 && chunk < tailMaxRead {
				continue // not even one whole line yet
			}
			first = i + 1
		}
		body = body[first:]
		n := bytes.Count(body, []byte{'\n'})
		if n >= TailLines || from == 0 || chunk >= tailMaxRead {
			lines := bytes.SplitAfter(body, []byte{'\n'})
			if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
				lines = lines[:len(lines)-1]
			}
			return from + int64(first), from + int64(last) + 1, lines, nil
		}
	}
}

// lastNewline is the offset just past the last newline before offset
// before, 0 when there is none; it reads backwards a piece at a time.
func lastNewline(file *os.File, before int64) (int64, error) {
	buf := make([]byte, tailFirstRead)
	for end := before; end > 0; {
		from := max(0, end-int64(len(buf)))
		piece := buf[:end-from]
		if _, err := file.ReadAt(piece, from); err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("read %s: %w", file.Name(), err)
		}
		if i := bytes.LastIndexByte(piece, '\n'); i >= 0 {
			return from + int64(i) + 1, nil
		}
		end = from
	}
	return 0, nil
}

// pushLines decodes lines and pushes their events. whole tells whether the
// lines start at the top of the file, so that line numbers are known. It
// returns the highest seq pushed.
func (f *Feed) pushLines(lines [][]byte, whole bool) (lastSeq int64) {
	var events []*transcript.Event
	var notices []string
	for i, l := range lines {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		ev, err := transcript.Decode(l)
		if err != nil {
			n := 0
			if whole {
				n = i + 1
			}
			notices = append(notices, malformed(n, err))
			continue
		}
		lastSeq = max(lastSeq, ev.Seq)
		f.runs.Note(ev)
		events = append(events, f.lean(ev))
	}
	f.push(events, notices...)
	return lastSeq
}

// indexHead builds the timeline of the file's first head bytes, the part
// the tail left out, and hands it over with what was delivered since. The
// timeline leaves big outputs in the file, to read them back from it.
func (f *Feed) indexHead(file *os.File, head int64) error {
	select { // the first screen first
	case <-f.shown:
		time.Sleep(firstFrameGrace)
	case <-f.ctx.Done():
		return nil
	}
	tl := timeline.New()
	tl.Spill(file)
	lines := transcript.NewLineReaderAt(file, 0, head)
	bad := 0
	for {
		if f.ctx.Err() != nil {
			return nil
		}
		start := lines.Offset()
		line, complete, err := lines.Next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) {
			break // the head ends where the tail's first line starts
		}
		if err != nil {
			return fmt.Errorf("index %s: %w", file.Name(), err)
		}
		trimmed := bytes.TrimLeftFunc(line, unicode.IsSpace)
		start += int64(len(line) - len(trimmed))
		trimmed = bytes.TrimRightFunc(trimmed, unicode.IsSpace)
		if len(trimmed) == 0 {
			continue
		}
		ev, err := transcript.Decode(trimmed)
		if err != nil {
			bad++
			if bad <= maxNotices {
				tl.Notice(malformed(lines.Line(), err))
			}
			continue
		}
		tl.AddLine(f.lean(ev), trimmed, start)
	}
	f.finishFull(tl)
	return nil
}
