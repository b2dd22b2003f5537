package redact

import (
	"encoding/json"
	"strings"
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

// TestCorpusQuotedForAShell: a command line records each word quoted the
// way bash would read it back, escape sequences written out ($'\E[1m…');
// a token in colour is still found.
func TestCorpusQuotedForAShell(t *testing.T) {
	r := MustNew(Options{})
	for _, c := range secrettest.Corpus() {
		for _, esc := range []string{`\E`, `\e`, `\x1b`, `\033`, `\u001b`} {
			quoted := "printf '%s\\n' $'" + strings.ReplaceAll(c.Text, "\x1b", esc) + "'"
			if out := r.String(quoted); c.Leaks(out) {
				t.Errorf("%s, escape written %s: %q", c.Name, esc, out)
			}
		}
	}
}
