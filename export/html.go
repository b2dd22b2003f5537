package export

import (
	"bufio"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// HTMLOptions tunes the HTML export.
type HTMLOptions struct {
	// Location is the time zone of the timestamps; nil means UTC.
	Location *time.Location
	// OpenLines is how many lines an output may have and still be shown
	// unfolded; longer ones start folded. 0 means DefaultOpenLines.
	OpenLines int
	// Title is the document's title; empty means the first session's.
	Title string
}

// DefaultOpenLines is the HTMLOptions.OpenLines used when none is set.
const DefaultOpenLines = 12

// Bounds of the window in which the halves of a call are joined: a call
// whose result has not come within this many events (or bytes) is shown on
// its own, and its result later on its own, so memory stays bounded
// whatever the session holds.
const (
	maxPendingEvents = 512
	maxPendingBytes  = 32 << 20
)

// maxDepthClass is the deepest indentation the page's style sheet has.
const maxDepthClass = 6

// HTMLWriter writes sessions as one self-contained HTML page: no scripts,
// no external assets (a Content-Security-Policy forbids loading any), a
// readable timeline per session with a metadata header, user prompts set
// apart, assistant messages rendered from markdown, tool calls with their
// inputs and results, bash runs with an exit badge, duration and their
// outputs in collapsible <details>, approvals with their decision, and the
// work of sub-agents indented under their delegation. Every string from a
// recording is made inert (transcript.Inert) and escaped by html/template,
// so nothing in a recording can become markup. Events are streamed: only
// calls waiting for their second half are held.
type HTMLWriter struct {
	bw      *bufio.Writer
	t       *template.Template
	md      *markdownHTML
	opts    HTMLOptions
	began   bool
	session bool
	day     string
	queue   []*htmlPending
	waiting map[string]*htmlPending // first halves by pairKey
	bytes   int
	delegs  map[string]htmlDeleg
	counts  session.Meta // what the current session's events add up to
	res     Result
}

type htmlPending struct {
	first, second *transcript.Event
	depth         int
}

type htmlDeleg struct {
	depth     int // depth of the events inside
	agentType string
}

var _ Sink = (*HTMLWriter)(nil)

// NewHTMLWriter starts an HTML export to w.
func NewHTMLWriter(w io.Writer, opts HTMLOptions) (*HTMLWriter, error) {
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	if opts.OpenLines <= 0 {
		opts.OpenLines = DefaultOpenLines
	}
	t, err := parseHTMLTemplates()
	if err != nil {
		return nil, fmt.Errorf("html templates: %w", err)
	}
	return &HTMLWriter{bw: bufio.NewWriterSize(w, writeBufferSize), t: t, md: newMarkdownHTML(), opts: opts}, nil
}

// BeginSession implements Sink: it closes the previous session's timeline
// and writes this one's header.
func (h *HTMLWriter) BeginSession(info session.Info) error {
	if err := h.endSession(); err != nil {
		return err
	}
	title := transcript.Inert(strings.TrimSpace(info.Title))
	if title == "" {
		title = "Session " + transcript.Inert(info.ID)
	}
	if !h.began {
		h.began = true
		doc := h.opts.Title
		if doc == "" {
			doc = title
		}
		if err := h.exec("head", map[string]any{"Title": transcript.Inert(doc), "CSS": htmlCSS}); err != nil {
			return err
		}
	}
	h.session, h.day, h.counts = true, "", session.Meta{}
	h.waiting, h.delegs = map[string]*htmlPending{}, map[string]htmlDeleg{}
	return h.exec("session", map[string]any{"Title": title, "Meta": h.sessionMeta(info)})
}

type htmlMeta struct{ Key, Value string }

func (h *HTMLWriter) sessionMeta(in session.Info) []htmlMeta {
	var m []htmlMeta
	add := func(k, v string) {
		if v != "" {
			m = append(m, htmlMeta{k, transcript.Inert(v)})
		}
	}
	add("Session", in.ID)
	add("Source", in.Source)
	add("Agent", in.Agent)
	add("Working directory", in.WorkingDirectory)
	if !in.Started.IsZero() {
		add("Started", in.Started.In(h.opts.Location).Format("2006-01-02 15:04:05 MST"))
	}
	if in.Duration > 0 {
		add("Duration", FormatDuration(in.Duration.Milliseconds()))
	}
	add("Status", in.Status)
	return m
}

// Write implements Sink.
func (h *HTMLWriter) Write(ev *transcript.Event) error {
	if !h.session {
		if err := h.BeginSession(session.Info{ID: ev.SessionID}); err != nil {
			return err
		}
	}
	h.res.Events++
	h.counts.Add(ev)
	if c, ok := ev.Body.(*transcript.ChatTurn); ok && c.UsageOnly() {
		return nil // a message of tool calls: its tokens count, there is nothing to show
	}
	depth := h.depthOf(ev.ParentCallID)
	if d, ok := ev.Body.(*transcript.Delegation); ok && d.Phase == transcript.PhaseStart && ev.CallID != "" {
		h.delegs[ev.CallID] = htmlDeleg{depth: depth + 1, agentType: d.AgentType}
	}
	if first := pairFirst(ev.Type); first != "" && ev.CallID != "" {
		if p, ok := h.waiting[string(first)+"\x00"+ev.CallID]; ok {
			delete(h.waiting, string(first)+"\x00"+ev.CallID)
			p.second = ev
			h.bytes += len(ev.Raw)
			return h.drain(false)
		}
	}
	p := &htmlPending{first: ev, depth: depth}
	h.queue = append(h.queue, p)
	h.bytes += len(ev.Raw)
	if pairSecond(ev.Type) != "" && ev.CallID != "" {
		h.waiting[string(ev.Type)+"\x00"+ev.CallID] = p
	}
	return h.drain(false)
}

// pairFirst names the kind whose second half t is, or "".
func pairFirst(t transcript.Type) transcript.Type {
	switch t {
	case transcript.TypeToolResult:
		return transcript.TypeToolCall
	case transcript.TypeBashRun:
		return transcript.TypeBashStart
	case transcript.TypeApprovalDecision:
		return transcript.TypeApprovalRequest
	}
	return ""
}

// pairSecond names the kind that completes t, or "".
func pairSecond(t transcript.Type) transcript.Type {
	switch t {
	case transcript.TypeToolCall:
		return transcript.TypeToolResult
	case transcript.TypeBashStart:
		return transcript.TypeBashRun
	case transcript.TypeApprovalRequest:
		return transcript.TypeApprovalDecision
	}
	return ""
}

func (h *HTMLWriter) depthOf(parent string) int {
	if parent == "" {
		return 0
	}
	if d, ok := h.delegs[parent]; ok {
		return d.depth
	}
	return 1
}

// drain writes the items at the head of the queue that are complete; all
// of them when force is set or the window is full.
func (h *HTMLWriter) drain(force bool) error {
	for len(h.queue) > 0 {
		p := h.queue[0]
		full := len(h.queue) > maxPendingEvents || h.bytes > maxPendingBytes
		if !force && !full && p.second == nil && pairSecond(p.first.Type) != "" && p.first.CallID != "" {
			return nil
		}
		h.queue[0] = nil
		h.queue = h.queue[1:]
		if p.second == nil {
			delete(h.waiting, string(p.first.Type)+"\x00"+p.first.CallID)
		}
		h.bytes -= len(p.first.Raw)
		if p.second != nil {
			h.bytes -= len(p.second.Raw)
		}
		if err := h.exec("item", h.item(p)); err != nil {
			return err
		}
	}
	h.queue = h.queue[:0]
	return nil
}

// endSession writes what is left of the current session and closes it.
func (h *HTMLWriter) endSession() error {
	if !h.session {
		return nil
	}
	h.session = false
	if err := h.drain(true); err != nil {
		return err
	}
	c := &h.counts
	counts := fmt.Sprintf("Exported by cuff · %s · %s · %s · %s", plural(int(c.EntryCount), "event"), plural(int(c.Turns), "turn"),
		plural(int(c.ToolCalls), "tool call"), plural(int(c.Commands), "command"))
	if c.Failures() > 0 {
		counts += " · " + plural(int(c.Failures()), "failure")
	}
	return h.exec("sessionEnd", counts)
}

// Close implements Sink: it finishes the page and flushes it.
func (h *HTMLWriter) Close() (Result, error) {
	if err := h.endSession(); err != nil {
		return h.res, err
	}
	if !h.began {
		h.began = true
		title := h.opts.Title
		if title == "" {
			title = "cuff export"
		}
		if err := h.exec("head", map[string]any{"Title": transcript.Inert(title), "CSS": htmlCSS}); err != nil {
			return h.res, err
		}
	}
	if err := h.exec("foot", nil); err != nil {
		return h.res, err
	}
	if err := h.bw.Flush(); err != nil {
		return h.res, fmt.Errorf("write html export: %w", err)
	}
	return h.res, nil
}

func (h *HTMLWriter) exec(name string, data any) error {
	if err := h.t.ExecuteTemplate(h.bw, name, data); err != nil {
		return fmt.Errorf("write html export: %w", err)
	}
	return nil
}

// stamp is the time of an event, with the date whenever it changes.
func (h *HTMLWriter) stamp(ts time.Time) string {
	if ts.IsZero() {
		return ""
	}
	t := ts.In(h.opts.Location)
	if day := t.Format("2006-01-02"); day != h.day {
		h.day = day
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("15:04:05")
}
