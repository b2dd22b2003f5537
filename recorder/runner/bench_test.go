package runner

import (
	"context"
	"io"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func benchRun(b *testing.B, c Command) Result {
	b.Helper()
	res := Run(context.Background(), c)
	if res.Err != nil && res.Err.Code != CodeOutputTooLarge {
		b.Fatalf("run failed: %v", res.Err)
	}
	return res
}

// BenchmarkRunTrue is the whole cost of running `true`: validation, lookup, fork/exec,
// pipes, wait and the group check.
func BenchmarkRunTrue(b *testing.B) {
	for b.Loop() {
		benchRun(b, Command{Argv: []string{"true"}})
	}
}

// BenchmarkExecTrue is the baseline for BenchmarkRunTrue: os/exec alone.
func BenchmarkExecTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

const oneMB = 1 << 20

// BenchmarkCapture1MB captures 1 MiB of stdout (just over the default limit, so the
// head-and-tail path is taken).
func BenchmarkCapture1MB(b *testing.B) {
	b.SetBytes(oneMB)
	c := Command{Argv: []string{"head", "-c", strconv.Itoa(oneMB), "/dev/zero"}}
	for b.Loop() {
		benchRun(b, c)
	}
}

// BenchmarkDevNull1MB is the baseline for BenchmarkCapture1MB: the same command with
// its output going to /dev/null.
func BenchmarkDevNull1MB(b *testing.B) {
	b.SetBytes(oneMB)
	for b.Loop() {
		if err := exec.Command("head", "-c", strconv.Itoa(oneMB), "/dev/zero").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCaptureThroughput pushes 256 MiB through capture and a live writer; the
// MB/s figure is the capture throughput.
func BenchmarkCaptureThroughput(b *testing.B) {
	const size = 256 * oneMB
	b.SetBytes(size)
	c := Command{Argv: []string{"head", "-c", strconv.Itoa(size), "/dev/zero"}, Stdout: io.Discard}
	for b.Loop() {
		benchRun(b, c)
	}
}

// BenchmarkCatThroughput is the baseline for BenchmarkCaptureThroughput: cat reading
// the same stream from a pipe and writing it to /dev/null.
func BenchmarkCatThroughput(b *testing.B) {
	const size = 256 * oneMB
	b.SetBytes(size)
	for b.Loop() {
		cmd := exec.Command("sh", "-c", "head -c "+strconv.Itoa(size)+" /dev/zero | cat >/dev/null")
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCapture2GBPeakMemory sends 2 GB through the default 1 MB limit and reports
// this process's peak RSS and the bytes allocated per run.
func BenchmarkCapture2GBPeakMemory(b *testing.B) {
	const size = 2_000_000_000
	b.SetBytes(size)
	c := Command{Shell: "/bin/sh", Script: "yes | head -c " + strconv.Itoa(size)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		res := benchRun(b, c)
		if res.Stdout.OriginalBytes != size {
			b.Fatalf("got %d bytes", res.Stdout.OriginalBytes)
		}
	}
	runtime.ReadMemStats(&after)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(maxRSSKB(&ru))/1024, "peak-rss-MB")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "alloc-MB/run")
}

// BenchmarkTimeoutKill measures how long ending a timed-out group takes: from the
// timeout to Run returning with no process of the group left.
func BenchmarkTimeoutKill(b *testing.B) {
	const timeout = 20 * time.Millisecond
	c := Command{Shell: "/bin/sh", Script: "sleep 100 & sleep 100", Timeout: timeout}
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		res := Run(context.Background(), c)
		total += time.Since(start) - timeout
		if !res.TimedOut {
			b.Fatalf("not timed out: %+v", res)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "kill-ms")
}

// BenchmarkHeadTailWrite1MB is the in-process part of capture: 1 MiB written in pipe
// sized chunks through the default limit, and the kept text rendered.
func BenchmarkHeadTailWrite1MB(b *testing.B) {
	data := make([]byte, oneMB)
	b.SetBytes(oneMB)
	for b.Loop() {
		buf := newHeadTail(DefaultMaxOutputBytes, nil)
		writeChunks(buf, data, maxReadSize)
		if out := buf.output(); !out.Truncated {
			b.Fatal("not truncated")
		}
	}
}
