package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

const (
	// pollInterval is how often a dying process group is checked.
	pollInterval = 5 * time.Millisecond
	// giveUpAfterKill bounds the wait for a group after SIGKILL (processes stuck in
	// the kernel cannot be hurried).
	giveUpAfterKill = time.Second
	// maxDrainExtra bounds how long output that keeps coming after the command's group
	// has ended is still read: whatever is left in the pipes, plus what processes that
	// escaped the group write meanwhile.
	maxDrainExtra = time.Second
)

// Run validates the command, runs it and waits until it and every process of its group
// have ended. It never panics on bad input and always returns a Result; failures are
// described by Result.Err. Cancelling ctx ends the process group as a timeout does.
func Run(ctx context.Context, c Command) Result {
	res := Result{Argv: slices.Clone(c.execArgv()), StartTime: time.Now()}
	p, err := c.prepare()
	if err != nil {
		res.Err = err
		return res
	}
	res.Dir, res.EnvRemoved = p.dir, p.removed
	if ctx.Err() != nil {
		res.Interrupted = true
		res.Err = cancelledBeforeStart()
		return res
	}
	x := &execution{c: &c, plan: p, res: &res}
	if err := x.start(); err != nil {
		res.Err = err
		return res
	}
	x.wait(ctx)
	return res
}

// Runner runs commands with at most a fixed number running at once.
type Runner struct {
	slots chan struct{}
}

// NewRunner returns a Runner that runs at most maxConcurrent commands at a time
// (at least one).
func NewRunner(maxConcurrent int) *Runner {
	return &Runner{slots: make(chan struct{}, max(1, maxConcurrent))}
}

// Run waits for a free slot (or for ctx to end) and then runs c like the package-level Run.
func (r *Runner) Run(ctx context.Context, c Command) Result {
	select {
	case r.slots <- struct{}{}:
		defer func() { <-r.slots }()
		return Run(ctx, c)
	case <-ctx.Done():
		return Result{Argv: slices.Clone(c.execArgv()), StartTime: time.Now(),
			Interrupted: true, Err: cancelledBeforeStart()}
	}
}

func cancelledBeforeStart() *Error {
	return newError(CodeProcessFailed, "", "nothing was started", "cancelled before the command started")
}

// execution is the state of one started command.
type execution struct {
	c      *Command
	plan   *plan
	res    *Result
	cmd    *exec.Cmd
	pgid   int
	pumps  []*pump // the pipes being read: stdout's, stderr's or both
	stdout *pump
	stderr *pump
	waitCh chan error
	dog    *watchdog // ends the group should this process die first

	limitErr *Error // resource limits could not be applied; the child is killed

	cancelled   bool // ctx ended (not by deadline)
	terminating bool
	killAt      time.Time // when SIGKILL follows SIGTERM
	killed      bool
}

func (x *execution) start() *Error {
	c := x.c
	var stdout, stderr *os.File // the child's ends of the output pipes
	newCmd := func() *exec.Cmd {
		cmd := &exec.Cmd{
			Path:        x.plan.path,
			Args:        x.plan.argv,
			Dir:         x.plan.dir,
			Env:         x.plan.env,
			Stdin:       c.Stdin,
			SysProcAttr: childAttr(),
			WaitDelay:   c.drainTimeout(),
		}
		if stdout != nil {
			cmd.Stdout = stdout
		}
		if stderr != nil {
			cmd.Stderr = stderr
		}
		return cmd
	}
	var childEnds []*os.File
	closeAll := func() {
		for _, f := range childEnds {
			_ = f.Close()
		}
		for _, p := range x.pumps {
			_ = p.r.Close()
		}
	}
	limit := c.maxOutput()
	for _, s := range []struct {
		capture bool
		live    io.Writer
		slot    **pump
		set     func(*os.File)
	}{
		{c.Capture.stdout(), c.Stdout, &x.stdout, func(f *os.File) { stdout = f }},
		{c.Capture.stderr(), c.Stderr, &x.stderr, func(f *os.File) { stderr = f }},
	} {
		if !s.capture && s.live == nil {
			continue // exec connects the stream to /dev/null
		}
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return newError(CodeProcessFailed, "", "the process may be out of file descriptors",
				"cannot create an output pipe: %s", errnoText(err)).wrap(err)
		}
		setPipeSize(w)
		childEnds = append(childEnds, w)
		s.set(w)
		var buf *headTail
		if s.capture {
			buf = newHeadTail(limit, c.Redact)
		}
		*s.slot = newPump(r, buf, s.live)
		x.pumps = append(x.pumps, *s.slot)
	}

	enableSubreaper()
	x.dog = startWatchdog(c.killGrace())
	x.res.StartTime = time.Now()
	// Before the command runs its first instruction (where the system lets
	// it be held there), the watchdog learns its group and its limits are
	// set: a runner killed at any instant leaves nothing behind.
	cmd, err := startHeld(newCmd, x.plan.path, func(pid int) {
		x.dog.watch(pid)
		if err := applyLimits(pid, c.Limits); err != nil {
			x.limitErr = newError(CodeProcessFailed, "limits", "run without resource limits, or check that prlimit is permitted",
				"cannot apply resource limits: %s", errnoText(err)).wrap(err)
		}
	})
	if err != nil {
		closeAll()
		x.dog.release()
		return startError(x.plan.argv[0], err)
	}
	for _, f := range childEnds {
		_ = f.Close() // the child holds its own copies
	}
	x.cmd = cmd
	x.pgid = cmd.Process.Pid
	x.res.PID = x.pgid
	for _, p := range x.pumps {
		go p.run()
	}
	x.waitCh = make(chan error, 1)
	go func() { x.waitCh <- cmd.Wait() }()
	return nil
}

// wait supervises the running command until its group is gone and the output drained.
func (x *execution) wait(ctx context.Context) {
	timer := time.NewTimer(x.c.timeout())
	defer timer.Stop()
	done := ctx.Done()
	interrupts := x.c.Interrupts
	var killC <-chan time.Time
	if x.limitErr != nil {
		killC = x.startTerminating(syscall.SIGKILL) // an unlimited child must not run on
	}
	var waitErr error
loop:
	for {
		select {
		case waitErr = <-x.waitCh:
			break loop
		case <-timer.C:
			x.res.TimedOut = true
			if c := x.startTerminating(syscall.SIGTERM); c != nil {
				killC = c
			}
		case <-done:
			done = nil
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				x.res.TimedOut = true
			} else {
				x.cancelled = true
				x.res.Interrupted = true
			}
			if c := x.startTerminating(syscall.SIGTERM); c != nil {
				killC = c
			}
		case sig, ok := <-interrupts:
			if !ok {
				interrupts = nil
				continue
			}
			x.res.Interrupted = true
			s, isSys := sig.(syscall.Signal)
			if !isSys {
				s = syscall.SIGINT
			}
			signalGroup(x.pgid, s)
		case <-killC:
			killC = nil
			x.kill()
		}
	}
	x.res.Duration = time.Since(x.res.StartTime)
	x.recordExit(waitErr)
	x.endGroup()
	x.dog.release()
	x.drain()
	x.res.Err = x.classify()
}

// startTerminating sends sig to the group (SIGTERM, or SIGKILL at once) and returns the
// channel on which the SIGKILL deadline fires.
func (x *execution) startTerminating(sig syscall.Signal) <-chan time.Time {
	if x.terminating {
		return nil
	}
	x.terminating = true
	grace := x.c.killGrace()
	if sig == syscall.SIGKILL {
		grace = 0
	}
	x.killAt = time.Now().Add(grace)
	signalGroup(x.pgid, sig)
	signalGroup(x.pgid, syscall.SIGCONT) // stopped processes must run to die of SIGTERM
	if grace == 0 {
		x.kill()
		return nil
	}
	return time.After(grace)
}

func (x *execution) kill() {
	if !x.killed {
		x.killed = true
		signalGroup(x.pgid, syscall.SIGKILL)
	}
}

func (x *execution) recordExit(waitErr error) {
	st := x.cmd.ProcessState
	if st == nil {
		x.res.Err = newError(CodeProcessFailed, "", "the command's exit status is unknown; its process group was still ended",
			"lost track of the command: %s", errnoText(waitErr)).wrap(waitErr)
		return
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		x.res.SignalNum = int(ws.Signal())
		x.res.Signal = signalName(ws.Signal())
	} else if code := st.ExitCode(); code >= 0 {
		x.res.ExitCode = &code
	}
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok && ru != nil {
		x.res.Usage = Usage{
			MaxRSSKB: maxRSSKB(ru),
			UserMS:   time.Duration(ru.Utime.Nano()).Milliseconds(),
			SysMS:    time.Duration(ru.Stime.Nano()).Milliseconds(),
		}
	}
}

// endGroup makes sure no process of the group outlives the run. After a timeout or
// cancellation it finishes the SIGTERM-then-SIGKILL sequence. After a normal exit,
// background processes get the drain timeout to finish; the ones still there are then
// ended (unless LeaveBackground).
func (x *execution) endGroup() {
	if !x.terminating {
		deadline := time.Now().Add(x.c.drainTimeout())
		for {
			reapGroup(x.pgid)
			if !groupAlive(x.pgid) {
				return
			}
			if !time.Now().Before(deadline) {
				break
			}
			time.Sleep(pollInterval)
		}
		if x.c.LeaveBackground {
			return
		}
		x.res.BackgroundEnded = true
		x.startTerminating(syscall.SIGTERM)
	}
	var giveUp time.Time
	for {
		reapGroup(x.pgid)
		if !groupAlive(x.pgid) {
			return
		}
		now := time.Now()
		if !x.killed && !now.Before(x.killAt) {
			x.kill()
		}
		if x.killed {
			if giveUp.IsZero() {
				giveUp = now.Add(giveUpAfterKill)
			} else if now.After(giveUp) {
				return
			}
		}
		time.Sleep(pollInterval)
	}
}

// drain waits for the pumps to read what is left. A pipe that stays silent for the
// drain timeout is held open by a process outside the group (or one left running on
// purpose), and so is one still written to after the drain timeout plus
// maxDrainExtra; either is closed so that the run can end.
func (x *execution) drain() {
	d := x.c.drainTimeout()
	deadline := time.Now().Add(d + maxDrainExtra)
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for _, p := range x.pumps {
	wait:
		for {
			select {
			case <-p.done:
				break wait
			case now := <-tick.C:
				if p.silentFor(d, now) || now.After(deadline) {
					_ = p.r.Close()
				}
			}
		}
	}
	for _, p := range x.pumps {
		_ = p.r.Close()
		if x.res.StreamErr == nil && p.liveErr != nil {
			x.res.StreamErr = fmt.Errorf("streaming output: %w", p.liveErr)
		}
		if x.res.StreamErr == nil && p.readErr != nil {
			x.res.StreamErr = fmt.Errorf("reading output: %w", p.readErr)
		}
	}
	if x.stdout != nil {
		x.res.Stdout = x.stdout.output()
	}
	if x.stderr != nil {
		x.res.Stderr = x.stderr.output()
	}
}

// classify picks the one error that best describes the run.
func (x *execution) classify() *Error {
	r := x.res
	if x.limitErr != nil {
		return x.limitErr
	}
	if r.Err != nil {
		return r.Err
	}
	switch {
	case r.TimedOut:
		return newError(CodeTimeout, "timeout", "raise the timeout or make the command finish sooner; partial output was kept",
			"timed out after %s; the process group was ended", x.c.timeout())
	case x.cancelled:
		return newError(CodeProcessFailed, "", "partial output was kept",
			"cancelled; the process group was ended")
	case r.SignalNum > 0 && r.Interrupted:
		return newError(CodeProcessFailed, "", "partial output was kept",
			"interrupted: ended by %s", r.Signal)
	case r.SignalNum > 0:
		return newError(CodeProcessFailed, "", signalHint(syscall.Signal(r.SignalNum)),
			"killed by signal %s", r.Signal)
	case r.ExitCode != nil && *r.ExitCode != 0:
		return newError(CodeProcessFailed, "", "see the command's stderr for its own message",
			"exited with status %d", *r.ExitCode)
	case r.Truncated():
		return newError(CodeOutputTooLarge, "max_output_size",
			"raise recording.max_output_size, or make the command quieter",
			"output exceeded the limit of %d bytes per stream; %d bytes omitted from the middle",
			x.c.maxOutput(), r.OmittedBytes())
	}
	return nil
}

func signalHint(s syscall.Signal) string {
	switch s {
	case syscall.SIGXCPU:
		return "the CPU time limit was reached; raise execution.limits.cpu_seconds"
	case syscall.SIGKILL:
		return "killed from outside, possibly by the kernel for lack of memory"
	default:
		return "the command crashed or was killed"
	}
}
