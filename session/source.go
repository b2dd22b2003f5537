package session

import (
	"context"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// Info is what a session list shows of one session, whatever its source.
type Info struct {
	ID               string
	Source           string // "cuff", "claude", "codex", ...
	Title            string
	Agent            string
	WorkingDirectory string
	Started          time.Time
	Updated          time.Time
	Duration         time.Duration
	Events           int64
	Turns            int64
	ToolCalls        int64
	Commands         int64
	Failures         int64 // failed or timed out commands and tool errors (transcript.Tally)
	TimedOut         int64
	ToolErrors       int64 // tool calls whose result is an error, of Failures
	Background       int64 // commands left running in the background
	Approvals        int64
	Status           string
	Live             bool
	Path             string
	SizeBytes        int64
	// Parts are the records joined into this session, when a conversation
	// was recorded more than once (the agent's transcript and cuff's
	// recordings of it, see Joined); nil for a session of one record.
	Parts []Part
	// Conversation is the joined session a native session belongs to
	// (claude:<uuid>, codex:<uuid>) when it is listed alone because the
	// agent's transcript was not found (yet): following it follows the
	// conversation, and takes in the transcript once it appears.
	Conversation string
}

// Part is one record of a joined session: its id, source and file, and
// the file's size and last change as the listing found them.
type Part struct {
	ID       string    `json:"id"`
	Source   string    `json:"source"`
	Path     string    `json:"path,omitempty"`
	Size     int64     `json:"size,omitempty"`
	Modified time.Time `json:"modified,omitzero"`
}

// Source is a place sessions come from: the native store, or an agent's own
// transcript folder. The TUI lists and reads sessions only through it, so a
// new source appears without changes there.
type Source interface {
	// Name identifies the source, e.g. "cuff".
	Name() string
	// List returns the source's sessions, newest first.
	List(ctx context.Context) ([]Info, error)
	// Read streams the events of session id to fn.
	Read(ctx context.Context, id string, fn func(*transcript.Event) error) error
	// Follow streams the events of session id, then each one appended,
	// until ctx is done or the session's file goes away.
	Follow(ctx context.Context, id string, fn func(FollowItem)) error
}

// NativeSourceName is the Name of the store's own Source.
const NativeSourceName = "cuff"

// Source returns the store as a Source.
func (s *Store) Source() Source { return nativeSource{s} }

type nativeSource struct{ s *Store }

var _ Source = nativeSource{}

func (n nativeSource) Name() string { return NativeSourceName }

func (n nativeSource) List(ctx context.Context) ([]Info, error) {
	all, err := n.s.Sessions()
	if err != nil {
		return nil, err
	}
	out := make([]Info, len(all))
	for i, m := range all {
		out[i] = n.s.InfoOf(m)
	}
	return out, nil
}

// InfoOf turns a session's meta into list information.
func (s *Store) InfoOf(m *Meta) Info {
	return Info{
		ID: m.SessionID, Source: NativeSourceName, Title: m.Title, Agent: m.Agent,
		WorkingDirectory: m.WorkingDirectory, Started: m.CreatedAt, Updated: m.LastUpdated,
		Duration: m.Duration(), Events: m.EntryCount, Turns: m.Turns, ToolCalls: m.ToolCalls,
		Commands: m.AllCommands(), Failures: m.Failures(), TimedOut: m.CommandsTimedOut, Approvals: m.Approvals,
		ToolErrors: m.ToolErrors, Background: m.Background,
		Status: m.Status, Live: m.Live,
		Path: s.EventsPath(m.SessionID), SizeBytes: m.FileSizeBytes,
	}
}

func (n nativeSource) Read(ctx context.Context, id string, fn func(*transcript.Event) error) error {
	_, err := n.s.ReadEvents(id, func(ev *transcript.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(ev)
	})
	return err
}

func (n nativeSource) Follow(ctx context.Context, id string, fn func(FollowItem)) error {
	if !ValidID(id) {
		return &InvalidIDError{ID: id}
	}
	return Follow(ctx, n.s.EventsPath(id), FollowOptions{}, fn)
}
