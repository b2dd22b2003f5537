package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/session/metrics"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// List limits of list_recent.
const (
	defaultRecent = 10
	maxRecent     = 100
)

// SessionInfo is the session_info tool's result.
type SessionInfo struct {
	// SessionID is the session this server records into; null before the
	// first recorded command.
	SessionID           *string    `json:"session_id"`
	Status              string     `json:"status,omitempty"`
	Live                bool       `json:"live"`
	StartedAt           *time.Time `json:"started_at,omitempty"`
	LastUpdated         *time.Time `json:"last_updated,omitempty"`
	Agent               string     `json:"agent,omitempty"`
	ConversationID      string     `json:"conversation_id,omitempty"`
	WorkingDirectory    string     `json:"working_directory"`
	EntryCount          int64      `json:"entry_count"`
	Commands            int64      `json:"commands"`
	CommandsSucceeded   int64      `json:"commands_succeeded"`
	CommandsFailed      int64      `json:"commands_failed"`
	CommandsTimedOut    int64      `json:"commands_timed_out"`
	Approvals           int64      `json:"approvals"`
	RecordingEnabled    bool       `json:"recording_enabled"`
	SessionMode         string     `json:"session_mode"`
	RecordingsDirectory string     `json:"recordings_directory"`
	Note                string     `json:"note,omitempty"`
}

// Recording is one recorded command in list_recent's result.
type Recording struct {
	RecordingID      string    `json:"recording_id"`
	SessionID        string    `json:"session_id"`
	Timestamp        time.Time `json:"timestamp"`
	Command          string    `json:"command"`
	Description      string    `json:"description,omitempty"`
	WorkingDirectory string    `json:"working_directory,omitempty"`
	ExitCode         *int      `json:"exit_code"`
	TimedOut         bool      `json:"timed_out"`
	DurationMS       int64     `json:"duration_ms"`
	OutputTruncated  bool      `json:"output_truncated"`
}

// RecentResult is the list_recent tool's result.
type RecentResult struct {
	Recordings []Recording `json:"recordings"`
}

// infoCall is the start of every read-only tool: the project, or a result
// to return at once.
func (s *Server) infoCall(ctx context.Context, req *mcp.CallToolRequest, tool string, known ...string) (*config, *generation, *args, func(), *mcp.CallToolResult) {
	ctx, leave, ok := s.enter(ctx)
	if !ok {
		return nil, nil, nil, leave, errorResult(errNotReady)
	}
	c, g, input := s.current(ctx, req)
	if input != nil {
		return nil, nil, nil, leave, input
	}
	a, err := parseArgs(s.toolName(tool), req.Params.Arguments, known...)
	if err != nil {
		return nil, nil, nil, leave, errorResult(err)
	}
	return c, g, a, leave, nil
}

// sessionInfo is the bash_recorder.session_info tool.
func (s *Server) sessionInfo(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c, g, _, leave, early := s.infoCall(ctx, req, toolSessionInfo)
	defer leave()
	if early != nil {
		return early, nil
	}
	if c.err != nil {
		return errorResult(c.err), nil
	}
	cfg := c.settings()
	info := &SessionInfo{WorkingDirectory: c.root, RecordingEnabled: cfg.Recording.Enabled,
		SessionMode: string(cfg.Recording.SessionMode), RecordingsDirectory: c.proj.Store.Recordings}
	id := ""
	if g != nil {
		id = g.sessionID()
	}
	switch {
	case !cfg.Recording.Enabled:
		info.Note = "recording is disabled in the settings (recording.enabled: false); commands run unrecorded"
	case id == "":
		info.Note = "no command has been recorded by this server yet; the session starts with the first one"
	}
	if id == "" {
		return structured(info, false, ""), nil
	}
	info.SessionID = &id
	m, err := c.proj.Store.Find(id)
	if err != nil {
		return errorResult(fmt.Errorf("read session %s: %w", id, err)), nil
	}
	info.Status, info.Live, info.Agent, info.ConversationID = m.Status, m.Live, m.Agent, m.ConversationID
	info.StartedAt, info.LastUpdated = &m.CreatedAt, &m.LastUpdated
	info.EntryCount, info.Commands, info.Approvals = m.EntryCount, m.Commands, m.Approvals
	info.CommandsSucceeded, info.CommandsFailed, info.CommandsTimedOut = m.CommandsSucceeded, m.CommandsFailed, m.CommandsTimedOut
	if m.WorkingDirectory != "" {
		info.WorkingDirectory = m.WorkingDirectory
	}
	return structured(info, false, ""), nil
}

// listRecent is the bash_recorder.list_recent tool.
func (s *Server) listRecent(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	c, g, a, leave, early := s.infoCall(ctx, req, toolListRecent, "limit", "session_id", "failed_only")
	defer leave()
	if early != nil {
		return early, nil
	}
	limit, given, err := a.integer("limit", 1, maxRecent, "recordings")
	if err != nil {
		return errorResult(err), nil
	}
	if !given {
		limit = defaultRecent
	}
	sid, err := a.str("session_id")
	if err != nil {
		return errorResult(err), nil
	}
	failed, err := a.boolean("failed_only")
	if err != nil {
		return errorResult(err), nil
	}
	if c.err != nil {
		return errorResult(c.err), nil
	}
	out := &RecentResult{Recordings: []Recording{}}
	if sid == "current" {
		if g != nil {
			sid = g.sessionID()
		}
		if sid == "current" || sid == "" {
			return structured(out, false, "No command has been recorded by this server yet."), nil
		}
	}
	runs, err := c.proj.Store.Runs(session.RunFilter{SessionID: sid, Failed: failed, Limit: int(limit)})
	if err != nil {
		return errorResult(fmt.Errorf("list recordings: %w", err)), nil
	}
	for _, r := range runs {
		b := r.Body
		out.Recordings = append(out.Recordings, Recording{
			RecordingID: r.Event.ID, SessionID: r.SessionID, Timestamp: r.Event.TS, Command: b.Command,
			Description: b.Description, WorkingDirectory: b.WorkingDirectory, ExitCode: b.ExitCode,
			TimedOut: b.TimedOut, DurationMS: b.DurationMS, OutputTruncated: b.OutputTruncated,
		})
	}
	return structured(out, false, ""), nil
}

// health is the health report of the committed project: whether recording
// can work, and the session this server writes.
func (s *Server) health() *metrics.Health {
	s.mu.Lock()
	c, g := s.cfg, s.gen
	s.mu.Unlock()
	if c == nil { // not settled yet: report on the working directory's project
		s.listInterim()
		s.mu.Lock()
		c, g = s.interim, s.gen
		if s.cfg != nil {
			c = s.cfg
		}
		s.mu.Unlock()
		if c == nil {
			return &metrics.Health{Problems: []string{"the project's store could not be located from " + s.opts.WorkDir}}
		}
	}
	if c.proj == nil {
		return &metrics.Health{Directory: c.dir, Problems: []string{c.err.Error()}}
	}
	h := metrics.Check(c.proj.Store, c.settings().Recording.Enabled)
	h.CurrentSession, h.EntriesRecorded = nil, 0
	if g != nil {
		if id := g.sessionID(); id != "" {
			h.CurrentSession = &id
			if m, err := c.proj.Store.Find(id); err == nil {
				h.EntriesRecorded = m.EntryCount
			}
		}
	}
	if err := c.usable(); err != nil {
		h.Healthy = false
		h.Problems = append(h.Problems, err.Error())
	}
	if p := s.reloadProblem(); p != "" {
		h.Problems = append(h.Problems, p)
	}
	return h
}

// healthTool is the bash_recorder.health tool.
func (s *Server) healthTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	_, _, _, leave, early := s.infoCall(ctx, req, toolHealth)
	defer leave()
	if early != nil {
		return early, nil
	}
	return structured(s.health(), false, ""), nil
}

// healthResource serves the health report as a resource.
func (s *Server) healthResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	data, err := json.Marshal(s.health())
	if err != nil {
		return nil, fmt.Errorf("encode health: %w", err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: HealthURI, MIMEType: "application/json", Text: string(data)}}}, nil
}
