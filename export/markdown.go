package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// FormatMarkdown is the readable export: what Ctrl+E in the TUI writes.
const FormatMarkdown Format = "markdown"

// MarkdownOptions tunes the markdown export.
type MarkdownOptions struct {
	// Location is the time zone of the timestamps; nil means UTC.
	Location *time.Location
	// DetailsLines is how many lines an output may have before it is folded
	// into a <details> block; 0 means DefaultDetailsLines.
	DetailsLines int
	// DetailsBytes is the same limit in bytes; 0 means DefaultDetailsBytes.
	DetailsBytes int
	// Now tells whether a session without an end is still live (its last
	// event within session.LiveWindow); nil means time.Now.
	Now func() time.Time
}

// Defaults of MarkdownOptions.
const (
	DefaultDetailsLines = 20
	DefaultDetailsBytes = 2000
)

// Markdown writes one session as a markdown document: a metadata header,
// then every event in order — chat turns with their time and role, tool
// calls with their parameters and results, bash runs with the command in a
// ```bash block, exit status, duration, working directory and outputs,
// approval requests with their decision, sub-agent delegations as quoted
// blocks holding their own turns — with ✅/❌ for success and failure.
// Outputs sit in fences longer than any run of backticks they contain, long
// ones folded into <details>. Every string from the recording is made inert
// (see transcript.Inert), so the document is safe to print to a terminal.
// events are ordered by seq; the two halves of a call are shown together.
func Markdown(w io.Writer, events []*transcript.Event, opts MarkdownOptions) error {
	keys := make([]mdKeys, len(events))
	recs := make([]mdRecord, len(events))
	var sum mdSummary
	for i, ev := range events {
		keys[i] = keysOf(ev)
		recs[i].body = keys[i].body
		sum.add(ev)
	}
	d := &mdDoc{
		r:     &mdWriter{w: &bytes.Buffer{}, opts: opts.withDefaults()},
		sum:   &sum,
		recs:  recs,
		plan:  planAll(keys),
		event: func(pos int32) (*transcript.Event, error) { return events[pos], nil },
	}
	return d.write(w)
}

// withDefaults fills in the options left zero.
func (opts MarkdownOptions) withDefaults() MarkdownOptions {
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.DetailsLines <= 0 {
		opts.DetailsLines = DefaultDetailsLines
	}
	if opts.DetailsBytes <= 0 {
		opts.DetailsBytes = DefaultDetailsBytes
	}
	return opts
}

// mdNode is one entry of the export: an event and the second half of its
// call when there is one.
type mdNode struct {
	ev     *transcript.Event
	second *transcript.Event
}

// pairKey names the call an event belongs to, per kind of pair: a bash run
// and an approval request may share one call_id.
func pairKey(ev *transcript.Event) string {
	switch ev.Type {
	case transcript.TypeToolCall, transcript.TypeToolResult:
		return "tool:" + ev.CallID
	case transcript.TypeBashStart, transcript.TypeBashRun:
		return "bash:" + ev.CallID
	case transcript.TypeApprovalRequest, transcript.TypeApprovalDecision:
		return "approval:" + ev.CallID
	}
	return string(ev.Type) + ":" + ev.CallID
}

// mdWriter renders entries of the document into w, with a marker for each
// time (see clockMarker).
type mdWriter struct {
	w    *bytes.Buffer
	opts MarkdownOptions
}

// line writes one line of the document under the quote prefix of its
// nesting level.
func (m *mdWriter) line(prefix, s string) {
	if s == "" {
		m.w.WriteString(strings.TrimRight(prefix, " "))
	} else {
		m.w.WriteString(prefix)
		m.w.WriteString(s)
	}
	m.w.WriteByte('\n')
}

// block writes text, line by line, under prefix, followed by a blank line.
func (m *mdWriter) block(prefix, text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		m.line(prefix, l)
	}
	m.line(prefix, "")
}

// clock stands for when something happened: the time, and the date too
// when it differs from the last one written (see mdOut.clock).
func (m *mdWriter) clock(ts time.Time) string {
	if ts.IsZero() {
		return ""
	}
	return clockMarker(ts, clockShown)
}

// unshownClock is a time that is not written but counts as written: a
// time that follows on the same day shows no date.
func (m *mdWriter) unshownClock(ts time.Time) string {
	if ts.IsZero() {
		return ""
	}
	return clockMarker(ts, clockUnshown)
}

// node renders an entry; for a delegation only its beginning: the entries
// inside it and delegationEnd follow.
func (m *mdWriter) node(n *mdNode, prefix string) {
	switch b := n.ev.Body.(type) {
	case *transcript.ChatTurn:
		m.chatTurn(n.ev, b, prefix)
	case *transcript.ToolCall:
		m.toolCall(n, b, prefix)
	case *transcript.ToolResult:
		m.toolCall(&mdNode{ev: n.ev, second: n.ev}, &transcript.ToolCall{Tool: b.Tool}, prefix)
	case *transcript.BashStart:
		m.bash(n, prefix)
	case *transcript.BashRun:
		m.bash(&mdNode{ev: n.ev, second: n.ev}, prefix)
	case *transcript.Delegation:
		m.delegationStart(n, b, prefix)
	case *transcript.ApprovalRequest:
		m.approval(n, b, prefix)
	case *transcript.ApprovalDecision:
		m.line(prefix, fmt.Sprintf("### 🛡️ Approval %s · %s", inlineCode(b.RequestID), m.clock(n.ev.TS)))
		m.line(prefix, "")
		m.decision(n.ev, b, prefix)
	case *transcript.SessionStart:
		m.line(prefix, fmt.Sprintf("*Session restarted · %s*", m.clock(n.ev.TS)))
		m.line(prefix, "")
	default:
		m.unknown(n.ev, prefix)
	}
}

// roleHeading is how a chat turn's role is titled.
func roleHeading(role string) string {
	switch role {
	case transcript.RoleUser:
		return "👤 User"
	case transcript.RoleAssistant:
		return "🤖 Assistant"
	case transcript.RoleSystem:
		return "⚙️ System"
	case transcript.RoleDeveloper:
		return "🛠️ Developer"
	}
	return "💬 " + plain(role)
}

func (m *mdWriter) chatTurn(ev *transcript.Event, b *transcript.ChatTurn, prefix string) {
	if b.UsageOnly() {
		return // a message of tool calls: its tokens count, there is nothing to read
	}
	if b.Context != "" && b.Context != transcript.ContextCommand {
		m.context(ev, b, prefix)
		return
	}
	parts := []string{roleHeading(b.Role), m.clock(ev.TS)}
	if b.Model != "" {
		parts = append(parts, plain(b.Model))
	}
	if ev.AgentID != "" && ev.AgentID != transcript.MainAgent {
		parts = append(parts, "agent "+inlineCode(ev.AgentID))
	}
	heading := strings.Join(nonEmpty(parts), " · ")
	text := closeFences(transcript.Inert(b.Text))
	if b.Thinking {
		// The heading is not written, but its time counts: the summary's
		// time never has a date (as exports always had it).
		m.line(prefix, "<details><summary>💭 Thinking · "+m.unshownClock(ev.TS)+m.clock(ev.TS)+"</summary>")
		m.line(prefix, "")
		m.block(prefix, text)
		m.line(prefix, "</details>")
		m.line(prefix, "")
		return
	}
	m.line(prefix, "## "+heading)
	m.line(prefix, "")
	if b.Context == transcript.ContextCommand {
		m.line(prefix, inlineCode(b.Text))
		m.line(prefix, "")
		return
	}
	if strings.TrimSpace(text) == "" {
		m.line(prefix, "*(empty)*")
		m.line(prefix, "")
		return
	}
	m.block(prefix, text)
}

// context writes what the agent put into the conversation (its
// environment, instructions, a command's output) folded, under a one-line
// summary, its text fenced so that its headings stay out of the outline.
func (m *mdWriter) context(ev *transcript.Event, b *transcript.ChatTurn, prefix string) {
	summary := ContextLabel(b)
	if s := ContextSummary(b); s != "" {
		summary += " · " + s
	}
	m.line(prefix, "<details><summary>⚙️ "+htmlText(summary)+" · "+m.unshownClock(ev.TS)+m.clock(ev.TS)+"</summary>")
	m.line(prefix, "")
	m.fenced(prefix, "text", "", b.Text)
	m.line(prefix, "</details>")
	m.line(prefix, "")
}

func (m *mdWriter) toolCall(n *mdNode, b *transcript.ToolCall, prefix string) {
	var res *transcript.ToolResult
	if n.second != nil {
		res, _ = n.second.Body.(*transcript.ToolResult)
	}
	mark := "⏳"
	if res != nil {
		mark = okMark(!res.IsError)
	}
	parts := []string{fmt.Sprintf("### %s Tool: %s", mark, inlineCode(b.Tool)), m.clock(n.ev.TS)}
	if res != nil && res.DurationMS > 0 {
		parts = append(parts, FormatDuration(res.DurationMS))
	}
	m.line(prefix, strings.Join(nonEmpty(parts), " · "))
	m.line(prefix, "")
	if len(b.Input) > 0 && string(b.Input) != "null" {
		if path, diff, ok := EditDiff(b.Tool, b.Input); ok {
			if path != "" {
				m.line(prefix, "**File:** "+inlineCode(path))
				m.line(prefix, "")
			}
			m.fenced(prefix, "diff", "Changes", diff)
		} else {
			m.line(prefix, "**Parameters:**")
			m.line(prefix, "")
			m.fenced(prefix, "json", "Parameters", prettyJSON(b.Input))
		}
	}
	switch {
	case res == nil:
		m.line(prefix, "*No result recorded.*")
		m.line(prefix, "")
	default:
		label := "Result"
		if res.IsError {
			label = "Error"
		}
		m.output(prefix, label, res.Output)
		if res.OutputTruncated {
			m.line(prefix, "> ⚠️ The output was truncated when it was recorded.")
			m.line(prefix, "")
		}
	}
}

func (m *mdWriter) bash(n *mdNode, prefix string) {
	var start *transcript.BashStart
	if s, ok := n.ev.Body.(*transcript.BashStart); ok {
		start = s
	}
	var run *transcript.BashRun
	if n.second != nil {
		run, _ = n.second.Body.(*transcript.BashRun)
	}
	command, cwd := "", ""
	switch {
	case run != nil:
		command, cwd = run.Command, run.WorkingDirectory
	case start != nil:
		command, cwd = start.Command, start.WorkingDirectory
	}
	if cwd == "" && start != nil {
		cwd = start.WorkingDirectory
	}
	mark, status := "⏳", "still running (no result recorded)"
	if run != nil {
		mark, status = runMark(run), BashStatus(run)
	}
	parts := []string{fmt.Sprintf("### %s Bash: %s", mark, inlineCode(oneLine(command, headingCommandLength))), m.clock(n.ev.TS)}
	m.line(prefix, strings.Join(nonEmpty(parts), " · "))
	m.line(prefix, "")
	m.fenced(prefix, "bash", "", command)
	var facts []string
	if run != nil && run.Description != "" {
		facts = append(facts, "**Description:** "+plain(run.Description))
	}
	if cwd != "" {
		facts = append(facts, "**Working directory:** "+inlineCode(cwd))
	}
	facts = append(facts, fmt.Sprintf("**Exit:** %s %s", mark, status))
	if run != nil {
		facts = append(facts, "**Duration:** "+FormatDuration(run.DurationMS))
		if run.Error != nil {
			facts = append(facts, fmt.Sprintf("**Error:** %s %s", inlineCode(run.Error.Code), plain(run.Error.Message)))
		}
		if u := run.Usage; u != nil {
			rss := fmt.Sprintf("max RSS %d KB", u.MaxRSSKB)
			if u.MaxRSSKB == 0 {
				rss = "max RSS not known (below the recorder's own)"
			}
			facts = append(facts, fmt.Sprintf("**Resources:** %s, user %d ms, sys %d ms", rss, u.UserMS, u.SysMS))
		}
	}
	for _, f := range facts {
		m.line(prefix, "- "+f)
	}
	m.line(prefix, "")
	if run == nil {
		return
	}
	if run.Stdout != "" {
		m.output(prefix, "stdout", run.Stdout)
	}
	if run.Stderr != "" {
		m.output(prefix, "stderr", run.Stderr)
	}
	if run.Stdout == "" && run.Stderr == "" {
		m.line(prefix, "*No output.*")
		m.line(prefix, "")
	}
	if run.OutputTruncated {
		note := "> ⚠️ Output truncated when it was recorded"
		if run.OutputTruncatedBytes != nil {
			note += fmt.Sprintf(" (%s bytes were written in all)", GroupDigits(*run.OutputTruncatedBytes))
		}
		m.line(prefix, note+".")
		m.line(prefix, "")
	}
	if len(run.Environment) > 0 {
		keys := make([]string, 0, len(run.Environment))
		for k := range run.Environment {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var env strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&env, "%s=%s\n", k, run.Environment[k])
		}
		m.fenced(prefix, "", "Environment", env.String())
	}
}

// delegationOutcome is how a delegation ended, as far as the session
// tells: its end and the mark that shows it.
func delegationOutcome(n *mdNode, b *transcript.Delegation) (end *transcript.Delegation, mark string) {
	if n.second != nil {
		end, _ = n.second.Body.(*transcript.Delegation)
	}
	if b.Phase == transcript.PhaseEnd { // an end whose start is not in the session
		end = b
	}
	mark = "⏳"
	if end != nil && end.Success != nil {
		mark = okMark(*end.Success)
	} else if end != nil {
		mark = "🏁"
	}
	return end, mark
}

// delegationStart writes a delegation's heading and task; the entries
// inside it follow, quoted, then delegationEnd.
func (m *mdWriter) delegationStart(n *mdNode, b *transcript.Delegation, prefix string) {
	end, mark := delegationOutcome(n, b)
	agent := b.AgentType
	if agent == "" && end != nil {
		agent = end.AgentType
	}
	if agent == "" {
		agent = "sub-agent"
	}
	parts := []string{fmt.Sprintf("### %s Delegation to %s", mark, inlineCode(agent)), m.clock(n.ev.TS)}
	if b.SubAgentID != "" {
		parts = append(parts, "agent "+inlineCode(b.SubAgentID))
	}
	m.line(prefix, strings.Join(nonEmpty(parts), " · "))
	m.line(prefix, "")
	if b.Task != "" {
		m.line(prefix, "**Task:**")
		m.line(prefix, "")
		m.block(prefix, closeFences(transcript.Inert(b.Task)))
	}
}

// delegationGoesOn writes the line that takes a delegation up again after
// its parent did something (its sub-agent works in the background).
func (m *mdWriter) delegationGoesOn(start *transcript.Event, prefix string) {
	agent := "sub-agent"
	if b, ok := start.Body.(*transcript.Delegation); ok && b.AgentType != "" {
		agent = b.AgentType
	}
	m.line(prefix, "*↳ The delegation to "+inlineCode(agent)+" continues:*")
	m.line(prefix, "")
}

// delegationEnd writes how a delegation ended, after the entries inside it
// and, when there were any, a blank line.
func (m *mdWriter) delegationEnd(n *mdNode, b *transcript.Delegation, prefix string) {
	end, mark := delegationOutcome(n, b)
	switch {
	case end == nil:
		m.line(prefix, "*The delegation had not finished when the session was exported.*")
		m.line(prefix, "")
	case end.Result != "":
		when := ""
		if n.second != nil {
			when = " · " + m.clock(n.second.TS)
		}
		m.line(prefix, fmt.Sprintf("**Result** %s%s:", mark, when))
		m.line(prefix, "")
		m.block(prefix, closeFences(transcript.Inert(end.Result)))
	default:
		m.line(prefix, fmt.Sprintf("**Finished** %s", mark))
		m.line(prefix, "")
	}
}

func (m *mdWriter) approval(n *mdNode, b *transcript.ApprovalRequest, prefix string) {
	m.line(prefix, strings.Join(nonEmpty([]string{"### 🛡️ Approval requested", m.clock(n.ev.TS)}), " · "))
	m.line(prefix, "")
	if b.Command != "" {
		m.fenced(prefix, "bash", "", b.Command)
	}
	var facts []string
	if b.Tool != "" {
		facts = append(facts, "**Tool:** "+inlineCode(b.Tool))
	}
	if v := b.Verdict; v != nil {
		verdict := plain(v.Decision)
		if v.Tier != "" {
			verdict += " (" + plain(v.Tier) + ")"
		}
		if v.Rule != "" {
			verdict += ", rule " + inlineCode(v.Rule)
		}
		facts = append(facts, "**Verdict:** "+verdict)
		for _, r := range v.Reasons {
			facts = append(facts, "**Reason:** "+plain(r))
		}
	}
	if len(b.Taint) > 0 {
		facts = append(facts, "**Taint:** "+plain(strings.Join(b.Taint, ", ")))
	}
	if b.RequestID != "" {
		facts = append(facts, "**Request:** "+inlineCode(b.RequestID))
	}
	for _, f := range facts {
		m.line(prefix, "- "+f)
	}
	if len(facts) > 0 {
		m.line(prefix, "")
	}
	if b.Diff != "" {
		m.fenced(prefix, "diff", "Changes", b.Diff)
	}
	if n.second == nil {
		m.line(prefix, "**Decision:** ⏳ none recorded")
		m.line(prefix, "")
		return
	}
	if d, ok := n.second.Body.(*transcript.ApprovalDecision); ok {
		m.decision(n.second, d, prefix)
	}
}

func (m *mdWriter) decision(ev *transcript.Event, d *transcript.ApprovalDecision, prefix string) {
	var s string
	switch d.Decision {
	case transcript.DecisionApprove:
		s = "✅ approved"
	case transcript.DecisionDeny:
		s = "❌ denied"
	case transcript.DecisionTimeout:
		s = "⏱️ timed out (denied)"
	case transcript.DecisionDefer:
		s = "↪️ deferred"
	default:
		s = plain(d.Decision)
	}
	if d.Scope != "" {
		s += " (" + plain(d.Scope) + ")"
	}
	if d.By != "" {
		s += " by " + plain(d.By)
	}
	if c := m.clock(ev.TS); c != "" {
		s += " · " + c
	}
	m.line(prefix, "**Decision:** "+s)
	if d.Reason != "" {
		m.line(prefix, "")
		m.line(prefix, "**Reason:** "+plain(d.Reason))
	}
	if d.RuleAdded != "" {
		m.line(prefix, "")
		m.line(prefix, "**Rule added:** "+inlineCode(d.RuleAdded))
	}
	m.line(prefix, "")
}

func (m *mdWriter) unknown(ev *transcript.Event, prefix string) {
	m.line(prefix, strings.Join(nonEmpty([]string{"### ❔ Event " + inlineCode(string(ev.Type)), m.clock(ev.TS)}), " · "))
	m.line(prefix, "")
	raw := ev.Raw
	if len(raw) == 0 {
		raw, _ = json.Marshal(ev)
	}
	m.fenced(prefix, "json", "Event", prettyJSON(raw))
}

func (m *mdWriter) sessionEnd(ev *transcript.Event, prefix string) {
	b, _ := ev.Body.(*transcript.SessionEnd)
	status := ""
	if b != nil {
		status = plain(b.Status)
	}
	m.line(prefix, "---")
	m.line(prefix, "")
	m.line(prefix, "*"+strings.Join(nonEmpty([]string{"Session ended", status, m.clock(ev.TS)}), " · ")+"*")
}

// output writes a labelled output: the label in bold above a short one, or
// as the summary of the <details> block that folds a long one.
func (m *mdWriter) output(prefix, label, content string) {
	if !m.folds(content) {
		m.line(prefix, "**"+label+":**")
		m.line(prefix, "")
	}
	m.fenced(prefix, "", label, content)
}

// folds reports whether content is long enough to be folded.
func (m *mdWriter) folds(content string) bool {
	content = strings.TrimRight(content, "\n")
	return strings.Count(content, "\n")+1 > m.opts.DetailsLines || len(content) > m.opts.DetailsBytes
}

// fenced writes content in a code fence that no run of backticks inside it
// can close; content longer than the options allow is folded into a
// <details> block whose summary names it.
func (m *mdWriter) fenced(prefix, lang, name, content string) {
	content = strings.TrimRight(transcript.Inert(content), "\n")
	lines := strings.Count(content, "\n") + 1
	fold := name != "" && m.folds(content)
	if fold {
		m.line(prefix, fmt.Sprintf("<details><summary>%s · %s</summary>", htmlText(name), plural(lines, "line")))
		m.line(prefix, "")
	}
	fence := Fence(content)
	m.line(prefix, fence+lang)
	if content != "" {
		for _, l := range strings.Split(content, "\n") {
			m.line(prefix, l)
		}
	}
	m.line(prefix, fence)
	m.line(prefix, "")
	if fold {
		m.line(prefix, "</details>")
		m.line(prefix, "")
	}
}
