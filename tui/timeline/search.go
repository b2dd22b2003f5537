package timeline

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/internal/jsonstr"
	"github.com/cuff-dev/cuff/transcript"
)

// Contains reports whether any text of the item holds query: ignoring case
// when query has no upper-case letter ("smart case"). Outputs left in the
// session file are read back; one that cannot be read does not match. To
// look through many items, a Search reads less often.
func (it *Item) Contains(query string) bool {
	return NewSearch(query).Match(it)
}

// searchWindow is how much of the session file a search reads at a time:
// the outputs of neighbouring items come with one read.
const searchWindow = 1 << 20

// Search looks for a query in items, as Item.Contains does. It reads the
// outputs left in the session file through a window of the file, so that
// going through the items in order reads the file in big pieces.
type Search struct {
	query string
	q     []byte // query, to look through bytes
	fold  bool
	plain bool // q can be looked for in escaped bytes

	win    []byte // bytes of the file from winOff
	winOff int64
	winB   *backing
	text   []byte // an unescaped output
}

// NewSearch prepares a search for query.
func NewSearch(query string) *Search {
	s := &Search{query: query, q: []byte(query), fold: !hasUpper(query)}
	s.plain = plainQuery(s.q, s.fold)
	return s
}

// Match reports whether any text of it holds the query.
func (s *Search) Match(it *Item) bool {
	if s.query == "" {
		return false
	}
	if it.first != nil && s.matchBody(it.first) || it.second != nil && s.matchBody(it.second) {
		return true
	}
	if it.first == nil && it.more != nil {
		if ev := it.more.first; ev != nil { // an unknown kind: searched raw
			if s.matchString(string(ev.Type)) || s.matchString(string(ev.Raw)) {
				return true
			}
		}
		if s.matchString(it.more.text) {
			return true
		}
	}
	return it.spill.refs(func(r *fieldRef) bool { return s.matchSpilled(it.spill.b, r) })
}

func (s *Search) matchString(text string) bool {
	return text != "" && index(text, s.query, s.fold) >= 0
}

// matchBody looks through the texts of one body.
func (s *Search) matchBody(body transcript.Body) bool {
	var texts [5]string
	out := texts[:0]
	switch b := body.(type) {
	case *transcript.ChatTurn:
		out = append(out, b.Text)
	case *transcript.ToolCall:
		out = append(out, b.Tool, string(b.Input))
	case *transcript.ToolResult:
		out = append(out, b.Tool, b.Output)
		if b.IsError {
			out = append(out, "error")
		}
	case *transcript.BashStart:
		out = append(out, b.Command, b.WorkingDirectory)
	case *transcript.BashRun:
		out = append(out, b.Command, b.Stdout, b.Stderr, b.Description, runStatus(b))
	case *transcript.Delegation:
		out = append(out, b.AgentType, b.Task, b.Result)
	case *transcript.ApprovalRequest:
		out = append(out, b.Command, b.Tool, b.Diff)
		if b.Verdict != nil {
			for _, r := range b.Verdict.Reasons {
				if s.matchString(r) {
					return true
				}
			}
		}
	case *transcript.ApprovalDecision:
		out = append(out, b.Decision, b.Reason)
	case *transcript.SessionStart:
		out = append(out, b.Agent, b.WorkingDirectory, b.Title)
	case *transcript.SessionEnd:
		out = append(out, b.Status)
	}
	for _, t := range out {
		if s.matchString(t) {
			return true
		}
	}
	return false
}

// matchSpilled reads an output back and looks through it.
func (s *Search) matchSpilled(b *backing, r *fieldRef) bool {
	end := r.off + int64(r.raw)
	if s.winB != b || r.off < s.winOff || end > s.winOff+int64(len(s.win)) {
		if cap(s.win) < max(searchWindow, int(r.raw)) {
			s.win = make([]byte, max(searchWindow, int(r.raw)))
		}
		// An output that cannot be read back (the file was closed or cut
		// short) does not match; showing it says why (Item.Field).
		n, _ := b.r.ReadAt(s.win[:cap(s.win)], r.off)
		if n < int(r.raw) {
			s.winB = nil
			return false
		}
		s.win, s.winOff, s.winB = s.win[:n], r.off, b
	}
	raw := s.win[r.off-s.winOff : end-s.winOff]
	if !r.same(raw) {
		return false // the file changed: what it holds now is not the output
	}
	if r.plain && s.plain {
		return rawIndex(raw, s.q, s.fold) >= 0
	}
	text, err := jsonstr.Unescape(s.text[:0], raw)
	if err != nil {
		return false
	}
	s.text = text[:0]
	return indexBytes(text, s.q, s.fold) >= 0
}

// plainQuery reports whether a query can be looked for in the escaped
// bytes of a JSON string (see rawIndex): it holds no character that JSON
// escapes with a backslash of its own (", \, / and control characters),
// and its first letter is ASCII when case is ignored.
func plainQuery(q []byte, fold bool) bool {
	for _, c := range q {
		if c == '"' || c == '\\' || c == '/' || c < ' ' {
			return false
		}
	}
	return len(q) > 0 && (!fold || q[0] < utf8.RuneSelf)
}

// rawIndex finds a plain query (see plainQuery) in the escaped contents of
// a JSON string that are valid UTF-8 and hold no \u escape, without
// unescaping them: the position of a match in raw, or -1. Every character
// of such a query is written as itself, and none is the second half of an
// escape, so the text holds the query exactly when raw holds it at a
// place not just after an escaping backslash.
func rawIndex(raw, q []byte, fold bool) int {
	for from := 0; from+len(q) <= len(raw); {
		i := indexBytes(raw[from:], q, fold)
		if i < 0 {
			return -1
		}
		p := from + i
		n := 0
		for p-n > 0 && raw[p-n-1] == '\\' {
			n++
		}
		if n%2 == 0 {
			return p
		}
		from = p + 1
	}
	return -1
}

// runStatus names how a run ended, so that a search for "timed out" or
// "exit 1" finds it.
func runStatus(b *transcript.BashRun) string {
	switch {
	case b.TimedOut:
		return "timed out"
	case b.Interrupted:
		return "interrupted"
	case b.ExitCode != nil:
		return "exit " + strconv.Itoa(*b.ExitCode)
	}
	return ""
}

func hasUpper(s string) bool {
	for _, r := range s {
		if unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// index finds query in s, ignoring case when fold is set, without
// allocating for an ASCII first letter: candidates are found by the first
// byte, then compared with strings.EqualFold.
func index(s, query string, fold bool) int {
	if !fold {
		return strings.Index(s, query)
	}
	q0, size := utf8.DecodeRuneInString(query)
	if q0 >= utf8.RuneSelf || size != 1 {
		return indexFoldRunes(s, query)
	}
	return indexFold(s, query, byte(unicode.ToLower(q0)), byte(unicode.ToUpper(q0)), strings.IndexByte, strings.EqualFold)
}

// indexFold finds query in s ignoring case, for a query whose first letter
// is ASCII (lo and up are its two cases): the places where s holds lo or
// up are found with indexByte, and compared there with equalFold.
func indexFold[T ~string | ~[]byte](s, query T, lo, up byte, indexByte func(T, byte) int, equalFold func(T, T) bool) int {
	end := len(s) - len(query) + 1 // where a match can start, below
	nextLo, nextUp := -2, -2       // where lo and up come next (-1: nowhere)
	for i := 0; i < end; {
		if nextLo != -1 && nextLo < i {
			if nextLo = indexByte(s[i:end], lo); nextLo >= 0 {
				nextLo += i
			}
		}
		if lo == up {
			nextUp = nextLo
		} else if nextUp != -1 && nextUp < i {
			if nextUp = indexByte(s[i:end], up); nextUp >= 0 {
				nextUp += i
			}
		}
		c := nextLo
		if c < 0 || (nextUp >= 0 && nextUp < c) {
			c = nextUp
		}
		if c < 0 {
			return -1
		}
		if equalFold(s[c:c+len(query)], query) {
			return c
		}
		i = c + 1
	}
	return -1
}

// indexBytes is index over bytes.
func indexBytes(s, query []byte, fold bool) int {
	if !fold {
		return bytes.Index(s, query)
	}
	q0, size := utf8.DecodeRune(query)
	if q0 >= utf8.RuneSelf || size != 1 {
		return indexFoldRunes(string(s), string(query))
	}
	return indexFold(s, query, byte(unicode.ToLower(q0)), byte(unicode.ToUpper(q0)), bytes.IndexByte, bytes.EqualFold)
}

// IndexFold is the smart-case search the view highlights with: the byte
// offset of query in s, or -1.
func IndexFold(s, query string) int {
	if query == "" {
		return -1
	}
	return index(s, query, !hasUpper(query))
}

// indexFoldRunes finds query in s ignoring case, for a query that starts
// with a non-ASCII letter. It compares at each rune of s, so the offset it
// returns is one in s, and s[i:i+len(query)] is in range (lower-casing
// all of s first could change its length: Ⱥ is 2 bytes, ⱥ 3).
func indexFoldRunes(s, query string) int {
	for i := 0; i+len(query) <= len(s); {
		if strings.EqualFold(s[i:i+len(query)], query) {
			return i
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return -1
}
