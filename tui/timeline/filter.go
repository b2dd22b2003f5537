package timeline

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/transcript"
)

// Filter shows only one kind of item.
type Filter uint8

// Filters, in the order the view cycles through them.
const (
	FilterAll Filter = iota
	FilterTurns
	FilterTools
	FilterBash
	FilterFailures
	FilterApprovals
	filterCount
)

// Filters lists every filter in cycling order.
func Filters() []Filter {
	return []Filter{FilterAll, FilterTurns, FilterTools, FilterBash, FilterFailures, FilterApprovals}
}

// Next is the filter after f, wrapping around.
func (f Filter) Next() Filter { return (f + 1) % filterCount }

func (f Filter) String() string {
	switch f {
	case FilterTurns:
		return "turns"
	case FilterTools:
		return "tool calls"
	case FilterBash:
		return "bash runs"
	case FilterFailures:
		return "failures"
	case FilterApprovals:
		return "approvals"
	}
	return "everything"
}

// Match reports whether the filter shows it.
func (f Filter) Match(it *Item) bool {
	switch f {
	case FilterTurns:
		return it.Kind == KindUser || it.Kind == KindAssistant || it.Kind == KindThinking || it.Kind == KindSystem
	case FilterTools:
		return it.Kind == KindTool
	case FilterBash:
		return it.Kind == KindBash
	case FilterFailures:
		return it.Failed()
	case FilterApprovals:
		return it.Kind == KindApproval
	}
	return true
}

// Contains reports whether any text of the item holds query: ignoring case
// when query has no upper-case letter ("smart case").
func (it *Item) Contains(query string) bool {
	if query == "" {
		return false
	}
	fold := !hasUpper(query)
	for _, s := range it.texts() {
		if s != "" && index(s, query, fold) >= 0 {
			return true
		}
	}
	return false
}

// texts are the strings of an item a search looks through.
func (it *Item) texts() []string {
	var out []string
	for _, ev := range []*transcript.Event{it.First, it.Second} {
		if ev == nil {
			continue
		}
		switch b := ev.Body.(type) {
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
				out = append(out, b.Verdict.Reasons...)
			}
		case *transcript.ApprovalDecision:
			out = append(out, b.Decision, b.Reason)
		case *transcript.SessionStart:
			out = append(out, b.Agent, b.WorkingDirectory, b.Title)
		case *transcript.SessionEnd:
			out = append(out, b.Status)
		case nil:
			out = append(out, string(ev.Type), string(ev.Raw))
		}
	}
	if it.Text != "" {
		out = append(out, it.Text)
	}
	return out
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
		return strings.Index(strings.ToLower(s), strings.ToLower(query))
	}
	lo, up := byte(unicode.ToLower(q0)), byte(unicode.ToUpper(q0))
	for i := 0; i+len(query) <= len(s); i++ {
		if c := s[i]; (c == lo || c == up) && strings.EqualFold(s[i:i+len(query)], query) {
			return i
		}
	}
	return -1
}

// IndexFold is the smart-case search the view highlights with: the byte
// offset of query in s, or -1.
func IndexFold(s, query string) int {
	if query == "" {
		return -1
	}
	return index(s, query, !hasUpper(query))
}
