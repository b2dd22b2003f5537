package export

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/cuff-dev/cuff/transcript"
)

// maxSummaryRunes bounds the one-line summary of a context turn.
const maxSummaryRunes = 120

// ContextLabel names the context a chat turn is (its Context field) for a
// heading: "Environment", "Skills", "Command output"; "" for a turn of the
// person or the model.
func ContextLabel(c *transcript.ChatTurn) string {
	switch c.Context {
	case "":
		return ""
	case transcript.ContextEnvironment:
		return "Environment"
	case transcript.ContextInstructions:
		if c.Role == transcript.RoleDeveloper {
			return "Developer instructions"
		}
		return "Instructions"
	case transcript.ContextSkills:
		return "Skills"
	case transcript.ContextCommand:
		return "Command"
	case transcript.ContextCommandPrompt:
		return "Command prompt"
	case transcript.ContextCommandOutput:
		return "Command output"
	case transcript.ContextReminder:
		return "Reminder"
	}
	label := []rune(strings.ReplaceAll(c.Context, "_", " "))
	label[0] = unicode.ToUpper(label[0])
	return string(label)
}

// ContextSummary says in one line what a context turn holds: the
// environment's directory, shell, date and time zone; the skills offered;
// else the first line of its text, without markup.
func ContextSummary(c *transcript.ChatTurn) string {
	text := c.Text
	switch c.Context {
	case transcript.ContextEnvironment:
		var parts []string
		for _, tag := range []string{"cwd", "shell", "current_date", "timezone"} {
			if v := strings.TrimSpace(tagText(text, tag)); v != "" {
				parts = append(parts, v)
			}
		}
		if len(parts) > 0 {
			return clipRunes(strings.Join(parts, " · "), maxSummaryRunes)
		}
	case transcript.ContextSkills:
		if names := skillNames(text); len(names) > 0 {
			return clipRunes(fmt.Sprintf("%d offered: %s", len(names), strings.Join(names, ", ")), maxSummaryRunes)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(stripTags(line))
		line = strings.TrimLeft(line, "#>*- ")
		if line != "" {
			return clipRunes(line, maxSummaryRunes)
		}
	}
	return ""
}

// tagText is the text inside the first <tag>…</tag>.
func tagText(s, tag string) string {
	open, closing := "<"+tag+">", "</"+tag+">"
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, closing)
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// skillNames are the names of the skills a skills listing offers, one per
// "- name: description" line.
func skillNames(s string) []string {
	var names []string
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "- ")
		if !ok {
			continue
		}
		if name, _, ok := strings.Cut(rest, ":"); ok && name != "" && !strings.ContainsAny(name, " `") {
			names = append(names, name)
		}
	}
	return names
}

// stripTags removes <markup> from a line of text.
func stripTags(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clipRunes cuts s to at most n runes, marking the cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
