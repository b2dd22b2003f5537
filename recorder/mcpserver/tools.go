package mcpserver

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bash_recorder tools, without their prefix.
const (
	toolExecute     = "execute"
	toolSessionInfo = "session_info"
	toolListRecent  = "list_recent"
	toolHealth      = "health"
)

// HealthURI is the resource that holds the health report.
const HealthURI = "cuff://health"

// emptySchema is the input schema of a tool that takes no arguments.
const emptySchema = `{"type": "object", "properties": {}, "additionalProperties": false}`

const sessionInfoSchema = emptySchema

const listRecentSchema = `{
  "type": "object",
  "properties": {
    "limit": {"type": "integer", "description": "How many recordings to return, newest first", "default": 10, "minimum": 1, "maximum": 100},
    "session_id": {"type": "string", "description": "Only this session (a full id or a unique part); \"current\" for the session this server writes"},
    "failed_only": {"type": "boolean", "description": "Only commands that failed or timed out", "default": false}
  },
  "additionalProperties": false
}`

const healthSchema = emptySchema

// addTools registers the bash_recorder tools and the health resource.
func (s *Server) addTools() {
	f, t := false, true
	s.sdk.AddTool(&mcp.Tool{
		Name: s.toolName(toolExecute), Title: "Run a recorded bash command", Description: executeDescription,
		InputSchema: json.RawMessage(executeSchema),
		Annotations: &mcp.ToolAnnotations{Title: "Run a recorded bash command", DestructiveHint: &t, OpenWorldHint: &t},
	}, s.execute)
	s.sdk.AddTool(&mcp.Tool{
		Name: s.toolName(toolSessionInfo), Title: "Current recording session",
		Description: "Get information about the current recording session: its id, status, how many commands " +
			"ran and how they ended, where recordings are kept and whether recording is on.",
		InputSchema: json.RawMessage(sessionInfoSchema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
	}, s.sessionInfo)
	s.sdk.AddTool(&mcp.Tool{
		Name: s.toolName(toolListRecent), Title: "Recent recorded commands",
		Description: "List recent recordings (last N commands), newest first: command, exit code, " +
			"duration, whether it timed out, and the recording id.",
		InputSchema: json.RawMessage(listRecentSchema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
	}, s.listRecent)
	s.sdk.AddTool(&mcp.Tool{
		Name: s.toolName(toolHealth), Title: "Recording health",
		Description: "Check that recording works: healthy, recording_enabled, directory_writable, " +
			"disk_space_ok, current_session, entries_recorded (also the resource " + HealthURI + ").",
		InputSchema: json.RawMessage(healthSchema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
	}, s.healthTool)
	s.sdk.AddResource(&mcp.Resource{
		URI: HealthURI, Name: "health", Title: "cuff recording health", MIMEType: "application/json",
		Description: "Whether recording works, the current session and how many entries it holds.",
	}, s.healthResource)
}

// errorResult is a tool error whose text goes back to the agent.
func errorResult(err error) *mcp.CallToolResult {
	r := &mcp.CallToolResult{}
	r.SetError(err)
	return r
}

// structured is a result holding v as structured content and as JSON text,
// led by a one-line note when there is one.
func structured(v any, isError bool, note string) *mcp.CallToolResult {
	data, err := json.Marshal(v)
	if err != nil {
		return errorResult(fmt.Errorf("encode result: %w", err))
	}
	r := &mcp.CallToolResult{StructuredContent: json.RawMessage(data), IsError: isError}
	if note != "" {
		r.Content = append(r.Content, &mcp.TextContent{Text: note})
	}
	r.Content = append(r.Content, &mcp.TextContent{Text: string(data)})
	return r
}

// secondsOf turns a number of seconds into a duration.
func secondsOf(n int64) time.Duration { return time.Duration(n) * time.Second }
