package claudehook

import "encoding/json"

// Permission decisions a PreToolUse hook may give.
const (
	PermissionAllow = "allow"
	PermissionDeny  = "deny"
	PermissionAsk   = "ask"
)

// maxReason bounds the reason text; Claude Code caps hook output strings
// at 10,000 characters.
const maxReason = 9000

// Output is what the hook prints: for PreToolUse, a permission decision;
// nil means print nothing (no decision: Claude Code's own flow applies).
type Output struct {
	HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string    `json:"systemMessage,omitempty"`
}

type specific struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// UpdatedInput replaces the tool's whole input: an allowed command
	// rewritten to run in cuff's sandbox.
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
}

// decision builds a PreToolUse answer.
func decision(permission, reason string) *Output {
	if len(reason) > maxReason {
		reason = reason[:maxReason] + "…"
	}
	return &Output{HookSpecificOutput: &specific{HookEventName: EventPreToolUse,
		PermissionDecision: permission, PermissionDecisionReason: reason}}
}

// Permission is the decision an output carries, "" for none.
func (o *Output) Permission() string {
	if o == nil || o.HookSpecificOutput == nil {
		return ""
	}
	return o.HookSpecificOutput.PermissionDecision
}

// Marshal encodes the output for stdout; nil encodes to nothing.
func (o *Output) Marshal() []byte {
	if o == nil {
		return nil
	}
	data, _ := json.Marshal(o) // plain strings always encode
	return append(data, '\n')
}

// SetupFailure is the answer when cuff cannot set itself up for an event
// (an unreadable settings or policy file, a store it cannot open): a shell
// command then waits for the person (ask), with what is wrong, so that a
// broken file never lets commands through unchecked; other events get no
// answer.
func SetupFailure(in *Input, err error) *Output {
	if in == nil || in.HookEventName != EventPreToolUse || !isBash(in.ToolName) {
		return nil
	}
	return checkFailure(err, " — fix it, then `cuff policy check` shows whether cuff can read the policy")
}

// CheckFailure is the answer when checking a shell command failed on the
// way (cuff itself broke): fail closed, the command asks.
func CheckFailure(in *Input, err error) *Output {
	if in == nil || in.HookEventName != EventPreToolUse || !isBash(in.ToolName) {
		return nil
	}
	return checkFailure(err, "")
}

func checkFailure(err error, hint string) *Output {
	out := decision("ask", "cuff cannot check this command, so it asks: "+err.Error()+hint)
	out.SystemMessage = "cuff: " + err.Error()
	return out
}
