package settings

import (
	"fmt"
	"strings"
)

// Error is a problem in a settings file: where it is and what is expected.
type Error struct {
	File string // the file as given to Load
	Line int    // 1-based; 0 when the problem has no line
	Key  string // dotted key as written, such as recording.session_mode
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// suggest returns the candidate closest to name, if one is close enough
// to be a likely typo: a small edit distance, or the same letters with
// different case or separators (sessionMode, session-mode).
func suggest(name string, candidates []string) string {
	best, bestDist := "", -1
	norm := normalizeKey(name)
	for _, c := range candidates {
		if normalizeKey(c) == norm {
			return c
		}
		d := editDistance(strings.ToLower(name), c)
		if d <= maxTypoDistance(name) && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// maxTypoDistance is how many edits still count as a typo of name.
func maxTypoDistance(name string) int {
	return min(3, max(1, len(name)/4))
}

func normalizeKey(s string) string {
	s = strings.ToLower(s)
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(s)
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return len(a) + len(b)
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
