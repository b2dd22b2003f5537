package claude

import (
	"bytes"
	"testing"

	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// BenchmarkDecodeClaudeBrief decodes a generated 50 MB transcript whole
// and brief (for its figures only), to compare the rates.
func BenchmarkDecodeClaudeBrief(b *testing.B) {
	var buf bytes.Buffer
	if _, err := synthetic.WriteClaude(&buf, synthetic.ClaudeOptions{Bytes: 50 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	for _, brief := range []bool{false, true} {
		name := "whole"
		if brief {
			name = "brief"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				if _, err := stream.Run(bytes.NewReader(data), NewDecoder(Options{Brief: brief}), func(*transcript.Event) error { n++; return nil }); err != nil || n == 0 {
					b.Fatal(err, n)
				}
			}
		})
	}
}
