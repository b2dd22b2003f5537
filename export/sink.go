package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// Formats that decode events rather than copying lines.
const (
	FormatCSV    Format = "csv"
	FormatSQLite Format = "sqlite"
	FormatHTML   Format = "html"
)

// Formats lists every export format, in the order the CLI offers them.
func Formats() []Format {
	return []Format{FormatJSON, FormatJSONL, FormatCSV, FormatSQLite, FormatHTML, FormatMarkdown}
}

// Sink receives the sessions of an export one after another: BeginSession,
// then that session's events in order, and Close after the last session.
type Sink interface {
	// BeginSession starts the next session.
	BeginSession(info session.Info) error
	// Write adds one event of the current session.
	Write(ev *transcript.Event) error
	// Close finishes the export; it is called once, after the last session.
	Close() (Result, error)
}

// ReadFunc streams the events of one session to fn in order, skipping
// malformed lines and counting them in the returned stats, as
// session.Store.ReadEvents does.
type ReadFunc func(id string, fn func(*transcript.Event) error) (transcript.ReadStats, error)

// Aborter is a sink that can throw away a failed export instead of
// finishing it.
type Aborter interface {
	Abort()
}

// WriteSessions streams every session in sessions through sink, one event at
// a time, and closes the sink. Nothing is held in memory beyond what the sink
// keeps. The result counts the events written and the lines left out. On an
// error (or when ctx ends) a sink that is an Aborter is aborted, any other is
// closed, and the error names the session.
func WriteSessions(ctx context.Context, sink Sink, sessions []session.Info, read ReadFunc) (Result, error) {
	var malformed, truncated int
	var skipped []session.Unreadable
	var err error
	for _, info := range sessions {
		if err = ctx.Err(); err != nil {
			err = fmt.Errorf("export: %w", err)
			break
		}
		// A session starts in the export with its first event (or once it
		// is read, when it has none), so that one that cannot be read at
		// all leaves no trace but its warning.
		begun := false
		begin := func() error {
			if begun {
				return nil
			}
			begun = true
			return sink.BeginSession(info)
		}
		var st transcript.ReadStats
		st, err = read(info.ID, func(ev *transcript.Event) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := begin(); err != nil {
				return err
			}
			return sink.Write(ev)
		})
		var ue *UnreadableError
		if errors.As(err, &ue) && !begun {
			skipped = append(skipped, session.Unreadable{ID: info.ID, Err: ue.Err})
			err = nil
			continue
		}
		if err == nil {
			err = begin()
		}
		malformed += st.Malformed
		truncated += st.Truncated
		if err != nil {
			err = fmt.Errorf("export session %s: %w", info.ID, err)
			break
		}
	}
	if a, ok := sink.(Aborter); ok && err != nil {
		a.Abort()
		return Result{}, err
	}
	res, cerr := sink.Close()
	if err != nil && cerr != nil && strings.Contains(err.Error(), cerr.Error()) {
		cerr = nil // the writer's error again, kept from the write that failed
	}
	res.Malformed += malformed
	res.Truncated += truncated
	res.Skipped = append(res.Skipped, skipped...)
	return res, errors.Join(err, cerr)
}

// UnreadableError is a session a ReadFunc could not open at all: the export
// goes on without it, and names it in Result.Skipped.
type UnreadableError struct{ Err error }

func (e *UnreadableError) Error() string { return e.Err.Error() }

// Unwrap returns why.
func (e *UnreadableError) Unwrap() error { return e.Err }

// tsLayout is how timestamps are written in CSV and SQLite: RFC 3339 in
// UTC with a fixed six-digit fraction, so that text order is time order and
// SQLite's date functions read it.
const tsLayout = "2006-01-02T15:04:05.000000Z"

// formatTS writes t in tsLayout; the zero time is empty.
func formatTS(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(tsLayout)
}

// MarkdownSink writes each session as a markdown document (the same as the
// TUI's Ctrl+E), separated by a rule when there are several. A document
// starts with what its whole session holds, so it is written when the
// session ends: until then the events wait in a temporary file, each entry
// rendered there as soon as it is complete, and only a small record of each
// event and the calls still waiting for their result (at most
// defaultMarkdownHold bytes of them) stay in memory, whatever the size of
// the session.
type MarkdownSink struct {
	w       io.Writer
	opts    MarkdownOptions
	hold    int        // bytes of calls held while they wait for their result
	cur     *mdSession // the session being exported, nil between sessions
	written int        // sessions written so far
	res     Result
}

var _ Sink = (*MarkdownSink)(nil)

// NewMarkdownSink returns a sink that writes markdown to w.
func NewMarkdownSink(w io.Writer, opts MarkdownOptions) *MarkdownSink {
	return &MarkdownSink{w: w, opts: opts, hold: defaultMarkdownHold}
}

// BeginSession implements Sink.
func (m *MarkdownSink) BeginSession(session.Info) error {
	if err := m.flush(); err != nil {
		return err
	}
	m.cur = newMDSession(m.opts, m.hold)
	return nil
}

// Write implements Sink.
func (m *MarkdownSink) Write(ev *transcript.Event) error {
	if m.cur == nil {
		if err := m.BeginSession(session.Info{}); err != nil {
			return err
		}
	}
	m.res.Events++
	return m.cur.add(ev)
}

// Close implements Sink.
func (m *MarkdownSink) Close() (Result, error) {
	return m.res, m.flush()
}

// sessionSeparator goes between the documents of two sessions.
const sessionSeparator = "\n\n---\n\n"

// flush writes the document of the current session.
func (m *MarkdownSink) flush() error {
	s := m.cur
	if s == nil {
		return nil
	}
	m.cur = nil
	m.written++
	var err error
	if m.written > 1 {
		if _, err = io.WriteString(m.w, sessionSeparator); err != nil {
			err = fmt.Errorf("write markdown export: %w", err)
		}
	}
	if err == nil {
		err = s.write(m.w)
	}
	return errors.Join(err, s.close())
}
