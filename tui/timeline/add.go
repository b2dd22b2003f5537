package timeline

import (
	"time"

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
// whose first half is missing becomes an item of its own. The item keeps
// the event's body (and, for some kinds, the event): change neither after.
func (t *Timeline) Add(ev *transcript.Event) Change {
	ch := t.add(ev)
	if t.backing != nil && ch.Item.spill == nil {
		ch.Item.spill = t.backing.claim(ev.Body)
	}
	return ch
}

// AddLine is Add for an event decoded from line, the bytes at offset off
// of the file given to Spill: the big outputs of its body are left in the
// file (the body's fields are emptied; read them with Item.Field). Without
// Spill it is Add.
func (t *Timeline) AddLine(ev *transcript.Event, line []byte, off int64) Change {
	ch := t.add(ev)
	if t.backing != nil && ch.Item.spill == nil {
		ch.Item.spill = t.backing.spill(ev.Body, line, off)
	}
	return ch
}

func (t *Timeline) add(ev *transcript.Event) Change {
	t.count(ev)
	switch b := ev.Body.(type) {
	case *transcript.SessionStart:
		if t.Start == nil {
			t.Start = ev
		}
		return t.insert(newItem(KindSessionStart, ev), ev)
	case *transcript.SessionEnd:
		t.End = ev
		return t.insert(newItem(KindSessionEnd, ev), ev)
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
		return t.insert(newItem(kind, ev), ev)
	case *transcript.ToolCall:
		return t.insertOpen(newItem(KindTool, ev), ev)
	case *transcript.BashStart:
		return t.insertOpen(newItem(KindBash, ev), ev)
	case *transcript.ApprovalRequest:
		return t.insertOpen(newItem(KindApproval, ev), ev)
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
		it := newItem(KindDelegation, ev)
		ch := t.insert(it, ev)
		if ev.CallID != "" {
			t.delegations[ev.CallID] = it
		}
		return ch
	}
	return t.insert(newItem(KindUnknown, ev), ev)
}

// newItem makes an item of kind from the event that starts it.
func newItem(kind Kind, ev *transcript.Event) *Item {
	it := &Item{Kind: kind, seq: ev.Seq, first: ev.Body, sub: ev.AgentID != "" && ev.AgentID != transcript.MainAgent}
	it.setTS(ev.TS)
	if keptWhole(ev.Body) {
		it.more = &itemMore{first: ev}
	}
	return it
}

// Notice adds a line that cuff itself has to say, such as a malformed line
// or a removed file.
func (t *Timeline) Notice(text string) Change {
	it := &Item{Kind: KindNotice, more: &itemMore{text: text}}
	it.setTS(time.Time{})
	return t.insert(it, nil)
}

// count keeps the timeline's summary.
func (t *Timeline) count(ev *transcript.Event) {
	if !ev.TS.IsZero() {
		if t.First.IsZero() || ev.TS.Before(t.First) {
			t.First = ev.TS
		}
		if ev.TS.After(t.Last) {
			t.Last = ev.TS
		}
	}
	t.Counts.Add(ev)
}

// pairKey names the call an event belongs to, per kind of pair: a bash run
// and the approval request that gated it may share one call_id.
type pairKey struct {
	kind   Kind
	callID string
}

func (t *Timeline) insertOpen(it *Item, ev *transcript.Event) Change {
	ch := t.insert(it, ev)
	if ev.CallID != "" {
		t.open[pairKey{it.Kind, ev.CallID}] = it
	}
	return ch
}

// complete joins a second half to its first, or makes it an item alone.
func (t *Timeline) complete(ev *transcript.Event, kind Kind) Change {
	if ev.CallID != "" {
		key := pairKey{kind, ev.CallID}
		if it := t.open[key]; it != nil {
			delete(t.open, key)
			it.second = ev.Body
			if it.more != nil {
				it.more.second = ev
			}
			shareStrings(it)
			it.Version++
			return Change{Item: it, Position: it.Index()}
		}
	}
	ch := t.insert(newItem(kind, ev), ev)
	if ev.CallID != "" && len(t.lone) < maxLone {
		t.lone[pairKey{kind, ev.CallID}] = ch.Item // its first half may come with an older part (Prepend)
	}
	return ch
}

// maxLone bounds the second halves a timeline remembers having come alone.
const maxLone = 4096

// shareStrings lets the halves of a bash item share the command and the
// folder they both name, instead of keeping two copies.
func shareStrings(it *Item) {
	start, ok1 := it.first.(*transcript.BashStart)
	run, ok2 := it.second.(*transcript.BashRun)
	if !ok1 || !ok2 {
		return
	}
	if run.Command == start.Command {
		run.Command = start.Command
	}
	if run.WorkingDirectory == start.WorkingDirectory {
		run.WorkingDirectory = start.WorkingDirectory
	}
}

// endDelegation records the end on the delegation's head and closes its
// block with an end item.
func (t *Timeline) endDelegation(ev *transcript.Event) Change {
	head := t.delegations[ev.CallID]
	if ev.CallID == "" || head == nil || head.second != nil {
		ch := t.insert(newItem(KindDelegation, ev), ev)
		if ev.CallID != "" && head == nil && len(t.lone) < maxLone {
			t.lone[pairKey{KindDelegationEnd, ev.CallID}] = ch.Item // its head may come with an older part
		}
		return ch
	}
	head.second = ev.Body
	head.more.second = ev
	head.Version++
	end := newItem(KindDelegationEnd, ev)
	end.Parent, end.Depth = head, head.Depth+1
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
	} else if ev != nil && ev.ParentCallID != "" && len(t.strays) < maxLone {
		t.strays[ev.ParentCallID] = append(t.strays[ev.ParentCallID], it) // its head may come with an older part
	}
	return t.place(it, parent)
}

// place puts it at the end, inside parent's block (none when parent is
// nil), and keeps every enclosing block's end up to date. Items come in
// the order they happened: a sub-agent that works while its parent goes on
// (in the background) has its block interrupted by its parent's items and
// taken up again after them, each item still inside it.
func (t *Timeline) place(it *Item, parent *Item) Change {
	it.ID = t.nextID
	t.nextID++
	if it.Kind == KindDelegation {
		if it.more == nil {
			it.more = &itemMore{}
		}
		it.more.last = it
	}
	pos := len(t.items)
	it.index = int32(pos)
	it.resumes = parent != nil && pos > 0 && !t.items[pos-1].inside(parent)
	t.items = append(t.items, it)
	for p := parent; p != nil; p = p.Parent {
		if p.more.last.index < it.index {
			p.more.last = it
		}
	}
	return Change{Item: it, Inserted: true, Position: pos}
}
