package runner

import (
	"time"
)

// Usage is the child's resource use as the kernel reports it when it is reaped
// (including the children it waited for itself).
type Usage struct {
	MaxRSSKB int64 `json:"max_rss_kb"`
	UserMS   int64 `json:"user_ms"`
	SysMS    int64 `json:"sys_ms"`
}

// Result is the outcome of one run. Run always returns one, also when the command
// could not be started; Err then says why.
type Result struct {
	// Argv is what the child was started with (Shell, "-c", Script in shell mode).
	Argv []string `json:"argv"`
	// Dir is the working directory, absolute with symlinks resolved ("" if unresolved).
	Dir string `json:"working_directory,omitempty"`
	// PID is the child's process id, which is also its process group id; 0 if it never
	// started.
	PID       int           `json:"pid,omitempty"`
	StartTime time.Time     `json:"start_time"`
	Duration  time.Duration `json:"duration_ns"`
	// ExitCode is the command's own exit status, nil when it died of a signal or never
	// started.
	ExitCode *int `json:"exit_code"`
	// Signal names the signal that ended the command ("SIGKILL"), SignalNum its number.
	Signal    string `json:"signal,omitempty"`
	SignalNum int    `json:"signal_num,omitempty"`
	TimedOut  bool   `json:"timed_out"`
	// Interrupted is set when a signal was forwarded from Interrupts or the context was
	// cancelled.
	Interrupted bool `json:"interrupted"`
	// BackgroundEnded is set when processes of the group outlived the command and were
	// ended.
	BackgroundEnded bool   `json:"background_ended,omitempty"`
	Stdout          Output `json:"stdout"`
	Stderr          Output `json:"stderr"`
	Usage           Usage  `json:"usage"`
	// EnvRemoved names the host variables that were not passed to the child.
	EnvRemoved []string `json:"env_removed,omitempty"`
	// Err is nil for a clean exit with complete output. Otherwise it holds the most
	// important problem: a failed check or start, a timeout, a non-zero exit or signal
	// death, or (for an otherwise clean run) truncated output.
	Err *Error `json:"error,omitempty"`
	// StreamErr is the first error writing to a live writer; capture went on without it.
	StreamErr error `json:"-"`
}

// Started reports whether the child process was started.
func (r *Result) Started() bool { return r.PID != 0 }

// Success reports whether the command ran, exited 0 and was not timed out.
func (r *Result) Success() bool {
	return r.ExitCode != nil && *r.ExitCode == 0 && !r.TimedOut
}

// Truncated reports whether either stream lost bytes to the output limit.
func (r *Result) Truncated() bool { return r.Stdout.Truncated || r.Stderr.Truncated }

// OmittedBytes is the number of bytes dropped from both streams.
func (r *Result) OmittedBytes() int64 { return r.Stdout.OmittedBytes + r.Stderr.OmittedBytes }

// ExitStatus is the status a command-line front end should exit with: the command's
// own status; 124 after a timeout; 128+n after death by signal n; 127 when the
// executable was not found, 126 when it may not be executed, 125 when cuff itself
// could not run it.
func (r *Result) ExitStatus() int {
	switch {
	case !r.Started():
		if r.Err != nil {
			return r.Err.ExitStatus()
		}
		return ExitOwnFailure
	case r.TimedOut:
		return ExitTimeout
	case r.ExitCode != nil:
		return *r.ExitCode
	case r.SignalNum > 0:
		return exitSignalBase + r.SignalNum
	default:
		return ExitOwnFailure
	}
}
