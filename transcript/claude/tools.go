package claude

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// callKind is how a tool invocation is recorded.
type callKind int

const (
	kindTool callKind = iota
	kindBash
	kindDelegation
)

// call is a tool invocation waiting for its result.
type call struct {
	kind      callKind
	name      string
	ts        time.Time
	cwd       string
	shell     string
	bash      bashInput
	agentType string
	agentID   string // the sub-agent, when the call names it (one resumed)
	resumes   bool   // a message that resumes a stopped sub-agent
	task      *task
}

// bashInput is the input of the Bash (or PowerShell) tool.
type bashInput struct {
	Command         string `json:"command"`
	Description     string `json:"description"`
	Timeout         int64  `json:"timeout"` // milliseconds
	RunInBackground bool   `json:"run_in_background"`
}

// delegationInput is the input of the Task (or Agent) tool; resume named
// a sub-agent to go on with (Claude Code 2.0).
type delegationInput struct {
	Prompt       string `json:"prompt"`
	Description  string `json:"description"`
	SubagentType string `json:"subagent_type"`
	Resume       string `json:"resume"`
}

// sendMessageTool sends a sub-agent a message (Claude Code 2.1.100 and
// later): to a sub-agent that has stopped it is a new run of it, reported
// by a task notification as the first was.
const sendMessageTool = "SendMessage"

// sendMessageInput is the input of the SendMessage tool.
type sendMessageInput struct {
	To      string `json:"to"`
	Message string `json:"message"`
}

// background is a delegation whose sub-agent runs in the background: the
// tool returned at once, and a task notification reports the sub-agent's
// end later.
type background struct {
	agentID   string
	agentType string
	ctx       context // who delegated
}

// Shell tool names and the shell each runs.
var shellTools = map[string]string{"Bash": "", "PowerShell": "powershell"}

// isDelegation reports whether a tool starts a sub-agent; it was named
// Task before Claude Code 2.1 and Agent after.
func isDelegation(name string) bool { return name == "Task" || name == "Agent" }

// msPerSecond converts the Bash tool's millisecond timeout.
const msPerSecond = 1000

// toolUse records a tool_use block as the start of an invocation, once per
// tool_use id.
func (d *Decoder) toolUse(b *block, l *line, ts time.Time, ctx context, index int) []*transcript.Event {
	id := b.ID
	if id == "" {
		id = fmt.Sprintf("cuff_claude_%d_%d", d.stats.Lines, index)
	}
	if d.seenCall(id) {
		return nil
	}
	d.markCall(id)
	c := &call{name: b.Name, ts: ts, cwd: l.CWD}
	d.calls[id] = c
	if shell, ok := shellTools[b.Name]; ok {
		c.kind, c.shell = kindBash, shell
		_ = json.Unmarshal(b.Input, &c.bash) // a bad input leaves the fields empty
		return []*transcript.Event{d.event(ts, &transcript.BashStart{Command: c.bash.Command, WorkingDirectory: l.CWD}, ctx, id)}
	}
	if isDelegation(b.Name) {
		var in delegationInput
		_ = json.Unmarshal(b.Input, &in)
		what := in.Prompt
		if what == "" {
			what = in.Description
		}
		if in.SubagentType == "" && in.Resume != "" {
			in.SubagentType = d.agentTypes[in.Resume]
		}
		return []*transcript.Event{d.startDelegation(c, id, in.SubagentType, what, in.Resume, ts, ctx)}
	}
	if b.Name == sendMessageTool {
		var in sendMessageInput
		_ = json.Unmarshal(b.Input, &in)
		if running, known := d.agentRunning[in.To]; known && !running {
			// A sub-agent that stopped runs again to answer.
			c.resumes = true
			return []*transcript.Event{d.startDelegation(c, id, d.agentTypes[in.To], in.Message, in.To, ts, ctx)}
		}
	}
	input := b.Input
	if len(input) == 0 || !json.Valid(input) {
		input = nil
	}
	return []*transcript.Event{d.event(ts, &transcript.ToolCall{Tool: b.Name, Input: input}, ctx, id)}
}

// startDelegation makes the start of a delegation to a sub-agent of type
// agentType, its task what; agentID names the sub-agent when the call does
// (one resumed).
func (d *Decoder) startDelegation(c *call, id, agentType, what, agentID string, ts time.Time, ctx context) *transcript.Event {
	c.kind, c.agentType, c.agentID = kindDelegation, agentType, agentID
	c.task = &task{callID: id, prompt: strings.TrimSpace(what)}
	d.tasks = append(d.tasks, c.task)
	start := d.event(ts, &transcript.Delegation{Phase: transcript.PhaseStart, AgentType: agentType, Task: what}, ctx, id)
	if !safeName(agentID) {
		agentID = ""
	}
	if agentID != "" {
		d.agentRunning[agentID] = true
	}
	d.openDelegation(id, agentID, start)
	return start
}

// task is a started delegation: its call id and prompt, and the sub-agent
// linked to it once that agent's records are seen.
type task struct {
	callID  string
	prompt  string
	agentID string
	linked  bool
	done    bool
}

// toolResult records a tool_result block as the end of its invocation,
// once per tool_use id.
func (d *Decoder) toolResult(b *block, tur *toolUseResult, ts time.Time, ctx context) {
	id := b.ToolUseID
	if id == "" {
		id = fmt.Sprintf("cuff_claude_result_%d", d.stats.Lines)
	}
	if d.seenResult(id) {
		return
	}
	d.markResult(id)
	c := d.calls[id]
	delete(d.calls, id)
	out := b.Content.text()
	if c == nil {
		d.push(d.event(ts, &transcript.ToolResult{Output: out, IsError: b.IsError}, ctx, id))
		return
	}
	switch c.kind {
	case kindBash:
		d.push(d.event(ts, bashRun(c, b, tur, out, ts), ctx, id))
	case kindDelegation:
		d.delegationResult(id, c, b, tur, out, ts, ctx)
	default:
		d.push(d.event(ts, &transcript.ToolResult{Tool: c.name, Output: out, IsError: b.IsError,
			DurationMS: stream.DurationMS(c.ts, ts)}, ctx, id))
	}
}

// delegationResult handles the result of a delegation: its end, or for a
// sub-agent launched in the background (or resumed by a message) the
// note that it runs, whose task notification ends the delegation later.
func (d *Decoder) delegationResult(id string, c *call, b *block, tur *toolUseResult, out string, ts time.Time, ctx context) {
	agentID := c.agentID
	if tur != nil && tur.AgentID != "" {
		agentID = tur.AgentID
	}
	if !safeName(agentID) {
		agentID = ""
	}
	if agentID != "" && c.agentType != "" {
		d.agentTypes[agentID] = c.agentType
	}
	async := tur != nil && (tur.IsAsync || tur.Status == "async_launched")
	if !b.IsError && (async || c.resumes) {
		d.background[id] = &background{agentID: agentID, agentType: c.agentType, ctx: ctx}
		if agentID != "" {
			d.agentRunning[agentID] = true
		}
		d.knowAgent(id, agentID)
		return
	}
	if c.task != nil {
		c.task.done = true
	}
	ok := !b.IsError
	end := &transcript.Delegation{Phase: transcript.PhaseEnd, AgentType: c.agentType, Result: out, Success: &ok,
		SubAgentID: agentID}
	fileAgent := "" // the sub-agent whose own file may hold its work
	if tur != nil && tur.AgentID != "" {
		fileAgent = agentID
	} else if end.SubAgentID == "" && c.task != nil {
		end.SubAgentID = c.task.agentID
	}
	if agentID != "" {
		d.agentRunning[agentID] = false
	}
	d.endDelegation(id, fileAgent, d.event(ts, end, ctx, id))
}

// taskNotified ends the background delegation a task notification reports
// on (Claude Code tells the main agent when a sub-agent it launched in the
// background stops), at the notification's time, with the sub-agent's
// result. A notification of anything else (a background command) ends
// nothing.
func (d *Decoder) taskNotified(text string, ts time.Time) {
	n := parseNotification(text)
	id, bg := n.toolUseID, d.background[n.toolUseID]
	if d.notified[id] {
		return // read after it was queued: it ended there
	}
	if bg == nil && n.taskID != "" {
		for callID, b := range d.background {
			if b.agentID == n.taskID {
				id, bg = callID, b
				break
			}
		}
	}
	if bg == nil {
		return
	}
	delete(d.background, id)
	d.notified[id] = true
	agentID := bg.agentID
	if agentID == "" && safeName(n.taskID) {
		agentID = n.taskID
	}
	if agentID != "" {
		d.agentRunning[agentID] = false
	}
	for _, t := range d.tasks {
		if t.callID == id {
			t.done = true
		}
	}
	ok := n.status == "" || n.status == "completed"
	end := &transcript.Delegation{Phase: transcript.PhaseEnd, AgentType: bg.agentType, SubAgentID: agentID,
		Result: n.result, Success: &ok}
	d.flushMessage()
	d.endDelegation(id, agentID, d.event(ts, end, bg.ctx, id))
}

// Codes of the run errors the decoder records for Bash calls that did not
// run to an exit code.
const (
	// ErrRejected: the person (or a hook) refused the call; it never ran.
	ErrRejected = "rejected"
	// ErrToolError: Claude Code refused the input before running it.
	ErrToolError = "tool_error"
	// ErrBackground: the command went on in the background; its exit is not
	// in the transcript.
	ErrBackground = transcript.RunBackground
	// ErrNoExitCode: the command failed but the transcript does not say
	// with which code (Claude Code 1.0 wrote only its output).
	ErrNoExitCode = "exit_code_unknown"
)

// rejectedMarkers are the texts of a tool call the person refused.
var rejectedMarkers = []string{"The user doesn't want to proceed with this tool use", "User rejected tool use"}

// bashRun builds the outcome of a Bash call from its tool_result and the
// structured toolUseResult next to it.
func bashRun(c *call, b *block, tur *toolUseResult, out string, ts time.Time) *transcript.BashRun {
	r := &transcript.BashRun{
		Command: c.bash.Command, Description: c.bash.Description, WorkingDirectory: c.cwd, Shell: c.shell,
		TimeoutSeconds: c.bash.Timeout / msPerSecond, DurationMS: stream.DurationMS(c.ts, ts),
	}
	structured := tur != nil && (tur.Stdout != "" || tur.Stderr != "" || tur.Interrupted || tur.BackgroundTaskID != "")
	if structured {
		r.Stdout, r.Stderr, r.Interrupted = tur.Stdout, tur.Stderr, tur.Interrupted
	}
	switch {
	case r.Interrupted:
	case containsAny(out, rejectedMarkers):
		r.Error = &transcript.RunError{Code: ErrRejected, Message: firstLine(out)}
	case b.IsError && strings.Contains(out, "<tool_use_error>"):
		r.Error = &transcript.RunError{Code: ErrToolError, Message: firstLine(out)}
	case b.IsError:
		code, rest, ok := exitCodePrefix(out)
		if ok {
			r.ExitCode = &code
			if !structured {
				r.Stdout = rest
			}
			break
		}
		r.Error = &transcript.RunError{Code: ErrNoExitCode, Message: "the transcript records no exit code"}
		if !structured {
			r.Stderr = out
		}
	case (tur != nil && tur.BackgroundTaskID != "") || strings.HasPrefix(out, "Command running in background"):
		r.Error = &transcript.RunError{Code: ErrBackground, Message: firstLine(out)}
		if !structured {
			r.Stdout = out
		}
	default:
		zero := 0
		r.ExitCode = &zero
		if !structured {
			r.Stdout = out
		}
	}
	return r
}

// exitCodePrefix reads the "Exit code N" line Claude Code puts before the
// output of a failed command.
func exitCodePrefix(out string) (code int, rest string, ok bool) {
	s := strings.TrimPrefix(out, "Error: ")
	const prefix = "Exit code "
	if !strings.HasPrefix(s, prefix) {
		return 0, "", false
	}
	s = s[len(prefix):]
	first, rest, _ := strings.Cut(s, "\n")
	n, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return 0, "", false
	}
	return n, rest, true
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// maxMessageLength bounds a run error's message taken from output.
const maxMessageLength = 200

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > maxMessageLength {
		s = strings.ToValidUTF8(s[:maxMessageLength], "") + "…"
	}
	return s
}
