package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// TrashDir is where deleted sessions wait to be restored or cleaned:
// <recordings>/trash/<id>/ holds the session's files and trashed.json. It
// is beside the sessions, so a deletion is a rename, never a copy.
func (s *Store) TrashDir() string { return filepath.Join(s.Recordings, "trash") }

// trashedFile is what the trash keeps about a deleted session.
const trashedFile = "trashed.json"

// Trashed is a session in the trash.
type Trashed struct {
	ID        string    `json:"session_id"`
	Title     string    `json:"title,omitempty"`
	Started   time.Time `json:"started"`
	Deleted   time.Time `json:"deleted"`
	SizeBytes int64     `json:"file_size_bytes"`
}

// LiveError refuses to delete a session that is being recorded.
type LiveError struct{ ID string }

func (e *LiveError) Error() string { return fmt.Sprintf("session %s is being recorded", e.ID) }

// Hint tells the user the way out.
func (e *LiveError) Hint() string {
	return "Hint: Wait until it ends (or stop the agent or command recording it), then delete it"
}

// RestoreConflictError refuses to restore over a session of the same id.
type RestoreConflictError struct{ ID string }

func (e *RestoreConflictError) Error() string {
	return fmt.Sprintf("a session %s is in the store already", e.ID)
}

// Hint tells the user the way out.
func (e *RestoreConflictError) Hint() string {
	return "Hint: Delete that one first ('cuff record rm'), or leave this one in the trash"
}

// Trash moves session id (a whole id) and its summary into the trash. A
// session whose writer holds its lease is refused (LiveError).
func (s *Store) Trash(id string, now time.Time) (*Trashed, error) {
	if !ValidID(id) {
		return nil, &InvalidIDError{ID: id}
	}
	fi, err := os.Stat(s.EventsPath(id))
	if err != nil {
		return nil, &NotFoundError{ID: id}
	}
	if s.leaseHeld(id) {
		return nil, &LiveError{ID: id}
	}
	t := &Trashed{ID: id, Deleted: now.UTC(), SizeBytes: fi.Size()}
	if m, err := readMeta(s.MetaPath(id)); err == nil {
		t.Title, t.Started = m.Title, m.CreatedAt
	}
	dir := filepath.Join(s.TrashDir(), id)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("make the trash %s: %w", dir, err)
	}
	if err := writeJSONAtomic(filepath.Join(dir, trashedFile), t); err != nil {
		return nil, fmt.Errorf("trash session %s: %w", id, err)
	}
	if err := os.Rename(s.EventsPath(id), filepath.Join(dir, id+".jsonl")); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, &PermissionError{Dir: s.SessionsDir(), Err: err}
		}
		return nil, fmt.Errorf("trash session %s: %w", id, err)
	}
	_ = os.Rename(s.MetaPath(id), filepath.Join(dir, id+".meta.json")) // rebuilt from the events if lost
	s.remove(id)                                                       // the lease and what else is left
	if _, err := s.Sessions(); err != nil {                            // drops it from the index
		return t, err
	}
	return t, nil
}

// Restore moves session id back from the trash.
func (s *Store) Restore(id string) (*Trashed, error) {
	if !ValidID(id) {
		return nil, &InvalidIDError{ID: id}
	}
	dir := filepath.Join(s.TrashDir(), id)
	t, err := readTrashed(dir)
	if err != nil {
		return nil, &NotFoundError{ID: id}
	}
	if _, err := os.Stat(s.EventsPath(id)); err == nil {
		return nil, &RestoreConflictError{ID: id}
	}
	if err := s.ensureDirs(); err != nil {
		return nil, err
	}
	if err := os.Rename(filepath.Join(dir, id+".jsonl"), s.EventsPath(id)); err != nil {
		return nil, fmt.Errorf("restore session %s: %w", id, err)
	}
	_ = os.Rename(filepath.Join(dir, id+".meta.json"), s.MetaPath(id))
	if err := os.RemoveAll(dir); err != nil {
		return t, fmt.Errorf("restore session %s: %w", id, err)
	}
	if _, err := s.Sessions(); err != nil { // puts it back in the index
		return t, err
	}
	return t, nil
}

// TrashList is what the trash holds, most recently deleted first.
func (s *Store) TrashList() ([]Trashed, error) {
	entries, err := os.ReadDir(s.TrashDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the trash: %w", err)
	}
	var out []Trashed
	for _, e := range entries {
		if !e.IsDir() || !ValidID(e.Name()) {
			continue
		}
		t, err := readTrashed(filepath.Join(s.TrashDir(), e.Name()))
		if err != nil {
			continue // half made or damaged: left alone
		}
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Deleted.After(out[j].Deleted) })
	return out, nil
}

// Purge removes for good the sessions deleted before cutoff, and returns
// how many went and the bytes they freed.
func (s *Store) Purge(cutoff time.Time) (int, int64, error) {
	list, err := s.TrashList()
	if err != nil {
		return 0, 0, err
	}
	n, freed := 0, int64(0)
	for _, t := range list {
		if !t.Deleted.Before(cutoff) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(s.TrashDir(), t.ID)); err != nil {
			return n, freed, fmt.Errorf("empty the trash of %s: %w", t.ID, err)
		}
		n++
		freed += t.SizeBytes
	}
	return n, freed, nil
}

func readTrashed(dir string) (*Trashed, error) {
	data, err := os.ReadFile(filepath.Join(dir, trashedFile))
	if err != nil {
		return nil, err
	}
	var t Trashed
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, trashedFile), err)
	}
	if t.ID != filepath.Base(dir) {
		return nil, fmt.Errorf("%s names session %q", filepath.Join(dir, trashedFile), t.ID)
	}
	if _, err := os.Stat(filepath.Join(dir, t.ID+".jsonl")); err != nil {
		return nil, err
	}
	return &t, nil
}

// Trasher is a Source whose sessions can be deleted to a trash and
// restored: cuff's own store. Claude Code's and Codex's folders are theirs,
// and never written.
type Trasher interface {
	Trash(id string, now time.Time) (*Trashed, error)
	Restore(id string) (*Trashed, error)
}

var _ Trasher = nativeSource{}

// Trash implements Trasher.
func (n nativeSource) Trash(id string, now time.Time) (*Trashed, error) { return n.s.Trash(id, now) }

// Restore implements Trasher.
func (n nativeSource) Restore(id string) (*Trashed, error) { return n.s.Restore(id) }
