// Package feed brings a session's events to the TUI: for a JSONL file it
// reads the tail first (so the first screen comes at once), indexes the
// rest in the background and then follows the file from where it stopped;
// any other source is followed through its Source. Everything arrives as
// batches through a command that blocks on the feed and is re-armed after
// each batch. The background index of a big file leaves the big outputs
// in the file, which stays open until the feed stops, and the timeline
// reads them back when they are shown or searched.
package feed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// maxNotices bounds the malformed-line notices of one session; past it
// they are only counted.
const maxNotices = 20

// Target is what to show: a session of a source, or a JSONL file.
type Target struct {
	// Source and ID name a session. When Path is set too (the native
	// store's sessions), the file is read directly, tail first.
	Source session.Source
	ID     string
	// Path is a JSONL file: a cuff session, a Claude Code transcript or a
	// Codex rollout, told from its content, read tail first.
	Path string
}

// Batch is what arrived since the last one, to be applied in this order:
// Full replaces the timeline, then Events and Notices are appended.
type Batch struct {
	// Full is the whole session, indexed in the background after its tail
	// was shown; it already holds every event delivered before it.
	Full *timeline.Timeline
	// Partial reports that only the tail is loaded so far.
	Partial bool
	// OnDemand reports that the part before the tail is loaded only when
	// asked (LoadOlder), a step at a time: for a foreign transcript.
	OnDemand bool
	// Older is the part of the session just before what was loaded, to
	// put before it (timeline.Prepend); Partial tells whether there is
	// more before it still.
	Older   *timeline.Timeline
	Events  []*transcript.Event
	Notices []string
	// Removed reports that the followed file was deleted.
	Removed bool
	// Err is a failure that ended the feed.
	Err error
	// Closed reports that the feed has ended: no more batches.
	Closed bool
}

// Msg delivers a batch for the opening Gen.
type Msg struct {
	Gen int
	Batch
}

// Feed is one session being loaded and followed.
type Feed struct {
	gen    int
	target Target
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	pending   Batch
	delivered []*transcript.Event // followed events handed out before Full
	fullDone  bool
	notices   int
	notify    chan struct{}
	strs      interner
	// shown is closed once the tail has been handed out, so that indexing
	// the rest does not compete with drawing the first screen.
	shown     chan struct{}
	shownOnce sync.Once
	// spiller leaves the outputs of followed events in the file once the
	// full index, which reads them back, is handed out.
	spiller *timeline.Spiller

	// Where the follower's lines are, for spiller: the file the full index
	// reads (nil without one), where the next line starts, and a buffer
	// to read a line back. Only the follower's callback uses them.
	lineFile *os.File
	nextLine int64
	lineBuf  []byte
	// runs are the runs whose start the tail showed and not their end: the
	// follower ends them should their recorder die.
	runs session.OpenRuns

	// older is a foreign transcript shown tail first, read back from on
	// demand; nil otherwise. Guarded by mu. olderBytes is about how much
	// one step back reads.
	older      *foreignTail
	olderBytes int64
}

// New prepares a feed; nothing is read until Run runs.
func New(parent context.Context, gen int, t Target) *Feed {
	ctx, cancel := context.WithCancel(parent)
	return &Feed{gen: gen, target: t, ctx: ctx, cancel: cancel, notify: make(chan struct{}, 1), shown: make(chan struct{}), olderBytes: OlderBytes}
}

// Gen is the opening the feed belongs to.
func (f *Feed) Gen() int { return f.gen }

// Stop ends the feed; its goroutines return soon after.
func (f *Feed) Stop() { f.cancel() }

// Run is a command that loads and then follows the target until the feed
// is stopped. It reports through Wait, and returns nothing itself.
func (f *Feed) Run() tea.Msg {
	var err error
	switch {
	case f.target.Path != "":
		err = f.runFile(f.target.Path)
	case f.target.Source != nil:
		err = f.target.Source.Follow(f.ctx, f.target.ID, f.followItem)
	default:
		err = errors.New("nothing to show: no session and no file")
	}
	f.mu.Lock()
	switch {
	case errors.Is(err, session.ErrRemoved):
		f.pending.Removed = true
	case err != nil && f.ctx.Err() == nil:
		f.pending.Err = err
	}
	f.pending.Closed = true
	f.mu.Unlock()
	f.signal()
	return nil
}

// Wait is a command that blocks until something arrived and returns it as
// a Msg; after a Msg, issue Wait again. It returns nil once the feed is
// stopped.
func (f *Feed) Wait() tea.Msg {
	select {
	case <-f.notify:
	case <-f.ctx.Done():
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	b := f.pending
	f.pending = Batch{}
	if !f.fullDone {
		f.delivered = append(f.delivered, b.Events...)
	}
	if b.Partial {
		f.shownOnce.Do(func() { close(f.shown) })
	}
	return Msg{Gen: f.gen, Batch: b}
}

func (f *Feed) signal() {
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// push adds events and notices to the pending batch.
func (f *Feed) push(events []*transcript.Event, notices ...string) {
	if len(events) == 0 && len(notices) == 0 {
		return
	}
	f.mu.Lock()
	f.pending.Events = append(f.pending.Events, events...)
	for _, n := range notices {
		f.notices++
		if f.notices <= maxNotices {
			f.pending.Notices = append(f.pending.Notices, n)
		} else if f.notices == maxNotices+1 {
			f.pending.Notices = append(f.pending.Notices, "More malformed lines follow; they are skipped without notice.")
		}
	}
	f.mu.Unlock()
	f.signal()
}

// followItem receives what a follower saw.
func (f *Feed) followItem(it session.FollowItem) {
	start := f.nextLine
	if f.lineFile != nil && (it.Offset > 0 || errors.Is(it.Err, session.ErrTruncated)) {
		f.nextLine = it.Offset
	}
	switch {
	case it.Event != nil:
		f.leaveInFile(it.Event, start, it.Offset)
		f.push([]*transcript.Event{f.lean(it.Event)})
	case errors.Is(it.Err, session.ErrTruncated):
		f.push(nil, "The file was truncated; what follows is read from its start again.")
	case it.Err != nil:
		f.push(nil, "Skipped a malformed line: "+it.Err.Error())
	}
}

// maxLineBuf is the longest line whose buffer is kept for the next one.
const maxLineBuf = 1 << 20

// leaveInFile leaves the big outputs of an event the follower read between
// start and end in the file, as the full index does, once the view has that
// index: the line is read back from the file the index reads, and used only
// when it is the line the event was decoded from (after a replace or a
// truncation it may not be, and the event is kept whole).
func (f *Feed) leaveInFile(ev *transcript.Event, start, end int64) {
	f.mu.Lock()
	sp := f.spiller
	f.mu.Unlock()
	if sp == nil || f.lineFile == nil || end <= start || len(ev.Raw) == 0 || !sp.Wants(ev.Body) {
		return
	}
	n := int(end - start)
	buf := f.lineBuf
	if cap(buf) < n {
		buf = make([]byte, n)
		if n <= maxLineBuf {
			f.lineBuf = buf
		}
	}
	buf = buf[:n]
	if _, err := f.lineFile.ReadAt(buf, start); err != nil {
		return // closed, or shorter than it was: keep the event whole
	}
	line := bytes.TrimLeftFunc(buf, unicode.IsSpace)
	off := start + int64(n-len(line))
	line = bytes.TrimRightFunc(line, unicode.IsSpace)
	if bytes.Equal(line, ev.Raw) {
		sp.Leave(ev, line, off)
	}
}

// lean trims an event for keeping: it drops the raw bytes when the kind is
// known (the timeline renders from the decoded body; unknown kinds keep
// theirs, to be shown raw), drops the id (derived from session and seq)
// and shares the strings that repeat from event to event (ids, roles,
// models, tool names, folders, short commands). A big session then takes
// little more memory than its text.
func (f *Feed) lean(ev *transcript.Event) *transcript.Event {
	if ev.Body != nil {
		ev.Raw = nil
	}
	ev.ID = ""
	in := &f.strs
	in.mu.Lock()
	defer in.mu.Unlock()
	ev.SessionID = in.intern(ev.SessionID)
	ev.AgentID = in.intern(ev.AgentID)
	ev.ConversationID = in.intern(ev.ConversationID)
	ev.ParentCallID = in.intern(ev.ParentCallID)
	switch b := ev.Body.(type) {
	case *transcript.ChatTurn:
		b.Role, b.Model = in.intern(b.Role), in.intern(b.Model)
	case *transcript.ToolCall:
		b.Tool = in.intern(b.Tool)
	case *transcript.ToolResult:
		b.Tool = in.intern(b.Tool)
	case *transcript.BashStart:
		b.Command, b.WorkingDirectory = in.internShort(b.Command), in.intern(b.WorkingDirectory)
	case *transcript.BashRun:
		b.Command, b.WorkingDirectory, b.Shell = in.internShort(b.Command), in.intern(b.WorkingDirectory), in.intern(b.Shell)
	}
	return ev
}

// maxInterned bounds the shared strings of one feed; maxShortCommand is
// the longest command shared (longer ones seldom repeat).
const (
	maxInterned     = 4096
	maxShortCommand = 200
)

// interner shares equal strings.
type interner struct {
	mu sync.Mutex
	m  map[string]string
}

// internShort shares s when it is short enough to be likely to repeat.
func (in *interner) internShort(s string) string {
	if len(s) > maxShortCommand {
		return s
	}
	return in.intern(s)
}

func (in *interner) intern(s string) string {
	if s == "" {
		return s
	}
	if v, ok := in.m[s]; ok {
		return v
	}
	if in.m == nil {
		in.m = map[string]string{}
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}

// finishFull hands over the fully indexed timeline: the head of the file,
// indexed in the background, plus every event already delivered (the tail
// and what was followed since), in delivery order. Events still pending
// are appended after the swap.
func (f *Feed) finishFull(tl *timeline.Timeline) {
	f.mu.Lock()
	for _, ev := range f.delivered {
		tl.Add(ev)
	}
	f.delivered, f.fullDone = nil, true
	f.spiller = tl.Spiller()
	f.pending.Full = tl
	f.mu.Unlock()
	f.signal()
}

func malformed(line int, err error) string {
	if line <= 0 {
		return fmt.Sprintf("Skipped a malformed line near the end: %v", err)
	}
	return fmt.Sprintf("Skipped malformed line %d: %v", line, err)
}
