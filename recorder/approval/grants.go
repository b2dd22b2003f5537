package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Limits of the per-session state.
const (
	// maxGrants is how many session approvals one agent session keeps; the
	// oldest go first.
	maxGrants = 1000
	// GrantIdle is how long the state of an agent session that has not
	// changed is kept before Clean removes it.
	GrantIdle = 7 * 24 * time.Hour
)

// SessionState is what cuff remembers about one agent session between hook
// calls: the commands approved for the rest of the session and the taint
// the agent has picked up. It is grants/<hash of key>.json.
type SessionState struct {
	V          int       `json:"v"`
	SessionKey string    `json:"session_key"`
	Commands   []string  `json:"commands,omitempty"`
	Taint      []string  `json:"taint,omitempty"`
	UpdatedAt  time.Time `json:"updated_at"`
}

func (b *Broker) grantPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(b.grantsDir(), hex.EncodeToString(sum[:idBytes])+".json")
}

// State reads what is remembered about agent session key; a session with
// nothing remembered (or an untrusted file) has an empty state.
func (b *Broker) State(key string) *SessionState {
	st := &SessionState{V: formatVersion, SessionKey: key}
	if key == "" {
		return st
	}
	data, _, err := readTrusted(b.grantPath(key))
	if err != nil {
		return st
	}
	var got SessionState
	if decodeStrict(data, &got) != nil || got.V != formatVersion || got.SessionKey != key || !got.wellFormed(b.now()) {
		return st
	}
	return &got
}

// clockSkew is how far in the future a state file's time may lie.
const clockSkew = time.Minute

// wellFormed reports a state as cuff writes it: commands trimmed and
// unique, taint among the known flags, sorted, and a time not ahead of now.
func (s *SessionState) wellFormed(now time.Time) bool {
	if s.UpdatedAt.IsZero() || s.UpdatedAt.After(now.Add(clockSkew)) || len(s.Commands) > maxGrants {
		return false
	}
	seen := map[string]bool{}
	for _, c := range s.Commands {
		if c == "" || c != strings.TrimSpace(c) || seen[c] {
			return false
		}
		seen[c] = true
	}
	for _, t := range s.Taint {
		if t != "untrusted" && t != "secret" {
			return false
		}
	}
	return slices.IsSorted(s.Taint)
}

// Granted reports whether command was approved for the rest of agent
// session key.
func (b *Broker) Granted(key, command string) bool {
	c := strings.TrimSpace(command)
	return key != "" && c != "" && slices.Contains(b.State(key).Commands, c)
}

// Grant approves command for the rest of agent session key.
func (b *Broker) Grant(key, command string) error {
	c := strings.TrimSpace(command)
	if key == "" || c == "" {
		return errors.New("grant: an agent session and a command are needed")
	}
	return b.updateState(key, func(st *SessionState) {
		if slices.Contains(st.Commands, c) {
			return
		}
		st.Commands = append(st.Commands, c)
		if n := len(st.Commands) - maxGrants; n > 0 {
			st.Commands = st.Commands[n:]
		}
	})
}

// Taint returns the taint flags of agent session key, sorted.
func (b *Broker) Taint(key string) []string { return b.State(key).Taint }

// AddTaint adds taint flags (such as untrusted, secret) to agent session key.
func (b *Broker) AddTaint(key string, flags ...string) error {
	if key == "" {
		return errors.New("taint: an agent session is needed")
	}
	return b.updateState(key, func(st *SessionState) {
		for _, f := range flags {
			if f = strings.TrimSpace(f); f != "" && !slices.Contains(st.Taint, f) {
				st.Taint = append(st.Taint, f)
			}
		}
		slices.Sort(st.Taint)
	})
}

// Forget drops everything remembered about agent session key, for when the
// agent session ends.
func (b *Broker) Forget(key string) error {
	err := os.Remove(b.grantPath(key))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget agent session: %w", err)
	}
	return nil
}

// updateState changes the state of key under a lock, so that concurrent
// hook processes do not lose each other's changes.
func (b *Broker) updateState(key string, change func(*SessionState)) error {
	dir := b.grantsDir()
	if err := b.ensureDirs(dir); err != nil {
		return err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return err
	}
	defer unlock()
	st := b.State(key)
	change(st)
	st.UpdatedAt = b.now().UTC()
	data, err := encode(st)
	if err != nil {
		return fmt.Errorf("encode agent session state: %w", err)
	}
	return writeAtomic(b.grantPath(key), data)
}

// lockDir takes an exclusive advisory lock on directory d.
func lockDir(d string) (unlock func(), err error) {
	f, err := os.Open(d)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", d, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", d, err)
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
