package mcpserver

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askPolicy makes "echo gated ..." a command that needs approval, so that
// the tests never reach for the network.
const askPolicy = `rules:
  - match: "echo gated *"
    action: ask
    reason: "gated for the test"
  - match: "rm -rf *"
    action: deny
    reason: "never wipe directories"
`

// decider plays a person at a TUI: it keeps a heartbeat (so that a watcher
// counts) and answers every request with answer.
func decider(t *testing.T, stateDir string, answer approval.Answer) *atomic.Int32 {
	t.Helper()
	b := approval.New(stateDir)
	ctx, cancel := context.WithCancel(context.Background())
	stop, err := b.StartHeartbeat(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.Watch(ctx, func(u approval.Update) {
			if u.Kind != approval.Requested {
				return
			}
			asked.Add(1)
			if _, err := b.Decide(u.Request.ID, answer); err != nil {
				t.Errorf("decide: %v", err)
			}
		})
	}()
	t.Cleanup(func() {
		stop()
		cancel()
		<-done
	})
	return &asked
}

func TestGateDenyRule(t *testing.T) {
	p := newProject(t, "")
	p.write(t, "policy.yml", askPolicy)
	ts := serve(t, p, nil, nil, "")
	res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "rm -rf build"}, nil)
	if !res.IsError || !strings.Contains(text(res), "cuff's gate denied this command") || !strings.Contains(text(res), "never wipe directories") {
		t.Errorf("deny rule: %s", text(res))
	}
	for id, evs := range events(t, p.dir) {
		if len(ofType(evs, transcript.TypeBashStart)) > 0 {
			t.Errorf("a denied command was started (session %s)", id)
		}
	}
}

func TestNoWatcherDeniesAtOnce(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "curl http://example.invalid"}, mcpMeta("conv-nw"))
	msg := text(res)
	if !res.IsError || !strings.Contains(msg, "no cuff TUI is watching") || !strings.Contains(msg, "curl talks to other machines") {
		t.Fatalf("no watcher: %s", msg)
	}
	var found bool
	for _, evs := range events(t, p.dir) {
		reqs, decs := ofType(evs, transcript.TypeApprovalRequest), ofType(evs, transcript.TypeApprovalDecision)
		if len(reqs) == 0 {
			continue
		}
		found = true
		if len(decs) != 1 || len(ofType(evs, transcript.TypeBashStart)) != 0 {
			t.Fatalf("events: %d decisions, %d starts", len(decs), len(ofType(evs, transcript.TypeBashStart)))
		}
		d := decs[0].Body.(*transcript.ApprovalDecision)
		if d.Decision != transcript.DecisionDeny || d.By != approval.ByPolicy || reqs[0].CallID != decs[0].CallID {
			t.Errorf("decision = %+v", d)
		}
		if reqs[0].ConversationID != "conv-nw" && evs[0].ConversationID != "conv-nw" {
			t.Errorf("approval recorded outside the conversation's session")
		}
	}
	if !found {
		t.Error("the approval request was not recorded")
	}
}

func TestNoWatcherAllowSetting(t *testing.T) {
	p := newProject(t, "approvals:\n  mcp_no_watcher: allow\n")
	p.write(t, "policy.yml", askPolicy)
	ts := serve(t, p, nil, nil, "")
	res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "echo gated ok"}, nil)
	if res.IsError || !strings.Contains(text(res), `"stdout":"gated ok\n"`) {
		t.Errorf("allowed without watcher: %s", text(res))
	}
}

func TestApprovedThroughBroker(t *testing.T) {
	p := newProject(t, "")
	p.write(t, "policy.yml", askPolicy)
	asked := decider(t, p.state, approval.Approve("session", approval.ByTUI))
	ts := serve(t, p, nil, nil, "")
	meta := mcpMeta("conv-ok")
	res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "echo gated yes"}, meta)
	var out ExecuteResult
	decode(t, res, &out)
	if res.IsError || out.Stdout != "gated yes\n" || out.SessionID == nil {
		t.Fatalf("approved: %s", text(res))
	}
	evs := events(t, p.dir)[*out.SessionID]
	// The decider records its decision after publishing it, so the
	// decision event may land just after the command's start.
	pos := map[transcript.Type]int{}
	for i, ev := range evs {
		if _, seen := pos[ev.Type]; !seen {
			pos[ev.Type] = i
		}
	}
	for _, typ := range []transcript.Type{transcript.TypeApprovalRequest, transcript.TypeApprovalDecision, transcript.TypeBashStart, transcript.TypeBashRun} {
		if _, ok := pos[typ]; !ok {
			t.Errorf("no %s in the session", typ)
		}
	}
	if pos[transcript.TypeApprovalRequest] > pos[transcript.TypeBashStart] || pos[transcript.TypeBashStart] > pos[transcript.TypeBashRun] {
		t.Errorf("events out of order: %v", pos)
	}
	// Approved for the session: the same command runs without asking again.
	res = ts.call(t, "bash_recorder.execute", map[string]any{"command": "echo gated yes"}, meta)
	if res.IsError || asked.Load() != 1 {
		t.Errorf("second run: asked %d times, %s", asked.Load(), text(res))
	}
}

func TestDeniedThroughBroker(t *testing.T) {
	p := newProject(t, "")
	p.write(t, "policy.yml", askPolicy)
	decider(t, p.state, approval.Deny("not today", approval.ByTUI))
	ts := serve(t, p, nil, nil, "")
	res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "echo gated no"}, nil)
	if !res.IsError || !strings.Contains(text(res), "denied by the user in cuff's TUI: not today") {
		t.Errorf("denied: %s", text(res))
	}
}

func mcpMeta(conv string) map[string]any { return map[string]any{"conversation_id": conv} }

// TestElicitation checks that with no TUI watching, a client that can show
// forms is asked instead, under both protocol eras.
func TestElicitation(t *testing.T) {
	for _, version := range []string{"2025-11-25", ""} {
		for _, approve := range []bool{true, false} {
			p := newProject(t, "")
			p.write(t, "policy.yml", askPolicy)
			var asked atomic.Int32
			copts := &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				if !strings.Contains(req.Params.Message, "echo gated form") {
					t.Errorf("question: %q", req.Params.Message)
				}
				if !approve {
					return &mcp.ElicitResult{Action: "decline"}, nil
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}}
			ts := serve(t, p, nil, copts, version)
			res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "echo gated form"}, nil)
			switch {
			case asked.Load() != 1:
				t.Errorf("%q: asked %d times", version, asked.Load())
			case approve && (res.IsError || !strings.Contains(text(res), `"stdout":"gated form\n"`)):
				t.Errorf("%q approved: %s", version, text(res))
			case !approve && (!res.IsError || !strings.Contains(text(res), "not run: the MCP client declined") || strings.Contains(text(res), "by the user")):
				t.Errorf("%q declined: %s", version, text(res))
			}
			var by []string
			for _, evs := range events(t, p.dir) {
				for _, ev := range ofType(evs, transcript.TypeApprovalDecision) {
					by = append(by, ev.Body.(*transcript.ApprovalDecision).By)
				}
			}
			if len(by) != 1 || by[0] != approval.ByMCP {
				t.Errorf("%q: decisions by %v", version, by)
			}
		}
	}
}
