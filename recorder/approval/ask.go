package approval

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/cuff-dev/cuff/transcript"
)

// withdrawnReason is the reason of the decision that closes a request whose
// requester stopped waiting; every withdrawal's reason starts with
// withdrawnPrefix.
const (
	withdrawnPrefix = "withdrawn: "
	withdrawnReason = withdrawnPrefix + "the agent stopped waiting"
	// WithdrawnSessionEnded is why a request is withdrawn when the agent's
	// session ends before anyone decides.
	WithdrawnSessionEnded = withdrawnPrefix + "the agent's session ended"
	// withdrawnGone is why a request is withdrawn when its requester's
	// process is gone.
	withdrawnGone = withdrawnPrefix + "the agent is gone (its process ended)"
)

// Ask files req and waits for its decision: Submit, then Wait. A request
// event that could not be recorded is only warned about. When ctx ends
// first the request is withdrawn, so that no one is left answering a
// question nobody waits for.
func (b *Broker) Ask(ctx context.Context, req *Request) (*Request, *Decision, error) {
	r, err := b.Submit(req)
	var rec *RecordError
	if errors.As(err, &rec) {
		b.warn("%v", rec)
	} else if err != nil {
		return nil, nil, err
	}
	d, err := b.Wait(ctx, r.ID)
	if err != nil && ctx.Err() != nil {
		if wd, werr := b.Withdraw(r.ID); werr == nil && !IsWithdrawal(wd) {
			return r, wd, nil // answered just in time
		}
	}
	return r, d, err
}

// IsWithdrawal reports whether a decision closed a request nobody waited for
// any more.
func IsWithdrawal(d *Decision) bool {
	return d != nil && d.By == ByAgent && strings.HasPrefix(d.Reason, withdrawnPrefix)
}

// Withdraw closes a request whose requester no longer waits: it is decided
// as a denial by the agent (recorded, so the request does not stay open in
// the session) and its file removed. If it was decided already, that
// decision is returned.
func (b *Broker) Withdraw(id string) (*Decision, error) {
	return b.WithdrawBecause(id, withdrawnReason)
}

// WithdrawBecause is Withdraw with the reason recorded (it should start
// with "withdrawn: ").
func (b *Broker) WithdrawBecause(id, reason string) (*Decision, error) {
	if !strings.HasPrefix(reason, withdrawnPrefix) {
		reason = withdrawnPrefix + reason
	}
	r, _, err := b.readRequest(id)
	if err != nil {
		if d := b.Decision(id); d != nil {
			return d, nil
		}
		return nil, &NotFoundError{ID: id, cause: err}
	}
	d := &Decision{V: formatVersion, RequestID: r.ID, Decision: transcript.DecisionDeny, By: ByAgent,
		Reason: reason, DecidedAt: b.now().UTC(), PID: os.Getpid()}
	won, err := b.claim(d, r)
	if err != nil {
		return nil, err
	}
	if won != d {
		return won, nil
	}
	if err := os.Remove(b.pendingPath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		b.warn("remove withdrawn request: %v", err)
	}
	if err := b.record(r, r.DecisionEvent(d)); err != nil {
		b.warn("%v", err)
	}
	return d, nil
}
