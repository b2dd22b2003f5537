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
//
// With a redact function it keeps cutMargin bytes more on each side of each cut:
// the head and the tail are redacted before they are cut to size, so that a secret
// across a cut (a token, a private key whose BEGIN line is in the part left out) is
// seen whole and replaced, not kept in part.
type headTail struct {
	headMax int // what the head keeps of the output
	tailMax int
	margin  int // kept beyond each cut, for redaction
	redact  func(string) string
	head    []byte
	tail    []byte // ring buffer, allocated when the head is full
	tailPos int    // where the next tail byte goes
	tailLen int
	total   int64
}

// cutMargin is what a redacting headTail keeps beyond each cut: more than any
// secret the redactor knows (a 4096-bit RSA key's PEM block is about 3.3 KB).
const cutMargin = 16 << 10

// The head starts at initialHeadCap bytes, so small outputs stay small, and grows by
// headGrowth at a time.
const (
	initialHeadCap = 4096
	headGrowth     = 4
)

// newHeadTail keeps limit bytes of an output, redacted by redact (when not nil)
// before it is cut.
func newHeadTail(limit int, redact func(string) string) *headTail {
	head := limit / 2
	b := &headTail{headMax: head, tailMax: limit - head, redact: redact}
	if redact != nil && limit > 0 {
		b.margin = cutMargin
	}
	return b
}

// Write keeps p's bytes that belong to the head or the tail; it never fails.
func (b *headTail) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if room := b.headKeep() - len(b.head); room > 0 {
		k := min(room, len(p))
		b.growHead(k)
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	tailKeep := b.tailKeep()
	if len(p) == 0 || tailKeep == 0 {
		return n, nil
	}
	if b.tail == nil {
		b.tail = make([]byte, tailKeep)
	}
	if len(p) >= tailKeep {
		copy(b.tail, p[len(p)-tailKeep:])
		b.tailPos, b.tailLen = 0, tailKeep
		return n, nil
	}
	k := copy(b.tail[b.tailPos:], p)
	if k < len(p) {
		copy(b.tail, p[k:])
	}
	b.tailPos = (b.tailPos + len(p)) % tailKeep
	b.tailLen = min(b.tailLen+len(p), tailKeep)
	return n, nil
}

// headKeep and tailKeep are what the buffer holds of each side: the part kept,
// and the margin that redaction sees beyond the cut.
func (b *headTail) headKeep() int { return b.headMax + b.margin }

func (b *headTail) tailKeep() int {
	if b.tailMax == 0 {
		return 0
	}
	return b.tailMax + b.margin
}

// growHead makes room for k more head bytes, growing fourfold (up to headMax) so that
// a large head is copied only a few times while a small output stays small.
func (b *headTail) growHead(k int) {
	need := len(b.head) + k
	if need <= cap(b.head) {
		return
	}
	grown := make([]byte, len(b.head), min(b.headKeep(), max(need, headGrowth*cap(b.head), initialHeadCap)))
	copy(grown, b.head)
	b.head = grown
}

// tailParts returns the tail in write order, as the ring's two segments.
func (b *headTail) tailParts() (first, second []byte) {
	if b.tailLen < b.tailKeep() {
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
	if b.total <= int64(b.headMax+b.tailMax) {
		text.Grow(int(kept))
		text.Write(b.head)
		text.Write(t1)
		text.Write(t2)
		out.Text = text.String()
		return out
	}
	if b.redact != nil {
		return b.redactedOutput(t1, t2)
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

// redactedOutput is output for a redacting buffer that dropped bytes: the head and
// the tail, each with its margin (or the whole output, when the margins reach over
// the part left out), are redacted and only then cut to size.
func (b *headTail) redactedOutput(t1, t2 []byte) Output {
	var head, tail string
	if kept := int64(len(b.head) + len(t1) + len(t2)); kept == b.total {
		all := b.redact(string(b.head) + string(t1) + string(t2)) // nothing was dropped: one text
		if len(all) <= b.headMax+b.tailMax {
			return Output{Captured: true, OriginalBytes: b.total, KeptBytes: int64(len(all)), Text: all}
		}
		head, tail = all, all
	} else {
		head, tail = b.redact(string(b.head)), b.redact(string(t1)+string(t2))
	}
	if len(head) > b.headMax {
		head = string(trimPartialEnd([]byte(head[:b.headMax])))
	}
	if len(tail) > b.tailMax {
		tail = string(trimPartialStart([]byte(tail[len(tail)-b.tailMax:])))
	}
	out := Output{Captured: true, OriginalBytes: b.total, Truncated: true,
		KeptBytes: int64(len(head) + len(tail))}
	out.OmittedBytes = max(0, b.total-out.KeptBytes)
	out.Text = head + fmt.Sprintf(truncationMarker, out.OmittedBytes) + tail
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
