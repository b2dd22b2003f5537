package tui

import (
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/tui/browser"
	"sort"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/dialog"
)

// ApprovalKind says what changed among the pending approval requests.
type ApprovalKind int

const (
	// ApprovalRequested is a request waiting for an answer.
	ApprovalRequested ApprovalKind = iota + 1
	// ApprovalDecided is the decision on a request, from anyone.
	ApprovalDecided
	// ApprovalWithdrawn is a request that went away undecided.
	ApprovalWithdrawn
)

// Request is an approval request waiting for a person, from the agent of
// any project.
type Request struct {
	ID string
	// SessionID is the recorded session the request belongs to, if any.
	SessionID string
	// Project is the folder of the project whose agent asks.
	Project          string
	Agent            string
	Tool             string
	Command          string
	WorkingDirectory string
	Verdict          transcript.Verdict
	Taint            []string
	// Diff is the change a file-changing tool would make.
	Diff      string
	CreatedAt time.Time
	ExpiresAt time.Time
	// Parts, Description, SessionTitle, NotAlways and TrustNote are as in
	// dialog.Request.
	Parts        []dialog.Part
	Description  string
	SessionTitle string
	NotAlways    string
	TrustNote    string
}

// ApprovalMsg is one change among the pending approval requests, sent into
// the program by the command that watches the approval broker.
type ApprovalMsg struct {
	Kind    ApprovalKind
	Request Request
	// Decision is set for ApprovalDecided.
	Decision *transcript.ApprovalDecision
}

// NoticeMsg is something the command wants the person to know, such as an
// approval heartbeat that failed; it shows as a toast.
type NoticeMsg struct {
	Text string
	Err  bool
}

// approvalQueue is the pending requests, oldest first, and those put off
// with esc (they wait for the Approvals key, not popping up again).
type approvalQueue struct {
	reqs  []Request
	later map[string]bool
}

func newApprovalQueue() approvalQueue { return approvalQueue{later: map[string]bool{}} }

func (q *approvalQueue) len() int { return len(q.reqs) }

// add queues r in order of creation; false if it is queued already.
func (q *approvalQueue) add(r Request) bool {
	if _, ok := q.get(r.ID); ok {
		return false
	}
	i := sort.Search(len(q.reqs), func(i int) bool { return q.reqs[i].CreatedAt.After(r.CreatedAt) })
	q.reqs = append(q.reqs, Request{})
	copy(q.reqs[i+1:], q.reqs[i:])
	q.reqs[i] = r
	return true
}

func (q *approvalQueue) get(id string) (Request, bool) {
	for _, r := range q.reqs {
		if r.ID == id {
			return r, true
		}
	}
	return Request{}, false
}

// remove takes a request out of the queue and reports it.
func (q *approvalQueue) remove(id string) (Request, bool) {
	for i, r := range q.reqs {
		if r.ID == id {
			q.reqs = append(q.reqs[:i:i], q.reqs[i+1:]...)
			delete(q.later, id)
			return r, true
		}
	}
	return Request{}, false
}

// next is the oldest request not put off.
func (q *approvalQueue) next() (Request, bool) {
	for _, r := range q.reqs {
		if !q.later[r.ID] {
			return r, true
		}
	}
	return Request{}, false
}

// putOff leaves every queued request for later.
func (q *approvalQueue) putOff() {
	for _, r := range q.reqs {
		q.later[r.ID] = true
	}
}

// bringBack makes every queued request eligible to pop up again.
func (q *approvalQueue) bringBack() { clear(q.later) }

// approvalChanged takes a change from the approval feed: a new request
// pops its prompt up over any page; one decided elsewhere or withdrawn
// leaves the queue with a short toast.
func (m Model) approvalChanged(msg ApprovalMsg) (tea.Model, tea.Cmd) {
	id := msg.Request.ID
	if m.opts.Approver == nil || id == "" {
		return m, nil
	}
	if msg.Kind == ApprovalRequested {
		if m.answered[id] || m.closed[id] || !m.queue.add(msg.Request) {
			return m, nil
		}
		cmd := m.showNext(true)
		m.syncPrompt()
		var list tea.Cmd
		if m.waiting {
			// A request is a session at work: cuff watch looks for it now,
			// not at the next refresh, which may come after it has ended.
			list = browser.List(m.opts.Context, m.opts.Sources)
		}
		return m, tea.Batch(cmd, m.ensureTick(), list)
	}
	m.closed[id] = true
	req, queued := m.queue.remove(id)
	shown := m.dialogs.Has(id)
	m.dialogs.Remove(id)
	var cmds []tea.Cmd
	if queued && !m.answered[id] {
		cmds = append(cmds, m.showToast(elsewhereText(req, msg), false))
	}
	if shown {
		cmds = append(cmds, m.showNext(true))
	}
	m.syncPrompt()
	return m, tea.Batch(cmds...)
}

// elsewhereText says what became of a request this TUI did not answer.
func elsewhereText(r Request, msg ApprovalMsg) string {
	what := common.OneLine(common.Sanitize(r.Command), 40)
	if what == "" {
		what = common.OneLine(common.Sanitize(r.Tool), 40)
	}
	d := msg.Decision
	switch {
	case msg.Kind == ApprovalWithdrawn:
		return "Request withdrawn: " + what
	case d == nil:
		return "Request closed: " + what
	case d.Decision == transcript.DecisionTimeout:
		return "Request timed out (denied): " + what
	case d.By == "agent":
		return "The agent stopped waiting (withdrawn): " + what
	}
	verb := "denied"
	if d.Decision == transcript.DecisionApprove {
		verb = "approved"
	}
	by := ""
	if d.By != "" {
		by = " by " + common.OneLine(common.Sanitize(d.By), 12)
	}
	return fmt.Sprintf("Decided elsewhere (%s%s): %s", verb, by, what)
}

// promptOpen reports whether the prompt of a queued request is open.
func (m *Model) promptOpen() bool {
	for _, r := range m.queue.reqs {
		if m.dialogs.Has(r.ID) {
			return true
		}
	}
	return false
}

// showNext opens the prompt of the oldest request not put off, unless a
// prompt is open already. popped says it opens on its own.
func (m *Model) showNext(popped bool) tea.Cmd {
	if m.promptOpen() {
		return nil
	}
	r, ok := m.queue.next()
	if !ok {
		return nil
	}
	return m.openQueued(r, popped)
}

// openQueued opens the prompt of a queued request.
func (m *Model) openQueued(r Request, popped bool) tea.Cmd {
	d := dialog.Request{ID: r.ID, Tool: r.Tool, Command: r.Command, WorkingDirectory: r.WorkingDirectory,
		Project: r.Project, Agent: r.Agent, Taint: r.Taint, Diff: r.Diff, ExpiresAt: r.ExpiresAt,
		Parts: r.Parts, Description: r.Description, SessionTitle: r.SessionTitle, SessionID: r.SessionID,
		NotAlways: r.NotAlways, TrustNote: r.TrustNote}
	if v := r.Verdict; v.Tier != "" || v.Rule != "" || len(v.Reasons) > 0 {
		d.Verdict = &v
	}
	m.dialogs.Push(dialog.NewApproval(d, m.st, m.keys.Dialog, m.opts.Now, popped, m.opts.ApprovalNote))
	m.syncPrompt()
	return m.ensureTick()
}

// syncPrompt tells the open prompt how many others wait and whether it
// comes from the session on screen.
func (m *Model) syncPrompt() {
	for _, r := range m.queue.reqs {
		if a, ok := m.dialogs.Find(r.ID).(*dialog.Approval); ok {
			a.SetWaiting(m.queue.len() - 1)
			a.SetOnScreen(m.open && r.SessionID != "" && m.viewer.Info().ID == r.SessionID)
		}
	}
}

// reopenApprovals opens the oldest pending request, put off or not.
func (m *Model) reopenApprovals() tea.Cmd {
	m.queue.bringBack()
	return m.showNext(false)
}

// answerFromTimeline opens the prompt of the request picked in the
// timeline, if it is still pending.
func (m *Model) answerFromTimeline(ev *transcript.Event) tea.Cmd {
	if !m.opts.ApprovalFeed {
		return m.openApproval(ev, false)
	}
	req, ok := ev.Body.(*transcript.ApprovalRequest)
	if !ok || m.opts.Approver == nil {
		return nil
	}
	if m.dialogs.Has(req.RequestID) {
		return nil
	}
	r, queued := m.queue.get(req.RequestID)
	if !queued {
		return m.showToast("That request is not waiting for an answer any more", false)
	}
	return m.openQueued(r, false)
}

// expireQueued drops the requests whose time is up: the broker denies them
// by timeout.
func (m *Model) expireQueued() tea.Cmd {
	now := m.opts.Now()
	var cmds []tea.Cmd
	for _, r := range append([]Request(nil), m.queue.reqs...) {
		if r.ExpiresAt.IsZero() || now.Before(r.ExpiresAt) {
			continue
		}
		m.queue.remove(r.ID)
		shown := m.dialogs.Has(r.ID)
		m.dialogs.Remove(r.ID)
		cmds = append(cmds, m.showToast(elsewhereText(r, ApprovalMsg{Kind: ApprovalDecided,
			Decision: &transcript.ApprovalDecision{Decision: transcript.DecisionTimeout}}), false))
		if shown {
			cmds = append(cmds, m.showNext(true))
		}
	}
	if len(cmds) > 0 {
		m.syncPrompt()
	}
	return tea.Batch(cmds...)
}

// answer carries out a person's answer from a prompt.
func (m Model) answer(id string, d Decision) (tea.Model, tea.Cmd) {
	m.answered[id] = true
	m.dialogs.Remove(id)
	req, queued := m.queue.remove(id)
	var reqp *Request
	if queued {
		reqp = &req
	}
	text := "Denied"
	switch {
	case d.Approve && d.Scope == transcript.ScopeSession:
		text = "Approved (session): for the rest of this agent session"
	case d.Approve && d.Scope == transcript.ScopeAlways:
		text = "Approved (always): adding a policy rule…"
	case d.Approve:
		text = "Approved (once)"
	case d.Reason != "":
		text = "Denied: " + d.Reason
	}
	cmds := []tea.Cmd{m.decideCmd(id, d, reqp), m.showToast(text, false), m.showNext(true)}
	m.syncPrompt()
	return m, tea.Batch(cmds...)
}

// later closes the prompt; the requests stay pending for the Approvals
// key.
func (m Model) later(id string) (tea.Model, tea.Cmd) {
	m.dialogs.Remove(id)
	if !m.opts.ApprovalFeed {
		m.answered[id] = true
		return m, m.showToast("Left for later: press a to answer it", false)
	}
	m.queue.putOff()
	n := m.queue.len()
	text := "Left for later: press a to answer it"
	if n > 1 {
		text = fmt.Sprintf("%d requests left for later: press a to answer them", n)
	}
	return m, m.showToast(text, false)
}

// decidedMsg reports what came of an answer.
type decidedMsg struct {
	id       string
	req      *Request // the queued request answered, to queue again if the answer failed
	decision *transcript.ApprovalDecision
	err      error
}

func (m Model) decideCmd(id string, d Decision, req *Request) tea.Cmd {
	ap, ctx := m.opts.Approver, m.opts.Context
	if ap == nil {
		return nil
	}
	return func() tea.Msg {
		dec, err := ap.Decide(ctx, id, d)
		return decidedMsg{id: id, req: req, decision: dec, err: err}
	}
}

// decided reports the outcome of an answer: the policy rule an "always"
// added, or why the answer did not count (the request then waits again).
func (m Model) decided(msg decidedMsg) (tea.Model, tea.Cmd) {
	switch {
	case msg.decision != nil && msg.err != nil:
		return m, m.showToast("The decision stands, but: "+errorText(msg.err), true)
	case msg.err != nil:
		delete(m.answered, msg.id)
		r := msg.req
		if r != nil && !m.closed[msg.id] && (r.ExpiresAt.IsZero() || m.opts.Now().Before(r.ExpiresAt)) {
			m.queue.add(*r)
			m.queue.later[r.ID] = true
			m.syncPrompt()
			return m, m.showToast("Could not answer: "+errorText(msg.err)+" (press a to try again)", true)
		}
		return m, m.showToast("Could not answer: "+errorText(msg.err), true)
	case msg.decision != nil && msg.decision.RuleAdded != "":
		return m, m.showToast("Always allowed: added the policy rule "+msg.decision.RuleAdded, false)
	}
	return m, nil
}

// errorText is an error with its hint, if it has one.
func errorText(err error) string {
	text := err.Error()
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		text += ". " + h.Hint()
	}
	return text
}

// openApproval shows the prompt for an approval_request event of the
// session on screen. popped says it opened on its own (and so ignores keys
// for a moment).
func (m *Model) openApproval(ev *transcript.Event, popped bool) tea.Cmd {
	req, ok := ev.Body.(*transcript.ApprovalRequest)
	if !ok || m.opts.Approver == nil || m.dialogs.Has(req.RequestID) {
		return nil
	}
	m.dialogs.Push(dialog.NewApproval(dialog.RequestOf(ev), m.st, m.keys.Dialog, m.opts.Now, popped, m.opts.ApprovalNote))
	return m.ensureTick()
}

// reactTo pops an approval prompt for a fresh undecided request of the
// session on screen, and closes one that was decided elsewhere. With an
// approval feed, the feed does both, for every project.
func (m *Model) reactTo(ev *transcript.Event) tea.Cmd {
	if m.opts.ApprovalFeed {
		return nil
	}
	switch b := ev.Body.(type) {
	case *transcript.ApprovalRequest:
		if m.answered[b.RequestID] || m.opts.Approver == nil {
			return nil
		}
		now := m.opts.Now()
		fresh := now.Sub(ev.TS) < popWindow
		if b.ExpiresAt != nil {
			fresh = now.Before(*b.ExpiresAt)
		}
		if fresh && m.undecided(b.RequestID) {
			return m.openApproval(ev, true)
		}
	case *transcript.ApprovalDecision:
		if m.dialogs.Has(b.RequestID) {
			m.dialogs.Remove(b.RequestID)
			return m.showToast("That request was decided elsewhere ("+b.Decision+")", false)
		}
	}
	return nil
}

// undecided reports whether the timeline has no decision for a request.
func (m *Model) undecided(requestID string) bool {
	items := m.viewer.Timeline().Items()
	for i := len(items) - 1; i >= 0; i-- {
		if r := items[i].ApprovalRequest(); r != nil && r.RequestID == requestID {
			return items[i].ApprovalDecision() == nil
		}
	}
	return true
}
