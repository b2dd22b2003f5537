package export

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cuff-dev/cuff/internal/atomicfile"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, pure Go
)

// sqliteFileMode is the permission of an exported database, like every
// file cuff writes from a recording.
const sqliteFileMode = 0o600

// ErrSQLiteNeedsFile is returned when a SQLite export is asked to write to
// standard output: a database is a file, not a stream.
var ErrSQLiteNeedsFile = errors.New("a SQLite export needs a file to write to")

// SQLiteWriter builds a SQLite database from sessions: the tables sessions,
// events (every event with its envelope and its raw JSON line, unknown
// kinds included), bash_runs (every bash_run, with the time of its
// bash_start), tool_calls (each call joined with its result) and approvals
// (each request joined with its decision), with indexes on session, type,
// time and command. Everything is written in one transaction into a
// temporary file next to the target, which is renamed into place by Close:
// a failed or aborted export leaves no partial database behind.
type SQLiteWriter struct {
	path string
	file *atomicfile.File // the database being written
	tmp  string           // its temporary name, by which SQLite opens it
	db   *sql.DB
	tx   *sql.Tx
	st   sqliteStmts
	cur  *sessionRow
	res  Result
	done bool
}

type sqliteStmts struct {
	event, bash, call, result, orphanResult, request, decision, orphanDecision, session *sql.Stmt
}

// sessionRow is what the sessions table gets for the session being written:
// its listing information, what its session_start says and the counts of
// what was exported.
type sessionRow struct {
	info             session.Info
	start            *transcript.SessionStart
	first, last, end time.Time
	status           string
	tally            transcript.Tally // the counts every view shows
	// open calls of this session: call_id → rowid, or the bash_start time.
	calls     map[string]int64
	requests  map[string]int64
	bashStart map[string]time.Time
}

var _ Sink = (*SQLiteWriter)(nil)

// NewSQLiteWriter starts a SQLite export that will be written to path. An
// existing file at path is replaced only when the export succeeds.
func NewSQLiteWriter(ctx context.Context, path string) (*SQLiteWriter, error) {
	if path == "" || path == "-" {
		return nil, ErrSQLiteNeedsFile
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory: name the database file to write", path)
	}
	f, err := atomicfile.CreateNamed(path, sqliteFileMode)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	w := &SQLiteWriter{path: path, file: f, tmp: f.TempPath()}
	if err := w.open(ctx); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

func (w *SQLiteWriter) open(ctx context.Context) error {
	db, err := sql.Open("sqlite", w.tmp)
	if err != nil {
		return fmt.Errorf("open %s: %w", w.tmp, err)
	}
	db.SetMaxOpenConns(1)
	w.db = db
	// The file is private until it is renamed, and is thrown away on any
	// failure, so neither a journal nor fsync buys anything here.
	for _, p := range []string{"PRAGMA journal_mode = OFF", "PRAGMA synchronous = OFF",
		"PRAGMA temp_store = MEMORY", "PRAGMA cache_size = -32768"} {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return fmt.Errorf("set up %s: %s: %w", w.tmp, p, err)
		}
	}
	if w.tx, err = db.BeginTx(ctx, nil); err != nil {
		return fmt.Errorf("begin %s: %w", w.tmp, err)
	}
	if _, err := w.tx.Exec(sqliteSchema); err != nil {
		return fmt.Errorf("create tables: %w", err)
	}
	if _, err := w.tx.Exec(`INSERT INTO cuff_export (key, value) VALUES ('schema_version', ?), ('exported_at', ?)`,
		SQLiteSchemaVersion, formatTS(time.Now())); err != nil {
		return fmt.Errorf("write export info: %w", err)
	}
	prep := func(dst **sql.Stmt, q string) {
		if err == nil {
			*dst, err = w.tx.Prepare(q)
		}
	}
	prep(&w.st.event, sqlInsertEvent)
	prep(&w.st.bash, sqlInsertBash)
	prep(&w.st.call, sqlInsertCall)
	prep(&w.st.result, sqlSetResult)
	prep(&w.st.orphanResult, sqlInsertResult)
	prep(&w.st.request, sqlInsertRequest)
	prep(&w.st.decision, sqlSetDecision)
	prep(&w.st.orphanDecision, sqlInsertDecision)
	prep(&w.st.session, sqlInsertSession)
	if err != nil {
		return fmt.Errorf("prepare statements: %w", err)
	}
	return nil
}

// BeginSession implements Sink.
func (w *SQLiteWriter) BeginSession(info session.Info) error {
	if err := w.finishSession(); err != nil {
		return err
	}
	w.cur = &sessionRow{info: info, calls: map[string]int64{}, requests: map[string]int64{}, bashStart: map[string]time.Time{}}
	return nil
}

// Write implements Sink: the event's row, and its row in the table of its
// kind.
func (w *SQLiteWriter) Write(ev *transcript.Event) error {
	if w.cur == nil {
		if err := w.BeginSession(session.Info{ID: ev.SessionID}); err != nil {
			return err
		}
	}
	raw := ev.Raw
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(ev); err != nil {
			return fmt.Errorf("encode event %d: %w", ev.Seq, err)
		}
	}
	ts := nz(formatTS(ev.TS))
	if _, err := w.st.event.Exec(ev.SessionID, ev.Seq, nz(ev.ID), ts, string(ev.Type), ev.V, nz(ev.AgentID),
		nz(ev.ConversationID), nz(ev.CallID), nz(ev.ParentCallID), nz(ev.RunID), nz(ev.TaskID), nz(ev.StepID),
		string(raw)); err != nil {
		return fmt.Errorf("insert event %d: %w", ev.Seq, err)
	}
	w.res.Events++
	c := w.cur
	c.tally.Add(ev)
	if !ev.TS.IsZero() {
		if c.first.IsZero() || ev.TS.Before(c.first) {
			c.first = ev.TS
		}
		if ev.TS.After(c.last) {
			c.last = ev.TS
		}
	}
	var err error
	switch b := ev.Body.(type) {
	case *transcript.SessionStart:
		if c.start == nil {
			c.start = b
		}
	case *transcript.SessionEnd:
		c.end, c.status = ev.TS, b.Status
	case *transcript.BashStart:
		c.bashStart[ev.CallID] = ev.TS
	case *transcript.BashRun:
		err = w.bashRun(ev, b, ts)
	case *transcript.ToolCall:
		err = w.toolCall(ev, b, ts)
	case *transcript.ToolResult:
		err = w.toolResult(ev, b, ts)
	case *transcript.ApprovalRequest:
		err = w.request(ev, b, ts)
	case *transcript.ApprovalDecision:
		err = w.decision(ev, b, ts)
	}
	if err != nil {
		return fmt.Errorf("event %d (%s): %w", ev.Seq, ev.Type, err)
	}
	return nil
}

func (w *SQLiteWriter) bashRun(ev *transcript.Event, b *transcript.BashRun, ts any) error {
	c := w.cur
	var started any
	if t, ok := c.bashStart[ev.CallID]; ok && ev.CallID != "" {
		started = nz(formatTS(t))
		delete(c.bashStart, ev.CallID)
	}
	var exit, truncBytes any
	if b.ExitCode != nil {
		exit = *b.ExitCode
	}
	if b.OutputTruncatedBytes != nil {
		truncBytes = *b.OutputTruncatedBytes
	}
	var errCode, errMsg, rss, user, sys any
	if e := b.Error; e != nil {
		errCode, errMsg = e.Code, e.Message
	}
	if u := b.Usage; u != nil {
		rss, user, sys = u.MaxRSSKB, u.UserMS, u.SysMS
	}
	argv, err := jsonOrNil(b.Argv, len(b.Argv) > 0)
	if err != nil {
		return err
	}
	env, err := jsonOrNil(b.Environment, len(b.Environment) > 0)
	if err != nil {
		return err
	}
	_, err = w.st.bash.Exec(nz(ev.ID), ev.SessionID, ev.Seq, ts, started, nz(ev.CallID), nz(ev.AgentID),
		nz(ev.ParentCallID), nz(ev.RunID), nz(ev.TaskID), nz(ev.StepID), b.Command, argv, nz(b.Description),
		nz(b.WorkingDirectory), nz(b.Shell), b.TimeoutSeconds, b.TimedOut, exit, !b.Failed(), nz(b.Stdout),
		nz(b.Stderr), b.OutputTruncated, truncBytes, env, b.DurationMS, b.Interrupted, errCode, errMsg, rss, user, sys)
	return err
}

func (w *SQLiteWriter) toolCall(ev *transcript.Event, b *transcript.ToolCall, ts any) error {
	var input any
	if len(b.Input) > 0 {
		input = string(b.Input)
	}
	r, err := w.st.call.Exec(ev.SessionID, nz(ev.CallID), nz(b.Tool), input, nz(ev.AgentID), nz(ev.ParentCallID), nz(ev.ID), ts)
	if err != nil {
		return err
	}
	if ev.CallID != "" {
		id, err := r.LastInsertId()
		if err != nil {
			return err
		}
		w.cur.calls[ev.CallID] = id
	}
	return nil
}

func (w *SQLiteWriter) toolResult(ev *transcript.Event, b *transcript.ToolResult, ts any) error {
	if id, ok := w.cur.calls[ev.CallID]; ok && ev.CallID != "" {
		delete(w.cur.calls, ev.CallID)
		_, err := w.st.result.Exec(nz(ev.ID), ts, b.Output, b.OutputTruncated, b.IsError, b.DurationMS, nz(b.Tool), id)
		return err
	}
	_, err := w.st.orphanResult.Exec(ev.SessionID, nz(ev.CallID), nz(b.Tool), nz(ev.AgentID), nz(ev.ParentCallID),
		nz(ev.ID), ts, b.Output, b.OutputTruncated, b.IsError, b.DurationMS)
	return err
}

func (w *SQLiteWriter) request(ev *transcript.Event, b *transcript.ApprovalRequest, ts any) error {
	var verdict, tier, rule, reasons any
	if v := b.Verdict; v != nil {
		verdict, tier, rule = nz(v.Decision), nz(v.Tier), nz(v.Rule)
		var err error
		if reasons, err = jsonOrNil(v.Reasons, len(v.Reasons) > 0); err != nil {
			return err
		}
	}
	r, err := w.st.request.Exec(ev.SessionID, nz(ev.CallID), nz(b.RequestID), nz(b.Tool), nz(b.Command),
		verdict, tier, rule, reasons, ts)
	if err != nil {
		return err
	}
	if ev.CallID != "" {
		id, err := r.LastInsertId()
		if err != nil {
			return err
		}
		w.cur.requests[ev.CallID] = id
	}
	return nil
}

func (w *SQLiteWriter) decision(ev *transcript.Event, b *transcript.ApprovalDecision, ts any) error {
	if id, ok := w.cur.requests[ev.CallID]; ok && ev.CallID != "" {
		delete(w.cur.requests, ev.CallID)
		_, err := w.st.decision.Exec(nz(b.Decision), nz(b.Scope), nz(b.By), nz(b.Reason), nz(b.RuleAdded), ts,
			nz(b.RequestID), id)
		return err
	}
	_, err := w.st.orphanDecision.Exec(ev.SessionID, nz(ev.CallID), nz(b.RequestID), nz(b.Decision), nz(b.Scope),
		nz(b.By), nz(b.Reason), nz(b.RuleAdded), ts)
	return err
}

// finishSession writes the sessions row of the session just exported.
func (w *SQLiteWriter) finishSession() error {
	c := w.cur
	if c == nil {
		return nil
	}
	w.cur = nil
	in := c.info
	row := struct{ source, agent, wd, version, os, arch, host, branch, sha string }{agent: in.Agent, wd: in.WorkingDirectory}
	if s := c.start; s != nil {
		row.source, row.version = s.Source, s.CuffVersion
		if row.agent == "" {
			row.agent = s.Agent
		}
		if row.wd == "" {
			row.wd = s.WorkingDirectory
		}
		if h := s.Host; h != nil {
			row.os, row.arch, row.host = h.OS, h.Arch, h.Hostname
		}
		if g := s.Git; g != nil {
			row.branch, row.sha = g.Branch, g.SHA
		}
	}
	started := in.Started
	if started.IsZero() {
		started = c.first
	}
	ended := c.end
	if ended.IsZero() {
		ended = c.last
	}
	status := c.status
	if status == "" {
		status = in.Status
	}
	var size any
	if in.SizeBytes > 0 {
		size = in.SizeBytes
	}
	_, err := w.st.session.Exec(in.ID, nz(in.Source), nz(row.source), nz(row.agent), nz(in.Title), nz(row.wd),
		nz(row.version), nz(row.os), nz(row.arch), nz(row.host), nz(row.branch), nz(row.sha), nz(formatTS(started)),
		nz(formatTS(ended)), nz(status), size, c.tally.Events, c.tally.Turns, c.tally.ToolCalls, c.tally.Commands, c.tally.Failures(), c.tally.Approvals, c.tally.Delegations)
	if err != nil {
		return fmt.Errorf("insert session %s: %w", in.ID, err)
	}
	return nil
}

// Close writes the last sessions row, creates the indexes, commits and
// moves the database into place.
func (w *SQLiteWriter) Close() (Result, error) {
	if w.done {
		return w.res, errors.New("SQLite export already closed")
	}
	err := w.finishSession()
	if err == nil {
		if _, err = w.tx.Exec(sqliteIndexes); err != nil {
			err = fmt.Errorf("create indexes: %w", err)
		}
	}
	if err == nil {
		if err = w.tx.Commit(); err != nil {
			err = fmt.Errorf("commit %s: %w", w.path, err)
		}
	}
	if err != nil {
		w.Abort()
		return w.res, err
	}
	w.done = true
	if err := w.db.Close(); err != nil {
		w.file.Abort()
		return w.res, fmt.Errorf("close %s: %w", w.path, err)
	}
	if err := w.file.Commit(); err != nil {
		return w.res, err
	}
	return w.res, nil
}

// Abort throws the export away: nothing is left at the target path, and an
// existing file there is untouched.
func (w *SQLiteWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.tx != nil {
		_ = w.tx.Rollback()
	}
	if w.db != nil {
		_ = w.db.Close()
	}
	w.file.Abort()
}

// nz is s, or NULL when s is empty.
func nz(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// jsonOrNil is v as JSON text when present, else NULL.
func jsonOrNil(v any, present bool) (any, error) {
	if !present {
		return nil, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(data), nil
}
