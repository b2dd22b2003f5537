package common

import (
	"fmt"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	cstyles "github.com/alecthomas/chroma/v2/styles"
)

// MaxHighlightBytes caps syntax highlighting: a bigger block is shown
// plain, so one huge command or diff cannot stall a frame.
const MaxHighlightBytes = 32 << 10

// Highlighter colours code with chroma. It writes foreground colours and
// bold/italic only (never a background, which would paint blocks on the
// terminal's own background), as SGR sequences in true colour that Bubble
// Tea brings down to what the terminal supports.
type Highlighter struct {
	style *chroma.Style
	mu    sync.Mutex
	sgr   map[chroma.TokenType]string
}

// NewHighlighter returns a highlighter for a dark or a light terminal.
func NewHighlighter(dark bool) *Highlighter {
	name := "github"
	if dark {
		name = "monokai"
	}
	return &Highlighter{style: cstyles.Get(name), sgr: map[chroma.TokenType]string{}}
}

// Code highlights sanitized source in language lang ("bash", "diff",
// "json", …) and returns its lines. Unknown languages, sources that do not
// tokenise and sources over MaxHighlightBytes come back plain.
func (h *Highlighter) Code(src, lang string) []string {
	if len(src) > MaxHighlightBytes {
		return strings.Split(src, "\n")
	}
	lexer := lexers.Get(lang)
	if lexer == nil {
		return strings.Split(src, "\n")
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, src)
	if err != nil {
		return strings.Split(src, "\n")
	}
	var b strings.Builder
	b.Grow(len(src) * 2)
	for tok := it(); tok != chroma.EOF; tok = it() {
		sgr := h.sgrOf(tok.Type)
		for i, part := range strings.Split(tok.Value, "\n") {
			if i > 0 {
				b.WriteByte('\n')
			}
			if part == "" {
				continue
			}
			if sgr == "" {
				b.WriteString(part)
				continue
			}
			b.WriteString(sgr)
			b.WriteString(part)
			b.WriteString("\x1b[0m")
		}
	}
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// sgrOf returns the SGR sequence that starts a token of type t.
func (h *Highlighter) sgrOf(t chroma.TokenType) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.sgr[t]; ok {
		return s
	}
	e := h.style.Get(t)
	var params []string
	if e.Bold == chroma.Yes {
		params = append(params, "1")
	}
	if e.Italic == chroma.Yes {
		params = append(params, "3")
	}
	if e.Colour.IsSet() {
		params = append(params, fmt.Sprintf("38;2;%d;%d;%d", e.Colour.Red(), e.Colour.Green(), e.Colour.Blue()))
	}
	s := ""
	if len(params) > 0 {
		s = "\x1b[" + strings.Join(params, ";") + "m"
	}
	h.sgr[t] = s
	return s
}
