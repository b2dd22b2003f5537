package claude

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// decodeFile decodes the transcript at path, its sub-agents' files too.
func decodeFile(t *testing.T, path string, brief bool) []*transcript.Event {
	return decodeFileWith(t, path, brief, false)
}

// decodeFileWith is decodeFile, with encoding/json alone when noScan.
func decodeFileWith(t *testing.T, path string, brief, noScan bool) []*transcript.Event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []*transcript.Event
	d := NewDecoder(Options{Path: path, Brief: brief})
	d.noScan = noScan
	if _, err := stream.Run(f, d, func(ev *transcript.Event) error {
		events = append(events, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return events
}

// A brief read yields the events of a full read, with the same kinds,
// calls, commands, exit codes, token usage and times: only long texts are
// cut. Checked on every transcript of the tests, the real samples and a
// generated one whose outputs run long.
func TestBriefReadKeepsShapes(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	nested, _ := filepath.Glob("testdata/*/*.jsonl")
	files = append(files, nested...)
	gen := filepath.Join(t.TempDir(), "b3f1c2d4-0000-4000-8000-000000000009.jsonl")
	if _, err := synthetic.WriteClaudeFile(gen, synthetic.ClaudeOptions{Bytes: 3 << 20, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	files = append(files, gen)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { sameWhenBrief(t, f) })
	}
	t.Run("real samples", func(t *testing.T) {
		real, _ := filepath.Glob(filepath.Join(streamtest.SamplesDir(t, "claude"), "*.jsonl"))
		for _, f := range real {
			sameWhenBrief(t, f)
		}
	})
}

func sameWhenBrief(t *testing.T, path string) {
	t.Helper()
	full, brief := decodeFile(t, path, false), decodeFile(t, path, true)
	if len(full) < 2 {
		t.Fatalf("%s decodes to %d events", path, len(full))
	}
	streamtest.SameShapes(t, full, brief)
	// What every view counts, from a whole read with encoding/json alone
	// and from the brief read with the scanner that statistics use.
	want, got := tally(decodeFileWith(t, path, false, true)), tally(brief)
	if got != want {
		t.Fatalf("%s: the brief read with the scanner counts\n%+v\na whole read with encoding/json\n%+v", path, got, want)
	}
}

func tally(events []*transcript.Event) transcript.Tally {
	var t transcript.Tally
	for _, ev := range events {
		t.Add(ev)
	}
	return t
}
