// Package claude decodes Claude Code session transcripts (the JSONL files
// under ~/.claude/projects, sub-agent files included) into cuff's events.
//
// Every tool invocation in a file becomes exactly one pair of events keyed
// by Claude's own tool_use id: a Bash call is a bash_start/bash_run pair, a
// Task or Agent call a delegation start/end pair, any other tool a
// tool_call/tool_result pair. A sub-agent's work (inline sidechains, the
// agent_progress records of newer versions, the sub-agent's own file read
// beside its parent when Options.Path is set, or a sub-agent file read on
// its own) carries the sub-agent's id as agent_id and the delegation's call
// id as parent_call_id. Assistant records streamed one block per line are
// merged by message id, and each message's token usage is written once.
package claude

import (
	"io"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// Agent is the session_start agent of a Claude Code session.
const Agent = "claude-code"

// SessionID names a Claude Code session among cuff's sessions.
func SessionID(uuid string) string { return "claude:" + uuid }

// SubAgentSessionID names a sub-agent file read on its own: the parent
// session's uuid and the sub-agent's id.
func SubAgentSessionID(uuid, agentID string) string {
	return SessionID(uuid) + "/agent-" + agentID
}

// unknownSession is the uuid of a transcript that names no session.
const unknownSession = "unknown"

// Stats counts what a decoder passed over.
type Stats = stream.Stats

// Options configures a Decoder.
type Options struct {
	// FallbackUUID names the session when no record carries a sessionId,
	// e.g. the file's base name. Default "unknown".
	FallbackUUID string
	// Path is the file the transcript is read from. When set, a delegation
	// whose sub-agent left nothing in the transcript (no agent_progress, no
	// sidechain records) gets the events of the sub-agent's own file
	// (<session>/subagents/agent-<id>.jsonl beside it, or agent-<id>.jsonl
	// as Claude Code 2.0 wrote it), merged in by time between the
	// delegation's start and end. Events are then held back while a
	// delegation is open, until it ends or Flush. A missing or unreadable
	// sub-agent file is passed over. Empty: the transcript is read alone.
	Path string
	// Brief reads for counting only: long strings are cut short before
	// decoding (see stream.Shorten), so texts and outputs come out cut,
	// while every event, count, command and token figure stays exact.
	Brief bool
	// Clip cuts long strings to their two ends before decoding (see
	// stream.Clip): for reading text to index, whatever its size.
	Clip stream.ClipOptions
}

// briefWhole are the fields a brief read keeps whole: commands are counted
// by their text. (A task's prompt and the first record of its inline
// sub-agent are cut alike, so they still match.)
var briefWhole = []string{"command"}

// Decoder turns transcript records into events, one line at a time, so
// that a follower can feed it lines as they are written. It never fails on
// bad input: malformed lines and unknown record types are counted and
// skipped.
type Decoder struct {
	opts  Options
	stats Stats
	em    *stream.Emitter

	lineEvents int       // events made for the current line
	lastTS     time.Time // the latest timestamp seen, for records without one

	sessionUUID string
	cwd         string
	branch      string
	title       string // from the first real prompt
	summary     string // from a summary record
	standalone  string // agentId when the file is a sub-agent's own
	sawRecord   bool   // a user or assistant record has been seen
	// afterCommand: the last user text was a slash command, so the
	// meta text that follows is the prompt it expanded to.
	afterCommand bool

	msg          *pendingMessage
	usageCounted map[string]bool

	calls       map[string]*call
	seenCalls   map[string]bool
	seenResults map[string]bool

	links      map[string]*link // sidechain record uuid → its agent
	agents     map[string]*link // agentId → its agent
	tasks      []*task          // delegations started, to link inline sidechains
	synthetic  []*link          // delegations opened for sub-agents without a parent
	seenNested map[string]bool  // agent_progress records already decoded

	short  []byte         // a brief read's shortened line
	scan   stream.Scanner // reads records (see decode)
	noScan bool           // decode with encoding/json only (tests compare the two)

	background   map[string]*background // delegations running in the background, by call id
	notified     map[string]bool        // background delegations a notification ended, by call id
	agentRunning map[string]bool        // sub-agents seen, by id: whether one runs now
	agentTypes   map[string]string      // each sub-agent's type, by id

	files *agentFiles // sub-agents' own files, when Options.Path is set
	fixed *link       // a sub-agent file read for its parent: every record is this agent's
	outer *Decoder    // the parent decoder of a sub-agent file
}

// NewDecoder returns a decoder.
func NewDecoder(opts Options) *Decoder {
	d := &Decoder{
		opts:         opts,
		usageCounted: map[string]bool{},
		calls:        map[string]*call{},
		seenCalls:    map[string]bool{},
		seenResults:  map[string]bool{},
		links:        map[string]*link{},
		agents:       map[string]*link{},
		seenNested:   map[string]bool{},
		background:   map[string]*background{},
		agentRunning: map[string]bool{},
		notified:     map[string]bool{},
		agentTypes:   map[string]string{},
	}
	if opts.Path != "" {
		d.files = newAgentFiles(opts.Path)
	}
	d.em = stream.NewEmitter(&d.stats)
	d.em.Prepare = d.prepareStart
	return d
}

// Decode reads a whole transcript from r and passes its events to fn. It
// returns the first error of r or fn; bad lines are only counted.
func Decode(r io.Reader, fn func(*transcript.Event) error) (Stats, error) {
	return stream.Run(r, NewDecoder(Options{}), fn)
}

// Stats returns what the decoder has passed over so far.
func (d *Decoder) Stats() Stats { return d.stats }

// Line decodes one line (without its newline) and passes any events it
// completes to out. It returns an error only when out does.
func (d *Decoder) Line(raw []byte, out stream.Emit) error {
	return stream.DecodeLineWith(&d.stats, d.em, raw, out, &d.lineEvents, d.decode, d.record,
		func() bool { return d.title != "" })
}

// decode reads one record, its long strings cut when the options say so:
// with the scanner, which skips what the decoder does not use without
// decoding it, or, for a line the scanner leaves (see stream.Scanner), with
// encoding/json from the line cut by stream.Clip. Both read the same.
func (d *Decoder) decode(raw []byte, l *line) bool {
	cut := d.opts.Clip
	if d.opts.Brief {
		cut = stream.ClipOptions{Head: stream.BriefKeep}
	}
	if !d.noScan {
		d.scan.Reset(raw, cut, briefWhole...)
		if scanLine(&d.scan, l) {
			return true
		}
		*l = line{}
	}
	if cut.Head > 0 {
		d.short = stream.Clip(d.short[:0], raw, cut.Head, cut.Tail, briefWhole...)
		raw = d.short
	}
	return stream.Unmarshal(raw, l)
}

// Flush passes on the events held back: the blocks of an assistant
// message that may still be streaming, the events waiting for the
// session's title, and the events held while a delegation is open, merged
// by time with what its sub-agent's file has grown by (those read in the
// last LiveSettle wait while the delegation is open: see Wake). A
// follower calls it when the file has been quiet.
func (d *Decoder) Flush(out stream.Emit) error {
	d.em.SetOutput(out)
	d.flushMessage()
	d.flushFiles()
	d.em.Begin()
	return d.em.Err()
}

// Close ends the input: it passes on everything held, with what the open
// delegations' sub-agents wrote so far (they never ended, as far as the
// file says), and ends the delegations it opened for sub-agents whose
// parent is not in the file.
func (d *Decoder) Close(out stream.Emit) error {
	d.em.SetOutput(out)
	d.flushMessage()
	d.closeFiles()
	return d.closeSynthetic()
}

// ClosePart ends a part of a transcript read on its own while the rest is
// read apart (a viewer that loads a long transcript a part at a time): as
// Close, but the sub-agents of delegations still open are left to the part
// that ends them, which reads their files.
func (d *Decoder) ClosePart(out stream.Emit) error {
	d.em.SetOutput(out)
	d.flushMessage()
	if f := d.files; f != nil {
		clear(f.runs)
		d.drain(time.Time{})
	}
	return d.closeSynthetic()
}

// closeSynthetic ends the delegations the decoder opened for sub-agents
// whose parent is not in the file, and begins the output.
func (d *Decoder) closeSynthetic() error {
	for _, lk := range d.synthetic {
		body := &transcript.Delegation{Phase: transcript.PhaseEnd, SubAgentID: lk.agentID, Result: lk.lastText}
		d.push(d.event(d.lastTS, body, context{}, lk.callID))
	}
	d.synthetic = nil
	d.em.Begin()
	return d.em.Err()
}

// record dispatches one record by type. It reports whether the type is
// known.
func (d *Decoder) record(l *line) bool {
	if d.decodedByParent(l) {
		return true
	}
	d.learn(l)
	switch l.Type {
	case "user", "assistant":
		d.conversational(l, d.resolve(l))
	case "system":
		d.system(l, d.resolve(l))
	case "progress":
		d.resolve(l)
		d.progress(l)
	case "summary":
		if d.summary == "" {
			d.summary = stream.Title(l.Summary)
		}
	case "queue-operation":
		d.queued(l)
	case "file-history-snapshot", "attachment", "custom-title", "ai-title",
		"agent-name", "agent-setting", "permission-mode", "mode", "pr-link", "last-prompt",
		"bridge-session", "tag", "api-request", "api-request-shape", "api-request-blob", "atis-latch",
		"tools-used", "cost-state":
	case "":
		d.stats.AddUnknown("(no type)")
		return false
	default:
		d.stats.AddUnknown(l.Type)
		return false
	}
	return true
}

// decodedByParent reports whether a record of a sub-agent's file was
// decoded already by the parent, which copied it as agent_progress (Claude
// Code 2.1 did both), and notes it decoded otherwise.
func (d *Decoder) decodedByParent(l *line) bool {
	if d.outer == nil || l.UUID == "" {
		return false
	}
	if d.outer.seenNested[l.UUID] {
		return true
	}
	d.outer.seenNested[l.UUID] = true
	return false
}

// queued handles a queue-operation record: a prompt Claude Code queued
// while the agent was busy. A task notification queued says when a
// sub-agent in the background stopped, which may be long before the agent
// reads it: its delegation ends there.
func (d *Decoder) queued(l *line) {
	if l.Operation != "enqueue" {
		return
	}
	if text := strings.TrimSpace(l.Content.text()); strings.HasPrefix(text, "<task-notification>") {
		d.taskNotified(text, d.timeOf(l))
	}
}

// learn takes the session's facts from a top-level record.
func (d *Decoder) learn(l *line) {

	if ts := stream.ParseTime(l.Timestamp); !ts.IsZero() {
		if d.em.StartTS.IsZero() {
			d.em.StartTS = ts
		}
	}
	if d.sessionUUID == "" && l.SessionID != "" {
		d.sessionUUID = l.SessionID
	}
	if d.cwd == "" && l.CWD != "" {
		d.cwd = l.CWD
	}
	if d.branch == "" && l.GitBranch != "" {
		d.branch = l.GitBranch
	}
	if !d.sawRecord && (l.Type == "user" || l.Type == "assistant") {
		d.sawRecord = true
		if l.IsSidechain && l.AgentID != "" {
			d.standalone = l.AgentID
		}
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
	if d.standalone != "" {
		d.em.SessionID = SubAgentSessionID(uuid, d.standalone)
	}
	title := d.title
	if title == "" {
		title = d.summary
	}
	d.em.Start = transcript.SessionStart{Agent: Agent, Source: transcript.SourceClaude, Title: title, WorkingDirectory: d.cwd}
	if d.branch != "" {
		d.em.Start.Git = &transcript.Git{Branch: d.branch}
	}
}

// context is who an event belongs to: the agent instance and the
// delegation it works inside.
type context struct {
	agentID      string
	parentCallID string
}

// event makes an event of body for the agent in ctx.
func (d *Decoder) event(ts time.Time, body transcript.Body, ctx context, callID string) *transcript.Event {
	if d.fixed != nil && ctx.agentID == "" {
		ctx = d.fixed.context()
	}
	if d.files != nil {
		d.files.noteNested(ctx)
	}
	ev := transcript.New("", ts, body)
	if ctx.agentID != "" {
		ev.AgentID = ctx.agentID
	}
	ev.ParentCallID = ctx.parentCallID
	ev.CallID = callID
	return ev
}

// push passes an event on (or holds it until the session_start is out, or
// while a delegation whose sub-agent may have a file of its own is open).
func (d *Decoder) push(ev *transcript.Event) {
	d.lineEvents++
	d.emit(ev)
}

// timeOf is a record's time; records without one take the latest seen.
func (d *Decoder) timeOf(l *line) time.Time {
	if ts := stream.ParseTime(l.Timestamp); !ts.IsZero() {
		d.lastTS = ts
		return ts
	}
	return d.lastTS
}
