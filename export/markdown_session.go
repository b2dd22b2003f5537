package export

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/cuff-dev/cuff/transcript"
)

// defaultMarkdownHold bounds the memory that first halves of calls take
// while their second half is still to come (calls interrupted before their
// result wait until the session ends). Beyond it, the oldest are let go of
// and rendered at the end from their lines in the spool.
const defaultMarkdownHold = 4 << 20

// heldOverhead is what holding an event costs beyond its strings.
const heldOverhead = 256

// mdSession is the markdown export of one session as its events stream in.
// Every event's line goes to a spool file and a small record of it stays in
// memory; each entry is rendered into the spool as soon as it is complete
// (for a call, once its result is in), and when the session ends the
// document is written from the spool in the tree's order. Only first halves
// of calls waiting for their result are held, up to a limit.
type mdSession struct {
	r       *mdWriter
	sum     mdSummary
	recs    []mdRecord
	lastSeq int64
	// plan is nil once an event came out of seq order: the tree is then
	// planned at the end and every entry rendered then.
	plan    *mdPlanner
	spool   *mdSpool
	waiting map[int32]mdHeld // first halves by entry
	queue   []int32          // entries in the order they started waiting
	held    int              // bytes of waiting
	hold    int              // the limit of held
	prefix  []string
}

// mdHeld is a first half waiting for its second, and what holding it costs.
type mdHeld struct {
	ev   *transcript.Event
	size int
}

func newMDSession(opts MarkdownOptions, hold int) *mdSession {
	return &mdSession{
		r:       &mdWriter{w: &bytes.Buffer{}, opts: opts.withDefaults()},
		plan:    newPlanner(),
		waiting: map[int32]mdHeld{},
		hold:    hold,
	}
}

// add takes the next event of the session.
func (s *mdSession) add(ev *transcript.Event) error {
	if len(s.recs) == math.MaxInt32 {
		return fmt.Errorf("markdown export: more than %d events in one session", math.MaxInt32)
	}
	if s.spool == nil {
		sp, err := newMDSpool()
		if err != nil {
			return err
		}
		s.spool = sp
	}
	line, err := s.spool.putEvent(ev)
	if err != nil {
		return err
	}
	keys := keysOf(ev)
	if s.plan != nil && len(s.recs) > 0 && ev.Seq < s.lastSeq {
		s.plan, s.waiting, s.queue, s.held = nil, nil, nil, 0
	}
	pos := int32(len(s.recs))
	s.recs = append(s.recs, mdRecord{off: line.off, n: line.n, body: keys.body})
	s.lastSeq = ev.Seq
	s.sum.add(ev)
	if s.plan == nil {
		return nil
	}
	j := s.plan.add(pos, &keys)
	if j.dropped >= 0 {
		if err := s.settle(j.dropped, nil); err != nil {
			return err
		}
	}
	switch {
	case j.node < 0:
		return nil
	case j.second:
		return s.settle(j.node, ev)
	case j.waits:
		s.wait(j.node, ev)
		return nil
	}
	return s.render(j.node, ev, nil)
}

// wait holds the first half of entry n, letting go of the oldest held
// beyond the limit.
func (s *mdSession) wait(n int32, ev *transcript.Event) {
	size := heldSize(ev)
	s.waiting[n] = mdHeld{ev, size}
	s.queue = append(s.queue, n)
	s.held += size
	for s.held > s.hold && len(s.queue) > 0 {
		oldest := s.queue[0]
		s.queue = s.queue[1:]
		if h, ok := s.waiting[oldest]; ok {
			delete(s.waiting, oldest)
			s.held -= h.size
		}
	}
}

// heldSize is what holding ev is reckoned to cost: its line and the
// strings decoded from it.
func heldSize(ev *transcript.Event) int {
	var size int
	switch b := ev.Body.(type) {
	case *transcript.ToolCall:
		size = len(b.Input)
	case *transcript.BashStart:
		size = len(b.Command)
	case *transcript.ApprovalRequest:
		size = len(b.Command) + len(b.Diff)
	case *transcript.Delegation:
		size = len(b.Task) + len(b.Result)
	}
	return len(ev.Raw) + size + heldOverhead
}

// settle renders entry n, which nothing more will complete, if its first
// half is still held; otherwise it is rendered at the end.
func (s *mdSession) settle(n int32, second *transcript.Event) error {
	h, ok := s.waiting[n]
	if !ok {
		return nil
	}
	delete(s.waiting, n)
	s.held -= h.size
	for len(s.queue) > 0 {
		if _, ok := s.waiting[s.queue[0]]; ok {
			break
		}
		s.queue = s.queue[1:]
	}
	if len(s.queue) > 2*len(s.waiting)+64 {
		// A call that never got its result keeps the queue's head: drop
		// the settled entries behind it, so the queue stays as long as
		// what is waiting.
		kept := s.queue[:0:0]
		for _, q := range s.queue {
			if _, ok := s.waiting[q]; ok {
				kept = append(kept, q)
			}
		}
		s.queue = kept
	}
	return s.render(n, h.ev, second)
}

// render renders entry n into the spool: for a delegation its beginning
// and its end, between which the entries inside it go.
func (s *mdSession) render(n int32, first, second *transcript.Event) error {
	nd := &s.plan.nodes[n]
	prefix := quotePrefix(&s.prefix, nd.depth)
	node := &mdNode{ev: first, second: second}
	s.r.w.Reset()
	s.r.node(node, prefix)
	if b, ok := first.Body.(*transcript.Delegation); ok {
		head := s.r.w.Len()
		s.r.delegationEnd(node, b, prefix)
		nd.tail = uint32(s.r.w.Len() - head)
	}
	var err error
	nd.text, err = s.spool.put(s.r.w.Bytes())
	return err
}

// write writes the document of the session.
func (s *mdSession) write(w io.Writer) error {
	if s.plan == nil {
		// Out of seq order: every event is read back once to plan the
		// tree, and again to be rendered.
		keys := make([]mdKeys, len(s.recs))
		for i := range s.recs {
			ev, err := s.spool.event(&s.recs[i])
			if err != nil {
				return err
			}
			keys[i] = keysOf(ev)
		}
		s.plan = planAll(keys)
	} else {
		for _, n := range slices.Sorted(maps.Keys(s.waiting)) { // in order, to be read back in order
			if err := s.render(n, s.waiting[n].ev, nil); err != nil {
				return err
			}
		}
	}
	s.waiting, s.queue = nil, nil
	d := &mdDoc{r: s.r, sum: &s.sum, recs: s.recs, plan: s.plan,
		event: func(pos int32) (*transcript.Event, error) { return s.spool.event(&s.recs[pos]) },
		text:  func(sp mdSpan) ([]byte, error) { return s.spool.read(sp) },
	}
	return d.write(w)
}

// close removes the spool.
func (s *mdSession) close() error {
	if s.spool == nil {
		return nil
	}
	return s.spool.close()
}
