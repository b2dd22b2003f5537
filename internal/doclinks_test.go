package internal

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// mdLink finds inline markdown links: [text](target).
var mdLink = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)

// TestDocLinks checks every relative link of the README and docs/: the file
// it names exists, and a #fragment names a heading of that file.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "README.md"))
	checked := 0
	for _, f := range files {
		for _, target := range links(t, f) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
			}
			rel, _ := filepath.Rel(root, f)
			if _, err := os.Stat(dest); err != nil {
				t.Errorf("%s: link %q: %v", rel, target, err)
				continue
			}
			checked++
			if frag == "" || !strings.HasSuffix(dest, ".md") {
				continue
			}
			if !anchors(t, dest)[frag] {
				t.Errorf("%s: link %q: no heading with that anchor in %s", rel, target, filepath.Base(dest))
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative links found: is the test looking in the right place?")
	}
}

// links returns the targets of a markdown file's links outside code blocks.
func links(t *testing.T, path string) []string {
	var out []string
	for _, line := range prose(t, path) {
		for _, m := range mdLink.FindAllStringSubmatch(stripCode(line), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// anchors returns the anchors GitHub gives the headings of a markdown file.
func anchors(t *testing.T, path string) map[string]bool {
	out := map[string]bool{}
	for _, line := range prose(t, path) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		out[b.String()] = true
	}
	return out
}

// prose returns the lines of a markdown file that are not in fenced code.
func prose(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line)
		}
	}
	return out
}

// stripCode removes inline code spans, whose brackets are not links.
func stripCode(line string) string {
	parts := strings.Split(line, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 0 {
			b.WriteString(p)
		}
	}
	return b.String()
}
