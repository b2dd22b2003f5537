package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cuff-dev/cuff/recorder/approval"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// approvalKey names the approval question in a multi round-trip tool call.
const approvalKey = "cuff_approval"

// maxElicits bounds the questions remembered for clients that never
// answered them.
const maxElicits = 256

// elicitSchema is the form the client shows: one yes/no field.
const elicitSchema = `{
  "type": "object",
  "properties": {
    "approve": {"type": "boolean", "title": "Run this command", "description": "Yes runs the command once; no refuses it", "default": false}
  },
  "required": ["approve"]
}`

// canElicit reports whether the client can put a form to its user.
func canElicit(req *mcp.CallToolRequest) bool {
	if req == nil {
		return false
	}
	caps := req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil && (caps.Elicitation.Form != nil || caps.Elicitation.URL == nil)
}

// elicit asks the client's user about a command when no TUI is watching.
// The first time it files the approval request and returns the question;
// the client asks its user and calls again with the answer, which decides
// the request (by "mcp"). It returns the decision once there is one.
func (s *Server) elicit(c *config, cl *call, req *approval.Request, why string) (*approval.Decision, *mcp.CallToolResult, error) {
	p := cl.req.Params
	if id := p.RequestState; id != "" {
		s.mu.Lock()
		command, ours := s.elicits[id]
		delete(s.elicits, id)
		s.mu.Unlock()
		res, answered := p.InputResponses[approvalKey].(*mcp.ElicitResult)
		switch {
		case ours && answered && command == req.Command:
			return s.decideElicited(c, id, res)
		case ours:
			_, _ = c.broker.Withdraw(id) // asked again without the answer: ask anew
		}
	}
	r, err := c.broker.Submit(req)
	var rec *approval.RecordError
	if errors.As(err, &rec) {
		c.log().Warn(rec.Error())
	} else if err != nil {
		return nil, nil, &deniedError{msg: "the command needs approval but the request could not be filed, so it was not run: " + err.Error()}
	}
	s.mu.Lock()
	if s.elicits == nil || len(s.elicits) >= maxElicits {
		s.elicits = map[string]string{}
	}
	s.elicits[r.ID] = req.Command
	s.mu.Unlock()
	msg := fmt.Sprintf("cuff: the agent wants to run\n\n    %s\n\nin %s\n\nIt needs approval: %s.\nRun it?", req.Command, req.WorkingDirectory, why)
	return nil, &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{approvalKey: &mcp.ElicitParams{Message: msg, RequestedSchema: json.RawMessage(elicitSchema)}},
		RequestState:  r.ID,
	}, nil
}

// decideElicited records the client user's answer to request id.
func (s *Server) decideElicited(c *config, id string, res *mcp.ElicitResult) (*approval.Decision, *mcp.CallToolResult, error) {
	var ans approval.Answer
	switch {
	case res.Action == "accept" && res.Content["approve"] == true:
		ans = approval.Approve("once", approval.ByMCP)
	case res.Action == "accept":
		ans = approval.Deny("the user in the MCP client answered no", approval.ByMCP)
	case res.Action == "cancel":
		ans = approval.Deny("the MCP client cancelled the question", approval.ByMCP)
	default:
		// Codex's exec mode declines every question itself: that the client
		// declined is all that is known.
		ans = approval.Deny("the MCP client declined", approval.ByMCP)
	}
	d, err := c.broker.Decide(id, ans)
	var rec *approval.RecordError
	var already *approval.AlreadyDecidedError
	switch {
	case errors.As(err, &rec):
		c.log().Warn(rec.Error())
	case errors.As(err, &already):
		d = already.Decision // someone else answered first: theirs stands
	case err != nil:
		return nil, nil, &deniedError{msg: "the answer could not be recorded, so the command was not run: " + err.Error()}
	}
	return d, nil, nil
}
