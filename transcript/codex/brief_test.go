package codex

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// A brief read yields the events of a full read, with the same kinds,
// calls, commands, exit codes, token usage and times: only long outputs
// are cut. Checked on the rollouts of the tests and the real samples.
func TestBriefReadKeepsShapes(t *testing.T) {
	files, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatal(err, files)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { sameWhenBrief(t, f) })
	}
	t.Run("real samples", func(t *testing.T) {
		real, _ := filepath.Glob(filepath.Join(streamtest.SamplesDir(t, "codex"), "*.jsonl"))
		for _, f := range real {
			sameWhenBrief(t, f)
		}
	})
}

func sameWhenBrief(t *testing.T, path string) {
	t.Helper()
	decode := func(brief bool) []*transcript.Event {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var events []*transcript.Event
		if _, err := stream.Run(f, NewDecoder(Options{Brief: brief}), func(ev *transcript.Event) error {
			events = append(events, ev)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return events
	}
	full, brief := decode(false), decode(true)
	if len(full) < 2 {
		t.Fatalf("%s decodes to %d events", path, len(full))
	}
	streamtest.SameShapes(t, full, brief)
}
