package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/regular"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// currentFile maps a grouping key (a conversation, a day, "continuous") to
// the session that collects its events, so a short-lived process such as
// `cuff exec` finds the session to append to without listing the store.
const currentFile = "current.json"

type currentMap struct {
	Sessions map[string]string `json:"sessions"`
}

// CurrentOptions says how to start a session when a key has none yet.
type CurrentOptions struct {
	Start *transcript.SessionStart
	// ConversationID is set on the new session's start event.
	ConversationID string
	// Fresh starts a new session even when the key has an open one (after
	// recording recovered from a failure).
	Fresh bool
	Now   time.Time
}

// Current returns a writer on the open session recorded for key, or starts
// a new session (and records it for key) when there is none, it has ended
// or its file is gone. The second result reports whether the session is new.
func (s *Store) Current(key string, opts CurrentOptions) (*Writer, bool, error) {
	var w *Writer
	var created bool
	err := s.withLock("current.lock", func() error {
		path := filepath.Join(s.Recordings, currentFile)
		cur := currentMap{Sessions: map[string]string{}}
		if data, err := regular.Read(path, "session map", maxMetaBytes, false); err == nil {
			if json.Unmarshal(data, &cur) != nil || cur.Sessions == nil {
				cur.Sessions = map[string]string{} // a damaged map only costs a new session
			}
		} else if !errors.Is(err, fs.ErrNotExist) && !damaged(err) {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if id := cur.Sessions[key]; !opts.Fresh && ValidID(id) && s.open(id) {
			var err error
			w, err = s.Resume(id)
			return err
		}
		ev := transcript.New("", opts.Now, opts.Start)
		ev.ConversationID = opts.ConversationID
		var err error
		if w, err = s.create(ev, opts.Now); err != nil {
			return err
		}
		created = true
		cur.Sessions[key] = w.ID()
		s.pruneCurrent(&cur)
		return writeJSONAtomic(path, &cur)
	})
	return w, created, err
}

// open reports whether session id exists and has not ended.
func (s *Store) open(id string) bool {
	if _, err := os.Stat(s.EventsPath(id)); err != nil {
		return false
	}
	m, err := readMeta(s.MetaPath(id))
	return err == nil && !m.Ended
}

// pruneCurrent drops keys whose sessions are gone, so the map stays small.
func (s *Store) pruneCurrent(cur *currentMap) {
	for k, id := range cur.Sessions {
		if !ValidID(id) {
			delete(cur.Sessions, k)
			continue
		}
		if _, err := os.Stat(s.EventsPath(id)); err != nil {
			delete(cur.Sessions, k)
		}
	}
}

// damaged reports whether err says a file of the store is not what cuff
// writes there (not a regular file, far too big): it is replaced, as a
// damaged one is, when written again.
func damaged(err error) bool {
	var nr *transcript.NotRegularError
	var big *regular.TooBigError
	return errors.As(err, &nr) || errors.As(err, &big)
}
