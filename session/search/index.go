// Package search is the full-text index of every session cuff can read —
// its own, Claude Code's and Codex's — and the queries over it: prompts,
// answers, reasoning, commands and their output, tool inputs and results.
//
// The index is a SQLite database (FTS5) in the user's cache directory. It
// is brought up to date from what was appended to each transcript since
// the last update (files are compared by size and modification time, as
// the listing cache does), rebuilt when it is missing, damaged or of an
// older layout, and safe to use from several cuff processes at once: each
// file's progress is committed with its documents in one transaction and
// only if no other process moved it meanwhile, so a process killed in the
// middle of an update leaves an index that is consistent, and the next
// update goes on from there. Text is redacted as the store redacts before
// it is indexed: the index never holds a secret the store would not.
//
// The index is split into shards, each a database of its own holding the
// sessions whose paths hash to it, so that an update writes them at once
// (SQLite writes one transaction at a time per database, and most of the
// work of indexing is FTS5's, in the writer) and a search asks each.
package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cuff-dev/cuff/transcript/redact"
	"golang.org/x/sys/unix"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// schemaVersion is the layout of the database; an index of another
// version is rebuilt. (2: split into shardCount shards.)
const schemaVersion = 2

// shardCount is how many databases the index is split into; a session
// is in the one its path hashes to (see shardOf), always the same one.
const shardCount = 2

// FTS5's settings: how many bytes of new terms it holds in memory before
// writing them out, and how many segments of one level it lets pile up
// before merging them.
const (
	ftsHashSize  = 16 << 20
	ftsAutomerge = 8
)

// busyTimeout is how long a statement waits for another process's write
// to finish.
const busyTimeout = 10 * time.Second

const schema = `
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions(
	id INTEGER PRIMARY KEY,
	path TEXT NOT NULL UNIQUE,
	source TEXT NOT NULL,
	session TEXT NOT NULL,
	agent TEXT NOT NULL DEFAULT '',
	title TEXT NOT NULL DEFAULT '',
	store TEXT NOT NULL DEFAULT '',
	size INTEGER NOT NULL,
	mtime INTEGER NOT NULL,
	upto INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS docs(
	id INTEGER PRIMARY KEY,
	sess INTEGER NOT NULL,
	kind INTEGER NOT NULL,
	ts INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	failed INTEGER NOT NULL,
	call TEXT,
	tool TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS docs_call ON docs(sess, call) WHERE call IS NOT NULL;
CREATE INDEX IF NOT EXISTS docs_failed_ts ON docs(ts) WHERE failed = 1;
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(body, tokenize='unicode61 remove_diacritics 2');
`

// Index is an open search index.
type Index struct {
	shards []*shard
	path   string
	// Rebuilt says that Open found the index missing, damaged or of an
	// older layout and started it afresh.
	Rebuilt bool
}

// shard is one of the index's databases.
type shard struct {
	db       *sql.DB
	path     string
	redactor *redact.Redactor
}

// shardPath is the file of shard i of the index at path: path itself for
// the first.
func shardPath(path string, i int) string {
	if i == 0 {
		return path
	}
	return path + "." + strconv.Itoa(i)
}

// shardOf is the shard that holds the session in the file at path.
func shardOf(path string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(path)) // a hash's Write never fails
	return int(h.Sum32() % uint32(n))
}

// Open opens the index at path, creating it (and its folder) when it is
// missing and starting a shard afresh when it is damaged or of an older
// layout. Text is redacted with r before it is indexed (nil: not at all).
func Open(ctx context.Context, path string, r *redact.Redactor) (*Index, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()
	x := &Index{path: path}
	for i := range shardCount {
		p := shardPath(path, i)
		_, statErr := os.Stat(p)
		s, err := openShard(ctx, p, r)
		if err != nil && damaged(err) {
			removeDB(p)
			s, err = openShard(ctx, p, r)
			x.Rebuilt = true
		}
		if err != nil {
			x.Close()
			return nil, fmt.Errorf("search index %s: %w", p, err)
		}
		x.Rebuilt = x.Rebuilt || errors.Is(statErr, os.ErrNotExist)
		x.shards = append(x.shards, s)
	}
	return x, nil
}

func openShard(ctx context.Context, path string, r *redact.Redactor) (*shard, error) {
	dsn := "file:" + path + "?_txlock=immediate&_pragma=busy_timeout(" + strconv.Itoa(int(busyTimeout.Milliseconds())) +
		")&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	s := &shard{db: db, path: path, redactor: r}
	if err := s.prepare(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
		db.Close()
		return nil, err
	}
	return s, nil
}

// prepare creates the tables, or starts them afresh when their layout is
// of another version.
func (x *shard) prepare(ctx context.Context) error {
	if _, err := x.db.ExecContext(ctx, schema); err != nil {
		return err
	}
	var v string
	err := x.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'version'`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		// A bigger in-memory buffer of new terms and less eager merging
		// of the index's segments: fewer, bigger writes while indexing.
		if _, err := x.db.ExecContext(ctx, `INSERT INTO fts(fts, rank) VALUES ('hashsize', ?)`, ftsHashSize); err != nil {
			return err
		}
		if _, err := x.db.ExecContext(ctx, `INSERT INTO fts(fts, rank) VALUES ('automerge', ?)`, ftsAutomerge); err != nil {
			return err
		}
		_, err = x.db.ExecContext(ctx, `INSERT OR IGNORE INTO meta(key, value) VALUES ('version', ?)`, strconv.Itoa(schemaVersion))
		return err
	case err != nil:
		return err
	case v != strconv.Itoa(schemaVersion):
		return errOldLayout
	}
	return nil
}

// errOldLayout is an index of another version: it is started afresh.
var errOldLayout = errors.New("the index is of another version")

// damaged reports whether err means the database cannot be used as it is.
func damaged(err error) bool {
	if errors.Is(err, errOldLayout) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_FORMAT:
			return true
		}
	}
	return false
}

// Remove removes the index at path, so that the next Open builds it
// afresh; it waits for any process opening it.
func Remove(path string) {
	if unlock, err := lockFile(path + ".lock"); err == nil {
		defer unlock()
	}
	for i := range shardCount {
		removeDB(shardPath(path, i))
	}
}

// removeDB removes a database and its journal files.
func removeDB(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		_ = os.Remove(p) // a file that is not there is what we want
	}
}

// lockFile takes an exclusive advisory lock on path (created if missing),
// for what must not run in two processes at once: opening and, when
// damaged, rebuilding the database.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// Close closes the index.
func (x *Index) Close() error {
	var errs []error
	for _, s := range x.shards {
		errs = append(errs, s.db.Close())
	}
	return errors.Join(errs...)
}

// Path is the database file.
func (x *Index) Path() string { return x.path }
