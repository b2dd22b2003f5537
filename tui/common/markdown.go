package common

import (
	"fmt"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// Markdown renders assistant text with glamour. It keeps one renderer per
// width (building one costs more than rendering a short block) and is safe
// for use from several goroutines: renders on one renderer are serialised.
type Markdown struct {
	dark bool
	mu   sync.Mutex
	byW  map[int]*mdRenderer
}

type mdRenderer struct {
	mu sync.Mutex
	r  *glamour.TermRenderer
}

// NewMarkdown returns a renderer cache for a dark or a light terminal.
func NewMarkdown(dark bool) *Markdown {
	return &Markdown{dark: dark, byW: map[int]*mdRenderer{}}
}

// Dark reports which background the cache renders for.
func (m *Markdown) Dark() bool { return m.dark }

// Render renders sanitized markdown text to lines at most width cells
// wide. Only SGR sequences survive in the result (see KeepSGR).
func (m *Markdown) Render(text string, width int) ([]string, error) {
	width = max(width, 1)
	r, err := m.renderer(width)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	out, err := r.r.Render(text)
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("render markdown: %w", err)
	}
	return markdownLines(out, width), nil
}

func (m *Markdown) renderer(width int) (*mdRenderer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.byW[width]; r != nil {
		return r, nil
	}
	tr, err := glamour.NewTermRenderer(glamour.WithStyles(markdownStyle(m.dark)), glamour.WithWordWrap(width))
	if err != nil {
		return nil, fmt.Errorf("markdown renderer: %w", err)
	}
	r := &mdRenderer{r: tr}
	m.byW[width] = r
	return r, nil
}

// markdownStyle is glamour's built-in style without the document margin
// and the blank lines around the document: the timeline indents and spaces
// blocks itself.
func markdownStyle(dark bool) gansi.StyleConfig {
	cfg := gstyles.LightStyleConfig
	if dark {
		cfg = gstyles.DarkStyleConfig
	}
	zero := uint(0)
	cfg.Document.Margin = &zero
	cfg.Document.BlockPrefix = ""
	cfg.Document.BlockSuffix = ""
	return cfg
}

// markdownLines splits glamour's output into lines, keeping only SGR
// sequences, dropping the blank lines around it and the padding glamour
// adds on the right, and cutting anything wider than width.
func markdownLines(out string, width int) []string {
	lines := strings.Split(KeepSGR(out), "\n")
	for i, l := range lines {
		l = trimRightSpaceANSI(l)
		if ansi.StringWidth(l) > width {
			l = ansi.Truncate(l, width, "")
		}
		lines[i] = l
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// trimRightSpaceANSI drops trailing spaces from a styled line, keeping the
// escape sequences that follow them.
func trimRightSpaceANSI(l string) string {
	plain := ansi.Strip(l)
	trimmed := strings.TrimRight(plain, " ")
	if len(trimmed) == len(plain) {
		return l
	}
	return ansi.Truncate(l, ansi.StringWidth(trimmed), "") + "\x1b[0m"
}
