package claudehook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/claude"
	"github.com/fsnotify/fsnotify"
)

// maxTranscriptRead bounds what one hook call reads of the transcript, so a
// hook never stalls the agent on a huge backlog.
const maxTranscriptRead = 16 << 20

// TranscriptWait bounds how long PreToolUse waits for Claude Code to write
// the tool call (and the text before it) to its transcript: Claude Code
// writes the file asynchronously, and a hook that reads it at once finds
// the text that led to the call missing, to be picked up by the next hook
// (after the call, or by a sub-agent's hook under the wrong agent).
const TranscriptWait = 400 * time.Millisecond

// entry is what the hook takes from a transcript line: an assistant turn
// (text or thinking) or a tool's outcome as the model was told it.
type entry struct {
	turn    *transcript.Event
	outcome *toolOutcome
}

// toolOutcome is a tool_result block: what the model was told of a call.
type toolOutcome struct {
	ID      string
	IsError bool
	Content string
}

// toolResultLine is the part of a user line that holds tool results.
type toolResultLine struct {
	Type    string `json:"type"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// outcomes reads the tool_result blocks of a transcript line.
func outcomes(line []byte) []toolOutcome {
	if !bytes.Contains(line, []byte(`"tool_result"`)) {
		return nil
	}
	var l toolResultLine
	if json.Unmarshal(line, &l) != nil || l.Type != "user" {
		return nil
	}
	var blocks []struct {
		Type      string          `json:"type"`
		ToolUseID string          `json:"tool_use_id"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
	}
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return nil
	}
	var out []toolOutcome
	for _, b := range blocks {
		if b.Type != "tool_result" || b.ToolUseID == "" {
			continue
		}
		o := toolOutcome{ID: b.ToolUseID, IsError: b.IsError}
		var text string
		if json.Unmarshal(b.Content, &text) == nil {
			o.Content = text
		} else {
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(b.Content, &parts)
			for _, p := range parts {
				o.Content += p.Text
			}
		}
		out = append(out, o)
	}
	return out
}

// readTranscript reads the complete lines of a Claude Code transcript at
// path from offset on and returns, in file order, its assistant text and
// thinking as chat turns and its tool outcomes, with the offset just past
// the last complete line. In the main transcript only the main agent's
// turns count (older versions wrote sub-agents inline); a sub-agent's own
// file is all its own. A transcript that shrank is read from its start.
func readTranscript(path string, offset int64, subAgent bool) ([]entry, int64, error) {
	if path == "" {
		return nil, offset, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, offset, fmt.Errorf("open transcript: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, offset, err
	}
	if fi.Size() < offset {
		offset = 0
	}
	n := min(fi.Size()-offset, maxTranscriptRead)
	if n <= 0 {
		return nil, offset, nil
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, offset); err != nil && !errors.Is(err, io.EOF) {
		return nil, offset, err
	}
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		if n == maxTranscriptRead { // one line longer than the bound: skip it
			return nil, offset + n, nil
		}
		return nil, offset, nil
	}
	buf = buf[:end+1]
	var entries []entry
	collect := func(ev *transcript.Event) error {
		t, ok := ev.Body.(*transcript.ChatTurn)
		if ok && t.Role == transcript.RoleAssistant && t.Text != "" && (subAgent || ev.AgentID == transcript.MainAgent) {
			entries = append(entries, entry{turn: ev})
		}
		return nil
	}
	for _, line := range bytes.Split(buf[:len(buf)-1], []byte{'\n'}) {
		if outs := outcomes(line); len(outs) > 0 {
			for _, o := range outs {
				entries = append(entries, entry{outcome: &o})
			}
			continue
		}
		if !bytes.Contains(line, []byte(`"assistant"`)) {
			continue
		}
		// A decoder of its own for each line: a decoder holds a message
		// back until the next one starts, and the text must come out in
		// its place, before the outcomes of later lines. Claude Code
		// writes each content block on a line of its own.
		d := claude.NewDecoder(claude.Options{})
		_ = d.Line(line, collect)
		_ = d.Close(collect)
	}
	return entries, offset + int64(len(buf)), nil
}

// transcriptSize is how long the transcript is now (0 when it is not there).
func transcriptSize(path string) int64 {
	if path == "" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// subAgentTranscript is the file a sub-agent's turns are written to:
// <session dir>/subagents/agent-<id>.jsonl beside the main transcript
// (Claude Code 2.1), unless the event names it.
func subAgentTranscript(in *Input) string {
	if in.AgentTranscriptPath != "" {
		return in.AgentTranscriptPath
	}
	if in.AgentID == "" || in.TranscriptPath == "" || !validAgentID(in.AgentID) {
		return ""
	}
	dir := filepath.Dir(in.TranscriptPath)
	return filepath.Join(dir, in.SessionID, "subagents", "agent-"+in.AgentID+".jsonl")
}

// validAgentID reports whether an agent id can be part of a file name.
func validAgentID(id string) bool {
	if len(id) > 128 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// lookBack is how far before the offset it was given holds looks: the
// offset is a hint read without the lock, and a parallel hook may have read
// past the line looked for already.
const lookBack = 1 << 20

// holds reports whether the file at path holds needle past offset (less
// lookBack).
func holds(path string, offset int64, needle []byte) bool {
	offset = max(offset-lookBack, 0)
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	if fi.Size() < offset {
		offset = 0
	}
	if fi.Size()-offset > maxTranscriptRead {
		offset = fi.Size() - maxTranscriptRead
	}
	buf := make([]byte, fi.Size()-offset)
	n, _ := f.ReadAt(buf, offset)
	return bytes.Contains(buf[:n], needle)
}

// awaitLine waits, for up to bound, until the file at path holds needle
// past offset, woken by file notifications rather than polling. It reports
// whether it does; when it never comes (an older Claude Code, a transcript
// elsewhere), the hook goes on without it.
func awaitLine(ctx context.Context, path string, offset int64, needle []byte, bound time.Duration) bool {
	if path == "" || len(needle) == 0 {
		return false
	}
	if holds(path, offset, needle) {
		return true
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return false
	}
	defer w.Close()
	// The directory, so the file's creation is seen too (a sub-agent's
	// file may not exist yet).
	dir := filepath.Dir(path)
	if err := w.Add(dir); err != nil {
		if err := w.Add(path); err != nil {
			return false
		}
	}
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		if holds(path, offset, needle) { // written between the first look and the watch
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return holds(path, offset, needle)
		case _, ok := <-w.Events: // any change in the directory: look again
			if !ok {
				return false
			}
		case <-w.Errors:
		}
	}
}
