package runner

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

func writeChunks(b *headTail, data []byte, chunk int) {
	for len(data) > 0 {
		n := min(chunk, len(data))
		_, _ = b.Write(data[:n])
		data = data[n:]
	}
}

func TestHeadTailKeepsEverythingWithinLimit(t *testing.T) {
	for _, size := range []int{0, 1, 9, 10} {
		b := newHeadTail(10, nil)
		data := bytes.Repeat([]byte("x"), size)
		writeChunks(b, data, 3)
		out := b.output()
		if out.Text != string(data) || out.Truncated || out.OriginalBytes != int64(size) || out.KeptBytes != int64(size) {
			t.Fatalf("size %d: %+v", size, out)
		}
	}
}

func TestHeadTailKeepsHeadAndTail(t *testing.T) {
	data := []byte("0123456789abcdefghijklmnopqrstuvwxyz")
	for _, chunk := range []int{1, 2, 5, 7, 36} {
		b := newHeadTail(10, nil)
		writeChunks(b, data, chunk)
		out := b.output()
		want := "01234" + fmt.Sprintf(truncationMarker, 26) + "vwxyz"
		if out.Text != want {
			t.Fatalf("chunk %d: got %q want %q", chunk, out.Text, want)
		}
		if !out.Truncated || out.OriginalBytes != 36 || out.KeptBytes != 10 || out.OmittedBytes != 26 {
			t.Fatalf("chunk %d: sizes %+v", chunk, out)
		}
	}
}

func TestHeadTailCutsAtCharacterBoundaries(t *testing.T) {
	// "é" is two bytes and "€" three; a cut in the middle of one must not show half of it.
	data := []byte(strings.Repeat("é", 10) + strings.Repeat("€", 10))
	b := newHeadTail(9, nil)
	writeChunks(b, data, 4)
	out := b.output()
	if !utf8.ValidString(out.Text) {
		t.Fatalf("text is not valid UTF-8: %q", out.Text)
	}
	if !strings.HasPrefix(out.Text, "éé\n") || !strings.HasSuffix(out.Text, "\n€") {
		t.Fatalf("got %q", out.Text)
	}
	if out.KeptBytes+out.OmittedBytes != out.OriginalBytes || out.KeptBytes != 4+3 {
		t.Fatalf("sizes %+v", out)
	}
	if !strings.Contains(out.Text, fmt.Sprintf("%d bytes omitted", out.OmittedBytes)) {
		t.Fatalf("marker must state the omitted count: %q", out.Text)
	}
}

func TestHugeOutputThroughBoundedMemory(t *testing.T) {
	const size = 300_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := run(t, Command{Shell: "/bin/sh",
		Script: fmt.Sprintf("head -c %d /dev/zero & head -c %d /dev/zero >&2; wait", size, size),
		Stdout: io.Discard})
	runtime.ReadMemStats(&after)
	wantCode(t, res, CodeOutputTooLarge)
	if res.ExitStatus() != 0 {
		t.Fatalf("truncation must not change the exit status: %d", res.ExitStatus())
	}
	for _, out := range []Output{res.Stdout, res.Stderr} {
		if out.OriginalBytes != size || out.KeptBytes != DefaultMaxOutputBytes || !out.Truncated ||
			out.OmittedBytes != size-DefaultMaxOutputBytes {
			t.Fatalf("sizes %+v", Output{OriginalBytes: out.OriginalBytes, KeptBytes: out.KeptBytes, OmittedBytes: out.OmittedBytes})
		}
		if !strings.Contains(out.Text, fmt.Sprintf("%d bytes omitted", size-DefaultMaxOutputBytes)) {
			t.Fatal("marker with the omitted count missing")
		}
	}
	// 600 MB went through; what was allocated must stay near the two 1 MB buffers.
	const budget = 16 << 20
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > budget {
		t.Fatalf("allocated %d bytes for %d bytes of output (budget %d)", alloc, 2*size, budget)
	}
}

// FuzzHeadTail checks the buffer against the plain input for any data, limit and
// chunking: the head is a prefix, the tail a suffix, the sizes add up and nothing is
// lost when the data fits.
func FuzzHeadTail(f *testing.F) {
	f.Add([]byte("hello world"), uint16(4), uint8(3))
	f.Add([]byte(""), uint16(0), uint8(1))
	f.Add([]byte("ééééé€€€€"), uint16(5), uint8(2))
	f.Add(bytes.Repeat([]byte{0xff, 0x80}, 50), uint16(7), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, chunk uint8) {
		b := newHeadTail(int(limit), nil)
		writeChunks(b, data, max(1, int(chunk)))
		out := b.output()
		if out.OriginalBytes != int64(len(data)) || out.KeptBytes+out.OmittedBytes != out.OriginalBytes {
			t.Fatalf("sizes %+v for %d bytes", out, len(data))
		}
		if out.KeptBytes > int64(limit) {
			t.Fatalf("kept %d > limit %d", out.KeptBytes, limit)
		}
		if len(data) <= int(limit) {
			if out.Truncated || out.Text != string(data) {
				t.Fatalf("data within the limit changed: %q -> %q", data, out.Text)
			}
			return
		}
		if !out.Truncated {
			t.Fatal("not marked truncated")
		}
		marker := fmt.Sprintf(truncationMarker, out.OmittedBytes)
		head, tail, ok := strings.Cut(out.Text, marker)
		if !ok {
			t.Fatalf("marker missing in %q", out.Text)
		}
		if !bytes.HasPrefix(data, []byte(head)) || !bytes.HasSuffix(data, []byte(tail)) {
			t.Fatalf("head %q / tail %q do not match the data", head, tail)
		}
		if int64(len(head)+len(tail)) != out.KeptBytes {
			t.Fatalf("kept %d, text holds %d", out.KeptBytes, len(head)+len(tail))
		}
		if utf8.Valid(data) && (!utf8.ValidString(head) || !utf8.ValidString(tail)) {
			t.Fatalf("valid UTF-8 input cut mid-character: %q / %q", head, tail)
		}
	})
}

// TestRedactBeforeCutting: a secret across a cut of a long output is
// redacted whole before the cut, not kept in part (a 36-character token cut
// at 31 used to stay as 31 characters no rule recognises); so is a private
// key whose BEGIN line fell in the part left out.
func TestRedactBeforeCutting(t *testing.T) {
	token := "tok_" + strings.Repeat("Zq9", 12)
	redact := func(s string) string { // stands in for the project's redactor
		s = strings.ReplaceAll(s, token, "[REDACTED]")
		if i := strings.Index(s, "BEGIN KEY"); i >= 0 {
			if j := strings.Index(s[i:], "END KEY"); j >= 0 {
				s = s[:i] + "[REDACTED]" + s[i+j+len("END KEY"):]
			}
		}
		return s
	}
	const limit = 1000
	filler := strings.Repeat("x ", 4000)
	for name, data := range map[string]string{
		"token across the head's cut": filler[:limit/2-10] + token + filler,
		"token across the tail's cut": filler + token + filler[:limit/2-10],
		"key across the tail's cut":   filler + "BEGIN KEY " + strings.Repeat("Kk8", 300) + " END KEY" + filler[:limit/2-100],
	} {
		b := newHeadTail(limit, redact)
		writeChunks(b, []byte(data), 333)
		out := b.output()
		if !out.Truncated || strings.Contains(out.Text, token[:12]) || strings.Contains(out.Text, "Kk8Kk8") || len(out.Text) > limit+100 {
			t.Errorf("%s: kept %d bytes: %q", name, len(out.Text), out.Text)
		}
		if out.KeptBytes+out.OmittedBytes != out.OriginalBytes || out.KeptBytes > limit {
			t.Errorf("%s: sizes %+v", name, Output{OriginalBytes: out.OriginalBytes, KeptBytes: out.KeptBytes, OmittedBytes: out.OmittedBytes})
		}
	}
	// Without a redactor, the same output keeps the part of the token.
	b := newHeadTail(limit, nil)
	writeChunks(b, []byte(filler[:limit/2-10]+token+filler), 333)
	if out := b.output(); !strings.Contains(out.Text, token[:10]) {
		t.Errorf("the test does not cut the token: %q", out.Text[:limit/2])
	}
}

// FuzzHeadTailRedacting checks a redacting buffer (with a redactor that
// changes nothing) the same way: its margins never make it keep more than
// the limit, nor show anything but a prefix and a suffix of the data.
func FuzzHeadTailRedacting(f *testing.F) {
	f.Add([]byte("hello world"), uint16(4), uint8(3))
	f.Add(bytes.Repeat([]byte("ab"), 40000), uint16(1000), uint8(200))
	f.Add([]byte("ééééé€€€€"), uint16(5), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, chunk uint8) {
		b := newHeadTail(int(limit), func(s string) string { return s })
		writeChunks(b, data, max(1, int(chunk)))
		out := b.output()
		if out.OriginalBytes != int64(len(data)) || out.KeptBytes+out.OmittedBytes != out.OriginalBytes || out.KeptBytes > int64(limit) {
			t.Fatalf("sizes %+v for %d bytes, limit %d", Output{OriginalBytes: out.OriginalBytes, KeptBytes: out.KeptBytes, OmittedBytes: out.OmittedBytes}, len(data), limit)
		}
		if !out.Truncated {
			if out.Text != string(data) {
				t.Fatalf("not truncated, but changed")
			}
			return
		}
		head, tail, ok := strings.Cut(out.Text, fmt.Sprintf(truncationMarker, out.OmittedBytes))
		if !ok || !bytes.HasPrefix(data, []byte(head)) || !bytes.HasSuffix(data, []byte(tail)) {
			t.Fatalf("head %q / tail %q do not match the data", head, tail)
		}
	})
}
