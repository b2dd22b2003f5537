package export

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/cuff-dev/cuff/transcript"
)

// htmlItem is one entry of the timeline as the "item" template shows it.
// Every string in it has been made inert; HTML holds rendered markdown.
type htmlItem struct {
	Kind     string // user, assistant, thinking, tool, bash, deleg, approval, other
	Class    string
	Depth    int
	Time     string
	Who      string // who speaks, for chat turns
	Agent    string
	Title    string
	Text     string
	Note     string
	HTML     template.HTML
	Badge    htmlBadge
	Duration string
	Path     string
	Input    *htmlOutput
	Diff     []htmlLine
	Outputs  []htmlOutput
	Notes    []string
}

type htmlBadge struct{ Text, Class string }

type htmlLine struct{ Text, Class string }

// htmlOutput is a collapsible block of output.
type htmlOutput struct {
	Label, Info, Text string
	Open              bool
}

func (h *HTMLWriter) output(label, text string) htmlOutput {
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	info := plural(lines, "line")
	if len(text) >= 1<<10 {
		info += " · " + byteSize(int64(len(text)))
	}
	return htmlOutput{Label: label, Info: info, Text: transcript.Inert(text), Open: lines <= h.opts.OpenLines}
}

// byteSize writes a size in bytes for people: 512 B, 4.2 KB, 1.0 MB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %cB", float64(n)/float64(div), "KMGTPE"[exp])
}

// item builds the view of one timeline entry: an event, with the second
// half of its call when that came in time.
func (h *HTMLWriter) item(p *htmlPending) htmlItem {
	ev := p.first
	it := htmlItem{Kind: "other", Depth: min(p.depth, maxDepthClass), Time: h.stamp(ev.TS)}
	if ev.AgentID != "" && ev.AgentID != transcript.MainAgent {
		it.Agent = transcript.Inert(ev.AgentID)
	}
	switch b := ev.Body.(type) {
	case *transcript.ChatTurn:
		h.chatItem(&it, b)
	case *transcript.ToolCall:
		h.toolItem(&it, b, p.second)
	case *transcript.ToolResult:
		h.toolItem(&it, &transcript.ToolCall{Tool: b.Tool}, ev)
		it.Title += " (result; its call is not in the window)"
	case *transcript.BashStart:
		run, _ := bodyOf[*transcript.BashRun](p.second)
		h.bashItem(&it, b.Command, b.WorkingDirectory, run)
	case *transcript.BashRun:
		h.bashItem(&it, b.Command, b.WorkingDirectory, b)
	case *transcript.Delegation:
		h.delegationItem(&it, ev, b)
	case *transcript.ApprovalRequest:
		dec, _ := bodyOf[*transcript.ApprovalDecision](p.second)
		h.approvalItem(&it, b, dec)
	case *transcript.ApprovalDecision:
		h.approvalItem(&it, &transcript.ApprovalRequest{RequestID: b.RequestID}, b)
	case *transcript.SessionStart:
		it.Title = "Session started"
		it.Text = transcript.Inert(startLine(b))
	case *transcript.SessionEnd:
		it.Title = "Session ended: " + transcript.Inert(b.Status)
		if c := b.Counts; c != nil {
			it.Text = fmt.Sprintf("%s · %s · %s · %s · %s", plural(int(c.Events), "event"), plural(int(c.Turns), "turn"),
				plural(int(c.ToolCalls), "tool call"), plural(int(c.Commands), "command"), plural(int(c.Failures), "failure"))
		}
	default:
		it.Title = "Event of a kind this version does not know: " + transcript.Inert(string(ev.Type))
		out := h.output("raw event", prettyJSON(ev.Raw))
		out.Open = false
		it.Outputs = []htmlOutput{out}
	}
	return it
}

// bodyOf returns ev's body as a T, if ev is set and has one.
func bodyOf[T transcript.Body](ev *transcript.Event) (T, bool) {
	var zero T
	if ev == nil {
		return zero, false
	}
	b, ok := ev.Body.(T)
	return b, ok
}

func (h *HTMLWriter) chatItem(it *htmlItem, b *transcript.ChatTurn) {
	it.Who = transcript.Inert(b.Role)
	switch {
	case b.Context != "" && b.Context != transcript.ContextCommand:
		it.Kind, it.Text = "thinking", transcript.Inert(b.Text)
		it.Title = transcript.Inert(ContextLabel(b))
		if s := ContextSummary(b); s != "" {
			it.Title += " · " + transcript.Inert(s)
		}
	case b.Thinking:
		it.Kind, it.Title, it.Text = "thinking", "Thinking", transcript.Inert(b.Text)
	case b.Role == transcript.RoleUser:
		it.Kind, it.Class, it.Text = "user", "user", transcript.Inert(b.Text)
	case b.Role == transcript.RoleAssistant:
		it.Kind = "assistant"
		html, err := h.md.render(b.Text)
		if err != nil { // goldmark does not fail on any input; keep the text if it ever does
			html = template.HTML(template.HTMLEscapeString(transcript.Inert(b.Text)))
		}
		it.HTML = html
		var note []string
		if b.Model != "" {
			note = append(note, transcript.Inert(b.Model))
		}
		if u := b.Usage; u != nil && (u.InputTokens > 0 || u.OutputTokens > 0) {
			note = append(note, fmt.Sprintf("%s in / %s out tokens", GroupDigits(u.InputTokens), GroupDigits(u.OutputTokens)))
		}
		it.Note = strings.Join(note, " · ")
	default:
		it.Kind, it.Text = "thinking", transcript.Inert(b.Text)
		it.Title = "Message from " + transcript.Inert(b.Role)
		if b.Role == "" {
			it.Title = "Message"
		}
	}
}

func (h *HTMLWriter) toolItem(it *htmlItem, call *transcript.ToolCall, result *transcript.Event) {
	it.Kind, it.Title = "tool", transcript.Inert(call.Tool)
	if it.Title == "" {
		it.Title = "tool"
	}
	if path, diff, ok := EditDiff(call.Tool, call.Input); ok {
		it.Path = transcript.Inert(path)
		it.Diff = diffLines(diff)
	} else if len(call.Input) > 0 {
		in := h.output("input", prettyJSON(call.Input))
		it.Input = &in
	}
	r, ok := bodyOf[*transcript.ToolResult](result)
	if !ok {
		it.Badge = htmlBadge{"no result", "warn"}
		return
	}
	if r.DurationMS > 0 {
		it.Duration = FormatDuration(r.DurationMS)
	}
	label := "output"
	if r.IsError {
		it.Badge, it.Class, label = htmlBadge{"✗ error", "err"}, "failed", "error"
	} else {
		it.Badge = htmlBadge{"✓", "ok"}
	}
	if r.OutputTruncated {
		label += " (truncated)"
	}
	it.Outputs = []htmlOutput{h.output(label, r.Output)}
}

func diffLines(diff string) []htmlLine {
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	out := make([]htmlLine, len(lines))
	for i, l := range lines {
		out[i].Text = transcript.Inert(l)
		switch {
		case strings.HasPrefix(l, "-"):
			out[i].Class = "del"
		case strings.HasPrefix(l, "+"):
			out[i].Class = "ins"
		}
	}
	return out
}

func (h *HTMLWriter) bashItem(it *htmlItem, command, dir string, run *transcript.BashRun) {
	it.Kind, it.Title, it.Path = "bash", transcript.Inert(command), transcript.Inert(dir)
	if run == nil {
		it.Badge = htmlBadge{"… no result", "warn"}
		it.Notes = []string{"No result was recorded: the command was still running or was cut off."}
		return
	}
	if it.Title == "" {
		it.Title = transcript.Inert(run.Command)
	}
	if it.Path == "" {
		it.Path = transcript.Inert(run.WorkingDirectory)
	}
	switch {
	case run.InBackground():
		it.Badge = htmlBadge{"⏩ " + BashStatus(run), "muted"}
	case run.Failed():
		mark := "✗ "
		if run.TimedOut {
			mark = "⏱ "
		}
		it.Badge, it.Class = htmlBadge{mark + transcript.Inert(BashStatus(run)), "err"}, "failed"
	default:
		it.Badge = htmlBadge{"✓ " + BashStatus(run), "ok"}
	}
	it.Duration = FormatDuration(run.DurationMS)
	it.Text = transcript.Inert(run.Description)
	if run.Stdout != "" {
		it.Outputs = append(it.Outputs, h.output("stdout", run.Stdout))
	}
	if run.Stderr != "" {
		it.Outputs = append(it.Outputs, h.output("stderr", run.Stderr))
	}
	if run.OutputTruncated {
		note := "Output was truncated"
		if run.OutputTruncatedBytes != nil {
			note += fmt.Sprintf(" (%s in all)", byteSize(*run.OutputTruncatedBytes))
		}
		it.Notes = append(it.Notes, note+".")
	}
	if e := run.Error; e != nil {
		it.Notes = append(it.Notes, transcript.Inert(e.Code+": "+e.Message))
	}
}

func (h *HTMLWriter) delegationItem(it *htmlItem, ev *transcript.Event, b *transcript.Delegation) {
	it.Kind, it.Class = "deleg", "deleg"
	agent := b.AgentType
	if agent == "" {
		agent = h.delegs[ev.CallID].agentType
	}
	if agent == "" {
		agent = "a sub-agent"
	}
	agent = transcript.Inert(agent)
	if b.Phase != transcript.PhaseEnd {
		it.Title, it.Text = "↳ Delegated to "+agent, transcript.Inert(b.Task)
		return
	}
	it.Title = "↲ " + agent + " finished"
	if b.Success != nil {
		if *b.Success {
			it.Title = "↲ ✓ " + agent + " finished"
		} else {
			it.Title = "↲ ✗ " + agent + " failed"
		}
	}
	if b.Result != "" {
		it.Outputs = []htmlOutput{h.output("result", b.Result)}
	}
}

func (h *HTMLWriter) approvalItem(it *htmlItem, req *transcript.ApprovalRequest, dec *transcript.ApprovalDecision) {
	it.Kind, it.Class = "approval", "approval"
	it.Title = "Approval requested"
	if req.Tool != "" {
		it.Title += " for " + transcript.Inert(req.Tool)
	}
	it.Text = transcript.Inert(req.Command)
	if v := req.Verdict; v != nil {
		line := "Gate: " + v.Decision
		if v.Tier != "" {
			line += ", tier " + v.Tier
		}
		if v.Rule != "" {
			line += ", rule " + v.Rule
		}
		it.Notes = append(it.Notes, transcript.Inert(line))
		for _, r := range v.Reasons {
			it.Notes = append(it.Notes, transcript.Inert(r))
		}
	}
	if len(req.Taint) > 0 {
		it.Notes = append(it.Notes, "Taint: "+transcript.Inert(strings.Join(req.Taint, ", ")))
	}
	if req.Diff != "" {
		it.Diff = diffLines(req.Diff)
	}
	if dec == nil {
		it.Badge = htmlBadge{"pending", "warn"}
		return
	}
	switch dec.Decision {
	case transcript.DecisionApprove:
		it.Badge = htmlBadge{"✓ approved", "ok"}
	case transcript.DecisionDeny:
		it.Badge = htmlBadge{"✗ denied", "err"}
	case transcript.DecisionTimeout:
		it.Badge = htmlBadge{"⏱ timed out", "err"}
	default:
		it.Badge = htmlBadge{transcript.Inert(dec.Decision), "warn"}
	}
	var parts []string
	if dec.By != "" {
		parts = append(parts, "by "+dec.By)
	}
	if dec.Scope != "" {
		parts = append(parts, "scope "+dec.Scope)
	}
	note := "Decision: " + dec.Decision
	if len(parts) > 0 {
		note += " (" + strings.Join(parts, ", ") + ")"
	}
	if dec.Reason != "" {
		note += ": " + dec.Reason
	}
	if dec.RuleAdded != "" {
		note += " · rule added: " + dec.RuleAdded
	}
	it.Note = transcript.Inert(note)
}

// startLine describes a session_start in one line.
func startLine(b *transcript.SessionStart) string {
	var parts []string
	if b.Agent != "" {
		a := "agent " + b.Agent
		if b.Source != "" {
			a += " (source " + b.Source + ")"
		}
		parts = append(parts, a)
	}
	if b.WorkingDirectory != "" {
		parts = append(parts, "in "+b.WorkingDirectory)
	}
	if h := b.Host; h != nil && h.OS != "" {
		host := "host " + h.OS + "/" + h.Arch
		if h.Hostname != "" {
			host += " " + h.Hostname
		}
		parts = append(parts, host)
	}
	if g := b.Git; g != nil && (g.Branch != "" || g.SHA != "") {
		parts = append(parts, strings.TrimSpace("git "+g.Branch+" "+shortSHA(g.SHA)))
	}
	if b.CuffVersion != "" {
		parts = append(parts, "cuff "+b.CuffVersion)
	}
	return strings.Join(parts, " · ")
}
