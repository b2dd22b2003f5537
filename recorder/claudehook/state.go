package claudehook

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cuff-dev/cuff/internal/regular"
	"github.com/cuff-dev/cuff/transcript"
	"golang.org/x/sys/unix"
)

// maxRememberedMessages bounds the message ids kept to avoid recording an
// assistant message twice.
const maxRememberedMessages = 256

// state is what one Claude Code session's hook calls share: hook processes
// keep nothing between calls, so it lives in a file in the user state
// directory, read and written under a lock.
type state struct {
	// Session is the cuff session the Claude session is recorded in.
	Session string `json:"cuff_session,omitempty"`
	// Offset is how far the transcript has been read for assistant text.
	Offset int64 `json:"transcript_offset"`
	// SubOffsets is how far each sub-agent's own transcript has been read.
	SubOffsets map[string]int64 `json:"sub_offsets,omitempty"`
	// Open holds tool calls that started and have not finished, by tool_use_id.
	Open map[string]openCall `json:"open,omitempty"`
	// Messages are the ids of assistant messages already recorded.
	Messages []string `json:"messages,omitempty"`
	// Delegations are the call ids of sub-agents running, oldest first.
	Delegations []string `json:"delegations,omitempty"`
	// Agents binds a sub-agent's id to the delegation it runs in: several
	// sub-agents may run at once.
	Agents map[string]string `json:"agents,omitempty"`
	// TrustNote is the note about untrusted .cuff files last shown to the
	// person, so that it is shown once per session.
	TrustNote string `json:"trust_note,omitempty"`
	// Ended is set by SessionEnd, with the status it ended with; a later
	// event of the conversation is still recorded in the same session.
	Ended     bool   `json:"ended,omitempty"`
	EndStatus string `json:"end_status,omitempty"`
	// Texts are hashes of the assistant texts recorded lately: Stop's
	// last_assistant_message and the transcript say the same thing.
	Texts []string `json:"texts,omitempty"`
}

// Kinds of open calls.
const (
	kindBash       = "bash"
	kindTool       = "tool"
	kindDelegation = "delegation"
)

// openCall is a tool call whose result has not arrived.
type openCall struct {
	Kind         string    `json:"kind"`
	Tool         string    `json:"tool"`
	Command      string    `json:"command,omitempty"`
	Start        time.Time `json:"start"`
	AgentID      string    `json:"agent_id,omitempty"`
	ParentCallID string    `json:"parent_call_id,omitempty"`
	Recorded     bool      `json:"recorded"` // its start event is in the session
	// Sandboxed says cuff rewrote the command to run in its sandbox.
	Sandboxed bool `json:"sandboxed,omitempty"`
	// Async marks a delegation whose sub-agent (SubAgentID) runs in the
	// background: it ends at the sub-agent's SubagentStop, not at a Stop.
	Async      bool   `json:"async,omitempty"`
	SubAgentID string `json:"sub_agent_id,omitempty"`
	// Asked is the reason cuff gave when it let Claude Code ask: a
	// denial with this reason (no one to ask, in -p) means it never ran.
	Asked string `json:"asked,omitempty"`
}

// textKey identifies an assistant text.
func textKey(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// saidBefore reports whether the text was recorded lately, and remembers it.
func (s *state) saidBefore(text string) bool {
	k := textKey(text)
	for _, t := range s.Texts {
		if t == k {
			return true
		}
	}
	s.Texts = append(s.Texts, k)
	if len(s.Texts) > maxRememberedMessages {
		s.Texts = s.Texts[len(s.Texts)-maxRememberedMessages:]
	}
	return false
}

func (s *state) seen(messageID string) bool {
	for _, id := range s.Messages {
		if id == messageID {
			return true
		}
	}
	return false
}

func (s *state) remember(messageID string) {
	s.Messages = append(s.Messages, messageID)
	if len(s.Messages) > maxRememberedMessages {
		s.Messages = s.Messages[len(s.Messages)-maxRememberedMessages:]
	}
}

// statePath is the state file of a Claude session.
func statePath(dir, claudeSession string) string {
	sum := sha256.Sum256([]byte(claudeSession))
	return filepath.Join(dir, "hooks", "claude", hex.EncodeToString(sum[:12])+".json")
}

// withState runs fn on the session's state under its lock and saves what
// fn changed. fn must not wait for anything slow: parallel hook calls of the
// same session queue on this lock.
func withState(dir, claudeSession string, fn func(*state) error) error {
	path := statePath(dir, claudeSession)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("hook state: %w", err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("hook state: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("hook state lock: %w", err)
	}
	st := &state{}
	data, err := readState(path)
	var nr *transcript.NotRegularError
	var big *regular.TooBigError
	switch {
	case err == nil:
		if json.Unmarshal(data, st) != nil {
			st = &state{} // a damaged state costs a little history, never the agent's work
		}
	case errors.As(err, &nr) || errors.As(err, &big):
		// A named pipe, a link or a device in its place is never opened
		// for what it is (a pipe would hang every hook call of the
		// session); the state starts afresh and is saved in its place.
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("hook state: %w", err)
	}
	if st.Open == nil {
		st.Open = map[string]openCall{}
	}
	if err := fn(st); err != nil {
		return err
	}
	out, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	_ = os.Remove(tmp) // whatever a crash (or anyone) left there: created anew, never opened as it is
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("hook state: %w", err)
	}
	_, err = f.Write(out)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("hook state: %w", err)
	}
	return os.Rename(tmp, path)
}

// maxStateBytes bounds what is read of a session's state file.
const maxStateBytes = 64 << 20

// readState reads a state file that is a regular file, without blocking on
// anything else in its place.
func readState(path string) ([]byte, error) {
	return regular.Read(path, "hook state", maxStateBytes, false)
}

// peekState reads a session's state without its lock, for a hint (how far
// the transcripts were read) that may be a moment old; never for a change.
func peekState(dir, claudeSession string) *state {
	st := &state{}
	if data, err := readState(statePath(dir, claudeSession)); err == nil {
		_ = json.Unmarshal(data, st)
	}
	return st
}

// stateRetention is how long the state of a Claude session is kept after
// its last hook call.
const stateRetention = 7 * 24 * time.Hour

// pruneStates removes the state files of sessions not heard of for
// stateRetention (sessions that crashed before SessionEnd included). Lock
// files stay: removing one while a process waits on it would let two
// processes in at once.
func pruneStates(dir string, now time.Time) {
	root := filepath.Join(dir, "hooks", "claude")
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".json" {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > stateRetention {
			_ = os.Remove(filepath.Join(root, e.Name()))
		}
	}
}

// delegationOf is the delegation a sub-agent runs in: the one it was bound
// to, else the oldest running delegation no sub-agent is bound to yet (sub-
// agents start in the order their Task calls were made), else the newest.
func (s *state) delegationOf(agentID string) string {
	if id, ok := s.Agents[agentID]; ok {
		return id
	}
	if len(s.Delegations) == 0 {
		return ""
	}
	bound := map[string]bool{}
	for _, d := range s.Agents {
		bound[d] = true
	}
	pick := s.Delegations[len(s.Delegations)-1]
	for _, d := range s.Delegations {
		if !bound[d] {
			pick = d
			break
		}
	}
	if s.Agents == nil {
		s.Agents = map[string]string{}
	}
	s.Agents[agentID] = pick
	return pick
}

// endDelegation forgets a finished delegation and the sub-agent bound to it.
func (s *state) endDelegation(callID string) {
	for i, id := range s.Delegations {
		if id == callID {
			s.Delegations = append(s.Delegations[:i], s.Delegations[i+1:]...)
			break
		}
	}
	for a, d := range s.Agents {
		if d == callID {
			delete(s.Agents, a)
		}
	}
}
