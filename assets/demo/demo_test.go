package demo

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/assets/demo/internal/script"
	"github.com/cuff-dev/cuff/transcript"
)

// readSession decodes the embedded session, failing the test on any line
// the reader rejects.
func readSession(t *testing.T) []*transcript.Event {
	t.Helper()
	r := transcript.NewReader(bytes.NewReader(Session()))
	var events []*transcript.Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var lineErr *transcript.LineError
		if errors.As(err, &lineErr) {
			t.Errorf("malformed line: %v", err)
			continue
		}
		if err != nil {
			t.Fatalf("read demo session: %v", err)
		}
		events = append(events, ev)
	}
	if st := r.Stats(); st.Malformed != 0 || st.Truncated != 0 || st.Unknown != 0 {
		t.Errorf("reader stats = %+v, want no malformed, truncated or unknown lines", st)
	}
	if len(events) == 0 {
		t.Fatal("demo session has no events")
	}
	return events
}

func TestEnvelope(t *testing.T) {
	events := readSession(t)
	var prev time.Time
	for i, ev := range events {
		want := int64(i + 1)
		if ev.Seq != want {
			t.Fatalf("event %d has seq %d, want %d", i, ev.Seq, want)
		}
		if ev.ID != transcript.EventID(SessionID, ev.Seq) || ev.SessionID != SessionID || ev.V != transcript.SchemaVersion {
			t.Errorf("seq %d: id %q, session %q, v %d", ev.Seq, ev.ID, ev.SessionID, ev.V)
		}
		if ev.TS.Before(prev) {
			t.Errorf("seq %d: ts %s goes back from %s", ev.Seq, ev.TS, prev)
		}
		prev = ev.TS
		if transcript.Paired(ev.Type) && ev.CallID == "" {
			t.Errorf("seq %d: %s without call_id", ev.Seq, ev.Type)
		}
		if (ev.Type == transcript.TypeToolCall || ev.Type == transcript.TypeBashStart) && !strings.HasPrefix(ev.CallID, "toolu_01") {
			t.Errorf("seq %d: call_id %q is not a Claude tool_use id", ev.Seq, ev.CallID)
		}
	}
	span := events[len(events)-1].TS.Sub(events[0].TS)
	if span < 5*time.Minute || span > 7*time.Minute {
		t.Errorf("session spans %s, want about six minutes", span)
	}
}

func TestEveryKindPresent(t *testing.T) {
	seen := map[transcript.Type]int{}
	for _, ev := range readSession(t) {
		seen[ev.Type]++
	}
	for _, k := range transcript.KnownTypes() {
		if seen[k] == 0 {
			t.Errorf("no %s event", k)
		}
	}
}

// pairs checks that every first half of kind open is followed by exactly
// one second half of kind close with the same call_id, and returns the
// complete pairs by call_id.
func pairs(t *testing.T, events []*transcript.Event, open, close transcript.Type) map[string][2]*transcript.Event {
	t.Helper()
	out := map[string][2]*transcript.Event{}
	for _, ev := range events {
		p := out[ev.CallID]
		switch ev.Type {
		case open:
			if p[0] != nil {
				t.Errorf("seq %d: second %s for call %s", ev.Seq, open, ev.CallID)
			}
			p[0] = ev
		case close:
			if p[0] == nil {
				t.Errorf("seq %d: %s for call %s with no %s before it", ev.Seq, close, ev.CallID, open)
			}
			if p[1] != nil {
				t.Errorf("seq %d: second %s for call %s", ev.Seq, close, ev.CallID)
			}
			p[1] = ev
		default:
			continue
		}
		out[ev.CallID] = p
	}
	for id, p := range out {
		if p[0] != nil && p[1] == nil {
			t.Errorf("%s %s (seq %d) has no %s", open, id, p[0].Seq, close)
		}
		if p[0] == nil || p[1] == nil {
			delete(out, id) // reported above; callers see complete pairs only
		}
	}
	return out
}

func TestToolCalls(t *testing.T) {
	events := readSession(t)
	tools := map[string]int{}
	errorsSeen, longOutputs := 0, 0
	for id, p := range pairs(t, events, transcript.TypeToolCall, transcript.TypeToolResult) {
		call, res := p[0].Body.(*transcript.ToolCall), p[1].Body.(*transcript.ToolResult)
		if call.Tool != res.Tool {
			t.Errorf("call %s: tool %q, result of %q", id, call.Tool, res.Tool)
		}
		var input map[string]any
		if err := json.Unmarshal(call.Input, &input); err != nil {
			t.Errorf("call %s: input is not a JSON object: %v", id, err)
		}
		if call.Tool == "Edit" && (input["old_string"] == nil || input["new_string"] == nil) {
			t.Errorf("Edit %s: input %v lacks old_string or new_string", id, input)
		}
		tools[call.Tool]++
		if res.IsError {
			errorsSeen++
		}
		if strings.Count(res.Output, "\n") >= 200 {
			longOutputs++
		}
	}
	for _, tool := range []string{"Read", "Grep", "Edit", "Write", "WebFetch"} {
		if tools[tool] == 0 {
			t.Errorf("no %s call", tool)
		}
	}
	if errorsSeen == 0 || longOutputs == 0 {
		t.Errorf("%d error results and %d results of 200+ lines, want at least one of each", errorsSeen, longOutputs)
	}
}

func TestBashRuns(t *testing.T) {
	events := readSession(t)
	var failedWithStderr, timedOut, threeThousand, truncated int
	for id, p := range pairs(t, events, transcript.TypeBashStart, transcript.TypeBashRun) {
		start, run := p[0].Body.(*transcript.BashStart), p[1].Body.(*transcript.BashRun)
		if start.Command != run.Command || p[0].AgentID != p[1].AgentID {
			t.Errorf("call %s: start %q by %s, run %q by %s", id, start.Command, p[0].AgentID, run.Command, p[1].AgentID)
		}
		switch {
		case run.TimedOut:
			if run.ExitCode == nil && run.Stdout != "" {
				timedOut++
			}
		case run.ExitCode == nil:
			t.Errorf("call %s: no exit code but not timed out", id)
		case *run.ExitCode == 1 && strings.HasPrefix(run.Command, "go test") && run.Stderr != "":
			failedWithStderr++
		}
		if strings.Count(run.Stdout, "\n") == 3000 && !run.OutputTruncated {
			threeThousand++
		}
		if run.OutputTruncated && run.OutputTruncatedBytes != nil && *run.OutputTruncatedBytes > 0 {
			truncated++
		}
	}
	if failedWithStderr == 0 || timedOut == 0 || threeThousand == 0 || truncated == 0 {
		t.Errorf("failing go test with stderr %d, timed out with partial output %d, 3,000-line stdout %d, truncated %d: want at least one of each",
			failedWithStderr, timedOut, threeThousand, truncated)
	}
}

func TestApprovals(t *testing.T) {
	events := readSession(t)
	bashStarts := map[string]int64{}
	for _, ev := range events {
		if ev.Type == transcript.TypeBashStart || ev.Type == transcript.TypeBashRun {
			bashStarts[ev.CallID] = ev.Seq
		}
	}
	var approved, denied int
	for id, p := range pairs(t, events, transcript.TypeApprovalRequest, transcript.TypeApprovalDecision) {
		req, dec := p[0].Body.(*transcript.ApprovalRequest), p[1].Body.(*transcript.ApprovalDecision)
		if req.RequestID == "" || req.RequestID != dec.RequestID {
			t.Errorf("call %s: request id %q, decision for %q", id, req.RequestID, dec.RequestID)
		}
		v := req.Verdict
		if v == nil || v.Decision != "ask" || v.Tier == "" || v.Rule == "" || len(v.Reasons) == 0 {
			t.Errorf("call %s: verdict %+v, want decision ask with tier, rule and reasons", id, v)
		}
		if req.ExpiresAt == nil || !req.ExpiresAt.After(p[0].TS) {
			t.Errorf("call %s: expires_at %v is not after the request", id, req.ExpiresAt)
		}
		ran, hasRun := bashStarts[id]
		switch dec.Decision {
		case transcript.DecisionApprove:
			if dec.Scope != transcript.ScopeOnce || dec.By != "tui" || !hasRun || ran < p[1].Seq {
				t.Errorf("call %s: approved (scope %q by %q) but the command did not run after it", id, dec.Scope, dec.By)
			}
			approved++
		case transcript.DecisionDeny:
			if dec.Reason == "" || hasRun {
				t.Errorf("call %s: denied with reason %q, command ran: %v", id, dec.Reason, hasRun)
			}
			denied++
		}
	}
	if approved == 0 || denied == 0 {
		t.Errorf("%d approved and %d denied requests, want at least one of each", approved, denied)
	}
}

func TestDelegationNesting(t *testing.T) {
	open := map[string]string{} // delegation call_id -> sub-agent id
	inside := 0
	for _, ev := range readSession(t) {
		if d, ok := ev.Body.(*transcript.Delegation); ok {
			switch d.Phase {
			case transcript.PhaseStart:
				if d.SubAgentID == "" || d.Task == "" || d.AgentType == "" {
					t.Errorf("seq %d: delegation start %+v lacks sub-agent, task or type", ev.Seq, d)
				}
				open[ev.CallID] = d.SubAgentID
			case transcript.PhaseEnd:
				if _, ok := open[ev.CallID]; !ok {
					t.Errorf("seq %d: delegation end for %s, which is not open", ev.Seq, ev.CallID)
				}
				if d.Result == "" || d.Success == nil || !*d.Success {
					t.Errorf("seq %d: delegation end %+v lacks a result or success", ev.Seq, d)
				}
				delete(open, ev.CallID)
			}
			continue
		}
		if ev.ParentCallID == "" {
			if ev.AgentID != transcript.MainAgent {
				t.Errorf("seq %d: agent %q outside any delegation", ev.Seq, ev.AgentID)
			}
			continue
		}
		sub, ok := open[ev.ParentCallID]
		if !ok || ev.AgentID != sub {
			t.Errorf("seq %d: parent %s (open: %v), agent %q, want the open delegation's sub-agent %q",
				ev.Seq, ev.ParentCallID, ok, ev.AgentID, sub)
		}
		inside++
	}
	if len(open) != 0 {
		t.Errorf("delegations never ended: %v", open)
	}
	if inside == 0 {
		t.Error("no event inside a delegation")
	}
}

func TestChatTurns(t *testing.T) {
	var user, thinking, withUsage, assistant int
	var markdown strings.Builder
	for _, ev := range readSession(t) {
		turn, ok := ev.Body.(*transcript.ChatTurn)
		if !ok {
			continue
		}
		switch turn.Role {
		case transcript.RoleUser:
			user++
		case transcript.RoleAssistant:
			assistant++
			if turn.Thinking {
				thinking++
			}
			if turn.Usage != nil && turn.Usage.OutputTokens > 0 && turn.MessageID != "" && turn.Model != "" {
				withUsage++
			}
			markdown.WriteString(turn.Text)
		}
	}
	if user == 0 || thinking == 0 || withUsage != assistant {
		t.Errorf("%d user turns, %d thinking turns, %d of %d assistant turns with usage", user, thinking, withUsage, assistant)
	}
	for _, want := range []string{"## ", "\n- ", "\n1. ", "```go\n", "`"} {
		if !strings.Contains(markdown.String(), want) {
			t.Errorf("assistant markdown has no %q", want)
		}
	}
}

func TestSessionEndCounts(t *testing.T) {
	events := readSession(t)
	last := events[len(events)-1]
	end, ok := last.Body.(*transcript.SessionEnd)
	if !ok {
		t.Fatalf("last event is %s, want session_end", last.Type)
	}
	if end.Status != transcript.StatusComplete || end.Counts == nil {
		t.Fatalf("session_end %+v, want status complete with counts", end)
	}
	// Counted the one way every view counts (transcript.Tally), so the
	// demo's list row, header and end agree.
	var c transcript.Tally
	for _, ev := range events[:len(events)-1] {
		c.Add(ev)
	}
	want := transcript.Counts{Events: c.Events + 1, Turns: c.Turns, ToolCalls: c.ToolCalls, Commands: c.Commands,
		Failures: c.Failures(), TimedOut: c.CommandsTimedOut, Approvals: c.Approvals}
	if *end.Counts != want {
		t.Errorf("session_end counts = %+v, counted %+v", *end.Counts, want)
	}
}

func TestGeneratorReproducesFile(t *testing.T) {
	got, err := script.Generate()
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	if !bytes.Equal(got, session) {
		t.Fatalf("assets/demo/session.jsonl is stale (%d bytes, generator gives %d): run "+
			"go run ./assets/demo/internal/gen > assets/demo/session.jsonl", len(session), len(got))
	}
	if script.SessionID != SessionID {
		t.Errorf("generator's session id %q, package's %q", script.SessionID, SessionID)
	}
}

func TestSessionReturnsCopy(t *testing.T) {
	a := Session()
	a[0] = 'X'
	if b := Session(); b[0] != '{' {
		t.Errorf("Session() returned shared bytes: first byte %q after a caller changed its copy", b[0])
	}
}
