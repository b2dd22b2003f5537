package viewer

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/export"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/styles"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// Limits that keep one huge event from stalling a frame.
const (
	// fieldHeadBytes and fieldTailBytes bound how much of one text field
	// (an output, a message) is laid out; the middle is left out with a
	// notice.
	fieldHeadBytes = 192 << 10
	fieldTailBytes = 32 << 10
	// outputHeadLines and outputTailLines bound the lines of an expanded
	// output.
	outputHeadLines = 400
	outputTailLines = 100
	// syncMarkdownBytes is the largest message rendered as markdown on the
	// spot; bigger ones are rendered in the background, and messages over
	// maxMarkdownBytes are shown as plain text.
	syncMarkdownBytes = 16 << 10
	maxMarkdownBytes  = 128 << 10
	// collapsedTextLines is how many lines of a folded message show.
	collapsedTextLines = 3
	// defaultOpenDiffLines: edits with a diff this short start expanded.
	defaultOpenDiffLines = 40
)

// renderer draws items. It holds no per-item state; the model caches what
// it returns.
type renderer struct {
	st  *styles.Styles
	md  *common.Markdown
	hl  *common.Highlighter
	loc *time.Location
	// markdown returns a finished background rendering of text at width,
	// or nil (and asks for one) when there is none yet.
	markdown func(it *timeline.Item, text string, width int) []string
}

// args are what one rendering depends on besides the item.
type args struct {
	width     int
	expanded  bool
	now       time.Time
	spinner   string
	canAnswer bool
	// ended is set once the session has ended: nothing is running any more.
	ended bool
	// explicit is set when the person expanded the item themselves (not
	// by default or with expand-all).
	explicit bool
}

// render returns the lines of one item, each at most a.width cells wide.
func (r *renderer) render(it *timeline.Item, a args) []string {
	var lines []string
	switch it.Kind {
	case timeline.KindSessionStart:
		lines = r.sessionStart(it, a)
	case timeline.KindUser:
		lines = r.user(it, a)
	case timeline.KindAssistant, timeline.KindSystem:
		lines = r.assistant(it, a)
	case timeline.KindThinking:
		lines = r.thinking(it, a)
	case timeline.KindTool:
		lines = r.tool(it, a)
	case timeline.KindBash:
		lines = r.bash(it, a)
	case timeline.KindDelegation:
		lines = r.delegation(it, a)
	case timeline.KindDelegationEnd:
		lines = r.delegationEnd(it, a)
	case timeline.KindApproval:
		lines = r.approval(it, a)
	case timeline.KindSessionEnd:
		lines = r.sessionEnd(it, a)
	case timeline.KindNotice:
		lines = r.wrapStyled(r.st.Warn, "! "+common.Sanitize(it.Text()), a.width)
	default:
		lines = r.unknown(it, a)
	}
	if it.Resumes() {
		lines = r.resumed(it, lines, a)
	}
	for i, l := range lines {
		if ansi.StringWidth(l) > a.width {
			lines[i] = ansi.Truncate(l, a.width, "…")
		}
	}
	return lines
}

// resumed puts a line saying whose block goes on before the lines of an
// item that takes its delegation's block up again after items outside it
// (a sub-agent working in the background while its parent goes on).
func (r *renderer) resumed(it *timeline.Item, lines []string, a args) []string {
	agent := "sub-agent"
	if d := it.Parent.Delegation(); d != nil && d.AgentType != "" {
		agent = common.OneLine(common.Sanitize(d.AgentType), 30)
	}
	lead := 0
	for lead < len(lines) && lines[lead] == "" {
		lead++
	}
	if lead == 0 {
		lines, lead = append([]string{""}, lines...), 1
	}
	head := r.headLine(r.st.Delegation.Render("⤷ "+agent+" continues"), "", a.width)
	return append(lines[:lead:lead], append([]string{head}, lines[lead:]...)...)
}

// headLine lays out a title on the left and facts on the right, cutting
// the title when both do not fit.
func (r *renderer) headLine(left, right string, width int) string {
	lw, rw := ansi.StringWidth(left), ansi.StringWidth(right)
	if right == "" {
		return common.Truncate(left, width)
	}
	if lw+1+rw > width {
		if rw >= width-8 { // not even room for a short title: drop the facts
			return common.Truncate(left, width)
		}
		left = common.Truncate(left, width-rw-1)
		lw = ansi.StringWidth(left)
	}
	return left + strings.Repeat(" ", max(1, width-lw-rw)) + right
}

func (r *renderer) clock(ts time.Time) string {
	return r.st.Time.Render(common.Clock(ts, r.loc))
}

func (r *renderer) wrapStyled(st lipgloss.Style, text string, width int) []string {
	lines := common.Wrap(text, width)
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

func (r *renderer) sessionStart(it *timeline.Item, a args) []string {
	b, _ := it.Body().(*transcript.SessionStart)
	parts := []string{"Session started"}
	if b != nil {
		if b.Agent != "" {
			parts = append(parts, common.Sanitize(b.Agent))
		}
		if b.WorkingDirectory != "" {
			parts = append(parts, common.Sanitize(b.WorkingDirectory))
		}
		if g := b.Git; g != nil && g.Branch != "" {
			parts = append(parts, common.Sanitize(g.Branch))
		}
	}
	return []string{r.headLine(r.st.OK.Render("●")+" "+r.st.Muted.Render(strings.Join(parts, " · ")), r.clock(it.TS()), a.width)}
}

func (r *renderer) sessionEnd(it *timeline.Item, a args) []string {
	b, _ := it.Body().(*transcript.SessionEnd)
	text := "Session ended"
	if b != nil && b.Status != "" {
		text += " · " + common.Sanitize(b.Status)
	}
	if b != nil && b.Counts != nil {
		text += fmt.Sprintf(" · %d events", b.Counts.Events)
	}
	return []string{"", r.headLine(r.st.Muted.Render("■ "+text), r.clock(it.TS()), a.width)}
}

func (r *renderer) user(it *timeline.Item, a args) []string {
	c := it.Chat()
	head := r.st.UserRole.Render("❯ You")
	if c != nil && c.Context == transcript.ContextCommand {
		head = r.st.UserRole.Render("❯ You · command")
	}
	if it.SubAgent() {
		head = r.st.UserRole.Render("❯ Task for the sub-agent")
	}
	lines := []string{"", r.headLine(head, r.clock(it.TS()), a.width)}
	bar := r.st.UserRole.Render("┃") + " "
	body := common.Wrap(common.Sanitize(strings.TrimRight(clip(c.Text), "\n")), a.width-2)
	for _, l := range body {
		lines = append(lines, bar+r.st.UserText.Render(l))
	}
	return lines
}

func (r *renderer) assistant(it *timeline.Item, a args) []string {
	c := it.Chat()
	if it.Kind == timeline.KindSystem && c.Context != "" {
		return r.context(it, c, a)
	}
	role := "◆ Assistant"
	if it.Kind == timeline.KindSystem {
		role = "⚙ System"
		if c.Role == transcript.RoleDeveloper {
			role = "⚙ Developer"
		}
	}
	right := r.clock(it.TS())
	if c.Model != "" {
		right = r.st.Muted.Render(common.Sanitize(c.Model)+" · ") + right
	}
	lines := []string{"", r.headLine(r.st.Role.Render(role), right, a.width)}
	body := r.markdownBody(it, c.Text, a.width)
	if it.Kind == timeline.KindSystem && !a.expanded && len(body) > collapsedTextLines {
		hidden := len(body) - collapsedTextLines
		body = append(body[:collapsedTextLines:collapsedTextLines], r.st.Hint.Render("▸ "+plural(hidden, "more line")+" (enter)"))
	}
	return append(lines, body...)
}

// context renders what the agent put into the conversation (its
// environment, instructions, a command's output) on one line saying what
// it is; enter shows its text.
func (r *renderer) context(it *timeline.Item, c *transcript.ChatTurn, a args) []string {
	head := r.st.Role.Render("⚙ " + export.ContextLabel(c))
	if s := export.ContextSummary(c); s != "" {
		head += r.st.Muted.Render(" · " + common.Sanitize(s))
	}
	lines := []string{"", r.headLine(head, r.clock(it.TS()), a.width)}
	body := common.Wrap(common.Sanitize(strings.TrimSpace(clip(c.Text))), a.width-2)
	if !a.expanded {
		if len(body) > 1 || (len(body) == 1 && export.ContextSummary(c) != strings.TrimSpace(body[0])) {
			lines = append(lines, r.st.Hint.Render("  ▸ "+plural(len(body), "line")+" (enter)"))
		}
		return lines
	}
	for _, l := range body {
		lines = append(lines, "  "+r.st.Muted.Render(l))
	}
	return lines
}

// markdownBody renders a message as markdown: on the spot when it is
// short, from the background rendering when it is long (plain text until
// that is ready), and as plain text when it is huge.
func (r *renderer) markdownBody(it *timeline.Item, text string, width int) []string {
	clean := common.Sanitize(strings.TrimSpace(clip(text)))
	var lines []string
	switch {
	case clean == "":
		lines = []string{r.st.Muted.Render("(empty)")}
	case len(clean) > maxMarkdownBytes || r.md == nil:
		lines = common.Wrap(clean, width)
	case len(clean) > syncMarkdownBytes && r.markdown != nil:
		if done := r.markdown(it, clean, width); done != nil {
			lines = done
		} else {
			lines = common.Wrap(clean, width)
		}
	default:
		var err error
		lines, err = r.md.Render(clean, width)
		if err != nil {
			lines = append(common.Wrap(clean, width), r.st.Notice.Render("(markdown: "+err.Error()+")"))
		}
	}
	return lines
}

func (r *renderer) thinking(it *timeline.Item, a args) []string {
	c := it.Chat()
	body := common.Wrap(common.Sanitize(strings.TrimSpace(clip(c.Text))), a.width-2)
	right := r.clock(it.TS())
	head := r.st.Thinking.Render("∴ Thinking")
	if !a.expanded {
		head += r.st.Hint.Render(fmt.Sprintf("  ▸ %s (enter)", plural(len(body), "line")))
		return []string{"", r.headLine(head, right, a.width)}
	}
	lines := []string{"", r.headLine(head, right, a.width)}
	for _, l := range body {
		lines = append(lines, "  "+r.st.Thinking.Render(l))
	}
	return lines
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// clip keeps the head and the tail of a huge text field, with a line that
// says how much of the middle it left out.
func clip(s string) string {
	if len(s) <= fieldHeadBytes+fieldTailBytes {
		return s
	}
	head := s[:fieldHeadBytes]
	tail := s[len(s)-fieldTailBytes:]
	hidden := len(s) - len(head) - len(tail)
	// Cut at line ends where there are some, else at a rune boundary.
	if i := strings.LastIndexByte(head, '\n'); i > fieldHeadBytes/2 {
		hidden += len(head) - i
		head = head[:i]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < fieldTailBytes/2 {
		hidden += i + 1
		tail = tail[i+1:]
	}
	for len(tail) > 0 && tail[0]&0xc0 == 0x80 {
		tail = tail[1:]
		hidden++
	}
	return head + "\n… " + humanBytes(int64(hidden)) + " not shown (Ctrl+E exports everything) …\n" + tail
}

// humanBytes writes a byte count as people read it.
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// outputLines lays out an output (sanitized, hard-wrapped) under a label,
// keeping the head and the tail of a long one.
func (r *renderer) outputLines(label string, labelStyle lipgloss.Style, text string, width int) []string {
	text = clip(strings.TrimRight(text, "\n"))
	body := common.HardWrap(common.Sanitize(text), width-2)
	lines := []string{"  " + labelStyle.Render(label)}
	if len(body) > outputHeadLines+outputTailLines {
		hidden := len(body) - outputHeadLines - outputTailLines
		tail := body[len(body)-outputTailLines:]
		body = append(body[:outputHeadLines:outputHeadLines], r.st.Notice.Render(fmt.Sprintf("… %d lines not shown (Ctrl+E exports everything) …", hidden)))
		body = append(body, tail...)
	}
	for _, l := range body {
		lines = append(lines, "  "+r.st.Output.Render(l))
	}
	return lines
}

// fieldOutput lays out one of an item's outputs under a label, or says
// why it cannot be read back from the session file.
func (r *renderer) fieldOutput(it *timeline.Item, f timeline.Field, label string, labelStyle lipgloss.Style, width int) []string {
	text, err := it.Field(f)
	if err != nil {
		return append([]string{"  " + labelStyle.Render(label)},
			r.wrapIndented(r.st.Notice.Render("⚠ not shown: "+common.Sanitize(err.Error())), width)...)
	}
	return r.outputLines(label, labelStyle, text, width)
}

func (r *renderer) unknown(it *timeline.Item, a args) []string {
	name := "event"
	ev := it.Event()
	if ev != nil {
		name = common.Sanitize(string(ev.Type)) + " event"
	}
	lines := []string{r.headLine(r.st.Muted.Render("? "+name+" (unknown kind)"), r.clock(it.TS()), a.width)}
	if a.expanded && ev != nil && len(ev.Raw) > 0 {
		lines = append(lines, r.outputLines("raw", r.st.Label, prettyJSON(ev.Raw), a.width)...)
	}
	return lines
}

func prettyJSON(raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(out)
}

// toolSummary is the one line that says what a tool call was about.
func toolSummary(input json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil || len(m) == 0 {
		return ""
	}
	for _, k := range []string{"file_path", "notebook_path", "pattern", "path", "command", "url", "query", "description", "prompt", "subagent_type"} {
		if v, ok := m[k].(string); ok && v != "" {
			if k == "pattern" {
				if p, ok := m["path"].(string); ok && p != "" {
					return v + "  in " + p
				}
			}
			return v
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		v, _ := json.Marshal(m[k])
		parts = append(parts, k+"="+string(v))
	}
	return strings.Join(parts, " ")
}

// diffLines colours a diff with chroma.
func (r *renderer) diffLines(diff string, width int) []string {
	clean := common.Sanitize(strings.TrimRight(diff, "\n"))
	var out []string
	for _, l := range r.hl.Code(clean, "diff") {
		out = append(out, common.HardWrap(l, width)...)
	}
	return out
}

// diffStat counts added and removed lines.
func diffStat(diff string) (added, removed int) {
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// defaultExpanded says whether an item starts expanded: edits with a short
// diff do, so that changes are seen without a key press.
func defaultExpanded(it *timeline.Item) bool {
	if it.Kind != timeline.KindTool {
		return false
	}
	call := it.ToolCall()
	if call == nil {
		return false
	}
	_, diff, ok := export.EditDiff(call.Tool, call.Input)
	return ok && strings.Count(diff, "\n") <= defaultOpenDiffLines
}
