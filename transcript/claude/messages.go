package claude

import (
	"fmt"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// pendingMessage collects the events of one assistant message, streamed
// one block per record, until the message ends, so that its token usage
// (which grows from record to record) is written once, complete.
type pendingMessage struct {
	id     string
	ctx    context
	ts     time.Time
	model  string
	usage  transcript.Usage
	events []*transcript.Event
}

// conversational handles a user or assistant record.
func (d *Decoder) conversational(l *line, ctx context) {
	if l.Message == nil {
		return
	}
	typ := l.Type
	if typ == "" {
		typ = l.Message.Role
	}
	switch typ {
	case "assistant":
		d.assistant(l, ctx)
	case "user":
		d.user(l, ctx)
	}
}

// assistant adds the blocks of an assistant record to its message.
func (d *Decoder) assistant(l *line, ctx context) {
	m := l.Message
	ts := d.timeOf(l)
	if d.msg != nil && (m.ID == "" || d.msg.id != m.ID || d.msg.ctx != ctx) {
		d.flushMessage()
	}
	if d.msg == nil {
		d.msg = &pendingMessage{id: m.ID, ctx: ctx, ts: ts, model: m.Model}
	}
	pm := d.msg
	if pm.model == "" {
		pm.model = m.Model
	}
	if u := m.Usage; u != nil {
		pm.usage.InputTokens = max(pm.usage.InputTokens, u.InputTokens)
		pm.usage.OutputTokens = max(pm.usage.OutputTokens, u.OutputTokens)
		pm.usage.CacheReadTokens = max(pm.usage.CacheReadTokens, u.CacheReadInputTokens)
		pm.usage.CacheWriteTokens = max(pm.usage.CacheWriteTokens, u.CacheCreationInputTokens)
	}
	blocks := m.Content.blocks()
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) == "" {
				continue
			}
			d.addToMessage(d.event(ts, &transcript.ChatTurn{Role: transcript.RoleAssistant, Text: b.Text,
				Model: m.Model, MessageID: m.ID}, ctx, ""))
			d.noteText(ctx, b.Text)
		case "thinking":
			if strings.TrimSpace(b.Thinking) == "" {
				continue
			}
			d.addToMessage(d.event(ts, &transcript.ChatTurn{Role: transcript.RoleAssistant, Text: b.Thinking,
				Thinking: true, Model: m.Model, MessageID: m.ID}, ctx, ""))
		case "tool_use", "server_tool_use":
			for _, ev := range d.toolUse(b, l, ts, ctx, i) {
				d.addToMessage(ev)
			}
		case "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result":
			d.flushMessage()
			d.toolResult(b, nil, ts, ctx)
		}
	}
	if m.ID == "" {
		d.flushMessage()
	}
}

// addToMessage adds an event to the pending assistant message.
func (d *Decoder) addToMessage(ev *transcript.Event) {
	d.lineEvents++
	if d.msg == nil { // a block that ended the message it came in
		d.emit(ev)
		return
	}
	d.msg.events = append(d.msg.events, ev)
}

// flushMessage passes on the events of the pending assistant message, its
// usage on the first chat turn. A message of tool calls only gets an empty
// assistant turn to carry its usage.
func (d *Decoder) flushMessage() {
	pm := d.msg
	if pm == nil {
		return
	}
	d.msg = nil
	if pm.usage != (transcript.Usage{}) && (pm.id == "" || !d.seenUsage(pm.id)) {
		if pm.id != "" {
			d.markUsage(pm.id)
		}
		u := pm.usage
		carried := false
		for _, ev := range pm.events {
			if turn, ok := ev.Body.(*transcript.ChatTurn); ok {
				turn.Usage = &u
				carried = true
				break
			}
		}
		if !carried {
			carrier := d.event(pm.ts, &transcript.ChatTurn{Role: transcript.RoleAssistant, Model: pm.model,
				MessageID: pm.id, Usage: &u}, pm.ctx, "")
			d.emit(carrier)
		}
	}
	for _, ev := range pm.events {
		d.emit(ev)
	}
}

// user handles a user record: the person's prompt, text injected by Claude
// Code, and tool results.
func (d *Decoder) user(l *line, ctx context) {
	d.flushMessage()
	ts := d.timeOf(l)
	blocks := l.Message.Content.blocks()
	results := 0
	for i := range blocks {
		if blocks[i].Type == "tool_result" {
			results++
		}
	}
	var tur *toolUseResult
	if results == 1 {
		tur = l.ToolUseResult
	}
	var texts []string
	flushText := func() {
		if len(texts) == 0 {
			return
		}
		d.userText(l, strings.Join(texts, "\n"), ts, ctx)
		texts = texts[:0]
	}
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case "text":
			if strings.TrimSpace(b.Text) != "" {
				texts = append(texts, b.Text)
			}
		case "image", "document":
			texts = append(texts, imagePlaceholder)
		case "tool_result":
			flushText()
			d.toolResult(b, tur, ts, ctx)
		}
	}
	flushText()
}

// userText writes a chat turn for the text of a user record and takes the
// session's title from the first real prompt. Text Claude Code wrote
// itself (a slash command's XML, what a local command printed, reminders)
// is written as the context it is, a slash command as typed.
func (d *Decoder) userText(l *line, text string, ts time.Time, ctx context) {
	if strings.HasPrefix(strings.TrimSpace(text), "<task-notification>") {
		d.taskNotified(text, ts)
	}
	p := Prompt(text)
	role, kind, text := p.Role, p.Context, p.Text
	switch {
	case kind != "":
	case l.IsMeta:
		role, kind = transcript.RoleSystem, transcript.ContextReminder
		if d.afterCommand {
			kind = transcript.ContextCommandPrompt
		}
	case l.IsCompactSummary || hasAnyPrefix(text, noticePrefixes):
		role = transcript.RoleSystem
	}
	d.afterCommand = kind == transcript.ContextCommand || (d.afterCommand && kind == transcript.ContextCommandPrompt)
	d.push(d.event(ts, &transcript.ChatTurn{Role: role, Text: text, Context: kind}, ctx, ""))
	if role == transcript.RoleUser && d.title == "" && (ctx.agentID == "" || d.standalone != "") {
		d.title = stream.Title(text)
	}
}

// Prompt is the chat turn of user-role text as Claude Code passes it on
// (in a transcript, or to a UserPromptSubmit hook): the person's words, or
// what Claude Code wrote itself — a slash command, which is shown as typed,
// a command's output, a reminder, a task notification — shown as the
// context it is rather than as raw XML.
func Prompt(text string) *transcript.ChatTurn {
	kind, shown := contextOf(text)
	switch kind {
	case "":
		return &transcript.ChatTurn{Role: transcript.RoleUser, Text: text}
	case transcript.ContextCommand:
		return &transcript.ChatTurn{Role: transcript.RoleUser, Text: shown, Context: kind}
	}
	return &transcript.ChatTurn{Role: transcript.RoleSystem, Text: shown, Context: kind}
}

// noticePrefixes mark user-role text that Claude Code wrote to say what
// happened, shown as a notice.
var noticePrefixes = []string{"[Request interrupted"}

// contextOf says what user-role text that Claude Code wrote is, with the
// text to show for it; kind is "" for the person's own words.
func contextOf(text string) (kind, shown string) {
	t := strings.TrimSpace(text)
	switch {
	case strings.Contains(t, "<command-name>"):
		return transcript.ContextCommand, commandLine(t)
	case strings.HasPrefix(t, "<local-command-stdout>"), strings.HasPrefix(t, "<local-command-stderr>"):
		return transcript.ContextCommandOutput, tagged(t, "local-command-stdout", "local-command-stderr")
	case strings.HasPrefix(t, "<bash-input>"):
		return transcript.ContextCommand, "!" + between(t, "<bash-input>", "</bash-input>")
	case strings.HasPrefix(t, "<bash-stdout>"), strings.HasPrefix(t, "<bash-stderr>"):
		return transcript.ContextCommandOutput, tagged(t, "bash-stdout", "bash-stderr")
	case strings.HasPrefix(t, "<local-command-caveat>"):
		return transcript.ContextReminder, between(t, "<local-command-caveat>", "</local-command-caveat>")
	case strings.HasPrefix(t, "<task-notification>"):
		return transcript.ContextTaskNotification, parseNotification(t).String()
	case strings.HasPrefix(t, "<system-reminder>"), strings.HasPrefix(t, "Caveat: "):
		return transcript.ContextReminder, t
	}
	return "", text
}

// notification is what a task notification says: the task (a sub-agent's
// id, a background command's), the call that started it, how it ended,
// a one-line summary and what it reported.
type notification struct {
	taskID, toolUseID, status, summary, result string
}

// parseNotification reads a <task-notification> Claude Code writes into
// the conversation when something that ran in the background stops.
func parseNotification(text string) notification {
	n := notification{
		taskID:    strings.TrimSpace(between(text, "<task-id>", "</task-id>")),
		toolUseID: strings.TrimSpace(between(text, "<tool-use-id>", "</tool-use-id>")),
		status:    strings.TrimSpace(between(text, "<status>", "</status>")),
		summary:   strings.TrimSpace(between(text, "<summary>", "</summary>")),
	}
	// The result is the sub-agent's own text, which may hold anything: it
	// runs to the last closing tag.
	if i := strings.Index(text, "<result>"); i >= 0 {
		rest := text[i+len("<result>"):]
		if j := strings.LastIndex(rest, "</result>"); j >= 0 {
			n.result = strings.TrimSpace(rest[:j])
		}
	}
	return n
}

// String is the notification as it is shown: its summary (with how it
// ended, when that is not plain), then what it reported.
func (n notification) String() string {
	head := n.summary
	if head == "" {
		head = strings.TrimSpace("Task " + n.taskID + " " + n.status)
	}
	if n.status != "" && n.status != "completed" && !strings.Contains(strings.ToLower(head), strings.ToLower(n.status)) {
		head += " (" + n.status + ")"
	}
	if n.result != "" {
		head += "\n\n" + n.result
	}
	return head
}

// tagged joins the text inside each of the tags, in the order given.
func tagged(text string, tags ...string) string {
	var parts []string
	for _, tag := range tags {
		if s := strings.TrimSpace(between(text, "<"+tag+">", "</"+tag+">")); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// commandLine is a slash command's XML as the person typed it
// ("/name args").
func commandLine(text string) string {
	name := strings.TrimSpace(between(text, "<command-name>", "</command-name>"))
	if name == "" {
		return text
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	if args := strings.TrimSpace(between(text, "<command-args>", "</command-args>")); args != "" {
		return name + " " + args
	}
	return name
}

// between returns the text between the first open tag and the close tag.
func between(s, open, close string) string {
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return ""
	}
	return rest[:j]
}

func hasAnyPrefix(s string, prefixes []string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// system handles a system record: slash-command echoes, compaction marks,
// API errors and notices become system turns; bookkeeping is skipped.
func (d *Decoder) system(l *line, ctx context) {
	var text string
	switch l.Subtype {
	case "", "local_command", "informational", "away_summary":
		text = l.Content.text()
	case "compact_boundary":
		text = l.Content.text()
		if strings.TrimSpace(text) == "" {
			text = "Conversation compacted"
		}
	case "api_error":
		text = "API error"
		if e := l.Error; e != nil {
			if e.Status != 0 {
				text += fmt.Sprintf(" %d", e.Status)
			}
			if e.Message != "" {
				text += ": " + e.Message
			}
		}
		if c := l.Content.text(); c != "" {
			text += ": " + c
		}
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	d.flushMessage()
	role := transcript.RoleSystem
	kind, shown := contextOf(text)
	if kind != "" {
		text = shown
	}
	if kind == transcript.ContextCommand {
		role = transcript.RoleUser // the person typed it
	}
	d.push(d.event(d.timeOf(l), &transcript.ChatTurn{Role: role, Text: text, Context: kind}, ctx, ""))
}

// progress handles a progress record: a sub-agent's record nested in an
// agent_progress is decoded as the sub-agent's; hook and shell progress is
// skipped (the final results carry it).
func (d *Decoder) progress(l *line) {
	p := l.Data
	if p == nil || p.Type != "agent_progress" || p.Message == nil {
		return
	}
	n := p.Message
	if n.UUID != "" {
		if d.seenNested[n.UUID] {
			return
		}
		d.seenNested[n.UUID] = true
	}
	if n.Timestamp == "" {
		n.Timestamp = l.Timestamp
	}
	ctx := d.progressContext(p.AgentID, l.ParentToolUseID)
	if n.Type == "" && n.Message != nil {
		n.Type = n.Message.Role
	}
	d.conversational(n, ctx)
}
