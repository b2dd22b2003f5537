package recorder

import (
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// RunDetails are the parts of a recorded run that the runner does not know.
type RunDetails struct {
	Description string
	// Environment is the captured environment (already filtered), nil when
	// environment capture is off.
	Environment map[string]string
}

// StartEvent is the bash_start body for a command about to run in this
// process, which is to record its end: should it die first, readers show
// the run as interrupted with it.
func StartEvent(c *runner.Command, dir string) *transcript.BashStart {
	return &transcript.BashStart{Command: c.String(), Argv: argvOf(c), WorkingDirectory: dir, Recorder: session.SelfRecorder()}
}

func argvOf(c *runner.Command) []string {
	if c.ShellMode() {
		return []string{c.Shell, "-c", c.Script}
	}
	return c.Argv
}

// RunEvent is the bash_run body for a finished (or never started) run.
func RunEvent(c *runner.Command, res *runner.Result, d RunDetails) *transcript.BashRun {
	b := &transcript.BashRun{
		Command:          c.String(),
		Description:      d.Description,
		WorkingDirectory: res.Dir,
		Shell:            c.Shell,
		TimeoutSeconds:   int64(c.Timeout.Seconds()),
		TimedOut:         res.TimedOut,
		ExitCode:         res.ExitCode,
		Stdout:           res.Stdout.Text,
		Stderr:           res.Stderr.Text,
		OutputTruncated:  res.Stdout.Truncated || res.Stderr.Truncated,
		Environment:      d.Environment,
		DurationMS:       res.Duration.Milliseconds(),
		Argv:             argvOf(c),
		Interrupted:      res.Interrupted,
	}
	if b.WorkingDirectory == "" {
		b.WorkingDirectory = c.Dir
	}
	if c.Timeout == 0 {
		b.TimeoutSeconds = int64(runner.DefaultTimeout.Seconds())
	}
	if b.OutputTruncated {
		total := res.Stdout.OriginalBytes + res.Stderr.OriginalBytes
		b.OutputTruncatedBytes = &total
	}
	if res.PID != 0 {
		b.Usage = &transcript.ResourceUsage{MaxRSSKB: res.Usage.MaxRSSKB, UserMS: res.Usage.UserMS, SysMS: res.Usage.SysMS}
	}
	if e := res.Err; e != nil && !plainExit(res) {
		b.Error = &transcript.RunError{Code: string(e.Code), Message: e.Message}
	}
	return b
}

// plainExit reports whether the run's only "error" is that it exited
// non-zero or its output was cut: facts the event already holds.
func plainExit(res *runner.Result) bool {
	switch res.Err.Code {
	case runner.CodeOutputTooLarge:
		return true
	case runner.CodeProcessFailed:
		return res.ExitCode != nil && !res.Interrupted
	}
	return false
}
