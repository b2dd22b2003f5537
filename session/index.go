package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/regular"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cuff-dev/cuff/internal/atomicfile"
	"github.com/cuff-dev/cuff/transcript"
	"golang.org/x/sys/unix"
)

// IndexVersion is the version string written into index.json.
const IndexVersion = "1.0"

// StatusIdle is the status of a session that has not ended, has no writer
// and no command left running: it may be appended to again (a per-day
// session between commands, an agent between turns).
const StatusIdle = "idle"

// Index is index.json: a summary of every session, so that listing does not
// read every session file.
type Index struct {
	Version       string           `json:"version"`
	LastUpdated   time.Time        `json:"last_updated"`
	TotalSessions int              `json:"total_sessions"`
	TotalEntries  int64            `json:"total_entries"`
	Sessions      map[string]*Meta `json:"sessions"`
}

func newIndex() *Index { return &Index{Version: IndexVersion, Sessions: map[string]*Meta{}} }

func (ix *Index) recount() {
	ix.TotalSessions = len(ix.Sessions)
	ix.TotalEntries = 0
	for _, m := range ix.Sessions {
		ix.TotalEntries += m.EntryCount
	}
}

// readIndex loads index.json. A missing file is (nil, nil); a corrupt one
// is an error.
func (s *Store) readIndex() (*Index, error) {
	data, err := regular.Read(s.IndexPath(), "index", maxIndexBytes, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ix Index
	if err := json.Unmarshal(data, &ix); err != nil {
		return nil, fmt.Errorf("corrupt index %s: %w", s.IndexPath(), err)
	}
	if ix.Sessions == nil {
		return nil, fmt.Errorf("corrupt index %s: no sessions map", s.IndexPath())
	}
	for id, m := range ix.Sessions {
		if m == nil || !ValidID(id) || m.SessionID != id {
			return nil, fmt.Errorf("corrupt index %s: bad entry %q", s.IndexPath(), id)
		}
	}
	return &ix, nil
}

// withIndexLock runs fn while holding the index's advisory lock.
func (s *Store) withIndexLock(fn func() error) error { return s.withLock("index.lock", fn) }

// withLock runs fn while holding the advisory lock file name in the
// recordings directory. Locks are not re-entrant: fn must not take the same one.
func (s *Store) withLock(name string, fn func() error) error {
	if err := s.ensureDirs(); err != nil {
		return err
	}
	lockPath := filepath.Join(s.Recordings, name)
	f, err := openLock(lockPath)
	if err != nil {
		return err // it names the file
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("lock %s: %w", lockPath, err)
	}
	return fn()
}

// Sessions returns every session of the store, newest first, with its
// summary brought up to date: sessions whose file changed since the index
// last saw it are summarised again from where the index stopped, a missing
// or corrupt index is rebuilt (with a warning), and the index is saved when
// anything changed. Live is set on each.
func (s *Store) Sessions() ([]*Meta, error) {
	names, err := s.sessionFiles()
	if err != nil {
		return nil, err
	}
	ix, err := s.readIndex()
	switch {
	case err != nil:
		s.warn("%v; rebuilding it from the session files", err)
		ix = newIndex()
	case ix == nil:
		if len(names) > 0 {
			s.warn("index %s is missing; rebuilding it from the session files", s.IndexPath())
		}
		ix = newIndex()
	}
	changed := false
	present := make(map[string]bool, len(names))
	var todo []*Meta         // sessions to summarise (again), from where their summary stopped
	var unseen []os.FileInfo // per todo: the file, when the index had no summary of it
	for _, id := range names {
		present[id] = true
		fi, err := os.Lstat(s.EventsPath(id))
		if err != nil {
			continue // removed while we looked
		}
		m := ix.Sessions[id]
		if m != nil && !m.stale(fi) {
			continue
		}
		var hint os.FileInfo
		if m == nil {
			m, hint = &Meta{SessionID: id}, fi
		}
		todo, unseen = append(todo, m), append(unseen, hint)
	}
	for i, err := range summarizeAll(s, todo, unseen) {
		m := todo[i]
		if err != nil {
			s.warn("session %s: %v", m.SessionID, err)
			var nr *transcript.NotRegularError
			if errors.As(err, &nr) && ix.Sessions[m.SessionID] != nil {
				delete(ix.Sessions, m.SessionID) // refused, not listed
				changed = true
			}
			continue
		}
		ix.Sessions[m.SessionID] = m
		changed = true
	}
	for id := range ix.Sessions {
		if !present[id] {
			delete(ix.Sessions, id)
			changed = true
		}
	}
	if changed {
		ix.recount()
		ix.LastUpdated = time.Now().UTC()
		if err := s.saveIndex(ix); err != nil {
			s.warn("could not save the index: %v", err)
		}
	}
	out := make([]*Meta, 0, len(ix.Sessions))
	now := time.Now()
	for _, m := range ix.Sessions {
		m.Live = IsLive(m.Ended, !m.Ended && s.leaseHeld(m.SessionID), m.LastUpdated, time.Unix(0, m.FileModTime), now)
		m.countDied()
		if !m.Ended && !m.Live {
			m.Status = StatusIdle
			if len(m.OpenCalls) > 0 {
				m.Status = transcript.StatusInterrupted
			}
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].SessionID > out[j].SessionID
	})
	return out, nil
}

// summarizeAll brings each summary up to date with its session file, on
// every core, and returns each one's error. A summary the index did not
// have (unseen[i] set) starts from the meta file the writer left: when that
// is current, a lost index is rebuilt from it without reading (or
// rewriting) the session. Meta files are not written: they are the
// writers' (and the index, saved once, has the summaries).
func summarizeAll(s *Store, metas []*Meta, unseen []os.FileInfo) []error {
	errs := make([]error, len(metas))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(runtime.GOMAXPROCS(0), len(metas)) {
		wg.Go(func() {
			for i := range next {
				if fi := unseen[i]; fi != nil {
					if metas[i] = s.metaHint(metas[i].SessionID, fi); !metas[i].stale(fi) {
						continue
					}
				}
				errs[i] = summarize(s.EventsPath(metas[i].SessionID), metas[i])
			}
		})
	}
	for i := range metas {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

// metaHint starts a summary from the session's meta file when it is still
// a valid prefix summary of the file, else from nothing.
func (s *Store) metaHint(id string, fi os.FileInfo) *Meta {
	m, err := readMeta(s.MetaPath(id))
	if err != nil || m.SessionID != id || m.SummarizedUpTo > fi.Size() {
		return &Meta{SessionID: id}
	}
	return m
}

// saveIndex writes the index under its lock. An entry another process
// saved in the meantime may be lost; the index is a cache, and the next
// listing summarises that session again.
func (s *Store) saveIndex(ix *Index) error {
	return s.withIndexLock(func() error { return writeCacheJSON(s.IndexPath(), ix) })
}

// updateIndexEntry records one session's summary in the index.
func (s *Store) updateIndexEntry(m *Meta) error {
	return s.withIndexLock(func() error {
		ix, err := s.readIndex()
		if err != nil || ix == nil {
			ix = newIndex() // a later listing rebuilds the rest
		}
		ix.Sessions[m.SessionID] = m
		ix.recount()
		ix.LastUpdated = time.Now().UTC()
		return writeCacheJSON(s.IndexPath(), ix)
	})
}

// Rebuild summarises every session file from scratch and writes a new index.
func (s *Store) Rebuild() (*Index, error) {
	names, err := s.sessionFiles()
	if err != nil {
		return nil, err
	}
	ix := newIndex()
	for _, id := range names {
		m := &Meta{SessionID: id}
		if err := summarize(s.EventsPath(id), m); err != nil {
			s.warn("session %s: %v", id, err)
			continue
		}
		ix.Sessions[id] = m
	}
	ix.recount()
	ix.LastUpdated = time.Now().UTC()
	if err := s.saveIndex(ix); err != nil {
		return nil, err
	}
	return ix, nil
}

// sessionFiles lists the ids of the session files in the store.
func (s *Store) sessionFiles() ([]string, error) {
	entries, err := os.ReadDir(s.SessionsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.SessionsDir(), err)
	}
	var ids []string
	temps := false
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if ok && ValidID(id) {
			ids = append(ids, id) // whatever its type: one that is not a regular file is refused, and said so
		}
		temps = temps || atomicfile.IsTemp(e.Name())
	}
	if temps {
		atomicfile.CleanStale(s.SessionsDir(), "") // left by a writer that was killed
	}
	return ids, nil
}

// leaseHeld reports whether some writer holds the session's lease.
func (s *Store) leaseHeld(id string) bool {
	f, err := transcript.OpenRegular(s.leasePath(id), unix.O_RDONLY, 0, false) // a named pipe there must not block a listing
	if err != nil {
		return false
	}
	defer f.Close()
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if err == nil {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return false
	}
	return errors.Is(err, unix.EWOULDBLOCK)
}

// openLock opens (creating it) a lock file of the store: a regular file,
// never followed through a link (which could create a file anywhere).
func openLock(path string) (*os.File, error) {
	f, err := transcript.OpenRegular(path, unix.O_RDWR|unix.O_CREAT, transcript.FileMode, false)
	var nr *transcript.NotRegularError
	if errors.As(err, &nr) {
		nr.What = "lock file"
	}
	return f, err
}
