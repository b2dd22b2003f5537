package export

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// CSVColumns are the columns of the CSV export, in order: the envelope,
// then the union of the fields of every event kind (a field that several
// kinds share, such as command or working_directory, is one column), then
// raw. Lists and objects (input, argv, environment, reasons, taint, counts)
// are JSON text. Fields that do not apply to an event are empty.
func CSVColumns() []string {
	return []string{
		"session_id", "seq", "id", "ts", "type", "v", "agent_id", "conversation_id", "call_id",
		"parent_call_id", "run_id", "task_id", "step_id",
		"agent", "source", "title", "working_directory", "cuff_version", "host_os", "host_arch",
		"hostname", "git_branch", "git_sha", "git_worktree",
		"role", "text", "thinking", "model", "message_id", "input_tokens", "output_tokens",
		"cache_read_tokens", "cache_write_tokens",
		"tool", "input", "output", "output_truncated", "is_error", "duration_ms",
		"phase", "agent_type", "task", "sub_agent_id", "result", "success",
		"command", "argv", "description", "shell", "timeout_seconds", "timed_out", "exit_code",
		"stdout", "stderr", "output_truncated_bytes", "environment", "interrupted", "error_code",
		"error_message", "max_rss_kb", "user_ms", "sys_ms",
		"request_id", "decision", "tier", "rule", "reasons", "taint", "expires_at", "diff",
		"scope", "by", "reason", "rule_added",
		"status", "counts",
		"raw",
	}
}

// Column positions; they follow CSVColumns.
const (
	colSessionID = iota
	colSeq
	colID
	colTS
	colType
	colV
	colAgentID
	colConversationID
	colCallID
	colParentCallID
	colRunID
	colTaskID
	colStepID
	colAgent
	colSource
	colTitle
	colWorkingDirectory
	colCuffVersion
	colHostOS
	colHostArch
	colHostname
	colGitBranch
	colGitSHA
	colGitWorktree
	colRole
	colText
	colThinking
	colModel
	colMessageID
	colInputTokens
	colOutputTokens
	colCacheReadTokens
	colCacheWriteTokens
	colTool
	colInput
	colOutput
	colOutputTruncated
	colIsError
	colDurationMS
	colPhase
	colAgentType
	colTask
	colSubAgentID
	colResult
	colSuccess
	colCommand
	colArgv
	colDescription
	colShell
	colTimeoutSeconds
	colTimedOut
	colExitCode
	colStdout
	colStderr
	colOutputTruncatedBytes
	colEnvironment
	colInterrupted
	colErrorCode
	colErrorMessage
	colMaxRSSKB
	colUserMS
	colSysMS
	colRequestID
	colDecision
	colTier
	colRule
	colReasons
	colTaint
	colExpiresAt
	colDiff
	colScope
	colBy
	colReason
	colRuleAdded
	colStatus
	colCounts
	colRaw
	numColumns
)

// CSVWriter writes events as CSV (RFC 4180, as encoding/csv writes it): a
// header row, then one row per event, of any kind. An event of a kind this
// version does not know keeps its envelope columns and its whole line in the
// raw column. Every value is made inert (CSVCell): a CSV is shown on
// terminals and opened in spreadsheets, where a recording's escape sequences
// or formulas must not act. The JSON and JSONL exports keep values exactly.
type CSVWriter struct {
	bw  *bufio.Writer
	cw  *csv.Writer
	row []string
	res Result
}

var _ Sink = (*CSVWriter)(nil)

// NewCSVWriter starts a CSV export to w and writes the header row.
func NewCSVWriter(w io.Writer) (*CSVWriter, error) {
	bw := bufio.NewWriterSize(w, writeBufferSize)
	c := &CSVWriter{bw: bw, cw: csv.NewWriter(bw), row: make([]string, numColumns)}
	if err := c.cw.Write(CSVColumns()); err != nil {
		return nil, fmt.Errorf("write csv header: %w", err)
	}
	return c, nil
}

// BeginSession implements Sink; a CSV has no per-session part.
func (c *CSVWriter) BeginSession(session.Info) error { return nil }

// Write adds the row of one event.
func (c *CSVWriter) Write(ev *transcript.Event) error {
	r := c.row
	clear(r)
	r[colSessionID] = ev.SessionID
	r[colSeq] = strconv.FormatInt(ev.Seq, 10)
	r[colID] = ev.ID
	r[colTS] = formatTS(ev.TS)
	r[colType] = string(ev.Type)
	r[colV] = strconv.Itoa(ev.V)
	r[colAgentID] = ev.AgentID
	r[colConversationID] = ev.ConversationID
	r[colCallID] = ev.CallID
	r[colParentCallID] = ev.ParentCallID
	r[colRunID] = ev.RunID
	r[colTaskID] = ev.TaskID
	r[colStepID] = ev.StepID
	if err := fillBody(r, ev); err != nil {
		return fmt.Errorf("event %d: %w", ev.Seq, err)
	}
	for i := range r {
		r[i] = CSVCell(r[i])
	}
	if err := c.cw.Write(r); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	c.res.Events++
	return nil
}

// Close flushes the export.
func (c *CSVWriter) Close() (Result, error) {
	c.cw.Flush()
	if err := c.cw.Error(); err != nil {
		return c.res, fmt.Errorf("write csv: %w", err)
	}
	if err := c.bw.Flush(); err != nil {
		return c.res, fmt.Errorf("write csv: %w", err)
	}
	return c.res, nil
}

// fillBody writes the body fields of ev into r.
func fillBody(r []string, ev *transcript.Event) error {
	switch b := ev.Body.(type) {
	case *transcript.SessionStart:
		r[colAgent], r[colSource], r[colTitle] = b.Agent, b.Source, b.Title
		r[colWorkingDirectory], r[colCuffVersion] = b.WorkingDirectory, b.CuffVersion
		if h := b.Host; h != nil {
			r[colHostOS], r[colHostArch], r[colHostname] = h.OS, h.Arch, h.Hostname
		}
		if g := b.Git; g != nil {
			r[colGitBranch], r[colGitSHA], r[colGitWorktree] = g.Branch, g.SHA, g.Worktree
		}
	case *transcript.ChatTurn:
		r[colRole], r[colText], r[colThinking] = b.Role, b.Text, fmtBool(b.Thinking)
		r[colModel], r[colMessageID] = b.Model, b.MessageID
		if u := b.Usage; u != nil {
			r[colInputTokens], r[colOutputTokens] = fmtInt(u.InputTokens), fmtInt(u.OutputTokens)
			r[colCacheReadTokens], r[colCacheWriteTokens] = fmtInt(u.CacheReadTokens), fmtInt(u.CacheWriteTokens)
		}
	case *transcript.ToolCall:
		r[colTool], r[colInput] = b.Tool, string(b.Input)
	case *transcript.ToolResult:
		r[colTool], r[colOutput] = b.Tool, b.Output
		r[colOutputTruncated], r[colIsError] = fmtBool(b.OutputTruncated), fmtBool(b.IsError)
		r[colDurationMS] = fmtInt(b.DurationMS)
	case *transcript.Delegation:
		r[colPhase], r[colAgentType], r[colTask] = b.Phase, b.AgentType, b.Task
		r[colSubAgentID], r[colResult] = b.SubAgentID, b.Result
		if b.Success != nil {
			r[colSuccess] = fmtBool(*b.Success)
		}
	case *transcript.BashStart:
		r[colCommand], r[colWorkingDirectory] = b.Command, b.WorkingDirectory
		return setJSON(r, colArgv, b.Argv, len(b.Argv) > 0)
	case *transcript.BashRun:
		return fillBashRun(r, b)
	case *transcript.ApprovalRequest:
		r[colRequestID], r[colTool], r[colCommand], r[colDiff] = b.RequestID, b.Tool, b.Command, b.Diff
		if b.ExpiresAt != nil {
			r[colExpiresAt] = formatTS(*b.ExpiresAt)
		}
		if v := b.Verdict; v != nil {
			r[colDecision], r[colTier], r[colRule] = v.Decision, v.Tier, v.Rule
			if err := setJSON(r, colReasons, v.Reasons, len(v.Reasons) > 0); err != nil {
				return err
			}
		}
		return setJSON(r, colTaint, b.Taint, len(b.Taint) > 0)
	case *transcript.ApprovalDecision:
		r[colRequestID], r[colDecision], r[colScope] = b.RequestID, b.Decision, b.Scope
		r[colBy], r[colReason], r[colRuleAdded] = b.By, b.Reason, b.RuleAdded
	case *transcript.SessionEnd:
		r[colStatus] = b.Status
		return setJSON(r, colCounts, b.Counts, b.Counts != nil)
	case nil:
		r[colRaw] = string(ev.Raw)
	}
	return nil
}

func fillBashRun(r []string, b *transcript.BashRun) error {
	r[colCommand], r[colDescription], r[colWorkingDirectory] = b.Command, b.Description, b.WorkingDirectory
	r[colShell], r[colTimeoutSeconds], r[colTimedOut] = b.Shell, fmtInt(b.TimeoutSeconds), fmtBool(b.TimedOut)
	if b.ExitCode != nil {
		r[colExitCode] = strconv.Itoa(*b.ExitCode)
	}
	r[colStdout], r[colStderr], r[colOutputTruncated] = b.Stdout, b.Stderr, fmtBool(b.OutputTruncated)
	if b.OutputTruncatedBytes != nil {
		r[colOutputTruncatedBytes] = fmtInt(*b.OutputTruncatedBytes)
	}
	r[colDurationMS], r[colInterrupted] = fmtInt(b.DurationMS), fmtBool(b.Interrupted)
	if e := b.Error; e != nil {
		r[colErrorCode], r[colErrorMessage] = e.Code, e.Message
	}
	if u := b.Usage; u != nil {
		r[colMaxRSSKB], r[colUserMS], r[colSysMS] = fmtInt(u.MaxRSSKB), fmtInt(u.UserMS), fmtInt(u.SysMS)
	}
	if err := setJSON(r, colArgv, b.Argv, len(b.Argv) > 0); err != nil {
		return err
	}
	return setJSON(r, colEnvironment, b.Environment, len(b.Environment) > 0)
}

// setJSON writes v as JSON text into column i when present is true.
func setJSON(r []string, i int, v any, present bool) error {
	if !present {
		return nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", CSVColumns()[i], err)
	}
	r[i] = string(data)
	return nil
}

func fmtBool(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func fmtInt(n int64) string { return strconv.FormatInt(n, 10) }

// CSVCell makes a value safe to write in a CSV cell. Control characters
// (but tab and newline), bidirectional overrides and bytes that are not
// UTF-8 are written as visible escapes (transcript.Inert), as in every other
// output; a CR LF becomes LF. A value a spreadsheet would take for a formula
// — one that starts with =, +, -, @, tab or CR (OWASP's CSV injection rule) —
// gets a leading ' so that it reads as text; a plain number such as -1 or
// +2.5 is left as it is.
func CSVCell(s string) string {
	s = transcript.Inert(s)
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}
