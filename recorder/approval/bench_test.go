package approval

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// BenchmarkGranted is the hook's check for a session approval.
func BenchmarkGranted(b *testing.B) {
	br := New(filepath.Join(b.TempDir(), "state"))
	const key = "claude:bench"
	for i := range 100 {
		if err := br.Grant(key, fmt.Sprintf("curl https://example.com/%d", i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if !br.Granted(key, "curl https://example.com/99") {
			b.Fatal("not granted")
		}
	}
}

// BenchmarkAnyWatcher is the hook's check whether a TUI can answer.
func BenchmarkAnyWatcher(b *testing.B) {
	br := New(filepath.Join(b.TempDir(), "state"))
	stop, err := br.StartHeartbeat(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	for b.Loop() {
		if !br.AnyWatcher() {
			b.Fatal("no watcher")
		}
	}
}

// BenchmarkSubmitDecide files a request without a session and answers it.
func BenchmarkSubmitDecide(b *testing.B) {
	br := New(filepath.Join(b.TempDir(), "state"))
	for b.Loop() {
		r, err := br.Submit(&Request{Tool: "Bash", Command: "curl x"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := br.Decide(r.ID, Approve(transcript.ScopeOnce, ByTUI)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWaitLatency measures how long a waiter takes to see a decision
// made by another broker, from the start of Decide to Wait's return, with
// polling slowed so that only file notifications can deliver it.
func BenchmarkWaitLatency(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "state")
	waiter, decider := New(dir), New(dir)
	waiter.PollInterval = time.Hour
	var total time.Duration
	for b.Loop() {
		r, err := waiter.Submit(&Request{Tool: "Bash", Command: "curl x"})
		if err != nil {
			b.Fatal(err)
		}
		ready := make(chan struct{})
		done := make(chan time.Time, 1)
		go func() {
			close(ready)
			if _, err := waiter.Wait(context.Background(), r.ID); err != nil {
				b.Error(err)
			}
			done <- time.Now()
		}()
		<-ready
		time.Sleep(time.Millisecond) // let the waiter start watching
		start := time.Now()
		if _, err := decider.Decide(r.ID, Approve(transcript.ScopeOnce, ByTUI)); err != nil {
			b.Fatal(err)
		}
		total += (<-done).Sub(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-notice")
}
