package export

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/transcript"
)

func TestContextSummary(t *testing.T) {
	for _, c := range []struct {
		turn  transcript.ChatTurn
		label string
		sum   string
	}{
		{transcript.ChatTurn{Context: transcript.ContextEnvironment, Text: "<environment_context>\n  <cwd>/w</cwd>\n  <shell>zsh</shell>\n  <current_date>2026-11-02</current_date>\n</environment_context>"},
			"Environment", "/w · zsh · 2026-11-02"},
		{transcript.ChatTurn{Context: transcript.ContextSkills, Text: "## Skills\n- lint: run it (file: a)\n- docs: write\n- not a skill line"},
			"Skills", "2 offered: lint, docs"},
		{transcript.ChatTurn{Role: "developer", Context: transcript.ContextInstructions, Text: "\n<permissions instructions>\n# Rules\nBe careful."},
			"Developer instructions", "Rules"},
		{transcript.ChatTurn{Context: "future_kind", Text: "x"}, "Future kind", "x"},
		{transcript.ChatTurn{Text: "plain"}, "", "plain"},
	} {
		if got := ContextLabel(&c.turn); got != c.label {
			t.Errorf("label of %+v = %q, want %q", c.turn, got, c.label)
		}
		if got := ContextSummary(&c.turn); got != c.sum {
			t.Errorf("summary of %+v = %q, want %q", c.turn, got, c.sum)
		}
	}
}

// FuzzContextSummary: whatever an agent wrote, the summary is one line of
// valid text of bounded length, and the label never panics.
func FuzzContextSummary(f *testing.F) {
	f.Add("environment", "<environment_context><cwd>/x</cwd></environment_context>")
	f.Add("skills", "- a: b\n- c: d")
	f.Add("ü_x", "<<<>>\n\n# h")
	f.Fuzz(func(t *testing.T, context, text string) {
		c := &transcript.ChatTurn{Context: context, Text: text}
		_ = ContextLabel(c)
		s := ContextSummary(c)
		if strings.Contains(s, "\n") || utf8.RuneCountInString(s) > maxSummaryRunes {
			t.Errorf("summary %q", s)
		}
	})
}
