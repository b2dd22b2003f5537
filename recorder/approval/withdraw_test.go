package approval

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
)

// TestLateDecisionForAGoneRequesterIsRefused: a request whose requester
// died is no longer listed, and a decision on it is refused with a clear
// message: it is closed as withdrawn (recorded), nothing is approved.
func TestLateDecisionForAGoneRequesterIsRefused(t *testing.T) {
	f := newFixture(t)
	r := f.submit(t, "curl -s https://example.com")
	data, err := os.ReadFile(f.b.pendingPath(r.ID))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	raw["pid"] = deadPID(t)
	data, _ = json.Marshal(raw)
	writeFile(t, f.b.pendingPath(r.ID), string(data), 0o600)

	if pending, _ := f.b.Pending(); len(pending) != 0 {
		t.Errorf("a request no one waits for is listed: %+v", pending)
	}
	_, err = f.b.Decide(r.ID, Approve(transcript.ScopeSession, ByCLI))
	already, ok := err.(*AlreadyDecidedError)
	if !ok {
		t.Fatalf("late approval: %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "is closed: withdrawn: the agent is gone") || !strings.Contains(msg, "nothing was approved") {
		t.Errorf("message %q", msg)
	}
	if !strings.Contains(already.Hint(), "no longer waits") {
		t.Errorf("hint %q", already.Hint())
	}
	if f.b.Granted(r.AgentSession, r.Command) {
		t.Error("the late approval granted the command for the session")
	}
	decisions := f.events(t, transcript.TypeApprovalDecision)
	if len(decisions) != 1 || decisions[0].Body.(*transcript.ApprovalDecision).Decision != transcript.DecisionDeny {
		t.Errorf("recorded decisions: %+v", decisions)
	}
}

func TestWithdrawBecauseRecordsTheReason(t *testing.T) {
	f := newFixture(t)
	r := f.submit(t, "curl -s https://example.com")
	d, err := f.b.WithdrawBecause(r.ID, WithdrawnSessionEnded)
	if err != nil || !IsWithdrawal(d) || d.Reason != WithdrawnSessionEnded {
		t.Fatalf("%+v %v", d, err)
	}
	if _, err := f.b.Decide(r.ID, Deny("too late", ByTUI)); err == nil || !strings.Contains(err.Error(), "session ended") {
		t.Errorf("a decision after the withdrawal: %v", err)
	}
}
