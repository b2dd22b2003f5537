package search

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
)

// Query is a search.
type Query struct {
	// Text is the query as typed (see parseQuery for its syntax).
	Text string
	// Sources keeps to sessions of these sources (cuff, claude, codex);
	// empty for all.
	Sources []string
	// Since keeps to texts from this time on; zero for all.
	Since time.Time
	// Agent keeps to sessions of agents whose name contains it.
	Agent string
	// Kinds keeps to these kinds of text; empty for all.
	Kinds []Kind
	// Store is the store folder whose own sessions are searched (cuff's
	// sessions of other projects, indexed by searches run there, are not).
	Store string
	// Limit is how many hits to return (0: DefaultLimit).
	Limit int
	// Now is when the search runs, for ranking by age; zero for time.Now.
	Now time.Time
}

// DefaultLimit is how many hits a search returns unless told.
const DefaultLimit = 20

// Hit is one text that matched.
type Hit struct {
	SessionID string
	Source    string
	Agent     string
	Title     string
	Path      string // the session's file
	Kind      Kind
	Time      time.Time
	Seq       int64 // the event's seq: exact for cuff's own sessions
	Failed    bool
	Tool      string
	// Snippet is the matching part of the text on one line, and
	// Highlights the byte ranges of it that matched.
	Snippet    string
	Highlights [][2]int
}

// Snippet markers: what FTS5 puts around the words that matched.
const (
	markOpen  = "\x02"
	markClose = "\x03"
)

// snippetTokens is about how many words a snippet has.
const snippetTokens = 24

// ageScale is the age at which a hit's relevance counts half: ranking
// weighs relevance (bm25) and recency.
const ageScale = 30 * 24 * time.Hour

// candidates is how many of the most recent matches a query ranks (each
// shard's share of them: its most recent): a word found in half the
// history is ranked among its recent uses, so that every query costs
// about the same.
const candidates = 500

// Search runs a query; hits come best first, by relevance (BM25) and
// recency, among the most recent matches (see candidates).
func (x *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	p, err := parseQuery(q.Text)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	var where []string
	var args []any
	if p.match != "" {
		where = append(where, "fts MATCH ?")
		args = append(args, p.match)
	}
	kinds := p.kinds
	if len(q.Kinds) > 0 {
		kinds = intersectKinds(kinds, q.Kinds)
		if len(kinds) == 0 {
			return nil, nil // asked for kinds the query leaves out
		}
	}
	if len(kinds) > 0 {
		where = append(where, "d.kind IN ("+placeholders(len(kinds))+")")
		for _, k := range kinds {
			args = append(args, int(k))
		}
	}
	if p.failed {
		where = append(where, "d.failed = 1")
	}
	if !q.Since.IsZero() {
		where = append(where, "d.ts >= ?")
		args = append(args, q.Since.UnixNano())
	}
	if len(q.Sources) > 0 {
		where = append(where, "s.source IN ("+placeholders(len(q.Sources))+")")
		for _, s := range q.Sources {
			args = append(args, s)
		}
	}
	if q.Agent != "" {
		where = append(where, "instr(lower(s.agent), lower(?)) > 0")
		args = append(args, q.Agent)
	}
	where = append(where, "(s.store = '' OR s.store = ?)")
	args = append(args, q.Store)
	var query string
	if p.match != "" {
		query = `SELECT d.id, bm25(fts), s.session, s.source, s.agent, s.title, s.path, d.kind, d.ts, d.seq, d.failed, d.tool
FROM fts JOIN docs d ON d.id = fts.rowid JOIN sessions s ON s.id = d.sess
WHERE ` + strings.Join(where, " AND ") + ` ORDER BY fts.rowid DESC LIMIT ?`
		args = append(args, candidates/len(x.shards))
	} else {
		query = `SELECT d.id, 0, s.session, s.source, s.agent, s.title, s.path, d.kind, d.ts, d.seq, d.failed, d.tool
FROM docs d JOIN sessions s ON s.id = d.sess
WHERE ` + strings.Join(where, " AND ") + ` ORDER BY d.ts DESC LIMIT ?`
		args = append(args, limit)
	}
	// The shards are asked at once, each on its own connection.
	per := make([][]scored, len(x.shards))
	errs := make([]error, len(x.shards))
	var wg sync.WaitGroup
	for i, s := range x.shards {
		wg.Go(func() { per[i], errs[i] = s.candidates(ctx, i, query, args) })
	}
	wg.Wait()
	var found []scored
	for i := range per {
		if errs[i] != nil {
			return nil, errs[i]
		}
		found = append(found, per[i]...)
	}
	// Best first; among equals (every hit of a search without words),
	// the newest first.
	age := func(h *scored) float64 { return max(0, float64(now.Sub(h.Time))) / float64(ageScale) }
	sort.SliceStable(found, func(i, j int) bool {
		a, b := found[i].score/(1+age(&found[i])), found[j].score/(1+age(&found[j]))
		if a != b {
			return a < b
		}
		return found[i].Time.After(found[j].Time)
	})
	found = found[:min(len(found), limit)]
	snippets := map[[2]int64]string{}
	for i, s := range x.shards {
		var of []scored
		for _, h := range found {
			if h.shard == i {
				of = append(of, h)
			}
		}
		if err := s.snippets(ctx, of, p.match, snippets); err != nil {
			return nil, err
		}
	}
	hits := make([]Hit, len(found))
	for i, h := range found {
		hits[i] = h.Hit
		hits[i].Snippet, hits[i].Highlights = oneLine(snippets[[2]int64{int64(h.shard), h.id}])
	}
	return hits, nil
}

// scored is a match with its relevance (BM25: lower is better), its text
// id in its shard.
type scored struct {
	Hit
	shard int
	id    int64
	score float64
}

// candidates runs a search's query in shard number n.
func (x *shard) candidates(ctx context.Context, n int, query string, args []any) ([]scored, error) {
	rows, err := x.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var out []scored
	for rows.Next() {
		h := scored{shard: n}
		var kind int
		var ts int64
		if err := rows.Scan(&h.id, &h.score, &h.SessionID, &h.Source, &h.Agent, &h.Title, &h.Path, &kind, &ts, &h.Seq, &h.Failed, &h.Tool); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		h.Kind, h.Time = Kind(kind), time.Unix(0, ts).UTC()
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return out, nil
}

// snippetStart is how much of a text a hit without words to show (a
// filter alone, such as failed:) shows.
const snippetStart = 300

// snippets puts in out, by shard and id, the parts of the texts of hits
// (of this shard) around what matched, the matches marked; each text's
// start when nothing was searched for.
// One query finds them all: the match is evaluated once over the range of
// ids the hits span (the hits' ids are compared after, not looked up one
// by one, each of which would evaluate the match again: a prefix, OR or
// NOT query costs a whole evaluation each time). A text dropped meanwhile
// has none.
func (x *shard) snippets(ctx context.Context, hits []scored, match string, out map[[2]int64]string) error {
	if len(hits) == 0 {
		return nil
	}
	lo, hi := hits[0].id, hits[0].id
	args := make([]any, 0, len(hits)+4)
	for _, h := range hits {
		lo, hi = min(lo, h.id), max(hi, h.id)
	}
	var query string
	if match == "" {
		// No match to evaluate: each text is looked up by its id.
		query = `SELECT rowid, substr(body, 1, ?) FROM fts WHERE rowid IN (` + placeholders(len(hits)) + `)`
		args = append(args, snippetStart)
	} else {
		query = fmt.Sprintf(`SELECT rowid, snippet(fts, 0, '%s', '%s', '…', %d) FROM fts WHERE fts MATCH ? AND rowid >= ? AND rowid <= ? AND +rowid IN (`,
			markOpen, markClose, snippetTokens) + placeholders(len(hits)) + `)`
		args = append(args, match, lo, hi)
	}
	for _, h := range hits {
		args = append(args, h.id)
	}
	rows, err := x.db.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		out[[2]int64{int64(hits[0].shard), id}] = s
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return nil
}

func intersectKinds(a, b []Kind) []Kind {
	if len(a) == 0 {
		return b
	}
	var out []Kind
	for _, k := range a {
		for _, l := range b {
			if k == l {
				out = append(out, k)
			}
		}
	}
	return out
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// oneLine makes a snippet one line of plain text that is safe to print
// (line breaks, control and bidirectional-control characters become
// spaces, runs of spaces one) and finds where the match markers were.
func oneLine(s string) (string, [][2]int) {
	var b strings.Builder
	var marks [][2]int
	open := -1
	space := false
	flush := func() {
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
	}
	for _, r := range s {
		switch {
		case string(r) == markOpen:
			flush()
			open = b.Len()
		case string(r) == markClose:
			if open >= 0 {
				marks = append(marks, [2]int{open, b.Len()})
				open = -1
			}
		case unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			space = true
		default:
			flush()
			b.WriteRune(r)
		}
	}
	return b.String(), marks
}
