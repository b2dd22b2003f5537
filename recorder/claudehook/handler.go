package claudehook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/cuff-dev/cuff/recorder/sandbox"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/claude"
)

// Agent and session-key prefix of sessions recorded through the hook.
const (
	Agent      = "claude-code"
	keyPrefix  = "claude-hook:"
	codeDenied = "CUFF-GATE-DENY"
	codeNotRun = "not_run"
)

// AllowAnswerDefer is gate.allow_answer's value that leaves what cuff
// would allow to the agent's own permission flow.
const AllowAnswerDefer = "defer"

// Answers when no TUI is watching.
const (
	NoWatcherAllow = "allow"
	NoWatcherAsk   = "ask"
	NoWatcherDeny  = "deny"
)

// Options configures a Handler.
type Options struct {
	Store *session.Store
	Gate  *gate.Gate
	// Broker asks a person through the TUI; nil leaves every ask to Claude
	// Code's own prompt.
	Broker *approval.Broker
	// StateDir is the per-user state directory (hook state lives there).
	StateDir string
	// NoWatcher is the answer to an ask when no TUI is watching: allow,
	// ask (Claude Code's own prompt) or deny.
	NoWatcher   string
	CuffVersion string
	Now         func() time.Time
	// Sandbox, when set, confines the commands the hook allows: the answer
	// rewrites the command (updatedInput) so that Claude Code runs it inside
	// cuff's sandbox, and the gate is told so (gate.Input.Sandboxed). Without
	// it, a command that runs code the agent may have written gets no
	// decision. What a person approved runs as approved, unconfined.
	Sandbox *Sandbox
	// SandboxRequired, when set, says why there is no sandbox although
	// gate.sandbox is always: cuff then asks instead of allowing.
	SandboxRequired string
	// AllowAnswer is what the hook answers for a command the gate allows:
	// "allow" (the default: Claude Code runs it without its own prompt) or
	// "defer" (no answer: Claude Code's own permission flow decides, so cuff
	// never leaves the agent less guarded than without it). What a person
	// approved in cuff is answered allow either way.
	AllowAnswer string
	// TrustNote, when set, says what of the project's .cuff files waits to
	// be trusted (cuff trust); it is shown to the person once per session
	// as a system message.
	TrustNote string
	// MaxOutput bounds what is kept of each output (head and tail), as
	// recording.max_output_size does for cuff exec; 0 keeps everything.
	MaxOutput int
	// RedactText, when set, removes secrets from an output before it is cut
	// to MaxOutput, so that a secret across the cut is replaced whole, not
	// kept in part (the recording is redacted again as it is written).
	RedactText func(string) string
}

// Sandbox is how the hook confines the commands it allows.
type Sandbox struct {
	// Wrap rewrites a command line so that it runs inside the sandbox, with
	// the semantics Claude Code relies on kept (exit code, output, a cd
	// moving the next command's working directory).
	Wrap func(command string) string
	// Policy is what a confined command may write: what the sandbox stopped
	// is read from the command's output against it. May be nil.
	Policy *sandbox.Policy
	// Rules are Claude Code's own Bash deny and ask rules (see
	// PermissionRules), read when a command is about to be rewritten: one
	// that may match leaves the command to Claude Code, or, when the file
	// it is in is one the Policy lets sandboxed commands write, asks. Nil
	// means none.
	Rules func() []Rule
}

// Handler handles hook events.
type Handler struct{ opts Options }

// New returns a Handler.
func New(opts Options) *Handler {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NoWatcher == "" {
		opts.NoWatcher = NoWatcherAsk
	}
	return &Handler{opts: opts}
}

// call is one hook event being handled: the input and the session writer.
type call struct {
	h   *Handler
	in  *Input
	key string
	w   *session.Writer
	now time.Time
}

// Handle records what the event says and, for PreToolUse of a shell tool,
// decides whether the command may run. A nil Output means no decision.
func (h *Handler) Handle(ctx context.Context, in *Input) (*Output, error) {
	if in.SessionID == "" {
		return nil, errors.New("hook input has no session_id")
	}
	c := &call{h: h, in: in, key: keyPrefix + in.SessionID, now: h.opts.Now()}
	defer c.release()
	switch in.HookEventName {
	case EventSessionStart:
		return nil, c.sessionStart()
	case EventUserPromptSubmit:
		return nil, c.locked(func(st *state) error {
			if err := c.flushText(st); err != nil {
				return err
			}
			// What Claude Code wrote itself (a task notification, a slash
			// command's XML) is recorded as what it is.
			return c.append(st, c.event(st, claude.Prompt(in.Prompt)))
		})
	case EventPreToolUse:
		return c.preToolUse(ctx)
	case EventPostToolUse, EventPostToolUseFailure:
		return nil, c.postToolUse()
	case EventStop, EventSubagentStop:
		return nil, c.stop(ctx)
	case EventSessionEnd:
		return nil, c.sessionEnd()
	}
	return nil, nil // events cuff does not record
}

func (c *call) release() {
	if c.w != nil {
		_ = c.w.Detach()
		c.w = nil
	}
}

// locked runs fn on the session's shared state. An event after SessionEnd
// is recorded all the same, in the same cuff session: one that only ends
// something (a tool's result that arrives late, Stop) is followed by the
// session's end again; anything else (a resumed conversation, a new tool
// call) opens the session again.
func (c *call) locked(fn func(*state) error) error {
	return withState(c.h.opts.StateDir, c.in.SessionID, func(st *state) error {
		wasEnded := st.Ended
		if wasEnded && c.in.HookEventName != EventSessionEnd {
			st.Ended = false
		}
		if err := fn(st); err != nil {
			return err
		}
		if wasEnded && c.w == nil && c.in.HookEventName != EventSessionStart {
			st.Ended = true // nothing was recorded: the session stays ended
			return nil
		}
		if wasEnded && c.w != nil && endsSomething(c.in.HookEventName) {
			err := c.w.Close(st.EndStatus)
			c.w, st.Ended = nil, true
			return err
		}
		return nil
	})
}

// endsSomething reports whether an event only closes what was going on,
// rather than starting something.
func endsSomething(event string) bool {
	switch event {
	case EventPostToolUse, EventPostToolUseFailure, EventStop, EventSubagentStop:
		return true
	}
	return false
}

// writer opens the cuff session that records this Claude session, starting
// it on first use.
func (c *call) writer(st *state) (*session.Writer, error) {
	if c.w != nil {
		return c.w, nil
	}
	if st.Session != "" {
		// The conversation has its session: go on in it, even after its
		// end (a resumed conversation, an event after SessionEnd).
		if w, err := c.h.opts.Store.Resume(st.Session); err == nil {
			c.w = w
			return w, nil
		}
	}
	start := &transcript.SessionStart{Agent: Agent, Source: transcript.SourceClaudeHook, WorkingDirectory: c.in.Cwd,
		CuffVersion: c.h.opts.CuffVersion, Model: c.in.Model, Title: c.in.SessionTitle,
		Host: &transcript.Host{OS: runtime.GOOS, Arch: runtime.GOARCH}}
	start.Host.Hostname, _ = os.Hostname()
	w, _, err := c.h.opts.Store.Current(c.key, session.CurrentOptions{Start: start, ConversationID: c.in.SessionID, Now: c.now})
	if err != nil {
		return nil, err
	}
	c.w, st.Session = w, w.ID()
	return w, nil
}

// event builds an event of this call's agent: the main agent, or the
// sub-agent running inside the newest open delegation.
func (c *call) event(st *state, body transcript.Body) *transcript.Event {
	return c.eventOf(st, c.in.AgentID, body)
}

// eventOf builds an event of agent: "" for the main agent, else a
// sub-agent, nested in the delegation it runs in.
func (c *call) eventOf(st *state, agent string, body transcript.Body) *transcript.Event {
	ev := transcript.New("", c.now, body)
	ev.ConversationID = c.in.SessionID
	if agent != "" {
		ev.AgentID = agent
		ev.ParentCallID = st.delegationOf(agent)
	}
	return ev
}

func (c *call) append(st *state, events ...*transcript.Event) error {
	w, err := c.writer(st)
	if err != nil {
		return err
	}
	return w.Append(events...)
}

// flushText records the assistant text written to the transcripts since
// the last look, so that turns come before the tools they led to: the main
// transcript's as the main agent's, and, for an event of a sub-agent, that
// sub-agent's own file as its own.
func (c *call) flushText(st *state) error {
	if st.Session == "" && st.Offset == 0 {
		// The first event cuff sees of a conversation already under way
		// (the hook was installed mid-session, or SessionStart was missed):
		// its history is not replayed, as on resume; it stays readable as
		// the claude:<uuid> session.
		st.Offset = transcriptSize(c.in.TranscriptPath)
		return nil
	}
	fresh := c.newTurns(st, c.in.TranscriptPath, &st.Offset, "")
	if c.in.AgentID != "" {
		if st.SubOffsets == nil {
			st.SubOffsets = map[string]int64{}
		}
		off := st.SubOffsets[c.in.AgentID]
		fresh = append(fresh, c.newTurns(st, subAgentTranscript(c.in), &off, c.in.AgentID)...)
		st.SubOffsets[c.in.AgentID] = off
	}
	if len(fresh) == 0 {
		return nil
	}
	return c.append(st, fresh...)
}

// newTurns reads one transcript file from *offset on (moving it past what
// it read) and returns, in its order, the assistant turns not recorded yet,
// as events of agent ("" for the main agent), and the commands it shows
// were never run (see neverRan).
func (c *call) newTurns(st *state, path string, offset *int64, agent string) []*transcript.Event {
	entries, next, err := readTranscript(path, *offset, agent != "")
	if err != nil {
		return nil // the transcript lags or is gone: text is best effort
	}
	*offset = next
	var fresh []*transcript.Event
	for _, e := range entries {
		if e.outcome != nil {
			if run := c.neverRan(st, *e.outcome); run != nil {
				fresh = append(fresh, run)
			}
			continue
		}
		ev := e.turn
		t := ev.Body.(*transcript.ChatTurn)
		key := t.MessageID + "/" + fmt.Sprint(t.Thinking) + "/" + fmt.Sprint(len(t.Text))
		if t.MessageID != "" && st.seen(key) {
			continue
		}
		st.remember(key)
		if !t.Thinking && st.saidBefore(t.Text) {
			continue
		}
		out := c.eventOf(st, agent, t)
		out.TS = ev.TS
		fresh = append(fresh, out)
	}
	return fresh
}

// awaitLastMessage waits (up to TranscriptWait) until the transcript holds
// the message the agent stopped with, so that the turn's last text and the
// tool outcomes before it are read in their order.
func (c *call) awaitLastMessage(ctx context.Context) {
	if c.in.LastMessage == "" {
		return
	}
	path, from := c.in.TranscriptPath, peekState(c.h.opts.StateDir, c.in.SessionID).Offset
	if c.in.HookEventName == EventSubagentStop {
		path, from = subAgentTranscript(c.in), peekState(c.h.opts.StateDir, c.in.SessionID).SubOffsets[c.in.AgentID]
	}
	awaitLine(ctx, path, from, jsonPrefix(c.in.LastMessage), TranscriptWait)
}

// jsonPrefix is the start of text as a JSON string (as Claude Code writes
// it), enough to recognise it in a transcript line.
func jsonPrefix(text string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(text)
	b := bytes.TrimSuffix(bytes.TrimSpace(buf.Bytes()), []byte(`"`))
	if len(b) > 80 {
		b = b[:80]
	}
	return b
}

// neverRan turns the outcome of a command that cuff let Claude Code ask
// about into a not_run run, when Claude Code answered the model that it
// was denied: with cuff's own reason (no one to ask, as under -p) or the
// person's rejection in Claude Code's prompt. No PostToolUse comes for
// such a call, so its result is recorded here, in its place.
func (c *call) neverRan(st *state, o toolOutcome) *transcript.Event {
	oc, ok := st.Open[o.ID]
	if !ok || oc.Kind != kindBash || !oc.Recorded || oc.Asked == "" || !o.IsError || !deniedByClaude(o.Content, oc.Asked) {
		return nil
	}
	delete(st.Open, o.ID)
	start := transcript.New("", c.now, &transcript.BashStart{})
	start.CallID, start.ConversationID, start.AgentID, start.ParentCallID = o.ID, c.in.SessionID, oc.AgentID, oc.ParentCallID
	return notRun(start, oc.Command, c.in.Cwd, "denied by Claude Code: "+firstLine(o.Content))
}

// deniedByClaude reports whether a tool result is Claude Code's denial of
// a call (rather than the failure of a run): the reason cuff gave, or the
// words Claude Code uses when the person rejects the call.
func deniedByClaude(content, reason string) bool {
	content, reason = strings.TrimSpace(content), strings.TrimSpace(reason)
	if len(reason) > 200 { // the reason may reach the model cut short
		reason = reason[:200]
	}
	if reason != "" && strings.Contains(content, reason) {
		return true
	}
	for _, p := range []string{"The user doesn't want to proceed", "Claude requested permissions", "Permission to use", "[Request interrupted"} {
		if strings.HasPrefix(content, p) {
			return true
		}
	}
	return false
}

// awaitTranscript waits (up to TranscriptWait) until the transcript the
// tool call is written to holds it, so that the text before the call is
// there to be recorded before it.
func (c *call) awaitTranscript(ctx context.Context) {
	if c.in.ToolUseID == "" {
		return
	}
	path, from := c.in.TranscriptPath, peekState(c.h.opts.StateDir, c.in.SessionID).Offset
	if c.in.AgentID != "" {
		path, from = subAgentTranscript(c.in), peekState(c.h.opts.StateDir, c.in.SessionID).SubOffsets[c.in.AgentID]
	}
	awaitLine(ctx, path, from, []byte(`"`+c.in.ToolUseID+`"`), TranscriptWait)
}

func (c *call) sessionStart() error {
	return c.locked(func(st *state) error {
		st.Ended = false                                // a resumed session is recorded again
		st.Offset = transcriptSize(c.in.TranscriptPath) // on resume, history is not replayed
		_, err := c.writer(st)
		return err
	})
}

// toolCallID is the call's id: Claude Code's tool_use_id, or one cuff makes.
func (c *call) toolCallID() string {
	if c.in.ToolUseID != "" {
		return c.in.ToolUseID
	}
	return transcript.NewCallID()
}

func (c *call) sessionEnd() error {
	err := c.locked(func(st *state) error {
		if st.Ended {
			return nil // ended already, and so was every event since
		}
		c.withdrawPending()
		if err := c.flushText(st); err != nil {
			return err
		}
		if err := c.closeOpen(st, true); err != nil {
			return err
		}
		w, err := c.writer(st)
		if err != nil {
			return err
		}
		status := transcript.StatusComplete
		if c.in.Reason == "other" {
			status = transcript.StatusShutdown
		}
		err = w.Close(status)
		c.w = nil
		st.Ended, st.EndStatus, st.Open, st.Delegations = true, status, map[string]openCall{}, nil
		return err
	})
	if c.h.opts.Broker != nil {
		_ = c.h.opts.Broker.Forget(c.key)
	}
	pruneStates(c.h.opts.StateDir, c.now)
	return err
}

func (c *call) stop(ctx context.Context) error {
	c.awaitLastMessage(ctx)
	return c.locked(func(st *state) error {
		if err := c.flushText(st); err != nil {
			return err
		}
		if c.in.HookEventName == EventSubagentStop {
			var events []*transcript.Event
			if c.in.LastMessage != "" && !st.saidBefore(c.in.LastMessage) {
				events = append(events, c.event(st, &transcript.ChatTurn{Role: transcript.RoleAssistant, Text: c.in.LastMessage}))
			}
			if end := c.endAsync(st); end != nil {
				events = append(events, end)
			}
			if len(events) == 0 {
				return nil
			}
			return c.append(st, events...)
		}
		if c.in.LastMessage != "" && !st.saidBefore(c.in.LastMessage) {
			if err := c.append(st, c.event(st, &transcript.ChatTurn{Role: transcript.RoleAssistant, Text: c.in.LastMessage})); err != nil {
				return err
			}
		}
		if err := c.closeOpen(st, false); err != nil {
			return err
		}
		if c.w != nil {
			_ = c.w.Refresh() // the end of a turn: keep the summary current, so the session's end is cheap
		}
		return nil
	})
}

// withdrawPending closes the approval requests of this session that no one
// answered: the session ended, so no answer can reach the agent any more
// (a later `cuff approve` is refused), and the withdrawal is recorded
// before the session's end.
func (c *call) withdrawPending() {
	b := c.h.opts.Broker
	if b == nil {
		return
	}
	pending, err := b.Pending()
	if err != nil {
		return
	}
	for _, r := range pending {
		if r.AgentSession == c.key {
			_, _ = b.WithdrawBecause(r.ID, approval.WithdrawnSessionEnded)
		}
	}
}

// endAsync ends the background delegation of the sub-agent that stopped,
// with its last message as the result.
func (c *call) endAsync(st *state) *transcript.Event {
	for id, oc := range st.Open {
		if oc.Kind != kindDelegation || !oc.Async || oc.SubAgentID == "" || oc.SubAgentID != c.in.AgentID {
			continue
		}
		ok := true
		ev := transcript.New("", c.now, &transcript.Delegation{Phase: transcript.PhaseEnd, SubAgentID: oc.SubAgentID,
			Result: c.in.LastMessage, Success: &ok})
		ev.CallID, ev.ConversationID, ev.AgentID, ev.ParentCallID = id, c.in.SessionID, oc.AgentID, oc.ParentCallID
		if ev.AgentID == "" {
			ev.AgentID = transcript.MainAgent
		}
		delete(st.Open, id)
		st.endDelegation(id)
		return ev
	}
	return nil
}

// closeOpen ends the calls that never got a result: the user rejected them
// in Claude Code's prompt, or the turn was cancelled. A sub-agent running
// in the background goes on past its parent's Stop: it is closed only at
// the session's end (final).
func (c *call) closeOpen(st *state, final bool) error {
	var events []*transcript.Event
	kept := map[string]openCall{}
	for id, oc := range st.Open {
		if !final && (oc.Async || st.Open[oc.ParentCallID].Async) {
			kept[id] = oc // a background sub-agent, or one of its calls: it goes on
			continue
		}
		if !oc.Recorded {
			if oc.Kind == kindBash { // asked in the TUI, never answered: shown as not run
				start := transcript.New("", c.now, &transcript.BashStart{Command: oc.Command, WorkingDirectory: c.in.Cwd,
					Verdict: &transcript.Verdict{Decision: PermissionAsk}})
				start.CallID, start.ConversationID, start.AgentID, start.ParentCallID = id, c.in.SessionID, oc.AgentID, oc.ParentCallID
				if start.AgentID == "" {
					start.AgentID = transcript.MainAgent
				}
				events = append(events, start, notRun(start, oc.Command, c.in.Cwd, approval.WithdrawnSessionEnded))
			}
			continue
		}
		var body transcript.Body
		switch oc.Kind {
		case kindBash:
			body = &transcript.BashRun{Command: oc.Command, Error: &transcript.RunError{Code: codeNotRun,
				Message: "the command did not run or its result never arrived (rejected or cancelled in Claude Code)"}}
		case kindDelegation:
			f := false
			body = &transcript.Delegation{Phase: transcript.PhaseEnd, Success: &f, Result: "the sub-agent did not report back"}
		default:
			body = &transcript.ToolResult{Tool: oc.Tool, IsError: true, Output: "the tool did not run or its result never arrived"}
		}
		ev := transcript.New("", c.now, body)
		ev.CallID, ev.ConversationID, ev.AgentID, ev.ParentCallID = id, c.in.SessionID, oc.AgentID, oc.ParentCallID
		if ev.AgentID == "" {
			ev.AgentID = transcript.MainAgent
		}
		events = append(events, ev)
	}
	st.Open = kept
	var delegations []string
	for _, d := range st.Delegations {
		if _, ok := kept[d]; ok {
			delegations = append(delegations, d)
		}
	}
	for a, d := range st.Agents {
		if _, ok := kept[d]; !ok {
			delete(st.Agents, a)
		}
	}
	st.Delegations = delegations
	if len(events) == 0 {
		return nil
	}
	return c.append(st, events...)
}

// rawInput is the tool input as a JSON object (never null).
func (c *call) rawInput() json.RawMessage {
	if len(c.in.ToolInput) == 0 || string(c.in.ToolInput) == "null" {
		return json.RawMessage("{}")
	}
	return c.in.ToolInput
}

// untrustedTool reports whether a tool brings outside text into the context.
func untrustedTool(tool string) bool {
	switch tool {
	case "WebFetch", "WebSearch":
		return true
	}
	lower := strings.ToLower(tool)
	return strings.HasPrefix(lower, "mcp__") && (strings.Contains(lower, "fetch") || strings.Contains(lower, "browse") ||
		strings.Contains(lower, "search") || strings.Contains(lower, "web"))
}
