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
// call, and for a delegation the entries inside it. A delegation whose
// sub-agent works while its parent goes on (a sub-agent in the background)
// is told in parts, as it happened: where the sub-agent goes on after the
// parent did something, a continuation entry holds what follows, and its
// end is an entry of its own where it ended.
type mdPlanNode struct {
	first, second int32 // events by position in the session as read; -1 for none
	depth         int32 // how many delegations it is inside
	child, last   int32 // a delegation's first and last entry inside; -1 for none
	next          int32 // the next entry at the same level; -1 for none
	kind          mdPart
	of            int32 // a continuation's or an end's delegation; a delegation's own parent delegation, or -1
	seg           int32 // a delegation's part that takes its next entries: itself or its last continuation
	touched       int64 // a delegation's last entry, as planner.entries counted then
	apart         bool  // a delegation whose end is an entry of its own
	// text is the entry rendered, when it is (text.n > 0); for a
	// delegation, its beginning then its end, which is the last tail bytes.
	text mdSpan
	tail uint32
}

// mdPart is what part of the document an entry is.
type mdPart uint8

const (
	mdEntry        mdPart = iota // an event (and its call's second half)
	mdContinuation               // a delegation going on after its parent did something
	mdEndApart                   // a delegation's end, told where it ended
)

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
	entries     int64 // entries placed so far
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
			if p.interrupted(n) || p.nodes[n].seg != n {
				// Its parent went on meanwhile: the end is told where it came.
				p.nodes[n].apart = true
				e := p.newNode(mdEndApart, pos)
				p.nodes[e].of = n
				p.place(e, p.nodes[n].of)
			}
			j.node, j.second = n, true
			return j
		}
	}
	n := p.newNode(mdEntry, pos)
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
	parent := int32(-1)
	if d, ok := p.delegations[r.parent]; ok && r.parent != "" && d != n {
		parent = d
	}
	if r.body == mdDelegation && !r.delegEnd {
		p.nodes[n].of, p.nodes[n].seg = parent, n
	}
	p.place(n, parent)
	return j
}

// newNode adds an entry of kind for the event at pos, not placed yet.
func (p *mdPlanner) newNode(kind mdPart, pos int32) int32 {
	n := int32(len(p.nodes))
	p.nodes = append(p.nodes, mdPlanNode{first: pos, second: -1, child: -1, last: -1, next: -1, kind: kind, of: -1, seg: -1})
	return n
}

// place puts entry n last inside delegation d (-1: at the top level): in
// its part that takes entries, or in a continuation of it when something
// outside it was placed since its last entry.
func (p *mdPlanner) place(n, d int32) {
	if d >= 0 && p.interrupted(d) {
		c := p.newNode(mdContinuation, p.nodes[d].first)
		p.nodes[c].of, p.nodes[c].depth = d, p.nodes[d].depth
		p.place(c, p.nodes[d].of)
		p.nodes[d].seg = c
	}
	p.entries++
	if d < 0 {
		if p.last < 0 {
			p.root = n
		} else {
			p.nodes[p.last].next = n
		}
		p.last = n
	} else {
		seg := &p.nodes[p.nodes[d].seg]
		p.nodes[n].depth = p.nodes[d].depth + 1
		if seg.last < 0 {
			seg.child = n
		} else {
			p.nodes[seg.last].next = n
		}
		seg.last = n
	}
	if p.nodes[n].kind == mdEntry && p.nodes[n].seg == n { // a delegation: nothing is inside it yet
		p.nodes[n].touched = p.entries
	}
	for ; d >= 0; d = p.nodes[d].of {
		p.nodes[d].touched = p.entries
	}
}

// interrupted reports whether something outside delegation d was placed
// since its last entry.
func (p *mdPlanner) interrupted(d int32) bool { return p.nodes[d].touched != p.entries }

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
