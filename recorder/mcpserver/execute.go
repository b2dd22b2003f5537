package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/cuff-dev/cuff/recorder"
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/recorder/sandbox"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// executeDescription is the execute tool's description.
const executeDescription = `Execute a bash command and record the execution.

This tool runs shell commands similar to the built-in bash tool, but records
all executions for audit, analysis, and policy generation. Risky commands
(network, interpreters, destructive) wait for a person's approval; a refused
command returns an error with the reason.

Arguments:
- command (required): The bash command to execute
- timeout (optional): Timeout in seconds (default: 120, max: 600)
- working_directory (optional): Directory to run command in
- description (optional): Human-readable description of what this command does

Returns:
- stdout: Command standard output
- stderr: Command standard error
- exit_code: Command exit code
- timed_out: Whether command exceeded timeout
- duration_ms: Execution time in milliseconds
- recording_id: ID of the recording entry (for reference)
`

// executeSchema is the execute tool's input schema.
const executeSchema = `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The bash command to execute"},
    "timeout": {"type": "integer", "description": "Timeout in seconds", "default": 120, "minimum": 1, "maximum": 600},
    "working_directory": {"type": "string", "description": "Directory to run command in"},
    "description": {"type": "string", "description": "Human-readable description of the command's purpose"}
  },
  "required": ["command"],
  "additionalProperties": false
}`

// ExecuteResult is the execute tool's structured result: the documented fields
// (stdout, stderr, exit_code, timed_out, duration_ms, recording_id,
// working_directory) and what else the runner knows.
type ExecuteResult struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode *int   `json:"exit_code"`
	TimedOut bool   `json:"timed_out"`
	// DurationMS is how long the command ran.
	DurationMS int64 `json:"duration_ms"`
	// RecordingID is the bash_run event's id; null when the run was not recorded.
	RecordingID      *string `json:"recording_id"`
	WorkingDirectory string  `json:"working_directory"`
	// SessionID is the session the run was recorded in.
	SessionID *string `json:"session_id"`
	// OutputTruncated is set when a stream passed the output limit; the
	// middle was left out and OmittedBytes says how much.
	OutputTruncated bool  `json:"output_truncated"`
	OmittedBytes    int64 `json:"omitted_bytes,omitempty"`
	// Signal names the signal that ended the command, if one did.
	Signal      string `json:"signal,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
	// Error says why the command failed to start or finish, with a hint.
	Error *RunError `json:"error,omitempty"`
	// Sandbox is set when the command ran in cuff's sandbox; Denied lists
	// what the sandbox stopped (writes outside the project, the temporary
	// directory and build caches; the network).
	Sandbox *transcript.SandboxReport `json:"sandbox,omitempty"`
}

// sandboxNote tells the agent what the sandbox stopped, and the way out.
func sandboxNote(r *transcript.SandboxReport) string {
	if r == nil || len(r.Denied) == 0 {
		return ""
	}
	var what []string
	for _, d := range r.Denied {
		switch {
		case d.Path != "":
			what = append(what, d.Op+" "+d.Path)
		case d.Addr != "":
			what = append(what, d.Op+" "+d.Addr)
		default:
			what = append(what, d.Op)
		}
	}
	return " cuff's sandbox stopped: " + strings.Join(what, "; ") +
		" (commands cuff allows may write only the project, the temporary directory and build caches, without network; a person can approve running it outside the sandbox)."
}

// RunError is a run failure as the agent sees it.
type RunError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint,omitempty"`
}

// executeArgs are the execute tool's arguments, checked.
type executeArgs struct {
	command, dir, description string
	timeout                   int64 // seconds; 0 means the default
}

// parseExecute reads and checks the execute tool's arguments.
func parseExecute(tool string, raw json.RawMessage, maxTimeout int64) (*executeArgs, error) {
	a, err := parseArgs(tool, raw, "command", "timeout", "working_directory", "description")
	if err != nil {
		return nil, err
	}
	var e executeArgs
	if !a.has("command") {
		return nil, &argError{tool, `"command" is required: the bash command to run, e.g. {"command": "go test ./..."}`}
	}
	if e.command, err = a.str("command"); err != nil {
		return nil, err
	}
	if strings.TrimSpace(e.command) == "" {
		return nil, &argError{tool, `"command" is empty: give the bash command to run`}
	}
	if e.timeout, _, err = a.integer("timeout", 1, maxTimeout, "seconds"); err != nil {
		return nil, err
	}
	if e.dir, err = a.str("working_directory"); err != nil {
		return nil, err
	}
	if e.description, err = a.str("description"); err != nil {
		return nil, err
	}
	return &e, nil
}

// execute is the bash_recorder.execute tool.
func (s *Server) execute(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	ctx, leave, ok := s.enter(ctx)
	defer leave()
	if !ok {
		return errorResult(errNotReady), nil
	}
	c, g, input := s.current(ctx, req)
	if input != nil {
		return input, nil
	}
	tool := s.toolName(toolExecute)
	cfg := c.settings()
	maxTimeout := int64(cfg.Execution.MaxTimeout.Seconds())
	if maxTimeout <= 0 {
		maxTimeout = math.MaxInt32
	}
	e, err := parseExecute(tool, req.Params.Arguments, maxTimeout)
	if err != nil {
		return errorResult(err), nil
	}
	if err := c.usable(); err != nil {
		return errorResult(fmt.Errorf("cuff cannot run commands here: %w", err)), nil
	}
	cmd := s.opts.Command(cfg)
	cmd.Root = c.root
	cmd.Dir = e.dir
	if cmd.Dir == "" {
		cmd.Dir = cfg.Execution.WorkingDirectory
	}
	cmd.Shell, cmd.Script = cfg.Execution.Shell, e.command
	cmd.Timeout, cmd.MaxTimeout = cfg.Execution.DefaultTimeout, cfg.Execution.MaxTimeout
	if e.timeout > 0 {
		cmd.Timeout = secondsOf(e.timeout)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Interrupts = nil, nil, nil, nil // stdout is the protocol's
	cl := s.newCall(req, tool)
	res := s.run(ctx, c, g, cl, &cmd, e.description, false)
	if res.input != nil {
		return res.input, nil
	}
	if res.denied != nil {
		return errorResult(res.denied), nil
	}
	out := executeResult(&res.Result, res.eventID, res.sessionID, startDir(&cmd))
	out.Sandbox = res.sandbox
	return structured(out, !res.Success(), summary(&res.Result, &cmd)+sandboxNote(res.sandbox)), nil
}

// ran is a run's outcome with where it was recorded, or why it was refused.
type ran struct {
	runner.Result
	eventID, sessionID string
	denied             error
	input              *mcp.CallToolResult // a question for the client's user
	sandbox            *transcript.SandboxReport
}

// run checks cmd, asks the gate (and maybe a person), runs it and records
// it. A command that fails its checks is recorded as a failed start without
// consulting the gate, since nothing of it runs.
func (s *Server) run(ctx context.Context, c *config, g *generation, cl *call, cmd *runner.Command, description string, script bool) ran {
	dir := startDir(cmd)
	if cmd.Validate() == nil {
		if input, err := s.authorize(ctx, c, g, cl, cmd.String(), dir, script); err != nil || input != nil {
			return ran{denied: err, input: input}
		}
	}
	// What the gate let through runs in the sandbox; what a person approved
	// runs outside it, exactly as approved.
	confined := c.sandbox.on() && !cl.approved
	if confined {
		cmd.Wrap = c.sandbox.Wrap
	}
	pending := g.begin(cl.corr, cl.agent, recorder.StartEvent(cmd, dir))
	res := c.runner.Run(ctx, *cmd)
	if !confined {
		c.forgetGates()
	}
	details := recorder.RunDetails{Description: description}
	cfg := c.settings()
	if cfg.Recording.CaptureEnv && s.opts.CapturedEnv != nil {
		details.Environment = s.opts.CapturedEnv(cfg.Recording.EnvAllowlist, cmd.Env.Overrides)
	}
	event := recorder.RunEvent(cmd, &res, details)
	if confined && res.Started() {
		sandbox.Record(event, c.sandbox.Setup.Policy.Denials(res.Dir, res.Stderr.Text, res.Stdout.Text))
	}
	eventID, sessionID := pending.finish(event)
	c.log().Debug("Command executed", "session_id", sessionID, "entry_id", eventID, "trace_id", cl.corr.ToolCallID,
		"duration_ms", res.Duration.Milliseconds(), "exit_code", res.ExitStatus(), "tool", cl.tool)
	return ran{Result: res, eventID: eventID, sessionID: sessionID, sandbox: event.Sandbox}
}

// newCall gathers what the server knows about a tool call.
func (s *Server) newCall(req *mcp.CallToolRequest, tool string) *call {
	cl := &call{req: req, tool: tool, corr: correlation(req.Params.GetMeta()), input: req.Params.Arguments}
	if info := req.ClientInfo(); info != nil {
		cl.agent = info.Name
	}
	if cl.corr.ConversationID == "" {
		cl.corr.ConversationID = s.connID
	}
	if cl.corr.ToolCallID == "" {
		cl.corr.ToolCallID = transcript.NewCallID()
	}
	cl.callID = cl.corr.ToolCallID
	return cl
}

// startDir is where cmd starts, absolute.
func startDir(cmd *runner.Command) string {
	switch {
	case cmd.Dir == "":
		return cmd.Root
	case filepath.IsAbs(cmd.Dir):
		return filepath.Clean(cmd.Dir)
	}
	return filepath.Join(cmd.Root, cmd.Dir)
}

// executeResult is the structured result of a run.
func executeResult(res *runner.Result, eventID, sessionID, dir string) *ExecuteResult {
	out := &ExecuteResult{
		Stdout: res.Stdout.Text, Stderr: res.Stderr.Text, ExitCode: res.ExitCode, TimedOut: res.TimedOut,
		DurationMS: res.Duration.Milliseconds(), WorkingDirectory: res.Dir, OutputTruncated: res.Truncated(),
		OmittedBytes: res.OmittedBytes(), Signal: res.Signal, Interrupted: res.Interrupted,
	}
	if out.WorkingDirectory == "" {
		out.WorkingDirectory = dir
	}
	if eventID != "" {
		out.RecordingID, out.SessionID = &eventID, &sessionID
	}
	if e := res.Err; e != nil && !(e.Code == runner.CodeProcessFailed && res.ExitCode != nil && !res.Interrupted) {
		out.Error = &RunError{Code: string(e.Code), Message: e.Message, Hint: e.Hint}
	}
	return out
}

// summary is a one-line account of a failed run for the agent.
func summary(res *runner.Result, cmd *runner.Command) string {
	switch {
	case res.TimedOut:
		return fmt.Sprintf("Command timed out after %s; its process group was ended. Partial output is kept.", cmd.Timeout)
	case !res.Started() && res.Err != nil:
		msg := "Command could not be started: " + res.Err.Message
		if res.Err.Hint != "" {
			msg += " (" + res.Err.Hint + ")"
		}
		return msg
	case res.Interrupted:
		return "Command was interrupted."
	case res.ExitCode != nil && *res.ExitCode != 0:
		return fmt.Sprintf("Command exited with code %d.", *res.ExitCode)
	case res.Signal != "":
		return "Command was killed by " + res.Signal + "."
	}
	return ""
}
