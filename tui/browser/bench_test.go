package browser

import (
	"fmt"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
)

// BenchmarkFilter10k is one keystroke of the filter over a year of
// history (10,000 sessions): parse, score every session, sort.
func BenchmarkFilter10k(b *testing.B) {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	infos := make([]session.Info, 10000)
	for i := range infos {
		infos[i] = session.Info{ID: fmt.Sprintf("claude:%08x-1111-4222-8333-444455556666", i), Source: "claude", Agent: "claude-code",
			Title: fmt.Sprintf("fix the flaky test number %d in the parser package", i), WorkingDirectory: "/home/dev/src/project",
			Status: "complete", Started: base.Add(time.Duration(i) * time.Hour), Failures: int64(i % 3)}
	}
	ix := NewIndex(infos) // once per listing
	for _, q := range []string{"parser", "fxflky", "source:claude failed parser"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				ParseQuery(q).FilterIndex(ix)
			}
		})
	}
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			NewIndex(infos)
		}
	})
}
