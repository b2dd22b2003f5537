package session

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/transcript"
)

// countdown is a context that is cancelled after Err has been asked n
// times: a budget that runs out at a known point of the work.
type countdown struct {
	context.Context
	n    atomic.Int64
	done chan struct{}
	once sync.Once
}

func newCountdown(n int64) *countdown {
	c := &countdown{Context: context.Background(), done: make(chan struct{})}
	c.n.Store(n)
	return c
}

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		c.once.Do(func() { close(c.done) })
		return context.Canceled
	}
	return nil
}

func (c *countdown) Done() <-chan struct{} { return c.done }

// writeHistory writes Claude Code sessions of the given sizes, newest
// last, under a fresh configuration folder.
func writeHistory(t *testing.T, sizes ...int64) (dir string, paths []string) {
	t.Helper()
	dir = t.TempDir()
	start := time.Date(2026, 2, 1, 9, 0, 0, 0, time.UTC)
	for i, size := range sizes {
		p := filepath.Join(dir, "projects", "-home-dev-shop", fmt.Sprintf("b3f1c2d4-0000-4000-8000-%012d.jsonl", i))
		if _, err := synthetic.WriteClaudeFile(p, synthetic.ClaudeOptions{Bytes: size, Seed: uint64(i + 1), Start: start.Add(time.Duration(i) * 24 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return dir, paths
}

// fullCounts counts a session from a whole (not brief) read.
func fullCounts(t *testing.T, src *FolderSource, id string) Meta {
	t.Helper()
	var m Meta
	if err := src.Read(context.Background(), id, func(ev *transcript.Event) error { m.add(ev); return nil }); err != nil {
		t.Fatal(err)
	}
	return m
}

// Counting reads each file briefly, several at once: the counts are those
// of a whole read, sub-agents' own files included.
func TestFillCountsAsAWholeReadDoes(t *testing.T) {
	dir, _ := writeHistory(t, 300<<10, 2<<20, 700<<10, 90<<10)
	src := ClaudeSource(dir, "")
	infos, err := src.List(context.Background())
	if err != nil || len(infos) != 4 {
		t.Fatal(err, len(infos))
	}
	if err := src.Fill(context.Background(), infos); err != nil {
		t.Fatal(err)
	}
	var failures int64
	for _, in := range infos {
		m := fullCounts(t, src, in.ID)
		got := [...]int64{in.Events, in.Turns, in.ToolCalls, in.Commands, in.Failures, in.TimedOut, in.Approvals}
		want := [...]int64{m.EntryCount, m.Turns, m.ToolCalls, m.Commands, m.Failures(), m.CommandsTimedOut, m.Approvals}
		if got != want || m.Commands == 0 {
			t.Errorf("%s: counted %v, a whole read counts %v", in.ID, got, want)
		}
		failures += in.Failures
		if in.Title == "" || len([]rune(in.Title)) < 20 {
			t.Errorf("%s: title %q", in.ID, in.Title)
		}
	}
	if failures == 0 {
		t.Error("no failed command in the history: the test checks too little")
	}
}

// A count cut short by its budget keeps what it finished: the next
// listing has those counts from the cache and counts only the rest.
func TestFillCutShortKeepsWhatItCounted(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1)) // one file at a time: a known order
	dir, _ := writeHistory(t, 3<<20, 200<<10)       // the newest, listed first, is the small one
	cache := filepath.Join(t.TempDir(), "claude.json")
	src := ClaudeSource(dir, cache)
	infos, err := src.List(context.Background())
	if err != nil || len(infos) != 2 || infos[0].SizeBytes > 1<<20 {
		t.Fatal(err, infos)
	}
	small := fullCounts(t, src, infos[0].ID)
	// Budget: the check before each file, one per event of the small
	// session, then a few events into the big one.
	if err := src.Fill(newCountdown(1+small.EntryCount+1+5), infos); err == nil {
		t.Fatal("a fill whose budget ran out reports no error")
	}
	if infos[0].Events != small.EntryCount || infos[1].Events != Unknown {
		t.Fatalf("after the cut: %d and %d events, want %d and unknown", infos[0].Events, infos[1].Events, small.EntryCount)
	}
	again, err := ClaudeSource(dir, cache).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Events != small.EntryCount || again[1].Events != Unknown {
		t.Fatalf("the next listing has %d and %d events, want %d from the cache and unknown", again[0].Events, again[1].Events, small.EntryCount)
	}
}
