package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/cuff-dev/cuff/recorder"
	"github.com/cuff-dev/cuff/recorder/runner"
	"github.com/cuff-dev/cuff/recorder/scripts"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ScriptResult is a script tool's structured result.
type ScriptResult struct {
	Stdout          string  `json:"stdout"`
	Stderr          string  `json:"stderr"`
	ExitCode        *int    `json:"exit_code"`
	TimedOut        bool    `json:"timed_out"`
	DurationMS      int64   `json:"duration_ms"`
	RecordingID     *string `json:"recording_id"`
	OutputTruncated bool    `json:"output_truncated"`
}

// syncScripts brings the script tools in line with the committed project's
// scripts (rediscovered once the cache's TTL has passed).
func (s *Server) syncScripts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg != nil {
		s.syncScriptsLocked(s.cfg)
	}
}

// syncScriptsLocked offers c's scripts as tools, adding and removing tools
// so that clients are told when the list changes. s.mu is held.
func (s *Server) syncScriptsLocked(c *config) {
	want := map[string]string{}
	if c != nil && c.err == nil && c.scripts != nil {
		set, err := c.scripts.Set()
		if err != nil {
			c.log().Warn("Script discovery failed", "error", err.Error())
			s.warn("scripts: " + err.Error())
			return // keep offering what was found before
		}
		for _, t := range set.Tools() {
			want[t.Name] = t.Description
		}
	}
	var stale []string
	for name, desc := range s.scriptTs {
		if d, ok := want[name]; !ok || d != desc {
			stale = append(stale, name)
			delete(s.scriptTs, name)
		}
	}
	if len(stale) > 0 {
		s.toolsGen++
		s.sdk.RemoveTools(stale...)
	}
	for name, desc := range want {
		if _, ok := s.scriptTs[name]; ok {
			continue
		}
		s.toolsGen++
		s.scriptTs[name] = desc
		f := false
		if name == scripts.ListToolName {
			s.sdk.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(emptySchema),
				Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}}, s.listScripts)
			continue
		}
		s.sdk.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(scripts.ToolInputSchema)}, s.scriptTool(name))
	}
}

// scriptSet is the committed project's current script discovery.
func scriptSet(c *config) (*scripts.Set, error) {
	if err := c.usable(); err != nil {
		return nil, err
	}
	if c.scripts == nil {
		return nil, errors.New("scripts are disabled in the settings (plugins.scripts.enabled: false)")
	}
	set, err := c.scripts.Set()
	if err != nil {
		return nil, fmt.Errorf("scripts: %w; fix the scripts section of .cuff/settings.yml", err)
	}
	return set, nil
}

// listScripts is the script_list_scripts tool.
func (s *Server) listScripts(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c, _, _, leave, early := s.infoCall(ctx, req, scripts.ListToolName)
	defer leave()
	if early != nil {
		return early, nil
	}
	set, err := scriptSet(c)
	if err != nil {
		return errorResult(err), nil
	}
	s.syncScripts()
	return structured(set.List(), false, ""), nil
}

// scriptTool is the handler of the script tool name.
func (s *Server) scriptTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, leave, ok := s.enter(ctx)
		defer leave()
		if !ok {
			return errorResult(errNotReady), nil
		}
		c, g, input := s.current(ctx, req)
		if input != nil {
			return input, nil
		}
		cfg := c.settings()
		r, err := parseScript(name, req.Params.Arguments, int64(cfg.Execution.MaxTimeout.Seconds()))
		if err != nil {
			return errorResult(err), nil
		}
		set, err := scriptSet(c)
		if err != nil {
			return errorResult(err), nil
		}
		base := s.opts.Command(cfg)
		cmd, _, refusal := set.Command(*r, base.Env)
		cmd.Capture, cmd.MaxOutputBytes, cmd.Limits = base.Capture, base.MaxOutputBytes, base.Limits
		cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Interrupts = nil, nil, nil, nil
		cl := s.newCall(req, name)
		if refusal != nil {
			s.recordRefusal(c, g, cl, &cmd, refusal)
			return errorResult(refusal), nil
		}
		res := s.run(ctx, c, g, cl, &cmd, "script "+name, true)
		if res.input != nil {
			return res.input, nil
		}
		if res.denied != nil {
			return errorResult(res.denied), nil
		}
		out := &ScriptResult{Stdout: res.Stdout.Text, Stderr: res.Stderr.Text, ExitCode: res.ExitCode, TimedOut: res.TimedOut,
			DurationMS: res.Duration.Milliseconds(), OutputTruncated: res.Truncated()}
		if res.eventID != "" {
			out.RecordingID = &res.eventID
		}
		if o := scripts.Outcome(&cmd, &res.Result); o != nil {
			note := o.Message
			if o.Hint != "" {
				note += " (" + o.Hint + ")"
			}
			return structured(out, true, note), nil
		}
		return structured(out, false, ""), nil
	}
}

// recordRefusal records a script run that was refused before it started.
func (s *Server) recordRefusal(c *config, g *generation, cl *call, cmd *runner.Command, refusal error) {
	res := scripts.Refused(refusal)
	p := g.begin(cl.corr, cl.agent, recorder.StartEvent(cmd, startDir(cmd)))
	p.finish(recorder.RunEvent(cmd, &res, recorder.RunDetails{Description: "script " + cl.tool}))
	c.log().Info("Script refused", "script", cl.tool, "reason", refusal.Error())
}

// parseScript reads a script tool's arguments.
func parseScript(name string, raw json.RawMessage, maxTimeout int64) (*scripts.Request, error) {
	a, err := parseArgs(name, raw, "args", "timeout", "env")
	if err != nil {
		return nil, err
	}
	r := &scripts.Request{Script: name}
	if r.Args, err = a.stringList("args"); err != nil {
		return nil, err
	}
	if maxTimeout <= 0 {
		maxTimeout = math.MaxInt32
	}
	n, _, err := a.integer("timeout", 1, maxTimeout, "seconds")
	if err != nil {
		return nil, err
	}
	r.Timeout = secondsOf(n)
	if r.Env, err = a.stringMap("env"); err != nil {
		return nil, err
	}
	return r, nil
}
