package export

import (
	"bytes"
	"fmt"
	"html/template"
	"strings"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// safeMarkdownPriority puts the safe node renderers before goldmark's own
// (priority 1000), so that theirs are replaced.
const safeMarkdownPriority = 100

// markdownHTML renders the markdown of chat messages to HTML that does
// nothing but show text: goldmark with raw HTML off, plus renderers that
// show raw HTML as escaped text instead of dropping it, turn images into
// text (an export loads nothing from elsewhere), and make a link only of an
// http, https or mailto URL or an in-page anchor; any other link (javascript:,
// data:, file:, a relative path) is shown as text with its URL beside it.
type markdownHTML struct {
	md  goldmark.Markdown
	buf bytes.Buffer
}

func newMarkdownHTML() *markdownHTML {
	md := goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.Linkify),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(safeNodes{}, safeMarkdownPriority))),
	)
	return &markdownHTML{md: md}
}

// render turns markdown text (made inert first) into HTML.
func (m *markdownHTML) render(text string) (template.HTML, error) {
	m.buf.Reset()
	if err := m.md.Convert([]byte(transcript.Inert(text)), &m.buf); err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	return template.HTML(m.buf.String()), nil // goldmark escapes text; safeNodes handle the rest
}

// safeNodes renders the nodes that could reach outside the document or
// carry markup of the recording's own.
type safeNodes struct{}

// RegisterFuncs implements renderer.NodeRenderer.
func (safeNodes) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindAutoLink, renderAutoLink)
	reg.Register(ast.KindImage, renderImage)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
}

func renderLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	href, ok := safeHref(string(n.Destination))
	switch {
	case entering && ok:
		w.WriteString(`<a href="`)
		w.WriteString(template.HTMLEscapeString(href))
		w.WriteString(`" rel="noopener noreferrer nofollow"`)
		if n.Title != nil {
			w.WriteString(` title="`)
			w.WriteString(template.HTMLEscapeString(string(n.Title)))
			w.WriteString(`"`)
		}
		w.WriteString(">")
	case ok:
		w.WriteString("</a>")
	case !entering:
		writeURLText(w, string(n.Destination))
	}
	return ast.WalkContinue, nil
}

func renderAutoLink(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	url, label := string(n.URL(source)), string(n.Label(source))
	if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
		url = "mailto:" + url
	}
	if href, ok := safeHref(url); ok {
		w.WriteString(`<a href="`)
		w.WriteString(template.HTMLEscapeString(href))
		w.WriteString(`" rel="noopener noreferrer nofollow">`)
		w.WriteString(template.HTMLEscapeString(label))
		w.WriteString("</a>")
		return ast.WalkContinue, nil
	}
	w.WriteString(template.HTMLEscapeString(label))
	return ast.WalkContinue, nil
}

// renderImage shows an image as its alt text and address: an export must
// not load anything when it is opened.
func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Image)
	if entering {
		w.WriteString(`<span class="img">[image: `)
		return ast.WalkContinue, nil
	}
	w.WriteString("]</span>")
	writeURLText(w, string(n.Destination))
	return ast.WalkContinue, nil
}

func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	w.WriteString("<code>")
	for i := 0; i < n.Segments.Len(); i++ {
		seg := n.Segments.At(i)
		w.WriteString(template.HTMLEscapeString(string(seg.Value(source))))
	}
	w.WriteString("</code>")
	return ast.WalkSkipChildren, nil
}

func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if entering {
		w.WriteString("<pre>")
		for i := 0; i < n.Lines().Len(); i++ {
			line := n.Lines().At(i)
			w.WriteString(template.HTMLEscapeString(string(line.Value(source))))
		}
		return ast.WalkContinue, nil
	}
	if n.HasClosure() {
		w.WriteString(template.HTMLEscapeString(string(n.ClosureLine.Value(source))))
	}
	w.WriteString("</pre>\n")
	return ast.WalkContinue, nil
}

// writeURLText writes a URL as visible text after a link's words.
func writeURLText(w util.BufWriter, url string) {
	if url == "" {
		return
	}
	w.WriteString(` <code class="url">`)
	w.WriteString(template.HTMLEscapeString(url))
	w.WriteString("</code>")
}

// safeHref returns the address a link may point to: an http, https or
// mailto URL, or an anchor in the page. Browsers drop tabs and newlines
// inside URLs and leading spaces and controls, so they are dropped before
// the scheme is read; anything else, relative paths included, is refused.
func safeHref(dest string) (string, bool) {
	clean := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, dest)
	clean = strings.TrimLeft(clean, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	if clean == "" || strings.ContainsAny(clean, "\x00\\") || !transcript.IsInert(clean) {
		return "", false
	}
	if strings.HasPrefix(clean, "#") {
		return clean, true
	}
	scheme, _, found := strings.Cut(clean, ":")
	if !found {
		return "", false
	}
	switch strings.ToLower(scheme) {
	case "http", "https":
		if strings.HasPrefix(clean[len(scheme)+1:], "//") {
			return clean, true
		}
	case "mailto":
		return clean, true
	}
	return "", false
}
