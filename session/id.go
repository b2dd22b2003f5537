package session

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
)

// idPattern is the shape of a native session id: start time plus the first
// twelve hex digits of a random UUID, e.g. 20260118_143052_a7b3c9d2-e4f5.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{8}_\d{6}_[0-9a-f]{8}-[0-9a-f]{4}$`) })

// partialPattern is what a user may type to name a session in part.
var partialPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f_-]{1,29}$`) })

// NewID returns a fresh native session id for a session starting at t.
func NewID(t time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	h := hex.EncodeToString(b[:])
	return t.UTC().Format("20060102_150405") + "_" + h[:8] + "-" + h[8:]
}

// ValidID reports whether id is a well-formed native session id. Only ids
// that pass may become part of a path.
func ValidID(id string) bool { return idPattern().MatchString(id) }

// InvalidIDError is a session id or partial id that can never name a
// session (path separators, control characters, wrong shape).
type InvalidIDError struct{ ID string }

func (e *InvalidIDError) Error() string {
	return fmt.Sprintf("invalid session id %q: a session id looks like 20260118_143052_a7b3c9d2-e4f5 (or a part of one)", e.ID)
}

// Hint tells the user the way out.
func (e *InvalidIDError) Hint() string {
	return "Hint: Use 'cuff record list' to see available sessions"
}

// checkPartial rejects anything that is not a plausible part of an id
// before it is compared with, let alone joined to, any path.
func checkPartial(s string) error {
	if !partialPattern().MatchString(strings.ToLower(s)) || strings.ToLower(s) != s {
		return &InvalidIDError{ID: s}
	}
	return nil
}

// NotFoundError is a session id that matches no session.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("Session '%s' not found", e.ID) }

// Hint tells the user the way out.
func (e *NotFoundError) Hint() string {
	return "Hint: Use 'cuff record list' to see available sessions"
}

// AmbiguousError is a partial id that matches more than one session.
type AmbiguousError struct {
	ID         string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("Session '%s' is ambiguous: it matches %d sessions:\n  %s", e.ID, len(e.Candidates),
		strings.Join(e.Candidates, "\n  "))
}

// Hint tells the user the way out.
func (e *AmbiguousError) Hint() string { return "Hint: Give more of the id" }
