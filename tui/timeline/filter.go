package timeline

import "github.com/cuff-dev/cuff/transcript"

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
	if it.UsageOnly() {
		return false // a message of tool calls: its tokens count, there is nothing to show
	}
	switch f {
	case FilterTurns: // exactly what the counts call turns
		c := it.Chat()
		return c != nil && transcript.IsTurn(c)
	case FilterTools:
		return it.Kind == KindTool
	case FilterBash:
		return it.Kind == KindBash
	case FilterFailures: // exactly what the counts call failures
		return it.Failed()
	case FilterApprovals:
		return it.Kind == KindApproval
	}
	return true
}
