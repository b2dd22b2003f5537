package gate

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkClassify measures throughput over the mixed corpus of everyday
// and risky commands, in strict mode without a cop.
func BenchmarkClassify(b *testing.B) {
	g := corpusTree(b, Options{})
	cmds := append(readCorpus(b, "testdata/everyday.txt"), readCorpus(b, "testdata/risky.txt")...)
	settle(b)
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	n := 0
	for b.Loop() {
		g.Check(ctx, cmds[n%len(cmds)], 0)
		n++
	}
	used := cpuTime() - cpu
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "commands/s")
	// The process's CPU time, which a busy machine does not stretch as it
	// stretches the wall clock.
	b.ReportMetric(float64(n)/used.Seconds(), "commands/cpu-s")
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkClassifyParallel measures throughput with every core classifying.
func BenchmarkClassifyParallel(b *testing.B) {
	g := corpusTree(b, Options{})
	cmds := append(readCorpus(b, "testdata/everyday.txt"), readCorpus(b, "testdata/risky.txt")...)
	settle(b)
	ctx := b.Context()
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		n := 0
		for pb.Next() {
			g.Check(ctx, cmds[n%len(cmds)], 0)
			n++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commands/s")
}

// settle waits until the project tree just made is as old as a real
// project's folders mostly are: older than settleTime, so that a gate
// deciding many lines may keep their listings (dirCache). Without it the
// whole run would measure a tree changed a moment ago.
func settle(b *testing.B) {
	b.Helper()
	time.Sleep(settleTime)
}
