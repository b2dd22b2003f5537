package session

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/cuff-dev/cuff/internal/cputime"
)

// BenchmarkStatsCold reads the statistics of 100 Claude Code sessions
// (about 100 MB) with no cache, as a first `record stats` does, beside the
// floor: the same files read and thrown away. Both report CPU time, which
// a busy machine does not stretch.
func BenchmarkStatsCold(b *testing.B) {
	dir := benchHistory(b, 100, 100)
	src := ClaudeSource(dir, "")
	infos, err := src.List(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, in := range infos {
		size += in.SizeBytes
	}
	mb := float64(size) / 1e6
	b.Run("stats", func(b *testing.B) {
		b.SetBytes(size)
		cpu := cputime.Used()
		for b.Loop() {
			st, err := StatsOf(context.Background(), []Source{src}, infos, nil)
			if err != nil || st.Commands == 0 {
				b.Fatal(err, st)
			}
		}
		cputime.Report(b, cpu, mb*float64(b.N), "MB")
	})
	b.Run("read-only", func(b *testing.B) {
		b.SetBytes(size)
		cpu := cputime.Used()
		for b.Loop() {
			for _, in := range infos {
				f, err := os.Open(in.Path)
				if err != nil {
					b.Fatal(err)
				}
				_, err = io.Copy(io.Discard, f)
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		cputime.Report(b, cpu, mb*float64(b.N), "MB")
	})
}
