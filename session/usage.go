package session

import (
	"context"
	"sort"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// Usage is what one session did and spent: its counts (the Tally every
// view shows), its tokens and their estimated cost, and the time each
// tool took.
type Usage struct {
	Tally       transcript.Tally
	Tokens      TokenStats
	Tools       []ToolTime // by total time, longest first
	First, Last time.Time

	tools  map[string]*ToolTime
	calls  map[string]string    // open tool calls: call id → tool
	starts map[string]time.Time // open delegations: call id → start
}

// ToolTime is how often a tool ran, how often it failed and for how long
// in all (Bash for commands, Task for sub-agents).
type ToolTime struct {
	Tool     string
	Calls    int64
	Failures int64
	Total    time.Duration
}

// Bash and Task are the names Usage gives commands and sub-agents.
const (
	ToolBash = "Bash"
	ToolTask = "Task"
)

// Add folds one event into the usage.
func (u *Usage) Add(ev *transcript.Event) {
	u.Tally.Add(ev)
	if !ev.TS.IsZero() {
		if u.First.IsZero() || ev.TS.Before(u.First) {
			u.First = ev.TS
		}
		if ev.TS.After(u.Last) {
			u.Last = ev.TS
		}
	}
	switch b := ev.Body.(type) {
	case *transcript.ChatTurn:
		u.Tokens.Add(ev.SessionID, b)
	case *transcript.ToolCall:
		if u.calls == nil {
			u.calls = map[string]string{}
		}
		u.calls[ev.CallID] = b.Tool
	case *transcript.ToolResult:
		name := b.Tool
		if name == "" {
			name = u.calls[ev.CallID]
		}
		delete(u.calls, ev.CallID)
		u.tool(name, time.Duration(b.DurationMS)*time.Millisecond, b.IsError)
	case *transcript.BashRun:
		if !b.InBackground() {
			u.tool(ToolBash, time.Duration(b.DurationMS)*time.Millisecond, b.Failed())
		}
	case *transcript.Delegation:
		if b.Phase == transcript.PhaseStart {
			if u.starts == nil {
				u.starts = map[string]time.Time{}
			}
			u.starts[ev.CallID] = ev.TS
			return
		}
		var d time.Duration
		if start, ok := u.starts[ev.CallID]; ok && ev.TS.After(start) {
			d = ev.TS.Sub(start)
		}
		delete(u.starts, ev.CallID)
		u.tool(ToolTask, d, b.Failed())
	}
}

func (u *Usage) tool(name string, d time.Duration, failed bool) {
	if name == "" {
		name = "?"
	}
	if u.tools == nil {
		u.tools = map[string]*ToolTime{}
	}
	t := u.tools[name]
	if t == nil {
		t = &ToolTime{Tool: name}
		u.tools[name] = t
	}
	t.Calls++
	t.Total += max(d, 0)
	if failed {
		t.Failures++
	}
}

// Finish sorts the tools, longest total first.
func (u *Usage) Finish() {
	u.Tools = u.Tools[:0]
	for _, t := range u.tools {
		u.Tools = append(u.Tools, *t)
	}
	sort.Slice(u.Tools, func(i, j int) bool {
		if u.Tools[i].Total != u.Tools[j].Total {
			return u.Tools[i].Total > u.Tools[j].Total
		}
		return u.Tools[i].Tool < u.Tools[j].Tool
	})
}

// UsageOf reads one session from its source into its usage.
func UsageOf(ctx context.Context, src Source, id string) (*Usage, error) {
	u := &Usage{}
	err := src.Read(ctx, id, func(ev *transcript.Event) error {
		u.Add(ev)
		return nil
	})
	if err != nil {
		return nil, err
	}
	u.Finish()
	return u, nil
}

// Day is what the sessions that started on one day did and spent.
type Day struct {
	Date                                time.Time // midnight, in the location asked for
	Sessions                            int
	Turns, Commands, Failures, Unknowns int64 // Unknowns: sessions not counted yet
	Tokens                              TokenStats
}

// DailyUsage groups sessions by the day they started (in loc), newest day
// first, with their counts from the listing and their tokens and cost
// read through cache (see StatsOf).
func DailyUsage(ctx context.Context, sources []Source, infos []Info, loc *time.Location, cache *StatsCache) ([]Day, error) {
	byDay := map[time.Time][]Info{}
	for _, in := range infos {
		t := in.Started.In(loc)
		day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
		byDay[day] = append(byDay[day], in)
	}
	days := make([]Day, 0, len(byDay))
	for date, ins := range byDay {
		d := Day{Date: date, Sessions: len(ins)}
		for _, in := range ins {
			if in.Turns < 0 || in.Commands < 0 || in.Failures < 0 {
				d.Unknowns++
				continue
			}
			d.Turns += in.Turns
			d.Commands += in.Commands
			d.Failures += in.Failures
		}
		st, err := StatsOf(ctx, sources, ins, cache)
		if err != nil {
			return nil, err
		}
		d.Tokens = st.Tokens
		days = append(days, d)
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Date.After(days[j].Date) })
	return days, nil
}
