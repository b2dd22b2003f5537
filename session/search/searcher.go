package search

import (
	"context"
	"sync"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript/redact"
)

// Searcher is the index of a program's sessions, opened once and brought
// up to date before each search: what `cuff search` and the TUI's search
// across sessions use. It is safe for concurrent use; searches run one
// at a time.
type Searcher struct {
	// Path is the index's file; Redactor redacts text before it is
	// indexed (nil: not at all).
	Path     string
	Redactor *redact.Redactor
	// Sources are where the sessions are; Store is the folder of the
	// native source's store.
	Sources []session.Source
	Store   string

	mu sync.Mutex
	x  *Index
}

// Update brings the index up to date, opening it the first time; progress
// (may be nil) is told how far it got. Sources that cannot be listed are
// returned as warnings.
func (s *Searcher) Update(ctx context.Context, progress func(done, total int64)) (UpdateStats, []error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.update(ctx, progress)
}

func (s *Searcher) update(ctx context.Context, progress func(done, total int64)) (UpdateStats, []error, error) {
	if s.x == nil {
		x, err := Open(ctx, s.Path, s.Redactor)
		if err != nil {
			return UpdateStats{}, nil, err
		}
		s.x = x
	}
	files, warnings := Files(ctx, s.Sources, s.Store)
	st, err := s.x.Update(ctx, files, UpdateOptions{Progress: progress})
	return st, warnings, err
}

// Search brings the index up to date and runs q over the sessions of the
// store and of every other source.
func (s *Searcher) Search(ctx context.Context, q Query, progress func(done, total int64)) ([]Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, err := s.update(ctx, progress); err != nil {
		return nil, err
	}
	q.Store = s.Store
	return s.x.Search(ctx, q)
}

// Close closes the index.
func (s *Searcher) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.x == nil {
		return nil
	}
	err := s.x.Close()
	s.x = nil
	return err
}

// Query runs q over the index as it is (see Update), opening it the first
// time.
func (s *Searcher) Query(ctx context.Context, q Query) ([]Hit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.x == nil {
		x, err := Open(ctx, s.Path, s.Redactor)
		if err != nil {
			return nil, err
		}
		s.x = x
	}
	q.Store = s.Store
	return s.x.Search(ctx, q)
}
