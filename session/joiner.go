package session

import (
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// A conversation is recorded twice by nature: the agent keeps its own
// transcript (Claude Code's session file, Codex's rollout), and cuff records
// what only it knows (the gate's verdicts, approvals, exit codes, durations
// without the approval wait, working directories) through the hook or the
// MCP server. A joiner merges the two into one stream of events: the
// transcript is the base (text, thinking, sub-agents, tool inputs, in the
// agent's own order and attribution), and cuff's recording of each call,
// found by the call's id, is put in its place:
//
//   - a call's start and end are written once each: cuff's bash_start and
//     bash_run (with the verdict, the exit code, the duration) in place of
//     the transcript's, with the transcript's agent and nesting; for other
//     tools and delegations the transcript's, with what only cuff recorded
//     filled in;
//   - cuff's events of a call that the transcript has no record of
//     (approval requests and decisions) go with the call's start, in the
//     order cuff recorded them;
//   - cuff's chat turns are left out while there is a transcript (the
//     transcript has them, first hand); a call the transcript never shows is
//     placed by its time; cuff's session_end comes last.
//
// Read gives a joiner everything cuff recorded first, then the transcript;
// a live follower gives it both as they grow, and the joiner holds a
// transcript event back, briefly, while cuff's record of its call may
// still come.

// anchorSlack is how far the transcript may run past a call that cuff
// recorded before the call is taken to be missing from it, and placed by
// its time instead.
const anchorSlack = 2 * time.Minute

// holdLimit is how long a live joiner waits for cuff's record of a call
// the transcript has just shown (the hook records it a few milliseconds
// later, or after the approval it asks for), before it shows the call as
// the transcript has it.
const holdLimit = 2 * time.Second

// callGroup is what cuff recorded of one call, not yet written.
type callGroup struct {
	id     string
	events []*transcript.Event // in recording order; start and end among them
	start  *transcript.Event   // the recording's start of the call
	end    *transcript.Event   // the recording's end of the call
	first  time.Time           // when cuff recorded the call's first event
	placed bool                // written (or dropped): no longer waiting
	// recStart is set when the call's start was written from cuff's record:
	// cuff's end of it will come too.
	recStart bool
	// asking is set while the call waits for a person: cuff recorded an
	// approval request and not yet its decision.
	asking bool
}

// owner is the agent that made a call and the delegation it made it in.
type owner struct{ agent, parent string }

// held is a transcript event a live joiner waits with.
type held struct {
	ev       *transcript.Event
	deadline time.Time
}

// joiner merges one conversation's transcript and cuff's recordings of it.
type joiner struct {
	id   string // the joined session's id, stamped on every event
	emit func(*transcript.Event) error
	// transcript is set when there is a transcript to join (else cuff's
	// recording is written as it is).
	transcript bool
	// live makes the joiner wait, up to holdLimit, for cuff's record of a
	// call that the transcript shows first; expects says which calls
	// cuff records (nil: every call).
	live    bool
	expects func(*transcript.Event) bool
	now     func() time.Time

	seq      int64
	err      error
	groups   map[string]*callGroup
	order    []*callGroup        // groups in recording order, for those never anchored
	loose    []*transcript.Event // recording events with no call, placed by time
	end      *transcript.Event   // the recording's latest session_end
	held     []held
	started  map[string]transcript.Type // calls whose start was written, and its kind
	owner    map[string]owner           // who made each call whose start was written
	ended    map[string]bool            // calls whose end was written
	command  map[string]string          // the command of each bash call written
	said     map[string]int             // chat turns written from cuff's record (role and text), to write each once
	gotStart bool                       // a session_start was written
	cwd      string                     // the recording's working directory
	meta     Meta                       // what was written, for the counts of the end
	tasks    map[string]string          // the task of each delegation written, by call id
	lastTS   time.Time                  // the transcript's latest time
}

func newJoiner(id string, hasTranscript bool, emit func(*transcript.Event) error) *joiner {
	return &joiner{id: id, emit: emit, transcript: hasTranscript, now: time.Now,
		groups: map[string]*callGroup{}, started: map[string]transcript.Type{}, owner: map[string]owner{}, ended: map[string]bool{},
		command: map[string]string{}, said: map[string]int{}, tasks: map[string]string{}}
}

// halfOf tells whether an event starts a call, ends it, or neither.
type half int

const (
	halfNone half = iota
	halfStart
	halfEnd
)

// nests reports whether other events happen inside the call (a
// delegation): its end is placed where the transcript ends it.
func nests(ev *transcript.Event) bool {
	_, ok := ev.Body.(*transcript.Delegation)
	return ok
}

func halfOf(ev *transcript.Event) half {
	if ev.CallID == "" {
		return halfNone
	}
	switch b := ev.Body.(type) {
	case *transcript.ToolCall, *transcript.BashStart:
		return halfStart
	case *transcript.ToolResult, *transcript.BashRun:
		return halfEnd
	case *transcript.Delegation:
		if b.Phase == transcript.PhaseEnd {
			return halfEnd
		}
		return halfStart
	}
	return halfNone
}

// out writes one event of the joined stream: a copy, numbered and stamped
// with the joined session's id.
func (j *joiner) out(ev *transcript.Event) {
	if j.err != nil || ev == nil {
		return
	}
	c := *ev
	j.seq++
	c.SessionID, c.Seq, c.ID = j.id, j.seq, transcript.EventID(j.id, j.seq)
	if c.ConversationID == "" {
		_, c.ConversationID, _ = strings.Cut(j.id, ":") // the agent's own id of the conversation
	}
	if c.Body != nil {
		c.Raw = nil // encoded from the body, with the joined envelope
	}
	switch b := c.Body.(type) {
	case *transcript.Delegation:
		if b.Phase == transcript.PhaseStart && c.CallID != "" {
			j.tasks[c.CallID] = strings.TrimSpace(b.Task)
		}
	case *transcript.SessionStart:
		j.gotStart = true
	case *transcript.SessionEnd:
		// The counts are the joined session's, not those of the part that ended.
		e := *b
		m := &j.meta
		e.Counts = &transcript.Counts{Events: m.EntryCount + 1, Turns: m.Turns, ToolCalls: m.ToolCalls,
			Commands: m.AllCommands(), Failures: m.Failures(), TimedOut: m.CommandsTimedOut, Approvals: m.Approvals}
		c.Body = &e
	}
	h := halfOf(&c)
	if o, ok := j.owner[c.CallID]; ok && h == halfEnd {
		// A call ends where it started: on its agent, in its nesting
		// (cuff may not know a sub-agent's delegation the transcript shows).
		c.AgentID, c.ParentCallID = o.agent, o.parent
	}
	j.meta.add(&c)
	if h == halfStart {
		j.started[c.CallID] = c.Type
		j.owner[c.CallID] = owner{agent: c.AgentID, parent: c.ParentCallID}
		if b, ok := c.Body.(*transcript.BashStart); ok {
			j.command[c.CallID] = b.Command
		}
	} else if h == halfEnd {
		j.ended[c.CallID] = true
	}
	j.err = j.emit(&c)
}

// turnKey identifies a chat turn's content, to write it once when both
// records hold it (a live join that began before the transcript appeared).
func turnKey(c *transcript.ChatTurn) string {
	k := c.Role + "\x00" + strings.TrimSpace(c.Text)
	if c.Thinking {
		k = "thinking\x00" + k
	}
	return k
}

// Recording takes one event of cuff's recording.
func (j *joiner) Recording(ev *transcript.Event) error {
	switch b := ev.Body.(type) {
	case *transcript.SessionStart:
		if j.cwd == "" {
			j.cwd = b.WorkingDirectory
		}
		if !j.transcript && !j.gotStart {
			j.out(ev)
		}
		return j.err
	case *transcript.SessionEnd:
		j.end = ev // written last (see Quiet, Close)
		return j.err
	case *transcript.ChatTurn:
		if j.transcript {
			return j.err // the transcript has it, first hand
		}
		j.said[turnKey(b)]++
		j.out(ev)
		return j.err
	}
	if ev.CallID == "" {
		if !j.transcript || j.live {
			j.out(ev)
		} else {
			j.loose = append(j.loose, ev)
		}
		return j.err
	}
	if !j.transcript {
		j.recordingOnly(ev)
		return j.err
	}
	id := ev.CallID
	if j.started[id] == transcript.TypeDelegation && halfOf(ev) != halfNone && !nests(ev) {
		return j.err // the transcript shows the call as the delegation it started (see asDelegation)
	}
	g := j.groups[id]
	if g == nil {
		g = &callGroup{id: id, first: ev.TS}
		j.groups[id] = g
		j.order = append(j.order, g)
	}
	switch halfOf(ev) {
	case halfStart:
		if _, done := j.started[id]; done {
			return j.err // the transcript's was written; cuff's came too late to replace it
		}
		if g.start == nil {
			g.start = ev
		}
	case halfEnd:
		if j.ended[id] {
			return j.err
		}
		if _, done := j.started[id]; done && j.live && !nests(ev) {
			j.out(j.fitEnd(id, mergeEnd(nil, ev)))
			g.placed = true
			return j.release()
		}
		if g.end == nil {
			g.end = ev
		}
	default:
		switch ev.Body.(type) {
		case *transcript.ApprovalRequest:
			g.asking = true
		case *transcript.ApprovalDecision:
			g.asking = false
		}
		if _, done := j.started[id]; done && j.live {
			j.out(ev) // an approval of a call already shown
			return j.release()
		}
	}
	g.events = append(g.events, ev)
	if j.live {
		return j.release()
	}
	return j.err
}

// recordingOnly writes an event of cuff's recording when there is no
// transcript to join: as it is, each half of a call once.
func (j *joiner) recordingOnly(ev *transcript.Event) {
	switch halfOf(ev) {
	case halfStart:
		if _, done := j.started[ev.CallID]; done {
			return
		}
	case halfEnd:
		if j.ended[ev.CallID] {
			return
		}
	}
	j.out(ev)
}

// Transcript takes one event of the transcript.
func (j *joiner) Transcript(ev *transcript.Event) error {
	if len(j.held) > 0 {
		j.held = append(j.held, held{ev: ev}) // behind what waits, to keep the transcript's order
		return j.release()
	}
	if j.take(ev, j.live) {
		j.held = append(j.held, held{ev: ev, deadline: j.now().Add(holdLimit)})
	}
	return j.err
}

// FoundTranscript tells a joiner that began with cuff's recording alone
// (the transcript did not exist yet) that the transcript follows: from
// now on cuff's chat turns are left out, and the transcript's turns that
// cuff's record already showed are not written twice.
func (j *joiner) FoundTranscript() { j.transcript = true }

// take places one transcript event. With mayWait, an event whose call cuff
// is about to record is not written: take reports that it waits.
func (j *joiner) take(ev *transcript.Event, mayWait bool) (wait bool) {
	if !ev.TS.IsZero() && ev.TS.After(j.lastTS) {
		j.lastTS = ev.TS
	}
	j.placeByTime(ev.TS)
	id := ev.CallID
	switch halfOf(ev) {
	case halfStart:
		if _, done := j.started[id]; done {
			return false
		}
		g := j.groups[id]
		if g != nil && nests(ev) {
			g.asDelegation()
		}
		switch {
		case g != nil && g.start != nil:
			j.writeGroupStart(g, ev)
		case g != nil && len(g.events) > 0:
			j.out(ev)
			j.writeGroup(g, nil)
		case mayWait && (j.expects == nil || j.expects(ev)):
			return true
		default:
			j.out(ev)
		}
	case halfEnd:
		if j.ended[id] {
			return false
		}
		g := j.groups[id]
		switch {
		case g != nil && g.end != nil:
			j.writeGroup(g, ev)
		case mayWait && g != nil && g.recStart:
			return true // cuff ran the command: its record of the end comes
		default:
			if g != nil {
				j.writeGroup(g, nil) // approvals of a call cuff never started
			}
			j.out(j.fitEnd(id, ev))
		}
	default:
		switch b := ev.Body.(type) {
		case *transcript.SessionStart:
			if j.gotStart {
				return false
			}
			if b.WorkingDirectory == "" && j.cwd != "" {
				c := *b
				c.WorkingDirectory = j.cwd
				e := *ev
				e.Body = &c
				ev = &e
			}
		case *transcript.ChatTurn:
			if k := turnKey(b); j.said[k] > 0 {
				j.said[k]--
				return false // written already, from cuff's recording, before the transcript appeared
			}
			if task, ok := j.tasks[ev.ParentCallID]; ok && b.Role == transcript.RoleUser && task != "" && strings.TrimSpace(b.Text) == task {
				delete(j.tasks, ev.ParentCallID)
				return false // the sub-agent's prompt: the delegation shows it as its task
			}
		}
		j.out(ev)
	}
	return false
}

// asDelegation leaves out cuff's start and end of a call the transcript
// shows as a delegation when cuff recorded them as a tool's (SendMessage
// to a sub-agent that had stopped runs it again: cuff's hook sees a tool
// that returns at once, the transcript a sub-agent's run that ends when it
// stops); cuff's other events of the call stay.
func (g *callGroup) asDelegation() {
	drop := func(ev *transcript.Event) bool { return ev != nil && !nests(ev) }
	if !drop(g.start) && !drop(g.end) {
		return
	}
	kept := g.events[:0]
	for _, ev := range g.events {
		if (ev == g.start && drop(g.start)) || (ev == g.end && drop(g.end)) {
			continue
		}
		kept = append(kept, ev)
	}
	g.events = kept
	if drop(g.start) {
		g.start = nil
	}
	if drop(g.end) {
		g.end = nil
	}
}

// writeGroupStart writes cuff's events of a call up to and including its
// start (merged with the transcript's), and what it recorded after; the
// end waits for the transcript's, to take its place, except in a live
// join, which shows it at once (the transcript's end is then left out).
func (j *joiner) writeGroupStart(g *callGroup, tr *transcript.Event) {
	var rest []*transcript.Event
	for _, ev := range g.events {
		switch {
		case ev == g.start:
			j.out(mergeStart(tr, ev))
		case ev == g.end && (!j.live || nests(ev)):
			rest = append(rest, ev)
		case ev == g.end:
			j.out(j.fitEnd(g.id, ev))
		default:
			j.out(ev)
		}
	}
	g.events, g.start, g.placed, g.recStart = rest, nil, true, true
	if j.ended[g.id] {
		g.end = nil
	}
}

// writeGroup writes what is left of cuff's events of a call; with tr (the
// transcript's end of the call) the end is merged with it.
func (j *joiner) writeGroup(g *callGroup, tr *transcript.Event) {
	for _, ev := range g.events {
		switch {
		case ev == g.start:
			if _, done := j.started[g.id]; !done {
				j.out(ev)
			}
		case ev == g.end:
			if tr == nil {
				continue // the end is written with the transcript's, in its place
			}
			j.out(j.fitEnd(g.id, mergeEnd(tr, ev)))
			tr = nil
		default:
			j.out(ev)
		}
	}
	if tr != nil {
		j.out(j.fitEnd(g.id, tr))
	}
	keepEnd := g.end != nil && !j.ended[g.id]
	g.events, g.start, g.placed = nil, nil, true
	if keepEnd {
		g.events = []*transcript.Event{g.end}
	} else {
		g.end = nil
	}
}

// placeByTime writes cuff's events that belong before time ts: events with
// no call, and the calls the transcript should have shown by now but has
// not (more than anchorSlack ago).
func (j *joiner) placeByTime(ts time.Time) {
	if ts.IsZero() {
		return
	}
	for len(j.loose) > 0 && !j.loose[0].TS.After(ts) {
		j.out(j.loose[0])
		j.loose = j.loose[1:]
	}
	if j.live {
		return // a live joiner places them by its own clock (see Tick)
	}
	for len(j.order) > 0 {
		g := j.order[0]
		if !g.placed && g.first.Add(anchorSlack).After(ts) {
			break
		}
		j.order = j.order[1:]
		if !g.placed {
			j.writeGroup(g, nil)
			j.writeEnd(g)
		}
	}
}

// writeEnd writes a call's end that cuff recorded and the transcript never
// showed.
func (j *joiner) writeEnd(g *callGroup) {
	if g.end != nil && !j.ended[g.id] {
		j.out(j.fitEnd(g.id, g.end))
	}
	g.events, g.end = nil, nil
}

// release writes the transcript events a live joiner held back, in order,
// as far as cuff's records of their calls have come (or their wait ended).
// While a held call waits for a person, cuff's approval request is shown
// at once (it comes before the command's start) and the call waits for
// the decision, however long that takes.
func (j *joiner) release() error {
	for len(j.held) > 0 && j.err == nil {
		h := &j.held[0]
		if h.deadline.IsZero() { // not looked at yet: it may have to wait itself
			if !j.take(h.ev, true) {
				j.held = j.held[1:]
				continue
			}
			h.deadline = j.now().Add(holdLimit)
		}
		if g := j.groups[h.ev.CallID]; g != nil && halfOf(h.ev) == halfStart && g.start == nil && len(g.events) > 0 {
			j.writeAsked(g)
			if !g.asking {
				h.deadline = j.now().Add(holdLimit) // decided: cuff records the start next
			}
		}
		if !j.ready(*h) {
			break
		}
		ev := h.ev
		j.held = j.held[1:]
		j.take(ev, false)
	}
	return j.err
}

// writeAsked writes cuff's approval events of a call whose start waits.
func (j *joiner) writeAsked(g *callGroup) {
	kept := g.events[:0]
	for _, ev := range g.events {
		if ev == g.end {
			kept = append(kept, ev)
			continue
		}
		j.out(ev)
	}
	g.events = kept
}

// ready reports whether a held event can be written now: cuff's record of
// its call came, or the wait is over.
func (j *joiner) ready(h held) bool {
	g := j.groups[h.ev.CallID]
	switch halfOf(h.ev) {
	case halfStart:
		if _, done := j.started[h.ev.CallID]; done || (g != nil && g.start != nil) {
			return true
		}
		if g != nil && g.asking {
			return false // a person is deciding: cuff records the start after
		}
	case halfEnd:
		if j.ended[h.ev.CallID] || (g != nil && g.end != nil) {
			return true
		}
	default:
		return true
	}
	return !j.now().Before(h.deadline)
}

// Tick lets a live joiner write what it waited for long enough: held
// transcript events, then the calls cuff recorded that the transcript has
// not shown within holdLimit.
func (j *joiner) Tick() error {
	if j.release(); len(j.held) > 0 {
		return j.err // the transcript waits on a call: what cuff recorded after waits behind it
	}
	now := j.now()
	kept := j.order[:0]
	for _, g := range j.order {
		switch {
		case g.placed:
		case now.Sub(g.first) < holdLimit:
			kept = append(kept, g)
		default:
			j.writeGroup(g, nil)
			j.writeEnd(g)
		}
	}
	j.order = kept
	return j.err
}

// waiting reports whether a live joiner waits for anything (Tick should be
// called again), and until when at the latest.
func (j *joiner) waiting() (time.Time, bool) {
	var until time.Time
	for _, h := range j.held {
		if !h.deadline.IsZero() && (until.IsZero() || h.deadline.Before(until)) {
			until = h.deadline
		}
	}
	for _, g := range j.order {
		if d := g.first.Add(holdLimit); !g.placed && (until.IsZero() || d.Before(until)) {
			until = d
		}
	}
	return until, !until.IsZero() || len(j.held) > 0
}

// Quiet tells a live joiner that both records have been read to their
// ends: cuff's session_end is written once nothing is waiting.
func (j *joiner) Quiet() error {
	if j.end != nil && len(j.held) == 0 && len(j.loose) == 0 && j.allPlaced() {
		j.out(j.end)
		j.end = nil
	}
	return j.err
}

func (j *joiner) allPlaced() bool {
	for _, g := range j.order {
		if !g.placed {
			return false
		}
	}
	return true
}

// Close ends the join: held events, cuff's calls the transcript never
// showed, its events with no call, and its session_end.
func (j *joiner) Close() error {
	for _, h := range j.held {
		j.take(h.ev, false)
	}
	j.held = nil
	for _, g := range j.order {
		if !g.placed {
			j.writeGroup(g, nil)
		}
		j.writeEnd(g)
	}
	j.order = nil
	for _, ev := range j.loose {
		j.out(ev)
	}
	j.loose = nil
	if j.end != nil {
		j.out(j.end)
		j.end = nil
	}
	return j.err
}

// mergeStart is a call's start from both records, with the transcript's
// agent and nesting: cuff's body for a command (the verdict, the working
// directory) and for another tool (the input the gate saw, should the
// transcript have been changed since); the transcript's for a delegation,
// with what only cuff recorded filled in.
func mergeStart(tr, rec *transcript.Event) *transcript.Event {
	if tr == nil {
		return rec
	}
	out := *rec
	out.AgentID, out.ParentCallID = tr.AgentID, tr.ParentCallID
	switch r := rec.Body.(type) {
	case *transcript.BashStart:
		b := *r
		if t, ok := tr.Body.(*transcript.BashStart); ok {
			b.Command = or(b.Command, t.Command)
			b.WorkingDirectory = or(b.WorkingDirectory, t.WorkingDirectory)
			if len(b.Argv) == 0 {
				b.Argv = t.Argv
			}
		}
		out.Body = &b
	case *transcript.ToolCall:
		// cuff's record of what the agent asked for (what the gate saw),
		// with the transcript's time and what cuff lacks.
		if t, ok := tr.Body.(*transcript.ToolCall); ok {
			b := *r
			b.Tool = or(b.Tool, t.Tool)
			if len(b.Input) == 0 {
				b.Input = t.Input
			}
			out.Body, out.TS = &b, tr.TS
		}
	case *transcript.Delegation:
		if t, ok := tr.Body.(*transcript.Delegation); ok {
			d := *t
			d.AgentType, d.Task = or(d.AgentType, r.AgentType), or(d.Task, r.Task)
			out.Body, out.TS = &d, tr.TS
		}
	}
	return &out
}

// mergeEnd is a call's end from both records (tr may be nil): cuff's body
// for a command (the exit code, the duration without the approval wait),
// the transcript's for other tools and delegations, each filled in from
// the other.
func mergeEnd(tr, rec *transcript.Event) *transcript.Event {
	if tr == nil {
		return rec
	}
	out := *rec
	// Placed where the transcript ends the call, it is stamped when the
	// transcript says it ended (cuff may close a call that never ran later;
	// a sub-agent in the background ends when it stopped, which the
	// transcript dates by its task notification, while cuff's SubagentStop
	// may be recorded a little later).
	out.AgentID, out.ParentCallID, out.TS = tr.AgentID, tr.ParentCallID, tr.TS
	switch r := rec.Body.(type) {
	case *transcript.BashRun:
		b := *r
		if t, ok := tr.Body.(*transcript.BashRun); ok {
			if b.Stdout == "" && b.Stderr == "" {
				b.Stdout, b.Stderr = t.Stdout, t.Stderr
			}
			b.Description = or(b.Description, t.Description)
			b.WorkingDirectory = or(b.WorkingDirectory, t.WorkingDirectory)
			if len(b.Argv) == 0 {
				b.Argv = t.Argv
			}
		}
		out.Body = &b
	case *transcript.ToolResult:
		if t, ok := tr.Body.(*transcript.ToolResult); ok {
			b := *t
			b.IsError = b.IsError || r.IsError
			if b.DurationMS == 0 || (r.DurationMS > 0 && r.DurationMS < b.DurationMS) {
				b.DurationMS = r.DurationMS
			}
			out.Body, out.TS = &b, tr.TS
		}
	case *transcript.Delegation:
		if t, ok := tr.Body.(*transcript.Delegation); ok {
			d := *t
			d.SubAgentID, d.Result = or(d.SubAgentID, r.SubAgentID), or(d.Result, r.Result)
			if d.Success == nil {
				d.Success = r.Success
			}
			out.Body = &d
		}
	}
	return &out
}

// fitEnd makes a call's end the kind its start was written as, so the two
// pair up: a tool result ends a bash_start as a bash_run (cuff ran the
// command but has no record of its end), a bash_run ends a tool call as
// its result.
func (j *joiner) fitEnd(id string, ev *transcript.Event) *transcript.Event {
	started := j.started[id]
	out := *ev
	switch b := ev.Body.(type) {
	case *transcript.ToolResult:
		if started != transcript.TypeBashStart {
			return ev
		}
		run := &transcript.BashRun{Command: j.command[id], Stdout: b.Output, DurationMS: b.DurationMS}
		if b.IsError {
			run.Error = &transcript.RunError{Code: "tool_error", Message: firstLineOf(b.Output)}
		} else {
			zero := 0
			run.ExitCode = &zero
		}
		out.Type, out.Body = transcript.TypeBashRun, run
	case *transcript.BashRun:
		if started != transcript.TypeToolCall {
			return ev
		}
		text := strings.TrimSpace(b.Stdout + "\n" + b.Stderr)
		out.Type, out.Body = transcript.TypeToolResult, &transcript.ToolResult{Output: text, IsError: b.Failed(), DurationMS: b.DurationMS}
	default:
		return ev
	}
	return &out
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// firstLineOf is the first line of s, at most 200 bytes.
func firstLineOf(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return s
}
