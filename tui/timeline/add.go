package timeline

import (
	"slices"

	"github.com/cuff-dev/cuff/transcript"
)

// Change tells what adding an event did to the timeline.
type Change struct {
	// Item is the item the event created or completed.
	Item *Item
	// Inserted is true when Item is new; false when an existing item was
	// completed (its Version grew).
	Inserted bool
	// Position is where a new item went in display order; items at and
	// after it moved down by one.
	Position int
}

// Add puts one event into the timeline: a new item, or the second half of
// an item already there. Events should come in seq order; a second half
// whose first half is missing becomes an item of its own.
func (t *Timeline) Add(ev *transcript.Event) Change {
	t.count(ev)
	switch b := ev.Body.(type) {
	case *transcript.SessionStart:
		if t.Start == nil {
			t.Start = ev
		}
		return t.insert(&Item{Kind: KindSessionStart, First: ev}, ev)
	case *transcript.SessionEnd:
		t.End = ev
		return t.insert(&Item{Kind: KindSessionEnd, First: ev}, ev)
	case *transcript.ChatTurn:
		kind := KindAssistant
		switch {
		case b.Thinking:
			kind = KindThinking
		case b.Role == transcript.RoleUser:
			kind = KindUser
		case b.Role == transcript.RoleSystem || b.Role == transcript.RoleDeveloper:
			kind = KindSystem
		}
		return t.insert(&Item{Kind: kind, First: ev}, ev)
	case *transcript.ToolCall:
		return t.insertOpen(&Item{Kind: KindTool, First: ev}, ev)
	case *transcript.BashStart:
		return t.insertOpen(&Item{Kind: KindBash, First: ev}, ev)
	case *transcript.ApprovalRequest:
		return t.insertOpen(&Item{Kind: KindApproval, First: ev}, ev)
	case *transcript.ToolResult:
		return t.complete(ev, KindTool)
	case *transcript.BashRun:
		return t.complete(ev, KindBash)
	case *transcript.ApprovalDecision:
		return t.complete(ev, KindApproval)
	case *transcript.Delegation:
		if b.Phase == transcript.PhaseEnd {
			return t.endDelegation(ev)
		}
		it := &Item{Kind: KindDelegation, First: ev}
		ch := t.insert(it, ev)
		if ev.CallID != "" {
			t.delegations[ev.CallID] = it
		}
		return ch
	}
	return t.insert(&Item{Kind: KindUnknown, First: ev}, ev)
}

// Notice adds a line that cuff itself has to say, such as a malformed line
// or a removed file.
func (t *Timeline) Notice(text string) Change {
	return t.insert(&Item{Kind: KindNotice, Text: text}, nil)
}

// count keeps the timeline's summary.
func (t *Timeline) count(ev *transcript.Event) {
	t.Counts.Events++
	if !ev.TS.IsZero() {
		if t.First.IsZero() || ev.TS.Before(t.First) {
			t.First = ev.TS
		}
		if ev.TS.After(t.Last) {
			t.Last = ev.TS
		}
	}
	switch b := ev.Body.(type) {
	case *transcript.ChatTurn:
		t.Counts.Turns++
	case *transcript.ToolCall:
		t.Counts.ToolCalls++
	case *transcript.ToolResult:
		if b.IsError {
			t.Counts.Failures++
		}
	case *transcript.BashRun:
		t.Counts.Commands++
		if b.Failed() {
			t.Counts.Failures++
		}
	case *transcript.ApprovalRequest:
		t.Counts.Approvals++
	}
}

// pairKey names the call an event belongs to, per kind of pair: a bash run
// and the approval request that gated it may share one call_id.
func pairKey(kind Kind, callID string) string {
	switch kind {
	case KindTool:
		return "tool:" + callID
	case KindBash:
		return "bash:" + callID
	}
	return "approval:" + callID
}

func (t *Timeline) insertOpen(it *Item, ev *transcript.Event) Change {
	ch := t.insert(it, ev)
	if ev.CallID != "" {
		t.open[pairKey(it.Kind, ev.CallID)] = it
	}
	return ch
}

// complete joins a second half to its first, or makes it an item alone.
func (t *Timeline) complete(ev *transcript.Event, kind Kind) Change {
	if ev.CallID != "" {
		key := pairKey(kind, ev.CallID)
		if it := t.open[key]; it != nil {
			delete(t.open, key)
			it.Second = ev
			it.Version++
			return Change{Item: it, Position: it.index}
		}
	}
	return t.insert(&Item{Kind: kind, First: ev}, ev)
}

// endDelegation records the end on the delegation's head and closes its
// block with an end item.
func (t *Timeline) endDelegation(ev *transcript.Event) Change {
	head := t.delegations[ev.CallID]
	if ev.CallID == "" || head == nil || head.Second != nil {
		return t.insert(&Item{Kind: KindDelegation, First: ev}, ev)
	}
	head.Second = ev
	head.Version++
	end := &Item{Kind: KindDelegationEnd, First: ev, Parent: head, Depth: head.Depth + 1}
	return t.place(end, head)
}

// insert places a new item: inside the block of the delegation its event
// names as parent, else at the end.
func (t *Timeline) insert(it *Item, ev *transcript.Event) Change {
	var parent *Item
	if ev != nil && ev.ParentCallID != "" {
		parent = t.delegations[ev.ParentCallID]
	}
	if parent != nil {
		it.Parent, it.Depth = parent, parent.Depth+1
	}
	return t.place(it, parent)
}

// place puts it after the last item of parent's block (at the end when
// parent is nil) and keeps every enclosing block's end up to date.
func (t *Timeline) place(it *Item, parent *Item) Change {
	it.ID = t.nextID
	t.nextID++
	if it.Kind == KindDelegation {
		it.last = it
	}
	pos := len(t.items)
	if parent != nil {
		pos = parent.last.index + 1
	}
	if pos == len(t.items) {
		it.index = pos
		t.items = append(t.items, it)
	} else {
		t.items = slices.Insert(t.items, pos, it)
		for i := pos; i < len(t.items); i++ {
			t.items[i].index = i
		}
	}
	for p := parent; p != nil; p = p.Parent {
		if p.last.index < it.index {
			p.last = it
		}
	}
	return Change{Item: it, Inserted: true, Position: pos}
}
