// Package cputime measures the CPU time this process has used, which a
// busy machine does not stretch as it stretches the wall clock: benchmarks
// report rates per CPU-second beside their wall-clock figures.
package cputime

import (
	"syscall"
	"testing"
	"time"
)

// Used is the CPU time this process has used so far, user and system, all
// threads (the garbage collector's too).
func Used() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // cannot fail for RUSAGE_SELF
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Report reports, for a benchmark that started at CPU time since, n units
// per CPU-second ("MB/cpu-s" for unit "MB") and the CPU time per operation
// ("cpu-ms/op").
func Report(b *testing.B, since time.Duration, n float64, unit string) {
	used := Used() - since
	if used <= 0 || b.N == 0 {
		return
	}
	b.ReportMetric(n/used.Seconds(), unit+"/cpu-s")
	b.ReportMetric(float64(used.Milliseconds())/float64(b.N), "cpu-ms/op")
}
