package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cuff-dev/cuff/recorder/gate"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// formatVersion is the "v" field of request and decision files.
const formatVersion = 1

// idBytes is the size of a request id: 128 random bits, 32 hex digits.
const idBytes = 16

// Deciders: who answered a request.
const (
	ByTUI     = "tui"
	ByCLI     = "cli"
	ByPolicy  = "policy"
	ByTimeout = "timeout"
	ByMCP     = "mcp"
	ByAgent   = "agent"
)

// NewID returns a fresh request id: 128 random bits in lower-case hex.
func NewID() string { return randomHex(idBytes) }

// ValidID reports whether id is a well-formed request id (32 lower-case hex
// digits). Only valid ids ever touch a path.
func ValidID(id string) bool {
	if len(id) != 2*idBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// SessionRef names the recorded session a request belongs to, so that any
// decider can append the decision to it.
type SessionRef struct {
	// Dir is the project's .cuff directory; "always" rules go to its
	// policy.yml.
	Dir string `json:"dir,omitempty"`
	// Recordings is the store's recordings directory (Dir/recordings unless
	// the settings name another).
	Recordings string `json:"recordings,omitempty"`
	// ID is the native session id.
	ID string `json:"id,omitempty"`
}

// Request is a gated command waiting for a person: the contents of
// approvals/pending/<id>.json.
type Request struct {
	V  int    `json:"v"`
	ID string `json:"request_id"`
	// CallID pairs the approval_request and approval_decision events.
	CallID  string     `json:"call_id"`
	Session SessionRef `json:"session"`
	// AgentSession identifies the agent's own session (such as
	// "claude:<uuid>"): session-scoped grants are kept under it.
	AgentSession string `json:"agent_session,omitempty"`
	// Agent is the agent product, such as claude-code.
	Agent string `json:"agent,omitempty"`
	// AgentID and ParentCallID place the events inside a sub-agent.
	AgentID          string             `json:"agent_id,omitempty"`
	ParentCallID     string             `json:"parent_call_id,omitempty"`
	Tool             string             `json:"tool,omitempty"`
	Command          string             `json:"command,omitempty"`
	WorkingDirectory string             `json:"working_directory,omitempty"`
	Verdict          transcript.Verdict `json:"verdict"`
	// Parts are the simple commands of a compound command that ask or
	// deny, each with its reasons, so that a person sees all of them.
	Parts []Part `json:"parts,omitempty"`
	// Description is what the agent said the command is for.
	Description string `json:"description,omitempty"`
	// SessionTitle is the asking agent session's title, when it has one.
	SessionTitle string `json:"session_title,omitempty"`
	// NotAlways says why "always" is not offered for the command.
	NotAlways string `json:"not_always,omitempty"`
	// TrustNote says what of the project's .cuff files waits to be trusted.
	TrustNote string    `json:"trust_note,omitempty"`
	Taint     []string  `json:"taint,omitempty"`
	Diff      string    `json:"diff,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
	// PID is the requesting process.
	PID int `json:"pid,omitempty"`
}

// Part is one simple command of a request that asks or denies.
type Part struct {
	Text    string   `json:"text"`
	Verdict string   `json:"verdict"`
	Reasons []string `json:"reasons,omitempty"`
}

// PartsOf lists the parts of a gate result that ask or deny.
func PartsOf(res gate.Result) []Part {
	var out []Part
	for _, c := range res.Commands {
		if c.Verdict >= gate.VerdictAsk {
			out = append(out, Part{Text: c.Text, Verdict: c.Verdict.String(), Reasons: c.Reasons})
		}
	}
	return out
}

// Decision answers a request: the contents of approvals/decided/<id>.json.
type Decision struct {
	V         int    `json:"v"`
	RequestID string `json:"request_id"`
	// Decision is approve, deny or timeout.
	Decision string `json:"decision"`
	// Scope is once, session or always for an approval.
	Scope     string    `json:"scope,omitempty"`
	By        string    `json:"by"`
	Reason    string    `json:"reason,omitempty"`
	RuleAdded string    `json:"rule_added,omitempty"`
	DecidedAt time.Time `json:"decided_at"`
	PID       int       `json:"pid,omitempty"`
	// Recorded is set once the decider has written the approval_decision
	// event, so a waiter records what follows after it.
	Recorded bool `json:"recorded,omitempty"`
}

// answers reports whether d can be the decision on r: made after r was
// filed, not ahead of the clock by more than the skew allowed.
func (d *Decision) answers(r *Request) bool {
	return d.RequestID == r.ID && !d.DecidedAt.Before(r.CreatedAt.Add(-clockSkew))
}

// Approved reports whether the command may run.
func (d *Decision) Approved() bool { return d != nil && d.Decision == transcript.DecisionApprove }

// Short is the first characters of a request id, as listings show it.
func Short(id string) string {
	const shortLen = 12
	if len(id) > shortLen {
		return id[:shortLen]
	}
	return id
}

// ParseRequest reads a request file. Anything that is not a complete,
// well-formed request is an error saying what is wrong.
func ParseRequest(data []byte) (*Request, error) {
	var r Request
	if err := decodeStrict(data, &r); err != nil {
		return nil, fmt.Errorf("approval request: %w", err)
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("approval request: %w", err)
	}
	return &r, nil
}

func (r *Request) validate() error {
	switch {
	case r.V != formatVersion:
		return fmt.Errorf("version %d, expected %d", r.V, formatVersion)
	case !ValidID(r.ID):
		return fmt.Errorf("request_id %q is not 32 hex digits", r.ID)
	case r.CallID == "":
		return fmt.Errorf("request %s has no call_id", r.ID)
	case r.Command == "" && r.Tool == "":
		return fmt.Errorf("request %s names neither a command nor a tool", r.ID)
	case r.CreatedAt.IsZero() || r.ExpiresAt.IsZero():
		return fmt.Errorf("request %s lacks created_at or expires_at", r.ID)
	case r.ExpiresAt.Before(r.CreatedAt):
		return fmt.Errorf("request %s expires before it was created", r.ID)
	case r.PID < 0:
		return fmt.Errorf("request %s has a negative pid", r.ID)
	}
	return r.Session.validate()
}

func (s SessionRef) validate() error {
	for _, p := range []string{s.Dir, s.Recordings} {
		if p != "" && !filepath.IsAbs(p) {
			return fmt.Errorf("session directory %q is not absolute", p)
		}
	}
	if s.ID == "" {
		return nil
	}
	if !session.ValidID(s.ID) {
		return fmt.Errorf("session id %q is not a native session id", s.ID)
	}
	if s.Recordings == "" {
		return fmt.Errorf("session %s names no recordings directory", s.ID)
	}
	return nil
}

// ParseDecision reads a decision file. Anything that is not a complete,
// well-formed decision is an error saying what is wrong.
func ParseDecision(data []byte) (*Decision, error) {
	var d Decision
	if err := decodeStrict(data, &d); err != nil {
		return nil, fmt.Errorf("approval decision: %w", err)
	}
	if err := d.validate(); err != nil {
		return nil, fmt.Errorf("approval decision: %w", err)
	}
	return &d, nil
}

func (d *Decision) validate() error {
	switch {
	case d.V != formatVersion:
		return fmt.Errorf("version %d, expected %d", d.V, formatVersion)
	case !ValidID(d.RequestID):
		return fmt.Errorf("request_id %q is not 32 hex digits", d.RequestID)
	case d.DecidedAt.IsZero():
		return fmt.Errorf("decision for %s lacks decided_at", d.RequestID)
	case d.PID < 0:
		return fmt.Errorf("decision for %s has a negative pid", d.RequestID)
	}
	switch d.Decision {
	case transcript.DecisionApprove:
		if err := checkScope(d.Scope); err != nil {
			return err
		}
	case transcript.DecisionDeny, transcript.DecisionTimeout:
	default:
		return fmt.Errorf("decision %q is not approve, deny or timeout", d.Decision)
	}
	return checkBy(d.By)
}

func checkScope(s string) error {
	switch s {
	case transcript.ScopeOnce, transcript.ScopeSession, transcript.ScopeAlways:
		return nil
	}
	return fmt.Errorf("scope %q is not once, session or always", s)
}

func checkBy(by string) error {
	switch by {
	case ByTUI, ByCLI, ByPolicy, ByTimeout, ByMCP, ByAgent:
		return nil
	}
	return fmt.Errorf("decider %q is not tui, cli, policy, timeout, mcp or agent", by)
}

// decodeStrict decodes one JSON object and nothing after it, in the shape
// cuff writes it: a field cuff does not write makes the file not count.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("extra data after the JSON object")
	}
	return nil
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Event is the approval_request event for the request, as the requester
// records it and the TUI shows it.
func (r *Request) Event() *transcript.Event {
	exp := r.ExpiresAt.UTC()
	verdict := r.Verdict
	ev := transcript.New(r.Session.ID, r.CreatedAt, &transcript.ApprovalRequest{
		RequestID: r.ID, Tool: r.Tool, Command: r.Command, Verdict: &verdict,
		Taint: r.Taint, ExpiresAt: &exp, Diff: r.Diff,
	})
	r.envelope(ev)
	return ev
}

// DecisionEvent is the approval_decision event for decision d of the
// request.
func (r *Request) DecisionEvent(d *Decision) *transcript.Event {
	ev := transcript.New(r.Session.ID, d.DecidedAt, &transcript.ApprovalDecision{
		RequestID: r.ID, Decision: d.Decision, Scope: d.Scope, By: d.By, Reason: d.Reason, RuleAdded: d.RuleAdded,
	})
	r.envelope(ev)
	return ev
}

func (r *Request) envelope(ev *transcript.Event) {
	ev.CallID = r.CallID
	ev.ParentCallID = r.ParentCallID
	if r.AgentID != "" {
		ev.AgentID = r.AgentID
	}
}
