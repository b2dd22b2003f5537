package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// collector gathers follow items and lets a test wait for a count.
type collector struct {
	mu    sync.Mutex
	items []FollowItem
	ch    chan struct{}
}

func newCollector() *collector { return &collector{ch: make(chan struct{}, 1000)} }

func (c *collector) add(it FollowItem) {
	c.mu.Lock()
	c.items = append(c.items, it)
	c.mu.Unlock()
	c.ch <- struct{}{}
}

func (c *collector) wait(t *testing.T, n int) []FollowItem {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		if len(c.items) >= n {
			out := append([]FollowItem(nil), c.items...)
			c.mu.Unlock()
			return out
		}
		c.mu.Unlock()
		select {
		case <-c.ch:
		case <-deadline:
			t.Fatalf("waited 5 s for %d items, have %d", n, len(c.items))
		}
	}
}

func startFollow(t *testing.T, path string, opts FollowOptions) (*collector, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c := newCollector()
	done := make(chan error, 1)
	go func() { done <- Follow(ctx, path, opts, c.add) }()
	return c, func() error { cancel(); return <-done }
}

func appendLine(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestFollowSeesAppendsAndWaitsForPartialLines(t *testing.T) {
	for _, noNotify := range []bool{false, true} {
		t.Run(map[bool]string{false: "notify", true: "poll"}[noNotify], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			c, stop := startFollow(t, path, FollowOptions{NoNotify: noNotify}) // file does not exist yet
			time.Sleep(20 * time.Millisecond)
			appendLine(t, path, `{"v":1,"type":"chat_turn","seq":1,"role":"user","text":"one"}`+"\n")
			items := c.wait(t, 1)
			if items[0].Event == nil || items[0].Event.Body.(*transcript.ChatTurn).Text != "one" {
				t.Fatalf("first item %+v", items[0])
			}
			appendLine(t, path, `{"v":1,"type":"chat_turn","seq":2,"role":"user","te`)
			time.Sleep(150 * time.Millisecond)
			c.mu.Lock()
			if len(c.items) != 1 {
				t.Errorf("partial line was reported: %+v", c.items[1:])
			}
			c.mu.Unlock()
			appendLine(t, path, `xt":"two"}`+"\nnot json\n")
			items = c.wait(t, 3)
			if items[1].Event == nil || items[1].Event.Body.(*transcript.ChatTurn).Text != "two" {
				t.Errorf("completed line: %+v", items[1])
			}
			var le *transcript.LineError
			if !errors.As(items[2].Err, &le) || le.Line != 3 {
				t.Errorf("malformed line: %+v", items[2])
			}
			fi, _ := os.Stat(path)
			if items[2].Offset != fi.Size() {
				t.Errorf("offset %d, file size %d", items[2].Offset, fi.Size())
			}
			if err := stop(); err != nil {
				t.Errorf("Follow returned %v on cancel", err)
			}
		})
	}
}

func TestFollowReportsRemovalAndTruncation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	line := `{"v":1,"type":"chat_turn","seq":1,"role":"user","text":"a"}` + "\n"
	appendLine(t, path, line+line)
	c, stop := startFollow(t, path, FollowOptions{From: int64(len(line))})
	items := c.wait(t, 1)
	if len(items) != 1 {
		t.Fatalf("From was not honoured: %d items", len(items))
	}
	os.WriteFile(path, []byte(line[:0]), 0o600) // truncate to empty
	appendLine(t, path, line)
	items = c.wait(t, 3)
	if !errors.Is(items[1].Err, ErrTruncated) || items[2].Event == nil {
		t.Errorf("after truncation: %+v", items[1:])
	}
	os.Remove(path)
	if err := stop(); !errors.Is(err, ErrRemoved) {
		// stop cancels; the follower may have noticed the removal first
		t.Logf("stop returned %v", err)
	}
}

func TestFollowEndsWithErrRemoved(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLine(t, path, `{"v":1,"type":"chat_turn","seq":1,"role":"user","text":"a"}`+"\n")
	done := make(chan error, 1)
	c := newCollector()
	go func() { done <- Follow(context.Background(), path, FollowOptions{}, c.add) }()
	c.wait(t, 1)
	os.Remove(path)
	select {
	case err := <-done:
		if !errors.Is(err, ErrRemoved) {
			t.Errorf("got %v, want ErrRemoved", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Follow did not notice the removal")
	}
}

func TestFollowDoesNotRepeatEventsWhenTheFileIsReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	line := func(seq int) string {
		return fmt.Sprintf(`{"v":1,"type":"chat_turn","seq":%d,"role":"user","text":"t%d"}`+"\n", seq, seq)
	}
	appendLine(t, path, line(1)+line(2)+line(3))
	c, stop := startFollow(t, path, FollowOptions{})
	c.wait(t, 3)
	// a prune rewrites the file without event 2 and renames it into place
	tmp := filepath.Join(dir, "s.tmp")
	os.WriteFile(tmp, []byte(line(1)+line(3)), 0o600)
	os.Rename(tmp, path)
	appendLine(t, path, line(4))
	items := c.wait(t, 4)
	time.Sleep(100 * time.Millisecond)
	c.mu.Lock()
	n := len(c.items)
	c.mu.Unlock()
	if n != 4 || items[3].Event.Seq != 4 {
		t.Errorf("%d items after the replacement, want 4 (no repeats)", n)
	}
	stop()
}

// TestFollowSeenFileRemovedBeforeStart: a caller that read the file and
// then started following must learn of a removal that happened in between,
// not wait for the file to be created.
func TestFollowSeenFileRemovedBeforeStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	line := `{"v":1,"type":"chat_turn","seq":1,"role":"user","text":"a"}` + "\n"
	appendLine(t, path, line)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	done := make(chan error, 1)
	go func() {
		done <- Follow(context.Background(), path, FollowOptions{From: int64(len(line)), Seen: fi}, func(FollowItem) {})
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrRemoved) {
			t.Errorf("got %v, want ErrRemoved", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Follow waits for a file that was removed before it started")
	}
}

// TestFollowSeenFileReplacedBeforeStart: a file replaced between the
// caller's read and the follow is read from its start, skipping the events
// the caller already has.
func TestFollowSeenFileReplacedBeforeStart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	line := func(seq int) string {
		return fmt.Sprintf(`{"v":1,"type":"chat_turn","seq":%d,"role":"user","text":"t%d"}`+"\n", seq, seq)
	}
	appendLine(t, path, line(1)+line(2))
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "s.tmp")
	os.WriteFile(tmp, []byte(line(1)+line(2)+line(3)), 0o600)
	os.Rename(tmp, path)
	c, stop := startFollow(t, path, FollowOptions{From: fi.Size(), Seen: fi, AfterSeq: 2})
	items := c.wait(t, 1)
	time.Sleep(100 * time.Millisecond)
	c.mu.Lock()
	n := len(c.items)
	c.mu.Unlock()
	if n != 1 || items[0].Event == nil || items[0].Event.Seq != 3 {
		t.Errorf("got %d items (first %+v), want only seq 3", n, items[0])
	}
	stop()
}

// TestFollowTakesAWithdrawnPartialLineBack: an append cut short (a full
// disk) is taken back by the appender, shrinking the file to where the
// unfinished line started. A follower that saw the unfinished line drops
// it: the file was not truncated, nothing is read again or passed twice.
func TestFollowTakesAWithdrawnPartialLineBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	one := `{"v":1,"type":"chat_turn","seq":1,"role":"user","text":"one"}` + "\n"
	appendLine(t, path, one+`{"v":1,"type":"chat_turn","seq":2,"role":"assistant","text":"`+strings.Repeat("cut short ", 100))
	c, stop := startFollow(t, path, FollowOptions{NoNotify: true})
	c.wait(t, 1) // read in one go with the unfinished line after it
	if err := os.Truncate(path, int64(len(one))); err != nil {
		t.Fatal(err)
	}
	// Shorter than what was taken back: the file stays shorter than what
	// the follower had read.
	appendLine(t, path, `{"v":1,"type":"chat_turn","seq":2,"role":"user","text":"two"}`+"\n")
	items := c.wait(t, 2)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	items = append(items, c.items[len(items):]...)
	var got []string
	for _, it := range items {
		switch {
		case it.Event != nil:
			got = append(got, it.Event.Body.(*transcript.ChatTurn).Text)
		default:
			got = append(got, "error: "+it.Err.Error())
		}
	}
	if fmt.Sprint(got) != "[one two]" {
		t.Errorf("the follower passed on %q, want [one two]", got)
	}
}
