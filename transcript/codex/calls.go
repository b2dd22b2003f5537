package codex

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"mvdan.cc/sh/v3/syntax"
)

// callKind is how a call is recorded.
type callKind int

const (
	kindTool  callKind = iota
	kindBash           // a shell command: bash_start/bash_run
	kindStdin          // write_stdin: input to a command still running
)

// call is an invocation waiting for its output.
type call struct {
	kind      callKind
	name      string
	ts        time.Time
	run       transcript.BashRun // what is known of a command before it ends
	stdinTo   string             // write_stdin: the unified-exec session written to
	answered  bool               // an output has been seen
	sessionID string             // a command still running: its unified-exec session
	out       strings.Builder    // output gathered while it runs
	truncated bool
}

// maxGathered bounds the output kept for a command that runs across calls.
const maxGathered = 1 << 20

func (c *call) gather(s string) {
	if s == "" {
		return
	}
	if c.out.Len()+len(s) > maxGathered {
		c.truncated = true
		s = s[:max(0, maxGathered-c.out.Len())]
	}
	c.out.WriteString(s)
}

// shellTools are the function names Codex has used for shell commands.
var shellTools = map[string]bool{"shell": true, "container.exec": true, "shell_command": true,
	"exec_command": true, "local_shell": true}

// Codes of the run errors the decoder records for commands without an
// exit code.
const (
	// ErrRejected: the person refused the command; it never ran.
	ErrRejected = "rejected"
	// ErrNoExitCode: the rollout does not say how the command ended.
	ErrNoExitCode = "exit_code_unknown"
	// ErrFailed: Codex marked the call failed without an exit code.
	ErrFailed = "failed"
)

// newCallID is the call id of an invocation: Codex's own, else the item's
// id, else one made from the line number.
func (d *Decoder) newCallID(callID, itemID, kind string) string {
	if callID != "" {
		return callID
	}
	if itemID != "" {
		return itemID
	}
	return fmt.Sprintf("cuff_codex_%s_%d", kind, d.stats.Lines)
}

// open registers a call; it reports false when the id was seen before.
func (d *Decoder) open(id string, c *call) bool {
	if d.seenCalls[id] {
		return false
	}
	d.seenCalls[id] = true
	d.calls[id] = c
	d.order = append(d.order, id)
	if len(d.order) > 2*len(d.calls)+pruneSlack {
		d.pruneOrder()
	}
	return true
}

// pruneSlack lets the list of open calls grow a little before it is pruned.
const pruneSlack = 64

func (d *Decoder) pruneOrder() {
	kept := d.order[:0]
	for _, id := range d.order {
		if d.calls[id] != nil {
			kept = append(kept, id)
		}
	}
	d.order = kept
}

// functionCall handles a function_call item.
func (d *Decoder) functionCall(p *payload, ts time.Time) {
	id := d.newCallID(p.CallID, p.ID, "call")
	name := toolName(p.Namespace, p.Name)
	args := valueText(p.Arguments)
	c := &call{name: name, ts: ts}
	if !d.open(id, c) {
		return
	}
	var a shellArgs
	switch {
	case shellTools[name]:
		_ = json.Unmarshal([]byte(args), &a) // bad arguments leave the fields empty
		c.kind, c.run = kindBash, d.shellRun(a)
		d.push(d.event(ts, &transcript.BashStart{Command: c.run.Command, Argv: c.run.Argv,
			WorkingDirectory: c.run.WorkingDirectory}, id))
	case name == "write_stdin":
		_ = json.Unmarshal([]byte(args), &a)
		c.kind, c.stdinTo = kindStdin, idText(a.SessionID)
		d.push(d.event(ts, &transcript.ToolCall{Tool: name, Input: toolInput(args)}, id))
	default:
		d.push(d.event(ts, &transcript.ToolCall{Tool: name, Input: toolInput(args)}, id))
	}
}

// toolName is the name a tool is shown by: an MCP tool that Codex offers
// in its server's namespace ("mcp__cuff", "bash_recorder_execute") as
// mcp__cuff__bash_recorder_execute, the form agents name MCP tools by.
func toolName(namespace, name string) string {
	switch {
	case namespace == "" || strings.HasPrefix(name, namespace):
		return name
	case strings.HasSuffix(namespace, "__") || strings.HasSuffix(namespace, "."):
		return namespace + name
	case strings.HasPrefix(namespace, "mcp__"):
		return namespace + "__" + name
	}
	return namespace + "." + name
}

// shellRun reads a shell tool's arguments: an argv array (shell), a
// command string (shell_command) or cmd (exec_command).
func (d *Decoder) shellRun(a shellArgs) transcript.BashRun {
	r := transcript.BashRun{WorkingDirectory: a.Workdir, TimeoutSeconds: a.TimeoutMS / msPerSecond}
	if r.WorkingDirectory == "" {
		r.WorkingDirectory = d.cwd
	}
	if args, ok := argv(a.Command); ok {
		r.Argv = args
		r.Command, r.Shell = commandOf(args)
	} else if s := jsonText(a.Command); s != "" {
		r.Command = s
	} else {
		r.Command = a.Cmd
		if a.Shell != "" {
			r.Shell = path.Base(a.Shell)
		}
	}
	return r
}

// shells are the shells whose "-c SCRIPT" argv is shown as the script.
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true, "dash": true, "fish": true,
	"pwsh": true, "powershell": true, "powershell.exe": true}

// commandOf is the command line an argv shows: the script of a
// "bash -lc SCRIPT" argv, else the arguments quoted for a shell.
func commandOf(args []string) (command, shell string) {
	if len(args) == 3 && shells[path.Base(args[0])] && (args[1] == "-lc" || args[1] == "-c" || args[1] == "-Command") {
		return args[2], path.Base(args[0])
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = strconv.Quote(a)
		}
		quoted[i] = q
	}
	return strings.Join(quoted, " "), ""
}

// toolInput is a call's arguments as JSON: as written when they are JSON,
// else as a JSON string.
func toolInput(args string) json.RawMessage {
	b := []byte(strings.TrimSpace(args))
	if len(b) == 0 {
		return nil
	}
	if json.Valid(b) {
		return b
	}
	q, _ := json.Marshal(args) // marshalling a string cannot fail
	return q
}

// localShellCall handles a local_shell_call item: a command as argv.
func (d *Decoder) localShellCall(p *payload, ts time.Time) {
	id := d.newCallID(p.CallID, p.ID, "shell")
	var a action
	_ = json.Unmarshal(p.Action, &a)
	c := &call{kind: kindBash, name: "local_shell", ts: ts}
	c.run = transcript.BashRun{Argv: a.Command, WorkingDirectory: a.WorkingDirectory, TimeoutSeconds: a.TimeoutMS / msPerSecond}
	if c.run.WorkingDirectory == "" {
		c.run.WorkingDirectory = d.cwd
	}
	if len(a.Command) > 0 {
		c.run.Command, c.run.Shell = commandOf(a.Command)
	}
	if !d.open(id, c) {
		return
	}
	d.push(d.event(ts, &transcript.BashStart{Command: c.run.Command, Argv: c.run.Argv,
		WorkingDirectory: c.run.WorkingDirectory}, id))
}

// customToolCall handles a custom_tool_call item (apply_patch): its input
// is free text.
func (d *Decoder) customToolCall(p *payload, ts time.Time) {
	id := d.newCallID(p.CallID, p.ID, "custom")
	if !d.open(id, &call{name: p.Name, ts: ts}) {
		return
	}
	d.push(d.event(ts, &transcript.ToolCall{Tool: p.Name, Input: toolInput(valueText(p.Input))}, id))
}

// webSearchCall handles a web_search_call item: the search and its end in
// one record.
func (d *Decoder) webSearchCall(p *payload, ts time.Time) {
	d.sawWebSearch = true
	id := d.newCallID(p.CallID, p.ID, "web_search")
	if !d.open(id, &call{name: "web_search", ts: ts}) {
		return
	}
	var a action
	_ = json.Unmarshal(p.Action, &a)
	d.push(d.event(ts, &transcript.ToolCall{Tool: "web_search", Input: toolInput(string(p.Action))}, id))
	d.endTool(id, &call{name: "web_search", ts: ts}, output{body: a.Query, failed: p.Status == "failed"}, ts)
}

// callOutput handles the output of a function or custom tool call.
func (d *Decoder) callOutput(p *payload, ts time.Time) {
	id := p.CallID
	if id == "" {
		id = d.newCallID("", "", "output")
	}
	if d.ended[id] {
		return
	}
	o := parseOutput(p.Output)
	c := d.calls[id]
	if c == nil { // an output whose call is not in the file
		d.seenCalls[id] = true
		d.endTool(id, &call{ts: ts}, o, ts)
		return
	}
	c.answered = true
	switch c.kind {
	case kindBash:
		d.bashOutput(id, c, o, ts)
	case kindStdin:
		d.endTool(id, c, o, ts)
		d.stdinOutput(c, o, ts)
	default:
		d.endTool(id, c, o, ts)
	}
}

// endTool writes the tool_result of a call.
func (d *Decoder) endTool(id string, c *call, o output, ts time.Time) {
	delete(d.calls, id)
	d.ended[id] = true
	dur := o.durationMS
	if dur == 0 {
		dur = stream.DurationMS(c.ts, ts)
	}
	isErr := o.failed || (o.exitCode != nil && *o.exitCode != 0) || d.failedCalls[id]
	delete(d.failedCalls, id)
	d.push(d.event(ts, &transcript.ToolResult{Tool: c.name, Output: o.body, IsError: isErr, DurationMS: dur}, id))
}

// rejectedMarkers are the outputs of a command the person refused.
var rejectedMarkers = []string{"rejected by user", "exec command rejected", "declined by user"}

// bashOutput handles the output of a shell call: the end of the command,
// or word that it goes on running in a unified-exec session.
func (d *Decoder) bashOutput(id string, c *call, o output, ts time.Time) {
	if o.running {
		c.gather(o.body)
		if o.sessionID != "" {
			c.sessionID = o.sessionID
			d.running[o.sessionID] = id
		}
		return
	}
	run := c.run
	run.Stdout = o.body
	if c.out.Len() > 0 { // the end of a command that ran across outputs
		c.gather(o.body)
		run.Stdout, run.OutputTruncated = c.out.String(), c.truncated
	}
	run.ExitCode = o.exitCode
	run.DurationMS = o.durationMS
	if run.DurationMS == 0 {
		run.DurationMS = stream.DurationMS(c.ts, ts)
	}
	if run.ExitCode == nil {
		switch {
		case containsAnyFold(o.body, rejectedMarkers):
			run.Error = &transcript.RunError{Code: ErrRejected, Message: firstLine(o.body)}
		case o.failed:
			run.Error = &transcript.RunError{Code: ErrFailed, Message: firstLine(o.body)}
		default:
			run.Error = &transcript.RunError{Code: ErrNoExitCode, Message: "the rollout records no exit code"}
		}
	}
	d.finishBash(id, c, &run, ts)
}

// stdinOutput follows a command that runs across calls: the output of a
// write_stdin to its session is its output, and an exit ends it.
func (d *Decoder) stdinOutput(c *call, o output, ts time.Time) {
	execID := d.running[c.stdinTo]
	e := d.calls[execID]
	if e == nil {
		return
	}
	e.gather(o.body)
	if o.running || o.exitCode == nil {
		return
	}
	run := e.run
	run.Stdout, run.OutputTruncated = e.out.String(), e.truncated
	run.ExitCode = o.exitCode
	run.DurationMS = stream.DurationMS(e.ts, ts)
	d.finishBash(execID, e, &run, ts)
}

// finishBash writes the bash_run of a command.
func (d *Decoder) finishBash(id string, c *call, run *transcript.BashRun, ts time.Time) {
	delete(d.calls, id)
	d.ended[id] = true
	if c.sessionID != "" {
		delete(d.running, c.sessionID)
	}
	d.push(d.event(ts, run, id))
}

// execCommandEnd handles the end event of a command: the exit code with
// stdout and stderr apart. A command with no call item (one the person ran
// from the composer) gets both halves from it.
func (d *Decoder) execCommandEnd(p *payload, ts time.Time) {
	id := p.CallID
	if id == "" {
		id = d.newCallID("", "", "exec")
	}
	if d.ended[id] {
		return
	}
	c := d.calls[id]
	if c == nil {
		c = &call{kind: kindBash, name: "exec_command", ts: ts}
		c.run.WorkingDirectory = p.CWD
		if args, ok := argv(p.Command); ok {
			c.run.Argv = args
			c.run.Command, c.run.Shell = commandOf(args)
		} else {
			c.run.Command = jsonText(p.Command)
		}
		if !d.open(id, c) {
			return
		}
		d.push(d.event(ts, &transcript.BashStart{Command: c.run.Command, Argv: c.run.Argv,
			WorkingDirectory: c.run.WorkingDirectory}, id))
	}
	if c.kind != kindBash {
		return
	}
	run := c.run
	run.Stdout, run.Stderr = p.Stdout, p.Stderr
	if run.Stdout == "" && run.Stderr == "" {
		run.Stdout = p.AggregatedOutput
	}
	if run.Stdout == "" && run.Stderr == "" {
		run.Stdout, run.OutputTruncated = c.out.String(), c.truncated
	}
	run.ExitCode = p.ExitCode
	run.DurationMS = durationMS(p.Duration)
	if run.DurationMS == 0 {
		run.DurationMS = stream.DurationMS(c.ts, ts)
	}
	if run.ExitCode == nil {
		run.Error = &transcript.RunError{Code: ErrNoExitCode, Message: "the rollout records no exit code"}
	}
	d.finishBash(id, c, &run, ts)
}

// toolEnd handles the end events of tools that have their own call items
// in newer versions (apply_patch, MCP tools, web search): written only when
// the call item is missing.
func (d *Decoder) toolEnd(p *payload, ts time.Time) {
	id := p.CallID
	if id == "" || d.seenCalls[id] || (p.Type == "web_search_end" && d.sawWebSearch) {
		return
	}
	c := &call{ts: ts}
	var input json.RawMessage
	o := output{}
	switch p.Type {
	case "patch_apply_end":
		c.name = "apply_patch"
		o.body = strings.TrimSpace(p.Stdout + "\n" + p.Stderr)
		o.failed = p.Success != nil && !*p.Success
	case "mcp_tool_call_end":
		c.name = "mcp_tool"
		if inv := p.Invocation; inv != nil {
			c.name = "mcp__" + inv.Server + "__" + inv.Tool
			input = toolInput(string(inv.Arguments))
		}
		o.body = jsonText(p.Result)
		o.failed = strings.HasPrefix(strings.TrimSpace(string(p.Result)), `{"Err"`)
		o.durationMS = durationMS(p.Duration)
	case "web_search_end":
		c.name = "web_search"
		o.body = p.Query
		q, _ := json.Marshal(map[string]string{"query": p.Query}) // marshalling strings cannot fail
		input = q
	}
	if !d.open(id, c) {
		return
	}
	d.push(d.event(ts, &transcript.ToolCall{Tool: c.name, Input: input}, id))
	d.endTool(id, c, o, ts)
}

// turnAborted ends the calls the aborted turn left without any output
// (commands as interrupted, tools as errors) and notes the abort.
func (d *Decoder) turnAborted(p *payload, ts time.Time) {
	for _, id := range d.order {
		c := d.calls[id]
		if c == nil || c.answered {
			continue
		}
		switch c.kind {
		case kindBash:
			run := c.run
			run.Interrupted = true
			run.DurationMS = stream.DurationMS(c.ts, ts)
			d.finishBash(id, c, &run, ts)
		default:
			d.endTool(id, c, output{body: "aborted", failed: true}, ts)
		}
	}
	d.pruneOrder()
	text := "Turn aborted"
	if p.Reason != "" {
		text += ": " + p.Reason
	}
	d.push(d.event(ts, &transcript.ChatTurn{Role: transcript.RoleSystem, Text: text}, ""))
}

func containsAnyFold(s string, subs []string) bool {
	s = strings.ToLower(s)
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
