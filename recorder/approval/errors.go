package approval

import (
	"fmt"
	"strings"
	"time"
)

// timeLayout is how decision times are shown to people (local time).
const timeLayout = "2006-01-02 15:04:05"

// NotFoundError is a request id that names no pending request.
type NotFoundError struct {
	ID    string
	cause error
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no approval request %s", e.ID)
}

// Unwrap returns why the request file could not be used, if it was there.
func (e *NotFoundError) Unwrap() error { return e.cause }

// Hint tells the user the way out.
func (e *NotFoundError) Hint() string {
	return "Hint: Run 'cuff approvals' to list the pending requests; an expired request is gone"
}

// BadIDError is an id or prefix that can never name a request.
type BadIDError struct{ ID string }

func (e *BadIDError) Error() string {
	return fmt.Sprintf("%q is not a request id", e.ID)
}

// Hint tells the user the way out.
func (e *BadIDError) Hint() string {
	return fmt.Sprintf("Hint: Give the id from 'cuff approvals', or at least %d of its first hex digits", MinPrefix)
}

// AmbiguousError is a prefix that matches more than one request.
type AmbiguousError struct {
	ID      string
	Matches []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q matches %d requests: %s", e.ID, len(e.Matches), strings.Join(e.Matches, ", "))
}

// Hint tells the user the way out.
func (e *AmbiguousError) Hint() string { return "Hint: Give more of the id" }

// AlreadyDecidedError is a decision that came after another one: the first
// decision wins.
type AlreadyDecidedError struct{ Decision *Decision }

func (e *AlreadyDecidedError) Error() string {
	d := e.Decision
	if IsWithdrawal(d) {
		return fmt.Sprintf("request %s is closed: %s (at %s); nothing was approved or denied now", Short(d.RequestID),
			d.Reason, d.DecidedAt.Local().Format(timeLayout))
	}
	return fmt.Sprintf("request %s already decided (%s by %s at %s)", Short(d.RequestID), d.Decision, d.By,
		d.DecidedAt.Local().Format(timeLayout))
}

// Hint tells the user the way out.
func (e *AlreadyDecidedError) Hint() string {
	if IsWithdrawal(e.Decision) {
		return "Hint: The agent no longer waits for this answer; if it asks again, a new request appears"
	}
	return "Hint: The first answer counts; the agent has it already"
}

// ExpiredError is a decision that came after the request timed out.
type ExpiredError struct {
	ID        string
	ExpiresAt time.Time
}

func (e *ExpiredError) Error() string {
	return fmt.Sprintf("request %s expired at %s", Short(e.ID), e.ExpiresAt.Local().Format(timeLayout))
}

// Hint tells the user the way out.
func (e *ExpiredError) Hint() string {
	return "Hint: Unanswered requests are denied when they time out (approvals.timeout); the agent may ask again"
}

// RecordError is a decision or request that stands but could not be
// written to its session.
type RecordError struct {
	Session string
	Err     error
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("record in session %s: %v", e.Session, e.Err)
}

func (e *RecordError) Unwrap() error { return e.Err }

// ScopeError is an approval scope that cannot be applied to a request.
type ScopeError struct {
	Scope string
	Msg   string
}

func (e *ScopeError) Error() string {
	return fmt.Sprintf("cannot approve for scope %s: %s", e.Scope, e.Msg)
}

// Hint tells the user the way out.
func (e *ScopeError) Hint() string { return "Hint: Approve once instead" }
