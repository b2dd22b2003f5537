package main

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	tea "charm.land/bubbletea/v2"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui"
	"github.com/cuff-dev/cuff/tui/dialog"
)

// brokerApprover answers the TUI's prompts through the approval broker,
// as the TUI ("tui").
type brokerApprover struct{ b *approval.Broker }

var _ tui.Approver = brokerApprover{}

// Decide approves or denies request id. A decision that stands but could
// not be recorded comes back with its error.
func (a brokerApprover) Decide(_ context.Context, id string, d tui.Decision) (*transcript.ApprovalDecision, error) {
	ans := approval.Deny(d.Reason, approval.ByTUI)
	if d.Approve {
		ans = approval.Approve(d.Scope, approval.ByTUI)
	}
	dec, err := a.b.Decide(id, ans)
	if dec == nil {
		return nil, err
	}
	return decisionOf(dec), err
}

// decisionOf is the TUI's view of a broker decision.
func decisionOf(d *approval.Decision) *transcript.ApprovalDecision {
	return &transcript.ApprovalDecision{RequestID: d.RequestID, Decision: d.Decision, Scope: d.Scope, By: d.By,
		Reason: d.Reason, RuleAdded: d.RuleAdded}
}

// requestOf is the TUI's view of a pending request.
func requestOf(r *approval.Request) tui.Request {
	project := ""
	if r.Session.Dir != "" {
		project = filepath.Dir(r.Session.Dir) // the folder that holds .cuff
	}
	parts := make([]dialog.Part, len(r.Parts))
	for i, p := range r.Parts {
		parts[i] = dialog.Part{Text: p.Text, Verdict: p.Verdict, Reasons: p.Reasons}
	}
	return tui.Request{ID: r.ID, SessionID: r.Session.ID, Project: project, Agent: r.Agent, Tool: r.Tool,
		Command: r.Command, WorkingDirectory: r.WorkingDirectory, Verdict: r.Verdict, Taint: r.Taint, Diff: r.Diff,
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, Parts: parts, Description: r.Description,
		SessionTitle: r.SessionTitle, NotAlways: r.NotAlways, TrustNote: r.TrustNote}
}

// approvalMsg turns a broker update into the TUI's message.
func approvalMsg(u approval.Update) tui.ApprovalMsg {
	msg := tui.ApprovalMsg{Request: requestOf(u.Request)}
	switch u.Kind {
	case approval.Requested:
		msg.Kind = tui.ApprovalRequested
	case approval.Decided:
		msg.Kind = tui.ApprovalDecided
		if u.Decision != nil {
			msg.Decision = decisionOf(u.Decision)
		}
	default:
		msg.Kind = tui.ApprovalWithdrawn
	}
	return msg
}

// serveApprovals announces the TUI to requesters with a heartbeat and
// feeds the broker's updates into the program with send, until ctx ends.
// Neither failing stops the TUI: it shows why instead.
func serveApprovals(ctx context.Context, b *approval.Broker, send func(tea.Msg), log *slog.Logger) {
	stop, err := b.StartHeartbeat(ctx)
	if err != nil {
		log.Warn("approval heartbeat", "err", err)
		send(tui.NoticeMsg{Err: true, Text: fmt.Sprintf(
			"Approvals: could not announce this TUI (%v); agents will not wait for an answer here", err)})
	} else {
		defer stop()
	}
	err = b.Watch(ctx, func(u approval.Update) {
		if u.Request != nil {
			send(approvalMsg(u))
		}
	})
	if err != nil && ctx.Err() == nil {
		log.Warn("watch approval requests", "err", err)
		send(tui.NoticeMsg{Err: true, Text: fmt.Sprintf("Approvals: cannot watch for requests (%v)", err)})
	}
}

// brokerNotice says why a TUI offers no approval prompts.
func brokerNotice(err error) tui.NoticeMsg {
	return tui.NoticeMsg{Err: true, Text: fmt.Sprintf("Approvals are off: %v", err)}
}
