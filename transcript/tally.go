package transcript

// Tally is what every view of a session counts — the session list, record
// show, the exports, the TUI's header and filters — counted one way, by Add.
//
// A turn is a message with text from the person or an agent (sub-agents
// included): a chat_turn of role user or assistant that has text and is
// not reasoning, context the agent was given, or only token usage. A slash
// command the person typed is a turn; what it expanded to is not.
//
// A failure is a command that did not succeed (a non-zero exit, a
// timeout, an interruption, a refusal, or no start at all), a tool call
// whose result is an error, or a sub-agent that reported failure. A
// command left running in the background has no outcome yet: it is not a
// failure.
type Tally struct {
	Events            int64
	Turns             int64
	ToolCalls         int64
	ToolErrors        int64 // tool results that are errors, and sub-agents that failed
	Commands          int64
	CommandsSucceeded int64
	CommandsFailed    int64 // failed, not timed out
	CommandsTimedOut  int64
	Background        int64 // commands left running in the background
	Approvals         int64
	Delegations       int64
}

// Add counts one event.
func (t *Tally) Add(ev *Event) {
	t.Events++
	switch b := ev.Body.(type) {
	case *ChatTurn:
		if IsTurn(b) {
			t.Turns++
		}
	case *ToolCall:
		t.ToolCalls++
	case *ToolResult:
		if b.IsError {
			t.ToolErrors++
		}
	case *BashRun:
		t.Commands++
		switch {
		case b.InBackground():
			t.Background++
		case b.TimedOut:
			t.CommandsTimedOut++
		case b.Failed():
			t.CommandsFailed++
		default:
			t.CommandsSucceeded++
		}
	case *ApprovalRequest:
		t.Approvals++
	case *Delegation:
		switch {
		case b.Phase == PhaseStart:
			t.Delegations++
		case b.Failed():
			t.ToolErrors++
		}
	}
}

// Merge adds another tally's counts.
func (t *Tally) Merge(o Tally) {
	t.Events += o.Events
	t.Turns += o.Turns
	t.ToolCalls += o.ToolCalls
	t.ToolErrors += o.ToolErrors
	t.Commands += o.Commands
	t.CommandsSucceeded += o.CommandsSucceeded
	t.CommandsFailed += o.CommandsFailed
	t.CommandsTimedOut += o.CommandsTimedOut
	t.Background += o.Background
	t.Approvals += o.Approvals
	t.Delegations += o.Delegations
}

// Failures is every failure: commands that failed or timed out, and tool
// calls that returned an error.
func (t Tally) Failures() int64 { return t.CommandsFailed + t.CommandsTimedOut + t.ToolErrors }

// IsTurn reports whether a chat_turn is a turn (see Tally).
func IsTurn(b *ChatTurn) bool {
	if b.Text == "" || b.Thinking || (b.Role != RoleUser && b.Role != RoleAssistant) {
		return false
	}
	return b.Context == "" || b.Context == ContextCommand
}

// Failed reports whether an event is a failure (see Tally): a command
// that did not succeed, a tool result that is an error, the end of a
// sub-agent that failed.
func Failed(ev *Event) bool {
	switch b := ev.Body.(type) {
	case *BashRun:
		return b.Failed()
	case *ToolResult:
		return b.IsError
	case *Delegation:
		return b.Failed()
	}
	return false
}

// Failed reports whether this is the end of a sub-agent that failed.
func (d *Delegation) Failed() bool { return d.Phase == PhaseEnd && d.Success != nil && !*d.Success }
