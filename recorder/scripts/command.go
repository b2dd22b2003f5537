package scripts

import (
	"fmt"
	"maps"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/recorder/runner"
)

// Request asks to run a script.
type Request struct {
	// Script is a tool name (script_scripts_build) or a path relative to the
	// base directory (scripts/build.sh).
	Script string
	Args   []string
	// Env are extra variables; blocked ones (PATH, LD_PRELOAD, HOME, ...) are refused.
	Env map[string]string
	// Timeout overrides the configured default when > 0.
	Timeout time.Duration
}

// Command checks a request and builds the runner command for it: the
// interpreter's words, the script's path and the arguments, run in the
// configured working directory (which must lie inside the project root)
// with the timeout asked for or the default. env is where the script's
// environment starts from (mode, exclusions, the caller's overrides); the
// configured scripts.environment and then the request's Env are set on top.
//
// The caller adds what only it knows (live output writers, capture mode,
// output limit, resource limits, interrupts) and runs the command with
// runner.Run. When the request is refused the error is an *Error with the
// documented message, and the command is still filled in as far as it is
// known so that the refusal can be recorded.
func (s *Set) Command(req Request, env runner.Env) (runner.Command, *Script, error) {
	c := runner.Command{Root: s.cfg.Root, Timeout: s.cfg.timeout(req.Timeout), Env: env}
	c.Env.Overrides = maps.Clone(env.Overrides)
	if c.Env.Overrides == nil {
		c.Env.Overrides = map[string]string{}
	}
	maps.Copy(c.Env.Overrides, s.cfg.Environment)
	if root, err := s.cfg.root(); err == nil {
		c.Root = root
	}
	work, err := s.cfg.WorkDir()
	if err != nil {
		return c, nil, err
	}
	c.Dir = work
	c.Argv = append([]string{req.Script}, req.Args...)
	if req.Timeout < 0 {
		return c, nil, newError(KindInvalid, "give a positive number of seconds", "Timeout must be positive, got %s", req.Timeout)
	}
	sc, err := s.Resolve(req.Script)
	if err != nil {
		return c, nil, err
	}
	c.Argv = append(append(append([]string(nil), sc.Interpreter...), scriptArg(work, sc.abs)), req.Args...)
	if err := ValidateArgs(req.Args); err != nil {
		return c, sc, err
	}
	if err := ValidateEnv(req.Env); err != nil {
		return c, sc, err
	}
	maps.Copy(c.Env.Overrides, req.Env)
	if !sc.Executable && (s.cfg.RequireExecutable || sc.Interpreter == nil) {
		hint := "make it executable (chmod +x " + sc.Path + ")"
		if !s.cfg.RequireExecutable {
			hint += ", or give it a #! line or an interpreter for its extension in scripts.interpreters"
		}
		return c, sc, newError(KindPermission, hint, "Permission denied: %s", sc.Path)
	}
	return c, sc, nil
}

// scriptArg is how the script is named on the command line: relative to the
// working directory when it lies inside it ("./scripts/build.sh", never
// mistaken for an option or looked up on PATH), else absolute.
func scriptArg(work, abs string) string {
	if within(work, abs) {
		if rel, err := filepath.Rel(work, abs); err == nil {
			return "./" + filepath.ToSlash(rel)
		}
	}
	return abs
}

// Outcome reads a finished run the way the scripts plugin reports it: nil
// when the script exited 0, otherwise "Script timed out after N seconds",
// "Script failed with exit code N", or why it could not start.
func Outcome(c *runner.Command, res *runner.Result) *Error {
	switch {
	case res.TimedOut:
		return newError(KindTimeout, "raise it with --timeout or scripts.default_timeout",
			"Script timed out after %s seconds", seconds(c.Timeout))
	case res.Interrupted:
		return newError(KindInterrupted, "", "Script was interrupted")
	case res.ExitCode != nil && *res.ExitCode != 0:
		return newError(KindFailed, "", "Script failed with exit code %d", *res.ExitCode)
	case res.SignalNum != 0:
		return newError(KindFailed, "", "Script failed with exit code %d (killed by %s)", res.ExitStatus(), res.Signal)
	case res.Err != nil && !res.Started():
		return &Error{Kind: KindStart, Message: res.Err.Message, Hint: res.Err.Hint}
	}
	return nil
}

// seconds writes a duration as a number of seconds: "300", "1.5".
func seconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10)
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// Info describes a script in the list tool's answer.
type Info struct {
	Name        string `json:"name"`
	Path        string `json:"path"`
	Description string `json:"description"`
	// Interpreter is null when the script is executed directly.
	Interpreter *string `json:"interpreter"`
}

// ListResult is the list tool's answer: {"scripts": [...]}.
type ListResult struct {
	Scripts []Info `json:"scripts"`
}

// List describes the exposed scripts, sorted by name.
func (s *Set) List() ListResult {
	out := ListResult{Scripts: make([]Info, 0, len(s.Scripts))}
	for _, sc := range s.Scripts {
		out.Scripts = append(out.Scripts, sc.Info())
	}
	return out
}

// Info describes the script for listings.
func (s *Script) Info() Info {
	i := Info{Name: s.Name, Path: s.Path, Description: s.Description}
	if s.Interpreter != nil {
		v := s.InterpreterString()
		i.Interpreter = &v
	}
	return i
}

// Tool is one tool the scripts offer: a script, or the list tool (Script nil).
type Tool struct {
	Name        string
	Description string
	Script      *Script
}

// Tools are the tools to offer: the list tool first when
// expose_list_scripts is on, then one per exposed script.
func (s *Set) Tools() []Tool {
	var out []Tool
	if s.cfg.ExposeListScripts {
		out = append(out, Tool{Name: ListToolName, Description: ListToolDescription})
	}
	for _, sc := range s.Scripts {
		out = append(out, Tool{Name: sc.Name, Description: sc.Description, Script: sc})
	}
	return out
}

// ToolInputSchema is the JSON schema of a script tool's input.
const ToolInputSchema = `{
  "type": "object",
  "properties": {
    "args": {"type": "array", "items": {"type": "string"}, "description": "Arguments to pass to the script"},
    "timeout": {"type": "integer", "description": "Execution timeout in seconds (overrides default)"},
    "env": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Additional environment variables"}
  },
  "additionalProperties": false
}`

// DryRun describes the command a request would run, for --dry-run.
func DryRun(c *runner.Command) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", c.String())
	fmt.Fprintf(&b, "  working directory: %s\n", c.Dir)
	fmt.Fprintf(&b, "  timeout: %s seconds\n", seconds(c.Timeout))
	keys := make([]string, 0, len(c.Env.Overrides))
	for k := range c.Env.Overrides {
		keys = append(keys, k)
	}
	if len(keys) > 0 {
		sort.Strings(keys)
		fmt.Fprintf(&b, "  environment: %s\n", strings.Join(keys, ", "))
	}
	return b.String()
}
