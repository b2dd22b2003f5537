package claude

import (
	"bytes"
	"testing"

	"github.com/cuff-dev/cuff/internal/cputime"
	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// BenchmarkDecodeClaudeBrief decodes a generated 50 MB transcript whole
// and brief (for its figures only), each with the scanner and with
// encoding/json alone, to compare the rates.
func BenchmarkDecodeClaudeBrief(b *testing.B) {
	var buf bytes.Buffer
	if _, err := synthetic.WriteClaude(&buf, synthetic.ClaudeOptions{Bytes: 50 << 20, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	for _, brief := range []bool{false, true} {
		for _, noScan := range []bool{false, true} {
			name := map[bool]string{false: "whole", true: "brief"}[brief] + map[bool]string{false: "/scan", true: "/json"}[noScan]
			b.Run(name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				cpu := cputime.Used()
				for b.Loop() {
					n := 0
					d := NewDecoder(Options{Brief: brief})
					d.noScan = noScan
					if _, err := stream.Run(bytes.NewReader(data), d, func(*transcript.Event) error { n++; return nil }); err != nil || n == 0 {
						b.Fatal(err, n)
					}
				}
				cputime.Report(b, cpu, float64(b.N)*float64(len(data))/1e6, "MB")
			})
		}
	}
}
