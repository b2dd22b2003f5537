// Package codex decodes OpenAI Codex CLI rollouts (the JSONL files under
// ~/.codex/sessions) into cuff's events.
//
// Every call in a rollout becomes exactly one pair of events keyed by
// Codex's own call_id: a shell call (shell, shell_command, exec_command,
// local_shell_call) is a bash_start/bash_run pair with the argv and the
// exit code, any other tool a tool_call/tool_result pair. Messages that a
// rollout records twice (as a response item and as a UI event) are written
// once, and the cumulative token counts become per-turn usage.
package codex

import (
	"io"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// Agent is the session_start agent of a Codex session.
const Agent = "codex"

// SessionID names a Codex session among cuff's sessions.
func SessionID(uuid string) string { return "codex:" + uuid }

// unknownSession is the uuid of a rollout that names no session.
const unknownSession = "unknown"

// Stats counts what a decoder passed over.
type Stats = stream.Stats

// Options configures a Decoder.
type Options struct {
	// FallbackUUID names the session when the rollout has no session_meta,
	// e.g. the uuid in the file's name. Default "unknown".
	FallbackUUID string
	// Brief reads for counting only: long outputs are cut short before
	// decoding (see stream.Shorten), while every event, count, command
	// and token figure stays exact.
	Brief bool
	// Clip cuts long strings to their two ends before decoding (see
	// stream.Clip): for reading text to index, whatever its size.
	Clip stream.ClipOptions
}

// briefWhole are the fields a brief read keeps whole: commands are counted
// by their text, and messages are told apart by theirs (a rollout records
// most of them twice).
var briefWhole = []string{"command", "cmd", "text", "message"}

// Decoder turns rollout lines into events, one line at a time, so that a
// follower can feed it lines as they are written. It never fails on bad
// input: malformed lines and unknown types are counted and skipped.
type Decoder struct {
	opts  Options
	stats Stats
	em    *stream.Emitter

	lineEvents int
	lastTS     time.Time

	sessionUUID string
	cwd         string
	git         *transcript.Git
	title       string
	model       string

	calls     map[string]*call  // open calls
	order     []string          // ids of calls in the order they opened, for aborts
	seenCalls map[string]bool   // every call id written
	ended     map[string]bool   // every call id whose end was written
	running   map[string]string // unified-exec session id → the exec call still running

	fromItems, fromEvents map[uint64]int // messages written from each of the two records
	short                 []byte         // a brief read's shortened line

	usage        transcript.Usage // counted but not yet written on a turn
	lastTotal    tokenUsage
	sawWebSearch bool
	// held is the last assistant answer, held back until the token count
	// that follows its response, so that the count is written on it.
	held *transcript.Event
	// failedCalls are calls Codex reported failed before their output.
	failedCalls map[string]bool
}

// NewDecoder returns a decoder.
func NewDecoder(opts Options) *Decoder {
	d := &Decoder{
		opts:      opts,
		calls:     map[string]*call{},
		seenCalls: map[string]bool{},
		ended:     map[string]bool{},
		running:   map[string]string{},

		failedCalls: map[string]bool{},
		fromItems:   map[uint64]int{},
		fromEvents:  map[uint64]int{},
	}
	d.em = stream.NewEmitter(&d.stats)
	d.em.Prepare = d.prepareStart
	return d
}

// Decode reads a whole rollout from r and passes its events to fn. It
// returns the first error of r or fn; bad lines are only counted.
func Decode(r io.Reader, fn func(*transcript.Event) error) (Stats, error) {
	return stream.Run(r, NewDecoder(Options{}), fn)
}

// Stats returns what the decoder has passed over so far.
func (d *Decoder) Stats() Stats { return d.stats }

// Line decodes one line (without its newline) and passes any events it
// completes to out. It returns an error only when out does.
func (d *Decoder) Line(raw []byte, out stream.Emit) error {
	switch {
	case d.opts.Brief:
		d.short = stream.Shorten(d.short[:0], raw, stream.BriefKeep, briefWhole...)
		raw = d.short
	case d.opts.Clip.Head > 0:
		d.short = stream.Clip(d.short[:0], raw, d.opts.Clip.Head, d.opts.Clip.Tail, briefWhole...)
		raw = d.short
	}
	return stream.DecodeLine(&d.stats, d.em, raw, out, &d.lineEvents, d.dispatch,
		func() bool { return d.title != "" })
}

// Flush passes on the events waiting for the session's title. A follower
// calls it when the file has been quiet.
func (d *Decoder) Flush(out stream.Emit) error {
	d.em.SetOutput(out)
	d.release()
	d.em.Begin()
	return d.em.Err()
}

// Close ends the input: the answer held back for its token count is
// written with what was counted; token usage that no answer can carry
// (a session that ends in a tool call) is written on a turn of its own,
// which counts toward the totals and is not shown.
func (d *Decoder) Close(out stream.Emit) error {
	d.em.SetOutput(out)
	if d.held != nil && d.usage != (transcript.Usage{}) {
		d.giveUsage(d.held.Body.(*transcript.ChatTurn), "")
	}
	d.release()
	if d.usage != (transcript.Usage{}) {
		u := d.usage
		d.usage = transcript.Usage{}
		d.push(d.event(d.lastTS, &transcript.ChatTurn{Role: transcript.RoleAssistant, Model: d.model,
			MessageID: d.messageID(""), Usage: &u}, ""))
	}
	d.em.Begin()
	return d.em.Err()
}

// dispatch handles one line by type; it reports whether the type is known.
func (d *Decoder) dispatch(l *rolloutLine) bool {
	ts := d.timeOf(l.Timestamp)
	p := &l.Payload
	switch l.Type {
	case "session_meta":
		d.meta(p, ts)
	case "turn_context":
		if p.Model != "" {
			d.model = p.Model
		}
		if d.cwd == "" {
			d.cwd = p.CWD
		}
	case "response_item":
		return d.responseItem(p, ts)
	case "event_msg":
		return d.eventMsg(p, ts)
	case "world_state", "token_usage_record":
		// the state Codex sends the model, and per-response token counts
		// that token_count events repeat cumulatively
	case "compacted":
		text := p.Message
		if text == "" {
			text = "Conversation compacted"
		}
		d.push(d.event(ts, &transcript.ChatTurn{Role: transcript.RoleSystem, Text: text}, ""))
	case "":
		d.stats.AddUnknown("(no type)")
		return false
	default:
		d.stats.AddUnknown(l.Type)
		return false
	}
	return true
}

// meta takes the session's facts from session_meta; only the first counts.
func (d *Decoder) meta(p *payload, ts time.Time) {
	if d.sessionUUID != "" {
		return
	}
	d.sessionUUID = p.ID
	if t := stream.ParseTime(p.Timestamp); !t.IsZero() {
		d.em.StartTS = t
	} else if d.em.StartTS.IsZero() {
		d.em.StartTS = ts
	}
	if p.CWD != "" {
		d.cwd = p.CWD
	}
	if g := p.Git; g != nil && (g.Branch != "" || g.CommitHash != "") {
		d.git = &transcript.Git{Branch: g.Branch, SHA: g.CommitHash}
	}
}

// prepareStart fills in the session_start just before it is written.
func (d *Decoder) prepareStart() {
	uuid := d.sessionUUID
	if uuid == "" {
		uuid = d.opts.FallbackUUID
	}
	if uuid == "" {
		uuid = unknownSession
	}
	d.em.SessionID = SessionID(uuid)
	d.em.Start = transcript.SessionStart{Agent: Agent, Source: transcript.SourceCodex, Title: d.title,
		WorkingDirectory: d.cwd, Git: d.git}
}

// event makes an event of the main agent (Codex records no sub-agents).
func (d *Decoder) event(ts time.Time, body transcript.Body, callID string) *transcript.Event {
	ev := transcript.New("", ts, body)
	ev.CallID = callID
	return ev
}

// push passes an event on (or holds it until the session_start is out),
// after the answer held back for its token count.
func (d *Decoder) push(ev *transcript.Event) {
	d.release()
	d.lineEvents++
	d.em.Emit(ev)
}

// hold keeps an assistant answer back until the token count of its
// response arrives (or anything else is written).
func (d *Decoder) hold(ev *transcript.Event) {
	d.release()
	d.lineEvents++
	d.held = ev
}

// release passes on the answer held back, if any.
func (d *Decoder) release() {
	if ev := d.held; ev != nil {
		d.held = nil
		d.em.Emit(ev)
	}
}

// timeOf is a line's time; lines without one take the latest seen.
func (d *Decoder) timeOf(s string) time.Time {
	if ts := stream.ParseTime(s); !ts.IsZero() {
		d.lastTS = ts
		if d.em.StartTS.IsZero() {
			d.em.StartTS = ts
		}
		return ts
	}
	return d.lastTS
}
