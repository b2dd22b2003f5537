package session

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cuff-dev/cuff/internal/atomicfile"
	"github.com/cuff-dev/cuff/transcript"
	"golang.org/x/sys/unix"
)

// Writer appends events to one session. It holds the session's lease while
// open, so the session shows as live; any number of writers (in any number
// of processes) may append to one session at once.
type Writer struct {
	store *Store
	id    string
	app   *transcript.Appender
	lease *os.File
	meta  Meta
	// final is where a replacing writer's file goes when it is done (see
	// Store.Replace); moved is set once it is there.
	final string
	moved bool
}

// Create starts a new session with the given start event body and returns
// its writer. The session_start event, the meta file and the index entry are
// written before Create returns.
func (s *Store) Create(start *transcript.SessionStart, now time.Time) (*Writer, error) {
	return s.create(transcript.New("", now, start), now)
}

// create starts a session with the given session_start event. The session
// file appears with its first line whole, or not at all: a full disk or a
// crash never leaves an empty session behind. Should its meta file or index
// entry fail (the disk filled up meanwhile), the new session is removed again.
func (s *Store) create(ev *transcript.Event, now time.Time) (*Writer, error) {
	if err := s.ensureDirs(); err != nil {
		return nil, err
	}
	id := NewID(now)
	if err := s.writeFirst(id, ev); err != nil {
		return nil, err
	}
	w, err := s.openWriter(id)
	if err == nil {
		if err = w.refresh(); err != nil {
			w.release()
		}
	}
	if err != nil {
		s.remove(id)
		return nil, err
	}
	return w, nil
}

// writeFirst writes the first line of the new session id.
func (s *Store) writeFirst(id string, ev *transcript.Event) error {
	line, err := transcript.EncodeLine(ev, id, 1, s.Redact)
	if err != nil {
		return err
	}
	f, err := atomicfile.Create(s.EventsPath(id), transcript.FileMode)
	if err != nil {
		return fmt.Errorf("start session %s: %w", id, err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Abort()
		return fmt.Errorf("start session %s: %w", id, err)
	}
	if err := f.CommitNew(); err != nil {
		return fmt.Errorf("start session %s: %w", id, err)
	}
	ev.Raw = line
	return nil
}

// remove deletes the files of session id.
func (s *Store) remove(id string) {
	for _, p := range []string{s.EventsPath(id), s.MetaPath(id), s.leasePath(id), transcript.HighWaterPath(s.EventsPath(id))} {
		_ = os.Remove(p)
	}
}

// Resume opens an existing session for appending, e.g. from a hook process
// that records one event and exits.
func (s *Store) Resume(id string) (*Writer, error) {
	if !ValidID(id) {
		return nil, &InvalidIDError{ID: id}
	}
	if _, err := os.Stat(s.EventsPath(id)); err != nil {
		return nil, &NotFoundError{ID: id}
	}
	return s.openWriter(id)
}

// takeLease takes a shared hold of session id's lease: the session is live
// while any writer holds it.
func (s *Store) takeLease(id string) (*os.File, error) {
	lease, err := openLock(s.leasePath(id))
	if err != nil {
		return nil, fmt.Errorf("open lease of session %s: %w", id, err)
	}
	if err := unix.Flock(int(lease.Fd()), unix.LOCK_SH); err != nil {
		lease.Close()
		return nil, fmt.Errorf("take lease of session %s: %w", id, err)
	}
	return lease, nil
}

func (s *Store) openWriter(id string) (*Writer, error) {
	lease, err := s.takeLease(id)
	if err != nil {
		return nil, err
	}
	app, err := transcript.OpenAppender(s.EventsPath(id), id, transcript.AppendOptions{Redact: s.Redact, NoSync: s.NoSync})
	if err != nil {
		s.releaseLease(lease, id)
		return nil, err
	}
	w := &Writer{store: s, id: id, app: app, lease: lease, meta: Meta{SessionID: id}}
	if fi, err := os.Stat(s.EventsPath(id)); err == nil {
		// Start from the last summary, so that closing a long session reads
		// only what was appended since.
		w.meta = *s.metaHint(id, fi)
	}
	return w, nil
}

// ID is the session's id.
func (w *Writer) ID() string { return w.id }

// Path is the session's JSONL file (for a replacing writer, the file it
// writes until it takes the session's place).
func (w *Writer) Path() string {
	if w.moved {
		return w.final
	}
	return w.app.Path()
}

// Append writes events durably (one write, then fsync).
func (w *Writer) Append(events ...*transcript.Event) error {
	for _, ev := range events {
		ev.SessionID = w.id
	}
	return w.app.Append(events...)
}

// Refresh brings the session's meta file and index entry up to date,
// reading only what was appended since they were last written. A process
// that appends to a long session now and then (a hook at the end of each
// turn) keeps its final Close cheap this way.
func (w *Writer) Refresh() error { return w.refresh() }

// refresh brings the meta file and index entry up to date with the file.
func (w *Writer) refresh() error {
	if err := summarize(w.Path(), &w.meta); err != nil {
		return fmt.Errorf("summarise session %s: %w", w.id, err)
	}
	if err := writeCacheJSON(w.store.MetaPath(w.id), &w.meta); err != nil {
		return err
	}
	return w.store.updateIndexEntry(&w.meta)
}

// Close ends the session now: a session_end event with the given status and
// the session's counts, then the meta file and the index entry.
func (w *Writer) Close(status string) error { return w.CloseAt(status, time.Now()) }

// CloseAt ends the session as Close does, stamping the end with ts (an
// imported session ends when its last event happened, not when imported).
func (w *Writer) CloseAt(status string, ts time.Time) error {
	defer w.release()
	if err := summarize(w.Path(), &w.meta); err != nil {
		return fmt.Errorf("summarise session %s: %w", w.id, err)
	}
	m := &w.meta
	m.Live = false // ending: a command whose recorder is not known will not end now
	m.countDied()
	counts := &transcript.Counts{Events: m.EntryCount + 1, Turns: m.Turns, ToolCalls: m.ToolCalls,
		Commands: m.AllCommands(), Failures: m.Failures(), TimedOut: m.CommandsTimedOut, Approvals: m.Approvals}
	end := transcript.New(w.id, ts, &transcript.SessionEnd{Status: status, Counts: counts})
	if err := w.Append(end); err != nil {
		return err
	}
	if err := w.place(); err != nil {
		return err
	}
	return w.refresh()
}

// Detach releases the writer without ending the session, for processes that
// append to a session another process owns.
func (w *Writer) Detach() error {
	w.release()
	return nil
}

func (w *Writer) release() {
	_ = w.app.Close()
	if w.lease == nil {
		return
	}
	w.store.releaseLease(w.lease, w.id)
	w.lease = nil
}

// releaseLease gives up a writer's hold on the lease of session id,
// removing the lease file when no other writer holds it.
func (s *Store) releaseLease(lease *os.File, id string) {
	_ = unix.Flock(int(lease.Fd()), unix.LOCK_UN)
	if err := unix.Flock(int(lease.Fd()), unix.LOCK_EX|unix.LOCK_NB); err == nil {
		_ = os.Remove(s.leasePath(id))
	} else if !errors.Is(err, unix.EWOULDBLOCK) {
		s.warn("session %s: lease: %v", id, err)
	}
	_ = lease.Close()
}
