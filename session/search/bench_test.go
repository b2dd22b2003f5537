package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/cputime"
	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript/redact"
)

var benchDirs sync.Map

// benchHistory is a generated Claude Code history of n sessions, about mb
// megabytes, written once per process.
func benchHistory(b *testing.B, n int, mb int64) string {
	b.Helper()
	key := [2]int64{int64(n), mb}
	if d, ok := benchDirs.Load(key); ok {
		return d.(string)
	}
	dir, err := os.MkdirTemp("", "cuff-search-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {}) // kept for the process: other benchmarks reuse it
	if _, err := synthetic.ClaudeHistory(dir, synthetic.HistoryOptions{Sessions: n, Bytes: mb << 20, Seed: 1,
		End: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		b.Fatal(err)
	}
	benchDirs.Store(key, dir)
	return dir
}

func benchFiles(b *testing.B, dir string) ([]File, int64) {
	files, errs := Files(context.Background(), []session.Source{session.ClaudeSource(dir, "")}, "")
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	var size int64
	for _, f := range files {
		fi, _ := os.Stat(f.Path)
		size += fi.Size()
	}
	return files, size
}

// BenchmarkIndexBuild indexes a 100-session, 100 MB history from nothing.
func BenchmarkIndexBuild(b *testing.B) {
	dir := benchHistory(b, 100, 100)
	files, size := benchFiles(b, dir)
	r, _ := redact.New(redact.Options{})
	b.SetBytes(size)
	cpu := cputime.Used()
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "search.db")
		x, err := Open(context.Background(), path, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := x.Update(context.Background(), files, UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
		x.Close()
	}
	cputime.Report(b, cpu, float64(size)/1e6*float64(b.N), "MB")
}

// benchIndex is an index of the 100-session history, built once.
var benchIndexes sync.Map

func benchIndex(b *testing.B) (*Index, string) {
	b.Helper()
	dir := benchHistory(b, 100, 100)
	if x, ok := benchIndexes.Load(dir); ok {
		return x.(*Index), dir
	}
	files, _ := benchFiles(b, dir)
	r, _ := redact.New(redact.Options{})
	x, err := Open(context.Background(), filepath.Join(dir, "search.db"), r)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := x.Update(context.Background(), files, UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
	benchIndexes.Store(dir, x)
	return x, dir
}

// benchQueries are what people search for: rare and common words,
// phrases, prefixes, fields, failures.
var benchQueries = []string{`TestStoreClient`, `"exit code"`, `cmd:docker`, `failed:`, `deadline*`, `the`, `func`,
	`Gate OR Router`, `failed:test`, `the -func`, `prompt:cache`, `"fmt.Errorf"`, `out:FAIL`, `migration rollback`}

// BenchmarkQuery runs each of benchQueries in turn and reports the 95th
// percentile of their latencies, over the index of the 100-session
// history or, when CUFF_BENCH_SEARCH_DB names one (.ci/bench builds it
// over its year of history with `cuff search`), over that index.
func BenchmarkQuery(b *testing.B) {
	var x *Index
	if path := os.Getenv("CUFF_BENCH_SEARCH_DB"); path != "" {
		var err error
		if x, err = Open(context.Background(), path, nil); err != nil {
			b.Fatal(err)
		}
		defer x.Close()
	} else {
		x, _ = benchIndex(b)
	}
	var lat, cpuLat []time.Duration
	i := 0
	cpu := cputime.Used()
	for b.Loop() {
		q := benchQueries[i%len(benchQueries)]
		i++
		start, startCPU := time.Now(), cputime.Used()
		if _, err := x.Search(context.Background(), Query{Text: q}); err != nil {
			b.Fatal(err)
		}
		lat, cpuLat = append(lat, time.Since(start)), append(cpuLat, cputime.Used()-startCPU)
	}
	cputime.Report(b, cpu, float64(b.N), "queries")
	reportPercentile(b, lat, 95, "p95-ms")
	// The CPU time of a query, which a loaded machine does not stretch as
	// it stretches the wall clock.
	reportPercentile(b, cpuLat, 95, "p95-cpu-ms")
}

func reportPercentile(b *testing.B, lat []time.Duration, p int, unit string) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[(len(lat)-1)*p/100].Microseconds())/1000, unit)
	}
}

// BenchmarkAppendReflected appends one prompt to one session and measures
// until a search finds it: the update (every file checked, the new line
// read and indexed) and the query.
func BenchmarkAppendReflected(b *testing.B) {
	x, dir := benchIndex(b)
	files, _ := benchFiles(b, dir)
	target := files[len(files)/2].Path
	var lat []time.Duration
	n := 0
	cpu := cputime.Used()
	for b.Loop() {
		n++
		word := fmt.Sprintf("appendmarker%d", n)
		f, err := os.OpenFile(target, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"please check %s"},"uuid":"u-%d","timestamp":"2026-03-01T10:00:00.000Z","sessionId":"x","cwd":"/home/dev/shop"}`+"\n", word, n)
		f.Close()
		start := time.Now()
		fs, _ := Files(context.Background(), []session.Source{session.ClaudeSource(dir, "")}, "")
		if _, err := x.Update(context.Background(), fs, UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
		hits, err := x.Search(context.Background(), Query{Text: word})
		if err != nil || len(hits) != 1 {
			b.Fatalf("%v, %d hits", err, len(hits))
		}
		lat = append(lat, time.Since(start))
	}
	cputime.Report(b, cpu, float64(b.N), "appends")
	reportPercentile(b, lat, 95, "p95-ms")
}
