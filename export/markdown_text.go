package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// headingCommandLength bounds a command shown in a heading.
const headingCommandLength = 60

// Fence returns a code fence of backticks longer than any run of backticks
// in content (at least three), so content can never close it early.
func Fence(content string) string {
	longest, run := 0, 0
	for i := 0; i < len(content); i++ {
		if content[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// inlineCode writes s on one line as a code span that its own backticks
// cannot end.
func inlineCode(s string) string {
	s = oneLine(s, 0)
	if s == "" {
		return "`∅`"
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	ticks := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// oneLine makes s inert and folds it onto one line; n > 0 bounds its
// length in runes (with an ellipsis).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(transcript.Inert(s)), " ")
	if n > 0 {
		if r := []rune(s); len(r) > n {
			s = string(r[:n-1]) + "…"
		}
	}
	return s
}

// plain makes s inert, folds it onto one line and escapes what markdown or
// HTML would act on, for free text inside a line of the document.
func plain(s string) string {
	s = oneLine(s, 0)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '|', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// htmlText escapes s for an HTML element such as <summary>.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(oneLine(s, 0))
}

// closeFences closes a code fence that text opens and never closes, so that
// a cut-off message cannot swallow the rest of the document.
func closeFences(text string) string {
	var open string // the opening fence's characters, "" when outside one
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimLeft(l, " ")
		if len(l)-len(t) > 3 {
			continue
		}
		n := 0
		for n < len(t) && (t[n] == '`' || t[n] == '~') && t[n] == t[0] {
			n++
		}
		if n < 3 {
			continue
		}
		fence := t[:n]
		switch {
		case open == "":
			if fence[0] == '`' && strings.Contains(t[n:], "`") {
				continue // not a fence: an info string cannot hold backticks
			}
			open = fence
		case fence[0] == open[0] && n >= len(open) && strings.TrimSpace(t[n:]) == "":
			open = ""
		}
	}
	if open == "" {
		return text
	}
	return strings.TrimRight(text, "\n") + "\n" + open
}

// prettyJSON indents raw JSON; what is not JSON comes back as it was.
func prettyJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// runMark is a run's mark: ✅ or ❌, or ⏩ for one left in the background.
func runMark(r *transcript.BashRun) string {
	if r.InBackground() {
		return "⏩"
	}
	return okMark(!r.Failed())
}

func okMark(ok bool) string {
	if ok {
		return "✅"
	}
	return "❌"
}

// BashStatus describes how a run ended: "exit 0", "exit 2", "timed out
// after 120 s", "interrupted", "did not start: CUFF-EXE-001", "left
// running in the background".
func BashStatus(r *transcript.BashRun) string {
	switch {
	case r.InBackground():
		return "left running in the background"
	case r.TimedOut && r.TimeoutSeconds > 0:
		return fmt.Sprintf("timed out after %d s", r.TimeoutSeconds)
	case r.TimedOut:
		return "timed out"
	case r.RecorderDied():
		return transcript.RecorderDiedMessage
	case r.Interrupted:
		return "interrupted"
	case r.ExitCode != nil:
		return "exit " + strconv.Itoa(*r.ExitCode)
	case r.Error != nil:
		return "did not start: " + oneLine(r.Error.Code, 0)
	}
	return "no exit code"
}

// FormatDuration writes a duration in milliseconds the way people read it:
// 12 ms, 2.3 s, 4m05s, 1h02m.
func FormatDuration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case ms < 0:
		return "?"
	case d < time.Second:
		return fmt.Sprintf("%d ms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// GroupDigits writes n with thousands separators: 12,345.
func GroupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return GroupDigits(int64(n)) + " " + word + "s"
}

func shortSHA(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func nonEmpty(parts []string) []string {
	out := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
