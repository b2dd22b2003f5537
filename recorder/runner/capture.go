package runner

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Output is what was kept of one output stream.
type Output struct {
	// Text is the kept output: all of it, or its head and tail joined by a marker that
	// says how many bytes were omitted.
	Text string `json:"text"`
	// Captured is false when the capture mode left this stream out.
	Captured bool `json:"captured"`
	// OriginalBytes is how many bytes the command wrote to the stream.
	OriginalBytes int64 `json:"original_bytes"`
	// KeptBytes is how many of them are in Text (the marker not counted).
	KeptBytes int64 `json:"kept_bytes"`
	// OmittedBytes is OriginalBytes - KeptBytes.
	OmittedBytes int64 `json:"omitted_bytes"`
	Truncated    bool  `json:"truncated"`
}

// headTail keeps the first and the last bytes written to it, within a fixed budget,
// and counts everything. Memory use never exceeds the budget, whatever is written.
type headTail struct {
	headMax int
	tailMax int
	head    []byte
	tail    []byte // ring buffer, allocated when the head is full
	tailPos int    // where the next tail byte goes
	tailLen int
	total   int64
}

// The head starts at initialHeadCap bytes, so small outputs stay small, and grows by
// headGrowth at a time.
const (
	initialHeadCap = 4096
	headGrowth     = 4
)

func newHeadTail(limit int) *headTail {
	head := limit / 2
	return &headTail{headMax: head, tailMax: limit - head}
}

// Write keeps p's bytes that belong to the head or the tail; it never fails.
func (b *headTail) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.growHead(k)
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || b.tailMax == 0 {
		return n, nil
	}
	if b.tail == nil {
		b.tail = make([]byte, b.tailMax)
	}
	if len(p) >= b.tailMax {
		copy(b.tail, p[len(p)-b.tailMax:])
		b.tailPos, b.tailLen = 0, b.tailMax
		return n, nil
	}
	k := copy(b.tail[b.tailPos:], p)
	if k < len(p) {
		copy(b.tail, p[k:])
	}
	b.tailPos = (b.tailPos + len(p)) % b.tailMax
	b.tailLen = min(b.tailLen+len(p), b.tailMax)
	return n, nil
}

// growHead makes room for k more head bytes, growing fourfold (up to headMax) so that
// a large head is copied only a few times while a small output stays small.
func (b *headTail) growHead(k int) {
	need := len(b.head) + k
	if need <= cap(b.head) {
		return
	}
	grown := make([]byte, len(b.head), min(b.headMax, max(need, headGrowth*cap(b.head), initialHeadCap)))
	copy(grown, b.head)
	b.head = grown
}

// tailParts returns the tail in write order, as the ring's two segments.
func (b *headTail) tailParts() (first, second []byte) {
	if b.tailLen < b.tailMax {
		return b.tail[:b.tailLen], nil
	}
	return b.tail[b.tailPos:], b.tail[:b.tailPos]
}

// truncationMarker separates head and tail; %d is the number of omitted bytes.
const truncationMarker = "\n\n[... cuff: %d bytes omitted ...]\n\n"

// output renders the kept text. When bytes were dropped, the head is cut back to a
// whole UTF-8 character and the tail starts at one, so the text does not begin or end
// mid-character; the bytes cut are counted as omitted.
func (b *headTail) output() Output {
	t1, t2 := b.tailParts()
	kept := int64(len(b.head) + len(t1) + len(t2))
	out := Output{Captured: true, OriginalBytes: b.total, KeptBytes: kept}
	var text strings.Builder
	if kept == b.total {
		text.Grow(int(kept))
		text.Write(b.head)
		text.Write(t1)
		text.Write(t2)
		out.Text = text.String()
		return out
	}
	head := trimPartialEnd(b.head)
	t1, t2 = trimTailStart(t1, t2)
	out.KeptBytes = int64(len(head) + len(t1) + len(t2))
	out.OmittedBytes = b.total - out.KeptBytes
	out.Truncated = true
	marker := fmt.Sprintf(truncationMarker, out.OmittedBytes)
	text.Grow(int(out.KeptBytes) + len(marker))
	text.Write(head)
	text.WriteString(marker)
	text.Write(t1)
	text.Write(t2)
	out.Text = text.String()
	return out
}

// trimTailStart drops a partial UTF-8 character at the start of a tail held in two
// segments.
func trimTailStart(first, second []byte) ([]byte, []byte) {
	if len(first) >= utf8.UTFMax || len(second) == 0 {
		return trimPartialStart(first), second
	}
	joined := append(append(make([]byte, 0, utf8.UTFMax*2), first...), second[:min(len(second), utf8.UTFMax)]...)
	cut := len(joined) - len(trimPartialStart(joined))
	if cut <= len(first) {
		return first[cut:], second
	}
	return nil, second[cut-len(first):]
}

// trimPartialEnd drops an incomplete UTF-8 sequence at the end of p.
func trimPartialEnd(p []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return p[:len(p)-i]
			}
			return p
		}
	}
	return p
}

// trimPartialStart drops the continuation bytes (at most three) that start p.
func trimPartialStart(p []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && i < len(p); i++ {
		if utf8.RuneStart(p[i]) {
			return p[i:]
		}
	}
	return p[min(len(p), utf8.UTFMax-1):]
}
