package export

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestSQLiteExport exports real sessions and checks the tables against the
// events they came from.
func TestSQLiteExport(t *testing.T) {
	s := fixtureStore(t)
	ids := []string{
		recordSession(t, s, time.Now().Add(-3*time.Hour), everyKind),
		recordSession(t, s, time.Now().Add(-2*time.Hour), everyKind),
	}
	path := filepath.Join(t.TempDir(), "recordings.db")
	w, err := NewSQLiteWriter(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	res := exportTo(t, s, w)
	db := openDB(t, path)

	var events, runs, calls int
	for _, id := range ids {
		for _, ev := range readAll(t, s, id) {
			events++
			switch ev.Type {
			case transcript.TypeBashRun:
				runs++
			case transcript.TypeToolCall:
				calls++
			}
		}
	}
	if got := count(t, db, "SELECT count(*) FROM events"); got != events || res.Events != int64(events) {
		t.Errorf("events table has %d rows, result %d, sessions have %d events", got, res.Events, events)
	}
	if got := count(t, db, "SELECT count(*) FROM bash_runs"); got != runs {
		t.Errorf("bash_runs has %d rows, %d bash_run events", got, runs)
	}
	if got := count(t, db, "SELECT count(*) FROM events WHERE type = 'bash_run'"); got != runs {
		t.Errorf("events of type bash_run: %d", got)
	}
	if got := count(t, db, "SELECT count(*) FROM tool_calls"); got != calls {
		t.Errorf("tool_calls has %d rows, %d calls", got, calls)
	}
	if got := count(t, db, "SELECT count(*) FROM sessions"); got != 2 {
		t.Errorf("sessions: %d", got)
	}
	for _, id := range ids {
		n := len(readAll(t, s, id))
		if got := count(t, db, "SELECT events FROM sessions WHERE id = ?", id); got != n {
			t.Errorf("session %s: events column %d, %d events", id, got, n)
		}
		if got := count(t, db, "SELECT count(*) FROM events WHERE session_id = ?", id); got != n {
			t.Errorf("session %s: %d event rows, want %d", id, got, n)
		}
	}

	// Joined halves and the columns people query.
	var output string
	var isErr, dur int
	if err := db.QueryRow(`SELECT output, is_error, duration_ms FROM tool_calls WHERE tool = 'Read' AND session_id = ?`, ids[0]).
		Scan(&output, &isErr, &dur); err != nil || output != "package a\n" || isErr != 0 || dur != 5 {
		t.Errorf("joined Read call: %q %d %d %v", output, isErr, dur, err)
	}
	if got := count(t, db, "SELECT count(*) FROM tool_calls WHERE tool = 'WebFetch' AND result_event_id IS NULL"); got != 2 {
		t.Errorf("calls without a result: %d", got)
	}
	var started, cmd string
	var exit sql.NullInt64
	if err := db.QueryRow(`SELECT started_at, command, exit_code FROM bash_runs WHERE call_id = 'b1' AND session_id = ?`, ids[1]).
		Scan(&started, &cmd, &exit); err != nil || started == "" || cmd != "go test ./..." || exit.Int64 != 1 {
		t.Errorf("bash run b1: %q %q %v %v", started, cmd, exit, err)
	}
	if got := count(t, db, "SELECT count(*) FROM bash_runs WHERE exit_code IS NULL AND timed_out = 1 AND ok = 0"); got != 2 {
		t.Errorf("timed-out runs: %d", got)
	}
	if got := count(t, db, "SELECT count(*) FROM approvals WHERE decision = 'deny' AND command = 'curl https://example.com'"); got != 2 {
		t.Errorf("denied approvals: %d", got)
	}
	if got := count(t, db, `SELECT count(*) FROM events WHERE type = 'future_kind' AND json_extract(raw, '$.nested.k[1]') = 2`); got != 2 {
		t.Errorf("unknown kind kept raw: %d", got)
	}
	if got := count(t, db, `SELECT count(*) FROM bash_runs WHERE json_extract(argv, '$[0]') = 'go'`); got != 2 {
		t.Errorf("argv as JSON: %d", got)
	}
	// Time order is text order.
	rows, err := db.Query("SELECT session_id, ts FROM events WHERE ts IS NOT NULL ORDER BY session_id, seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var lastSession, last string
	for rows.Next() {
		var id, ts string
		if err := rows.Scan(&id, &ts); err != nil {
			t.Fatal(err)
		}
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || len(ts) != len(tsLayout) {
			t.Errorf("ts %q", ts)
		}
		if id == lastSession && ts < last {
			t.Errorf("ts %q sorts before the earlier %q", ts, last)
		}
		lastSession, last = id, ts
	}
	for _, idx := range []string{"events_session", "events_type", "events_ts", "bash_runs_command", "bash_runs_session", "tool_calls_session"} {
		if got := count(t, db, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", idx); got != 1 {
			t.Errorf("index %s missing", idx)
		}
	}
	var plan string
	if err := db.QueryRow("EXPLAIN QUERY PLAN SELECT * FROM bash_runs WHERE command = 'x'").Scan(new(int), new(int), new(int), &plan); err != nil ||
		!strings.Contains(plan, "bash_runs_command") {
		t.Errorf("command lookups do not use the index: %q %v", plan, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("database mode: %v %v", fi.Mode(), err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %q", left)
	}
}

// failingRead fails after the first session, like a disk error midway.
func TestSQLiteFailureLeavesNothing(t *testing.T) {
	s := fixtureStore(t)
	recordSession(t, s, time.Now().Add(-2*time.Hour), everyKind)
	recordSession(t, s, time.Now().Add(-time.Hour), everyKind)
	dir := t.TempDir()
	path := filepath.Join(dir, "out.db")
	if err := os.WriteFile(path, []byte("previous export"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := NewSQLiteWriter(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	read := func(id string, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
		if calls++; calls == 2 {
			return transcript.ReadStats{}, errors.New("read error: input/output error")
		}
		return s.ReadEvents(id, fn)
	}
	_, err = WriteSessions(context.Background(), w, infos(t, s), read)
	if err == nil || !strings.Contains(err.Error(), "input/output error") {
		t.Fatalf("error %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "previous export" {
		t.Errorf("the earlier file was touched: %q", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}

	// A cancelled export also leaves nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path2 := filepath.Join(dir, "cancelled.db")
	w, err = NewSQLiteWriter(context.Background(), path2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteSessions(ctx, w, infos(t, s), s.ReadEvents); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind after cancel: %v", entries)
	}
}

func TestSQLiteNeedsAFile(t *testing.T) {
	for _, p := range []string{"", "-"} {
		if _, err := NewSQLiteWriter(context.Background(), p); !errors.Is(err, ErrSQLiteNeedsFile) {
			t.Errorf("%q: %v", p, err)
		}
	}
	if _, err := NewSQLiteWriter(context.Background(), t.TempDir()); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := NewSQLiteWriter(context.Background(), filepath.Join(t.TempDir(), "no", "such", "x.db")); err == nil {
		t.Error("missing folder accepted")
	}
}

// TestSQLiteEventsWithoutRaw covers events built in memory rather than
// read from a file.
func TestSQLiteEventsWithoutRaw(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.db")
	w, err := NewSQLiteWriter(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.BeginSession(session.Info{ID: "s1", Title: "t"}); err != nil {
		t.Fatal(err)
	}
	ev := transcript.New("s1", time.Now(), &transcript.ToolResult{Tool: "Grep", Output: "x", IsError: true})
	ev.CallID = "orphan"
	if err := w.Write(ev); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, path)
	if got := count(t, db, `SELECT count(*) FROM events WHERE json_extract(raw, '$.tool') = 'Grep'`); got != 1 {
		t.Errorf("raw of an in-memory event: %d", got)
	}
	if got := count(t, db, `SELECT count(*) FROM tool_calls WHERE call_event_id IS NULL AND is_error = 1`); got != 1 {
		t.Errorf("result without call: %d", got)
	}
	if got := count(t, db, `SELECT failures FROM sessions WHERE id = 's1'`); got != 1 {
		t.Errorf("failures: %d", got)
	}
}
