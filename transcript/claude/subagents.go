package claude

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuff-dev/cuff/transcript"
)

// Where Claude Code keeps a sub-agent's own transcript, relative to the
// folder of its parent's transcript <session>.jsonl: 2.1 and later write
// <session>/subagents/agent-<id>.jsonl, 2.0 wrote agent-<id>.jsonl beside
// the parent.
const (
	subAgentsDir    = "subagents"
	agentFilePrefix = "agent-"
	transcriptExt   = ".jsonl"
)

// maxHeldEvents bounds the events held back while delegations are open, so
// that a delegation that never ends cannot hold a whole session in memory.
// Past it the held events are passed on; a sub-agent's events read later
// still come before its delegation's end, only no longer interleaved by
// time with what was passed on.
const maxHeldEvents = 1 << 14

// maxAgentIDLength bounds a sub-agent id taken into a file name.
const maxAgentIDLength = 128

// agentFiles is what a decoder that reads sub-agents' own files keeps.
// While a delegation is open its events are held back, so that when it
// ends the sub-agent's events can be merged in by time between the
// delegation's start and end.
type agentFiles struct {
	path  string // the transcript's own file
	limit int    // most events held back at once

	open map[string]*transcript.Event // delegation call id → its start, until it ends
	held []*transcript.Event          // events held while a delegation is open

	nestedCalls  map[string]int  // events decoded inside each delegation from the transcript itself
	nestedAgents map[string]int  // the same by sub-agent id
	read         map[string]bool // sub-agents whose file has been merged
}

func newAgentFiles(path string) *agentFiles {
	return &agentFiles{path: path, limit: maxHeldEvents, open: map[string]*transcript.Event{},
		nestedCalls: map[string]int{}, nestedAgents: map[string]int{}, read: map[string]bool{}}
}

// emit passes an event on, or holds it while a delegation is open.
func (d *Decoder) emit(ev *transcript.Event) {
	f := d.files
	if f == nil || len(f.open) == 0 {
		d.em.Emit(ev)
		return
	}
	f.held = append(f.held, ev)
	if len(f.held) >= f.limit {
		d.release()
	}
}

// release passes on every event held back.
func (d *Decoder) release() {
	f := d.files
	if f == nil {
		return
	}
	held := f.held
	f.held = nil
	for _, ev := range held {
		d.em.Emit(ev)
	}
}

// noteNested counts an event the transcript itself holds for a sub-agent.
func (f *agentFiles) noteNested(ctx context) {
	if ctx.parentCallID != "" {
		f.nestedCalls[ctx.parentCallID]++
		f.nestedAgents[ctx.agentID]++
	}
}

// openDelegation notes a delegation whose sub-agent may have a file of
// its own: events are held from now until it ends.
func (d *Decoder) openDelegation(callID string, start *transcript.Event) {
	if d.files != nil {
		d.files.open[callID] = start
	}
}

// endDelegation passes on a delegation's end. When the transcript held
// nothing of the sub-agent named by agentID, the sub-agent's own file is
// read and its events merged in before the end.
func (d *Decoder) endDelegation(callID, agentID string, end *transcript.Event) {
	f := d.files
	if f == nil {
		d.push(end)
		return
	}
	start := f.open[callID]
	delete(f.open, callID)
	if agentID != "" && f.nestedCalls[callID] == 0 && f.nestedAgents[agentID] == 0 && !f.read[agentID] {
		if sub := d.readAgentFile(agentID, callID, start); len(sub) > 0 {
			f.read[agentID] = true
			d.mergeHeld(start, sub)
		}
	}
	if len(f.open) == 0 {
		d.release()
	}
	d.push(end)
}

// mergeHeld merges a sub-agent's events by time into the events held after
// its delegation's start (all of them when the start was passed on
// already), keeping the order of each side.
func (d *Decoder) mergeHeld(start *transcript.Event, sub []*transcript.Event) {
	f := d.files
	at := -1
	if start != nil {
		for i := len(f.held) - 1; i >= 0; i-- {
			if f.held[i] == start {
				at = i
				break
			}
		}
	}
	tail := f.held[at+1:]
	merged := make([]*transcript.Event, 0, len(tail)+len(sub))
	i, j := 0, 0
	for i < len(tail) && j < len(sub) {
		if sub[j].TS.Before(tail[i].TS) {
			merged = append(merged, sub[j])
			j++
		} else {
			merged = append(merged, tail[i])
			i++
		}
	}
	merged = append(merged, tail[i:]...)
	merged = append(merged, sub[j:]...)
	f.held = append(f.held[:at+1], merged...)
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

// readAgentFile finds and decodes the file of sub-agent agentID, its events
// inside delegation callID. A file that is missing, unreadable or another
// session's gives nothing.
func (d *Decoder) readAgentFile(agentID, callID string, start *transcript.Event) []*transcript.Event {
	if !safeName(agentID) || agentID == d.standalone {
		return nil
	}
	want := d.sessionUUID
	if want == "" {
		want = strings.TrimSuffix(filepath.Base(d.files.path), transcriptExt)
	}
	for _, c := range d.agentFileCandidates(agentID) {
		if c.path == d.files.path {
			continue
		}
		sub, events, ok := d.decodeAgentFile(c.path, agentID, callID)
		if !ok || (!c.ownFolder && sub.sessionUUID != want) {
			continue
		}
		d.adopt(sub)
		if start != nil {
			for _, ev := range events {
				if ev.TS.IsZero() {
					ev.TS = start.TS
				}
			}
		}
		return events
	}
	return nil
}

// decodeAgentFile decodes a sub-agent's file as the work of agentID inside
// delegation callID. Invocations and message usage the parent has already
// decoded are not decoded again. ok is false when the file cannot be
// opened or read.
func (d *Decoder) decodeAgentFile(path, agentID, callID string) (sub *Decoder, events []*transcript.Event, ok bool) {
	file, err := os.Open(path)
	if err != nil {
		return nil, nil, false
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, nil, false
	}
	sub = NewDecoder(Options{FallbackUUID: d.opts.FallbackUUID, Brief: d.opts.Brief, Clip: d.opts.Clip})
	sub.noScan = d.noScan
	sub.fixed = &link{agentID: agentID, callID: callID}
	sub.outer = d
	// A reader sized to the file: most sub-agents' files are small, and
	// a session may have many.
	lr := transcript.NewLineReaderSize(file, int(min(fi.Size(), maxReadBuffer))+1)
	collect := func(ev *transcript.Event) error {
		if ev.Type != transcript.TypeSessionStart {
			events = append(events, ev)
		}
		return nil
	}
	for {
		line, complete, err := lr.Next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) { // a torn last line is still being written
			break
		}
		if err != nil {
			return nil, nil, false
		}
		_ = sub.Line(line, collect) // collect never fails
	}
	_ = sub.Close(collect)
	return sub, events, true
}

// maxReadBuffer bounds the read buffer sized to a sub-agent's file; longer
// lines are still read whole.
const maxReadBuffer = 256 << 10

// adopt takes over what a sub-agent's decoder has seen, so that nothing it
// decoded is decoded again from the parent or another file.
func (d *Decoder) adopt(sub *Decoder) {
	for id := range sub.seenCalls {
		d.seenCalls[id] = true
	}
	for id := range sub.seenResults {
		d.seenResults[id] = true
	}
	for id := range sub.usageCounted {
		d.usageCounted[id] = true
	}
}

// seenCall, seenResult and seenUsage report whether a tool call, a tool
// result or a message's usage was decoded already, by this decoder or by
// the parent whose sub-agent file it reads.
func (d *Decoder) seenCall(id string) bool {
	return d.seenCalls[id] || (d.outer != nil && d.outer.seenCalls[id])
}

func (d *Decoder) seenResult(id string) bool {
	return d.seenResults[id] || (d.outer != nil && d.outer.seenResults[id])
}

func (d *Decoder) seenUsage(id string) bool {
	return d.usageCounted[id] || (d.outer != nil && d.outer.usageCounted[id])
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
