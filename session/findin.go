package session

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// FindIn finds a session of other sources (Claude Code, Codex) by its id
// or any unique part of it. Their ids are "<source>:<uuid>"; id may carry
// the prefix (claude:fe5e1c67), which limits the search to that source, or
// not (fe5e1c67). An exact id wins over parts. None is a
// *ForeignNotFoundError, more than one an *AmbiguousError.
func FindIn(ctx context.Context, sources []Source, id string) (Info, Source, error) {
	prefix, part, prefixed := strings.Cut(id, ":")
	if !prefixed {
		prefix, part = "", id
	}
	var matches []Info
	var from []Source
	for _, src := range sources {
		if prefix != "" && src.Name() != prefix {
			continue
		}
		infos, err := src.List(ctx)
		if err != nil {
			return Info{}, nil, fmt.Errorf("list %s sessions: %w", src.Name(), err)
		}
		for _, info := range infos {
			uuid := strings.TrimPrefix(info.ID, src.Name()+":")
			if info.ID == id || uuid == part {
				return info, src, nil
			}
			if part != "" && strings.Contains(uuid, part) {
				matches, from = append(matches, info), append(from, src)
			}
		}
	}
	switch len(matches) {
	case 0:
		return Info{}, nil, &ForeignNotFoundError{ID: id}
	case 1:
		return matches[0], from[0], nil
	}
	ids := make([]string, len(matches))
	for i, m := range matches {
		ids[i] = m.ID
	}
	sort.Strings(ids)
	return Info{}, nil, &AmbiguousError{ID: id, Candidates: ids}
}

// ForeignNotFoundError is an id that names no session in any source.
type ForeignNotFoundError struct{ ID string }

func (e *ForeignNotFoundError) Error() string { return fmt.Sprintf("Session '%s' not found", e.ID) }

// Hint tells the user the way out.
func (e *ForeignNotFoundError) Hint() string {
	return "Hint: Use 'cuff record list --source all' to see the sessions of cuff, Claude Code and Codex"
}

// FindAny finds a session by its id or any unique part of it: first among
// the store's own (when id has no source prefix), then among the other
// sources' (FindIn). When neither knows it, the store's error is the one
// returned for an id without a prefix (not found, or not an id at all).
func FindAny(ctx context.Context, s *Store, others []Source, id string) (Info, Source, error) {
	var nativeErr error
	if !strings.Contains(id, ":") {
		m, err := s.Find(id)
		if err == nil {
			return s.InfoOf(m), s.Source(), nil
		}
		var nf *NotFoundError
		var bad *InvalidIDError
		if !errors.As(err, &nf) && !errors.As(err, &bad) || id == "" {
			return Info{}, nil, err
		}
		nativeErr = err // not one of cuff's: perhaps a Claude Code or Codex session
	}
	info, src, err := FindIn(ctx, others, id)
	var fnf *ForeignNotFoundError
	if errors.As(err, &fnf) && nativeErr != nil {
		return Info{}, nil, nativeErr
	}
	return info, src, err
}
