package transcript

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"
)

// Sources of a session: how its events reached cuff.
const (
	SourceExec       = "exec"
	SourceClaudeHook = "claude-hook"
	SourceMCP        = "mcp"
	SourceImport     = "import"
	SourceClaude     = "claude"
	SourceCodex      = "codex"
)

// Host describes the machine a session ran on.
type Host struct {
	OS       string `json:"os,omitempty"`
	Arch     string `json:"arch,omitempty"`
	Hostname string `json:"hostname,omitempty"`
}

// Git describes the repository state when a session started.
type Git struct {
	Branch   string `json:"branch,omitempty"`
	SHA      string `json:"sha,omitempty"`
	Worktree string `json:"worktree,omitempty"`
}

// SessionStart opens a session.
type SessionStart struct {
	Agent            string `json:"agent,omitempty"`
	Source           string `json:"source,omitempty"`
	Title            string `json:"title,omitempty"`
	WorkingDirectory string `json:"working_directory,omitempty"`
	CuffVersion      string `json:"cuff_version,omitempty"`
	Model            string `json:"model,omitempty"`
	Host             *Host  `json:"host,omitempty"`
	Git              *Git   `json:"git,omitempty"`
}

// Chat roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
	RoleDeveloper = "developer"
)

// Usage counts the tokens of one model message.
type Usage struct {
	InputTokens      int64 `json:"input_tokens,omitempty"`
	OutputTokens     int64 `json:"output_tokens,omitempty"`
	CacheReadTokens  int64 `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// ChatTurn is one message of the conversation; Text is markdown. Thinking
// marks a reasoning block rather than an answer. Context names what the
// agent itself put into the conversation (its environment, instructions, a
// slash command the person typed), so that it is shown compactly as what it
// is rather than as the person's or the model's words.
type ChatTurn struct {
	Role      string `json:"role"`
	Text      string `json:"text"`
	Thinking  bool   `json:"thinking,omitempty"`
	Context   string `json:"context,omitempty"`
	Model     string `json:"model,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	Usage     *Usage `json:"usage,omitempty"`
}

// Kinds of context an agent puts into a conversation (ChatTurn.Context).
const (
	// ContextEnvironment: where the agent runs (directory, shell, date).
	ContextEnvironment = "environment"
	// ContextInstructions: project, user or developer instructions
	// (AGENTS.md, permissions, the system's own rules).
	ContextInstructions = "instructions"
	// ContextSkills: the skills offered to the model.
	ContextSkills = "skills"
	// ContextCommand: a slash command the person typed; Text is the
	// command as typed ("/review src").
	ContextCommand = "command"
	// ContextCommandPrompt: the prompt a slash command expanded to.
	ContextCommandPrompt = "command_prompt"
	// ContextCommandOutput: what a local slash command printed.
	ContextCommandOutput = "command_output"
	// ContextReminder: a reminder the agent added to the conversation.
	ContextReminder = "reminder"
	// ContextTaskNotification: the agent told itself that something it
	// left running in the background (a sub-agent, a command) stopped;
	// Text says what, and what it reported.
	ContextTaskNotification = "task_notification"
)

// UsageOnly reports whether the turn carries only a message's token usage
// (a message of tool calls and nothing to read): it counts toward totals
// but is not shown as a turn.
func (c *ChatTurn) UsageOnly() bool { return c.Text == "" && !c.Thinking }

// ToolCall is an agent invoking a tool other than a shell; its result is the
// ToolResult with the same call_id.
type ToolCall struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input,omitempty"`
}

// ToolResult is what a tool returned.
type ToolResult struct {
	Tool            string `json:"tool,omitempty"`
	Output          string `json:"output"`
	OutputTruncated bool   `json:"output_truncated,omitempty"`
	IsError         bool   `json:"is_error,omitempty"`
	DurationMS      int64  `json:"duration_ms,omitempty"`
}

// Delegation phases.
const (
	PhaseStart = "start"
	PhaseEnd   = "end"
)

// Delegation marks a sub-agent's work: the start names the task, the end
// carries the result. Events inside carry the delegation's call_id as their
// parent_call_id.
type Delegation struct {
	Phase      string `json:"phase"`
	AgentType  string `json:"agent_type,omitempty"`
	Task       string `json:"task,omitempty"`
	SubAgentID string `json:"sub_agent_id,omitempty"`
	Result     string `json:"result,omitempty"`
	Success    *bool  `json:"success,omitempty"`
}

// BashStart is a shell command about to run; its BashRun follows with the
// same call_id. A BashStart with no BashRun is still running (or was cut off).
type BashStart struct {
	Command          string   `json:"command"`
	Argv             []string `json:"argv,omitempty"`
	WorkingDirectory string   `json:"working_directory,omitempty"`
	// Verdict is the gate's answer for a command an agent asked to run
	// (decision allow, deny, ask, or none when the agent's own permission
	// flow decides).
	Verdict *Verdict `json:"verdict,omitempty"`
	// Recorder is the process that will record the run's end (cuff exec,
	// cuff mcp): while it lives the run may be going on; once it is gone
	// and no end was recorded, the run died with it.
	Recorder *RecorderProcess `json:"recorder,omitempty"`
}

// RecorderProcess identifies a process across time: its pid, when it
// started (clock ticks since boot, as /proc/PID/stat gives it, so that a
// pid used again is not taken for it) and the boot it ran in.
type RecorderProcess struct {
	PID    int    `json:"pid"`
	Start  uint64 `json:"start"`
	BootID string `json:"boot_id"`
}

// RecorderDiedCode and RecorderDiedMessage describe a run whose start was
// recorded and whose recorder died before it could record the end (kill -9,
// a crash, the machine going down). Readers add such a run's end; it is not
// in the file.
const (
	RecorderDiedCode    = "CUFF-REC-001"
	RecorderDiedMessage = "interrupted: the recorder died"
)

// RunError is a structured failure of a run, such as CUFF-EXE-001.
type RunError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ResourceUsage is what a finished process used.
type ResourceUsage struct {
	// MaxRSSKB is the command's peak resident memory, 0 when it is not
	// known: the kernel counts the memory of the process that started the
	// command (the recorder's) in the peak of what it starts, so a peak
	// not above the recorder's own cannot be told from it.
	MaxRSSKB int64 `json:"max_rss_kb"`
	UserMS   int64 `json:"user_ms"`
	SysMS    int64 `json:"sys_ms"`
}

// BashRun is a finished shell command with its outcome. ExitCode is nil when
// the process never exited on its own (not started, killed on timeout).
type BashRun struct {
	Command              string            `json:"command"`
	Description          string            `json:"description,omitempty"`
	WorkingDirectory     string            `json:"working_directory,omitempty"`
	Shell                string            `json:"shell,omitempty"`
	TimeoutSeconds       int64             `json:"timeout_seconds,omitempty"`
	TimedOut             bool              `json:"timed_out"`
	ExitCode             *int              `json:"exit_code"`
	Stdout               string            `json:"stdout,omitempty"`
	Stderr               string            `json:"stderr,omitempty"`
	OutputTruncated      bool              `json:"output_truncated"`
	OutputTruncatedBytes *int64            `json:"output_truncated_bytes,omitempty"`
	Environment          map[string]string `json:"environment,omitempty"`
	DurationMS           int64             `json:"duration_ms"`
	Argv                 []string          `json:"argv,omitempty"`
	Interrupted          bool              `json:"interrupted,omitempty"`
	Error                *RunError         `json:"error,omitempty"`
	Usage                *ResourceUsage    `json:"usage,omitempty"`
	// Sandbox is set when the run was confined by cuff's sandbox.
	Sandbox *SandboxReport `json:"sandbox,omitempty"`
}

// SandboxReport says that a run was confined by cuff's sandbox, and what
// the sandbox stopped, as read from the run's own error messages.
type SandboxReport struct {
	Confined bool            `json:"confined"`
	Denied   []SandboxDenial `json:"denied,omitempty"`
}

// SandboxDenial is one write or network call the sandbox stopped.
type SandboxDenial struct {
	Op   string `json:"op"` // write, connect, bind, network
	Path string `json:"path,omitempty"`
	Addr string `json:"addr,omitempty"`
	Line string `json:"line,omitempty"`
}

// RecorderDied reports whether this is the end readers give a run whose
// recorder died before it recorded one (see RecorderDiedCode).
func (b *BashRun) RecorderDied() bool {
	return b.Interrupted && b.Error != nil && b.Error.Code == RecorderDiedCode
}

// Failed reports whether the run did not succeed: a non-zero exit, a
// timeout, an interruption or an error before it could start. A command
// left running in the background has not failed: its outcome is unknown.
func (b *BashRun) Failed() bool {
	if b.InBackground() {
		return false
	}
	return b.TimedOut || b.Interrupted || b.Error != nil || b.ExitCode == nil || *b.ExitCode != 0
}

// RunBackground is the RunError code of a command the agent left running
// in the background: it started, and its exit is not recorded.
const RunBackground = "background"

// InBackground reports whether the command went on in the background.
func (b *BashRun) InBackground() bool { return b.Error != nil && b.Error.Code == RunBackground }

// Verdict is the gate's classification of a command.
type Verdict struct {
	Decision string   `json:"decision"`
	Tier     string   `json:"tier,omitempty"`
	Rule     string   `json:"rule,omitempty"`
	Reasons  []string `json:"reasons,omitempty"`
}

// ApprovalRequest is a gated command waiting for a person.
type ApprovalRequest struct {
	RequestID string     `json:"request_id"`
	Tool      string     `json:"tool,omitempty"`
	Command   string     `json:"command,omitempty"`
	Verdict   *Verdict   `json:"verdict,omitempty"`
	Taint     []string   `json:"taint,omitempty"`
	ExpiresAt *time.Time `json:"expires_at,omitempty"`
	Diff      string     `json:"diff,omitempty"`
}

// Approval decisions, scopes and deciders.
const (
	DecisionApprove = "approve"
	DecisionDeny    = "deny"
	DecisionTimeout = "timeout"
	DecisionDefer   = "defer"

	ScopeOnce    = "once"
	ScopeSession = "session"
	ScopeAlways  = "always"
)

// ApprovalDecision answers an ApprovalRequest with the same call_id.
type ApprovalDecision struct {
	RequestID string `json:"request_id"`
	Decision  string `json:"decision"`
	Scope     string `json:"scope,omitempty"`
	By        string `json:"by,omitempty"`
	Reason    string `json:"reason,omitempty"`
	RuleAdded string `json:"rule_added,omitempty"`
}

// Session end statuses.
const (
	StatusActive      = "active"
	StatusComplete    = "complete"
	StatusShutdown    = "shutdown"
	StatusInterrupted = "interrupted"
)

// Counts summarises a session.
type Counts struct {
	Events    int64 `json:"events"`
	Turns     int64 `json:"turns"`
	ToolCalls int64 `json:"tool_calls"`
	Commands  int64 `json:"commands"`
	Failures  int64 `json:"failures"`
	TimedOut  int64 `json:"timed_out"`
	Approvals int64 `json:"approvals"`
}

// SessionEnd closes a session.
type SessionEnd struct {
	Status string  `json:"status"`
	Counts *Counts `json:"counts,omitempty"`
}

// EventType implements Body.
func (*SessionStart) EventType() Type { return TypeSessionStart }

// EventType implements Body.
func (*ChatTurn) EventType() Type { return TypeChatTurn }

// EventType implements Body.
func (*ToolCall) EventType() Type { return TypeToolCall }

// EventType implements Body.
func (*ToolResult) EventType() Type { return TypeToolResult }

// EventType implements Body.
func (*Delegation) EventType() Type { return TypeDelegation }

// EventType implements Body.
func (*BashStart) EventType() Type { return TypeBashStart }

// EventType implements Body.
func (*BashRun) EventType() Type { return TypeBashRun }

// EventType implements Body.
func (*ApprovalRequest) EventType() Type { return TypeApprovalRequest }

// EventType implements Body.
func (*ApprovalDecision) EventType() Type { return TypeApprovalDecision }

// EventType implements Body.
func (*SessionEnd) EventType() Type { return TypeSessionEnd }

// Paired reports whether events of kind t come in halves joined by call_id.
func Paired(t Type) bool {
	switch t {
	case TypeToolCall, TypeToolResult, TypeBashStart, TypeBashRun, TypeDelegation,
		TypeApprovalRequest, TypeApprovalDecision:
		return true
	}
	return false
}

// NewCallID returns a fresh call id for an invocation that has none of its
// own agent's.
func NewCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return "cuff_" + hex.EncodeToString(b[:])
}
