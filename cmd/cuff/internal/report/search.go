package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/session/search"
)

// SearchRow is one search hit as `cuff search --format json` prints it.
type SearchRow struct {
	SessionID string    `json:"session_id"`
	Source    string    `json:"source"`
	Agent     string    `json:"agent,omitempty"`
	Title     string    `json:"title,omitempty"`
	Kind      string    `json:"kind"`
	Time      time.Time `json:"time"`
	Seq       int64     `json:"seq,omitempty"`
	Failed    bool      `json:"failed"`
	Tool      string    `json:"tool,omitempty"`
	Snippet   string    `json:"snippet"`
	// Highlights are the byte ranges [start, end) of Snippet that matched.
	Highlights [][2]int `json:"highlights"`
	Path       string   `json:"path"`
}

// SearchRows turns hits into rows (an empty list, not null, for none).
func SearchRows(hits []search.Hit) []SearchRow {
	rows := make([]SearchRow, len(hits))
	for i, h := range hits {
		hl := h.Highlights
		if hl == nil {
			hl = [][2]int{}
		}
		rows[i] = SearchRow{SessionID: h.SessionID, Source: h.Source, Agent: h.Agent, Title: h.Title, Kind: h.Kind.String(),
			Time: h.Time, Seq: h.Seq, Failed: h.Failed, Tool: h.Tool, Snippet: h.Snippet, Highlights: hl, Path: h.Path}
	}
	return rows
}

// searchTitleWidth bounds the session title shown beside a hit.
const searchTitleWidth = 50

// SearchHits prints hits for people: per hit, the session, when, what kind
// of text (and failed), the session's title, then the snippet with the
// words that matched in bold.
func SearchHits(w io.Writer, st Styles, hits []search.Hit) {
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(w)
		}
		kind := h.Kind.String()
		if h.Tool != "" && (h.Kind == search.KindTool || h.Kind == search.KindResult) {
			kind += " " + h.Tool
		}
		line := fmt.Sprintf("%s  %s  %s", h.SessionID, h.Time.Local().Format("2006-01-02 15:04"), kind)
		if h.Failed {
			line += "  " + st.Fail.Render("failed")
		}
		if t := oneLineTitle(h.Title); t != "" {
			line += "  " + st.Muted.Render(t)
		}
		fmt.Fprintln(w, line)
		fmt.Fprintln(w, "    "+highlight(st, h.Snippet, h.Highlights))
	}
}

func oneLineTitle(t string) string {
	t = strings.Join(strings.Fields(t), " ")
	if r := []rune(t); len(r) > searchTitleWidth {
		t = string(r[:searchTitleWidth-1]) + "…"
	}
	return t
}

// highlight renders the matched ranges of s in bold.
func highlight(st Styles, s string, ranges [][2]int) string {
	var b strings.Builder
	at := 0
	for _, r := range ranges {
		if r[0] < at || r[1] > len(s) || r[0] > r[1] {
			continue
		}
		b.WriteString(s[at:r[0]])
		b.WriteString(st.Bold.Render(s[r[0]:r[1]]))
		at = r[1]
	}
	b.WriteString(s[at:])
	return b.String()
}
