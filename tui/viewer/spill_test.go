package viewer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// spilledView shows data as `cuff watch` does once a big file is indexed:
// a timeline that left the big outputs in the file.
func spilledView(tb testing.TB, data []byte, w, h int) Model {
	tb.Helper()
	m, _ := spilledViewAt(tb, data, w, h)
	return m
}

// spilledViewAt is spilledView, and the path of the file.
func spilledViewAt(tb testing.TB, data []byte, w, h int) (Model, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	tl := timeline.New()
	tl.Spill(f)
	for _, l := range fixture.Lines(data) {
		ev, err := transcript.Decode(l.Bytes)
		if err != nil {
			tb.Fatal(err)
		}
		tl.AddLine(ev, l.Bytes, l.Off)
	}
	m := newViewer(nil, w, h)
	m.Replace(tl, false)
	return m, path
}

// memView shows the same data with everything in memory.
func memView(tb testing.TB, data []byte, w, h int) Model {
	tb.Helper()
	var events []*transcript.Event
	for _, l := range fixture.Lines(data) {
		ev, err := transcript.Decode(l.Bytes)
		if err != nil {
			tb.Fatal(err)
		}
		events = append(events, ev)
	}
	return newViewer(events, w, h)
}

// bigOutputSession has outputs long enough to be left in the file.
func bigOutputSession() []byte {
	b := fixture.Session()
	long := strings.Repeat("ok  \tgithub.com/example/project\t0.012s \"quoted\" … 表\n", 12)
	b.Add(&transcript.ToolCall{Tool: "Read", Input: []byte(`{"file_path":"big.go"}`)}, "tb", "")
	b.Add(&transcript.ToolResult{Tool: "Read", Output: long + "needle-in-output\n"}, "tb", "")
	code := 2
	b.Add(&transcript.BashRun{Command: "go test ./...", ExitCode: &code, Stdout: long + "needle-in-stdout\n",
		Stderr: fixture.HostileText + long}, "bb", "")
	b.Add(&transcript.BashRun{Command: "make", ExitCode: new(int), Stdout: strings.Repeat("x\n", 3000)}, "bc", "")
	return b.JSONL()
}

// TestSpilledLooksTheSame: with outputs left in the file, every screen,
// folded or expanded, and every search is what it is with them in memory.
func TestSpilledLooksTheSame(t *testing.T) {
	data := bigOutputSession()
	for _, keys := range [][]string{{"g"}, {"e", "g"}, {"G", "k", "k", "enter"}, {"e", "G"}} {
		sp, mem := press(spilledView(t, data, 100, 30), keys...), press(memView(t, data, 100, 30), keys...)
		for range 200 {
			if plain(sp) != plain(mem) {
				t.Fatalf("after %v:\n%s\nwant:\n%s", keys, plain(sp), plain(mem))
			}
			if mem.linesFrom(mem.pos(mem.top), mem.off, 31) <= 30 {
				break
			}
			sp, mem = press(sp, "ctrl+d"), press(mem, "ctrl+d")
		}
	}
	for _, q := range []string{"needle", "needle-in-stdout", "needle-in-output", "0.012S", "表", "pwned", "x", "make"} {
		sp, mem := spilledView(t, data, 100, 30), memView(t, data, 100, 30)
		sp, mem = press(sp, "/", q, "enter"), press(mem, "/", q, "enter")
		if sp.Matches() != mem.Matches() || plain(sp) != plain(mem) {
			t.Errorf("search %q: %d matches, want %d:\n%s\nwant:\n%s", q, sp.Matches(), mem.Matches(), plain(sp), plain(mem))
		}
	}
	sp := press(spilledView(t, data, 100, 30), "/", "needle-in-stdout", "enter")
	if sp.Matches() != 1 || !strings.Contains(plain(sp), "needle-in-stdout") {
		t.Errorf("a search does not open the folded output it found:\n%s", plain(sp))
	}
}

// TestSpilledFileChanged: an output that can no longer be read back says
// why instead of showing something else.
func TestSpilledFileChanged(t *testing.T) {
	data := bigOutputSession()
	m, path := spilledViewAt(t, data, 100, 30)
	for _, it := range m.tl.Items() {
		if it.ToolResult() != nil && it.FieldLines(timeline.Output) > 12 {
			m.jumpTo(it, 0)
		}
	}
	if err := os.WriteFile(path, bytes.ReplaceAll(data, []byte("needle"), []byte("NEEDLE")), 0o600); err != nil {
		t.Fatal(err)
	}
	m = press(m, "enter")
	if !strings.Contains(plain(m), "not shown: "+timeline.ErrChanged.Error()) {
		t.Errorf("a changed file:\n%s", plain(m))
	}
	if strings.Contains(ansi.Strip(plain(m)), "NEEDLE") {
		t.Error("shows what the file holds now")
	}
}

// BenchmarkSearch is a search through a session of 100,000 events whose
// outputs were left in the file (as `cuff watch` indexes a big one), and
// through one kept in memory.
func BenchmarkSearch(b *testing.B) {
	data := fixture.Big(100000)
	for _, v := range []struct {
		name string
		m    Model
	}{{"file", spilledView(b, data, 120, 40)}, {"memory", memView(b, data, 120, 40)}} {
		for _, q := range []string{"nomatch", "pkg5"} {
			b.Run(v.name+"/"+q, func(b *testing.B) {
				for b.Loop() {
					v.m.SetQuery(q)
					v.m.SetQuery("")
				}
			})
		}
	}
}
