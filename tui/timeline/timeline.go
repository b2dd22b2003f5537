// Package timeline turns a session's events into the items the session
// view shows: the two halves of a call joined into one item, sub-agent
// delegations holding their own items, in display order. It is pure data:
// it renders nothing and does no I/O, so it can be built off the UI
// goroutine and handed over whole.
package timeline

import (
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// Kind is what an item shows.
type Kind uint8

// Item kinds.
const (
	KindSessionStart  Kind = iota // the session_start event
	KindUser                      // a user's prompt
	KindAssistant                 // an assistant's answer
	KindThinking                  // an assistant's reasoning block
	KindSystem                    // a system or developer message
	KindTool                      // a tool call with its result
	KindBash                      // a bash run, or a bash_start still running
	KindDelegation                // the head of a sub-agent's block
	KindDelegationEnd             // the result that closes a sub-agent's block
	KindApproval                  // an approval request with its decision
	KindSessionEnd                // the session_end event
	KindUnknown                   // an event of a kind this version does not know
	KindNotice                    // something cuff has to say: a bad line, a removed file
)

// Item is one entry of the timeline.
type Item struct {
	// ID is unique within the timeline and never reused.
	ID   int
	Kind Kind
	// Depth is how many delegations the item is inside.
	Depth  int
	Parent *Item
	// First is the event that created the item; Second completes it (the
	// tool_result, bash_run, approval_decision or delegation end). For an
	// item made from a second half alone, First is that event and Second
	// is nil.
	First  *transcript.Event
	Second *transcript.Event
	// Text is what a notice says.
	Text string
	// Version grows whenever the item changes, so cached renderings of an
	// older version are known to be stale.
	Version int

	index int   // position in display order
	last  *Item // for a delegation: the last item of its block
}

// Index is the item's position in display order.
func (it *Item) Index() int { return it.index }

// Seq is the sequence number of the event that created the item.
func (it *Item) Seq() int64 {
	if it.First == nil {
		return 0
	}
	return it.First.Seq
}

// TS is when the item started.
func (it *Item) TS() time.Time {
	if it.First == nil {
		return time.Time{}
	}
	return it.First.TS
}

// Chat returns the item's chat turn, or nil.
func (it *Item) Chat() *transcript.ChatTurn { return body[*transcript.ChatTurn](it) }

// ToolCall returns the item's tool call, or nil (a result whose call is
// not in the timeline).
func (it *Item) ToolCall() *transcript.ToolCall { return body[*transcript.ToolCall](it) }

// ToolResult returns the item's tool result, or nil while there is none.
func (it *Item) ToolResult() *transcript.ToolResult { return body[*transcript.ToolResult](it) }

// BashStart returns the item's bash_start, or nil.
func (it *Item) BashStart() *transcript.BashStart { return body[*transcript.BashStart](it) }

// BashRun returns the item's bash_run, or nil while the command runs.
func (it *Item) BashRun() *transcript.BashRun { return body[*transcript.BashRun](it) }

// Delegation returns the delegation start (or, for an end item or an end
// without its start, the end).
func (it *Item) Delegation() *transcript.Delegation {
	if it.First != nil {
		if d, ok := it.First.Body.(*transcript.Delegation); ok {
			return d
		}
	}
	return nil
}

// DelegationEnd returns the end of the delegation an item heads or closes.
func (it *Item) DelegationEnd() *transcript.Delegation {
	if it.Kind == KindDelegationEnd {
		return it.Delegation()
	}
	if it.Second != nil {
		if d, ok := it.Second.Body.(*transcript.Delegation); ok {
			return d
		}
	}
	if d := it.Delegation(); d != nil && d.Phase == transcript.PhaseEnd {
		return d
	}
	return nil
}

// ApprovalRequest returns the item's request, or nil.
func (it *Item) ApprovalRequest() *transcript.ApprovalRequest {
	return body[*transcript.ApprovalRequest](it)
}

// ApprovalDecision returns the item's decision, or nil while there is none.
func (it *Item) ApprovalDecision() *transcript.ApprovalDecision {
	return body[*transcript.ApprovalDecision](it)
}

// body finds a body of type T in either half of an item.
func body[T transcript.Body](it *Item) T {
	var zero T
	for _, ev := range []*transcript.Event{it.First, it.Second} {
		if ev == nil {
			continue
		}
		if b, ok := ev.Body.(T); ok {
			return b
		}
	}
	return zero
}

// Running reports whether the item waits for its second half: a command
// still running, a delegation still working, a request still undecided.
func (it *Item) Running() bool {
	switch it.Kind {
	case KindBash:
		return it.BashRun() == nil
	case KindDelegation:
		return it.DelegationEnd() == nil
	case KindApproval:
		return it.ApprovalDecision() == nil
	case KindTool:
		return it.ToolResult() == nil
	}
	return false
}

// Failed reports whether the item is a failure: a command that failed or
// timed out, a tool that returned an error, a sub-agent that did not
// succeed.
func (it *Item) Failed() bool {
	switch it.Kind {
	case KindBash:
		r := it.BashRun()
		return r != nil && r.Failed()
	case KindTool:
		r := it.ToolResult()
		return r != nil && r.IsError
	case KindDelegation, KindDelegationEnd:
		d := it.DelegationEnd()
		return d != nil && d.Success != nil && !*d.Success
	case KindNotice:
		return true
	}
	return false
}

// Counts summarises a timeline.
type Counts struct {
	Events    int
	Turns     int
	ToolCalls int
	Commands  int
	Failures  int
	Approvals int
	Malformed int
}

// Timeline is a session's items in display order: each item where its
// first event puts it, except that the items of a delegation follow its
// head as one block, however their events interleave with others.
type Timeline struct {
	items       []*Item
	open        map[string]*Item // first halves waiting for their second
	delegations map[string]*Item // delegation heads by call_id
	nextID      int

	// Start and End are the session's start and end events, when seen.
	Start *transcript.Event
	End   *transcript.Event
	// First and Last are the earliest and latest timestamps seen.
	First, Last time.Time
	Counts      Counts
}

// New returns an empty timeline.
func New() *Timeline {
	return &Timeline{open: map[string]*Item{}, delegations: map[string]*Item{}}
}

// Len is the number of items.
func (t *Timeline) Len() int { return len(t.items) }

// At returns the item at display position i.
func (t *Timeline) At(i int) *Item { return t.items[i] }

// Items returns the items in display order. The slice is the timeline's
// own: do not modify it.
func (t *Timeline) Items() []*Item { return t.items }
