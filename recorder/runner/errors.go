package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Code identifies a kind of run failure; codes are stable and documented for users.
type Code string

// Error codes of a run. Each is stable: users search for them and recordings keep them.
const (
	// CodeNotFound: the executable (or the shell) was not found.
	CodeNotFound Code = "CUFF-EXE-001"
	// CodeTimeout: the command ran past its timeout and its process group was ended.
	CodeTimeout Code = "CUFF-EXE-002"
	// CodeProcessFailed: the command could not be started, exited non-zero, died of a
	// signal or was cancelled.
	CodeProcessFailed Code = "CUFF-EXE-003"
	// CodeOutputTooLarge: output passed the per-stream limit; the middle was dropped.
	CodeOutputTooLarge Code = "CUFF-EXE-004"
	// CodeBadWorkDir: the working directory is missing, not a directory or outside the root.
	CodeBadWorkDir Code = "CUFF-EXE-005"
	// CodePermissionDenied: the executable or the working directory may not be used.
	CodePermissionDenied Code = "CUFF-EXE-006"
	// CodeInvalid: the command itself is malformed (empty executable, NUL bytes, bad
	// environment names, bad timeout or limits, shell metacharacters in argv mode).
	CodeInvalid Code = "CUFF-EXE-007"
)

// Exit statuses cuff uses when the command's own status is not available.
const (
	ExitTimeout       = 124 // the command timed out
	ExitOwnFailure    = 125 // cuff could not run the command
	ExitNotExecutable = 126 // the executable exists but may not be executed
	ExitNotFound      = 127 // the executable was not found
)

// exitSignalBase: a death by signal n is reported as 128+n, as shells do.
const exitSignalBase = 128

// Error is a structured run failure: a stable code, a message naming the problem and a
// hint naming the way out. Messages only repeat what the caller gave (executable name,
// working directory as given), never paths cuff resolved on the host.
type Error struct {
	Code    Code   `json:"code"`
	Field   string `json:"field,omitempty"` // the part of the command at fault, e.g. "args[2]"
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
	cause   error
}

// Error returns the code and the message.
func (e *Error) Error() string {
	return string(e.Code) + ": " + e.Message
}

// Unwrap returns the underlying OS error, if any, for errors.Is checks. Its text may
// name host paths, so it is not part of Error().
func (e *Error) Unwrap() error { return e.cause }

// ExitStatus is the status a command-line front end should exit with for this error
// when the command produced none of its own.
func (e *Error) ExitStatus() int {
	switch e.Code {
	case CodeNotFound:
		return ExitNotFound
	case CodePermissionDenied:
		return ExitNotExecutable
	case CodeTimeout:
		return ExitTimeout
	default:
		return ExitOwnFailure
	}
}

func newError(code Code, field, hint, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...), Hint: hint}
}

func (e *Error) wrap(cause error) *Error {
	e.cause = cause
	return e
}

func invalid(field, hint, format string, args ...any) *Error {
	return newError(CodeInvalid, field, hint, format, args...)
}

// startError turns a failure of fork/exec into a structured error naming the executable
// as the caller gave it.
func startError(name string, err error) *Error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return newError(CodeNotFound, "executable",
			"if it is a script, check that the interpreter on its #! line is installed",
			"cannot start %q: it or its interpreter was not found", name).wrap(err)
	case errors.Is(err, syscall.ENOEXEC):
		return newError(CodePermissionDenied, "executable",
			"give a program or a script with a #! line, or run it through its interpreter",
			"cannot execute %q: not an executable format", name).wrap(err)
	case errors.Is(err, fs.ErrPermission):
		return newError(CodePermissionDenied, "executable",
			"check the file's execute bit and the permissions of its directories",
			"permission denied starting %q", name).wrap(err)
	default:
		return newError(CodeProcessFailed, "executable",
			"the system refused to start a process; check process and memory limits",
			"cannot start %q: %s", name, errnoText(err)).wrap(err)
	}
}

// errnoText describes an OS error without the path that *fs.PathError carries.
func errnoText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return "unknown error"
}
