package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/regular"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cuff-dev/cuff/internal/atomicfile"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// Meta summarises one session: the seed's session metadata plus what the
// session list shows (agent, title, counts), and where summarising stopped
// so that a grown file is summarised from there on, not from the start.
type Meta struct {
	SessionID         string    `json:"session_id"`
	CreatedAt         time.Time `json:"created_at"`
	LastUpdated       time.Time `json:"last_updated"`
	EntryCount        int64     `json:"entry_count"`
	TotalDurationMS   int64     `json:"total_duration_ms"`
	Status            string    `json:"status"`
	CommandsSucceeded int64     `json:"commands_succeeded"`
	CommandsFailed    int64     `json:"commands_failed"`
	CommandsTimedOut  int64     `json:"commands_timed_out"`
	WorkingDirectory  string    `json:"working_directory"`
	AgentID           string    `json:"agent_id"`
	ConversationID    string    `json:"conversation_id"`

	Agent       string `json:"agent,omitempty"`
	Source      string `json:"source,omitempty"`
	Title       string `json:"title,omitempty"`
	Turns       int64  `json:"turns"`
	ToolCalls   int64  `json:"tool_calls"`
	ToolErrors  int64  `json:"tool_errors"`
	Commands    int64  `json:"commands"`
	Background  int64  `json:"commands_in_background"`
	Approvals   int64  `json:"approvals"`
	Delegations int64  `json:"delegations"`
	// Counted says how the counts were made (CountsVersion); a summary
	// counted another way is counted again.
	Counted   int   `json:"counted,omitempty"`
	Malformed int64 `json:"malformed_lines,omitempty"`
	Ended     bool  `json:"ended"`
	// OpenCalls holds the call ids of commands that started and have not
	// finished: a session left with some is interrupted, without any idle.
	OpenCalls map[string]bool `json:"open_calls,omitempty"`
	// OpenRecorders names, by call id, the process that is to record the
	// end of an open command, where the start said (see
	// transcript.BashStart.Recorder).
	OpenRecorders  map[string]*transcript.RecorderProcess `json:"open_recorders,omitempty"`
	FileSizeBytes  int64                                  `json:"file_size_bytes"`
	FileModTime    int64                                  `json:"file_mtime_ns"`
	SummarizedUpTo int64                                  `json:"summarized_bytes"`

	// Live is computed when listing (IsLive): the session has not ended and
	// a writer holds its lease or it was appended to within LiveWindow. It
	// is never stored.
	Live bool `json:"-"`
	// Died is computed when listing too: the open commands whose recorder
	// died (or, where it is not known, that the session will not see end).
	// They count as commands and as failures (interrupted).
	Died int64 `json:"-"`
}

// Duration is the session's wall time from its first to its last event.
func (m *Meta) Duration() time.Duration { return time.Duration(m.TotalDurationMS) * time.Millisecond }

// AllCommands counts commands that ended and those that died with their
// recorder.
func (m *Meta) AllCommands() int64 { return m.Commands + m.Died }

// countDied sets Died from the open commands, Live being set.
func (m *Meta) countDied() {
	m.Died = 0
	for id := range m.OpenCalls {
		if gone, known := recorderGone(m.OpenRecorders[id]); gone || !known && !m.Live {
			m.Died++
		}
	}
}

// CountsVersion is how Meta counts (transcript.Tally); version 1 counts
// turns, failures and background commands as the Tally says.
const CountsVersion = 1

// Failures counts failures as every view does (transcript.Tally):
// commands that failed or timed out, tool calls that returned an error,
// and commands that died with their recorder.
func (m *Meta) Failures() int64 { return m.Tally().Failures() + m.Died }

// Tally is the session's counts.
func (m *Meta) Tally() transcript.Tally {
	return transcript.Tally{Events: m.EntryCount, Turns: m.Turns, ToolCalls: m.ToolCalls, ToolErrors: m.ToolErrors,
		Commands: m.Commands, CommandsSucceeded: m.CommandsSucceeded, CommandsFailed: m.CommandsFailed,
		CommandsTimedOut: m.CommandsTimedOut, Background: m.Background, Approvals: m.Approvals, Delegations: m.Delegations}
}

// Add folds one event into the summary: the count every view of a session
// shows (turns, tool calls, commands and failures as the session list
// counts them).
func (m *Meta) Add(ev *transcript.Event) { m.add(ev) }

// add folds one event into the summary.
func (m *Meta) add(ev *transcript.Event) {
	var t transcript.Tally
	t.Add(ev)
	m.EntryCount += t.Events
	m.Turns += t.Turns
	m.ToolCalls += t.ToolCalls
	m.ToolErrors += t.ToolErrors
	m.Commands += t.Commands
	m.CommandsSucceeded += t.CommandsSucceeded
	m.CommandsFailed += t.CommandsFailed
	m.CommandsTimedOut += t.CommandsTimedOut
	m.Background += t.Background
	m.Approvals += t.Approvals
	m.Delegations += t.Delegations
	m.Counted = CountsVersion
	if !ev.TS.IsZero() {
		if m.CreatedAt.IsZero() || ev.TS.Before(m.CreatedAt) {
			m.CreatedAt = ev.TS
		}
		if ev.TS.After(m.LastUpdated) {
			m.LastUpdated = ev.TS
		}
		m.TotalDurationMS = m.LastUpdated.Sub(m.CreatedAt).Milliseconds()
	}
	if m.ConversationID == "" {
		m.ConversationID = ev.ConversationID
	}
	switch b := ev.Body.(type) {
	case *transcript.SessionStart:
		m.Agent, m.Source = b.Agent, b.Source
		if b.WorkingDirectory != "" {
			m.WorkingDirectory = b.WorkingDirectory
		}
		if b.Title != "" {
			m.Title = b.Title
		}
		if m.AgentID == "" {
			m.AgentID = ev.AgentID
		}
	case *transcript.ChatTurn:
		if m.Title == "" && b.Role == transcript.RoleUser && !b.Thinking {
			m.Title = stream.Title(b.Text)
		}
	case *transcript.BashStart:
		if ev.CallID != "" {
			if m.OpenCalls == nil {
				m.OpenCalls = map[string]bool{}
			}
			m.OpenCalls[ev.CallID] = true
			if b.Recorder != nil {
				if m.OpenRecorders == nil {
					m.OpenRecorders = map[string]*transcript.RecorderProcess{}
				}
				m.OpenRecorders[ev.CallID] = b.Recorder
			}
		}
	case *transcript.BashRun:
		delete(m.OpenCalls, ev.CallID)
		delete(m.OpenRecorders, ev.CallID)
		if m.WorkingDirectory == "" {
			m.WorkingDirectory = b.WorkingDirectory
		}
	case *transcript.SessionEnd:
		m.Ended = true
		m.Status = b.Status
		return
	}
	if m.Ended { // an event after the end: the session goes on (a resumed conversation)
		m.Ended, m.Status = false, ""
	}
}

// summarize brings m up to date with the session file at path, reading only
// what was appended since m.SummarizedUpTo (a file that shrank, or changed
// without growing, is read anew).
func summarize(path string, m *Meta) error {
	f, err := transcript.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	rewritten := fi.Size() == m.FileSizeBytes && fi.ModTime().UnixNano() != m.FileModTime
	recount := m.SummarizedUpTo > 0 && m.Counted != CountsVersion
	if fi.Size() < m.SummarizedUpTo || m.SummarizedUpTo < 0 || rewritten || recount {
		*m = Meta{SessionID: m.SessionID}
	}
	lines := transcript.NewLineReaderAt(f, m.SummarizedUpTo, fi.Size())
	for {
		line, complete, err := lines.Next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) {
			break
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if len(trimSpace(line)) == 0 {
			continue
		}
		ev, err := transcript.Decode(trimSpace(line))
		if err != nil {
			m.Malformed++
			continue
		}
		m.add(ev)
	}
	m.SummarizedUpTo += lines.Offset()
	m.Counted = CountsVersion
	m.FileSizeBytes = fi.Size()
	m.FileModTime = fi.ModTime().UnixNano()
	if m.CreatedAt.IsZero() {
		m.CreatedAt = fi.ModTime().UTC()
		m.LastUpdated = m.CreatedAt
	}
	if !m.Ended {
		m.Status = transcript.StatusActive
	}
	return nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// stale reports whether the session file no longer matches what m summarised.
func (m *Meta) stale(fi os.FileInfo) bool {
	return fi.Size() != m.FileSizeBytes || fi.ModTime().UnixNano() != m.FileModTime || m.Counted != CountsVersion
}

// writeJSONAtomic writes v to path durably, so that readers never see half
// a file and a killed writer leaves nothing behind (see atomicfile).
func writeJSONAtomic(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return writeAtomic(path, append(data, '\n'), true)
}

// writeCacheJSON writes a cache (the index, meta files) as writeJSONAtomic
// does, but compact and without waiting for the disk: a cache is checked
// when read (against the session file's size and time) and rebuilt when it
// is lost or does not parse, so a crash costs a rebuild, never data.
func writeCacheJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	return writeAtomic(path, append(data, '\n'), false)
}

// writeAtomic puts data at path through an unnamed (or temporary) file.
func writeAtomic(path string, data []byte, sync bool) error {
	f, err := atomicfile.Create(path, transcript.FileMode)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	f.NoSync = !sync
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// Bounds on what is read of the store's own small files.
const (
	maxMetaBytes  = 16 << 20
	maxIndexBytes = 1 << 30
)

// readMeta loads the meta file of a session.
func readMeta(path string) (*Meta, error) {
	data, err := regular.Read(path, "meta file", maxMetaBytes, false)
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}
