package browser

import (
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/session"
)

// Query is what a person typed after /: words matched against every
// column, and field filters (source:codex, agent:claude, status:live,
// dir:api, failed) that a session must pass.
type Query struct {
	Words  []string // lower-cased free text; every word must match somewhere
	Fields []Field
	Failed bool // only sessions with failures
}

// Field is one field filter: Key is source, agent, status, dir, id or title.
type Field struct{ Key, Value string }

// fieldKeys are the names a field filter may use, with their aliases.
var fieldKeys = map[string]string{
	"source": "source", "src": "source",
	"agent":  "agent",
	"status": "status", "is": "status",
	"dir": "dir", "cwd": "dir", "folder": "dir",
	"id":    "id",
	"title": "title",
}

// failedWord is the bare word that keeps only sessions with failures.
const failedWord = "failed"

// ParseQuery reads a filter. A word of the form key:value with a known key
// is a field filter; anything else (a:b with an unknown key, a URL) is text.
func ParseQuery(s string) Query {
	var q Query
	for _, w := range strings.Fields(strings.ToLower(s)) {
		if w == failedWord {
			q.Failed = true
			continue
		}
		if k, v, ok := strings.Cut(w, ":"); ok && v != "" {
			if key, known := fieldKeys[k]; known {
				q.Fields = append(q.Fields, Field{Key: key, Value: v})
				continue
			}
		}
		q.Words = append(q.Words, w)
	}
	return q
}

// Empty reports whether the query lets everything through.
func (q Query) Empty() bool { return len(q.Words) == 0 && len(q.Fields) == 0 && !q.Failed }

// How well a word matches a text; higher is better, 0 is no match.
const (
	noMatch = iota
	fuzzyMatch
	substringMatch
	wordMatch
	prefixMatch
	exactMatch
)

// Index is sessions made ready for filtering: the texts a query matches
// lower-cased once per listing, not once per keystroke.
type Index struct {
	infos []session.Info
	texts [][]string // searchable(infos[i])
}

// NewIndex prepares sessions (newest first) for filtering.
func NewIndex(infos []session.Info) *Index {
	ix := &Index{infos: infos, texts: make([][]string, len(infos))}
	for i, info := range infos {
		ix.texts[i] = searchable(info)
	}
	return ix
}

// Filter returns the sessions the query lets through, best match first;
// equally good matches keep their order (newest first). With an empty
// query it returns infos itself.
func (q Query) Filter(infos []session.Info) []session.Info {
	if q.Empty() {
		return infos
	}
	return q.FilterIndex(NewIndex(infos))
}

// FilterIndex is Filter over sessions already indexed.
func (q Query) FilterIndex(ix *Index) []session.Info {
	if q.Empty() {
		return ix.infos
	}
	type ranked struct{ at, score int } // at: index into ix.infos
	var hits []ranked
	for i := range ix.infos {
		if score, ok := q.score(&ix.infos[i], ix.texts[i]); ok {
			hits = append(hits, ranked{i, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b ranked) int { return b.score - a.score })
	out := make([]session.Info, len(hits))
	for i, h := range hits {
		out[i] = ix.infos[h.at]
	}
	return out
}

// Score reports whether info passes the query and, if so, how well its
// words match: the sum over the words of the best match in any column.
func (q Query) Score(info session.Info) (int, bool) { return q.score(&info, searchable(info)) }

// score is Score with info's searchable texts at hand.
func (q Query) score(info *session.Info, texts []string) (int, bool) {
	if q.Failed && info.Failures <= 0 {
		return 0, false
	}
	for _, f := range q.Fields {
		if !f.passes(info, texts) {
			return 0, false
		}
	}
	total := 0
	for _, w := range q.Words {
		best := noMatch
		for i, t := range texts {
			m := matchWord(w, t)
			if m == fuzzyMatch && i >= fuzzyFields {
				m = noMatch // fuzzy hits in short columns (agent, status) are noise
			}
			best = max(best, m)
		}
		if best == noMatch {
			return 0, false
		}
		total += best
	}
	return total, true
}

// fuzzyFields is how many of searchable's texts (the first ones) accept
// fuzzy matches: only the title. Ids and folders are long runs of
// letters that almost any few letters are a subsequence of.
const fuzzyFields = 1

// The places of the texts in searchable's answer.
const (
	textTitle = iota
	textID
	textDir
	textShortID
	textDirBase
	textAgent
	textSource
	textStatus
)

// searchable is what free text is matched against, lower-cased: the title
// first (it alone takes fuzzy matches), then the other columns.
func searchable(info session.Info) []string {
	return []string{
		strings.ToLower(info.Title),
		strings.ToLower(info.ID),
		strings.ToLower(info.WorkingDirectory),
		strings.ToLower(shortID(info.ID)),
		strings.ToLower(filepath.Base(info.WorkingDirectory)),
		strings.ToLower(info.Agent),
		strings.ToLower(source(info)),
		strings.ToLower(statusOf(info)),
	}
}

// passes reports whether info (with its searchable texts) passes one
// field filter.
func (f Field) passes(info *session.Info, texts []string) bool {
	switch f.Key {
	case "source":
		return strings.HasPrefix(texts[textSource], f.Value)
	case "agent":
		return matchWord(f.Value, texts[textAgent]) >= wordMatch
	case "status":
		if f.Value == "live" {
			return info.Live
		}
		return strings.HasPrefix(texts[textStatus], f.Value)
	case "dir":
		return strings.Contains(texts[textDir], f.Value)
	case "id":
		return strings.Contains(texts[textID], f.Value)
	case "title":
		return strings.Contains(texts[textTitle], f.Value)
	}
	return false
}

// statusOf is the status the list shows.
func statusOf(info session.Info) string {
	if info.Live {
		return "live"
	}
	return info.Status
}

// matchWord says how well w (lower case) matches text (lower case): the
// whole text, its start, the start of one of its words, anywhere, or its
// letters in order (fuzzy).
func matchWord(w, text string) int {
	switch {
	case w == "" || text == "":
		return noMatch
	case text == w:
		return exactMatch
	case strings.HasPrefix(text, w):
		return prefixMatch
	}
	best := noMatch
	for i := strings.Index(text, w); i >= 0; {
		best = substringMatch
		if r, _ := utf8.DecodeLastRuneInString(text[:i]); !isWordRune(r) {
			return wordMatch
		}
		next := strings.Index(text[i+1:], w)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if best == noMatch && subsequence(w, text) {
		best = fuzzyMatch
	}
	return best
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// subsequence reports whether the runes of w appear in text in order.
func subsequence(w, text string) bool {
	for _, r := range w {
		i := strings.IndexRune(text, r)
		if i < 0 {
			return false
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		text = text[i+size:]
	}
	return true
}
