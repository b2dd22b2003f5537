package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/cuff-dev/cuff/internal/settings"
	"github.com/cuff-dev/cuff/recorder"
	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hookEvent is the event name extra before-tool-use hooks receive.
const hookEvent = "PreToolUse"

// call is what the server knows about one tool call.
type call struct {
	req    *mcp.CallToolRequest
	tool   string // the tool's registered name
	corr   recorder.Correlation
	agent  string // the client's name
	input  json.RawMessage
	callID string
	// approved is set when a person approved this command (in the TUI, from
	// a shell, through the client's form, or for the session): it then runs
	// outside the sandbox, exactly as approved.
	approved bool
}

// agentKey is the agent session that session-scoped approvals and taint
// belong to: the call's conversation.
func (s *Server) agentKey(c recorder.Correlation) string {
	return "mcp:" + c.ConversationID
}

// deniedError is a command the gate or a person refused; its message goes
// back to the agent.
type deniedError struct{ msg string }

func (e *deniedError) Error() string { return e.msg }

// authorize runs command through the gate and, when the gate asks, through
// a person's approval. It returns nothing when the command may run, a
// *deniedError saying why it may not, or a result that asks the client's
// user (multi round-trip), which the handler returns as is. script relaxes
// the verdict for exposed scripts: only the project's rules decide about
// them, since exposing a script in the settings is the approval to run it.
func (s *Server) authorize(ctx context.Context, c *config, g *generation, cl *call, command, dir string, script bool) (*mcp.CallToolResult, error) {
	cfg := c.settings()
	gt, err := c.gate(dir, s.opts.Home)
	if err != nil {
		return nil, &deniedError{msg: "cuff's gate could not be set up, so nothing runs: " + err.Error()}
	}
	key := s.agentKey(cl.corr)
	taintNames := c.broker.Taint(key)
	taint, _ := gate.ParseTaint(strings.Join(taintNames, ","))
	res := gt.Decide(ctx, command, gate.Input{Taint: taint, Sandboxed: c.sandbox.on()})
	verdict := res.Verdict
	if script {
		verdict = scriptVerdict(res)
	}
	why := explain(res)
	if verdict == gate.VerdictAllow && !c.sandbox.on() && c.sandbox.Setup.Required() {
		// gate.sandbox: always, and no sandbox: a person decides instead.
		verdict, why = gate.VerdictAsk, "gate.sandbox is always, but "+c.sandbox.Setup.Reason()
	}
	if len(cfg.Gate.Hooks) > 0 {
		hr := gt.RunHooks(ctx, gate.ToolRequest{Event: hookEvent, Tool: cl.tool, Input: cl.input, SessionID: key, Cwd: dir, Taint: taintNames})
		if combined := gate.Combine(verdict, hr); combined != verdict {
			if hr.Reason != "" {
				why = fmt.Sprintf("hook %s: %s", hr.Hook, hr.Reason)
			}
			verdict = combined
		}
	}
	log := c.log().With("command_tier", res.Tier.String(), "verdict", verdict.String(), "trace_id", cl.corr.ToolCallID)
	switch verdict {
	case gate.VerdictAllow, gate.VerdictNone:
		// No decision leaves the client's own permission flow in charge: it
		// asked before sending the call.
		return nil, nil
	case gate.VerdictDeny:
		log.Info("Command denied by the gate", "reason", why)
		return nil, &deniedError{msg: "cuff's gate denied this command: " + why}
	}
	if res.Grantable() && c.broker.Granted(key, command) {
		cl.approved = true
		return nil, nil
	}
	req := &approval.Request{
		CallID: cl.callID, AgentSession: key, Agent: cl.agent, AgentID: cl.corr.AgentID,
		Tool: cl.tool, Command: command, WorkingDirectory: dir, Taint: taintNames,
		Verdict: transcript.Verdict{Decision: gate.VerdictAsk.String(), Tier: res.Tier.String(), Rule: res.Rule, Reasons: res.Reasons},
		Parts:   approval.PartsOf(res), NotAlways: res.NotAlways,
		Session: approval.SessionRef{Dir: c.proj.Store.Dir, Recordings: c.proj.Store.Recordings},
	}
	if g != nil {
		req.Session.ID = g.sessionFor(cl.corr, cl.agent)
	}
	// With no TUI watching, a client that can show a form asks its user,
	// unless the settings let such commands run anyway.
	if cfg.Approvals.MCPNoWatcher != settings.AnswerAllow && canElicit(cl.req) && !c.broker.AnyWatcher() {
		d, input, err := s.elicit(c, cl, req, why)
		if d == nil || err != nil {
			return input, err
		}
		cl.approved = d.Approved()
		return nil, s.decided(log, d, why, c)
	}
	d, err := s.ask(ctx, c, req, why)
	if err != nil {
		return nil, err
	}
	cl.approved = d.Approved()
	return nil, s.decided(log, d, why, c)
}

// decided turns a decision into the call's outcome: nil when approved.
func (s *Server) decided(log *slog.Logger, d *approval.Decision, why string, c *config) error {
	log.Info("Approval decided", "decision", d.Decision, "by", d.By)
	if d.Approved() {
		return nil
	}
	return &deniedError{msg: denial(d, why, c.settings())}
}

// ask files the approval request and waits for the answer of a person, or
// answers at once by approvals.mcp_no_watcher when no one is watching.
func (s *Server) ask(ctx context.Context, c *config, req *approval.Request, why string) (*approval.Decision, error) {
	b := c.broker
	answer := c.settings().Approvals.MCPNoWatcher
	if b.AnyWatcher() || answer == settings.AnswerAsk {
		_, d, err := b.Ask(ctx, req)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, &deniedError{msg: "the call ended while the command waited for approval; it was not run"}
		case err != nil:
			return nil, &deniedError{msg: "the command needs approval but the request could not be filed, so it was not run: " + err.Error()}
		}
		return d, nil
	}
	r, err := b.Submit(req)
	var rec *approval.RecordError
	if errors.As(err, &rec) {
		c.log().Warn(rec.Error())
	} else if err != nil {
		return nil, &deniedError{msg: "the command needs approval but the request could not be filed, so it was not run: " + err.Error()}
	}
	ans := approval.Approve("once", approval.ByPolicy)
	if answer != settings.AnswerAllow {
		ans = approval.Deny(noWatcherReason, approval.ByPolicy)
	}
	d, err := b.Decide(r.ID, ans)
	if errors.As(err, &rec) {
		c.log().Warn(rec.Error())
	} else if err != nil {
		var already *approval.AlreadyDecidedError
		if !errors.As(err, &already) {
			return nil, &deniedError{msg: "the approval request could not be answered, so the command was not run: " + err.Error()}
		}
		d = already.Decision
	}
	return d, nil
}

// noWatcherReason is the reason of a denial because no one could be asked.
const noWatcherReason = "no cuff TUI is watching to approve it (approvals.mcp_no_watcher: deny)"

// denial is the message for a refused approval.
func denial(d *approval.Decision, why string, cfg *settings.Settings) string {
	switch {
	case d.Decision == transcript.DecisionTimeout || d.By == approval.ByTimeout:
		return fmt.Sprintf("no one answered the approval request within %s, so the command was not run (it needs approval: %s)",
			cfg.Approvals.Timeout, why)
	case d.By == approval.ByMCP:
		return fmt.Sprintf("not run: %s (it needs approval: %s). No cuff TUI was watching, so cuff asked the MCP client; "+
			"ask the user to run `cuff` in a terminal to approve such commands, or to allow them in .cuff/policy.yml", d.Reason, why)
	case d.Reason == noWatcherReason:
		return "denied: this command needs a person's approval (" + why + ") and " + noWatcherReason +
			". Ask the user to run `cuff` in a terminal to approve commands, or to allow it in .cuff/policy.yml"
	case d.Reason != "":
		return fmt.Sprintf("denied by %s: %s", deciderName(d.By), d.Reason)
	}
	return fmt.Sprintf("denied by %s (the command needs approval: %s)", deciderName(d.By), why)
}

func deciderName(by string) string {
	switch by {
	case approval.ByTUI:
		return "the user in cuff's TUI"
	case approval.ByCLI:
		return "the user with cuff deny"
	case approval.ByPolicy:
		return "cuff's policy"
	case approval.ByMCP:
		return "the MCP client"
	case approval.ByAgent:
		return "the agent"
	}
	return by
}

// explain says in one line why the gate decided as it did.
func explain(res gate.Result) string {
	why := strings.Join(res.Reasons, "; ")
	if why == "" {
		why = res.Tier.String()
	}
	if res.Rule != "" {
		why += " (rule " + res.Rule + ")"
	}
	if res.Cop != nil && res.Cop.Reason != "" {
		why += "; reviewer: " + res.Cop.Reason
	}
	return why
}

// scriptVerdict is the verdict on an exposed script: the project's deny and
// ask rules still apply; what the analysis thinks of running a script file
// does not, since the settings exposed this one.
func scriptVerdict(res gate.Result) gate.Verdict {
	switch res.Tier {
	case gate.TierDenyRule:
		return gate.VerdictDeny
	case gate.TierAskRule:
		return gate.VerdictAsk
	}
	return gate.VerdictAllow
}

// forgetGates drops the gates kept per working directory. A gate reads
// some files outside the work tree once (the user's git configuration for
// core.hooksPath and core.excludesFile), since no command it allows writes
// there; a command that ran outside the sandbox (approved by a person, or
// with no sandbox at all) may have, so the next command gets a new gate.
func (c *config) forgetGates() {
	c.gatesMu.Lock()
	defer c.gatesMu.Unlock()
	c.gates = nil
}

// maxGates bounds the gates a configuration keeps, one per working directory.
const maxGates = 32

// gate returns the gate for commands that start in dir, built once per
// directory: building one parses the built-in policy.
func (c *config) gate(dir, home string) (*gate.Gate, error) {
	c.gatesMu.Lock()
	defer c.gatesMu.Unlock()
	if g, ok := c.gates[dir]; ok {
		return g, nil
	}
	cfg := c.settings()
	g, err := gate.New(gate.Options{
		Mode: gate.Mode(cfg.Gate.Mode), Policy: c.policy, TrustedPolicy: c.proj.TrustedPolicy, CopCommand: cfg.Gate.Cop.Command,
		CopTimeout: cfg.Gate.Cop.Timeout, Hooks: cfg.Gate.Hooks, Workspace: c.root, Dir: dir, Home: home,
		Protected: c.proj.Protected,
	})
	if err != nil {
		return nil, err
	}
	if c.gates == nil || len(c.gates) >= maxGates {
		c.gates = map[string]*gate.Gate{}
	}
	c.gates[dir] = g
	return g, nil
}
