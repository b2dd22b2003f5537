// Package timeline turns a session's events into the items the session
// view shows: the two halves of a call joined into one item, sub-agent
// delegations holding their own items, in display order. It is data: it
// renders nothing and opens no file, so it can be built off the UI
// goroutine and handed over whole. Big outputs of events read from a file
// may be left there (see Timeline.Spill) and are read back through the
// reader it was given when they are shown or searched.
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

// Item is one entry of the timeline. It keeps what the view shows of its
// events, not the events themselves: the bodies of chat turns, tool calls
// and bash runs with their seq and time (the envelope is dropped), big
// outputs left in the session file when the timeline was given it (see
// AddLine), and the whole events of the rare kinds whose envelope matters
// (approvals, delegations, the session's start and end, unknown kinds).
type Item struct {
	// ID is unique within the timeline and never reused.
	ID int
	// Depth is how many delegations the item is inside.
	Depth  int
	Parent *Item
	// Version grows whenever the item changes, so cached renderings of an
	// older version are known to be stale.
	Version int

	// seq and the time of the event that created the item (the first
	// half; for an item made from a second half alone, that half).
	seq int64
	sec int64
	// first and second are the bodies of the item's halves: the second
	// completes the first (the tool_result, bash_run, approval_decision or
	// delegation end). Either may be nil (an unknown kind, a notice, an
	// item still waiting for its second half).
	first, second transcript.Body
	more          *itemMore // what only some items have
	spill         *spilled  // text fields left in the session file

	index int32 // position in display order
	nsec  int32
	// Kind is what the item shows.
	Kind    Kind
	sub     bool // the first half came from a sub-agent
	resumes bool // its delegation's block goes on here after items outside it
}

// itemMore is what only some items have, kept apart so that the many
// chat turns, tool calls and bash runs stay small.
type itemMore struct {
	// first and second are the events, for the kinds kept whole.
	first, second *transcript.Event
	text          string // what a notice says
	last          *Item  // for a delegation: the last item of its block
}

// keptWhole reports whether items of an event's kind keep the event
// itself: kinds that are rare, or whose envelope the view or the approval
// prompt reads.
func keptWhole(b transcript.Body) bool {
	switch b.(type) {
	case *transcript.ChatTurn, *transcript.ToolCall, *transcript.ToolResult, *transcript.BashStart, *transcript.BashRun:
		return false
	}
	return true
}

// Index is the item's position in display order.
func (it *Item) Index() int { return int(it.index) }

// Text is what a notice says; empty for other items.
func (it *Item) Text() string {
	if it.more == nil {
		return ""
	}
	return it.more.text
}

// Seq is the sequence number of the event that created the item; 0 for a
// notice.
func (it *Item) Seq() int64 { return it.seq }

// TS is when the item started (in UTC; zero for a notice).
func (it *Item) TS() time.Time {
	if it.sec == zeroSec && it.nsec == 0 {
		return time.Time{}
	}
	return time.Unix(it.sec, int64(it.nsec)).UTC()
}

// zeroSec is time.Time{}.Unix(), the seconds of the zero time.
const zeroSec = -62135596800

// setTS stores t without its location, which no view depends on.
func (it *Item) setTS(t time.Time) {
	if t.IsZero() {
		it.sec, it.nsec = zeroSec, 0
		return
	}
	it.sec, it.nsec = t.Unix(), int32(t.Nanosecond())
}

// Event is the event that created the item, for the kinds kept whole
// (approvals, delegations, the session's start and end, unknown kinds);
// nil for chat turns, tool calls and bash runs, which keep only their
// bodies, and for notices.
func (it *Item) Event() *transcript.Event {
	if it.more == nil {
		return nil
	}
	return it.more.first
}

// EndTS is when the item's second half happened, for the kinds kept
// whole; zero otherwise.
func (it *Item) EndTS() time.Time {
	if it.more == nil || it.more.second == nil {
		return time.Time{}
	}
	return it.more.second.TS
}

// SubAgent reports whether the event that created the item came from a
// sub-agent rather than the session's main agent.
func (it *Item) SubAgent() bool { return it.sub }

// Resumes reports whether the item takes its delegation's block up again
// after items outside it (its sub-agent works while its parent goes on).
func (it *Item) Resumes() bool { return it.resumes }

// inside reports whether it is block's head or inside its block.
func (it *Item) inside(block *Item) bool {
	for x := it; x != nil; x = x.Parent {
		if x == block {
			return true
		}
	}
	return false
}

// Body is the body of the event that created the item: nil for an
// unknown kind and a notice.
func (it *Item) Body() transcript.Body { return it.first }

// Chat returns the item's chat turn, or nil.
func (it *Item) Chat() *transcript.ChatTurn { return body[*transcript.ChatTurn](it) }

// UsageOnly reports whether the item is a chat turn that only carries a
// message's token usage: it is counted and never shown.
func (it *Item) UsageOnly() bool {
	c := it.Chat()
	return c != nil && c.UsageOnly()
}

// ToolCall returns the item's tool call, or nil (a result whose call is
// not in the timeline).
func (it *Item) ToolCall() *transcript.ToolCall { return body[*transcript.ToolCall](it) }

// ToolResult returns the item's tool result, or nil while there is none.
// Its Output may have been left in the session file: read it with Field.
func (it *Item) ToolResult() *transcript.ToolResult { return body[*transcript.ToolResult](it) }

// BashStart returns the item's bash_start, or nil.
func (it *Item) BashStart() *transcript.BashStart { return body[*transcript.BashStart](it) }

// BashRun returns the item's bash_run, or nil while the command runs. Its
// Stdout and Stderr may have been left in the session file: read them
// with Field.
func (it *Item) BashRun() *transcript.BashRun { return body[*transcript.BashRun](it) }

// Delegation returns the delegation start (or, for an end item or an end
// without its start, the end).
func (it *Item) Delegation() *transcript.Delegation {
	d, _ := it.first.(*transcript.Delegation)
	return d
}

// DelegationEnd returns the end of the delegation an item heads or closes.
func (it *Item) DelegationEnd() *transcript.Delegation {
	if it.Kind == KindDelegationEnd {
		return it.Delegation()
	}
	if d, ok := it.second.(*transcript.Delegation); ok {
		return d
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
	if b, ok := it.first.(T); ok {
		return b
	}
	b, _ := it.second.(T)
	return b
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
		return d != nil && d.Failed()
	}
	return false
}

// Counts summarises a timeline: what every view of a session counts
// (transcript.Tally: its turns and failures are what the filters show),
// and the lines that could not be read.
type Counts struct {
	transcript.Tally
	Malformed int64
}

// Timeline is a session's items in display order: each item where its
// first event puts it, except that the items of a delegation follow its
// head as one block, however their events interleave with others.
type Timeline struct {
	items       []*Item
	open        map[pairKey]*Item  // first halves waiting for their second
	lone        map[pairKey]*Item  // second halves that came without their first
	strays      map[string][]*Item // items placed at the top: their delegation's head was not there
	delegations map[string]*Item   // delegation heads by call_id
	nextID      int
	backing     *backing // the file big fields are left in, if any

	// Start and End are the session's start and end events, when seen.
	Start *transcript.Event
	End   *transcript.Event
	// First and Last are the earliest and latest timestamps seen.
	First, Last time.Time
	Counts      Counts
}

// New returns an empty timeline.
func New() *Timeline {
	return &Timeline{open: map[pairKey]*Item{}, lone: map[pairKey]*Item{}, strays: map[string][]*Item{}, delegations: map[string]*Item{}}
}

// Len is the number of items.
func (t *Timeline) Len() int { return len(t.items) }

// At returns the item at display position i.
func (t *Timeline) At(i int) *Item { return t.items[i] }

// Items returns the items in display order. The slice is the timeline's
// own: do not modify it.
func (t *Timeline) Items() []*Item { return t.items }
