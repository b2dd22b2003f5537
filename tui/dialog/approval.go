package dialog

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
)

// GracePeriod is how long a prompt that popped up on its own ignores keys,
// so that a keystroke meant for the timeline never answers it.
const GracePeriod = 600 * time.Millisecond

// Dialog sizes.
const (
	maxDialogWidth   = 76
	maxCommandLines  = 8
	dialogFrameWidth = 6 // border and padding
)

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
	return [choiceCount]string{"Approve once", "For this session", "Always", "Deny"}[choice]
}

// Approval asks a person to approve or deny a gated command. The focused
// choice starts on Deny, so enter alone never approves.
type Approval struct {
	id     string
	req    *transcript.ApprovalRequest
	st     *styles.Styles
	keys   keys.Dialog
	now    func() time.Time
	opened time.Time
	grace  time.Duration
	choice int
	note   string
}

// NewApproval opens a prompt for the approval_request event ev. With
// popped set (it opened on its own), keys are ignored for GracePeriod.
// note is an extra line, such as what the demo does with the answer.
func NewApproval(ev *transcript.Event, st *styles.Styles, km keys.Dialog, now func() time.Time, popped bool, note string) *Approval {
	req, _ := ev.Body.(*transcript.ApprovalRequest)
	if req == nil {
		req = &transcript.ApprovalRequest{}
	}
	if now == nil {
		now = time.Now
	}
	a := &Approval{id: req.RequestID, req: req, st: st, keys: km, now: now, opened: now(), choice: choiceDeny, note: note}
	if popped {
		a.grace = GracePeriod
	}
	return a
}

var _ Dialog = (*Approval)(nil)

// ID is the request id.
func (a *Approval) ID() string { return a.id }

// Choice is the focused button (0 approve once … 3 deny), for tests.
func (a *Approval) Choice() int { return a.choice }

// HandleMsg answers keys with approve, deny or later.
func (a *Approval) HandleMsg(msg tea.Msg) Action {
	kp, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return ActionNone{}
	}
	if a.now().Sub(a.opened) < a.grace {
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
	case key.Matches(kp, k.Later):
		return ActionLater{ID: a.id}
	}
	return ActionNone{}
}

func (a *Approval) act(choice int) Action {
	switch choice {
	case choiceOnce:
		return ActionApprove{ID: a.id, Scope: transcript.ScopeOnce}
	case choiceSession:
		return ActionApprove{ID: a.id, Scope: transcript.ScopeSession}
	case choiceAlways:
		return ActionApprove{ID: a.id, Scope: transcript.ScopeAlways}
	}
	return ActionDeny{ID: a.id, Reason: "denied in the TUI"}
}

// View draws the prompt.
func (a *Approval) View(width, height int) string {
	w := min(maxDialogWidth, width-2) - dialogFrameWidth
	w = max(w, 10)
	st := a.st
	var lines []string
	lines = append(lines, st.DialogTitle.Render("⚠ Approval requested"))
	what := "The agent wants to run:"
	if a.req.Tool != "" && !strings.EqualFold(a.req.Tool, "bash") {
		what = "The agent wants to use " + common.OneLine(common.Sanitize(a.req.Tool), 30) + ":"
	}
	lines = append(lines, "", st.Muted.Render(what))
	cmd := common.HardWrap(common.Sanitize(a.req.Command), w-2)
	if len(cmd) > maxCommandLines {
		cmd = append(cmd[:maxCommandLines:maxCommandLines], "…")
	}
	for _, l := range cmd {
		lines = append(lines, st.Prompt.Render("$ ")+st.Header.Render(l))
	}
	if v := a.req.Verdict; v != nil {
		why := v.Reasons
		if v.Tier != "" {
			why = append([]string{v.Tier}, why...)
		}
		if len(why) > 0 {
			lines = append(lines, "")
			for _, l := range common.Wrap(common.Sanitize(strings.Join(why, " · ")), w) {
				lines = append(lines, st.Warn.Render(l))
			}
		}
	}
	if a.req.ExpiresAt != nil {
		if left := a.req.ExpiresAt.Sub(a.now()); left > 0 {
			lines = append(lines, st.Muted.Render("denied automatically in "+left.Round(time.Second).String()))
		}
	}
	lines = append(lines, "", a.buttons(w))
	lines = append(lines, st.Muted.Render(common.Truncate("y once · s session · A always · n deny · esc later", w)))
	if a.note != "" {
		for _, l := range common.Wrap(a.note, w) {
			lines = append(lines, st.Muted.Render(l))
		}
	}
	if a.now().Sub(a.opened) < a.grace {
		lines = append(lines, st.Muted.Render("…"))
	}
	if len(lines) > height-2 && height > 4 {
		lines = lines[:height-2]
	}
	return st.Dialog.Width(w + dialogFrameWidth).Render(strings.Join(lines, "\n"))
}

// buttons draws the choices, the focused one highlighted, on as many
// lines as the width needs.
func (a *Approval) buttons(width int) string {
	var rows []string
	row := ""
	for i := range choiceCount {
		label := choiceLabel(i)
		style := a.st.Button
		if i == a.choice {
			style = a.st.ButtonActive
		}
		b := style.Render(label)
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
