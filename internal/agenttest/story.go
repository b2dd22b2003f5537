package agenttest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Event is one recorded event, decoded loosely (every field kept).
type Event map[string]any

// Str is a string field of the event.
func (ev Event) Str(key string) string { return str(ev, key) }

// Type is the event's type.
func (ev Event) Type() string { return ev.Str("type") }

// Sessions lists the project's cuff sessions (`cuff record list --format
// json`, the project store only), oldest first.
func (e *Env) Sessions() []Event {
	e.t.Helper()
	return e.SessionsFrom("project")
}

// SessionsFrom lists the sessions of one --source: project (the default:
// each conversation joined with its agent's transcript), all, or cuff,
// claude, codex alone.
func (e *Env) SessionsFrom(source string) []Event {
	e.t.Helper()
	out := e.Cuff("record", "list", "--source", source, "--format", "json")
	if out.Code != 0 {
		e.t.Fatalf("cuff record list: exit %d: %s", out.Code, out.Stderr)
	}
	var list []Event
	if err := json.Unmarshal([]byte(out.Stdout), &list); err != nil {
		e.t.Fatalf("cuff record list printed no JSON list: %v\n%s", err, out.Stdout)
	}
	return list
}

// Events exports one session (`cuff record export ID --format jsonl`): any
// id cuff takes, its own or claude:<uuid> / codex:<uuid>.
func (e *Env) Events(id string) []Event {
	e.t.Helper()
	return e.EventsFrom(id, "project")
}

// EventsFrom exports one session of a --source (see SessionsFrom): with
// cuff, cuff's own recording alone.
func (e *Env) EventsFrom(id, source string) []Event {
	e.t.Helper()
	out := e.Cuff("record", "export", id, "--format", "jsonl", "--source", source)
	if out.Code != 0 {
		e.t.Fatalf("cuff record export %s: exit %d: %s", id, out.Code, out.Stderr)
	}
	var evs []Event
	for _, l := range decodeLines(out.Stdout) {
		evs = append(evs, Event(l))
	}
	return evs
}

// Recording is the cuff session that recorded the agent conversation with
// this id (Claude Code's session id, Codex's thread id): the one whose
// events carry it as conversation_id. The test fails when there is none.
func (e *Env) Recording(conversation string) (id string, events []Event) {
	e.t.Helper()
	var ids []string
	for _, s := range e.Sessions() {
		sid := s.Str("session_id")
		ids = append(ids, sid)
		evs := e.Events(sid)
		for _, ev := range evs {
			if ev.Str("conversation_id") == conversation {
				return sid, evs
			}
		}
	}
	e.t.Fatalf("no cuff session recorded conversation %s (sessions: %v)", conversation, ids)
	return "", nil
}

// Story tells a session the way a person reads it, one line per event, in
// the order recorded:
//
//	user: list the files
//	main: I'll look first.
//	main: $ git status [allow]
//	main: $ git status → exit 0
//	main: delegate general-purpose: Count the files
//	  sub1: $ ls → exit 0
//	main: delegation ✓
//
// Sub-agents are named sub1, sub2 … in order of appearance and indented
// once per level of nesting; texts are cut at 60 characters. Session start
// and end, and turns that only carry token usage, are left out.
func Story(events []Event) []string {
	names := map[string]string{"": "main", "main": "main"}
	depth := map[string]int{} // call id of a delegation → nesting of what runs inside
	var lines []string
	for _, ev := range events {
		agent := ev.Str("agent_id")
		if _, ok := names[agent]; !ok {
			names[agent] = fmt.Sprintf("sub%d", len(names)-1)
		}
		indent := ""
		if p := ev.Str("parent_call_id"); p != "" {
			indent = strings.Repeat("  ", depth[p]+1)
		}
		who := indent + names[agent] + ": "
		var line string
		switch ev.Type() {
		case "chat_turn":
			text := oneLine(ev.Str("text"))
			if text == "" && ev["thinking"] != true {
				continue // it only carries a message's token usage: nothing a person reads
			}
			switch {
			case ev.Str("context") != "" && ev.Str("context") != "command":
				line = indent + "context: " + ev.Str("context") // what the agent put in itself, shown as such
			case ev.Str("role") == "user":
				line = indent + "user: " + text
			case ev.Str("role") == "system" || ev.Str("role") == "developer":
				line = indent + "system: " + text
			case ev["thinking"] == true:
				line = who + "(thinks) " + text
			default:
				line = who + text
			}
		case "bash_start":
			line = who + "$ " + ev.Str("command")
			if v, ok := ev["verdict"].(map[string]any); ok {
				line += " [" + str(v, "decision") + "]"
			}
		case "bash_run":
			line = who + "$ " + ev.Str("command") + " → " + runOutcome(ev)
		case "tool_call":
			line = who + "tool " + ev.Str("tool")
		case "tool_result":
			outcome := "ok"
			if ev["is_error"] == true {
				outcome = "error"
			}
			line = who + "tool " + ev.Str("tool") + " → " + outcome
		case "delegation":
			if ev.Str("phase") == "start" {
				depth[ev.Str("call_id")] = len(indent) / 2
				line = who + "delegate " + ev.Str("agent_type") + ": " + oneLine(ev.Str("task"))
			} else {
				mark := "✓"
				if ev["success"] == false {
					mark = "✗"
				}
				line = who + "delegation " + mark
			}
		case "approval_request":
			line = who + "asks: " + ev.Str("command")
		case "approval_decision":
			line = who + ev.Str("decision") + " by " + ev.Str("by")
			if r := ev.Str("reason"); r != "" {
				line += ": " + oneLine(r)
			}
		case "session_start", "session_end":
			continue
		default:
			line = who + ev.Type()
		}
		lines = append(lines, line)
	}
	return lines
}

// Outcome is how a bash_run ended, as Story tells it: "exit N", "timed
// out", or its error's code (not_run, …).
func Outcome(ev Event) string { return runOutcome(ev) }

// runOutcome is how a bash_run ended: its exit code, or its error's code.
func runOutcome(ev Event) string {
	if errObj, ok := ev["error"].(map[string]any); ok {
		return str(errObj, "code")
	}
	if ev["timed_out"] == true {
		return "timed out"
	}
	if code, ok := ev["exit_code"].(float64); ok {
		return fmt.Sprintf("exit %d", int(code))
	}
	return "no exit code"
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// ExpectStory fails the test unless the story is exactly want, showing
// both side by side.
func ExpectStory(t testing.TB, events []Event, want ...string) {
	t.Helper()
	got := Story(events)
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	t.Errorf("the session tells:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
}

// Markdown is the session exported as markdown, as Ctrl+E writes it.
func (e *Env) Markdown(id string) string {
	e.t.Helper()
	out := e.Cuff("record", "export", id, "--format", "markdown")
	if out.Code != 0 {
		e.t.Fatalf("cuff record export %s --format markdown: exit %d: %s", id, out.Code, out.Stderr)
	}
	return out.Stdout
}

// InOrder fails the test unless text holds each of parts, in this order.
func InOrder(t testing.TB, what, text string, parts ...string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(text[at:], p)
		if i < 0 {
			t.Errorf("%s: %q is missing after byte %d (or out of order):\n%s", what, p, at, text)
			return
		}
		at += i + len(p)
	}
}

// InTimeOrder fails the test unless the events' times never go back: a
// session joined from two records (the agent's and cuff's) keeps them in
// the order they happened.
func InTimeOrder(t testing.TB, events []Event) {
	t.Helper()
	var last time.Time
	for _, ev := range events {
		ts, err := time.Parse(time.RFC3339Nano, ev.Str("ts"))
		if err != nil {
			t.Errorf("seq %v (%s): time %q: %v", ev["seq"], ev.Type(), ev.Str("ts"), err)
			return
		}
		if ts.Before(last) {
			t.Errorf("seq %v (%s) at %s comes after an event at %s:\n\t%s", ev["seq"], ev.Type(), ts.Format(time.RFC3339Nano),
				last.Format(time.RFC3339Nano), joinLines(timed(events)))
			return
		}
		last = ts
	}
}

// ExpectHappened fails the test unless the story of events holds exactly
// the lines of the chains (each line once, whichever chains name it) and
// each chain in its order. A chain is what one agent did, or what one act
// caused: agents that run at once interleave as they did, and the chains
// say what must come before what, whatever the interleaving. A line told
// more than once is named by its occurrence from the second on: "main:
// delegation ✓#2".
func ExpectHappened(t testing.TB, events []Event, chains ...[]string) {
	t.Helper()
	story := Story(events)
	at := map[string]int{}
	seen := map[string]int{}
	for i, l := range story {
		if seen[l]++; seen[l] > 1 {
			l = fmt.Sprintf("%s#%d", l, seen[l])
			story[i] = l
		}
		at[l] = i
	}
	want := map[string]bool{}
	for _, chain := range chains {
		for i, l := range chain {
			want[l] = true
			p, ok := at[l]
			if !ok {
				t.Errorf("%q is missing:\n\t%s", l, joinLines(story))
				return
			}
			if i > 0 && at[chain[i-1]] > p {
				t.Errorf("%q must come before %q:\n\t%s", chain[i-1], l, joinLines(story))
			}
		}
	}
	for _, l := range story {
		if !want[l] {
			t.Errorf("%q should not be there:\n\t%s", l, joinLines(story))
		}
	}
}

// OutOfOrder counts the events whose time is before that of an event told
// before them: what a person reads out of the order it happened in.
func OutOfOrder(events []Event) int {
	var last time.Time
	n := 0
	for _, ev := range events {
		ts, err := time.Parse(time.RFC3339Nano, ev.Str("ts"))
		if err != nil {
			continue
		}
		if ts.Before(last) {
			n++
			continue
		}
		last = ts
	}
	return n
}

// timed lists events as a person reading them would need to find one out
// of order: each with its number, time, type, agent and text or command.
func timed(events []Event) []string {
	lines := make([]string, 0, len(events))
	for _, ev := range events {
		what := ev.Str("text")
		if what == "" {
			what = ev.Str("command") + ev.Str("phase")
		}
		if len(what) > 60 {
			what = what[:60] + "…"
		}
		lines = append(lines, fmt.Sprintf("%v %s %s agent=%q in=%q %q", ev["seq"], ev.Str("ts"), ev.Type(),
			ev.Str("agent_id"), ev.Str("parent_call_id"), what))
	}
	return lines
}

func joinLines(lines []string) string { return strings.Join(lines, "\n\t") }
