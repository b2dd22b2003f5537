package approval

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// TestRacingDecidersDecideOnce races goroutines and separate processes to
// answer one request: exactly one wins, exactly one decision file and one
// approval_decision event exist, and every loser is told who won.
func TestRacingDecidersDecideOnce(t *testing.T) {
	const goroutines, processes = 8, 4
	for round := range 3 {
		f := newFixture(t)
		r := f.submit(t, "curl https://example.com")

		type outcome struct {
			who string
			won bool
			err error
		}
		results := make(chan outcome, goroutines+processes)
		start := make(chan struct{})

		var stdins []io.WriteCloser
		var outs []*bytes.Buffer
		var cmds []interface{ Wait() error }
		for i := range processes {
			answer := "approve"
			if i%2 == 1 {
				answer = "deny"
			}
			cmd := child(t, "decide", "CUFF_TEST_STATE="+f.b.Dir, "CUFF_TEST_ID="+r.ID, "CUFF_TEST_ANSWER="+answer)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out := &bytes.Buffer{}
			cmd.Stdout = out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stdins, outs, cmds = append(stdins, in), append(outs, out), append(cmds, cmd)
		}
		var wg sync.WaitGroup
		for i := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b := New(f.b.Dir)
				ans := Approve(transcript.ScopeOnce, ByTUI)
				if i%2 == 1 {
					ans = Deny("goroutine says no", ByCLI)
				}
				<-start
				_, err := b.Decide(r.ID, ans)
				var already *AlreadyDecidedError
				switch {
				case err == nil:
					results <- outcome{who: "goroutine", won: true}
				case errors.As(err, &already):
					results <- outcome{who: "goroutine"}
				default:
					results <- outcome{who: "goroutine", err: err}
				}
			}()
		}
		// Release everyone at once.
		for _, in := range stdins {
			in.Close()
		}
		close(start)
		wg.Wait()
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("child %d: %v: %s", i, err, outs[i])
			}
			switch strings.TrimSpace(outs[i].String()) {
			case "won":
				results <- outcome{who: "process", won: true}
			case "lost":
				results <- outcome{who: "process"}
			default:
				results <- outcome{who: "process", err: errors.New(outs[i].String())}
			}
		}
		close(results)
		winners := 0
		for o := range results {
			if o.err != nil {
				t.Fatalf("round %d: %s: %v", round, o.who, o.err)
			}
			if o.won {
				winners++
				t.Logf("round %d: a %s won", round, o.who)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d winners, want 1", round, winners)
		}
		if files := f.decidedFiles(t); len(files) != 1 || files[0] != r.ID+".json" {
			t.Fatalf("round %d: decided files %v", round, files)
		}
		if evs := f.events(t, transcript.TypeApprovalDecision); len(evs) != 1 {
			t.Fatalf("round %d: %d approval_decision events, want 1", round, len(evs))
		}
	}
}

// TestWaitReturnsTheDecision shows that a waiter notices a decision through
// file notifications: polling is set so slow that it could not.
func TestWaitReturnsTheDecision(t *testing.T) {
	f := newFixture(t)
	f.b.PollInterval = time.Hour
	r := f.submit(t, "curl x")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan *Decision, 1)
	errc := make(chan error, 1)
	go func() {
		d, err := f.b.Wait(ctx, r.ID)
		got <- d
		errc <- err
	}()
	time.Sleep(50 * time.Millisecond) // let the waiter settle; the answer comes later
	decider := New(f.b.Dir)
	decided := time.Now()
	if _, err := decider.Decide(r.ID, Approve(transcript.ScopeOnce, ByTUI)); err != nil {
		t.Fatal(err)
	}
	d, err := <-got, <-errc
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	if !d.Approved() || d.By != ByTUI {
		t.Errorf("Wait = %+v", d)
	}
	t.Logf("Wait returned %v after the decision", time.Since(decided))
	// Waiting on a decided request returns at once.
	if d, err := f.b.Wait(ctx, r.ID); err != nil || !d.Approved() {
		t.Errorf("Wait after the decision: %+v, %v", d, err)
	}
}

func TestWaitPollsWithoutNotifications(t *testing.T) {
	f := newFixture(t)
	f.b.PollInterval = 20 * time.Millisecond
	f.b.noNotify = true
	r := f.submit(t, "curl x")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		time.Sleep(30 * time.Millisecond)
		if _, err := New(f.b.Dir).Decide(r.ID, Deny("no", ByCLI)); err != nil {
			t.Error(err)
		}
	}()
	d, err := f.b.Wait(ctx, r.ID)
	if err != nil || d.Decision != "deny" || d.Reason != "no" {
		t.Errorf("Wait = %+v, %v", d, err)
	}
}

func TestTimeoutIsADenyRecordedOnce(t *testing.T) {
	f := newFixture(t)
	f.b.Timeout = 300 * time.Millisecond
	r := f.submit(t, "curl x")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	const waiters = 6
	var wg sync.WaitGroup
	decisions := make(chan *Decision, waiters)
	for range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := New(f.b.Dir)
			d, err := b.Wait(ctx, r.ID)
			if err != nil {
				t.Error(err)
				return
			}
			decisions <- d
		}()
	}
	wg.Wait()
	close(decisions)
	var first *Decision
	for d := range decisions {
		if d.Approved() || d.Decision != transcript.DecisionTimeout || d.By != ByTimeout {
			t.Errorf("timeout decision %+v", d)
		}
		if first == nil {
			first = d
		} else if d.DecidedAt != first.DecidedAt || d.PID != first.PID {
			t.Errorf("waiters saw different decisions: %+v vs %+v", d, first)
		}
	}
	evs := f.events(t, transcript.TypeApprovalDecision)
	if len(evs) != 1 {
		t.Fatalf("%d decision events, want 1", len(evs))
	}
	body := evs[0].Body.(*transcript.ApprovalDecision)
	if body.Decision != "timeout" || body.By != "timeout" || !strings.Contains(body.Reason, "no answer within") {
		t.Errorf("timeout event %+v", body)
	}
	if _, err := f.b.Decide(r.ID, Approve("", ByCLI)); err == nil {
		t.Error("approved after the timeout")
	}
}

func TestWaitStopsWithItsContext(t *testing.T) {
	f := newFixture(t)
	r := f.submit(t, "curl x")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if _, err := f.b.Wait(ctx, r.ID); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait after cancel: %v", err)
	}
	if d := f.b.Decision(r.ID); d != nil {
		t.Errorf("cancelled wait decided: %+v", d)
	}
	var nf *NotFoundError
	if _, err := f.b.Wait(context.Background(), NewID()); !errors.As(err, &nf) {
		t.Errorf("Wait for an unknown id: %v", err)
	}
}

func TestWaitIgnoresAnUntrustedDecision(t *testing.T) {
	f := newFixture(t)
	f.b.Timeout = 400 * time.Millisecond
	f.b.PollInterval = 20 * time.Millisecond
	r := f.submit(t, "curl x")
	writeFile(t, f.b.decidedPath(r.ID), decisionJSON(r.ID, "approve", "tui"), 0o644)
	d, err := f.b.Wait(context.Background(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Approved() || d.Decision != transcript.DecisionTimeout {
		t.Errorf("a loose approval counted: %+v", d)
	}
}

func TestAskFilesAndWaits(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	watching := make(chan struct{})
	defer func() { cancel(); <-watching }()
	go func() {
		defer close(watching)
		// Answer the request as soon as a watcher would see it.
		_ = New(f.b.Dir).Watch(ctx, func(u Update) {
			if u.Kind == Requested {
				if _, err := New(f.b.Dir).Decide(u.Request.ID, Deny("not now", ByTUI)); err != nil {
					t.Error(err)
				}
			}
		})
	}()
	r, d, err := f.b.Ask(ctx, f.request("curl x"))
	if err != nil || d.Approved() || d.Reason != "not now" || d.RequestID != r.ID {
		t.Fatalf("Ask = %+v, %+v, %v", r, d, err)
	}
}

func TestAskWithdrawsWhenTheAgentStopsWaiting(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	r, d, err := f.b.Ask(ctx, f.request("curl x"))
	if !errors.Is(err, context.Canceled) || d != nil {
		t.Fatalf("Ask after cancel: %+v, %v", d, err)
	}
	got := f.b.Decision(r.ID)
	if got == nil || got.Decision != "deny" || got.By != ByAgent || got.Reason != withdrawnReason {
		t.Errorf("withdrawn decision %+v", got)
	}
	if p, _ := f.b.Pending(); len(p) != 0 {
		t.Errorf("still pending: %v", p)
	}
	evs := f.events(t, transcript.TypeApprovalDecision)
	if len(evs) != 1 || evs[0].CallID != r.CallID {
		t.Errorf("decision events %v", evs)
	}
	if _, err := f.b.Decide(r.ID, Approve("", ByCLI)); err == nil {
		t.Error("approved a withdrawn request")
	}
}
