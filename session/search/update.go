package search

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// File is one session's transcript as the index knows it.
type File struct {
	Path    string
	Source  string // cuff, claude, codex
	Session string // the session's id
	Agent   string
	Title   string
	// Store is the store folder of one of cuff's own sessions; "" for the
	// others. A search sees the sessions of one store (the project's).
	Store string
}

// Files lists the sessions of sources as the index needs them; store is
// the folder of the native source's store ("" when there is none). An
// agent's folder is only walked (its files' names and sizes are all an
// update needs: a session's id, agent and title come from its start when
// it is indexed); the native store is listed. A source that cannot be
// listed is reported and passed over.
func Files(ctx context.Context, sources []session.Source, store string) ([]File, []error) {
	var out []File
	var errs []error
	for _, src := range sources {
		if f, ok := src.(*session.FolderSource); ok {
			paths, err := f.Paths(ctx)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", src.Name(), err))
				continue
			}
			for _, p := range paths {
				out = append(out, File{Path: p, Source: src.Name(), Session: f.IDOf(p)})
			}
			continue
		}
		infos, err := src.List(ctx)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", src.Name(), err))
			continue
		}
		for _, in := range infos {
			if in.Path == "" {
				continue
			}
			f := File{Path: in.Path, Source: in.Source, Session: in.ID, Agent: in.Agent, Title: in.Title}
			if in.Source == session.NativeSourceName {
				f.Store = store
			}
			out = append(out, f)
		}
	}
	return out, errs
}

// UpdateStats is what an update did.
type UpdateStats struct {
	Sessions int   // sessions whose new text was indexed
	Bytes    int64 // transcript bytes read
	Docs     int   // texts indexed
	Removed  int   // sessions whose files are gone, dropped
	Lost     int   // sessions another process indexed first, left to it
}

// UpdateOptions tunes an update.
type UpdateOptions struct {
	// Progress is told, now and then, how many of the bytes to read have
	// been indexed.
	Progress func(done, total int64)
}

// chunkBytes is about how much of a transcript one write holds: a big
// file is indexed a part at a time, each part committed with how far it
// got, so that memory stays bounded and a killed update loses little.
const chunkBytes = 4 << 20

// row is what the index holds of a session's file.
type row struct {
	id          int64
	size, mtime int64
	upto        int64
}

// task is one file to bring up to date.
type task struct {
	file  File
	size  int64
	mtime int64
	from  int64 // where to read from
	row   *row  // what the index holds; nil for a file new to it
	reset bool  // the file was rewritten: its texts are dropped first
	lost  atomic.Bool
	id    int64 // the session's row once a part is written (the writer's)
}

// batch is a part of a file, decoded: the texts to add and how far the
// file is indexed once they are in.
type batch struct {
	t       *task
	from    int64 // the file is indexed up to here before this batch
	upto    int64
	docs    []doc
	failed  []string          // calls of commands indexed before whose run failed
	start   *transcript.Event // the session's start, read from the file's first part
	last    bool
	readErr error
}

// Update brings the index up to date with files: what was appended to
// each since the last update is read and indexed, a file that was
// rewritten is indexed afresh, and the sessions whose files are gone are
// dropped. The shards are updated at once, each with its own writer;
// files are read several at a time (one per processor per shard) and
// written a part (about chunkBytes) per transaction.
func (x *Index) Update(ctx context.Context, files []File, opts UpdateOptions) (UpdateStats, error) {
	parts := make([][]File, len(x.shards))
	for _, f := range files {
		i := shardOf(f.Path, len(x.shards))
		parts[i] = append(parts[i], f)
	}
	plans := make([]*shardPlan, len(x.shards))
	var total int64
	for i, s := range x.shards {
		p, err := s.plan(ctx, parts[i])
		if err != nil {
			return UpdateStats{}, err
		}
		plans[i], total = p, total+p.total
	}
	var mu sync.Mutex
	var done int64
	progress := func(n int64) {
		mu.Lock()
		defer mu.Unlock()
		done += n
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	stats := make([]UpdateStats, len(x.shards))
	errs := make([]error, len(x.shards))
	var wg sync.WaitGroup
	for i, s := range x.shards {
		wg.Go(func() { stats[i], errs[i] = s.apply(ctx, plans[i], progress) })
	}
	wg.Wait()
	var st UpdateStats
	for _, s := range stats {
		st.Sessions += s.Sessions
		st.Bytes += s.Bytes
		st.Docs += s.Docs
		st.Removed += s.Removed
		st.Lost += s.Lost
	}
	for _, err := range errs {
		if err != nil {
			return st, err // the first shard's: a cancelled update says so once
		}
	}
	return st, nil
}

// shardPlan is what an update of one shard has to do.
type shardPlan struct {
	tasks []*task
	gone  []string
	rows  map[string]*row
	total int64 // bytes to read
}

// plan compares the shard's files with what it holds.
func (x *shard) plan(ctx context.Context, files []File) (*shardPlan, error) {
	rows, err := x.rows(ctx)
	if err != nil {
		return nil, err
	}
	p := &shardPlan{rows: rows}
	p.tasks, p.gone = plan(files, rows)
	for _, t := range p.tasks {
		p.total += t.size - t.from
	}
	return p, nil
}

// apply carries out a shard's plan, telling progress how many bytes of
// it each part written covers.
func (x *shard) apply(ctx context.Context, p *shardPlan, progress func(int64)) (UpdateStats, error) {
	var st UpdateStats
	for _, path := range p.gone {
		if err := x.drop(ctx, path, p.rows[path].id); err != nil {
			return st, err
		}
		st.Removed++
	}
	tasks := p.tasks
	batches := make(chan *batch, 2*runtime.GOMAXPROCS(0))
	work := make(chan *task)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Go(func() {
			for t := range work {
				x.read(ctx, t, batches)
			}
		})
	}
	go func() {
		defer close(batches)
		defer wg.Wait()
		defer close(work)
		for _, t := range tasks {
			select {
			case work <- t:
			case <-ctx.Done():
				return
			}
		}
	}()
	var werr error
	w := &writer{x: x}
	defer w.rollback()
	for b := range batches {
		if werr != nil || b.t.lost.Load() {
			continue // drain: the readers stop at their next part
		}
		if b.readErr != nil {
			werr = b.readErr
			continue
		}
		ok, err := w.add(ctx, b)
		switch {
		case err != nil:
			werr = err
		case !ok:
			b.t.lost.Store(true)
			st.Lost++
		default:
			st.Docs += len(b.docs)
			st.Bytes += b.upto - b.from
			if b.last {
				st.Sessions++
			}
		}
		progress(b.upto - b.from)
	}
	if werr == nil {
		werr = w.commit()
	}
	if werr == nil {
		werr = ctx.Err()
	}
	return st, werr
}

// Grouping of writes: parts are written in one transaction until it holds
// about groupBytes of transcript or is groupTime old. Fewer, bigger
// transactions let FTS5 write fewer, bigger segments (less merging), and
// a killed update still loses only what was not committed.
const (
	groupBytes = 32 << 20
	groupTime  = 2 * time.Second
)

// writer writes parts in transactions of several.
type writer struct {
	x     *shard
	tx    *sql.Tx
	bytes int64
	since time.Time
}

// add writes a part (see write), committing when the transaction is full.
func (w *writer) add(ctx context.Context, b *batch) (bool, error) {
	if w.tx == nil {
		tx, err := w.x.db.BeginTx(ctx, nil)
		if err != nil {
			return false, fmt.Errorf("search index: %w", err)
		}
		w.tx, w.bytes, w.since = tx, 0, time.Now()
	}
	ok, err := w.x.write(ctx, w.tx, b)
	if err != nil {
		return false, err
	}
	w.bytes += b.upto - b.from
	if w.bytes >= groupBytes || time.Since(w.since) >= groupTime {
		return ok, w.commit()
	}
	return ok, nil
}

// commit commits the open transaction, if any.
func (w *writer) commit() error {
	if w.tx == nil {
		return nil
	}
	err := w.tx.Commit()
	w.tx = nil
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return nil
}

// rollback drops what was not committed (after a failure).
func (w *writer) rollback() {
	if w.tx != nil {
		_ = w.tx.Rollback() // the failure that led here is what is reported
		w.tx = nil
	}
}

// plan compares the files with what the index holds: the tasks to run,
// oldest file first, and the paths of sessions whose files are gone.
func plan(files []File, rows map[string]*row) ([]*task, []string) {
	var tasks []*task
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		if seen[f.Path] {
			continue
		}
		seen[f.Path] = true
		fi, err := os.Stat(f.Path)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		t := &task{file: f, size: fi.Size(), mtime: fi.ModTime().UnixNano(), row: rows[f.Path]}
		switch r := t.row; {
		case r == nil:
		case r.size == t.size && r.mtime == t.mtime:
			continue // unchanged
		case t.size < r.upto || t.size == r.size:
			t.reset = true // rewritten: shorter, or changed without growing
		default:
			t.from = r.upto // grown: read what was appended
		}
		tasks = append(tasks, t)
	}
	sort.SliceStable(tasks, func(i, j int) bool { return tasks[i].mtime < tasks[j].mtime })
	var gone []string
	for path := range rows {
		if _, err := os.Stat(path); !seen[path] && errors.Is(err, os.ErrNotExist) {
			gone = append(gone, path)
		}
	}
	sort.Strings(gone)
	return tasks, gone
}

// rows loads what the index holds of each file.
func (x *shard) rows(ctx context.Context) (map[string]*row, error) {
	rs, err := x.db.QueryContext(ctx, `SELECT id, path, size, mtime, upto FROM sessions`)
	if err != nil {
		return nil, fmt.Errorf("search index: %w", err)
	}
	defer rs.Close()
	out := map[string]*row{}
	for rs.Next() {
		var r row
		var path string
		if err := rs.Scan(&r.id, &path, &r.size, &r.mtime, &r.upto); err != nil {
			return nil, fmt.Errorf("search index: %w", err)
		}
		out[path] = &r
	}
	return out, rs.Err()
}

// read decodes a task's file from where it is indexed up to its last whole
// line, a part at a time, and sends the parts to be written.
func (x *shard) read(ctx context.Context, t *task, out chan<- *batch) {
	send := func(b *batch) bool {
		select {
		case out <- b:
			return true
		case <-ctx.Done():
			return false
		}
	}
	f, err := os.Open(t.file.Path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			send(&batch{t: t, readErr: fmt.Errorf("index %s: %w", t.file.Path, err)})
		}
		return
	}
	defer f.Close()
	dec, err := newLineDecoder(f, t.file.Path)
	if err != nil {
		send(&batch{t: t, readErr: err})
		return
	}
	ex := newExtractor(x.redactor)
	lines := transcript.NewLineReader(io.NewSectionReader(f, t.from, t.size-t.from))
	b := &batch{t: t, from: t.from, upto: t.from}
	emit := func(ev *transcript.Event) error {
		if _, ok := ev.Body.(*transcript.SessionStart); ok && b.from == 0 && b.start == nil {
			b.start = ev
		}
		docs, failed := ex.docs(ev)
		b.docs = append(b.docs, docs...)
		if failed != "" {
			b.failed = append(b.failed, failed)
		}
		return nil
	}
	for {
		if t.lost.Load() || ctx.Err() != nil {
			return
		}
		line, complete, err := lines.Next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) {
			break // the end, or a last line still being written: left for the next update
		}
		if err != nil {
			send(&batch{t: t, readErr: fmt.Errorf("index %s: %w", t.file.Path, err)})
			return
		}
		b.upto += int64(len(line)) + 1
		if line = bytes.TrimSpace(line); len(line) > 0 {
			_ = dec.line(line, emit) // emit never fails; bad lines are passed over
		}
		if b.upto-b.from >= chunkBytes {
			_ = dec.flush(emit)
			if !send(b) {
				return
			}
			b = &batch{t: t, from: b.upto, upto: b.upto}
		}
	}
	_ = dec.flush(emit)
	b.last = true
	send(b)
}

// lineDecoder decodes lines of any transcript: cuff's own, Claude Code's
// or Codex's, told from its first line.
type lineDecoder struct {
	foreign session.TranscriptDecoder // nil for cuff's own
}

func newLineDecoder(f *os.File, path string) (*lineDecoder, error) {
	head := make([]byte, foreign.HeadSize)
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("index %s: %w", path, err)
	}
	return &lineDecoder{foreign: session.NewTranscriptDecoder(foreign.Detect(head[:n]), path, clip)}, nil
}

func (d *lineDecoder) line(line []byte, emit func(*transcript.Event) error) error {
	if d.foreign != nil {
		return d.foreign.Line(line, emit)
	}
	ev, err := transcript.Decode(stream.Clip(nil, line, clip.Head, clip.Tail))
	if err != nil {
		return nil
	}
	return emit(ev)
}

func (d *lineDecoder) flush(emit func(*transcript.Event) error) error {
	if d.foreign != nil {
		return d.foreign.Flush(emit)
	}
	return nil
}

// write adds a batch in transaction tx, if the file is still indexed up
// to where the batch starts, as the update found it (another process may
// have gone on meanwhile: then nothing is written and write reports
// false, and the rest of the file is left to that process).
func (x *shard) write(ctx context.Context, tx *sql.Tx, b *batch) (bool, error) {
	t := b.t
	var r row
	err := tx.QueryRowContext(ctx, `SELECT id, size, mtime, upto FROM sessions WHERE path = ?`, t.file.Path).Scan(&r.id, &r.size, &r.mtime, &r.upto)
	exists := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, fmt.Errorf("search index: %w", err)
	}
	switch {
	case t.id == 0 && t.row == nil: // the first part of a file new to the index
		if exists {
			return false, nil
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO sessions(path, source, session, agent, title, store, size, mtime, upto) VALUES (?, ?, ?, ?, ?, ?, -1, -1, 0)`,
			t.file.Path, t.file.Source, t.file.Session, t.file.Agent, t.file.Title, t.file.Store)
		if err != nil {
			return false, fmt.Errorf("search index: %w", err)
		}
		if r.id, err = res.LastInsertId(); err != nil {
			return false, fmt.Errorf("search index: %w", err)
		}
	case t.id == 0: // the first part of a file the index knew
		if !exists || r != *t.row {
			return false, nil
		}
		if t.reset {
			if err := dropDocs(ctx, tx, r.id); err != nil {
				return false, err
			}
		}
	default:
		if !exists || r.id != t.id || r.upto != b.from {
			return false, nil
		}
	}
	if err := insertDocs(ctx, tx, r.id, b.docs); err != nil {
		return false, err
	}
	for _, call := range b.failed {
		if _, err := tx.ExecContext(ctx, `UPDATE docs SET failed = 1 WHERE sess = ? AND call = ? AND kind = ?`, r.id, call, int(KindCommand)); err != nil {
			return false, fmt.Errorf("search index: %w", err)
		}
	}
	size, mtime := t.size, t.mtime
	if !b.last {
		size, mtime = -1, -1 // not up to date until the last part is in
	}
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET size = ?, mtime = ?, upto = ?, store = ? WHERE id = ?`,
		size, mtime, b.upto, t.file.Store, r.id); err != nil {
		return false, fmt.Errorf("search index: %w", err)
	}
	if err := nameSession(ctx, tx, r.id, t.file, b.start); err != nil {
		return false, err
	}
	t.id = r.id
	return true, nil
}

// nameSession records a session's id, agent and title: those its start
// event says (read with the file's first part), else those of its listing.
func nameSession(ctx context.Context, tx *sql.Tx, id int64, f File, start *transcript.Event) error {
	if start != nil {
		if s, ok := start.Body.(*transcript.SessionStart); ok {
			if start.SessionID != "" {
				f.Session = start.SessionID
			}
			if s.Agent != "" {
				f.Agent = s.Agent
			}
			if s.Title != "" {
				f.Title = s.Title
			}
		}
	}
	query := `UPDATE sessions SET session = ?, agent = CASE WHEN ? = '' THEN agent ELSE ? END, title = CASE WHEN ? = '' THEN title ELSE ? END WHERE id = ?`
	if _, err := tx.ExecContext(ctx, query, f.Session, f.Agent, f.Agent, f.Title, f.Title, id); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return nil
}

// insertDocs adds texts of session sess.
func insertDocs(ctx context.Context, tx *sql.Tx, sess int64, docs []doc) error {
	if len(docs) == 0 {
		return nil
	}
	insDoc, err := tx.PrepareContext(ctx, `INSERT INTO docs(sess, kind, ts, seq, failed, call, tool) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	defer insDoc.Close()
	insText, err := tx.PrepareContext(ctx, `INSERT INTO fts(rowid, body) VALUES (?, ?)`)
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	defer insText.Close()
	for _, d := range docs {
		var call any
		if d.call != "" {
			call = d.call
		}
		res, err := insDoc.ExecContext(ctx, sess, int(d.kind), d.ts, d.seq, d.failed, call, d.tool)
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("search index: %w", err)
		}
		if _, err := insText.ExecContext(ctx, id, d.text); err != nil {
			return fmt.Errorf("search index: %w", err)
		}
	}
	return nil
}

// dropDocs removes every text of session sess.
func dropDocs(ctx context.Context, tx *sql.Tx, sess int64) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE sess = ?)`, sess); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM docs WHERE sess = ?`, sess); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return nil
}

// drop removes a session whose file is gone.
func (x *shard) drop(ctx context.Context, path string, id int64) error {
	tx, err := x.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after a commit it does nothing
	if err := dropDocs(ctx, tx, id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ? AND path = ?`, id, path); err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return tx.Commit()
}
