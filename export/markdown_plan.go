package export

import (
	"sort"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// The markdown document begins with what the whole session holds and shows
// the two halves of a call together and the work of a sub-agent inside its
// delegation, so it cannot be written in the order events come. The export
// keeps a small record of each event (mdRecord), gathers the header
// (mdSummary) and plans the document as a tree of entries (mdPlanner); the
// entries are rendered as soon as they are complete and written out in the
// tree's order at the end (see markdown_doc.go).

// mdBody names the kind of an event's body.
type mdBody uint8

const (
	mdNone mdBody = iota // no body: a kind this version does not know
	mdSessionStart
	mdSessionEnd
	mdChatTurn
	mdToolCall
	mdToolResult
	mdBashStart
	mdBashRun
	mdDelegation
	mdApprovalRequest
	mdApprovalDecision
	mdOther // a body type the markdown export does not name
)

func bodyKind(b transcript.Body) mdBody {
	switch b.(type) {
	case nil:
		return mdNone
	case *transcript.SessionStart:
		return mdSessionStart
	case *transcript.SessionEnd:
		return mdSessionEnd
	case *transcript.ChatTurn:
		return mdChatTurn
	case *transcript.ToolCall:
		return mdToolCall
	case *transcript.ToolResult:
		return mdToolResult
	case *transcript.BashStart:
		return mdBashStart
	case *transcript.BashRun:
		return mdBashRun
	case *transcript.Delegation:
		return mdDelegation
	case *transcript.ApprovalRequest:
		return mdApprovalRequest
	case *transcript.ApprovalDecision:
		return mdApprovalDecision
	}
	return mdOther
}

// mdSpan is where something is in a spool file.
type mdSpan struct {
	off int64
	n   uint32
}

// mdRecord is what the export keeps of every event of a session, as small
// as can be: the kind of its body and where its line is in the spool.
type mdRecord struct {
	off  int64
	n    uint32
	body mdBody
}

func (r *mdRecord) line() mdSpan { return mdSpan{r.off, r.n} }

// mdKeys is what places an event in the tree.
type mdKeys struct {
	seq      int64
	key      string // the pairKey of a half of a call with a call_id; a delegation's call_id
	parent   string // parent_call_id
	body     mdBody
	delegEnd bool // a delegation's end
}

func keysOf(ev *transcript.Event) mdKeys {
	r := mdKeys{seq: ev.Seq, parent: ev.ParentCallID, body: bodyKind(ev.Body)}
	switch r.body {
	case mdToolCall, mdToolResult, mdBashStart, mdBashRun, mdApprovalRequest, mdApprovalDecision:
		if ev.CallID != "" {
			r.key = pairKey(ev)
		}
	case mdDelegation:
		r.key = ev.CallID
		r.delegEnd = ev.Body.(*transcript.Delegation).Phase == transcript.PhaseEnd
	}
	return r
}

// mdSummary is what the header says, gathered from every event.
type mdSummary struct {
	id          string
	first, last time.Time
	counts      transcript.Tally
	start       *transcript.Event // the first session_start by seq
	end         *transcript.Event // the last session_end by seq
}

func (s *mdSummary) add(ev *transcript.Event) {
	if s.id == "" {
		s.id = ev.SessionID
	}
	if !ev.TS.IsZero() {
		if s.first.IsZero() || ev.TS.Before(s.first) {
			s.first = ev.TS
		}
		if ev.TS.After(s.last) {
			s.last = ev.TS
		}
	}
	s.counts.Add(ev)
	switch ev.Body.(type) {
	case *transcript.SessionStart:
		// Events are ordered by seq, stably: of equal seqs the first wins.
		if s.start == nil || ev.Seq < s.start.Seq {
			s.start = ev
		}
	case *transcript.SessionEnd:
		if s.end == nil || ev.Seq >= s.end.Seq {
			s.end = ev
		}
	}
}

// mdPlanNode is an entry of the document: an event, the second half of its
// call, and for a delegation the entries inside it.
type mdPlanNode struct {
	first, second int32 // events by position in the session as read; -1 for none
	depth         int32 // how many delegations it is inside
	child, last   int32 // a delegation's first and last entry inside; -1 for none
	next          int32 // the next entry at the same level; -1 for none
	// text is the entry rendered, when it is (text.n > 0); for a
	// delegation, its beginning then its end, which is the last tail bytes.
	text mdSpan
	tail uint32
}

// rendered reports whether the entry's text is in the spool.
func (nd *mdPlanNode) rendered() bool { return nd.text.n > 0 }

// head and end split the text of a rendered delegation.
func (nd *mdPlanNode) head() mdSpan { return mdSpan{nd.text.off, nd.text.n - nd.tail} }
func (nd *mdPlanNode) end() mdSpan {
	return mdSpan{nd.text.off + int64(nd.text.n-nd.tail), nd.tail}
}

// mdPlanner builds the tree of entries from the events of a session taken
// in seq order: it pairs the halves of calls by kind and call_id and nests
// entries under the delegation named by their parent_call_id.
type mdPlanner struct {
	nodes       []mdPlanNode
	root, last  int32 // the first and last top-level entries
	open        map[string]int32
	delegations map[string]int32
	startSeen   bool
}

func newPlanner() *mdPlanner {
	return &mdPlanner{root: -1, last: -1, open: map[string]int32{}, delegations: map[string]int32{}}
}

// mdJoin tells what adding an event did to the tree.
type mdJoin struct {
	node    int32 // the entry the event starts or completes; -1 when it is in none
	second  bool  // the event completed node
	waits   bool  // node waits for its second half
	dropped int32 // a waiting entry that nothing can complete any more, or -1
}

// add places the event at position pos.
func (p *mdPlanner) add(pos int32, r *mdKeys) mdJoin {
	j := mdJoin{node: -1, dropped: -1}
	switch r.body {
	case mdSessionStart:
		if !p.startSeen { // the header shows it
			p.startSeen = true
			return j
		}
	case mdSessionEnd:
		return j
	case mdToolResult, mdBashRun, mdApprovalDecision:
		if n, ok := p.open[r.key]; ok && r.key != "" {
			p.nodes[n].second = pos
			delete(p.open, r.key)
			j.node, j.second = n, true
			return j
		}
	case mdDelegation:
		if n, ok := p.delegations[r.key]; ok && r.delegEnd && r.key != "" && p.nodes[n].second < 0 {
			p.nodes[n].second = pos
			j.node, j.second = n, true
			return j
		}
	}
	n := int32(len(p.nodes))
	p.nodes = append(p.nodes, mdPlanNode{first: pos, second: -1, child: -1, last: -1, next: -1})
	j.node = n
	switch r.body {
	case mdToolCall, mdBashStart, mdApprovalRequest:
		if r.key != "" {
			if old, ok := p.open[r.key]; ok {
				j.dropped = old
			}
			p.open[r.key] = n
			j.waits = true
		}
	case mdDelegation:
		if !r.delegEnd && r.key != "" {
			if old, ok := p.delegations[r.key]; ok && p.nodes[old].second < 0 {
				j.dropped = old
			}
			p.delegations[r.key] = n
			j.waits = true
		}
	}
	if d, ok := p.delegations[r.parent]; ok && r.parent != "" && d != n {
		p.nodes[n].depth = p.nodes[d].depth + 1
		if p.nodes[d].last < 0 {
			p.nodes[d].child = n
		} else {
			p.nodes[p.nodes[d].last].next = n
		}
		p.nodes[d].last = n
	} else {
		if p.last < 0 {
			p.root = n
		} else {
			p.nodes[p.last].next = n
		}
		p.last = n
	}
	return j
}

// planAll plans the document from the keys of all the events of a
// session, taken in seq order (stably).
func planAll(keys []mdKeys) *mdPlanner {
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	less := func(i, j int) bool { return keys[order[i]].seq < keys[order[j]].seq }
	if !sort.SliceIsSorted(order, less) {
		sort.SliceStable(order, less)
	}
	p := newPlanner()
	for _, pos := range order {
		p.add(pos, &keys[pos])
	}
	return p
}
