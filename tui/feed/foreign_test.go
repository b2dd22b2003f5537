package feed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// claudeFile writes a generated Claude Code transcript of about size
// bytes, with its sub-agents' files beside it.
func claudeFile(t *testing.T, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "projects", "-home-dev-shop", "b3f1c2d4-0000-4000-8000-000000000007.jsonl")
	if _, err := synthetic.WriteClaudeFile(path, synthetic.ClaudeOptions{Bytes: size, Seed: 7,
		Start: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	return path
}

// wholeTimeline is the timeline of the transcript at path decoded in one go.
func wholeTimeline(t *testing.T, path string) *timeline.Timeline {
	t.Helper()
	dec := session.NewTranscriptDecoder(foreign.FormatClaude, path, stream.ClipOptions{})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tl := timeline.New()
	add := func(ev *transcript.Event) error { tl.Add(ev); return nil }
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		_ = dec.Line([]byte(l), add)
	}
	_ = dec.Close(add)
	return tl
}

// kinds writes a timeline as one line per item: depth, kind, and whether
// it runs or failed.
func kinds(tl *timeline.Timeline) string {
	var b strings.Builder
	for _, it := range tl.Items() {
		fmt.Fprintf(&b, "%d %d %v %v\n", it.Depth, it.Kind, it.Running(), it.Failed())
	}
	return b.String()
}

// A big Claude Code transcript shows its tail first, its last message
// last; older parts come a step at a time when asked, and once all are in,
// the timeline is the one of the whole transcript, every call joined and
// every sub-agent's work in its block.
func TestForeignTailFirstThenOlderOnDemand(t *testing.T) {
	path := claudeFile(t, 5<<20)
	whole := wholeTimeline(t, path)
	f, c, wait := start(t, Target{Path: path})
	f.olderBytes = 1 << 20
	wait(func(c *collector) bool { return c.sawTail && c.tl.Len() > 0 })
	if !c.onDemand || !c.partial {
		t.Fatalf("a 5 MB transcript was not shown tail first: partial %v, on demand %v", c.partial, c.onDemand)
	}
	last, wantLast := c.tl.At(c.tl.Len()-1), whole.At(whole.Len()-1)
	if last.Kind != wantLast.Kind || !last.TS().Equal(wantLast.TS()) {
		t.Fatalf("the tail ends with %v at %v, the transcript with %v at %v", last.Kind, last.TS(), wantLast.Kind, wantLast.TS())
	}
	if c.tl.Len() >= whole.Len()/2 || c.tl.Start != nil {
		t.Fatalf("the tail has %d of %d items (start %v)", c.tl.Len(), whole.Len(), c.tl.Start != nil)
	}
	for step := 1; c.partial; step++ {
		if step > 20 {
			t.Fatal("older parts never end")
		}
		f.LoadOlder()
		wait(func(c *collector) bool { return c.olders == step })
	}
	if c.olders < 3 {
		t.Errorf("a 5 MB transcript came in %d steps of 1 MB", c.olders)
	}
	if got, want := kinds(c.tl), kinds(whole); got != want {
		t.Fatalf("read in parts, the timeline differs from the whole one (%d and %d items)", c.tl.Len(), whole.Len())
	}
	if c.tl.Counts != whole.Counts || c.tl.Start == nil {
		t.Errorf("counts %+v, want %+v", c.tl.Counts, whole.Counts)
	}
	for i := 1; i < c.tl.Len(); i++ {
		if c.tl.At(i).Seq() <= c.tl.At(i-1).Seq() && c.tl.At(i).Depth == 0 && c.tl.At(i-1).Depth == 0 {
			t.Fatalf("seq goes back at item %d: %d after %d", i, c.tl.At(i).Seq(), c.tl.At(i-1).Seq())
		}
	}
	f.LoadOlder() // nothing more: no batch, no notice
}

// What is appended to a foreign transcript shown tail first is followed.
func TestForeignTailFirstFollows(t *testing.T) {
	path := claudeFile(t, 3<<20)
	_, _, wait := start(t, Target{Path: path})
	wait(func(c *collector) bool { return c.sawTail && c.tl.Len() > 0 })
	appendFile(t, path, []byte(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":"b3f1c2d4-0000-4000-8000-000000000007","type":"user","message":{"role":"user","content":"APPENDED-PROMPT"},"uuid":"u-appended","timestamp":"2026-12-01T10:00:00.000Z"}`+"\n"))
	wait(func(c *collector) bool {
		it := c.tl.At(c.tl.Len() - 1)
		return it.Chat() != nil && it.Chat().Text == "APPENDED-PROMPT"
	})
}

// BenchmarkForeignTail opens a 20 MB Claude Code transcript: the time to
// its tail's batch (what the first screen waits for).
func BenchmarkForeignTail(b *testing.B) {
	path := filepath.Join(b.TempDir(), "b3f1c2d4-0000-4000-8000-000000000008.jsonl")
	if _, err := synthetic.WriteClaudeFile(path, synthetic.ClaudeOptions{Bytes: 20 << 20, Seed: 8}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		f := New(ctx, 1, Target{Path: path})
		done := make(chan struct{})
		go func() { defer close(done); f.Run() }()
		msg, ok := f.Wait().(Msg)
		if !ok || len(msg.Events) == 0 || !msg.Partial {
			b.Fatalf("first batch: %+v", msg)
		}
		cancel()
		<-done
	}
}

// A Claude Code transcript that ends in a line longer than tailMaxRead (a
// torn tail of zero bytes) has no tail to show first: the feed still says
// that older parts come on demand, and they do.
func TestForeignHugeLastLineLoadsOlderOnDemand(t *testing.T) {
	path := claudeFile(t, 256<<10)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, fi.Size()+tailMaxRead+(8<<20)); err != nil { // sparse zero bytes
		t.Fatal(err)
	}
	f, c, wait := start(t, Target{Path: path})
	wait(func(c *collector) bool { return c.onDemand && c.partial })
	for step := 1; c.partial; step++ {
		if step > 20 {
			t.Fatal("older parts never end")
		}
		f.LoadOlder()
		wait(func(c *collector) bool { return c.olders == step })
	}
	if c.tl.Start == nil || c.tl.Counts.Events == 0 {
		t.Errorf("the transcript before its torn tail is not shown: %d events, start %v", c.tl.Counts.Events, c.tl.Start != nil)
	}
}
