package dialog

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/cuff-dev/cuff/tui/common"
)

// Sizes of the approval prompt.
const (
	maxDialogWidth     = 76
	maxDiffDialogWidth = 100 // a prompt with a diff may be wider
	maxCommandLines    = 8
	maxDiffLines       = 12
	dialogFrameWidth   = 6 // border and padding
	dialogFrameHeight  = 4
	minDialogInner     = 10
	// urgentLeft is when the countdown turns to a warning.
	urgentLeft = 30 * time.Second
)

// renderCache keeps the highlighted command and diff for one width: the
// prompt redraws on every tick of its countdown.
type renderCache struct {
	cmdWidth, diffWidth int
	cmd, diff           []string
}

// View draws the prompt: what would run, where and for whom, why it was
// gated, the countdown, the diff of a file change, and the choices.
func (a *Approval) View(width, height int) string {
	maxW := maxDialogWidth
	if a.req.Diff != "" {
		maxW = maxDiffDialogWidth
	}
	w := max(min(maxW, width-2)-dialogFrameWidth, minDialogInner)
	head := a.headLines(w)
	tail := a.tailLines(w)
	budget := height - dialogFrameHeight
	if room := budget - len(head) - len(tail); a.req.Diff != "" && room > 2 {
		head = append(head, rankedLines(rankDetail, a.diffLines(w, room))...)
	}
	if budget > 0 && len(head)+len(tail) > budget {
		// Too small a screen: the command and the keys come first, then
		// the rest as it fits.
		tail = a.compactTail(w)
		head = fitRanked(head, max(budget-len(tail), 1))
		if len(head)+len(tail) > budget {
			tail = tail[:max(budget-len(head), 0)]
		}
	}
	out := make([]string, 0, len(head)+len(tail))
	for _, l := range head {
		out = append(out, l.text)
	}
	return a.st.Dialog.Width(w + dialogFrameWidth).Render(strings.Join(append(out, tail...), "\n"))
}

// How much a line of the prompt's details matters when the screen is too
// small for all of them: lower ranks are kept first.
const (
	rankCommand = iota
	rankTitle
	rankCountdown
	rankWhere
	rankWho
	rankDetail
)

// ranked is a line of the prompt's details and how much it matters.
type ranked struct {
	text string
	rank int
}

func rankedLines(rank int, lines []string) []ranked {
	out := make([]ranked, len(lines))
	for i, l := range lines {
		out[i] = ranked{l, rank}
	}
	return out
}

// fitRanked keeps at most n lines, the most important ones, in their
// order; blank lines go first when something has to go.
func fitRanked(lines []ranked, n int) []ranked {
	if len(lines) <= n {
		return lines
	}
	keep := make([]bool, len(lines))
	left := n
	for rank := rankCommand; rank <= rankDetail && left > 0; rank++ {
		for i, l := range lines {
			if left > 0 && l.rank == rank && strings.TrimSpace(l.text) != "" {
				keep[i], left = true, left-1
			}
		}
	}
	out := make([]ranked, 0, n)
	for i, l := range lines {
		if keep[i] {
			out = append(out, l)
		}
	}
	return out
}

// compactTail is the choices in as few lines as possible: the keys
// without the buttons, or the reason input with its keys.
func (a *Approval) compactTail(w int) []string {
	st := a.st
	if a.mode == modeReason {
		in := a.reason
		in.SetWidth(max(w-4, 1))
		return []string{in.View(), st.Muted.Render(common.Truncate("enter denies · esc back", w))}
	}
	keys := "a once · s session · A always · d deny · esc later"
	if w < lipgloss.Width(keys) {
		keys = "a/s/A approve · d deny · esc later"
	}
	var out []string
	for _, l := range common.Wrap(keys, w) {
		out = append(out, st.Muted.Render(l))
	}
	return out
}

// headLines are the details of the request, ranked by how much they
// matter on a small screen.
func (a *Approval) headLines(w int) []ranked {
	st, r := a.st, a.req
	title := st.DialogTitle.Render("⚠ Approval requested")
	if a.waiting > 0 {
		title += st.Muted.Render(fmt.Sprintf(" · %d more waiting", a.waiting))
	}
	lines := []ranked{{common.Truncate(title, w), rankTitle}}
	if who := a.who(); who != "" {
		for _, l := range common.Wrap(who, w) {
			lines = append(lines, ranked{st.Muted.Render(l), rankWho})
		}
	}
	what := "The agent wants to run:"
	if r.Tool != "" && !strings.EqualFold(r.Tool, "bash") {
		what = "The agent wants to use " + common.OneLine(common.Sanitize(r.Tool), 30) + ":"
	}
	lines = append(lines, ranked{"", rankDetail}, ranked{st.Muted.Render(what), rankDetail})
	lines = append(lines, rankedLines(rankCommand, a.commandLines(w))...)
	if d := strings.TrimSpace(r.Description); d != "" {
		for _, l := range common.Wrap("“"+common.OneLine(common.Sanitize(d), 300)+"”", w) {
			lines = append(lines, ranked{st.Muted.Render(l), rankWhere})
		}
	}
	if r.WorkingDirectory != "" {
		lines = append(lines, ranked{common.Truncate(st.Muted.Render("in ")+common.Sanitize(r.WorkingDirectory), w), rankWhere})
	}
	if left := a.countdown(); left != "" {
		lines = append(lines, ranked{left, rankCountdown})
	}
	why := a.whyLines(w)
	if len(why) > 0 {
		lines = append(lines, ranked{"", rankDetail})
		lines = append(lines, rankedLines(rankDetail, why)...)
	}
	return lines
}

// who names the agent and the project the request comes from.
func (a *Approval) who() string {
	var parts []string
	if a.req.Agent != "" {
		parts = append(parts, common.OneLine(common.Sanitize(a.req.Agent), 24))
	}
	switch title, id := common.OneLine(common.Sanitize(a.req.SessionTitle), 40), common.ShortID(common.Sanitize(a.req.SessionID)); {
	case title != "" && id != "":
		parts = append(parts, "session “"+title+"” ("+id+")")
	case title != "":
		parts = append(parts, "session “"+title+"”")
	case id != "":
		parts = append(parts, "session "+id)
	}
	if a.req.OnScreen {
		parts = append(parts, "the session on screen")
	}
	if a.req.Project != "" {
		parts = append(parts, "project "+common.Sanitize(a.req.Project))
	}
	return strings.Join(parts, " · ")
}

// commandLines is the command, highlighted as shell, cut at
// maxCommandLines.
func (a *Approval) commandLines(w int) []string {
	if a.req.Command == "" {
		return nil
	}
	if a.cache.cmdWidth == w && a.cache.cmd != nil {
		return a.cache.cmd
	}
	var out []string
	prefix := a.st.Prompt.Render("$") + " "
	for _, l := range a.hl.Code(common.Sanitize(a.req.Command), "bash") {
		for _, part := range common.Wrap(l, w-2) {
			out = append(out, prefix+part)
			prefix = "  "
		}
	}
	if len(out) > maxCommandLines {
		out = append(out[:maxCommandLines:maxCommandLines], a.st.Muted.Render(fmt.Sprintf("  … %d more lines", len(out)-maxCommandLines)))
	}
	a.cache.cmdWidth, a.cache.cmd = w, out
	return out
}

// whyLines say why the gate asked: tier, rule, reasons, taint.
func (a *Approval) whyLines(w int) []string {
	st := a.st
	var lines []string
	add := func(label, text string, style lipgloss.Style) {
		for i, l := range common.Wrap(common.Sanitize(text), max(w-len(label), 1)) {
			if i == 0 {
				lines = append(lines, st.Muted.Render(label)+style.Render(l))
				continue
			}
			lines = append(lines, strings.Repeat(" ", len(label))+style.Render(l))
		}
	}
	if len(a.req.Parts) > 1 {
		// A compound command: every part that asks or denies, with its
		// own reasons, so that nothing hides behind the first.
		for _, p := range a.req.Parts {
			mark := "asks:   "
			if p.Verdict == "deny" {
				mark = "denies: "
			}
			add(mark, common.OneLine(p.Text, 200), st.Warn)
			for _, reason := range p.Reasons {
				add("        ", "• "+reason, st.Warn)
			}
		}
	} else if v := a.req.Verdict; v != nil {
		if v.Tier != "" {
			add("gated:  ", v.Tier, st.Warn)
		}
		if v.Rule != "" {
			add("rule:   ", v.Rule, st.Warn)
		}
		for _, reason := range v.Reasons {
			add("        ", "• "+reason, st.Warn)
		}
	}
	if len(a.req.Taint) > 0 {
		add("taint:  ", strings.Join(a.req.Taint, ", "), st.Warn)
	}
	if a.req.NotAlways != "" {
		add("always: ", "not offered: "+a.req.NotAlways, st.Muted)
	}
	if a.req.TrustNote != "" {
		add("policy: ", strings.TrimPrefix(a.req.TrustNote, "cuff: "), st.Warn)
	}
	return lines
}

// countdown is the time left before the request is denied by timeout.
func (a *Approval) countdown() string {
	if a.req.ExpiresAt.IsZero() {
		return ""
	}
	left := a.req.ExpiresAt.Sub(a.now())
	if left <= 0 {
		return a.st.Warn.Render("expired: denied by timeout")
	}
	text := "denied automatically in " + left.Round(time.Second).String()
	if left < urgentLeft {
		return a.st.Warn.Render(text)
	}
	return a.st.Muted.Render(text)
}

// diffLines is a window of the highlighted diff, at most room lines with
// its heading.
func (a *Approval) diffLines(w, room int) []string {
	if a.cache.diffWidth != w || a.cache.diff == nil {
		var all []string
		for _, l := range a.hl.Code(common.Sanitize(strings.TrimRight(a.req.Diff, "\n")), "diff") {
			all = append(all, common.HardWrap(l, w)...)
		}
		a.cache.diffWidth, a.cache.diff = w, all
	}
	all := a.cache.diff
	n := min(maxDiffLines, room-2, len(all))
	if n <= 0 {
		return nil
	}
	top := min(a.diffTop, len(all)-n)
	heading := "Change:"
	if len(all) > n {
		heading = fmt.Sprintf("Change (lines %d–%d of %d, ↑/↓ to scroll):", top+1, top+n, len(all))
	}
	out := []string{"", a.st.Muted.Render(common.Truncate(heading, w))}
	return append(out, all[top:top+n]...)
}

// tailLines are the choices, or the reason input of a denial.
func (a *Approval) tailLines(w int) []string {
	st := a.st
	var lines []string
	if a.mode == modeReason {
		in := a.reason
		in.SetWidth(max(w-4, 1))
		lines = append(lines, "", st.Warn.Render("Deny: the reason goes back to the agent"), in.View(),
			st.Muted.Render(common.Truncate("enter denies · esc goes back", w)))
	} else {
		lines = append(lines, "")
		lines = append(lines, strings.Split(a.buttons(w), "\n")...)
		lines = append(lines, st.Muted.Render(common.Truncate("a once · s this agent session · A always · d deny… · esc later", w)))
	}
	if a.note != "" {
		for _, l := range common.Wrap(a.note, w) {
			lines = append(lines, st.Muted.Render(l))
		}
	}
	if a.inGrace() {
		lines = append(lines, st.Muted.Render("…"))
	}
	return lines
}

// buttons draws the choices, the focused one highlighted, on as many
// lines as the width needs.
func (a *Approval) buttons(width int) string {
	var rows []string
	row := ""
	for i := range choiceCount {
		style := a.st.Button
		if i == a.choice {
			style = a.st.ButtonActive
		}
		b := style.Render(choiceLabel(i))
		if row != "" && lipgloss.Width(row)+1+lipgloss.Width(b) > width {
			rows = append(rows, row)
			row = ""
		}
		if row != "" {
			row += " "
		}
		row += b
	}
	return strings.Join(append(rows, row), "\n")
}
