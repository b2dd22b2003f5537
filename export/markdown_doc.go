package export

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// A time in the document shows its date only when the date differs from
// the last one written, so it depends on what comes before it in the
// document. Entries are rendered before that is known (as soon as both
// halves of a call are in), with a marker in place of each time; the
// markers are turned into times when the document is written, in order.
//
// A marker is ESC, which never appears in rendered text (transcript.Inert
// writes it out as \x1b), whether the time is shown, then the time as 16
// hex digits of Unix seconds.
const (
	clockMark    = '\x1b'
	clockShown   = 'c' // the time is written
	clockUnshown = 'u' // the time is not written but counts as the last one
	clockDigits  = 16
	clockLen     = 2 + clockDigits
	hexDigits    = "0123456789abcdef"
	dayLayout    = "2006-01-02"
	clockLayout  = "15:04:05"
	dateTimeWide = dayLayout + " " + clockLayout
)

// clockMarker is the marker for ts; kind is clockShown or clockUnshown.
func clockMarker(ts time.Time, kind byte) string {
	var b [clockLen]byte
	b[0], b[1] = clockMark, kind
	u := uint64(ts.Unix())
	for i := clockLen - 1; i > 1; i-- {
		b[i] = hexDigits[u&0xf]
		u >>= 4
	}
	return string(b[:])
}

// errClockMarker means rendered text held an ESC that is not a marker.
var errClockMarker = errors.New("markdown export: stray ESC in rendered text")

// mdOut writes rendered text to the document, turning markers into times.
type mdOut struct {
	w   *bufio.Writer
	loc *time.Location
	day string // the date of the last time written
}

func (o *mdOut) write(text []byte) error {
	for {
		i := bytes.IndexByte(text, clockMark)
		if i < 0 {
			o.w.Write(text)
			return nil
		}
		if len(text)-i < clockLen || (text[i+1] != clockShown && text[i+1] != clockUnshown) {
			return errClockMarker
		}
		var u uint64
		for _, c := range text[i+2 : i+clockLen] {
			d := strings.IndexByte(hexDigits, c)
			if d < 0 {
				return errClockMarker
			}
			u = u<<4 | uint64(d)
		}
		o.w.Write(text[:i])
		if c := o.clock(time.Unix(int64(u), 0)); text[i+1] == clockShown {
			o.w.WriteString(c)
		}
		text = text[i+clockLen:]
	}
}

// clock formats a time, with its date when that differs from the last one
// written.
func (o *mdOut) clock(ts time.Time) string {
	t := ts.In(o.loc)
	day := t.Format(dayLayout)
	if day != o.day {
		o.day = day
		return t.Format(dateTimeWide)
	}
	return t.Format(clockLayout)
}

// mdDoc writes a planned document: the header, the entries in the order of
// the tree, and how the session ended.
type mdDoc struct {
	r    *mdWriter
	out  mdOut
	sum  *mdSummary
	recs []mdRecord
	plan *mdPlanner
	// event returns the event at a position, for entries not rendered yet.
	event func(pos int32) (*transcript.Event, error)
	// text returns rendered text from the spool.
	text   func(mdSpan) ([]byte, error)
	prefix []string
}

func (d *mdDoc) write(w io.Writer) error {
	bw := bufio.NewWriterSize(w, writeBufferSize)
	d.out = mdOut{w: bw, loc: d.r.opts.Location}
	d.r.w.Reset()
	d.r.header(d.sum)
	err := d.out.write(d.r.w.Bytes())
	if !d.sum.first.IsZero() {
		d.out.day = d.sum.first.In(d.out.loc).Format(dayLayout)
	}
	if err == nil {
		err = d.walk(d.plan.root)
	}
	if err == nil && d.sum.end != nil {
		d.r.w.Reset()
		d.r.sessionEnd(d.sum.end, "")
		err = d.out.write(d.r.w.Bytes())
	}
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write markdown export: %w", err)
	}
	return nil
}

// walk writes the entries from n on at its level, and those inside them.
func (d *mdDoc) walk(n int32) error {
	for ; n >= 0; n = d.plan.nodes[n].next {
		if err := d.entry(&d.plan.nodes[n]); err != nil {
			return err
		}
	}
	return nil
}

// entry writes an entry: from the spool when it was rendered there, else
// rendered from its events; for a delegation, with the entries inside it.
func (d *mdDoc) entry(nd *mdPlanNode) error {
	prefix := quotePrefix(&d.prefix, nd.depth)
	switch nd.kind {
	case mdContinuation:
		return d.continuation(nd, prefix)
	case mdEndApart:
		return d.endApart(&d.plan.nodes[nd.of], prefix)
	}
	var node *mdNode
	if nd.rendered() {
		if err := d.copy(nd.head()); err != nil {
			return err
		}
	} else {
		var err error
		if node, err = d.node(nd); err != nil {
			return err
		}
		if err := d.render(func() { d.r.node(node, prefix) }); err != nil {
			return err
		}
	}
	if d.recs[nd.first].body != mdDelegation {
		return nil
	}
	if err := d.walk(nd.child); err != nil {
		return err
	}
	if nd.child >= 0 {
		if err := d.render(func() { d.r.line(prefix, "") }); err != nil {
			return err
		}
	}
	if nd.apart {
		return nil // told where it ended
	}
	if nd.rendered() {
		return d.copy(nd.end())
	}
	return d.render(func() { d.r.delegationEnd(node, node.ev.Body.(*transcript.Delegation), prefix) })
}

// continuation writes a delegation going on after its parent did something:
// a line saying so, and the entries inside it from there.
func (d *mdDoc) continuation(nd *mdPlanNode, prefix string) error {
	start, err := d.event(nd.first)
	if err != nil {
		return err
	}
	if err := d.render(func() { d.r.delegationGoesOn(start, prefix) }); err != nil {
		return err
	}
	if err := d.walk(nd.child); err != nil {
		return err
	}
	return d.render(func() { d.r.line(prefix, "") })
}

// endApart writes how delegation nd ended, where it ended.
func (d *mdDoc) endApart(nd *mdPlanNode, prefix string) error {
	if nd.rendered() {
		return d.copy(nd.end())
	}
	node, err := d.node(nd)
	if err != nil {
		return err
	}
	return d.render(func() { d.r.delegationEnd(node, node.ev.Body.(*transcript.Delegation), prefix) })
}

// node reads the events of an entry that was not rendered.
func (d *mdDoc) node(nd *mdPlanNode) (*mdNode, error) {
	first, err := d.event(nd.first)
	if err != nil {
		return nil, err
	}
	n := &mdNode{ev: first}
	if nd.second >= 0 {
		if n.second, err = d.event(nd.second); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (d *mdDoc) render(fn func()) error {
	d.r.w.Reset()
	fn()
	return d.out.write(d.r.w.Bytes())
}

func (d *mdDoc) copy(s mdSpan) error {
	text, err := d.text(s)
	if err != nil {
		return err
	}
	return d.out.write(text)
}

// quotePrefix is the quote prefix of the lines of an entry depth
// delegations deep, from a cache of them.
func quotePrefix(cache *[]string, depth int32) string {
	for int(depth) >= len(*cache) {
		*cache = append(*cache, strings.Repeat("> ", len(*cache)))
	}
	return (*cache)[depth]
}
