package dialog

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// GracePeriod is how long a prompt that popped up on its own ignores keys,
// so that a keystroke meant for the timeline never answers it.
const GracePeriod = 600 * time.Millisecond

// DefaultDenyReason is what the agent is told when a denial has no reason
// typed.
const DefaultDenyReason = "denied in the TUI"

// maxReasonLength caps the reason of a denial.
const maxReasonLength = 500

// choices of the approval prompt, left to right.
const (
	choiceOnce = iota
	choiceSession
	choiceAlways
	choiceDeny
	choiceCount
)

// choiceLabel is the button text of a choice.
func choiceLabel(choice int) string {
	return [choiceCount]string{"Approve once", "This agent session", "Always", "Deny…"}[choice]
}

// Request is what the approval prompt shows about a gated command.
type Request struct {
	ID      string
	Tool    string
	Command string
	// WorkingDirectory is where the command would run.
	WorkingDirectory string
	// Project is the folder of the project whose agent asks.
	Project string
	// Agent is the agent product, such as claude-code.
	Agent string
	// Verdict says why the gate asked.
	Verdict *transcript.Verdict
	Taint   []string
	// Diff is the change a file-changing tool would make.
	Diff string
	// ExpiresAt is when the request is denied by timeout; zero for never.
	ExpiresAt time.Time
	// OnScreen says the request comes from the session on screen.
	OnScreen bool
	// Parts are the parts of a compound command that ask or deny, each
	// with its own reasons; with more than one, the prompt lists them all.
	Parts []Part
	// Description is what the agent said the command is for.
	Description string
	// SessionTitle and SessionID name the session that asks.
	SessionTitle, SessionID string
	// NotAlways says why "always" is not offered; the A key then says so
	// instead of answering.
	NotAlways string
	// TrustNote says what of the project's .cuff files waits to be trusted.
	TrustNote string
}

// Part is one simple command of a request that asks or denies.
type Part struct {
	Text    string
	Verdict string // ask or deny
	Reasons []string
}

// RequestOf is the prompt's view of an approval_request event.
func RequestOf(ev *transcript.Event) Request {
	req, _ := ev.Body.(*transcript.ApprovalRequest)
	if req == nil {
		return Request{}
	}
	r := Request{ID: req.RequestID, Tool: req.Tool, Command: req.Command, Verdict: req.Verdict, Taint: req.Taint, Diff: req.Diff, OnScreen: true}
	if req.ExpiresAt != nil {
		r.ExpiresAt = *req.ExpiresAt
	}
	return r
}

// approvalMode is what the prompt's keys do.
type approvalMode int

const (
	modeChoose approvalMode = iota // a, s, A, d, arrows
	modeReason                     // typing the reason of a denial
)

// Approval asks a person to approve or deny a gated command. The focused
// choice starts on Deny, so enter alone never approves; a denial asks for
// the reason the agent is told.
type Approval struct {
	req     Request
	st      *styles.Styles
	keys    keys.Dialog
	hl      *common.Highlighter
	now     func() time.Time
	opened  time.Time
	grace   time.Duration
	choice  int
	note    string
	mode    approvalMode
	reason  textinput.Model
	waiting int // other requests queued behind this one
	diffTop int // the first diff line shown
	cache   renderCache
}

// NewApproval opens a prompt for req. With popped set (it opened on its
// own), keys are ignored until none came for GracePeriod. note is an extra line, such as
// what the demo does with the answer.
func NewApproval(req Request, st *styles.Styles, km keys.Dialog, now func() time.Time, popped bool, note string) *Approval {
	if now == nil {
		now = time.Now
	}
	ti := textinput.New()
	ti.Prompt = "› "
	ti.Placeholder = DefaultDenyReason
	ti.CharLimit = maxReasonLength
	a := &Approval{req: req, st: st, keys: km, hl: common.NewHighlighter(st.Dark), now: now, opened: now(),
		choice: choiceDeny, note: note, reason: ti}
	a.setInputStyles()
	if popped {
		a.grace = GracePeriod
	}
	return a
}

func (a *Approval) setInputStyles() {
	s := textinput.DefaultStyles(a.st.Dark)
	s.Cursor.Blink = false // nothing drives a blink inside a dialog
	a.reason.SetStyles(s)
}

var _ Dialog = (*Approval)(nil)

// ID is the request id.
func (a *Approval) ID() string { return a.req.ID }

// Choice is the focused button (0 approve once … 3 deny), for tests.
func (a *Approval) Choice() int { return a.choice }

// Typing reports whether the reason of a denial is being typed.
func (a *Approval) Typing() bool { return a.mode == modeReason }

// SetWaiting says how many other requests wait behind this one.
func (a *Approval) SetWaiting(n int) { a.waiting = max(n, 0) }

// SetOnScreen says whether the request comes from the session on screen.
func (a *Approval) SetOnScreen(v bool) { a.req.OnScreen = v }

// ShortHelp is the keys that work in the prompt now, for the footer.
func (a *Approval) ShortHelp() []key.Binding {
	if a.mode == modeReason {
		return a.keys.ReasonHelp()
	}
	return a.keys.ShortHelp()
}

// inGrace reports whether the prompt still ignores keys.
func (a *Approval) inGrace() bool { return a.now().Sub(a.opened) < a.grace }

// HandleMsg answers keys with approve, deny or later; while a reason is
// typed, it takes keys and pastes for the text input.
func (a *Approval) HandleMsg(msg tea.Msg) Action {
	if a.inGrace() {
		if _, ok := msg.(tea.KeyPressMsg); ok {
			// Typing on: the keys are meant for the page below. The
			// prompt takes keys only after a pause.
			a.opened = a.now()
		}
		return ActionNone{}
	}
	if a.mode == modeReason {
		return a.handleReason(msg)
	}
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return ActionNone{}
	}
	k := a.keys
	switch {
	case key.Matches(kp, k.Approve):
		return a.act(choiceOnce)
	case key.Matches(kp, k.Session):
		return a.act(choiceSession)
	case key.Matches(kp, k.Always):
		return a.act(choiceAlways)
	case key.Matches(kp, k.Deny):
		return a.act(choiceDeny)
	case key.Matches(kp, k.Left):
		a.choice = (a.choice + choiceCount - 1) % choiceCount
	case key.Matches(kp, k.Right):
		a.choice = (a.choice + 1) % choiceCount
	case key.Matches(kp, k.Confirm):
		return a.act(a.choice)
	case key.Matches(kp, k.Scroll):
		if a.diffTop < strings.Count(a.req.Diff, "\n") {
			a.diffTop++ // clamped to the window when drawn
		}
	case key.Matches(kp, k.ScrollUp):
		a.diffTop = max(a.diffTop-1, 0)
	case key.Matches(kp, k.Later):
		return ActionLater{ID: a.req.ID}
	}
	return ActionNone{}
}

// handleReason edits the reason of a denial: enter sends it, esc goes
// back to the choices.
func (a *Approval) handleReason(msg tea.Msg) Action {
	if kp, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(kp, a.keys.SendDenial):
			reason := strings.TrimSpace(a.reason.Value())
			if reason == "" {
				reason = DefaultDenyReason
			}
			return ActionDeny{ID: a.req.ID, Reason: reason}
		case key.Matches(kp, a.keys.Back):
			a.mode = modeChoose
			a.reason.Blur()
			return ActionNone{}
		}
	}
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
		// The input's command only blinks the cursor, which is off here.
		a.reason, _ = a.reason.Update(msg)
	}
	return ActionNone{}
}

func (a *Approval) act(choice int) Action {
	switch choice {
	case choiceOnce:
		return ActionApprove{ID: a.req.ID, Scope: transcript.ScopeOnce}
	case choiceSession:
		return ActionApprove{ID: a.req.ID, Scope: transcript.ScopeSession}
	case choiceAlways:
		if a.req.NotAlways != "" {
			a.choice = choiceAlways
			a.note = "Always is not offered: " + common.OneLine(common.Sanitize(a.req.NotAlways), 200) +
				". Approve it once (a) or for this session (s)."
			return ActionNone{}
		}
		return ActionApprove{ID: a.req.ID, Scope: transcript.ScopeAlways}
	}
	a.mode = modeReason
	a.choice = choiceDeny
	_ = a.reason.Focus() // its command only blinks the cursor, which is off here
	return ActionNone{}
}
