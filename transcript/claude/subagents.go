package claude

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// Where Claude Code keeps a sub-agent's own transcript, relative to the
// folder of its parent's transcript <session>.jsonl: 2.1 and later write
// <session>/subagents/agent-<id>.jsonl (with agent-<id>.meta.json beside
// it, naming the delegation's call since about 2.1.100), 2.0 wrote
// agent-<id>.jsonl beside the parent.
const (
	subAgentsDir    = "subagents"
	agentFilePrefix = "agent-"
	transcriptExt   = ".jsonl"
	metaExt         = ".meta.json"
)

// maxHeldEvents bounds the events held back while delegations are open, so
// that a delegation that never ends cannot hold a whole session in memory.
// Past it what is held is passed on, merged by time as far as it goes; a
// sub-agent's events read later still come inside their delegation, only
// no longer interleaved by time with what was passed on.
const maxHeldEvents = 1 << 14

// maxAgentIDLength bounds a sub-agent id taken into a file name.
const maxAgentIDLength = 128

// maxMetaFiles bounds the sub-agents' meta files a decoder reads, so that a
// folder of thousands costs what a few do.
const maxMetaFiles = 4096

// LiveSettle is how long a follower's Flush holds an event back after
// reading it while a sub-agent works: Claude Code stamps each record when
// it makes it and writes the main agent's and each sub-agent's to their
// own files together, every 100 ms (later on a loaded machine), so an event
// is passed on once the other files have had time to show what happened
// before it. It counts from when the event was read, not from its time: a
// machine too busy to write a record soon after its time is as late with
// the others.
const LiveSettle = 250 * time.Millisecond

// LiveStale is how old an event read by a follower is to pass on at once
// while a sub-agent works: it was written long before, with what happened
// before it (a follower catching up on a session, not Claude Code writing).
const LiveStale = 10 * LiveSettle

// agentFiles is what a decoder that reads sub-agents' own files keeps. While
// a delegation is open the transcript's events are held back, and the
// sub-agents' files are read as they grow (or when their delegation ends,
// for a sub-agent whose file is known only then); held and read events are
// merged by time, each sub-agent's inside its delegation.
type agentFiles struct {
	path  string // the transcript's own file
	limit int    // most events held back at once
	now   func() time.Time

	held   []queued                     // the transcript's own events, while a delegation is open
	starts map[string]*transcript.Event // delegations' starts among them, by call id
	runs   map[string]*run              // open delegations by call id
	tails  map[string]*agentTail        // sub-agents' files by agent id
	order  []*agentTail                 // the same, in the order found: merging is deterministic

	nestedCalls  map[string]int    // events decoded inside each delegation from the transcript itself
	nestedAgents map[string]int    // the same by sub-agent id
	metaSeen     map[string]bool   // meta files read, by name
	metaAgents   map[string]string // delegation call id → sub-agent id, from meta files
	// settleUntil is set when a Flush held events back for LiveSettle: the
	// follower should flush again then (see Decoder.Wake).
	settleUntil time.Time
	// following is set by a follower's first Flush: the files are being
	// written, and a sub-agent's last records may reach its file after its
	// delegation's end reached the transcript.
	following bool
}

// run is an open delegation.
type run struct {
	callID  string
	startTS time.Time
	agentID string
	tail    *agentTail // its sub-agent's own file, once known
	// endTS is set when a follower read the delegation's end: until the end
	// is passed on, the sub-agent's records up to then are still its.
	endTS time.Time
}

// agentTail is a sub-agent's own file, read as it grows.
type agentTail struct {
	agentID   string
	path      string // "" until the file is found
	ownFolder bool   // found in the session's own folder (else its records must name the session)
	offset    int64  // where the next line starts
	dec       *Decoder
	run       *run      // the delegation its records belong to now; nil between runs
	call      string    // the call id its decoder stamps (the last run's)
	queue     []queued  // decoded, waiting to be merged
	later     []*queued // decoded after its last delegation ended: a later run's, or none's
	failed    bool      // unreadable, or another session's
	now       func() time.Time
}

// queued is an event waiting to be merged: the transcript's own, or a
// sub-agent's and the delegation it happens inside; and when it was read.
type queued struct {
	ev   *transcript.Event
	call string
	seen time.Time
}

// settled is when a follower may pass the event on: LiveSettle after it was
// read, or once LiveStale old.
func (q *queued) settled() time.Time {
	at := q.seen.Add(LiveSettle)
	if stale := q.ev.TS.Add(LiveStale); !q.ev.TS.IsZero() && stale.Before(at) {
		return stale
	}
	return at
}

func newAgentFiles(path string) *agentFiles {
	return &agentFiles{path: path, limit: maxHeldEvents, now: time.Now,
		runs: map[string]*run{}, starts: map[string]*transcript.Event{}, tails: map[string]*agentTail{},
		nestedCalls: map[string]int{}, nestedAgents: map[string]int{},
		metaSeen: map[string]bool{}, metaAgents: map[string]string{}}
}

// idle reports whether nothing is open, held or queued: events pass on at
// once.
func (f *agentFiles) idle() bool {
	if len(f.runs) > 0 || len(f.held) > 0 {
		return false
	}
	for _, t := range f.order {
		if len(t.queue) > 0 || (t.run != nil && !t.run.endTS.IsZero()) {
			return false
		}
	}
	return true
}

// emit passes an event on, or holds it while a delegation is open.
func (d *Decoder) emit(ev *transcript.Event) {
	f := d.files
	if f == nil || f.idle() {
		d.em.Emit(ev)
		return
	}
	f.held = append(f.held, queued{ev: ev, seen: f.now()})
	if len(f.held) >= f.limit {
		d.drain(time.Time{})
	}
}

// noteNested counts an event the transcript itself holds for a sub-agent.
func (f *agentFiles) noteNested(ctx context) {
	if ctx.parentCallID != "" {
		f.nestedCalls[ctx.parentCallID]++
		f.nestedAgents[ctx.agentID]++
	}
}

// openDelegation notes a delegation whose sub-agent may have a file of its
// own: from now until it ends, events are held and merged. agentID names
// the sub-agent when the call does (a sub-agent resumed or sent a message).
func (d *Decoder) openDelegation(callID, agentID string, start *transcript.Event) {
	f := d.files
	if f == nil {
		return
	}
	r := &run{callID: callID, startTS: start.TS}
	f.runs[callID] = r
	f.starts[callID] = start
	if agentID != "" {
		d.attach(r, agentID)
	}
}

// knowAgent tells the decoder which sub-agent works in an open delegation,
// as soon as the transcript says (a sub-agent launched in the background):
// its file is read from then on.
func (d *Decoder) knowAgent(callID, agentID string) {
	if f := d.files; f != nil {
		if r := f.runs[callID]; r != nil && r.tail == nil && agentID != "" {
			d.attach(r, agentID)
		}
	}
}

// attach links an open delegation to its sub-agent's file. The file's
// records not yet placed (what the sub-agent did after its previous
// delegation ended: this run's) move into this one.
func (d *Decoder) attach(r *run, agentID string) {
	f := d.files
	r.agentID = agentID
	if !safeName(agentID) || agentID == d.standalone || f.nestedAgents[agentID] > 0 {
		return
	}
	t := f.tails[agentID]
	if t == nil {
		t = &agentTail{agentID: agentID, now: f.now}
		f.tails[agentID] = t
		f.order = append(f.order, t)
	}
	if t.run != nil && t.run != r && !t.run.endTS.IsZero() {
		d.detach(t, t.run.endTS) // its last run ended: this one begins
	}
	if t.run != nil && t.run != r {
		return // it works for another open delegation: it was sent a message
	}
	t.run, r.tail = r, t
	for _, q := range t.later {
		if q.ev.ParentCallID == q.call {
			q.ev.ParentCallID = r.callID
		}
		t.queue = append(t.queue, queued{ev: q.ev, call: r.callID, seen: q.seen})
	}
	t.later = nil
	t.call = r.callID
	if t.dec != nil {
		t.dec.fixed = &link{agentID: agentID, callID: r.callID}
	}
}

// endDelegation passes on a delegation's end, after everything its
// sub-agent did: the sub-agent's file (named by agentID when the file was
// not known before) is read to its end, and what it recorded after end's
// time is kept for a later run of the same sub-agent.
func (d *Decoder) endDelegation(callID, agentID string, end *transcript.Event) {
	f := d.files
	if f == nil {
		d.push(end)
		return
	}
	r := f.runs[callID]
	if r == nil {
		r = &run{callID: callID} // its start was passed on already (a transcript read in parts)
	}
	if r.tail == nil && agentID != "" && f.nestedCalls[callID] == 0 {
		d.attach(r, agentID)
	}
	delete(f.runs, callID)
	if t := r.tail; t != nil && t.run == r {
		d.pull(t)
		t.flushDecoder()
		if f.following {
			// Its last records may still be on their way to its file: it
			// stays this run's until the end is passed on (see drain).
			r.endTS = end.TS
			d.push(end)
			return
		}
		d.detach(t, end.TS)
	}
	d.push(end)
	if len(f.runs) == 0 {
		d.drain(time.Time{})
	}
}

// ended detaches the sub-agent whose run ev ends, once a follower passed
// the end on.
func (f *agentFiles) ended(d *Decoder, ev *transcript.Event) {
	if b, ok := ev.Body.(*transcript.Delegation); !ok || b.Phase != transcript.PhaseEnd {
		return
	}
	for _, t := range f.order {
		if t.run != nil && t.run.callID == ev.CallID && !t.run.endTS.IsZero() {
			d.detach(t, t.run.endTS)
		}
	}
}

// detach ends a sub-agent's run at time ts: its queued events stamped later
// are another run's (or none's) and wait for it.
func (d *Decoder) detach(t *agentTail, ts time.Time) {
	kept := t.queue[:0]
	for _, q := range t.queue {
		if q.call == t.run.callID && !ts.IsZero() && q.ev.TS.After(ts) {
			t.later = append(t.later, &queued{ev: q.ev, call: q.call, seen: q.seen})
			continue
		}
		kept = append(kept, q)
	}
	t.queue = kept
	t.run = nil
}

// pullOpen reads what the files of the open delegations' sub-agents have
// grown by, first finding the sub-agents of delegations that name none yet
// by their meta files.
func (d *Decoder) pullOpen() {
	f := d.files
	d.readMeta()
	for _, t := range f.order {
		if t.run != nil {
			d.pull(t)
		}
	}
}

// readMeta reads the sub-agents' meta files not read yet, which name the
// delegation each sub-agent works for, and links open delegations to their
// sub-agents.
func (d *Decoder) readMeta() {
	f := d.files
	waiting := false
	for _, r := range f.runs {
		if r.tail == nil && r.agentID == "" {
			waiting = true
		}
	}
	if !waiting || len(f.metaSeen) >= maxMetaFiles {
		return
	}
	dir := filepath.Dir(d.agentFileCandidates("x")[0].path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if f.metaSeen[name] || !strings.HasPrefix(name, agentFilePrefix) || !strings.HasSuffix(name, metaExt) || len(f.metaSeen) >= maxMetaFiles {
			continue
		}
		f.metaSeen[name] = true
		agentID := strings.TrimSuffix(strings.TrimPrefix(name, agentFilePrefix), metaExt)
		var meta struct {
			ToolUseID string `json:"toolUseId"`
		}
		data, err := readSmall(filepath.Join(dir, name))
		if err != nil || json.Unmarshal(data, &meta) != nil || meta.ToolUseID == "" {
			continue
		}
		f.metaAgents[meta.ToolUseID] = agentID
	}
	for _, r := range f.runs {
		if a := f.metaAgents[r.callID]; a != "" && r.tail == nil && r.agentID == "" {
			d.attach(r, a)
		}
	}
}

// maxMetaSize bounds a meta file read.
const maxMetaSize = 64 << 10

// readSmall reads a small regular file whole.
func readSmall(path string) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxMetaSize {
		return nil, errors.New("not a small regular file")
	}
	return io.ReadAll(io.LimitReader(file, maxMetaSize))
}

// drain passes on the held events and the sub-agents' queued ones merged by
// time, each side in its own order, a sub-agent's events after their
// delegation's start and before its end. With a zero time now it passes on
// everything; else it stops at the first event not settled by now, and
// returns it.
func (d *Decoder) drain(now time.Time) *queued {
	f := d.files
	for {
		q, from := f.next()
		if q == nil {
			return nil
		}
		if !now.IsZero() && q.settled().After(now) {
			return q
		}
		ev := q.ev
		if from == nil {
			f.held = f.held[1:]
			if len(f.held) == 0 {
				f.held = nil
			}
			if f.starts[ev.CallID] == ev {
				delete(f.starts, ev.CallID)
			}
		} else {
			from.queue = from.queue[1:]
		}
		d.em.Emit(ev)
		f.ended(d, ev)
	}
}

// next is the event to pass on next, and the sub-agent's file it comes from
// (nil: the transcript's own): the earliest of the candidates, the
// transcript's first on a tie. A delegation's end is no candidate while its
// sub-agent's events wait; a sub-agent's event is none while its
// delegation's start waits.
func (f *agentFiles) next() (*queued, *agentTail) {
	var best *queued
	var from *agentTail
	if len(f.held) > 0 {
		if h := &f.held[0]; !f.waitsFor(h.ev) {
			best = h
		}
	}
	for _, t := range f.order {
		if len(t.queue) == 0 {
			continue
		}
		q := &t.queue[0]
		if f.starts[q.call] != nil {
			continue // its delegation's start is still held
		}
		if best == nil || q.ev.TS.Before(best.ev.TS) {
			best, from = q, t
		}
	}
	return best, from
}

// waitsFor reports whether ev, held, is a delegation's end whose
// sub-agent's events still wait to be passed on before it.
func (f *agentFiles) waitsFor(ev *transcript.Event) bool {
	d, ok := ev.Body.(*transcript.Delegation)
	if !ok || d.Phase != transcript.PhaseEnd {
		return false
	}
	for _, t := range f.order {
		for _, q := range t.queue {
			if q.call == ev.CallID {
				return true
			}
		}
	}
	return false
}

// pull reads the complete lines a sub-agent's file has grown by since it
// was last read, and queues their events.
func (d *Decoder) pull(t *agentTail) {
	if t.failed {
		return
	}
	if t.path == "" && !d.locate(t) {
		return
	}
	file, err := os.Open(t.path)
	if err != nil {
		return
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		t.failed = true
		return
	}
	if fi.Size() <= t.offset {
		return
	}
	if t.dec == nil {
		d.newTailDecoder(t)
	}
	lr := transcript.NewLineReaderAt(file, t.offset, fi.Size())
	for {
		line, complete, err := lr.Next()
		if err != nil || !complete { // a torn last line is still being written
			break
		}
		_ = t.dec.Line(line, t.collect) // collect never fails
	}
	t.offset += lr.Offset()
	if t.ownFolder || t.dec.sessionUUID == "" {
		return
	}
	want := d.sessionUUID
	if want == "" {
		want = strings.TrimSuffix(filepath.Base(d.files.path), transcriptExt)
	}
	if t.dec.sessionUUID != want { // another session's sub-agent of the same name
		t.failed, t.queue, t.later = true, nil, nil
	}
}

// locate finds a sub-agent's file among the places it may be.
func (d *Decoder) locate(t *agentTail) bool {
	for _, c := range d.agentFileCandidates(t.agentID) {
		if c.path == d.files.path {
			continue
		}
		if fi, err := os.Stat(c.path); err == nil && fi.Mode().IsRegular() {
			t.path, t.ownFolder = c.path, c.ownFolder
			return true
		}
	}
	return false
}

// newTailDecoder makes the decoder of a sub-agent's file: every record is
// the sub-agent's, inside its delegation; what the parent decoded already is
// not decoded again.
func (d *Decoder) newTailDecoder(t *agentTail) {
	sub := NewDecoder(Options{FallbackUUID: d.opts.FallbackUUID, Brief: d.opts.Brief, Clip: d.opts.Clip})
	sub.noScan = d.noScan
	sub.fixed = &link{agentID: t.agentID, callID: t.call}
	sub.outer = d
	sub.em.SetOutput(t.collect)
	sub.em.Begin() // its events pass on at once; its session_start is left out
	t.dec = sub
}

// collect queues an event of the sub-agent's file: in its delegation, or
// for a later one when none is open.
func (t *agentTail) collect(ev *transcript.Event) error {
	if ev.Type == transcript.TypeSessionStart || t.failed {
		return nil
	}
	if t.run == nil || (!t.run.endTS.IsZero() && ev.TS.After(t.run.endTS)) {
		t.later = append(t.later, &queued{ev: ev, call: t.call, seen: t.now()})
		return nil
	}
	if ev.TS.IsZero() {
		ev.TS = t.run.startTS
	}
	t.queue = append(t.queue, queued{ev: ev, call: t.run.callID, seen: t.now()})
	return nil
}

// flushDecoder passes on what the sub-agent's decoder holds: the blocks of
// a message that may still be streaming.
func (t *agentTail) flushDecoder() {
	if t.dec != nil && !t.failed {
		_ = t.dec.Flush(t.collect) // collect never fails
	}
}

// closeFiles reads the open delegations' sub-agents' files to their ends,
// passes on everything merged, and nests what sub-agents did after their
// last delegation ended in a delegation of its own (as for a sub-agent
// whose parent is not in the file).
func (d *Decoder) closeFiles() {
	f := d.files
	if f == nil {
		return
	}
	d.pullOpen()
	for _, t := range f.order {
		t.flushDecoder()
	}
	d.drain(time.Time{})
	clear(f.runs) // never ended, as far as the file says
	for _, t := range f.order {
		if len(t.later) == 0 {
			continue
		}
		lk := &link{agentID: t.agentID, callID: "cuff_" + t.agentID + "_after"}
		first := t.later[0].ev
		d.em.Emit(d.event(first.TS, &transcript.Delegation{Phase: transcript.PhaseStart, SubAgentID: t.agentID}, context{}, lk.callID))
		last := first.TS
		for _, q := range t.later {
			if q.ev.ParentCallID == q.call {
				q.ev.ParentCallID = lk.callID
			}
			if q.ev.TS.After(last) {
				last = q.ev.TS
			}
			d.em.Emit(q.ev)
		}
		t.later = nil
		d.em.Emit(d.event(last, &transcript.Delegation{Phase: transcript.PhaseEnd, SubAgentID: t.agentID}, context{}, lk.callID))
	}
}

// flushFiles is a follower's Flush: the open delegations' sub-agents'
// files are read as far as they have grown, and what is held passes on
// merged by time, except while a delegation is open from the first event
// read less than LiveSettle ago on (another file may still show what
// happened before it).
func (d *Decoder) flushFiles() {
	f := d.files
	if f == nil {
		return
	}
	d.pullOpen()
	for _, t := range f.order {
		if t.run != nil {
			t.flushDecoder()
		}
	}
	f.settleUntil, f.following = time.Time{}, true
	if f.idle() {
		return
	}
	now := f.now()
	if q := d.drain(now); q != nil {
		f.settleUntil = q.settled()
	} else if !f.idle() {
		f.settleUntil = now.Add(LiveSettle)
	}
}

// Wake says when a follower should call Flush again though the transcript
// is quiet: while a delegation is open its sub-agent's file is read, and
// events held for LiveSettle passed on, only on Flush. ok is false when
// nothing waits.
func (d *Decoder) Wake() (at time.Time, ok bool) {
	f := d.files
	if f == nil || (len(f.runs) == 0 && f.settleUntil.IsZero()) {
		return time.Time{}, false
	}
	if !f.settleUntil.IsZero() {
		return f.settleUntil, true
	}
	return f.now().Add(LiveSettle), true
}

// Holding reports whether a follower's Flush held events back (see
// LiveSettle): they pass on at a later Flush (see Wake).
func (d *Decoder) Holding() bool {
	f := d.files
	if f == nil {
		return false
	}
	if len(f.held) > 0 {
		return true
	}
	for _, t := range f.order {
		if len(t.queue) > 0 {
			return true
		}
	}
	return false
}

// agentFile is a place a sub-agent's file may be.
type agentFile struct {
	path string
	// ownFolder: the file is in the session's own folder; elsewhere its
	// records must name the session.
	ownFolder bool
}

// agentFileCandidates are the places the file of sub-agent agentID may be,
// most likely first.
func (d *Decoder) agentFileCandidates(agentID string) []agentFile {
	dir := filepath.Dir(d.files.path)
	base := strings.TrimSuffix(filepath.Base(d.files.path), transcriptExt)
	name := agentFilePrefix + agentID + transcriptExt
	out := []agentFile{{path: filepath.Join(dir, base, subAgentsDir, name), ownFolder: true}}
	if s := d.sessionUUID; s != "" && s != base && safeName(s) {
		out = append(out, agentFile{path: filepath.Join(dir, s, subAgentsDir, name), ownFolder: true})
	}
	return append(out, agentFile{path: filepath.Join(dir, name)})
}

// seenCall, seenResult and seenUsage report whether a tool call, a tool
// result or a message's usage was decoded already, by this decoder or by
// the parent whose sub-agent file it reads.
func (d *Decoder) seenCall(id string) bool {
	return d.seenCalls[id] || (d.outer != nil && d.outer.seenCall(id))
}

func (d *Decoder) seenResult(id string) bool {
	return d.seenResults[id] || (d.outer != nil && d.outer.seenResult(id))
}

func (d *Decoder) seenUsage(id string) bool {
	return d.usageCounted[id] || (d.outer != nil && d.outer.seenUsage(id))
}

// markCall, markResult and markUsage note a tool call, a tool result or a
// message's usage decoded, for the parent too when the decoder reads a
// sub-agent's file: nothing is decoded twice, whichever file shows it first.
func (d *Decoder) markCall(id string) {
	for x := d; x != nil; x = x.outer {
		x.seenCalls[id] = true
	}
}

func (d *Decoder) markResult(id string) {
	for x := d; x != nil; x = x.outer {
		x.seenResults[id] = true
	}
}

func (d *Decoder) markUsage(id string) {
	for x := d; x != nil; x = x.outer {
		x.usageCounted[id] = true
	}
}

// safeName reports whether an id from a transcript can name a file: letters,
// digits, '-' and '_' only, so that it can never leave the folder.
func safeName(id string) bool {
	if id == "" || len(id) > maxAgentIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
