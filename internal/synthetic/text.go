// Package synthetic writes agent histories for benchmarks and load tests:
// Claude Code transcripts and Codex rollouts in the shapes the real agents
// write (see the project's notes on the formats), of any size, from a
// seed, so that a measurement can be repeated on the same bytes. Nothing
// here is used by cuff itself.
package synthetic

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// text draws prose, code and tool output from a seeded source.
type text struct {
	r       *rand.Rand
	project string
}

func newText(seed uint64, project string) *text {
	return &text{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), project: project}
}

func (t *text) word() string           { return words[t.r.IntN(len(words))] }
func (t *text) ident() string          { return identifiers[t.r.IntN(len(identifiers))] }
func (t *text) pick(s []string) string { return s[t.r.IntN(len(s))] }

// between returns a number in [lo, hi].
func (t *text) between(lo, hi int) int { return lo + t.r.IntN(hi-lo+1) }

// sentence is n to m words, capitalised, ending in a full stop.
func (t *text) sentence(n, m int) string {
	k := t.between(n, m)
	var b strings.Builder
	for i := range k {
		w := t.word()
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		} else {
			b.WriteByte(' ')
		}
		if t.r.IntN(25) == 0 {
			w = "`" + t.ident() + "." + t.ident() + "`"
		}
		b.WriteString(w)
	}
	b.WriteByte('.')
	return b.String()
}

// paragraph is a few sentences.
func (t *text) paragraph() string {
	k := t.between(1, 4)
	s := make([]string, k)
	for i := range s {
		s[i] = t.sentence(5, 18)
	}
	return strings.Join(s, " ")
}

// answer is an assistant's markdown: paragraphs, sometimes a list or a
// code block.
func (t *text) answer() string {
	var parts []string
	for range t.between(1, 3) {
		parts = append(parts, t.paragraph())
	}
	if t.r.IntN(3) == 0 {
		var list []string
		for range t.between(2, 5) {
			list = append(list, "- "+t.sentence(3, 10))
		}
		parts = append(parts, strings.Join(list, "\n"))
	}
	if t.r.IntN(4) == 0 {
		parts = append(parts, "```go\n"+t.code(t.between(3, 12), 0)+"```")
	}
	return strings.Join(parts, "\n\n")
}

// path is a file in the project.
func (t *text) path() string {
	d := t.pick(dirs)
	name := strings.ToLower(t.ident()) + t.pick(extensions)
	if t.r.IntN(2) == 0 {
		return "/home/dev/" + t.project + "/" + d + "/" + strings.ToLower(t.ident()) + "/" + name
	}
	return "/home/dev/" + t.project + "/" + d + "/" + name
}

// codeLine is one line of Go-like code.
func (t *text) codeLine() string {
	a, b := t.ident(), t.ident()
	switch t.r.IntN(9) {
	case 0:
		return fmt.Sprintf("func (s *%s) %s(ctx context.Context, %s string) error {", a, b, strings.ToLower(t.ident()))
	case 1:
		return fmt.Sprintf("\treturn fmt.Errorf(\"%s %%s: %%w\", %s, err)", t.word(), strings.ToLower(a))
	case 2:
		return fmt.Sprintf("\tif err := s.%s.%s(ctx); err != nil {", strings.ToLower(a), b)
	case 3:
		return "\t}"
	case 4:
		return fmt.Sprintf("\t// %s", t.sentence(4, 12))
	case 5:
		return fmt.Sprintf("\t%s := make(map[string]*%s, len(%s))", strings.ToLower(a), b, strings.ToLower(t.ident()))
	case 6:
		return fmt.Sprintf("\tfor _, %s := range %s.%s {", strings.ToLower(a[:1]), strings.ToLower(b), t.ident())
	case 7:
		return "}"
	}
	return ""
}

// code is n lines of code; with number > 0, numbered from it as Claude
// Code's Read tool shows a file.
func (t *text) code(n, number int) string {
	var b strings.Builder
	for i := range n {
		if number > 0 {
			fmt.Fprintf(&b, "%6d→", number+i)
		}
		b.WriteString(t.codeLine())
		b.WriteByte('\n')
	}
	return b.String()
}

// output is what a shell command printed, and whether it failed.
func (t *text) output(command string, fail bool) string {
	var b strings.Builder
	mod := "github.com/acme/" + t.project
	switch {
	case strings.HasPrefix(command, "go test"), strings.HasPrefix(command, "make test"):
		for range t.between(3, 25) {
			fmt.Fprintf(&b, "ok  \t%s/%s/%s\t%d.%03ds\n", mod, t.pick(dirs), strings.ToLower(t.ident()), t.r.IntN(3), t.r.IntN(1000))
		}
		if fail {
			name := "Test" + t.ident() + t.ident()
			fmt.Fprintf(&b, "--- FAIL: %s (0.%02ds)\n    %s_test.go:%d: %s\nFAIL\nFAIL\t%s/%s\t0.%03ds\nFAIL\n",
				name, t.r.IntN(100), strings.ToLower(t.ident()), t.between(10, 400), t.sentence(4, 10), mod, t.pick(dirs), t.r.IntN(1000))
		}
	case strings.HasPrefix(command, "git log"):
		for range t.between(5, 20) {
			fmt.Fprintf(&b, "%07x %s\n", t.r.Uint32()&0xfffffff, t.sentence(3, 9))
		}
	case strings.HasPrefix(command, "git status"):
		b.WriteString("On branch main\nChanges not staged for commit:\n")
		for range t.between(1, 6) {
			fmt.Fprintf(&b, "\tmodified:   %s\n", strings.TrimPrefix(t.path(), "/home/dev/"+t.project+"/"))
		}
	case strings.HasPrefix(command, "git diff"):
		p := strings.TrimPrefix(t.path(), "/home/dev/"+t.project+"/")
		fmt.Fprintf(&b, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n@@ -%d,7 +%d,8 @@\n", p, p, p, p, t.between(1, 300), t.between(1, 300))
		for range t.between(4, 30) {
			b.WriteString(t.pick([]string{" ", "+", "-"}) + t.codeLine() + "\n")
		}
	case strings.HasPrefix(command, "ls"):
		for range t.between(4, 30) {
			fmt.Fprintf(&b, "-rw-r--r--  1 dev dev %6d Mar %2d 10:%02d %s%s\n", t.r.IntN(90000), t.between(1, 28), t.r.IntN(60), strings.ToLower(t.ident()), t.pick(extensions))
		}
	case strings.HasPrefix(command, "rg"), strings.HasPrefix(command, "grep"):
		for range t.between(3, 40) {
			fmt.Fprintf(&b, "%s:%d:%s\n", strings.TrimPrefix(t.path(), "/home/dev/"+t.project+"/"), t.between(1, 900), t.codeLine())
		}
	default:
		for range t.between(1, 12) {
			b.WriteString(t.sentence(3, 12) + "\n")
		}
	}
	if fail && !strings.Contains(b.String(), "FAIL") {
		fmt.Fprintf(&b, "error: %s\n", t.sentence(3, 9))
	}
	return b.String()
}

// uuid is a random version-4 uuid.
func (t *text) uuid() string {
	a, b := t.r.Uint64(), t.r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>48&0x3fff|0x8000, b&0xffffffffffff)
}

// base64ish is n characters that look like a signature.
func (t *text) base64ish(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[t.r.IntN(len(alphabet))]
	}
	return string(b)
}

// gap is a pause of lo to hi seconds.
func (t *text) gap(lo, hi float64) time.Duration {
	return time.Duration((lo + t.r.Float64()*(hi-lo)) * float64(time.Second))
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst []byte, s string) []byte { return transcript.AppendJSONString(dst, s) }
