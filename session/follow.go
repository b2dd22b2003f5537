package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/fsnotify/fsnotify"
)

// Follow's waits: without file notifications it polls at FallbackPoll; with
// them it still looks every SafetyPoll in case a notification was missed.
const (
	FallbackPoll = 50 * time.Millisecond
	SafetyPoll   = time.Second
)

// ErrRemoved is returned by Follow when the followed file is deleted.
var ErrRemoved = errors.New("the followed file was removed")

// ErrTruncated is passed to Follow's callback when the file shrank; reading
// starts again from its beginning.
var ErrTruncated = errors.New("the followed file was truncated; reading it again from the start")

// FollowItem is one thing a follower saw: an event, or a non-fatal problem
// (a malformed line as *transcript.LineError, ErrTruncated).
type FollowItem struct {
	Event  *transcript.Event
	Err    error
	Offset int64 // file offset just past this line
}

// FollowOptions tunes Follow.
type FollowOptions struct {
	// From is the offset to start at; lines before it are not read.
	From int64
	// NoNotify polls instead of using file notifications.
	NoNotify bool
	// Decoder, when set, turns lines of a foreign transcript into events
	// (Claude Code, Codex); by default lines are cuff events.
	Decoder LineDecoder
	// Detect tells the format from the first line when there is no
	// Decoder yet: for a file that is empty or does not exist when the
	// follow starts. FallbackUUID names a foreign session then.
	Detect       bool
	FallbackUUID string
	// Seen is the file as the caller found it when it read up to From.
	// With it, a path that is gone by the time following starts was
	// removed (not "not created yet"), and a path that names another file
	// was replaced and is read from its start.
	Seen os.FileInfo
	// AfterSeq is the seq of the last event the caller already has: when
	// the file is replaced and read again, events up to it are not passed
	// on twice.
	AfterSeq int64
	// Runs are the runs the caller read the start of, before From, and not
	// the end: should their recorder die, the follower ends them too.
	Runs *OpenRuns
}

// LineDecoder decodes a foreign transcript line by line as it grows. Flush
// passes on events held back for lines that may continue (an assistant
// message still streaming); the follower calls it when the file is quiet.
type LineDecoder interface {
	Line(line []byte, out stream.Emit) error
	Flush(out stream.Emit) error
}

// Waker is a LineDecoder that asks to be flushed again at a time of its own
// though its file stays quiet: Claude Code's decoder, while a sub-agent
// writes a file of its own (see claude.Decoder.Wake).
type Waker interface {
	Wake() (at time.Time, ok bool)
}

// Holder is a LineDecoder that may hold events back for a while after
// reading them (Claude Code's decoder while a sub-agent works): a follower
// that joins it with another record waits for it before writing what comes
// last.
type Holder interface {
	Holding() bool
}

// holding reports whether the decoder dec holds events back.
func holding(dec LineDecoder) bool {
	h, ok := dec.(Holder)
	return ok && h.Holding()
}

// wakeAt is when the decoder dec asks to be flushed again, if it does.
func wakeAt(dec LineDecoder) (time.Time, bool) {
	if w, ok := dec.(Waker); ok {
		return w.Wake()
	}
	return time.Time{}, false
}

// Follow calls fn with every event in the JSONL file at path from
// opts.From on, then with each event appended later, until ctx is done
// (returning nil) or the file is removed (ErrRemoved). A file that does not
// exist yet is waited for. An incomplete last line is a line still being
// written: it is held back until its newline arrives, never reported as
// malformed, and bytes already read are never read again.
func Follow(ctx context.Context, path string, opts FollowOptions, fn func(FollowItem)) error {
	wake, stop := watch(path, opts.NoNotify)
	defer stop()
	f := &follower{path: path, offset: opts.From, fn: fn, decoder: opts.Decoder,
		detect: opts.Detect && opts.Decoder == nil, uuid: opts.FallbackUUID,
		info: opts.Seen, seen: opts.Seen != nil, lastSeq: opts.AfterSeq}
	if opts.Runs != nil {
		f.open = *opts.Runs
	}
	defer f.close()
	timer := time.NewTimer(SafetyPoll)
	defer timer.Stop()
	for {
		if err := f.step(); err != nil {
			return err
		}
		var again <-chan time.Time
		if at, ok := wakeAt(f.decoder); ok {
			timer.Reset(max(time.Until(at), minWait))
			again = timer.C
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-again:
		}
	}
}

type follower struct {
	path   string
	file   *os.File
	info   os.FileInfo
	offset int64 // offset of the first byte not yet read
	// An unfinished last line is not held: only where it starts, and (up
	// to its first non-blank byte) whether it can be an event at all. Its
	// bytes are read back once its newline arrives; a line that cannot be
	// an event (a crash's NUL bytes) never is, whatever its size.
	pending   bool
	pendStart int64
	pendHead  []byte // its first bytes, at most lineHead of them
	buf       []byte
	line      int
	decoder   LineDecoder
	detect    bool   // choose the decoder from the first line
	uuid      string // the fallback uuid of a foreign session
	lineEnd   int64  // end offset of the line being decoded
	// lastSeq is the seq of the last event passed on: after the file is
	// replaced (a prune rewrites it and renames it into place) and read
	// again from its start, events already passed on are not passed twice.
	lastSeq int64
	fn      func(FollowItem)
	seen    bool // the file existed at some point
	// open are the runs that started and have not ended: one whose
	// recorder dies is ended for the caller (DiedRun), once.
	open  OpenRuns
	ended bool // a session_end was read
}

func (f *follower) close() {
	if f.file != nil {
		f.file.Close()
	}
}

// step reads whatever is new.
func (f *follower) step() error {
	gone := func() error {
		if f.seen {
			return ErrRemoved
		}
		return nil // not created yet
	}
	fi, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return gone()
	}
	if err != nil {
		return fmt.Errorf("follow %s: %w", f.path, err)
	}
	if f.info != nil && !os.SameFile(fi, f.info) { // replaced by another file
		f.close()
		f.file, f.offset, f.line = nil, 0, 0
		f.dropPending()
	}
	if f.file == nil {
		file, err := transcript.Open(f.path)
		if errors.Is(err, fs.ErrNotExist) { // removed between the stat and the open
			return gone()
		}
		if err != nil {
			return err // it names the file: not there, not a regular file, ...
		}
		f.file, f.info, f.seen = file, fi, true
	}
	if f.pending && fi.Size() < f.offset && fi.Size() >= f.pendStart {
		// Only the unfinished line shrank: an append cut short (a full
		// disk) was taken back. It is read again from where it started.
		f.offset = f.pendStart
		f.dropPending()
	}
	if fi.Size() < f.offset {
		f.fn(FollowItem{Err: ErrTruncated})
		f.offset, f.line, f.lastSeq = 0, 0, 0 // a new beginning: pass everything on again
		f.open, f.ended = OpenRuns{}, false
		f.dropPending()
	}
	if err := f.drain(); err != nil {
		return err
	}
	if len(f.open.starts) > 0 {
		for _, ev := range f.open.died(f.ended) {
			f.fn(FollowItem{Event: ev, Offset: f.offset})
		}
	}
	if f.decoder != nil {
		return f.decoder.Flush(f.emit)
	}
	return nil
}

// emit passes a decoded foreign event on.
func (f *follower) emit(ev *transcript.Event) error {
	f.deliver(ev, f.lineEnd)
	return nil
}

// deliver passes an event on unless it was passed on already.
func (f *follower) deliver(ev *transcript.Event, offset int64) {
	if ev.Seq > 0 {
		if ev.Seq <= f.lastSeq {
			return
		}
		f.lastSeq = ev.Seq
	}
	f.open.Note(ev)
	if ev.Type == transcript.TypeSessionEnd {
		f.ended = true
	}
	f.fn(FollowItem{Event: ev, Offset: offset})
}

// followChunk is how much a follower reads at a time.
const followChunk = 256 << 10

// drain reads from the current offset to the end of the file.
func (f *follower) drain() error {
	if f.buf == nil {
		f.buf = make([]byte, followChunk)
	}
	for {
		n, err := f.file.ReadAt(f.buf, f.offset)
		if n > 0 {
			f.offset += int64(n)
			f.consume(f.buf[:n])
		}
		if errors.Is(err, io.EOF) || n == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("follow %s: %w", f.path, err)
		}
	}
}

// lineHead is how much of an unfinished line is kept to tell whether it
// can be an event.
const lineHead = 64

func (f *follower) dropPending() { f.pending, f.pendStart, f.pendHead = false, 0, f.pendHead[:0] }

// consume splits new bytes, which end at f.offset, into lines, holding back
// an unfinished one.
func (f *follower) consume(data []byte) {
	base := f.offset - int64(len(data)) // offset of data[0]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			f.hold(base, data)
			return
		}
		line := data[:i]
		if f.pending {
			line = f.finishPending(base + int64(i))
		}
		data = data[i+1:]
		base += int64(i) + 1
		f.line++
		f.handle(bytes.TrimSpace(line), base)
	}
}

// hold notes the start of an unfinished line (data, from offset base, has
// no newline).
func (f *follower) hold(base int64, data []byte) {
	if !f.pending {
		f.pending, f.pendStart = true, base
	}
	if n := lineHead - len(f.pendHead); n > 0 {
		f.pendHead = append(f.pendHead, data[:min(n, len(data))]...)
	}
}

// finishPending returns the unfinished line, now ended by the newline at
// offset nl: read back from the file when it can be an event, else its head.
func (f *follower) finishPending(nl int64) []byte {
	head := f.pendHead
	start := f.pendStart
	f.pending, f.pendHead = false, f.pendHead[:0]
	if c := bytes.TrimLeft(head, " \t\r\v\f"); len(c) > 0 && c[0] != '{' {
		return head // not an event, whatever follows: reported from its head
	}
	line := make([]byte, nl-start)
	if _, err := f.file.ReadAt(line, start); err != nil && !errors.Is(err, io.EOF) {
		return head
	}
	return line
}

// handle passes on the event of one complete, trimmed line that ends just
// before offset lineEnd.
func (f *follower) handle(line []byte, lineEnd int64) {
	if len(line) == 0 {
		return
	}
	if f.detect {
		f.detect = false
		f.decoder = fileDecoderFor(foreign.Detect(line), f.uuid, f.path)
	}
	if f.decoder != nil {
		f.lineEnd = lineEnd
		_ = f.decoder.Line(line, f.emit) // emit never fails; bad lines are counted by the decoder
		return
	}
	ev, err := transcript.Decode(line)
	if err != nil {
		f.fn(FollowItem{Err: &transcript.LineError{Line: f.line, Err: err}, Offset: lineEnd})
		return
	}
	f.deliver(ev, lineEnd)
}

// watch returns a channel that signals when path may have changed, and a
// function that stops watching.
func watch(path string, noNotify bool) (<-chan struct{}, func()) {
	wake := make(chan struct{}, 1)
	signal := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	done := make(chan struct{})
	var w *fsnotify.Watcher
	poll := FallbackPoll
	if !noNotify {
		if nw, err := fsnotify.NewWatcher(); err == nil {
			if err := nw.Add(filepath.Dir(path)); err == nil {
				w, poll = nw, SafetyPoll
			} else {
				nw.Close()
			}
		}
	}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		ticker := time.NewTicker(poll)
		defer ticker.Stop()
		var events <-chan fsnotify.Event
		var errs <-chan error
		if w != nil {
			events, errs = w.Events, w.Errors
		}
		for {
			select {
			case <-done:
				return
			case <-ticker.C:
				signal()
			case ev, ok := <-events:
				if !ok {
					events = nil
					continue
				}
				if filepath.Clean(ev.Name) == filepath.Clean(path) {
					signal()
				}
			case _, ok := <-errs:
				if !ok {
					errs = nil
				}
				signal()
			}
		}
	}()
	return wake, func() {
		close(done)
		if w != nil {
			w.Close()
		}
		<-finished
	}
}
