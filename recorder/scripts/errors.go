package scripts

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cuff-dev/cuff/recorder/runner"
)

// Kind classifies a script failure.
type Kind string

// Kinds of failure. Their messages are the ones the scripts plugin documents.
const (
	KindNotFound      Kind = "not_found"         // "Script not found: {path}"
	KindPermission    Kind = "permission_denied" // "Permission denied: {path}"
	KindTimeout       Kind = "timeout"           // "Script timed out after {n} seconds"
	KindFailed        Kind = "failed"            // "Script failed with exit code {n}"
	KindNotAllowed    Kind = "not_allowed"       // "Script not in allowed patterns: {path}"
	KindExcluded      Kind = "excluded"          // "Script is excluded: {path}"
	KindTraversal     Kind = "path_traversal"    // "Path traversal detected: {path}"
	KindSymlinkEscape Kind = "symlink_escape"    // "Script resolves outside base directory: {path}"
	KindDangerousArgs Kind = "dangerous_args"    // "Argument contains dangerous characters: {chars}"
	KindBlockedEnv    Kind = "blocked_env"       // "Blocked environment variables: {vars}"
	KindConflict      Kind = "name_conflict"     // two scripts share a tool name
	KindInvalid       Kind = "invalid"           // a malformed request (bad variable name, NUL byte)
	KindStart         Kind = "start_failed"      // the runner could not start the script
	KindInterrupted   Kind = "interrupted"       // the run was interrupted
)

// Error is a refused or failed script run. Error() is the message alone,
// exactly as documented; Hint says what to do about it.
type Error struct {
	Kind    Kind
	Message string
	Hint    string
}

func (e *Error) Error() string { return e.Message }

func newError(kind Kind, hint, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// RunError is the error in the runner's terms, for recording a refused run
// with a stable code: not found and permission keep their codes, a timeout is
// a timeout, every refusal is an invalid command.
func (e *Error) RunError() *runner.Error {
	code := runner.CodeInvalid
	switch e.Kind {
	case KindNotFound:
		code = runner.CodeNotFound
	case KindPermission:
		code = runner.CodePermissionDenied
	case KindTimeout:
		code = runner.CodeTimeout
	case KindFailed, KindStart, KindInterrupted:
		code = runner.CodeProcessFailed
	}
	return &runner.Error{Code: code, Message: e.Message, Hint: e.Hint}
}

// Refused is the Result of a run that was refused before it started, so that
// the refusal can be recorded like any other failed start.
func Refused(err error) runner.Result {
	se, ok := err.(*Error)
	if !ok {
		se = &Error{Kind: KindInvalid, Message: err.Error()}
	}
	return runner.Result{Err: se.RunError()}
}

// dangerousChars are the characters refused in script arguments: each could
// start shell syntax if a script passed its arguments on to a shell unquoted.
const dangerousChars = ";&|`$(){}[]<>\\'\"!*?~"

// blockedEnvVars are the variables a request may not set: they change which
// programs and libraries run, or whom the script runs as.
func blockedEnvVars() []string {
	return []string{"PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH",
		"PYTHONPATH", "NODE_PATH", "RUBYLIB", "PERL5LIB", "HOME", "USER", "SHELL"}
}

// BlockedEnvVars lists the environment variables a run request may not set.
func BlockedEnvVars() []string { return blockedEnvVars() }

// ValidateArgs refuses arguments that contain shell metacharacters
// (;&|`$(){}[]<>\'"!*?~). The message names the characters found in the
// first such argument, as a set: Argument contains dangerous characters: {'$', ';'}.
func ValidateArgs(args []string) error {
	for i, a := range args {
		var found []string
		for _, c := range dangerousChars {
			if strings.ContainsRune(a, c) {
				found = append(found, string(c))
			}
		}
		if len(found) > 0 {
			return newError(KindDangerousArgs,
				fmt.Sprintf("argument %d is %q. Scripts get each argument as one word, so no quoting is needed; pass plain values, or have the script read such text from a file", i+1, a),
				"Argument contains dangerous characters: %s", pySet(found))
		}
	}
	return nil
}

// ValidateEnv refuses a request's environment when it sets a blocked variable
// (PATH, LD_PRELOAD, HOME, ...) or a name that is not a variable name. The
// configured scripts.environment is trusted and not checked here.
func ValidateEnv(env map[string]string) error {
	var blocked []string
	for _, b := range blockedEnvVars() {
		if _, ok := env[b]; ok {
			blocked = append(blocked, b)
		}
	}
	if len(blocked) > 0 {
		return newError(KindBlockedEnv, "set or change these inside the script itself; they are never taken from a request",
			"Blocked environment variables: %s", pySet(blocked))
	}
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !validEnvName(k) {
			return newError(KindInvalid, "use letters, digits and _, not starting with a digit",
				"Invalid environment variable name: %q", k)
		}
		if strings.ContainsRune(env[k], 0) {
			return newError(KindInvalid, "remove the NUL byte from the value", "Environment variable %s contains a NUL byte", k)
		}
	}
	return nil
}

func validEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// pySet writes strings as a set literal, sorted: {'$', ';'}.
func pySet(items []string) string {
	sorted := append([]string(nil), items...)
	sort.Strings(sorted)
	quoted := make([]string, len(sorted))
	for i, s := range sorted {
		quoted[i] = pyRepr(s)
	}
	return "{" + strings.Join(quoted, ", ") + "}"
}

// pyRepr quotes a string the way the scripts plugin's messages show it:
// single quotes, double quotes when it holds a single quote, backslashes
// doubled.
func pyRepr(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	if q == "'" {
		s = strings.ReplaceAll(s, "'", `\'`)
	}
	return q + s + q
}
