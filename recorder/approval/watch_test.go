package approval

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// next waits for the next update or fails.
func next(t *testing.T, updates <-chan Update) Update {
	t.Helper()
	select {
	case u := <-updates:
		return u
	case <-time.After(10 * time.Second):
		t.Fatal("no update from Watch")
		return Update{}
	}
}

func TestWatchReportsRequestsAndDecisions(t *testing.T) {
	f := newFixture(t)
	f.b.PollInterval = time.Hour // notifications only
	old := f.submit(t, "curl old")
	decidedBefore := f.submit(t, "curl done")
	if _, err := f.b.Decide(decidedBefore.ID, Deny("", ByCLI)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	updates := make(chan Update, 16)
	done := make(chan error, 1)
	go func() { done <- f.b.Watch(ctx, func(u Update) { updates <- u }) }()

	u := next(t, updates)
	if u.Kind != Requested || u.Request.ID != old.ID {
		t.Fatalf("first update %v %+v, want the pending request", u.Kind, u.Request)
	}
	fresh := f.submit(t, "curl new")
	if u := next(t, updates); u.Kind != Requested || u.Request.ID != fresh.ID || u.Request.Command != "curl new" {
		t.Fatalf("update %v %+v, want the new request", u.Kind, u.Request)
	}
	if _, err := New(f.b.Dir).Decide(fresh.ID, Approve(transcript.ScopeOnce, ByCLI)); err != nil {
		t.Fatal(err)
	}
	if u := next(t, updates); u.Kind != Decided || u.Request.ID != fresh.ID || !u.Decision.Approved() {
		t.Fatalf("update %v %+v, want the decision", u.Kind, u.Decision)
	}
	if err := os.Remove(f.b.pendingPath(old.ID)); err != nil {
		t.Fatal(err)
	}
	if u := next(t, updates); u.Kind != Withdrawn || u.Request.ID != old.ID {
		t.Fatalf("update %v, want the withdrawal", u.Kind)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Watch: %v", err)
	}
	select {
	case u := <-updates:
		t.Errorf("unexpected update %v %s", u.Kind, u.Request.Command)
	default:
	}
}

func TestWatchTimesOutARequestWhoseRequesterDied(t *testing.T) {
	f := newFixture(t)
	// The clock moves past the request's expiry only once the watcher has
	// reported it, however slowly the watcher starts.
	var skew atomic.Int64
	f.b.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	f.b.Timeout = time.Minute
	f.b.PollInterval = 50 * time.Millisecond
	r := f.submit(t, "curl x")
	ctx, cancel := context.WithCancel(context.Background())
	updates := make(chan Update, 4)
	watching := make(chan struct{})
	defer func() { cancel(); <-watching }()
	go func() {
		defer close(watching)
		_ = f.b.Watch(ctx, func(u Update) { updates <- u })
	}()
	if u := next(t, updates); u.Kind != Requested {
		t.Fatalf("first update %v", u.Kind)
	}
	skew.Store(int64(2 * time.Minute))
	u := next(t, updates)
	if u.Kind != Decided || u.Decision.Decision != transcript.DecisionTimeout {
		t.Fatalf("update %v %+v, want a timeout", u.Kind, u.Decision)
	}
	if u.Request.ID != r.ID {
		t.Errorf("decided %s, want %s", u.Request.ID, r.ID)
	}
	if evs := f.events(t, transcript.TypeApprovalDecision); len(evs) != 1 {
		t.Errorf("%d decision events", len(evs))
	}
}

func TestHeartbeatAnnouncesAWatcher(t *testing.T) {
	f := newFixture(t)
	if f.b.AnyWatcher() {
		t.Fatal("a watcher before any started")
	}
	f.b.Heartbeat = 20 * time.Millisecond
	stop, err := f.b.StartHeartbeat(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	p := f.b.watcherPath(os.Getpid())
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("heartbeat file %v %v", fi, err)
	}
	if !f.b.AnyWatcher() {
		t.Error("AnyWatcher = false with a heartbeat running")
	}
	first := fi.ModTime()
	deadline := time.Now().Add(5 * time.Second)
	for fi.ModTime().Equal(first) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		fi, _ = os.Stat(p)
	}
	if fi.ModTime().Equal(first) {
		t.Error("heartbeat not refreshed")
	}
	stop()
	stop() // twice is fine
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("heartbeat file left after stop: %v", err)
	}
	if f.b.AnyWatcher() {
		t.Error("AnyWatcher = true after stop")
	}
}

func TestStaleAndForeignHeartbeatsAreIgnored(t *testing.T) {
	f := newFixture(t)
	f.b.Heartbeat = time.Second
	write := func(pid int, updated time.Time, mode os.FileMode) string {
		p := f.b.watcherPath(pid)
		writeFile(t, p, fmt.Sprintf(`{"pid":%d,"started_at":%q,"updated_at":%q}`, pid,
			updated.UTC().Format(time.RFC3339Nano), updated.UTC().Format(time.RFC3339Nano)), mode)
		return p
	}
	stale := write(os.Getpid(), time.Now().Add(-time.Hour), 0o600)
	if f.b.AnyWatcher() {
		t.Error("a stale heartbeat counted")
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Error("stale heartbeat not cleaned")
	}
	// A dead process with a fresh heartbeat.
	dead := deadPID(t)
	p := write(dead, time.Now(), 0o600)
	if f.b.AnyWatcher() {
		t.Error("a dead process counted")
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("dead watcher not cleaned")
	}
	// A loose file, or one whose name and pid disagree.
	write(os.Getpid(), time.Now(), 0o644)
	if f.b.AnyWatcher() {
		t.Error("a loose heartbeat counted")
	}
	writeFile(t, f.b.watcherPath(1), fmt.Sprintf(`{"pid":%d,"updated_at":%q}`, os.Getpid(),
		time.Now().UTC().Format(time.RFC3339Nano)), 0o600)
	if ws, _ := f.b.Watchers(); len(ws) != 0 {
		t.Errorf("mismatched heartbeat counted: %v", ws)
	}
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	cmd := child(t, "decide", "CUFF_TEST_STATE="+t.TempDir(), "CUFF_TEST_ID=x")
	cmd.Stdin = nil
	_ = cmd.Run()
	return cmd.Process.Pid
}

func TestHeartbeatOfAnotherProcess(t *testing.T) {
	f := newFixture(t)
	cmd := child(t, "heartbeat", "CUFF_TEST_STATE="+f.b.Dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("child: %q %v", line, err)
	}
	ws, err := f.b.Watchers()
	if err != nil || len(ws) != 1 || ws[0].PID != cmd.Process.Pid {
		t.Fatalf("Watchers = %v, %v; want the child %d", ws, err, cmd.Process.Pid)
	}
	// Killed without a chance to remove its file: the heartbeat is fresh
	// but the process is gone.
	cmd.Process.Kill()
	cmd.Wait()
	if f.b.AnyWatcher() {
		t.Error("a killed watcher counted")
	}
	if _, err := os.Stat(f.b.watcherPath(cmd.Process.Pid)); !os.IsNotExist(err) {
		t.Errorf("killed watcher's file left: %v", err)
	}
}
