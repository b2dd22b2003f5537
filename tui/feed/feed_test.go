package feed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// waitTimeout bounds how long a test waits for the feed.
const waitTimeout = 10 * time.Second

// collector applies batches as the root model does.
type collector struct {
	tl      *timeline.Timeline
	partial bool
	sawTail bool
	// onDemand: older parts come when asked; olders counts them.
	onDemand bool
	olders   int
	notices  []string
	removed  bool
	err      error
	closed   bool
}

func newCollector() *collector { return &collector{tl: timeline.New()} }

func (c *collector) apply(b Batch) {
	if b.Partial {
		c.partial, c.sawTail = true, true
	}
	c.onDemand = c.onDemand || b.OnDemand
	if b.Full != nil {
		c.tl, c.partial = b.Full, false
	}
	if b.Older != nil {
		c.tl.Prepend(b.Older)
		c.partial, c.olders = b.Partial, c.olders+1
	}
	for _, ev := range b.Events {
		c.tl.Add(ev)
	}
	c.notices = append(c.notices, b.Notices...)
	c.removed = c.removed || b.Removed
	if b.Err != nil {
		c.err = b.Err
	}
	c.closed = c.closed || b.Closed
}

// start runs a feed and returns a function that waits until cond holds.
func start(t *testing.T, target Target) (*Feed, *collector, func(cond func(*collector) bool)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := New(ctx, 1, target)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.Run()
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	c := newCollector()
	wait := func(cond func(*collector) bool) {
		t.Helper()
		deadline := time.Now().Add(waitTimeout)
		for !cond(c) {
			if c.closed {
				t.Fatalf("the feed closed first; have %d items, removed %v, err %v", c.tl.Len(), c.removed, c.err)
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out; have %d items, partial %v, err %v", c.tl.Len(), c.partial, c.err)
			}
			msgs := make(chan any, 1)
			go func() { msgs <- f.Wait() }()
			select {
			case msg := <-msgs:
				if m, ok := msg.(Msg); ok {
					if m.Gen != 1 {
						t.Fatalf("gen %d", m.Gen)
					}
					c.apply(m.Batch)
				}
			case <-time.After(time.Until(deadline)):
				t.Fatalf("timed out waiting for a batch; have %d items, closed %v, removed %v, err %v", c.tl.Len(), c.closed, c.removed, c.err)
			}
		}
	}
	return f, c, wait
}

func writeFile(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fixture.ID+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func appendFile(t *testing.T, path string, data []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

func lastText(tl *timeline.Timeline) string {
	if tl.Len() == 0 {
		return ""
	}
	if c := tl.At(tl.Len() - 1).Chat(); c != nil {
		return c.Text
	}
	return ""
}

func TestSmallFileThenFollow(t *testing.T) {
	events := fixture.Session().Events
	path := writeFile(t, fixture.JSONL(events[:10]))
	_, c, wait := start(t, Target{Path: path})
	wait(func(c *collector) bool { return c.tl.Counts.Events == 10 })
	appendFile(t, path, fixture.JSONL(events[10:]))
	wait(func(c *collector) bool { return c.tl.End != nil })
	if c.tl.Counts.Events != int64(len(events)) || c.sawTail {
		t.Errorf("%d events, tail mode %v", c.tl.Counts.Events, c.sawTail)
	}
}

// TestTailFirst: a big file shows its tail first, then the full index
// replaces it, holding everything appended in the meantime exactly once.
func TestTailFirst(t *testing.T) {
	data := fixture.Big(20000)
	if len(data) <= DirectBytes {
		t.Fatalf("the fixture (%d bytes) is too small for tail-first loading", len(data))
	}
	path := writeFile(t, data)
	_, c, wait := start(t, Target{Path: path})
	wait(func(c *collector) bool { return c.sawTail && c.tl.Len() > 0 })
	if lastText(c.tl) != "LAST-EVENT-MARKER" {
		t.Errorf("the tail does not end with the last event: %q", lastText(c.tl))
	}
	if n := c.tl.Counts.Events; n < TailLines || n > 20000/2 {
		t.Errorf("the tail has %d events", n)
	}
	b := fixture.NewBuilder()
	for i := 0; i < 5; i++ {
		ev := b.Add(&transcript.ChatTurn{Role: "assistant", Text: "appended"}, "", "")
		ev.Seq = int64(20000 + i + 1)
	}
	appendFile(t, path, fixture.JSONL(b.Events))
	wait(func(c *collector) bool { return !c.partial && c.tl.Counts.Events == 20005 })
	if c.tl.Start == nil {
		t.Error("the full index lacks the session start")
	}
	seen := map[int64]bool{}
	for _, it := range c.tl.Items() {
		if it.Kind == timeline.KindNotice {
			continue
		}
		if seen[it.Seq()] {
			t.Fatalf("seq %d shows twice", it.Seq())
		}
		seen[it.Seq()] = true
	}
	if lastText(c.tl) != "appended" {
		t.Errorf("last item %q", lastText(c.tl))
	}
}

// bigEvents is the size of bigFile: big enough to be loaded tail first.
const bigEvents = 8000

func bigFile(t *testing.T) []byte {
	t.Helper()
	data := fixture.Big(bigEvents)
	if len(data) <= DirectBytes {
		t.Fatalf("the fixture (%d bytes) is too small for tail-first loading", len(data))
	}
	return data
}

// TestTailFirstLeavesOutputsInFile: the full index keeps the outputs of
// the head in the file and reads them back, also once the file is removed;
// they are searched as if they were in memory.
func TestTailFirstLeavesOutputsInFile(t *testing.T) {
	data := bigFile(t)
	path := writeFile(t, data)
	f, c, wait := start(t, Target{Path: path})
	wait(func(c *collector) bool { return !c.partial && c.tl.Counts.Events == bigEvents })
	want := map[int64]*transcript.Event{}
	for _, l := range fixture.Lines(data)[:1000] {
		ev, err := transcript.Decode(l.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		want[ev.Seq] = ev
	}
	check := func() {
		t.Helper()
		left := 0
		for _, it := range c.tl.Items()[:500] {
			ev := want[it.Seq()]
			r, ok := ev.Body.(*transcript.BashRun)
			if !ok {
				continue
			}
			got, err := it.Field(timeline.Stdout)
			if err != nil || got != r.Stdout {
				t.Fatalf("seq %d: stdout %q, %v; want %q", it.Seq(), got, err, r.Stdout)
			}
			if it.BashRun().Stdout == "" {
				left++
			}
			if !it.Contains("internal/pkg") || !it.Contains("0.012s\nok") || !it.Contains("0.012s") || it.Contains("0.012S") {
				t.Fatalf("seq %d: the output is not searched as it is", it.Seq())
			}
		}
		if left == 0 {
			t.Fatal("no output was left in the file")
		}
	}
	check()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	wait(func(c *collector) bool { return c.removed })
	check()
	var left *timeline.Item
	for _, it := range c.tl.Items() {
		if r := it.BashRun(); r != nil && r.Stdout == "" && it.FieldLines(timeline.Stdout) > 0 {
			left = it
			break
		}
	}
	f.Stop()
	deadline := time.Now().Add(waitTimeout)
	for {
		if _, err := left.Field(timeline.Stdout); err != nil {
			break // the feed stopped: the file is closed
		}
		if time.Now().After(deadline) {
			t.Fatal("the file stays open after the feed stopped")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFollowedOutputsLeftInFile: once the full index is handed out, the
// outputs of events followed after it are left in the file too; after the
// file is replaced by a rename, followed events are kept whole.
func TestFollowedOutputsLeftInFile(t *testing.T) {
	data := bigFile(t)
	path := writeFile(t, data)
	_, c, wait := start(t, Target{Path: path})
	wait(func(c *collector) bool { return !c.partial && c.tl.Counts.Events == bigEvents })
	run := func(seq int64, out string) []byte {
		b := fixture.NewBuilder()
		zero := 0
		ev := b.Add(&transcript.BashRun{Command: "make", ExitCode: &zero, Stdout: out}, fmt.Sprintf("f%d", seq), "")
		ev.Seq = seq
		return fixture.JSONL(b.Events)
	}
	long := strings.Repeat("followed output\t\"line\"\n", 40)
	appendFile(t, path, append([]byte("\n  "), run(bigEvents+1, long+"one")...))
	appendFile(t, path, run(bigEvents+2, long+"two"))
	wait(func(c *collector) bool { return c.tl.Counts.Events == bigEvents+2 })
	for i, want := range []string{long + "one", long + "two"} {
		it := c.tl.At(c.tl.Len() - 2 + i)
		if got, err := it.Field(timeline.Stdout); err != nil || got != want {
			t.Fatalf("followed output %d: %q, %v", i, got, err)
		}
		if it.BashRun().Stdout != "" {
			t.Errorf("followed output %d is kept in memory", i)
		}
		if !it.Contains("output\t\"line") || !it.Contains([]string{"one", "two"}[i]) {
			t.Errorf("followed output %d is not searched", i)
		}
	}
	// A prune rewrites the file and renames it into place: what follows
	// comes from another file than the one the index reads.
	tmp := path + ".new"
	if err := os.WriteFile(tmp, append(data, run(bigEvents+3, long+"three")...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	wait(func(c *collector) bool { return c.tl.Counts.Events == bigEvents+3 })
	it := c.tl.At(c.tl.Len() - 1)
	if got, err := it.Field(timeline.Stdout); err != nil || got != long+"three" || it.BashRun().Stdout != got {
		t.Fatalf("output after the replace: %q, %v; kept whole: %v", got, err, it.BashRun().Stdout != "")
	}
}

func TestMalformedAndTruncatedLines(t *testing.T) {
	events := fixture.Session().Events
	data := append(fixture.JSONL(events[:3]), []byte("{not json\n")...)
	data = append(data, fixture.JSONL(events[3:5])...)
	data = append(data, []byte(`{"v":1,"type":"chat_turn","seq":99,"text":"half a li`)...)
	path := writeFile(t, data)
	_, c, wait := start(t, Target{Path: path})
	wait(func(c *collector) bool { return c.tl.Counts.Events == 5 && len(c.notices) == 1 })
	if !strings.Contains(c.notices[0], "line 4") {
		t.Errorf("notice %q does not name the line", c.notices[0])
	}
	appendFile(t, path, []byte("ne\"}\n"))
	wait(func(c *collector) bool { return c.tl.Counts.Events == 6 })
}

func TestFileRemovedWhileFollowed(t *testing.T) {
	path := writeFile(t, fixture.JSONL(fixture.Session().Events[:4]))
	_, _, wait := start(t, Target{Path: path})
	wait(func(c *collector) bool { return c.tl.Counts.Events == 4 })
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	wait(func(c *collector) bool { return c.removed && c.closed })
}

func TestFileNotThereYet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "later.jsonl")
	_, _, wait := start(t, Target{Path: path})
	if err := os.WriteFile(path, fixture.JSONL(fixture.Session().Events[:2]), 0o600); err != nil {
		t.Fatal(err)
	}
	wait(func(c *collector) bool { return c.tl.Counts.Events == 2 })
}

func TestDirectoryIsAnError(t *testing.T) {
	_, _, wait := start(t, Target{Path: t.TempDir()})
	wait(func(c *collector) bool { return c.err != nil && c.closed })
}

// TestSourceFollow: a session without a file path is followed through its
// Source.
func TestSourceFollow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".cuff")
	s := session.Open(dir)
	s.NoSync = true
	w, err := s.Create(&transcript.SessionStart{Agent: "test"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Detach()
	_, c, wait := start(t, Target{Source: s.Source(), ID: w.ID()})
	wait(func(c *collector) bool { return c.tl.Counts.Events == 1 })
	if err := w.Append(transcript.New(w.ID(), time.Now(), &transcript.ChatTurn{Role: "user", Text: "hi"})); err != nil {
		t.Fatal(err)
	}
	wait(func(c *collector) bool { return c.tl.Counts.Events == 2 })
	if lastText(c.tl) != "hi" {
		t.Errorf("last %q", lastText(c.tl))
	}
}

func TestStopEndsWait(t *testing.T) {
	path := writeFile(t, fixture.JSONL(fixture.Session().Events[:2]))
	f, _, wait := start(t, Target{Path: path})
	wait(func(c *collector) bool { return c.tl.Counts.Events == 2 })
	f.Stop()
	got := make(chan any, 1)
	go func() { got <- f.Wait() }()
	select {
	case msg := <-got:
		if msg != nil {
			if _, ok := msg.(Msg); !ok {
				t.Fatalf("Wait after Stop returned %T", msg)
			}
		}
	case <-time.After(waitTimeout):
		t.Fatal("Wait does not return after Stop")
	}
}

func TestReadTailOneHugeLine(t *testing.T) {
	b := fixture.NewBuilder()
	b.Add(&transcript.ChatTurn{Role: "assistant", Text: strings.Repeat("x", 10<<20)}, "", "")
	path := writeFile(t, b.JSONL())
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	start, end, lines, err := readTail(f, fi.Size())
	if err != nil || start != 0 || end != fi.Size() || len(lines) != 1 {
		t.Fatalf("readTail = %d, %d, %d lines, %v", start, end, len(lines), err)
	}
	if _, _, lines, err := readTail(f, 0); err != nil || len(lines) != 0 {
		t.Fatalf("readTail of nothing = %d lines, %v", len(lines), err)
	}
}

// BenchmarkTailFirst is the time from opening a session of n events to
// having its tail (the first screen's events), and to the full index.
func BenchmarkTailFirst(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		path := filepath.Join(b.TempDir(), "s.jsonl")
		if err := os.WriteFile(path, fixture.Big(n), 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			var tail, full time.Duration
			for b.Loop() {
				ctx, cancel := context.WithCancel(context.Background())
				f := New(ctx, 1, Target{Path: path})
				t0 := time.Now()
				go f.Run()
				c := newCollector()
				for c.tl.Len() == 0 {
					if m, ok := f.Wait().(Msg); ok {
						c.apply(m.Batch)
					}
				}
				tail += time.Since(t0)
				for c.partial || c.tl.Counts.Events < int64(n) {
					if m, ok := f.Wait().(Msg); ok {
						c.apply(m.Batch)
					}
				}
				full += time.Since(t0)
				cancel()
			}
			b.ReportMetric(float64(tail.Milliseconds())/float64(b.N), "ms-to-tail")
			b.ReportMetric(float64(full.Milliseconds())/float64(b.N), "ms-to-full")
		})
	}
}

// BenchmarkIndexMemory reports the heap a fully indexed session of 100,000
// events keeps, against the size of its file.
func BenchmarkIndexMemory(b *testing.B) {
	path := filepath.Join(b.TempDir(), "s.jsonl")
	data := fixture.Big(100000)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	var heap uint64
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		f := New(ctx, 1, Target{Path: path})
		go f.Run()
		c := newCollector()
		for c.partial || c.tl.Counts.Events < 100000 {
			if m, ok := f.Wait().(Msg); ok {
				c.apply(m.Batch)
			}
		}
		cancel()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.HeapInuse
		runtime.KeepAlive(c)
	}
	b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
	b.ReportMetric(float64(len(data))/(1<<20), "file-MB")
	b.ReportMetric(float64(heap)/float64(len(data)), "heap/file")
}

// TestReadTailUnfinishedLineLongerThanTheCap: a file that ends in a line
// longer than tailMaxRead (here a sparse stretch of zero bytes) gives no
// tail, starts indexing and following where that line starts, and never
// reads the whole file at once.
func TestReadTailUnfinishedLineLongerThanTheCap(t *testing.T) {
	head := fixture.JSONL(fixture.Session().Events[:3])
	path := writeFile(t, head)
	if err := os.Truncate(path, int64(len(head))+tailMaxRead+(8<<20)); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	start, end, lines, err := readTail(f, fi.Size())
	if err != nil || start != int64(len(head)) || end != start || len(lines) != 0 {
		t.Fatalf("readTail = %d, %d, %d lines, %v; want %d, %d, none", start, end, len(lines), err, len(head), len(head))
	}
}

// TestFeedShowsWhatComesBeforeAHugeLastLine: a session whose last line is
// longer than tailMaxRead, unfinished (a crash's torn tail) or finished (a
// garbage line of hundreds of megabytes), has no tail to show first; the
// events before that line are shown all the same (the TUI used to say
// "Loading…" for ever: with nothing in the tail, the first screen was never
// handed out and the index waited for it).
func TestFeedShowsWhatComesBeforeAHugeLastLine(t *testing.T) {
	for _, finished := range []bool{false, true} {
		t.Run(fmt.Sprintf("finished=%v", finished), func(t *testing.T) {
			head := fixture.JSONL(fixture.Session().Events[:3])
			path := writeFile(t, head)
			size := int64(len(head)) + tailMaxRead + (8 << 20)
			if err := os.Truncate(path, size); err != nil { // sparse zero bytes
				t.Fatal(err)
			}
			if finished {
				appendFile(t, path, []byte("\n"))
			}
			_, c, wait := start(t, Target{Path: path})
			wait(func(c *collector) bool { return !c.partial && c.tl.Counts.Events == 3 })
			if c.tl.Start == nil {
				t.Error("the session start is not shown")
			}
		})
	}
}
