package session

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/synthetic"
)

// benchHistories holds the folders benchHistory wrote, by size: they live
// as long as the test binary (TestMain removes them), since a benchmark's
// own TempDir is gone when it ends and the next benchmark would read an
// empty folder (BenchmarkStatsCold after BenchmarkFillClaude did).
var benchHistories sync.Map

// removeBenchHistories removes what benchHistory wrote.
func removeBenchHistories() {
	benchHistories.Range(func(_, dir any) bool {
		os.RemoveAll(filepath.Dir(dir.(string)))
		return true
	})
}

// benchHistory writes a Claude Code history of n sessions, about mb
// megabytes in all, once per process, and returns its folder.
func benchHistory(b *testing.B, n int, mb int64) string {
	b.Helper()
	key := [2]int64{int64(n), mb}
	if dir, ok := benchHistories.Load(key); ok {
		return dir.(string)
	}
	root, err := os.MkdirTemp("", "cuff-bench-history-")
	if err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(root, "claude")
	end := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if _, err := synthetic.ClaudeHistory(dir, synthetic.HistoryOptions{Sessions: n, Bytes: mb << 20, End: end, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	benchHistories.Store(key, dir)
	return dir
}

// BenchmarkFillClaude counts 100 Claude Code sessions (about 100 MB) with
// an empty cache: what the first `record list --source claude` does.
func BenchmarkFillClaude(b *testing.B) {
	dir := benchHistory(b, 100, 100)
	var size int64
	for b.Loop() {
		src := ClaudeSource(dir, "")
		infos, err := src.List(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, in := range infos {
			size += in.SizeBytes
		}
		if err := src.Fill(context.Background(), infos); err != nil {
			b.Fatal(err)
		}
		for _, in := range infos {
			if in.Events == Unknown {
				b.Fatalf("%s not counted", in.ID)
			}
		}
	}
	b.SetBytes(size)
}
