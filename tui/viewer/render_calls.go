package viewer

import (
	"fmt"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// collapsedCommandLines is how many lines of a multi-line command show
// while its item is folded.
const collapsedCommandLines = 3

// staleAfter: a call still without its result this long after it began
// is shown as unfinished rather than running.
const staleAfter = 6 * time.Hour

// running says how long a call without its result has been going, or that
// it never finished when that is long ago or the session has ended.
func (r *renderer) running(it *timeline.Item, a args, verb string) string {
	if start := it.BashStart(); start != nil && session.RecorderGone(start.Recorder) {
		return r.st.Fail.Render("✗ " + transcript.RecorderDiedMessage)
	}
	since := it.TS()
	if a.ended || since.IsZero() || a.now.Sub(since) > staleAfter {
		return r.st.Warn.Render("… no result")
	}
	return r.st.Warn.Render(a.spinner + " " + verb + " " + export.FormatDuration(max(0, a.now.Sub(since).Milliseconds())))
}

func (r *renderer) tool(it *timeline.Item, a args) []string {
	call, res := it.ToolCall(), it.ToolResult()
	name := ""
	switch {
	case call != nil:
		name = call.Tool
	case res != nil:
		name = res.Tool
	}
	left := r.st.ToolName.Render("⚒ " + common.OneLine(common.Sanitize(name), 30))
	var diffPath, diff string
	isEdit := false
	if call != nil {
		diffPath, diff, isEdit = export.EditDiff(call.Tool, call.Input)
		summary := toolSummary(call.Input)
		if isEdit && diffPath != "" {
			summary = diffPath
		}
		if summary != "" {
			left += " " + r.st.Summary.Render(common.OneLine(common.Sanitize(summary), a.width))
		}
		if isEdit {
			add, del := diffStat(diff)
			left += " " + r.st.DiffAdd.Render(fmt.Sprintf("+%d", add)) + " " + r.st.DiffDel.Render(fmt.Sprintf("−%d", del))
		}
	}
	var facts []string
	switch {
	case res == nil:
		facts = append(facts, r.running(it, a, "running"))
	case res.IsError:
		facts = append(facts, r.st.Fail.Render("✗ error"))
	default:
		facts = append(facts, r.st.OK.Render("✓"))
	}
	if res != nil && res.DurationMS > 0 {
		facts[0] += "  " + r.st.Muted.Render(export.FormatDuration(res.DurationMS))
	}
	outLines := 0
	if res != nil {
		outLines = it.FieldLines(timeline.Output)
		if outLines > 0 && !a.expanded {
			facts = append(facts, r.st.Hint.Render("▸ "+plural(outLines, "line")))
		}
	}
	facts = append(facts, r.clock(it.TS()))
	lines := []string{r.headLine(left, strings.Join(facts, r.st.Muted.Render(" · ")), a.width)}
	if !a.expanded {
		return lines
	}
	if call != nil {
		if isEdit {
			for _, l := range r.diffLines(diff, a.width-2) {
				lines = append(lines, "  "+l)
			}
		} else if len(call.Input) > 0 && string(call.Input) != "null" {
			lines = append(lines, "  "+r.st.Label.Render("input"))
			src := common.Sanitize(prettyJSON(call.Input))
			for _, l := range r.hl.Code(src, "json") {
				for _, w := range common.HardWrap(l, a.width-2) {
					lines = append(lines, "  "+w)
				}
			}
		}
	}
	if res != nil && isEdit && !res.IsError && !a.explicit {
		if outLines > 0 {
			lines = append(lines, "  "+r.st.Hint.Render("▸ output: "+plural(outLines, "line")+" (enter)"))
		}
		return lines
	}
	if res != nil {
		label, style := "output", r.st.Label
		if res.IsError {
			label, style = "error", r.st.ErrLabel
		}
		if outLines == 0 {
			lines = append(lines, "  "+r.st.Muted.Render("(no output)"))
		} else {
			lines = append(lines, r.fieldOutput(it, timeline.Output, label, style, a.width)...)
		}
		if res.OutputTruncated {
			lines = append(lines, "  "+r.st.Notice.Render("⚠ the output was truncated when it was recorded"))
		}
	}
	return lines
}

// bashBadge is the exit badge of a run: ✓, ✗ code, ⏱ timed out.
func (r *renderer) bashBadge(run *transcript.BashRun) string {
	switch {
	case run.InBackground():
		return r.st.Muted.Render("⏩ in background")
	case run.TimedOut:
		return r.st.Fail.Render("⏱ timed out")
	case run.RecorderDied():
		return r.st.Fail.Render("✗ " + transcript.RecorderDiedMessage)
	case run.Interrupted:
		return r.st.Fail.Render("✗ interrupted")
	case run.ExitCode == nil && run.Error != nil:
		return r.st.Fail.Render("✗ " + common.OneLine(common.Sanitize(run.Error.Code), 20))
	case run.ExitCode == nil:
		return r.st.Fail.Render("✗ no exit code")
	case *run.ExitCode == 0:
		return r.st.OK.Render("✓")
	}
	return r.st.Fail.Render(fmt.Sprintf("✗ %d", *run.ExitCode))
}

func (r *renderer) bash(it *timeline.Item, a args) []string {
	start, run := it.BashStart(), it.BashRun()
	command, cwd := "", ""
	if start != nil {
		command, cwd = start.Command, start.WorkingDirectory
	}
	if run != nil {
		command = run.Command
		if run.WorkingDirectory != "" {
			cwd = run.WorkingDirectory
		}
	}
	cmdLines := r.hl.Code(common.Sanitize(strings.TrimRight(clip(command), "\n")), "bash")
	var facts []string
	if run == nil {
		facts = append(facts, r.running(it, a, "running"))
	} else {
		facts = append(facts, r.bashBadge(run)+"  "+r.st.Muted.Render(export.FormatDuration(run.DurationMS)))
	}
	facts = append(facts, r.clock(it.TS()))
	prompt := r.st.Prompt.Render("$") + " "
	lines := []string{r.headLine(prompt+cmdLines[0], strings.Join(facts, r.st.Muted.Render(" · ")), a.width)}
	rest := cmdLines[1:]
	if !a.expanded && len(rest) > collapsedCommandLines {
		hidden := len(rest) - collapsedCommandLines
		rest = append(rest[:collapsedCommandLines:collapsedCommandLines], r.st.Hint.Render("… "+plural(hidden, "more line")))
	}
	for _, l := range rest {
		for _, w := range common.HardWrap(l, a.width-2) {
			lines = append(lines, "  "+w)
		}
	}
	var info []string
	if cwd != "" {
		info = append(info, "in "+common.OneLine(common.Sanitize(cwd), a.width/2))
	}
	outLines := 0
	if run != nil {
		outLines = it.FieldLines(timeline.Stdout) + it.FieldLines(timeline.Stderr)
		switch {
		case outLines == 0:
			info = append(info, "no output")
		case !a.expanded:
			info = append(info, "▸ "+plural(outLines, "line")+" of output (enter)")
		}
		if run.OutputTruncated {
			info = append(info, "truncated")
		}
	}
	if len(info) > 0 {
		lines = append(lines, "  "+r.st.Hint.Render(common.Truncate(strings.Join(info, " · "), a.width-2)))
	}
	if !a.expanded || run == nil {
		return lines
	}
	if run.Description != "" {
		lines = append(lines, r.wrapIndented(r.st.Muted.Render("description: ")+common.Sanitize(run.Description), a.width)...)
	}
	if it.FieldLines(timeline.Stdout) > 0 {
		lines = append(lines, r.fieldOutput(it, timeline.Stdout, "stdout", r.st.Label, a.width)...)
	}
	if it.FieldLines(timeline.Stderr) > 0 {
		lines = append(lines, r.fieldOutput(it, timeline.Stderr, "stderr", r.st.ErrLabel, a.width)...)
	}
	if run.OutputTruncated {
		note := "⚠ output truncated when it was recorded"
		if run.OutputTruncatedBytes != nil {
			note += fmt.Sprintf(" (%s written in all)", humanBytes(*run.OutputTruncatedBytes))
		}
		lines = append(lines, "  "+r.st.Notice.Render(note))
	}
	if run.Error != nil {
		code := r.st.Fail
		if run.InBackground() {
			code = r.st.Muted
		}
		lines = append(lines, r.wrapIndented(code.Render(common.Sanitize(run.Error.Code))+" "+common.Sanitize(run.Error.Message), a.width)...)
	}
	if u := run.Usage; u != nil {
		rss := "max RSS " + humanBytes(u.MaxRSSKB<<10)
		if u.MaxRSSKB == 0 {
			rss = "max RSS not known (below the recorder's own)"
		}
		lines = append(lines, "  "+r.st.Muted.Render(fmt.Sprintf("%s · user %d ms · sys %d ms", rss, u.UserMS, u.SysMS)))
	}
	return lines
}

// wrapIndented wraps a styled line under a two-cell indent.
func (r *renderer) wrapIndented(s string, width int) []string {
	var out []string
	for _, l := range common.Wrap(s, width-2) {
		out = append(out, "  "+l)
	}
	return out
}

func (r *renderer) delegation(it *timeline.Item, a args) []string {
	d, end := it.Delegation(), it.DelegationEnd()
	agent := "sub-agent"
	if d != nil && d.AgentType != "" {
		agent = common.OneLine(common.Sanitize(d.AgentType), 30)
	}
	left := r.st.Delegation.Render("⤷ " + agent)
	var facts []string
	switch {
	case end == nil:
		facts = append(facts, r.running(it, a, "working"))
	case end.Success != nil && !*end.Success:
		facts = append(facts, r.st.Fail.Render("✗ failed"))
	case end.Success != nil:
		facts = append(facts, r.st.OK.Render("✓ done"))
	default:
		facts = append(facts, r.st.Muted.Render("finished"))
	}
	if end := it.EndTS(); !end.IsZero() {
		facts = append(facts, r.st.Muted.Render(export.FormatDuration(end.Sub(it.TS()).Milliseconds())))
	}
	facts = append(facts, r.clock(it.TS()))
	lines := []string{"", r.headLine(left, strings.Join(facts, r.st.Muted.Render(" · ")), a.width)}
	if d != nil && d.Task != "" {
		task := common.Wrap(common.Sanitize(strings.TrimSpace(clip(d.Task))), a.width-2)
		if !a.expanded && len(task) > collapsedTextLines {
			hidden := len(task) - collapsedTextLines
			task = append(task[:collapsedTextLines:collapsedTextLines], r.st.Hint.Render("▸ "+plural(hidden, "more line")+" (enter)"))
		}
		for _, l := range task {
			lines = append(lines, "  "+r.st.Muted.Render(l))
		}
	}
	return lines
}

func (r *renderer) delegationEnd(it *timeline.Item, a args) []string {
	end := it.DelegationEnd()
	mark := r.st.Muted.Render("↩ result")
	if end != nil && end.Success != nil {
		if *end.Success {
			mark = r.st.OK.Render("↩ result ✓")
		} else {
			mark = r.st.Fail.Render("↩ result ✗")
		}
	}
	lines := []string{r.headLine(mark, r.clock(it.TS()), a.width)}
	if end == nil || end.Result == "" {
		return lines
	}
	body := r.markdownBody(it, end.Result, a.width)
	if !a.expanded && len(body) > collapsedTextLines+2 {
		hidden := len(body) - collapsedTextLines
		body = append(body[:collapsedTextLines:collapsedTextLines], r.st.Hint.Render("▸ "+plural(hidden, "more line")+" (enter)"))
	}
	return append(lines, body...)
}

func (r *renderer) approval(it *timeline.Item, a args) []string {
	req, dec := it.ApprovalRequest(), it.ApprovalDecision()
	left := r.st.Approval.Render("⚠ Approval requested")
	var right string
	switch {
	case dec == nil && req == nil:
		right = ""
	case dec == nil && a.ended:
		right = r.st.Warn.Render("… no decision recorded")
	case dec == nil:
		right = r.st.Warn.Render(a.spinner + " waiting")
		if a.canAnswer {
			right += r.st.Hint.Render(" (a to answer)")
		}
	default:
		right = r.decision(dec)
	}
	right += r.st.Muted.Render(" · ") + r.clock(it.TS())
	lines := []string{"", r.headLine(left, right, a.width)}
	if req == nil {
		return lines
	}
	if req.Command != "" {
		cmd := r.hl.Code(common.Sanitize(clip(req.Command)), "bash")
		for i, l := range cmd {
			prefix := "  "
			if i == 0 {
				prefix = r.st.Prompt.Render("$") + " "
			}
			for _, w := range common.HardWrap(l, a.width-2) {
				lines = append(lines, prefix+w)
				prefix = "  "
			}
		}
	}
	var why []string
	if v := req.Verdict; v != nil {
		if v.Tier != "" {
			why = append(why, v.Tier)
		}
		why = append(why, v.Reasons...)
		if v.Rule != "" {
			why = append(why, "rule "+v.Rule)
		}
	}
	if len(req.Taint) > 0 {
		why = append(why, "taint: "+strings.Join(req.Taint, ", "))
	}
	if len(why) > 0 {
		lines = append(lines, r.wrapIndented(r.st.Muted.Render(common.Sanitize(strings.Join(why, " · "))), a.width)...)
	}
	if dec != nil && dec.Reason != "" {
		lines = append(lines, r.wrapIndented(r.st.Muted.Render("reason: "+common.Sanitize(dec.Reason)), a.width)...)
	}
	if a.expanded && req.Diff != "" {
		for _, l := range r.diffLines(req.Diff, a.width-2) {
			lines = append(lines, "  "+l)
		}
	}
	return lines
}

// decision says how an approval was decided: "✓ approved once by tui".
func (r *renderer) decision(d *transcript.ApprovalDecision) string {
	var s string
	switch d.Decision {
	case transcript.DecisionApprove:
		s = r.st.OK.Render("✓ approved")
	case transcript.DecisionDeny:
		s = r.st.Fail.Render("✗ denied")
	case transcript.DecisionTimeout:
		s = r.st.Fail.Render("⏱ timed out")
	case transcript.DecisionDefer:
		s = r.st.Warn.Render("↪ deferred")
	default:
		s = r.st.Muted.Render(common.OneLine(common.Sanitize(d.Decision), 20))
	}
	var more []string
	if d.Scope != "" {
		more = append(more, common.OneLine(common.Sanitize(d.Scope), 12))
	}
	if d.By != "" {
		more = append(more, "by "+common.OneLine(common.Sanitize(d.By), 12))
	}
	if len(more) > 0 {
		s += " " + r.st.Muted.Render(strings.Join(more, " "))
	}
	return s
}
