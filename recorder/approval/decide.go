package approval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// claimAttempts bounds the retries of an exclusive create that finds an
// untrusted file in its place.
const claimAttempts = 3

// Answer is what a person (or the policy) answers to a request.
type Answer struct {
	// Decision is approve or deny.
	Decision string
	// Scope is once (the default), session or always; approvals only.
	Scope string
	// By names the decider: tui, cli, mcp, policy or agent.
	By string
	// Reason goes back to the agent with a denial.
	Reason string
}

// Approve is an approval of the given scope by a decider.
func Approve(scope, by string) Answer {
	return Answer{Decision: transcript.DecisionApprove, Scope: scope, By: by}
}

// Deny is a denial with a reason by a decider.
func Deny(reason, by string) Answer {
	return Answer{Decision: transcript.DecisionDeny, Reason: reason, By: by}
}

func (a *Answer) check() error {
	switch a.Decision {
	case transcript.DecisionApprove:
		if a.Scope == "" {
			a.Scope = transcript.ScopeOnce
		}
		if err := checkScope(a.Scope); err != nil {
			return err
		}
	case transcript.DecisionDeny:
		a.Scope = ""
	default:
		return fmt.Errorf("answer %q is not approve or deny", a.Decision)
	}
	if a.By == ByTimeout {
		return errors.New("only the broker decides by timeout")
	}
	return checkBy(a.By)
}

// Decide answers request id. The decision file is created exclusively, so
// of several deciders racing only the first wins; the others get an
// *AlreadyDecidedError naming the winner. The winner applies the scope (a
// session grant, or exact allow rules in the project's policy.yml) and
// records the approval_decision event in the request's session; a failure
// to record returns the decision with a *RecordError, since the decision
// stands.
func (b *Broker) Decide(id string, ans Answer) (*Decision, error) {
	if err := ans.check(); err != nil {
		return nil, err
	}
	r, _, err := b.readRequest(id)
	if err != nil {
		if d := b.Decision(id); d != nil {
			return nil, &AlreadyDecidedError{Decision: d}
		}
		return nil, &NotFoundError{ID: id, cause: err}
	}
	if d := b.decisionOn(r); d != nil {
		return nil, &AlreadyDecidedError{Decision: d}
	}
	if r.PID > 0 && !alive(r.PID) {
		// No one waits for the answer: approving now would approve nothing
		// the agent will run, and record a decision out of its place.
		d, err := b.WithdrawBecause(id, withdrawnGone)
		if err != nil {
			return nil, err
		}
		return nil, &AlreadyDecidedError{Decision: d}
	}
	now := b.now()
	if !now.Before(r.ExpiresAt) {
		d, err := b.expire(r)
		if err != nil {
			return nil, err
		}
		if d.Decision != transcript.DecisionTimeout {
			return nil, &AlreadyDecidedError{Decision: d}
		}
		return nil, &ExpiredError{ID: r.ID, ExpiresAt: r.ExpiresAt}
	}
	d := &Decision{V: formatVersion, RequestID: r.ID, Decision: ans.Decision, Scope: ans.Scope, By: ans.By,
		Reason: ans.Reason, DecidedAt: now.UTC(), PID: os.Getpid()}

	// apply makes the scope take effect once the decision is won.
	var apply func() error
	switch {
	case d.Scope == transcript.ScopeSession:
		if r.AgentSession == "" {
			return nil, &ScopeError{Scope: d.Scope, Msg: "the request names no agent session"}
		}
		if r.Command == "" {
			return nil, &ScopeError{Scope: d.Scope, Msg: "the request has no command to remember"}
		}
		apply = func() error { return b.Grant(r.AgentSession, r.Command) }
	case d.Scope == transcript.ScopeAlways:
		plan, err := planAlways(r, ans.By, now)
		if err != nil {
			return nil, err
		}
		defer plan.release()
		d.RuleAdded = plan.summary()
		apply = func() error {
			if err := plan.write(); err != nil {
				return err
			}
			if err := plan.trust(b.Dir, now); err != nil {
				b.warn("the rule was added, but %v: run cuff trust to let it apply", err)
			}
			return nil
		}
	}

	won, err := b.claim(d, r)
	if err != nil {
		return nil, err
	}
	if won != d {
		return nil, &AlreadyDecidedError{Decision: won}
	}
	var applyErr error
	if apply != nil {
		if applyErr = apply(); applyErr != nil {
			// The approval stands, for this command only.
			d.Scope, d.RuleAdded = transcript.ScopeOnce, ""
			applyErr = fmt.Errorf("approved once only: %w", applyErr)
			if data, err := encode(d); err == nil {
				if err := writeAtomic(b.decidedPath(d.RequestID), data); err != nil {
					b.warn("rewrite decision %s: %v", d.RequestID, err)
				}
			}
		}
	}
	recErr := b.record(r, r.DecisionEvent(d))
	if recErr == nil {
		b.markRecorded(d)
	}
	if applyErr != nil {
		if recErr != nil {
			b.warn("%v", recErr)
		}
		return d, applyErr
	}
	return d, recErr
}

// claim creates the decision file for d (on request r) exclusively and
// returns the decision that counts: d when it won, else the one that was
// there first. An untrusted or malformed file in the way, or one that
// cannot answer r, is moved aside.
func (b *Broker) claim(d *Decision, r *Request) (*Decision, error) {
	if err := b.ensureDirs(b.decidedDir()); err != nil {
		return nil, err
	}
	data, err := encode(d)
	if err != nil {
		return nil, fmt.Errorf("encode decision: %w", err)
	}
	p := b.decidedPath(d.RequestID)
	for range claimAttempts {
		err := createExclusive(p, data)
		if err == nil {
			return d, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		first, fi, rerr := b.readDecision(d.RequestID)
		if rerr == nil && first.answers(r) {
			return first, nil
		}
		if rerr == nil {
			rerr = fmt.Errorf("decision %s was made before its request: %w", d.RequestID, errUntrusted)
		}
		if errors.Is(rerr, fs.ErrNotExist) {
			continue // removed in the meantime
		}
		// A file that does not count: forged, loose or another user's.
		b.warn("ignoring a decision file: %v", rerr)
		if err := quarantine(p, fi); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("create %s: a file that cuff does not trust keeps reappearing there", p)
}

// expire decides an unanswered request that is past its time as a timeout.
// Of several waiters only one writes the decision and records it; all get
// the decision that counts.
func (b *Broker) expire(r *Request) (*Decision, error) {
	if d := b.decisionOn(r); d != nil {
		return d, nil
	}
	d := &Decision{V: formatVersion, RequestID: r.ID, Decision: transcript.DecisionTimeout, By: ByTimeout,
		Reason:    fmt.Sprintf("no answer within %s", r.ExpiresAt.Sub(r.CreatedAt).Round(time.Second)),
		DecidedAt: b.now().UTC(), PID: os.Getpid()}
	won, err := b.claim(d, r)
	if err != nil {
		return nil, err
	}
	if won == d {
		if err := b.record(r, r.DecisionEvent(d)); err != nil {
			b.warn("%v", err)
		} else {
			b.markRecorded(d)
		}
	}
	return won, nil
}

// markRecorded rewrites a won decision to say its event is in the session.
func (b *Broker) markRecorded(d *Decision) {
	d.Recorded = true
	data, err := encode(d)
	if err == nil {
		err = writeAtomic(b.decidedPath(d.RequestID), data)
	}
	if err != nil {
		b.warn("mark decision %s recorded: %v", d.RequestID, err)
	}
}
