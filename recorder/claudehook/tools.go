package claudehook

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/cuff-dev/cuff/recorder/sandbox"
	"github.com/cuff-dev/cuff/transcript"
)

// gated is the gate's answer for one Bash command.
type gated struct {
	permission string // allow, deny, ask, or "" (no decision)
	reason     string
	result     gate.Result
	viaTUI     bool // ask a person in cuff's TUI
	granted    bool // a person approved it for the session earlier
}

// decisionNone is the recorded decision when cuff leaves a command to the
// agent's own permission flow.
const decisionNone = "none"

// verdict is what the gate said, as recorded on bash_start: the decision
// cuff gave the agent (ask when a person decides in the TUI), with the
// tier, rule and reasons of the part that decided it.
func (g gated) verdict() *transcript.Verdict {
	v := &transcript.Verdict{Decision: g.permission, Rule: g.result.Rule, Reasons: g.result.Reasons}
	if g.viaTUI {
		v.Decision = PermissionAsk
	}
	if v.Decision == "" {
		v.Decision = decisionNone
	}
	if g.result.Verdict != 0 || g.result.Rule != "" || len(g.result.Reasons) > 0 {
		v.Tier = g.result.Tier.String()
	}
	if g.granted {
		v.Reasons = []string{"approved for the rest of this session"}
	}
	return v
}

// decideBash classifies a command for this agent session. A command a
// person approved for the rest of the session runs when the gate would ask
// about it, never when a rule denies it or it touches cuff's state, the
// agent's settings or a guarded directory (gate.Result.Grantable).
func (c *call) decideBash(ctx context.Context, command string) gated {
	b := c.h.opts.Broker
	var taint gate.Taint
	if b != nil {
		taint, _ = gate.ParseTaint(strings.Join(b.Taint(c.key), ","))
	}
	res := c.h.opts.Gate.Decide(ctx, command, gate.Input{Taint: taint, Sandboxed: c.h.opts.Sandbox != nil})
	verdict := res.Verdict
	hooks := c.h.opts.Gate.RunHooks(ctx, gate.ToolRequest{Event: EventPreToolUse, Tool: c.in.ToolName,
		Input: c.rawInput(), SessionID: c.in.SessionID, Cwd: c.in.Cwd, Taint: taint.Strings()})
	verdict = gate.Combine(verdict, hooks)
	why := strings.Join(res.Reasons, "; ")
	if hooks.Verdict > res.Verdict && hooks.Reason != "" {
		why = hooks.Hook + ": " + hooks.Reason
	}
	if res.Rule != "" {
		why = strings.TrimSpace(why + " (rule " + res.Rule + ")")
	}
	if verdict == gate.VerdictAllow && c.h.opts.Sandbox == nil && c.h.opts.SandboxRequired != "" {
		verdict, why = gate.VerdictAsk, "gate.sandbox is always, but "+c.h.opts.SandboxRequired
	}
	g := gated{result: res, reason: "cuff: " + why}
	if verdict == gate.VerdictAsk && res.Grantable() && b != nil && b.Granted(c.key, command) {
		return gated{result: res, permission: PermissionAllow, reason: "cuff: approved for the rest of this session", granted: true}
	}
	switch verdict {
	case gate.VerdictAllow:
		g.permission = PermissionAllow
		if c.h.opts.AllowAnswer == AllowAnswerDefer {
			g.permission = "" // gate.allow_answer: defer: Claude Code's own flow decides
		}
	case gate.VerdictDeny:
		g.permission = PermissionDeny
	case gate.VerdictAsk:
		switch {
		case b != nil && b.AnyWatcher():
			g.viaTUI = true
		case c.h.opts.NoWatcher == NoWatcherAllow:
			g.permission = PermissionAllow
		case c.h.opts.NoWatcher == NoWatcherDeny:
			g.permission, g.reason = PermissionDeny, g.reason+" — no one is watching cuff to approve it"
		default:
			g.permission = PermissionAsk
		}
	}
	return g
}

func (c *call) preToolUse(ctx context.Context) (*Output, error) {
	in := c.in
	callID := c.toolCallID()
	c.awaitTranscript(ctx)
	if !isBash(in.ToolName) {
		return nil, c.locked(func(st *state) error {
			if err := c.flushText(st); err != nil {
				return err
			}
			if in.ToolName == "Read" || in.ToolName == "Grep" {
				var p struct {
					FilePath string `json:"file_path"`
					Path     string `json:"path"`
				}
				_ = json.Unmarshal(c.rawInput(), &p)
				if (c.secretFile(p.FilePath) || c.secretFile(p.Path)) && c.h.opts.Broker != nil {
					_ = c.h.opts.Broker.AddTaint(c.key, "secret")
				}
			}
			return c.startTool(st, callID)
		})
	}
	var bash bashInput
	if err := json.Unmarshal(c.rawInput(), &bash); err != nil || strings.TrimSpace(bash.Command) == "" {
		return nil, nil // not a command cuff can read: no decision, Claude Code's own flow applies
	}
	g := c.decideBash(ctx, bash.Command)
	if c.confines(g) && c.h.opts.Sandbox.Rules != nil {
		if rule, ok := ruleFor(c.h.opts.Sandbox.Rules(), bash.Command); ok {
			// Rewritten, the command would slip past this rule of Claude
			// Code's: leave it to Claude Code, whose rule then applies.
			why := "Claude Code's permission rule Bash(" + rule.Pattern + ") may apply, which it would not see in cuff's sandbox rewrite: left to Claude Code"
			g.permission = ""
			if p := c.sandboxPolicy(); rule.File != "" && p != nil && p.Writes(rule.File) {
				// Unless a sandboxed command could have planted it after
				// Claude Code read its settings: then a person decides.
				why = "Claude Code's permission rule Bash(" + rule.Pattern + ") in " + rule.File +
					" may apply, which it would not see in cuff's sandbox rewrite; sandboxed commands can write that file, so cuff asks rather than leave the command to Claude Code's own flow"
				g.permission, g.reason = PermissionAsk, "cuff: "+why
			}
			g.result.Reasons = append(g.result.Reasons, why)
		}
	}
	if g.result.Secret && c.h.opts.Broker != nil {
		_ = c.h.opts.Broker.AddTaint(c.key, "secret")
	}
	var req *approval.Request
	err := c.locked(func(st *state) error {
		if err := c.flushText(st); err != nil {
			return err
		}
		start := c.event(st, &transcript.BashStart{Command: bash.Command, WorkingDirectory: in.Cwd, Verdict: g.verdict(),
			Recorder: agentRecorder()})
		start.CallID = callID
		switch {
		case g.permission == PermissionDeny:
			run := c.event(st, &transcript.BashRun{Command: bash.Command, WorkingDirectory: in.Cwd,
				Description: bash.Description, Error: &transcript.RunError{Code: codeDenied, Message: g.reason}})
			run.CallID = callID
			return c.append(st, start, run)
		case g.viaTUI:
			w, err := c.writer(st)
			if err != nil {
				return err
			}
			req = &approval.Request{CallID: callID, Session: approval.SessionRef{Dir: c.h.opts.Store.Dir,
				Recordings: c.h.opts.Store.Recordings, ID: w.ID()}, AgentSession: c.key, Agent: Agent,
				AgentID: start.AgentID, ParentCallID: start.ParentCallID, Tool: in.ToolName, Command: bash.Command,
				WorkingDirectory: in.Cwd, Verdict: transcript.Verdict{Decision: "ask", Tier: g.result.Tier.String(),
					Rule: g.result.Rule, Reasons: g.result.Reasons}, Taint: c.h.opts.Broker.Taint(c.key),
				Parts: approval.PartsOf(g.result), Description: bash.Description, SessionTitle: in.SessionTitle,
				NotAlways: g.result.NotAlways, TrustNote: c.h.opts.TrustNote}
			st.Open[callID] = openCall{Kind: kindBash, Tool: in.ToolName, Command: bash.Command, Start: c.now,
				AgentID: start.AgentID, ParentCallID: start.ParentCallID}
			return nil
		}
		oc := openCall{Kind: kindBash, Tool: in.ToolName, Command: bash.Command, Start: c.now,
			AgentID: start.AgentID, ParentCallID: start.ParentCallID, Recorded: true, Sandboxed: c.confines(g)}
		if g.permission == PermissionAsk {
			oc.Asked = g.reason // Claude Code asks; no one may be there (-p): see notRun
		}
		st.Open[callID] = oc
		return c.append(st, start)
	})
	if err != nil || req == nil {
		out := decision(g.permission, g.reason).orNone(g.permission)
		if note := c.trustNote(); note != "" {
			if out == nil {
				out = &Output{}
			}
			out.SystemMessage = note
		}
		if err == nil && c.confines(g) {
			out.HookSpecificOutput.UpdatedInput = c.confined(bash.Command)
			out.HookSpecificOutput.PermissionDecisionReason += " — runs in cuff's sandbox (it may write only the project, the temporary directory and build caches, and not use the network)"
		}
		return out, err
	}
	c.release() // the wait may be long: hold no lease meanwhile
	waitCtx, stop := whileAgentRuns(ctx, agentProcess())
	_, d, err := c.h.opts.Broker.Ask(waitCtx, req)
	stop()
	if err != nil && waitCtx.Err() != nil {
		// Claude Code is gone, or ended the hook: the request was
		// withdrawn, and the command never runs.
		d, err = &approval.Decision{Decision: transcript.DecisionDeny, By: approval.ByAgent,
			Reason: "withdrawn: the agent stopped waiting"}, nil
	}
	if err != nil {
		_ = c.locked(func(st *state) error { delete(st.Open, callID); return nil })
		return decision(PermissionAsk, g.reason), err // cuff could not ask: let Claude Code ask
	}
	if !d.Approved() {
		reason := "denied in cuff"
		if d.Reason != "" {
			reason += ": " + d.Reason
		}
		if d.Decision == transcript.DecisionTimeout {
			reason = "no one approved the command in time in cuff"
		}
		if approval.IsWithdrawal(d) {
			reason = "not run: " + d.Reason
		}
		err = c.locked(func(st *state) error {
			oc, ok := st.Open[callID]
			delete(st.Open, callID)
			if !ok {
				return nil // the session ended meanwhile
			}
			c.now = c.h.opts.Now()
			start := c.event(st, &transcript.BashStart{Command: bash.Command, WorkingDirectory: in.Cwd, Verdict: g.verdict()})
			start.CallID, start.AgentID, start.ParentCallID = callID, oc.AgentID, oc.ParentCallID
			run := notRun(start, bash.Command, in.Cwd, reason)
			return c.append(st, start, run)
		})
		return decision(PermissionDeny, reason), err
	}
	err = c.locked(func(st *state) error {
		c.now = c.h.opts.Now()
		start := c.event(st, &transcript.BashStart{Command: bash.Command, WorkingDirectory: in.Cwd, Verdict: g.verdict(),
			Recorder: agentRecorder()})
		start.CallID = callID
		oc := st.Open[callID]
		oc.Recorded, oc.Kind, oc.Command, oc.Tool, oc.Start = true, kindBash, bash.Command, in.ToolName, c.now
		st.Open[callID] = oc
		return c.append(st, start)
	})
	return decision(PermissionAllow, "cuff: approved by "+d.By), err
}

// trustNote is the trust note to show now: once per session, and again
// when it changes.
func (c *call) trustNote() string {
	note := c.h.opts.TrustNote
	if note == "" {
		return ""
	}
	show := false
	_ = c.locked(func(st *state) error {
		if st.TrustNote != note {
			st.TrustNote, show = note, true
		}
		return nil
	})
	if !show {
		return ""
	}
	return note
}

// notRun is the run of a command that never ran (denied, or no one was
// there to approve it), in the place of its result.
func notRun(start *transcript.Event, command, cwd, why string) *transcript.Event {
	run := transcript.New("", start.TS, &transcript.BashRun{Command: command, WorkingDirectory: cwd,
		Error: &transcript.RunError{Code: codeNotRun, Message: why}})
	run.CallID, run.ConversationID, run.AgentID, run.ParentCallID = start.CallID, start.ConversationID, start.AgentID, start.ParentCallID
	if run.AgentID == "" {
		run.AgentID = transcript.MainAgent
	}
	return run
}

// sandboxPolicy is the sandbox's policy, if the hook has one.
func (c *call) sandboxPolicy() *sandbox.Policy {
	if c.h.opts.Sandbox == nil {
		return nil
	}
	return c.h.opts.Sandbox.Policy
}

// confines reports whether an answer runs its command inside the sandbox:
// what cuff allows does, what a person approved (for the session) does not.
func (c *call) confines(g gated) bool {
	return g.permission == PermissionAllow && !g.granted && c.h.opts.Sandbox != nil && c.h.opts.Sandbox.Wrap != nil
}

// confined is the tool input with the command rewritten to run inside the
// sandbox; the other fields (description, timeout, run_in_background) are
// kept, since updatedInput replaces the whole input.
func (c *call) confined(command string) json.RawMessage {
	fields := map[string]json.RawMessage{}
	_ = json.Unmarshal(c.rawInput(), &fields)
	wrapped, _ := json.Marshal(c.h.opts.Sandbox.Wrap(command))
	fields["command"] = wrapped
	out, _ := json.Marshal(fields)
	return out
}

// ran is the command to record for what Claude Code reports it ran (the
// input it ran: cuff's rewrite when cuff sent the command into the
// sandbox, as Claude Code 2.1 reports it), and whether it ran confined.
// Only exactly cuff's own rewrite counts: a command merely shaped like one
// (an "echo sandbox --shell 'ls'; curl …" the agent wrote), or the agent's
// command itself where cuff answered with a rewrite (then the rewrite is
// not what ran), is recorded as it is, unconfined. oc is the call as the
// hook answered it, when known.
func (c *call) ran(command string, oc openCall, known bool) (string, bool) {
	if known {
		if oc.Sandboxed && c.rewrites(oc.Command, command) {
			return oc.Command, true
		}
		return command, false
	}
	// A call the hook never saw start: exactly cuff's rewrite runs the
	// line through cuff sandbox, whoever wrote it.
	if orig, ok := sandbox.Unwrap(command); ok && c.rewrites(orig, command) {
		return orig, true
	}
	return command, false
}

// rewrites reports whether command is exactly cuff's rewrite of line.
func (c *call) rewrites(line, command string) bool {
	sb := c.h.opts.Sandbox
	return sb != nil && sb.Wrap != nil && sb.Wrap(line) == command
}

// orNone drops an output that carries no decision.
func (o *Output) orNone(permission string) *Output {
	if permission == "" {
		return nil
	}
	return o
}

// startTool records a non-shell tool call, or a delegation's start.
func (c *call) startTool(st *state, callID string) error {
	in := c.in
	var ev *transcript.Event
	kind := kindTool
	if isDelegation(in.ToolName) {
		var t taskInput
		_ = json.Unmarshal(c.rawInput(), &t)
		task := t.Prompt
		if task == "" {
			task = t.Description
		}
		ev = c.event(st, &transcript.Delegation{Phase: transcript.PhaseStart, AgentType: t.SubagentType, Task: task})
		kind = kindDelegation
	} else {
		ev = c.event(st, &transcript.ToolCall{Tool: in.ToolName, Input: c.rawInput()})
	}
	ev.CallID = callID
	st.Open[callID] = openCall{Kind: kind, Tool: in.ToolName, Start: c.now, AgentID: ev.AgentID,
		ParentCallID: ev.ParentCallID, Recorded: true}
	if kind == kindDelegation {
		st.Delegations = append(st.Delegations, callID)
	}
	return c.append(st, ev)
}

func (c *call) postToolUse() error {
	in := c.in
	failed := in.HookEventName == EventPostToolUseFailure
	callID := c.toolCallID()
	if untrustedTool(in.ToolName) && c.h.opts.Broker != nil {
		_ = c.h.opts.Broker.AddTaint(c.key, "untrusted")
	}
	return c.locked(func(st *state) error {
		if err := c.flushText(st); err != nil {
			return err
		}
		oc, known := st.Open[callID]
		if known && oc.Recorded && oc.Kind == kindDelegation && !failed {
			var resp taskResponse
			_ = json.Unmarshal(in.ToolResponse, &resp)
			if resp.Status == statusAsyncLaunched {
				// The sub-agent runs on in the background (newer Claude
				// Code): its delegation ends at its SubagentStop.
				oc.Async, oc.SubAgentID = true, resp.AgentID
				st.Open[callID] = oc
				if resp.AgentID != "" {
					if st.Agents == nil {
						st.Agents = map[string]string{}
					}
					st.Agents[resp.AgentID] = callID
				}
				return nil
			}
		}
		delete(st.Open, callID)
		dur := time.Duration(in.DurationMS) * time.Millisecond
		if dur == 0 && known {
			dur = c.now.Sub(oc.Start)
		}
		var events []*transcript.Event
		if !known || !oc.Recorded { // the hook was installed mid-call, or the call was never started here
			started := c.now.Add(-dur)
			var body transcript.Body
			switch {
			case isBash(in.ToolName):
				var b bashInput
				_ = json.Unmarshal(c.rawInput(), &b)
				b.Command, _ = c.ran(b.Command, oc, known)
				body = &transcript.BashStart{Command: b.Command, WorkingDirectory: in.Cwd}
			case isDelegation(in.ToolName):
				body = &transcript.Delegation{Phase: transcript.PhaseStart}
			default:
				body = &transcript.ToolCall{Tool: in.ToolName, Input: c.rawInput()}
			}
			ev := c.event(st, body)
			ev.TS, ev.CallID = started, callID
			events = append(events, ev)
		}
		var body transcript.Body
		switch {
		case isBash(in.ToolName):
			run := c.bashRun(failed, dur)
			var confined bool
			run.Command, confined = c.ran(run.Command, oc, known)
			if confined {
				var denials []sandbox.Denial
				if p := c.sandboxPolicy(); p != nil {
					denials = p.Denials(in.Cwd, run.Stderr, run.Stdout)
				}
				sandbox.Record(run, denials)
			}
			body = run
		case isDelegation(in.ToolName):
			body = c.delegationEnd(failed)
			st.endDelegation(callID)
		default:
			out := textOf(in.ToolResponse)
			if failed && in.Error != "" {
				out = in.Error
			}
			kept, cut := c.cut(out)
			body = &transcript.ToolResult{Tool: in.ToolName, Output: kept, OutputTruncated: cut, IsError: failed,
				DurationMS: dur.Milliseconds()}
		}
		ev := c.event(st, body)
		ev.CallID = callID
		if known {
			ev.AgentID, ev.ParentCallID = oc.AgentID, oc.ParentCallID
			if ev.AgentID == "" {
				ev.AgentID = transcript.MainAgent
			}
		}
		return c.append(st, append(events, ev)...)
	})
}

func (c *call) bashRun(failed bool, dur time.Duration) *transcript.BashRun {
	in := c.in
	var b bashInput
	_ = json.Unmarshal(c.rawInput(), &b)
	var resp bashResponse
	_ = json.Unmarshal(in.ToolResponse, &resp)
	run := &transcript.BashRun{Command: b.Command, Description: b.Description, WorkingDirectory: in.Cwd,
		TimeoutSeconds: b.Timeout / 1000, Stdout: resp.Stdout, Stderr: resp.Stderr,
		Interrupted: resp.Interrupted || in.IsInterrupt, DurationMS: dur.Milliseconds(), ExitCode: resp.ExitCode}
	defer c.capOutput(run)
	if failed {
		if run.ExitCode == nil {
			run.ExitCode = exitCodeOf(in.Error)
		}
		if run.Stderr == "" && run.Stdout == "" {
			run.Stderr = in.Error
		}
		if run.ExitCode == nil {
			run.Error = &transcript.RunError{Code: "tool_error", Message: firstLine(in.Error)}
		}
		return run
	}
	if resp.BackgroundTaskID != "" && run.ExitCode == nil {
		// Started, still running: no outcome yet, so neither a success nor a failure.
		run.Error = &transcript.RunError{Code: transcript.RunBackground, Message: "running in the background as " + resp.BackgroundTaskID}
		return run
	}
	if run.ExitCode == nil && !run.Interrupted {
		zero := 0
		run.ExitCode = &zero
	}
	return run
}

func (c *call) delegationEnd(failed bool) *transcript.Delegation {
	var resp taskResponse
	_ = json.Unmarshal(c.in.ToolResponse, &resp)
	var parts []string
	for _, p := range resp.Content {
		if p.Type == "text" || p.Type == "" {
			parts = append(parts, p.Text)
		}
	}
	result := strings.Join(parts, "\n")
	if result == "" {
		result = textOf(c.in.ToolResponse)
	}
	if failed && c.in.Error != "" {
		result = c.in.Error
	}
	ok := !failed && resp.Status != "failed"
	return &transcript.Delegation{Phase: transcript.PhaseEnd, SubAgentID: resp.AgentID, Result: result, Success: &ok}
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return first
}

// secretFile reports whether reading path puts credentials in the
// agent's context, as the gate judges it (links followed).
func (c *call) secretFile(path string) bool {
	return path != "" && c.h.opts.Gate != nil && c.h.opts.Gate.SecretFile(path) != ""
}

// capOutput keeps the head and tail of a run's outputs within MaxOutput.
func (c *call) capOutput(run *transcript.BashRun) {
	total := int64(len(run.Stdout) + len(run.Stderr))
	var cutOut, cutErr bool
	run.Stdout, cutOut = c.cut(run.Stdout)
	run.Stderr, cutErr = c.cut(run.Stderr)
	if cutOut || cutErr {
		run.OutputTruncated, run.OutputTruncatedBytes = true, &total
	}
}

// cut keeps the head and the tail of an output within MaxOutput, redacted
// first when it is cut.
func (c *call) cut(s string) (string, bool) {
	if max := c.h.opts.MaxOutput; max > 0 && len(s) > max && c.h.opts.RedactText != nil {
		s = c.h.opts.RedactText(s)
	}
	return headTail(s, c.h.opts.MaxOutput)
}

// headTail keeps the first and last max/2 bytes of s (cut on whole UTF-8
// characters) around a note of how much was left out.
func headTail(s string, max int) (string, bool) {
	if max <= 0 || len(s) <= max {
		return s, false
	}
	head, tail := max/2, len(s)-max/2
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + fmt.Sprintf("\n[… %d bytes left out …]\n", tail-head) + s[tail:], true
}
