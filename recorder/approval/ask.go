package approval

import (
	"context"
	"errors"
	"os"

	"github.com/cuff-dev/cuff/transcript"
)

// withdrawnReason is the reason of the decision that closes a request whose
// requester stopped waiting.
const withdrawnReason = "withdrawn: the agent stopped waiting"

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
		if wd, werr := b.Withdraw(r.ID); werr == nil && !(wd.By == ByAgent && wd.Reason == withdrawnReason) {
			return r, wd, nil // answered just in time
		}
	}
	return r, d, err
}

// Withdraw closes a request whose requester no longer waits: it is decided
// as a denial by the agent (recorded, so the request does not stay open in
// the session) and its file removed. If it was decided already, that
// decision is returned.
func (b *Broker) Withdraw(id string) (*Decision, error) {
	r, _, err := b.readRequest(id)
	if err != nil {
		if d := b.Decision(id); d != nil {
			return d, nil
		}
		return nil, &NotFoundError{ID: id, cause: err}
	}
	d := &Decision{V: formatVersion, RequestID: r.ID, Decision: transcript.DecisionDeny, By: ByAgent,
		Reason: withdrawnReason, DecidedAt: b.now().UTC(), PID: os.Getpid()}
	won, err := b.claim(d)
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
