package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

const (
	// maxProcOutput bounds what the gate reads from a cop or hook.
	maxProcOutput = 1 << 20
	// procWaitDelay is how long a killed process's pipes may stay open.
	procWaitDelay = 500 * time.Millisecond
	// stderrTail is how much of a failing process's stderr an error quotes.
	stderrTail = 300
)

// procResult is the outcome of running a helper command.
type procResult struct {
	stdout []byte
	stderr []byte
	code   int
}

// runHelper runs command with /bin/sh, feeding it input, within timeout.
// The whole process group is killed when the time is up.
func runHelper(ctx context.Context, command string, input []byte, timeout time.Duration) (procResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Stdin = bytes.NewReader(input)
	var out, errb limitedBuffer
	out.max, errb.max = maxProcOutput, maxProcOutput
	cmd.Stdout, cmd.Stderr = &out, &errb
	setProcessGroup(cmd)
	cmd.WaitDelay = procWaitDelay
	err := cmd.Run()
	res := procResult{stdout: out.b.Bytes(), stderr: errb.b.Bytes(), code: -1}
	if cmd.ProcessState != nil {
		res.code = cmd.ProcessState.ExitCode()
	}
	if ctx.Err() == context.DeadlineExceeded {
		return res, fmt.Errorf("%q did not answer within %s", command, timeout)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return res, fmt.Errorf("run %q: %w", command, err)
	}
	return res, nil
}

// tail is the last part of a process's stderr, for error messages.
func tail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > stderrTail {
		s = "…" + s[len(s)-stderrTail:]
	}
	return s
}

// limitedBuffer keeps the first max bytes written to it and discards the
// rest, so that a chatty helper cannot exhaust memory.
type limitedBuffer struct {
	b   bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

var _ io.Writer = (*limitedBuffer)(nil)
