package gate

import (
	"testing"
)

// BenchmarkClassify measures throughput over the mixed corpus of everyday
// and risky commands, in strict mode without a cop.
func BenchmarkClassify(b *testing.B) {
	g := corpusTree(b, Options{})
	cmds := append(readCorpus(b, "testdata/everyday.txt"), readCorpus(b, "testdata/risky.txt")...)
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		g.Check(ctx, cmds[n%len(cmds)], 0)
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "commands/s")
}

// BenchmarkClassifyParallel measures throughput with every core classifying.
func BenchmarkClassifyParallel(b *testing.B) {
	g := corpusTree(b, Options{})
	cmds := append(readCorpus(b, "testdata/everyday.txt"), readCorpus(b, "testdata/risky.txt")...)
	ctx := b.Context()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		n := 0
		for pb.Next() {
			g.Check(ctx, cmds[n%len(cmds)], 0)
			n++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commands/s")
}
