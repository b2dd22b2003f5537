package session

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/synthetic"
)

// benchHistory writes a Claude Code history of n sessions, about mb
// megabytes in all, once per process, and returns its folder.
var benchHistories sync.Map

func benchHistory(b *testing.B, n int, mb int64) string {
	b.Helper()
	key := [2]int64{int64(n), mb}
	if dir, ok := benchHistories.Load(key); ok {
		return dir.(string)
	}
	dir := filepath.Join(b.TempDir(), "claude")
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
