package common

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// Wrap breaks sanitized plain text into lines at most width cells wide, at
// spaces where it can and inside long words where it must.
func Wrap(s string, width int) []string {
	width = max(width, 1)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(l, width, ""), "\n")...)
	}
	return out
}

// HardWrap breaks sanitized output into lines at most width cells wide,
// keeping every space (outputs are often aligned in columns).
func HardWrap(s string, width int) []string {
	width = max(width, 1)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if ansi.StringWidth(l) <= width {
			out = append(out, l)
			continue
		}
		out = append(out, strings.Split(ansi.Hardwrap(l, width, true), "\n")...)
	}
	return out
}

// OneLine folds sanitized text onto one line and cuts it to width cells
// with an ellipsis.
func OneLine(s string, width int) string {
	s = strings.Join(strings.Fields(s), " ")
	return Truncate(s, width)
}

// Truncate cuts a (possibly styled) line to width cells with an ellipsis.
func Truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// PadRight pads a styled line with spaces to width cells.
func PadRight(s string, width int) string {
	if w := ansi.StringWidth(s); w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return s
}

// Clock formats a timestamp for the timeline in local time: 15:04:05.
func Clock(ts time.Time, loc *time.Location) string {
	if ts.IsZero() {
		return ""
	}
	if loc == nil {
		loc = time.Local
	}
	return ts.In(loc).Format("15:04:05")
}

// Ago says how long ago t was, coarsely: "just now", "5m ago", "3h ago",
// "2d ago", or the date for anything older than a week.
func Ago(t, now time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "—"
	}
	if loc == nil {
		loc = time.Local
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return itoa(int(d.Minutes())) + "m ago"
	case d < 24*time.Hour:
		return itoa(int(d.Hours())) + "h ago"
	case d < 7*24*time.Hour:
		return itoa(int(d.Hours()/24)) + "d ago"
	}
	return t.In(loc).Format("2006-01-02")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
