package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// An update reads only what was appended; a file rewritten is indexed
// afresh; a session whose file is gone is dropped; an unfinished last
// line waits for its end.
func TestUpdateIncremental(t *testing.T) {
	h := newHistory(t)
	x := openIndex(t, filepath.Join(t.TempDir(), "search.db"))
	update(t, x, h)
	if st := update(t, x, h); st.Sessions != 0 || st.Bytes != 0 {
		t.Fatalf("a second update with nothing new read %+v", st)
	}
	line := claudeLine(handSession, "user", "u9", "2026-02-11T10:00:00.000Z", `{"role":"user","content":"now look at the axolotl cache"}`)
	appendTo(t, h.hand, line[:40])
	if st := update(t, x, h); st.Bytes != 0 || len(search(t, x, Query{Text: "axolotl"})) != 0 {
		t.Fatalf("a line still being written was indexed: %+v", st)
	}
	appendTo(t, h.hand, line[40:])
	st := update(t, x, h)
	if st.Sessions != 1 || st.Bytes != int64(len(line)) {
		t.Fatalf("after one line appended, the update read %+v, want %d bytes of one session", st, len(line))
	}
	if hits := search(t, x, Query{Text: "axolotl"}); len(hits) != 1 || hits[0].Kind != KindPrompt {
		t.Fatalf("the appended prompt:\n%s", describe(hits))
	}
	if n := len(search(t, x, Query{Text: "zebracorn"})); n != 1 {
		t.Fatalf("the first prompt found %d times after the append", n)
	}
	// rewritten shorter: the old texts go
	data, err := os.ReadFile(h.hand)
	if err != nil {
		t.Fatal(err)
	}
	first := strings.SplitAfter(string(data), "\n")[0]
	if err := os.WriteFile(h.hand, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	update(t, x, h)
	if n, m := len(search(t, x, Query{Text: "zebracorn"})), len(search(t, x, Query{Text: "axolotl"})); n != 1 || m != 0 {
		t.Fatalf("after a rewrite: zebracorn %d, axolotl %d hits", n, m)
	}
	if err := os.Remove(h.hand); err != nil {
		t.Fatal(err)
	}
	if st := update(t, x, h); st.Removed != 1 || len(search(t, x, Query{Text: "zebracorn"})) != 0 {
		t.Fatalf("after removing the session: %+v", st)
	}
}

// A failed run marks its command failed, also when the command was
// indexed by an earlier update.
func TestFailedAcrossUpdates(t *testing.T) {
	h := newHistory(t)
	x := openIndex(t, filepath.Join(t.TempDir(), "search.db"))
	update(t, x, h)
	appendTo(t, h.hand, claudeLine(handSession, "assistant", "a9", "2026-02-11T10:00:00.000Z",
		`{"id":"msg_9","role":"assistant","content":[{"type":"tool_use","id":"toolu_9","name":"Bash","input":{"command":"make capybara"}}]}`))
	update(t, x, h)
	if hits := search(t, x, Query{Text: "failed:capybara"}); len(hits) != 0 {
		t.Fatalf("failed before it ran:\n%s", describe(hits))
	}
	appendTo(t, h.hand, claudeLine(handSession, "user", "r9", "2026-02-11T10:00:04.000Z",
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":"Exit code 2\nmake: *** no rule","is_error":true}]}`))
	update(t, x, h)
	hits := search(t, x, Query{Text: "failed:capybara"})
	if len(hits) != 1 || hits[0].Kind != KindCommand {
		t.Fatalf("the failed command:\n%s", describe(hits))
	}
}

// A damaged index file is started afresh; so is one of another layout.
func TestOpenRebuildsDamagedIndex(t *testing.T) {
	h := newHistory(t)
	path := filepath.Join(t.TempDir(), "search.db")
	x := openIndex(t, path)
	if !x.Rebuilt {
		t.Error("a new index is not reported as built afresh")
	}
	update(t, x, h)
	x.Close()
	for i := range shardCount { // every shard damaged
		p := shardPath(path, i)
		if err := os.WriteFile(p, []byte(strings.Repeat("not a database ", 1000)), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Remove(p + "-wal")
	}
	y := openIndex(t, path)
	if !y.Rebuilt {
		t.Fatal("a damaged index is not reported rebuilt")
	}
	update(t, y, h)
	if n := len(search(t, y, Query{Text: "zebracorn"})); n != 1 {
		t.Fatalf("after the rebuild: %d hits", n)
	}
	if _, err := y.shards[shardCount-1].db.Exec(`UPDATE meta SET value = '0' WHERE key = 'version'`); err != nil {
		t.Fatal(err)
	}
	y.Close()
	z := openIndex(t, path)
	if !z.Rebuilt {
		t.Fatal("an index of another layout is kept")
	}
}

// Two writers at once (two processes, each its own connection) index each
// text once.
func TestConcurrentUpdates(t *testing.T) {
	h := newHistory(t)
	path := filepath.Join(t.TempDir(), "search.db")
	a, b := openIndex(t, path), openIndex(t, path)
	var wg sync.WaitGroup
	for _, x := range []*Index{a, b} {
		wg.Go(func() {
			files, _ := Files(context.Background(), h.sources(), "")
			if _, err := x.Update(context.Background(), files, UpdateOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	ref := openIndex(t, filepath.Join(t.TempDir(), "ref.db"))
	update(t, ref, h)
	for _, q := range []string{"zebracorn", "the", "failed:", "cmd:go"} {
		got, want := search(t, a, Query{Text: q, Limit: 100000}), search(t, ref, Query{Text: q, Limit: 100000})
		if len(got) != len(want) {
			t.Errorf("%q: %d hits after two writers, %d after one", q, len(got), len(want))
		}
	}
}

// Sessions are spread over every shard, each in the one its path hashes
// to, and a search finds texts in all of them.
func TestShardsShareTheSessions(t *testing.T) {
	h := newHistory(t)
	x := openIndex(t, filepath.Join(t.TempDir(), "search.db"))
	update(t, x, h)
	for i, s := range x.shards {
		rows, err := s.rows(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) == 0 {
			t.Errorf("shard %d holds no session", i)
		}
		for path := range rows {
			if shardOf(path, shardCount) != i {
				t.Errorf("%s is in shard %d, not %d", path, i, shardOf(path, shardCount))
			}
		}
	}
	in := map[int]bool{}
	for _, hit := range search(t, x, Query{Text: "the", Limit: 100000}) {
		in[shardOf(hit.Path, shardCount)] = true
	}
	if len(in) != shardCount {
		t.Errorf("hits from %d shards of %d", len(in), shardCount)
	}
}
