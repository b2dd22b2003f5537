package runner

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTimeoutEndsWholeGroupAndKeepsPartialOutput(t *testing.T) {
	// The timeout leaves a slow machine time to start the shell and echo.
	res := run(t, Command{Shell: "/bin/sh", Script: "echo started; echo oops >&2; sleep 100 & sleep 100",
		Timeout: 1500 * time.Millisecond})
	wantCode(t, res, CodeTimeout)
	if !res.TimedOut || res.ExitStatus() != ExitTimeout || res.Signal != "SIGTERM" {
		t.Fatalf("want timeout by SIGTERM (124), got %+v", res)
	}
	if res.Stdout.Text != "started\n" || res.Stderr.Text != "oops\n" {
		t.Fatalf("partial output lost: %q %q", res.Stdout.Text, res.Stderr.Text)
	}
	wantGroupGone(t, res.PID)
}

func TestTimeoutEscalatesToSIGKILL(t *testing.T) {
	// TERM is ignored by the shell and, inherited, by both sleeps.
	// The timeout leaves a slow machine time to set the trap.
	res := run(t, Command{Shell: "/bin/sh", Script: `trap "" TERM; sleep 100 & sleep 100`,
		Timeout: 1500 * time.Millisecond, KillGrace: 100 * time.Millisecond})
	wantCode(t, res, CodeTimeout)
	if res.Signal != "SIGKILL" {
		t.Fatalf("want SIGKILL after the grace period, got %+v", res)
	}
	wantGroupGone(t, res.PID)
}

func TestTimeoutWithGrandchildIgnoringTERM(t *testing.T) {
	// The shell dies of SIGTERM at once; the grandchild ignores it and must be killed.
	res := run(t, Command{Shell: "/bin/sh", Script: `(trap "" TERM; sleep 100) & sleep 100`,
		Timeout: 200 * time.Millisecond, KillGrace: 100 * time.Millisecond})
	wantCode(t, res, CodeTimeout)
	wantGroupGone(t, res.PID)
}

func TestContextCancellationEndsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := newWatchWriter("ready")
	go func() {
		<-out.seen
		cancel()
	}()
	res := Run(ctx, Command{Shell: "/bin/sh", Script: "sleep 100 & echo ready; sleep 100", Stdout: out})
	wantCode(t, res, CodeProcessFailed)
	if !res.Interrupted || res.TimedOut || res.Signal != "SIGTERM" || res.ExitStatus() != 128+15 {
		t.Fatalf("want interrupted by cancellation, got %+v", res)
	}
	if res.Stdout.Text != "ready\n" {
		t.Fatalf("partial output lost: %q", res.Stdout.Text)
	}
	wantGroupGone(t, res.PID)

	res = Run(ctx, Command{Argv: []string{"true"}})
	if res.Started() || !res.Interrupted || res.Err == nil {
		t.Fatalf("a cancelled context must not start anything: %+v", res)
	}
}

func TestContextDeadlineIsTimeout(t *testing.T) {
	// The deadline leaves a slow machine time to start the command.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res := Run(ctx, Command{Argv: []string{"sleep", "100"}})
	wantCode(t, res, CodeTimeout)
	if !res.TimedOut || res.ExitStatus() != ExitTimeout {
		t.Fatalf("want timed out, got %+v", res)
	}
	wantGroupGone(t, res.PID)
}

func TestInterruptIsForwardedToGroup(t *testing.T) {
	skipIfSIGINTIgnored(t)
	sigs := make(chan os.Signal, 1)
	out := newWatchWriter("ready")
	go func() {
		<-out.seen
		sigs <- syscall.SIGINT
	}()
	// The shell traps SIGINT and exits 3 once its current short sleep is over.
	res := run(t, Command{Shell: "/bin/sh",
		Script:     `trap 'echo got-int; exit 3' INT; echo ready; while :; do sleep 0.05; done`,
		Stdout:     out,
		Interrupts: sigs,
	})
	if !res.Interrupted || res.ExitCode == nil || *res.ExitCode != 3 || res.TimedOut {
		t.Fatalf("want interrupted with exit 3, got %+v", res)
	}
	if res.Stdout.Text != "ready\ngot-int\n" {
		t.Fatalf("stdout %q", res.Stdout.Text)
	}
	wantGroupGone(t, res.PID)
}

func TestInterruptKillsDefaultHandler(t *testing.T) {
	skipIfSIGINTIgnored(t)
	sigs := make(chan os.Signal, 1)
	sigs <- os.Interrupt
	res := run(t, Command{Argv: []string{"sleep", "100"}, Interrupts: sigs})
	wantCode(t, res, CodeProcessFailed)
	if !res.Interrupted || res.Signal != "SIGINT" || res.ExitStatus() != 130 {
		t.Fatalf("want death by SIGINT (130), got %+v", res)
	}
	if !strings.Contains(res.Err.Message, "interrupted") {
		t.Fatalf("message %q", res.Err.Message)
	}
}

func TestBackgroundProcessesAreEnded(t *testing.T) {
	cases := map[string]string{
		"holding the pipe":   "sleep 100 & echo done",
		"detached from pipe": "sleep 100 >/dev/null 2>&1 & echo done",
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			res := run(t, Command{Shell: "/bin/sh", Script: script})
			wantNoError(t, res)
			if !res.BackgroundEnded || res.Stdout.Text != "done\n" || res.ExitStatus() != 0 {
				t.Fatalf("want clean exit with background ended, got %+v", res)
			}
			wantGroupGone(t, res.PID)
		})
	}
	// A background job that finishes within the drain time is waited for, not killed.
	res := run(t, Command{Shell: "/bin/sh", Script: "(sleep 0.05; echo late) & echo early",
		DrainTimeout: 5 * time.Second})
	wantNoError(t, res)
	if res.BackgroundEnded || res.Stdout.Text != "early\nlate\n" {
		t.Fatalf("short background job: %+v", res)
	}
	wantGroupGone(t, res.PID)
}

func TestLeaveBackground(t *testing.T) {
	res := run(t, Command{Shell: "/bin/sh", Script: "sleep 30 >/dev/null 2>&1 & echo $!", LeaveBackground: true})
	wantNoError(t, res)
	pid, err := strconv.Atoi(strings.TrimSpace(res.Stdout.Text))
	if err != nil {
		t.Fatalf("want the background pid, got %q", res.Stdout.Text)
	}
	defer func() { _ = syscall.Kill(pid, syscall.SIGKILL) }()
	if res.BackgroundEnded || syscall.Kill(pid, 0) != nil {
		t.Fatalf("background process %d should still run", pid)
	}
}

func TestPipeHeldOutsideGroupDoesNotHang(t *testing.T) {
	// setsid moves the sleep into a new session: it escapes the group but keeps stdout.
	res := run(t, Command{Shell: "/bin/sh", Script: "setsid sleep 3 & echo $!", DrainTimeout: 100 * time.Millisecond})
	wantNoError(t, res)
	if pid, err := strconv.Atoi(strings.TrimSpace(res.Stdout.Text)); err == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL) // a process this test started
	} else {
		t.Fatalf("stdout %q", res.Stdout.Text)
	}
}

// skipIfSIGINTIgnored skips tests that need children to die of SIGINT: a signal ignored
// by the test process (as when it runs as a shell's background job) stays ignored in
// every child.
func skipIfSIGINTIgnored(t *testing.T) {
	if signal.Ignored(os.Interrupt) {
		t.Skip("SIGINT is ignored by this process and so by its children")
	}
}

func TestCancelDuringGraceStillKills(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := newWatchWriter("ready")
	go func() {
		// The timeout (a second from the start) has passed, the grace
		// period (two more) has not.
		<-out.seen
		time.Sleep(1200 * time.Millisecond)
		cancel()
	}()
	res := Run(ctx, Command{Shell: "/bin/sh", Script: `trap "" TERM; echo ready; sleep 100`, Stdout: out,
		Timeout: time.Second, KillGrace: 2 * time.Second})
	wantCode(t, res, CodeTimeout)
	if res.Signal != "SIGKILL" {
		t.Fatalf("want SIGKILL, got %+v", res)
	}
	wantGroupGone(t, res.PID)
}

func TestEscapedWriterDoesNotHang(t *testing.T) {
	// yes escapes the group with setsid and floods the captured stdout forever.
	res := run(t, Command{Shell: "/bin/sh", Script: "setsid yes & echo $! >&2; sleep 0.3",
		DrainTimeout: 50 * time.Millisecond})
	pid, err := strconv.Atoi(strings.TrimSpace(res.Stderr.Text))
	if err != nil {
		t.Fatalf("stderr %q", res.Stderr.Text)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL) // a process this test started
	// Reaching here means Run returned although the pipe never fell silent.
	if res.Stdout.OriginalBytes == 0 || res.ExitStatus() != 0 || res.BackgroundEnded {
		t.Fatalf("want a clean exit with yes's output read, got %+v", res)
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	sigs := make(chan os.Signal)
	for _, c := range []Command{
		{Argv: []string{"echo", "hi"}, Stdin: strings.NewReader("unread"), Interrupts: sigs},
		{Shell: "/bin/sh", Script: "sleep 100 & sleep 100", Timeout: 50 * time.Millisecond},
		{Shell: "/bin/sh", Script: "sleep 100 & echo bg"},
		{Argv: []string{"cuff-missing-program-1"}},
	} {
		run(t, c)
	}
	// Goroutines of the runs end as Run returns; give the scheduler time to retire them.
	for range 1000 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
}
