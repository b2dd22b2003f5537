package feed

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// OlderBytes is about how much of a foreign transcript one step back in
// its history reads (see LoadOlder).
const OlderBytes = 4 << 20

// tailSeq numbers the events of a foreign transcript's tail and what is
// followed after it; older parts, read later, are numbered below it, so
// that seq order stays display order.
const tailSeq = 1 << 40

// foreignTail is what a feed keeps of a foreign transcript shown tail
// first: the file, the format, and where the part loaded so far starts.
type foreignTail struct {
	file   *os.File
	format foreign.Format
	from   int64 // where the loaded part starts; 0 once everything is loaded
	lowSeq int64 // the lowest seq handed out so far
	busy   bool  // a step back is being read
}

// runForeign shows a Claude Code or Codex transcript tail first: the last
// lines are decoded and handed out at once, then the file is followed from
// where they end. Older history is read on demand, a part at a time
// (LoadOlder), so that opening a transcript of hundreds of megabytes costs
// what its last screens cost. A small file is decoded whole, then followed.
func (f *Feed) runForeign(file *os.File, fi os.FileInfo, format foreign.Format, path string) error {
	dec := session.NewTranscriptDecoder(format, path, stream.ClipOptions{})
	var start, end int64
	var lines [][]byte
	if fi.Size() <= DirectBytes {
		data := make([]byte, fi.Size())
		n, err := file.ReadAt(data, 0)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s: %w", path, err)
		}
		data = data[:n]
		end = int64(bytes.LastIndexByte(data, '\n') + 1)
		lines = bytes.SplitAfter(data[:end], []byte{'\n'})
	} else {
		var err error
		if start, end, lines, err = readTail(file, fi.Size()); err != nil {
			return err
		}
		if format == foreign.FormatClaude {
			// Start the tail at a turn, when one starts in its first half,
			// so that older parts join it without splitting a message.
			for i, l := range lines[:len(lines)/2] {
				if isPrompt(bytes.TrimSpace(l)) {
					start += int64(totalLen(lines[:i]))
					lines = lines[i:]
					break
				}
			}
		}
	}
	shifted := &seqShift{d: dec, base: tailSeq}
	var events []*transcript.Event
	collect := func(ev *transcript.Event) error {
		if start > 0 && ev.Type == transcript.TypeSessionStart {
			return nil // made up from the tail alone: the real one comes with the head
		}
		events = append(events, f.lean(ev))
		return nil
	}
	for _, l := range lines {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			_ = shifted.Line(l, collect) // collect never fails; bad lines are counted by the decoder
		}
	}
	_ = shifted.Flush(collect)
	lastSeq := int64(tailSeq)
	if n := len(events); n > 0 {
		lastSeq = events[n-1].Seq
	}
	f.mu.Lock()
	if start > 0 {
		f.pending.Partial, f.pending.OnDemand = true, true
		f.older = &foreignTail{file: file, format: format, from: start, lowSeq: tailSeq}
	}
	f.mu.Unlock()
	f.push(events)
	if start > 0 {
		f.signal() // older parts are on demand even when the tail holds nothing
	}
	return session.Follow(f.ctx, path, session.FollowOptions{From: end, Seen: fi, AfterSeq: lastSeq, Decoder: shifted}, f.followItem)
}

// seqShift renumbers what a decoder emits, base higher.
type seqShift struct {
	d    session.TranscriptDecoder
	base int64
}

func (s *seqShift) Line(line []byte, out stream.Emit) error { return s.d.Line(line, s.shift(out)) }

func (s *seqShift) Flush(out stream.Emit) error { return s.d.Flush(s.shift(out)) }

// Wake passes on when the decoder asks to be flushed again (session.Waker).
func (s *seqShift) Wake() (time.Time, bool) {
	if w, ok := s.d.(session.Waker); ok {
		return w.Wake()
	}
	return time.Time{}, false
}

func (s *seqShift) shift(out stream.Emit) stream.Emit {
	return func(ev *transcript.Event) error {
		ev.Seq += s.base
		return out(ev)
	}
}

// LoadOlder is a command that reads the part of a foreign transcript just
// before what is loaded (about OlderBytes, whole lines) and hands it out
// as Batch.Older. It does nothing while another step back is being read,
// once everything is loaded, or for a feed that loaded everything at once.
func (f *Feed) LoadOlder() tea.Msg {
	f.mu.Lock()
	t := f.older
	if t == nil || t.busy || t.from == 0 {
		f.mu.Unlock()
		return nil
	}
	t.busy = true
	to := t.from
	f.mu.Unlock()
	tl, from, err := f.readOlder(t, to)
	f.mu.Lock()
	defer f.signal()
	defer f.mu.Unlock()
	t.busy = false
	if err != nil {
		if f.ctx.Err() == nil {
			f.pending.Notices = append(f.pending.Notices, "Could not read the older part of the session: "+err.Error())
		}
		return nil
	}
	t.from = from
	f.pending.Older = tl
	f.pending.Partial = from > 0
	return nil
}

// readOlder decodes the turns that end at to and start about OlderBytes
// before it (further back when a turn is longer), into a timeline
// numbered below what was loaded before.
func (f *Feed) readOlder(t *foreignTail, to int64) (*timeline.Timeline, int64, error) {
	read := func(from int64) ([]byte, error) {
		data := make([]byte, to-from)
		if _, err := t.file.ReadAt(data, from); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s: %w", t.file.Name(), err)
		}
		return data, nil
	}
	// Start at a turn: the first one after about OlderBytes back, or
	// further back when the turn before is longer.
	from, data := int64(0), []byte(nil)
	for back := f.olderBytes; ; back *= 2 {
		from = max(0, to-back)
		var err error
		if data, err = read(from); err != nil {
			return nil, 0, err
		}
		if from == 0 {
			break
		}
		if i := turnStart(data, t.format, back >= maxTurnSearch); i >= 0 {
			data, from = data[i:], from+int64(i)
			break
		}
	}
	dec := session.NewTranscriptDecoder(t.format, t.file.Name(), stream.ClipOptions{})
	var events []*transcript.Event
	collect := func(ev *transcript.Event) error {
		if f.ctx.Err() != nil {
			return f.ctx.Err()
		}
		if from > 0 && ev.Type == transcript.TypeSessionStart {
			return nil
		}
		events = append(events, ev)
		return nil
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data)
		}
		if l := bytes.TrimSpace(data[:i]); len(l) > 0 {
			if err := dec.Line(l, collect); err != nil {
				return nil, 0, err
			}
		}
		data = data[min(i+1, len(data)):]
	}
	// A part of the file: a delegation still open at its end ends in the
	// part loaded after it, which reads its sub-agent's own file.
	closePart := dec.Close
	if p, ok := dec.(interface{ ClosePart(stream.Emit) error }); ok {
		closePart = p.ClosePart
	}
	if err := closePart(collect); err != nil {
		return nil, 0, err
	}
	tl := timeline.New()
	base := t.lowSeq - int64(len(events))
	for i, ev := range events {
		ev.Seq = base + int64(i)
		tl.Add(f.lean(ev))
	}
	t.lowSeq = base
	return tl, from, nil
}

// maxTurnSearch is how far back a step looks for the start of a turn; past
// it, a step starts at any line.
const maxTurnSearch = 64 << 20

// turnStart is where the first line that starts a turn begins in data
// (whose first line may be cut), or -1: a person's prompt in a Claude Code
// transcript, any line of a Codex rollout (whose calls are one line each
// and pair across parts), or with any set, any whole line. Parts cut there
// split no message and no call but the rare one still open across a
// prompt.
func turnStart(data []byte, format foreign.Format, any bool) int {
	for off := 0; ; {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			return -1
		}
		off += nl + 1
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			return -1 // the last line is the one the next part starts with
		}
		if any || format != foreign.FormatClaude || isPrompt(data[off:off+end]) {
			return off
		}
	}
}

// isPrompt reports whether a Claude Code record is a person's prompt: a
// user record of the main agent whose content is text, not a tool result.
func isPrompt(line []byte) bool {
	if !bytes.Contains(line, []byte(`"user"`)) {
		return false
	}
	var rec struct {
		Type        string `json:"type"`
		IsSidechain bool   `json:"isSidechain"`
		IsMeta      bool   `json:"isMeta"`
		Message     struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &rec) != nil || rec.Type != "user" || rec.IsSidechain || rec.IsMeta {
		return false
	}
	c := bytes.TrimSpace(rec.Message.Content)
	return len(c) > 0 && (c[0] == '"' || !bytes.Contains(c, []byte(`"tool_result"`)))
}

func totalLen(lines [][]byte) int {
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	return n
}
