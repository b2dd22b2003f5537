package export

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// benchEvents is the size of the generated session the export benchmarks
// read: chat turns, tool calls with results and bash runs, in equal parts.
const benchEvents = 20000

// benchExport streams the generated session through the sink newSink makes,
// once per iteration, and reports events per second, bytes allocated and
// the largest heap left after a garbage collection while it ran (a sink
// that streams keeps it flat however long the session is).
func benchExport(b *testing.B, newSink func(b *testing.B, i int) Sink) {
	benchExportOf(b, benchEvents, newSink)
}

// benchExportOf is benchExport with a session of n events.
func benchExportOf(b *testing.B, n int, newSink func(b *testing.B, i int) Sink) {
	s := fixtureStore(b)
	bigSession(b, s, n)
	list := infos(b, s)
	fi, err := os.Stat(s.EventsPath(list[0].ID))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	stop := watchLiveHeap(b)
	defer stop()
	b.ResetTimer()
	var events int64
	for i := 0; i < b.N; i++ {
		res, err := WriteSessions(context.Background(), newSink(b, i), list, FileReader(s.EventsPath))
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkExportCSV(b *testing.B) {
	benchExport(b, func(b *testing.B, _ int) Sink {
		w, err := NewCSVWriter(io.Discard)
		if err != nil {
			b.Fatal(err)
		}
		return w
	})
}

func BenchmarkExportSQLite(b *testing.B) {
	dir := b.TempDir()
	benchExport(b, func(b *testing.B, i int) Sink {
		w, err := NewSQLiteWriter(context.Background(), filepath.Join(dir, "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		return w
	})
}

func BenchmarkExportHTML(b *testing.B) {
	benchExport(b, func(b *testing.B, _ int) Sink {
		w, err := NewHTMLWriter(io.Discard, HTMLOptions{})
		if err != nil {
			b.Fatal(err)
		}
		return w
	})
}

// BenchmarkExportMarkdown exports sessions of two sizes: the peak heap
// stays the same (the sink holds records of events, not events).
func BenchmarkExportMarkdown(b *testing.B) {
	for _, n := range []int{benchEvents, 4 * benchEvents} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			benchExportOf(b, n, func(b *testing.B, _ int) Sink {
				return NewMarkdownSink(io.Discard, MarkdownOptions{})
			})
		})
	}
}

// watchLiveHeap samples the heap that survived the last garbage collection
// every millisecond until the returned function is called, which reports
// the largest sample as peak-live-MB.
func watchLiveHeap(b *testing.B) (stop func()) {
	runtime.GC() // what setting up left behind is not counted
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
		b.ReportMetric(float64(peak)/(1<<20), "peak-live-MB")
	}
}

func BenchmarkGenerate(b *testing.B) {
	s := fixtureStore(b)
	for i := 0; i < 4; i++ {
		recordSession(b, s, fixtureTime(i), func(add addFunc) {
			for j := 0; j < 250; j++ {
				runs(add, 1, "git status", "git diff HEAD~"+itoa(j%7), "npm run build", "go test ./pkg"+itoa(j%13)+"/...",
					"curl https://api.example.com/"+itoa(j%5), "cd src && make", "ls -la src/"+itoa(j%11))
			}
		})
	}
	rec := NewRecorded()
	if _, err := WriteSessions(context.Background(), rec, infos(b, s), s.ReadEvents); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Generate(context.Background(), rec, GenerateOptions{Gate: gateOpts()}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rec.Runs()), "runs")
}
