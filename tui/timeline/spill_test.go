package timeline_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
	"github.com/cuff-dev/cuff/tui/timeline"
)

func intp(i int) *int { return &i }

// bigOutputs is a session whose outputs are long enough to be left in the
// file: with escapes, wide and hostile text, a field big enough to be
// written last in its line, and its key inside other fields.
func bigOutputs() []byte {
	b := fixture.NewBuilder()
	long := strings.Repeat("a line of output with \"quotes\", a tab\tand a backslash \\ … 表\n", 8)
	b.Add(&transcript.SessionStart{Agent: "claude-code"}, "", "")
	b.Add(&transcript.ToolCall{Tool: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)}, "t1", "")
	b.Add(&transcript.ToolResult{Tool: "Read", Output: long + "needle-in-output\n"}, "t1", "")
	b.Add(&transcript.BashStart{Command: `echo '"stdout":"decoy'`}, "b1", "")
	b.Add(&transcript.BashRun{Command: `echo '"stdout":"decoy'`, ExitCode: intp(0), Stdout: long + "needle-in-stdout",
		Stderr: fixture.HostileText + long}, "b1", "")
	b.Add(&transcript.BashRun{Command: "big", ExitCode: intp(1), Stdout: strings.Repeat("x\"y\n", 20<<10) + "needle-at-the-end",
		Environment: map[string]string{"stdout": "an environment decoy"}}, "b2", "")
	b.Add(&transcript.ToolResult{Tool: "Grep", Output: "short"}, "t2", "")
	b.Add(&transcript.ToolResult{Tool: "Grep", Output: long + `a backslash and n: \nb, \\"q`}, "t3", "")
	b.Add(&transcript.ToolResult{Tool: "Grep", Output: long + "a newline: \nb, Kelvin \u212a"}, "t4", "")
	b.Add(&transcript.ChatTurn{Role: "assistant", Text: "done"}, "", "")
	data := b.JSONL()
	// Lines written by hand: a key given twice (the last one counts), raw
	// invalid UTF-8, \u escapes with a surrogate pair and a lone surrogate.
	pad := strings.Repeat("p", 300)
	data = fmt.Appendf(data, `{"v":1,"type":"bash_run","session_id":"s","seq":20,"stdout":"first %s","stdout":"second %s needle-twice"}`+"\n", pad, pad)
	data = fmt.Appendf(data, `{"v":1,"type":"tool_result","session_id":"s","seq":21,"output":"bad `+"\xff\xfe"+` bytes %s"}`+"\n", pad)
	data = fmt.Appendf(data, `{"v":1,"type":"tool_result","session_id":"s","seq":22,"output":"\u001b[31m \ud83d\ude00 \ud800 lone %s"}`+"\n", pad)
	return data
}

// spilledTimeline indexes data as the feed does, leaving big outputs in r;
// memTimeline keeps everything in memory.
func spilledTimeline(t testing.TB, data []byte, r interface {
	ReadAt([]byte, int64) (int, error)
}) *timeline.Timeline {
	t.Helper()
	tl := timeline.New()
	tl.Spill(r)
	for _, l := range fixture.Lines(data) {
		ev, err := transcript.Decode(l.Bytes)
		if err != nil {
			t.Fatalf("line at %d: %v", l.Off, err)
		}
		tl.AddLine(ev, l.Bytes, l.Off)
	}
	return tl
}

func memTimeline(t testing.TB, data []byte) *timeline.Timeline {
	t.Helper()
	tl := timeline.New()
	for _, l := range fixture.Lines(data) {
		ev, err := transcript.Decode(l.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		tl.Add(ev)
	}
	return tl
}

var fields = []timeline.Field{timeline.Output, timeline.Stdout, timeline.Stderr}

func writeTemp(t *testing.T, data []byte) (string, *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return path, f
}

// TestSpillReadsBack: outputs left in the file read back exactly as they
// were decoded, count the same lines, and are found by a search as if they
// were in memory.
func TestSpillReadsBack(t *testing.T) {
	data := bigOutputs()
	_, f := writeTemp(t, data)
	sp, mem := spilledTimeline(t, data, f), memTimeline(t, data)
	if sp.Len() != mem.Len() {
		t.Fatalf("%d items, want %d", sp.Len(), mem.Len())
	}
	left := 0
	for i, it := range sp.Items() {
		for _, fl := range fields {
			got, err := it.Field(fl)
			want, _ := mem.At(i).Field(fl)
			if err != nil || got != want {
				t.Errorf("item %d field %d = %q, %v; want %q", i, fl, got, err, want)
			}
			if it.FieldLines(fl) != mem.At(i).FieldLines(fl) {
				t.Errorf("item %d field %d: %d lines, want %d", i, fl, it.FieldLines(fl), mem.At(i).FieldLines(fl))
			}
		}
		if r := it.BashRun(); r != nil && r.Stdout == "" && mem.At(i).BashRun().Stdout != "" {
			left++
		}
		if r := it.ToolResult(); r != nil && r.Output == "" && mem.At(i).ToolResult().Output != "" {
			left++
		}
	}
	if left != 8 {
		t.Errorf("%d outputs were left in the file, want 8 (the short one stays)", left)
	}
	queries := []string{"needle", "needle-in-output", "needle-in-stdout", "needle-at-the-end", "needle-twice", "first",
		"NEEDLE", "表", "\\", `"quotes"`, "tab\tand", "x\"y\nx", "\x1b]52", "pwned", "\U0001F600", "\ufffd", "decoy", "environment",
		"after\ttab", "short", "A LINE", "a line", "nb", "q", ": \\nb", "n: \nb", "kelvin k", "Kelvin", "backslash \\"}
	for _, q := range queries {
		s := timeline.NewSearch(q)
		for i, it := range sp.Items() {
			want := mem.At(i).Contains(q)
			if got := it.Contains(q); got != want {
				t.Errorf("item %d contains %q: %v, want %v", i, q, got, want)
			}
			if got := s.Match(it); got != want {
				t.Errorf("search for %q in item %d: %v, want %v", q, i, got, want)
			}
		}
	}
}

// TestSpillChangedFile: a file rewritten in place does not show or match
// what is no longer there; it says so.
func TestSpillChangedFile(t *testing.T) {
	data := bigOutputs()
	path, f := writeTemp(t, data)
	tl := spilledTimeline(t, data, f)
	if err := os.WriteFile(path, bytes.ReplaceAll(data, []byte("needle"), []byte("NEEDLE")), 0o600); err != nil {
		t.Fatal(err)
	}
	it := tl.At(2) // the bash run
	if _, err := it.Field(timeline.Stdout); !errors.Is(err, timeline.ErrChanged) {
		t.Errorf("a changed output reads back with %v", err)
	}
	if it.Contains("needle-in-stdout") || it.Contains("NEEDLE") {
		t.Error("a changed output is searched")
	}
	if it.FieldLines(timeline.Stdout) == 0 {
		t.Error("the line count is lost")
	}
	if err := os.Truncate(path, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := it.Field(timeline.Stdout); !errors.Is(err, timeline.ErrChanged) {
		t.Errorf("a truncated output reads back with %v", err)
	}
	f.Close()
	if _, err := it.Field(timeline.Stdout); err == nil || errors.Is(err, timeline.ErrChanged) {
		t.Errorf("a closed file reads back with %v", err)
	}
}

// TestSpillSurvivesReplace: a prune replaces the file by a rename; the
// open file still holds what was read.
func TestSpillSurvivesReplace(t *testing.T) {
	data := bigOutputs()
	path, f := writeTemp(t, data)
	tl := spilledTimeline(t, data, f)
	tmp := path + ".new"
	if err := os.WriteFile(tmp, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if out, err := tl.At(2).Field(timeline.Stdout); err != nil || !strings.HasSuffix(out, "needle-in-stdout") {
		t.Errorf("after a replace: %q, %v", out, err)
	}
}

// TestAddLineWithoutSpill keeps everything in memory.
func TestAddLineWithoutSpill(t *testing.T) {
	data := bigOutputs()
	tl := timeline.New()
	for _, l := range fixture.Lines(data) {
		ev, err := transcript.Decode(l.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		tl.AddLine(ev, l.Bytes, l.Off)
	}
	if r := tl.At(2).BashRun(); r == nil || !strings.HasSuffix(r.Stdout, "needle-in-stdout") {
		t.Error("an output was dropped without a file to read it back from")
	}
}

// FuzzSpill: any output, however escaped, reads back as it was decoded.
func FuzzSpill(f *testing.F) {
	f.Add(strings.Repeat("x", 300), "")
	f.Add(strings.Repeat("\"\\/\b\f\n\r\t", 40), fixture.HostileText+strings.Repeat("é", 200))
	f.Add(strings.Repeat("\xff", 300), strings.Repeat("\u2028", 100))
	f.Fuzz(func(t *testing.T, stdout, stderr string) {
		b := fixture.NewBuilder()
		b.Add(&transcript.BashRun{Command: "c", Stdout: stdout, Stderr: stderr}, "x", "")
		data := b.JSONL()
		mem := memTimeline(t, data)
		sp := spilledTimeline(t, data, bytes.NewReader(data))
		for _, fl := range []timeline.Field{timeline.Stdout, timeline.Stderr} {
			want, _ := mem.At(0).Field(fl)
			got, err := sp.At(0).Field(fl)
			if err != nil || got != want {
				t.Fatalf("field %d = %q, %v; want %q", fl, got, err, want)
			}
		}
	})
}
