package export

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	var err error
	for _, info := range sessions {
		if err = ctx.Err(); err != nil {
			err = fmt.Errorf("export: %w", err)
			break
		}
		if err = sink.BeginSession(info); err != nil {
			err = fmt.Errorf("export session %s: %w", info.ID, err)
			break
		}
		var st transcript.ReadStats
		st, err = read(info.ID, func(ev *transcript.Event) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return sink.Write(ev)
		})
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
	res.Malformed += malformed
	res.Truncated += truncated
	return res, errors.Join(err, cerr)
}

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
// TUI's Ctrl+E), separated by a rule when there are several. The markdown
// renderer needs a whole session to pair calls and nest delegations, so the
// events of one session (never more) are held in memory.
type MarkdownSink struct {
	w       io.Writer
	opts    MarkdownOptions
	events  []*transcript.Event
	started bool
	written int // sessions written so far
	res     Result
}

var _ Sink = (*MarkdownSink)(nil)

// NewMarkdownSink returns a sink that writes markdown to w.
func NewMarkdownSink(w io.Writer, opts MarkdownOptions) *MarkdownSink {
	return &MarkdownSink{w: w, opts: opts}
}

// BeginSession implements Sink.
func (m *MarkdownSink) BeginSession(session.Info) error {
	if err := m.flush(); err != nil {
		return err
	}
	m.started = true
	return nil
}

// Write implements Sink.
func (m *MarkdownSink) Write(ev *transcript.Event) error {
	m.events = append(m.events, ev)
	m.res.Events++
	return nil
}

// Close implements Sink.
func (m *MarkdownSink) Close() (Result, error) {
	return m.res, m.flush()
}

// sessionSeparator goes between the documents of two sessions.
const sessionSeparator = "\n\n---\n\n"

func (m *MarkdownSink) flush() error {
	if !m.started {
		return nil
	}
	if m.written > 0 {
		if _, err := io.WriteString(m.w, sessionSeparator); err != nil {
			return fmt.Errorf("write markdown export: %w", err)
		}
	}
	err := Markdown(m.w, m.events, m.opts)
	m.events, m.started = nil, false
	m.written++
	return err
}
