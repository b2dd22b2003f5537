package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
)

// readCounter is a source that counts the sessions read through it, and
// reads them whole (it hides any FiguresReader of the source it wraps).
type readCounter struct {
	Source
	reads atomic.Int64
}

func (r *readCounter) Read(ctx context.Context, id string, fn func(*transcript.Event) error) error {
	r.reads.Add(1)
	return r.Source.Read(ctx, id, fn)
}

func statsJSON(t *testing.T, st *CommandStats) string {
	t.Helper()
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Statistics read briefly (FiguresReader) equal those read whole; a
// session's figures are read once and then come from the cache until
// its file changes, and a session removed meanwhile is left out.
func TestStatsCachedPerSession(t *testing.T) {
	dir, paths := writeHistory(t, 400<<10, 1<<20, 150<<10)
	src := ClaudeSource(dir, "")
	infos, err := src.List(context.Background())
	if err != nil || len(infos) != 3 {
		t.Fatal(err, len(infos))
	}
	whole := &readCounter{Source: src}
	want, err := StatsOf(context.Background(), []Source{whole}, infos, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want.Commands == 0 || want.Failed == 0 || want.Tokens.Total() == 0 || len(want.Frequency) < 3 {
		t.Fatalf("the history has too little to compare: %+v", want)
	}
	brief, err := StatsOf(context.Background(), []Source{src}, infos, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := statsJSON(t, brief), statsJSON(t, want); a != b {
		t.Fatalf("brief read:\n%s\nwhole read:\n%s", a, b)
	}

	cachePath := filepath.Join(t.TempDir(), "cache", "stats.json")
	counted := &readCounter{Source: src}
	for run := 1; run <= 2; run++ {
		st, err := StatsOf(context.Background(), []Source{counted}, infos, OpenStatsCache(cachePath))
		if err != nil {
			t.Fatal(err)
		}
		if a, b := statsJSON(t, st), statsJSON(t, want); a != b {
			t.Fatalf("run %d:\n%s\nwant\n%s", run, a, b)
		}
	}
	if n := counted.reads.Load(); n != 3 {
		t.Fatalf("two runs read %d sessions, want each of the 3 once", n)
	}

	// One session grows, one goes: only the grown one is read again.
	f, err := os.OpenFile(paths[0], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"summary","summary":"more","leafUuid":"x"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Remove(paths[2]); err != nil {
		t.Fatal(err)
	}
	counted.reads.Store(0)
	st, err := StatsOf(context.Background(), []Source{counted}, infos, OpenStatsCache(cachePath))
	if err != nil {
		t.Fatal(err)
	}
	if n := counted.reads.Load(); n != 2 { // the grown one, and the removed one found missing
		t.Fatalf("read %d sessions after one grew and one went, want 2", n)
	}
	if st.Commands >= want.Commands || st.Sessions != 3 {
		t.Fatalf("after removing a session: %d commands of %d", st.Commands, want.Commands)
	}
}

// A damaged cache file is ignored and replaced.
func TestStatsCacheDamaged(t *testing.T) {
	dir, _ := writeHistory(t, 100<<10)
	src := ClaudeSource(dir, "")
	infos, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	cachePath := filepath.Join(t.TempDir(), "stats.json")
	if err := os.WriteFile(cachePath, []byte(`{"/x": {"size": "not a number"`), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := StatsOf(context.Background(), []Source{src}, infos, OpenStatsCache(cachePath))
	if err != nil || st.Commands == 0 {
		t.Fatal(err, st)
	}
	var entries map[string]statsEntry
	data, _ := os.ReadFile(cachePath)
	if err := json.Unmarshal(data, &entries); err != nil || len(entries) != 1 {
		t.Fatalf("cache after a damaged one: %v, %d entries", err, len(entries))
	}
}

// What a listing counts serves the statistics: after Fill, record stats
// reads no session again, and its figures are those of a read of its own.
func TestFillKeepsFigures(t *testing.T) {
	dir, _ := writeHistory(t, 400<<10, 1<<20)
	cachePath := filepath.Join(t.TempDir(), "stats.json")
	src := ClaudeSource(dir, "")
	src.Figures = OpenStatsCache(cachePath)
	infos, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Fill(context.Background(), infos); err != nil {
		t.Fatal(err)
	}
	counted := &readCounter{Source: src}
	got, err := StatsOf(context.Background(), []Source{counted}, infos, OpenStatsCache(cachePath))
	if err != nil {
		t.Fatal(err)
	}
	if n := counted.reads.Load(); n != 0 {
		t.Fatalf("record stats after a listing read %d sessions again", n)
	}
	want, err := StatsOf(context.Background(), []Source{ClaudeSource(dir, "")}, infos, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := statsJSON(t, got), statsJSON(t, want); a != b || want.Commands == 0 {
		t.Fatalf("from the listing's pass:\n%s\nread again:\n%s", a, b)
	}
}
