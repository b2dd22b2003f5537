package redact

import (
	"encoding/json"
	"testing"

	"github.com/cuff-dev/cuff/internal/secrettest"
)

// TestCorpusNoLeaks: every secret of the corpus (at least 60 formats) is
// redacted from text, from a JSON line that holds it (as a recording does)
// and from an argv array, whatever splits it from its flag.
func TestCorpusNoLeaks(t *testing.T) {
	r := MustNew(Options{})
	corpus := secrettest.Corpus()
	if len(corpus) < 60 {
		t.Fatalf("the corpus has %d formats, want at least 60", len(corpus))
	}
	leaks := 0
	for _, c := range corpus {
		if out := r.String(c.Text); c.Leaks(out) {
			leaks++
			t.Errorf("%s: text leaks:\n  in  %q\n  out %q", c.Name, c.Text, out)
		}
		line, _ := json.Marshal(map[string]any{"type": "bash_run", "command": c.Text, "stdout": "out\n" + c.Text + "\nmore"})
		if out := r.ValidJSON(line); c.Leaks(string(out)) {
			leaks++
			t.Errorf("%s: JSON leaks:\n  %s", c.Name, out)
		}
		if c.Argv != nil {
			line, _ := json.Marshal(map[string]any{"type": "bash_start", "argv": c.Argv})
			if out := r.ValidJSON(line); c.Leaks(string(out)) {
				leaks++
				t.Errorf("%s: argv leaks:\n  %s", c.Name, out)
			}
		}
	}
	t.Logf("%d formats, %d leaks", len(corpus), leaks)
}
