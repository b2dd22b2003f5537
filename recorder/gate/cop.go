package gate

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// copRequestType is the message type of a bash check, as in the IPC
// protocol of seed 004.
const copRequestType = "security:bash_check"

// CopRequest is what the cop receives on standard input.
type CopRequest struct {
	Type             string   `json:"type"`
	RequestID        string   `json:"request_id"`
	Command          string   `json:"command"`
	Taint            []string `json:"taint"`
	WorkingDirectory string   `json:"working_directory,omitempty"`
}

// CopVerdict is the cop's answer: {"flagged": true, "reason": "..."}.
type CopVerdict struct {
	Flagged bool   `json:"flagged"`
	Reason  string `json:"reason,omitempty"`
	// Error is set in a Result when the cop failed and a person decides.
	Error string `json:"error,omitempty"`
}

// Cop reviews a command for a tainted agent: does it exfiltrate data or
// reach the network?
type Cop interface {
	Inspect(ctx context.Context, req CopRequest) (CopVerdict, error)
}

// CommandCop is a cop run as an external command: the request as JSON on
// standard input, the verdict as JSON on standard output.
type CommandCop struct {
	// Command is run with /bin/sh -c.
	Command string
	// Timeout bounds one review; zero means DefaultCopTimeout.
	Timeout time.Duration
}

var _ Cop = (*CommandCop)(nil)

// Inspect runs the cop. A cop that times out, exits non-zero or answers
// something other than a verdict is an error.
func (c *CommandCop) Inspect(ctx context.Context, req CopRequest) (CopVerdict, error) {
	if req.RequestID == "" {
		req.RequestID = newRequestID()
	}
	if req.Type == "" {
		req.Type = copRequestType
	}
	if req.Taint == nil {
		req.Taint = []string{}
	}
	in, err := json.Marshal(req)
	if err != nil {
		return CopVerdict{}, fmt.Errorf("encode cop request: %w", err)
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultCopTimeout
	}
	res, err := runHelper(ctx, c.Command, in, timeout)
	if err != nil {
		return CopVerdict{}, fmt.Errorf("cop: %w", err)
	}
	if res.code != 0 {
		return CopVerdict{}, fmt.Errorf("cop %q exited with status %d: %s", c.Command, res.code, tail(res.stderr))
	}
	return parseCopVerdict(res.stdout)
}

// parseCopVerdict reads {"flagged": bool, "reason": "..."}, tolerating text
// around the object as language models produce.
func parseCopVerdict(out []byte) (CopVerdict, error) {
	start, end := bytes.IndexByte(out, '{'), bytes.LastIndexByte(out, '}')
	if start < 0 || end < start {
		return CopVerdict{}, fmt.Errorf("cop answered %q, not a JSON object like {\"flagged\": false, \"reason\": \"…\"}", tail(out))
	}
	var raw struct {
		Flagged *bool  `json:"flagged"`
		Reason  string `json:"reason"`
	}
	if err := json.Unmarshal(out[start:end+1], &raw); err != nil {
		return CopVerdict{}, fmt.Errorf("cop answer is not valid JSON: %w", err)
	}
	if raw.Flagged == nil {
		return CopVerdict{}, fmt.Errorf("cop answer has no boolean \"flagged\" field: %s", tail(out))
	}
	return CopVerdict{Flagged: *raw.Flagged, Reason: raw.Reason}, nil
}

// newRequestID returns 128 random bits in hex.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}
