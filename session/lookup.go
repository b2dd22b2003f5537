package session

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// Find resolves a full or partial session id to one session. A partial id
// matches any session whose id contains it; more than one match is an
// *AmbiguousError listing them, none a *NotFoundError. Input that could not
// be part of an id is an *InvalidIDError and touches no file.
func (s *Store) Find(partial string) (*Meta, error) {
	if err := checkPartial(partial); err != nil {
		return nil, err
	}
	all, err := s.Sessions()
	if err != nil {
		return nil, err
	}
	var matches []*Meta
	for _, m := range all {
		if m.SessionID == partial {
			return m, nil
		}
		if strings.Contains(m.SessionID, partial) {
			matches = append(matches, m)
		}
	}
	switch len(matches) {
	case 0:
		return nil, s.whyNotListed(partial)
	case 1:
		return matches[0], nil
	}
	ids := make([]string, len(matches))
	for i, m := range matches {
		ids[i] = m.SessionID
	}
	sort.Strings(ids)
	return nil, &AmbiguousError{ID: partial, Candidates: ids}
}

// Unlisted are the session files of the store that a listing leaves out
// because they cannot be read (not a regular file, no permission), each with
// why, oldest id first. listed are the ids of the sessions a listing
// returned. An export of every session names them as skipped.
func (s *Store) Unlisted(listed []string) []Unreadable {
	known := make(map[string]bool, len(listed))
	for _, id := range listed {
		known[id] = true
	}
	ids, _ := s.sessionFiles()
	sort.Strings(ids)
	var out []Unreadable
	for _, id := range ids {
		if known[id] {
			continue
		}
		f, err := transcript.Open(s.EventsPath(id))
		if err == nil {
			f.Close()
			continue // appeared since the listing
		}
		if !errors.Is(err, os.ErrNotExist) {
			u := Unreadable{ID: id, Err: err}
			if fi, err := os.Lstat(s.EventsPath(id)); err == nil {
				u.ModTime = fi.ModTime()
			}
			out = append(out, u)
		}
	}
	return out
}

// Unreadable is a session that could not be read, and why.
type Unreadable struct {
	ID      string
	Err     error
	ModTime time.Time // of what is there in its file's place
}

// whyNotListed explains why no listed session matches partial: a session
// file that matches but is refused (not a regular file) says so; else the
// session is not found.
func (s *Store) whyNotListed(partial string) error {
	ids, _ := s.sessionFiles()
	for _, id := range ids {
		if !strings.Contains(id, partial) {
			continue
		}
		f, err := transcript.Open(s.EventsPath(id))
		if err == nil {
			f.Close()
			continue
		}
		var nr *transcript.NotRegularError
		if errors.As(err, &nr) {
			return err
		}
	}
	return &NotFoundError{ID: partial}
}

// Filter narrows a listing.
type Filter struct {
	Since time.Time // zero: no lower bound
	Limit int       // 0: no limit
}

// Apply returns the sessions (newest first) that started at or after Since,
// at most Limit of them.
func (f Filter) Apply(all []*Meta) []*Meta {
	var out []*Meta
	for _, m := range all {
		if !f.Since.IsZero() && m.CreatedAt.Before(f.Since) {
			continue
		}
		out = append(out, m)
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out
}

// DateError is a date or age the user gave in a form cuff does not read.
type DateError struct{ Value string }

func (e *DateError) Error() string { return fmt.Sprintf("Invalid date format '%s'", e.Value) }

// Hint tells the user the way out.
func (e *DateError) Hint() string {
	return "Expected: YYYY-MM-DD or relative format (e.g., '7d', '2w', '1m')"
}

var relativePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d{1,5})([hdwmy])$`) })

// ParseSince reads a point in time given as YYYY-MM-DD (local midnight) or
// relative to now: 12h, 7d, 2w, 1m (30 days), 1y (365 days).
func ParseSince(value string, now time.Time) (time.Time, error) {
	v := strings.TrimSpace(value)
	if t, err := time.ParseInLocation("2006-01-02", v, time.Local); err == nil {
		return t, nil
	}
	m := relativePattern().FindStringSubmatch(v)
	if m == nil {
		return time.Time{}, &DateError{Value: value}
	}
	n, _ := strconv.Atoi(m[1])
	return now.Add(-time.Duration(n) * unitOf(m[2])), nil
}

// ParseAge reads a length of time in the relative forms of ParseSince.
func ParseAge(value string) (time.Duration, error) {
	m := relativePattern().FindStringSubmatch(strings.TrimSpace(value))
	if m == nil {
		return 0, &DateError{Value: value}
	}
	n, _ := strconv.Atoi(m[1])
	return time.Duration(n) * unitOf(m[2]), nil
}

func unitOf(u string) time.Duration {
	const day = 24 * time.Hour
	switch u {
	case "h":
		return time.Hour
	case "w":
		return 7 * day
	case "m":
		return 30 * day
	case "y":
		return 365 * day
	}
	return day
}
