package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"golang.org/x/net/html"
)

// htmlAllowed is every element the page may contain: the template's own and
// what the markdown renderer makes of chat text.
var htmlAllowed = map[string]bool{
	"html": true, "head": true, "body": true, "meta": true, "title": true, "style": true, "section": true,
	"header": true, "footer": true, "h1": true, "dl": true, "dt": true, "dd": true, "ol": true, "ul": true,
	"li": true, "div": true, "span": true, "strong": true, "code": true, "pre": true, "details": true,
	"summary": true,
	// markdown
	"p": true, "em": true, "a": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"blockquote": true, "hr": true, "br": true, "del": true, "table": true, "thead": true, "tbody": true,
	"tr": true, "th": true, "td": true,
}

// htmlAttrs is every attribute the page may carry.
var htmlAttrs = map[string]bool{"lang": true, "charset": true, "name": true, "content": true, "http-equiv": true,
	"class": true, "open": true, "href": true, "rel": true, "title": true, "start": true, "align": true}

// checkInert parses page and fails on anything live: a script, an event
// handler, a URL that is not http(s), mailto or an anchor, an element or
// attribute the templates do not make, and a style sheet other than ours.
func checkInert(t *testing.T, page string) {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatalf("page does not parse: %v", err)
	}
	styles := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.ElementNode:
			if !htmlAllowed[n.Data] {
				t.Errorf("element <%s> is not one of the template's", n.Data)
			}
			if n.Data == "style" {
				styles++
				if n.FirstChild == nil || n.FirstChild.Data != string(htmlCSS) {
					t.Errorf("style sheet is not ours")
				}
			}
			for _, a := range n.Attr {
				key := strings.ToLower(a.Key)
				if strings.HasPrefix(key, "on") || !htmlAttrs[key] {
					t.Errorf("<%s> has attribute %s=%q", n.Data, a.Key, a.Val)
				}
				if key == "href" {
					v := strings.ToLower(strings.TrimSpace(a.Val))
					if !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "mailto:") && !strings.HasPrefix(v, "#") {
						t.Errorf("link to %q", a.Val)
					}
				}
				if key == "http-equiv" && a.Val != "Content-Security-Policy" {
					t.Errorf("meta http-equiv=%q", a.Val)
				}
			}
		case html.CommentNode:
			t.Errorf("comment in page: %q", n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if styles != 1 {
		t.Errorf("%d style elements", styles)
	}
	for _, bad := range []string{"\x1b", "\u202e", "\u2066", "\x00", "\x07"} {
		if strings.Contains(page, bad) {
			t.Errorf("page carries the raw control %q", bad)
		}
	}
}

// hostileStrings is text a compromised agent or a hostile file might put in
// a recording.
var hostileStrings = []string{
	`<script>alert(1)</script>`,
	`<img src=x onerror=alert(1)>`,
	`<a href="javascript:alert(1)">x</a>`,
	`[click](javascript:alert(1))`,
	`[click](<java	script:alert(1)>)`,
	`[click](&#x6A;avascript:alert(1))`,
	`[data](data:text/html;base64,PHNjcmlwdD4=)`,
	`![pixel](https://tracker.example/p.png)`,
	`<javascript:alert(1)>`,
	"</details></pre></li></ol><script>alert(1)</script>",
	"<!-- open comment",
	"--> <svg/onload=alert(1)>",
	"<style>body{display:none}</style>",
	"<iframe src=https://evil.example></iframe>",
	"<div onmouseover=\"alert(1)\">hover</div>",
	"\x1b]52;c;cm0gLXJmIH4=\x07 clipboard",
	"bidi \u202eevil\u202c and \u2066isolate\u2069",
	"nul \x00 bell \x07",
	"```\n</code></pre><script>x</script>\n```",
	"``` \"><script>alert(1)</script>\ncode\n```",
	"<textarea>", "<title>", "<noscript>", "<![CDATA[ x ]]>", "<base href=https://evil.example/>",
	"<meta http-equiv=refresh content=0;url=https://evil.example>",
	"[x](https://ok.example \"title\\\" onclick=alert(1)\")",
	"| a | b |\n|---|---|\n| <script> | x |",
}

func hostileSession(add func(transcript.Body, string, string) *transcript.Event) {
	all := strings.Join(hostileStrings, "\n\n")
	big := strings.Repeat("<script>alert(1)</script> "+"\u202e\x1b[2J", 1<<20/35)
	add(&transcript.ChatTurn{Role: "user", Text: all}, "", "")
	for _, s := range hostileStrings {
		add(&transcript.ChatTurn{Role: "assistant", Text: s, Model: s}, "", "")
	}
	add(&transcript.ChatTurn{Role: "assistant", Thinking: true, Text: all}, "", "")
	add(&transcript.ChatTurn{Role: "system", Text: all}, "", "")
	input, _ := json.Marshal(map[string]string{"html": all})
	add(&transcript.ToolCall{Tool: "<b>Read</b>", Input: input}, "t1", "")
	add(&transcript.ToolResult{Tool: "Read", Output: big, IsError: true}, "t1", "")
	edit, _ := json.Marshal(map[string]string{"file_path": "<x>.go", "old_string": all, "new_string": "</pre>"})
	add(&transcript.ToolCall{Tool: "Edit", Input: edit}, "t2", "")
	add(&transcript.BashStart{Command: all, WorkingDirectory: all}, "b1", "")
	add(&transcript.BashRun{Command: all, WorkingDirectory: all, Description: all, ExitCode: ptrInt(2),
		Stdout: big, Stderr: all, Error: &transcript.RunError{Code: all, Message: all}}, "b1", "")
	add(&transcript.Delegation{Phase: "start", AgentType: all, Task: all}, all, "")
	add(&transcript.BashRun{Command: all, TimedOut: true}, "b2", all)
	add(&transcript.Delegation{Phase: "end", Result: all, Success: ptrBool(true)}, all, "")
	add(&transcript.ApprovalRequest{RequestID: all, Tool: all, Command: all, Diff: all, Taint: []string{all},
		Verdict: &transcript.Verdict{Decision: all, Tier: all, Rule: all, Reasons: []string{all}}}, "a1", "")
	add(&transcript.ApprovalDecision{RequestID: all, Decision: all, By: all, Scope: all, Reason: all, RuleAdded: all}, "a1", "")
	ev := add(&transcript.SessionEnd{}, "", "")
	ev.Body, ev.Type = nil, transcript.Type(all)
	raw, _ := json.Marshal(map[string]string{"type": all, "x": all})
	ev.Raw = raw
}

func TestHTMLOfHostileTranscriptIsInert(t *testing.T) {
	s := fixtureStore(t)
	id := recordSession(t, s, time.Now().Add(-time.Hour), hostileSession)
	// The title comes from the first prompt, so it is hostile too.
	var buf bytes.Buffer
	w, err := NewHTMLWriter(&buf, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := exportTo(t, s, w)
	if n := len(readAll(t, s, id)); res.Events != int64(n) {
		t.Errorf("%d events exported of %d", res.Events, n)
	}
	page := buf.String()
	if len(page) < 1<<20 {
		t.Errorf("page of %d bytes lost the 1 MB output", len(page))
	}
	checkInert(t, page)
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\u202e`, `\x1b]52;c;`, "[image: pixel]",
		"https://tracker.example/p.png", "<details", "✗ exit 2", "↳ Delegated to"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestHTMLTimeline(t *testing.T) {
	s := fixtureStore(t)
	recordSession(t, s, time.Date(2026, 1, 18, 14, 30, 0, 0, time.UTC), everyKind)
	recordSession(t, s, time.Date(2026, 1, 19, 9, 0, 0, 0, time.UTC), func(add func(transcript.Body, string, string) *transcript.Event) {
		add(&transcript.ChatTurn{Role: "assistant", Text: "# Plan\n\n- **one**\n- `two`\n\n[docs](https://go.dev/doc)"}, "", "")
	})
	var buf bytes.Buffer
	w, err := NewHTMLWriter(&buf, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exportTo(t, s, w)
	page := buf.String()
	checkInert(t, page)
	doc, _ := html.Parse(strings.NewReader(page))
	var sections, items, details, subs int
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			cls := ""
			for _, a := range n.Attr {
				if a.Key == "class" {
					cls = a.Val
				}
			}
			switch {
			case n.Data == "section":
				sections++
			case n.Data == "li" && (cls == "ev" || strings.HasPrefix(cls, "ev ")):
				items++
				if strings.Contains(cls, " sub d1") {
					subs++
				}
			case n.Data == "details":
				details++
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if sections != 2 {
		t.Errorf("%d sections", sections)
	}
	// everyKind: 16 events (start, 14, end) with 3 pairs joined → 13 items,
	// plus start, turn and end of the second session.
	if items != 13+3 {
		t.Errorf("%d timeline items", items)
	}
	if subs != 1 {
		t.Errorf("%d items inside the delegation", subs)
	}
	for _, want := range []string{
		`<div class="prompt">Fix the test, please.</div>`,
		`✗ exit 1`, `✓ exit 0`, `⏱ timed out after 60 s`, `<code class="cmd">$ go test ./...</code>`,
		`2.3 s`, `stdout`, `stderr`, `Output was truncated (4.9 KB in all)`,
		`↳ Delegated to tester`, `↲ ✗ tester failed`, `✗ denied`, `Decision: deny (by tui, scope once): no`,
		`no result`, `Event of a kind this version does not know: future_kind`,
		`<h1>Plan</h1>`, `<strong>one</strong>`, `<code>two</code>`, `<a href="https://go.dev/doc" rel="noopener noreferrer nofollow">docs</a>`,
		`claude-x · 1,200 in / 30 out tokens`, `2026-01-18 14:30:00`, `2026-01-19 09:00:00`,
		`agent claude-code (source claude-hook) · in /home/dev/proj · host linux/amd64 devbox · cuff 0.1.0`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.HasSuffix(page, "</html>\n") {
		t.Errorf("page is not a whole document")
	}
}

func TestHTMLEmptyExportIsAPage(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewHTMLWriter(&buf, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	checkInert(t, buf.String())
	if !strings.Contains(buf.String(), "<title>cuff export</title>") {
		t.Errorf("%s", buf.String())
	}
}

// TestHTMLWindowBoundsMemory checks that calls whose results never come do
// not pile up: each is shown on its own once the window is full.
func TestHTMLWindowBoundsMemory(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewHTMLWriter(&buf, HTMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3*maxPendingEvents; i++ {
		ev := transcript.New("s", time.Unix(int64(i), 0), &transcript.ToolCall{Tool: "Task"})
		ev.CallID = "never" + string(rune('a'+i%26)) + strings.Repeat("x", i)
		if err := w.Write(ev); err != nil {
			t.Fatal(err)
		}
		if len(w.queue) > maxPendingEvents+1 {
			t.Fatalf("%d events held", len(w.queue))
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `<li class="ev`); n != 3*maxPendingEvents {
		t.Errorf("%d items", n)
	}
}

// FuzzHTMLChat checks that no chat text, tool name or output becomes markup.
func FuzzHTMLChat(f *testing.F) {
	for _, s := range hostileStrings {
		f.Add(s, "Bash", s)
	}
	f.Add("plain **bold** [a](https://x)", "<t>", "")
	f.Fuzz(func(t *testing.T, text, tool, output string) {
		var buf bytes.Buffer
		w, err := NewHTMLWriter(&buf, HTMLOptions{})
		if err != nil {
			t.Fatal(err)
		}
		evs := []*transcript.Event{
			transcript.New("s", time.Unix(1, 0), &transcript.ChatTurn{Role: "assistant", Text: text}),
			transcript.New("s", time.Unix(2, 0), &transcript.ChatTurn{Role: "user", Text: text}),
			transcript.New("s", time.Unix(3, 0), &transcript.ToolCall{Tool: tool}),
			transcript.New("s", time.Unix(4, 0), &transcript.ToolResult{Tool: tool, Output: output}),
			transcript.New("s", time.Unix(5, 0), &transcript.BashRun{Command: text, Stdout: output, ExitCode: ptrInt(0)}),
		}
		evs[2].CallID, evs[3].CallID = "c", "c"
		for _, ev := range evs {
			if err := w.Write(ev); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		checkInert(t, buf.String())
	})
}
