package session

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// Replace starts writing session id anew (an import of a transcript that
// was imported before): the events go to a temporary file beside the
// session's, which takes the session's place in one rename when the
// writer is closed (CloseAt) or finished (Finish). Until then readers see
// the session as it was; Abandon leaves it so.
func (s *Store) Replace(id string, start *transcript.SessionStart, now time.Time) (*Writer, error) {
	if !ValidID(id) {
		return nil, &InvalidIDError{ID: id}
	}
	if err := s.ensureDirs(); err != nil {
		return nil, err
	}
	lease, err := s.takeLease(id)
	if err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(s.SessionsDir(), "."+id+".replace-*")
	if err != nil {
		lease.Close()
		return nil, fmt.Errorf("replace session %s: %w", id, err)
	}
	tmp.Close()
	app, err := transcript.OpenAppender(tmp.Name(), id, transcript.AppendOptions{Redact: s.Redact, NoSync: s.NoSync})
	if err != nil {
		os.Remove(tmp.Name())
		lease.Close()
		return nil, err
	}
	w := &Writer{store: s, id: id, app: app, lease: lease, meta: Meta{SessionID: id}, final: s.EventsPath(id)}
	if err := w.Append(transcript.New("", now, start)); err != nil {
		w.Abandon()
		return nil, err
	}
	return w, nil
}

// place puts a replacing writer's file in the session's place.
func (w *Writer) place() error {
	if w.final == "" || w.moved {
		return nil
	}
	if err := os.Rename(w.app.Path(), w.final); err != nil {
		return fmt.Errorf("replace session %s: %w", w.id, err)
	}
	w.moved = true
	return nil
}

// Finish stops writing a session that has not ended (an import of a
// transcript that never says it ended): the file's time becomes ts, when
// its last event happened, so that the session is not taken for live;
// the meta file and the index entry follow.
func (w *Writer) Finish(ts time.Time) error {
	defer w.release()
	if !ts.IsZero() && ts.Before(time.Now()) {
		if err := os.Chtimes(w.app.Path(), ts, ts); err != nil {
			return fmt.Errorf("finish session %s: %w", w.id, err)
		}
	}
	if err := w.place(); err != nil {
		return err
	}
	return w.refresh()
}

// Abandon stops writing without keeping what was written by a replacing
// writer (the session stays as it was); a writer of a new session is
// detached, as Detach does.
func (w *Writer) Abandon() {
	if w.final != "" && !w.moved {
		if err := os.Remove(w.app.Path()); err != nil && !errors.Is(err, os.ErrNotExist) {
			w.store.warn("session %s: remove the unfinished replacement: %v", w.id, err)
		}
	}
	w.release()
}
