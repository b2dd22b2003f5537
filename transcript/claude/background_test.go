package claude

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// Sub-agents in the background, as Claude Code 2.1.197 runs them with
// run_in_background and 2.1.332 runs every one: the Agent tool returns at
// once (async_launched), the main agent goes on, and when the sub-agent
// stops Claude Code queues a <task-notification> that the main agent reads
// in a turn of its own.

// backgroundAgent is the Agent call of a sub-agent run in the background.
func (s *script) backgroundAgent(ts, msgID, id, prompt string) map[string]any {
	return s.assistant(ts, msgID, map[string]any{"type": "tool_use", "id": id, "name": "Agent",
		"input": map[string]any{"description": "count files", "prompt": prompt, "subagent_type": "general-purpose",
			"run_in_background": true}})
}

// launched is the tool_result of a delegation whose sub-agent now runs in
// the background.
func (s *script) launched(ts, id, agentID string) map[string]any {
	text := "Async agent launched successfully.\nagentId: " + agentID + " (internal ID)\nThe agent is working in the background."
	return s.rec("user", ts, map[string]any{"message": map[string]any{"role": "user", "content": []any{
		map[string]any{"tool_use_id": id, "type": "tool_result", "content": []any{map[string]any{"type": "text", "text": text}}}}},
		"toolUseResult": map[string]any{"isAsync": true, "status": "async_launched", "agentId": agentID,
			"description": "count files", "prompt": "p"}})
}

// notificationXML is the task notification of a sub-agent that stopped.
func notificationXML(callID, agentID, status, result string) string {
	return "<task-notification>\n<task-id>" + agentID + "</task-id>\n<tool-use-id>" + callID + "</tool-use-id>\n" +
		"<output-file>/tmp/claude-0/tasks/" + agentID + ".output</output-file>\n<status>" + status + "</status>\n" +
		"<summary>Agent \"count files\" finished</summary>\n<note>A task-notification fires each time this agent stops.</note>\n" +
		"<result>" + result + "</result>\n<usage><subagent_tokens>130</subagent_tokens><tool_uses>1</tool_uses><duration_ms>1405</duration_ms></usage>\n" +
		"</task-notification>"
}

// enqueue is the queue-operation Claude Code writes when it queues a
// prompt (here a task notification) while the agent is busy.
func (s *script) enqueue(ts, content string) {
	s.recs = append(s.recs, map[string]any{"type": "queue-operation", "operation": "enqueue", "timestamp": ts,
		"sessionId": s.session, "content": content})
}

// notified is the user record of a task notification, as the main agent
// reads it.
func (s *script) notified(ts, content string) map[string]any {
	return s.prompt(ts, content)
}

// backgroundSession is the real shape of a sub-agent in the background
// while the main agent goes on: it says something and runs its own
// command, waits, and reads the notification.
func backgroundSession() (parent, sub *script) {
	parent, sub = newScript(testSession, ""), newScript(testSession, "a08f062")
	parent.prompt(at(0), "count the files")
	parent.text(at(0.1), "msg_m1", "A helper will count in the background.")
	parent.backgroundAgent(at(0.1), "msg_m1", "toolu_task", "Count the files in the project")
	sub.prompt(at(0.2), "Count the files in the project")
	sub.text(at(0.3), "msg_s1", "Counting now.")
	parent.launched(at(0.3), "toolu_task", "a08f062")
	sub.bash(at(0.3), "msg_s1", "toolu_sub_ls", "ls -a | wc -l")
	sub.bashResult(at(0.9), "toolu_sub_ls", "4")
	parent.text(at(1.0), "msg_m2", "Meanwhile I check the status.")
	parent.bash(at(1.0), "msg_m2", "toolu_status", "git status --short")
	parent.bashResult(at(1.4), "toolu_status", "?? .cuff/")
	parent.text(at(1.5), "msg_m3", "Waiting for the helper.")
	sub.text(at(1.6), "msg_s2", "There are 4 entries.")
	note := notificationXML("toolu_task", "a08f062", "completed", "There are 4 entries.")
	parent.enqueue(at(1.7), note)
	parent.notified(at(1.8), note)
	parent.text(at(1.9), "msg_m4", "The helper reported.")
	return parent, sub
}

// story tells events one line each: who, what, and for a delegation its
// phase; the sub-agent's lines indented.
func story(events []*transcript.Event) []string {
	var out []string
	for _, ev := range events[1:] {
		who := "main"
		if ev.AgentID != transcript.MainAgent {
			who = "  " + ev.AgentID
		}
		what := string(ev.Type)
		switch b := ev.Body.(type) {
		case *transcript.ChatTurn:
			if b.UsageOnly() {
				continue
			}
			what = strings.SplitN(b.Text, "\n", 2)[0]
			if b.Context != "" {
				what = b.Context + ": " + what
			}
		case *transcript.Delegation:
			what = "delegation " + b.Phase
		case *transcript.BashStart:
			what = "$ " + b.Command
		case *transcript.BashRun:
			what = "$ " + b.Command + " done"
		}
		out = append(out, who+": "+what)
	}
	return out
}

// TestBackgroundSubAgentInterleaved reads a session whose sub-agent ran in
// the background while the main agent went on: the two agents' work
// interleaves by time, the sub-agent's inside its delegation, which ends
// when the sub-agent stopped (the notification was queued), not when the
// Agent tool returned; the notification is shown as what it is.
func TestBackgroundSubAgentInterleaved(t *testing.T) {
	parent, sub := backgroundSession()
	path := writeSession(t, t.TempDir(), parent, sub)
	events := decodePath(t, path)
	streamtest.Invariants(t, events, "claude:")
	streamtest.ExactlyOnce(t, toolUseIDs(parent.bytes(), sub.bytes()), streamtest.CallIDs(events))
	checkNested(t, events, map[string]string{"toolu_task": "a08f062"})
	checkTimeOrder(t, events)
	want := []string{
		"main: count the files",
		"main: A helper will count in the background.",
		"main: delegation start",
		"  a08f062: Count the files in the project",
		"  a08f062: Counting now.",
		"  a08f062: $ ls -a | wc -l",
		"  a08f062: $ ls -a | wc -l done",
		"main: Meanwhile I check the status.",
		"main: $ git status --short",
		"main: $ git status --short done",
		"main: Waiting for the helper.",
		"  a08f062: There are 4 entries.",
		"main: delegation end",
		`main: task_notification: Agent "count files" finished`,
		"main: The helper reported.",
	}
	if got := story(events); !reflect.DeepEqual(got, want) {
		t.Errorf("the session tells:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	end := byCall(events)["toolu_task"][transcript.TypeDelegation]
	d := end.Body.(*transcript.Delegation)
	if d.Phase != transcript.PhaseEnd || d.SubAgentID != "a08f062" || d.Result != "There are 4 entries." ||
		d.Success == nil || !*d.Success || d.AgentType != "general-purpose" || !end.TS.Equal(mustTime(at(1.7))) {
		t.Errorf("the delegation's end: %+v at %v; want it when the notification was queued, with the sub-agent's result", d, end.TS)
	}
	var note *transcript.ChatTurn
	for _, ev := range events {
		if c, ok := ev.Body.(*transcript.ChatTurn); ok && c.Context == transcript.ContextTaskNotification {
			note = c
		}
	}
	if note == nil || note.Role != transcript.RoleSystem || note.Text != "Agent \"count files\" finished\n\nThere are 4 entries." {
		t.Errorf("the notification turn: %+v", note)
	}
	if got := events[0].Body.(*transcript.SessionStart).Title; got != "count the files" {
		t.Errorf("title %q", got)
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestBackgroundSubAgentAlone reads the main transcript of a background
// sub-agent without its file (read from a stream, or the file is gone):
// the delegation still ends when the sub-agent stopped, in time order.
func TestBackgroundSubAgentAlone(t *testing.T) {
	parent, _ := backgroundSession()
	events, _ := decodeAll(t, parent.bytes())
	streamtest.Invariants(t, events, "claude:")
	checkTimeOrder(t, events)
	want := []string{
		"main: count the files",
		"main: A helper will count in the background.",
		"main: delegation start",
		"main: Meanwhile I check the status.",
		"main: $ git status --short",
		"main: $ git status --short done",
		"main: Waiting for the helper.",
		"main: delegation end",
		`main: task_notification: Agent "count files" finished`,
		"main: The helper reported.",
	}
	if got := story(events); !reflect.DeepEqual(got, want) {
		t.Errorf("the session tells:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
}

// TestBackgroundSubAgentNotifiedOnly reads a notification that was never
// queued (the agent was idle): the delegation ends at the notification the
// agent read; a sub-agent that failed ends failed; a notification of a
// command in the background ends nothing and is shown by its summary.
func TestBackgroundSubAgentNotifiedOnly(t *testing.T) {
	parent, sub := newScript(testSession, ""), newScript(testSession, "a1")
	parent.prompt(at(0), "go")
	parent.backgroundAgent(at(1), "msg_1", "toolu_A", "Do it")
	parent.launched(at(1.1), "toolu_A", "a1")
	parent.bash(at(1.2), "msg_2", "toolu_bg", "sleep 9")
	parent.bashResult(at(1.3), "toolu_bg", "Command running in background with ID: b7")
	sub.prompt(at(1.05), "Do it")
	sub.text(at(2), "msg_s", "It broke.")
	parent.notified(at(3), notificationXML("toolu_A", "a1", "failed", "It broke."))
	parent.notified(at(4), "<task-notification>\n<task-id>b7</task-id>\n<tool-use-id>toolu_bg</tool-use-id>\n<status>completed</status>\n"+
		"<summary>Background command \"sleep 9\" completed (exit code 0)</summary>\n</task-notification>")
	path := writeSession(t, t.TempDir(), parent, sub)
	events := decodePath(t, path)
	streamtest.Invariants(t, events, "claude:")
	checkNested(t, events, map[string]string{"toolu_A": "a1"})
	checkTimeOrder(t, events)
	want := []string{
		"main: go",
		"main: delegation start",
		"  a1: Do it",
		"main: $ sleep 9",
		"main: $ sleep 9 done",
		"  a1: It broke.",
		"main: delegation end",
		`main: task_notification: Agent "count files" finished (failed)`,
		`main: task_notification: Background command "sleep 9" completed (exit code 0)`,
	}
	if got := story(events); !reflect.DeepEqual(got, want) {
		t.Errorf("the session tells:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	if d := byCall(events)["toolu_A"][transcript.TypeDelegation].Body.(*transcript.Delegation); d.Success == nil || *d.Success {
		t.Errorf("a sub-agent that failed ends %+v", d)
	}
}

// TestBackgroundSubAgentNeverNotified reads a session that ended while its
// background sub-agent ran (killed): the delegation stays open, with what
// the sub-agent did so far inside it.
func TestBackgroundSubAgentNeverNotified(t *testing.T) {
	parent, sub := backgroundSession()
	parent.recs = parent.recs[:len(parent.recs)-3] // no notification, no last answer
	path := writeSession(t, t.TempDir(), parent, sub)
	events := decodePath(t, path)
	streamtest.Basics(t, events, "claude:")
	checkTimeOrder(t, events)
	n := 0
	for _, ev := range events {
		if ev.AgentID == "a08f062" {
			n++
			if ev.ParentCallID != "toolu_task" {
				t.Errorf("%s of the sub-agent inside %q", ev.Type, ev.ParentCallID)
			}
		}
		if d, ok := ev.Body.(*transcript.Delegation); ok && d.Phase == transcript.PhaseEnd {
			t.Errorf("the delegation ends though the sub-agent never reported back")
		}
	}
	if n != 5 {
		t.Errorf("%d events of the sub-agent, want its 5", n)
	}
}

// TestBackgroundSubAgentFollowed follows a background sub-agent's session
// as it is written, both files growing in the order of time, flushing
// after every line with a clock LiveSettle ahead: everything comes once,
// in the order of time, nested; with the clock at the time of the last
// line written, what is newer than LiveSettle waits, and Wake says when to
// look again.
func TestBackgroundSubAgentFollowed(t *testing.T) {
	parent, sub := backgroundSession()
	for _, lag := range []time.Duration{LiveSettle, 0} {
		t.Run(fmt.Sprint(lag), func(t *testing.T) {
			events := followWritten(t, parent, []*script{sub}, lag, nil)
			streamtest.Invariants(t, events, "claude:")
			streamtest.ExactlyOnce(t, toolUseIDs(parent.bytes(), sub.bytes()), streamtest.CallIDs(events))
			checkNested(t, events, map[string]string{"toolu_task": "a08f062"})
			checkTimeOrder(t, events)
		})
	}
}

// written is one record of a session's files, written when its time comes.
type written struct {
	file string
	line []byte
	ts   time.Time
}

// followWritten writes a session's files record by record in the order of
// their times, as Claude Code does, and follows the parent as a follower
// does: each new line of the parent to Line, then Flush, with the clock
// lag past the last record written; then Close. It checks Wake on the way.
// A sub-agent named in meta (by the call of its first run) gets the meta
// file Claude Code 2.1.100 and later writes beside its transcript.
func followWritten(t *testing.T, parent *script, subs []*script, lag time.Duration, meta map[string]string) []*transcript.Event {
	t.Helper()
	return followWrittenAs(t, parent, subs, meta, nil, func(r written, _ time.Time) time.Time { return r.ts.Add(lag) })
}

// followWrittenAs is followWritten with the order of the writes changed by
// reorder (given the records in the order of their times) and the clock
// at each write told by clock (given the record and the clock before).
// Where the files are quiet longer than LiveSettle it flushes when Wake
// says, and checks that nothing is held any more.
func followWrittenAs(t *testing.T, parent *script, subs []*script, meta map[string]string,
	reorder func([]written), clock func(r written, before time.Time) time.Time) []*transcript.Event {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, parent.session+".jsonl")
	var all []written
	add := func(file string, s *script) {
		for i, line := range bytes.Split(bytes.TrimSpace(s.bytes()), []byte{'\n'}) {
			ts, _ := s.recs[i]["timestamp"].(string)
			all = append(all, written{file: file, line: append(line, '\n'), ts: mustTime(ts)})
		}
	}
	add(path, parent)
	for _, s := range subs {
		add(filepath.Join(dir, parent.session, "subagents", "agent-"+s.agentID+".jsonl"), s)
	}
	// In the order of time; a parent's record first on a tie, as it was
	// written first in the scripts.
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].ts.Before(all[j-1].ts); j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	if reorder != nil {
		reorder(all)
	}
	writeFile(t, path, nil)
	d := NewDecoder(Options{Path: path})
	var now time.Time
	d.files.now = func() time.Time { return now }
	var events []*transcript.Event
	out := func(ev *transcript.Event) error { events = append(events, ev); return nil }
	for _, r := range all {
		if next := clock(r, now); !now.IsZero() && next.Sub(now) > LiveSettle {
			// Quiet for a while: a follower flushes when Wake says, and
			// what was read LiveSettle ago passes on.
			quiet := now.Add(LiveSettle)
			for at, ok := d.Wake(); ok && !at.After(quiet); at, ok = d.Wake() {
				now = at
				if err := d.Flush(out); err != nil {
					t.Fatal(err)
				}
			}
			if len(d.files.held) > 0 {
				t.Errorf("at %v, %d events are held though the files were quiet for %v", quiet, len(d.files.held), LiveSettle)
			}
			now = quiet
		}
		if _, err := os.Stat(r.file); err != nil && r.file != path {
			agentID := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(r.file), agentFilePrefix), transcriptExt)
			if call := meta[agentID]; call != "" {
				writeFile(t, strings.TrimSuffix(r.file, transcriptExt)+metaExt, []byte(`{"agentType":"Explore","toolUseId":"`+call+`"}`))
			}
		}
		appendFile(t, r.file, r.line)
		now = clock(r, now)
		if r.file == path {
			if err := d.Line(bytes.TrimSpace(r.line), out); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Flush(out); err != nil {
			t.Fatal(err)
		}
		at, ok := d.Wake()
		if ok && at.Before(now) {
			t.Errorf("Wake asks for a flush at %v, before now %v", at, now)
		}
		if !ok && len(d.files.held) > 0 {
			t.Errorf("at %v, %d events are held and Wake asks for no flush", now, len(d.files.held))
		}
	}
	if err := d.Close(out); err != nil {
		t.Fatal(err)
	}
	return events
}

// TestBackgroundSubAgentWrittenLate follows a background sub-agent's
// session whose records reach their files well after their times (Claude
// Code writes every 100 ms, later on a loaded machine), the sub-agent's
// answer after the main agent's line stamped just after it, both soon
// after each other: the follower still passes everything on in the order
// of time, for a record is held LiveSettle from when it was read, not from
// its time.
func TestBackgroundSubAgentWrittenLate(t *testing.T) {
	parent, sub := newScript(testSession, ""), newScript(testSession, "a08f062")
	parent.prompt(at(0), "count the files")
	parent.text(at(0.1), "msg_m1", "A helper will count in the background.")
	parent.backgroundAgent(at(0.1), "msg_m1", "toolu_task", "Count the files in the project")
	sub.prompt(at(0.2), "Count the files in the project")
	parent.launched(at(0.3), "toolu_task", "a08f062")
	sub.text(at(1.496), "msg_s2", "There are 4 entries.")
	parent.text(at(1.5), "msg_m3", "Waiting for the helper.")
	note := notificationXML("toolu_task", "a08f062", "completed", "There are 4 entries.")
	parent.enqueue(at(1.7), note)
	parent.notified(at(1.8), note)
	parent.text(at(1.9), "msg_m4", "The helper reported.")
	for _, late := range []time.Duration{0, LiveSettle, 3 * LiveSettle} {
		t.Run(fmt.Sprint(late), func(t *testing.T) {
			var swapped bool
			events := followWrittenAs(t, parent, []*script{sub}, nil, func(all []written) {
				for i := 1; i < len(all); i++ { // the main agent's line reaches its file first
					if bytes.Contains(all[i-1].line, []byte("There are 4 entries.")) && bytes.Contains(all[i].line, []byte("Waiting for the helper.")) {
						all[i-1], all[i] = all[i], all[i-1]
						swapped = true
					}
				}
			}, func(r written, before time.Time) time.Time {
				// Written late; the next write of the same pass 10 ms after.
				return maxTime(r.ts.Add(late), before.Add(10*time.Millisecond))
			})
			if !swapped {
				t.Fatal("the records were not written in the order the test means")
			}
			streamtest.Invariants(t, events, "claude:")
			checkNested(t, events, map[string]string{"toolu_task": "a08f062"})
			checkTimeOrder(t, events)
		})
	}
}

// TestBackgroundSubAgentEndReadFirst follows a background sub-agent whose
// notification is queued in the transcript before its last answer reaches
// its own file (Claude Code writes both files in one pass, the parent's
// first): the answer is still inside the delegation, before its end.
func TestBackgroundSubAgentEndReadFirst(t *testing.T) {
	parent, sub := backgroundSession()
	var swapped bool
	events := followWrittenAs(t, parent, []*script{sub}, nil, func(all []written) {
		for i := 1; i < len(all); i++ {
			if bytes.Contains(all[i-1].line, []byte("There are 4 entries.")) && bytes.Contains(all[i].line, []byte(`"enqueue"`)) {
				all[i-1], all[i] = all[i], all[i-1]
				swapped = true
			}
		}
	}, func(r written, before time.Time) time.Time { return maxTime(r.ts, before.Add(10*time.Millisecond)) })
	if !swapped {
		t.Fatal("the records were not written in the order the test means")
	}
	streamtest.Invariants(t, events, "claude:")
	checkNested(t, events, map[string]string{"toolu_task": "a08f062"})
	checkTimeOrder(t, events)
	answers := 0
	for _, ev := range events {
		if c, ok := ev.Body.(*transcript.ChatTurn); ok && c.Text == "There are 4 entries." && ev.AgentID == "a08f062" {
			answers++
			if ev.ParentCallID != "toolu_task" {
				t.Errorf("the sub-agent's last answer is inside %q, want toolu_task", ev.ParentCallID)
			}
		}
	}
	if answers != 1 {
		t.Errorf("the sub-agent's last answer is told %d times, want once:\n%s", answers, strings.Join(story(events), "\n"))
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func appendFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
}

// interleavedSession builds a session of a main agent and up to three
// sub-agents from ops, one byte a step saying who acts and how (talk, run
// a command, start a sub-agent in the background or not, send a stopped one
// a message, stop one), each record a tick after the last or at the same
// time. It returns the parent, the sub-agents' files, and the sub-agent of
// each delegation and the first delegation of each sub-agent.
func interleavedSession(ops []byte) (parent *script, subs []*script, runs, first map[string]string) {
	parent = newScript(testSession, "")
	runs, first = map[string]string{}, map[string]string{}
	type agent struct {
		s                *script
		running, bg, ran bool
		call             string
	}
	var agents [3]*agent
	for k := range agents {
		agents[k] = &agent{s: newScript(testSession, fmt.Sprintf("a0f00d%d", k))}
	}
	tick, n := 0, 0
	ts := func(b byte) string {
		if b&0x80 == 0 {
			tick++
		}
		return at(float64(tick) / 10)
	}
	id := func(kind string) string { n++; return fmt.Sprintf("toolu_%s_%d", kind, n) }
	var blocked *agent // a sub-agent the main agent waits for
	var notes []string // notifications the main agent has not read yet
	mainSays := func(b byte) {
		for _, note := range notes {
			parent.notified(ts(b), note)
		}
		notes = nil
		parent.text(ts(b), id("m"), "main says")
	}
	stop := func(a *agent, b byte) {
		a.s.text(ts(b), id("s"), "done")
		a.running = false
		if !a.bg {
			parent.agentResult(ts(b), a.call, a.s.agentID, "done")
			blocked = nil
			return
		}
		note := notificationXML(a.call, a.s.agentID, "completed", "done")
		parent.enqueue(ts(b), note)
		notes = append(notes, note)
	}
	for _, b := range ops {
		a := agents[int(b>>3)%len(agents)]
		switch b & 7 {
		case 0, 1:
			if blocked == nil {
				if b&1 == 0 {
					mainSays(b)
				} else {
					c := id("m")
					parent.bash(ts(b), c, c, "true")
					parent.bashResult(ts(b), c, "")
				}
			}
		case 2, 3:
			if blocked != nil || a.running || (a.ran && b&1 == 1) {
				continue
			}
			a.call, a.running, a.bg = id("d"), true, b&1 == 0 || a.ran
			runs[a.call] = a.s.agentID
			if !a.ran {
				first[a.s.agentID] = a.call
			}
			prompt := "task " + a.call
			switch {
			case a.ran:
				parent.assistant(ts(b), id("m"), map[string]any{"type": "tool_use", "id": a.call, "name": "SendMessage",
					"input": map[string]any{"to": a.s.agentID, "message": prompt}})
				parent.result(ts(b), a.call, "Message sent.", nil)
			case a.bg:
				parent.backgroundAgent(ts(b), id("m"), a.call, prompt)
				parent.launched(ts(b), a.call, a.s.agentID)
			default:
				parent.agent(ts(b), id("m"), a.call, prompt)
				blocked = a
			}
			a.ran = true
			a.s.prompt(ts(b), prompt)
		case 4, 5:
			if !a.running {
				continue
			}
			if b&1 == 0 {
				a.s.text(ts(b), id("s"), "sub says")
			} else {
				c := id("s")
				a.s.bash(ts(b), c, c, "ls")
				a.s.bashResult(ts(b), c, "x")
			}
		case 6:
			if a.running {
				stop(a, b)
			}
		case 7:
			if blocked == nil && len(notes) > 0 {
				mainSays(b)
			}
		}
	}
	if blocked != nil {
		stop(blocked, 0)
	}
	for _, a := range agents {
		if a.running {
			stop(a, 0)
		}
	}
	mainSays(0)
	for _, a := range agents {
		if a.ran {
			subs = append(subs, a.s)
		}
	}
	return parent, subs, runs, first
}

// FuzzSubAgentInterleaving reads sessions of sub-agents in the background
// and not, resumed by messages, interleaving with their parent in every
// order the fuzzer finds, read whole and followed as they are written
// (sub-agents with meta files, as Claude Code writes them since about
// 2.1.100: a follower knows a sub-agent's file while it works): every tool
// call exactly once, each sub-agent's events inside the delegation of
// their run, everything in the order of time.
func FuzzSubAgentInterleaving(f *testing.F) {
	f.Add([]byte{2, 4, 5, 0, 1, 4, 6, 7}, false)
	f.Add([]byte{3, 4, 5, 6, 2, 10, 12, 1, 13, 14, 0, 7}, true)
	f.Add([]byte{2, 6, 7, 2, 4, 0x84, 0x80, 6, 7, 2, 5, 6}, false)
	f.Add([]byte{2, 10, 18, 12, 20, 4, 14, 22, 6, 0, 30, 7, 1}, true)
	f.Fuzz(func(t *testing.T, ops []byte, followed bool) {
		if len(ops) > 200 {
			ops = ops[:200]
		}
		parent, subs, runs, first := interleavedSession(ops)
		files := [][]byte{parent.bytes()}
		for _, s := range subs {
			files = append(files, s.bytes())
		}
		var events []*transcript.Event
		if followed {
			events = followWritten(t, parent, subs, 0, first)
		} else {
			events = decodePath(t, writeSession(t, t.TempDir(), parent, subs...))
		}
		streamtest.Invariants(t, events, "claude:")
		streamtest.ExactlyOnce(t, toolUseIDs(files...), streamtest.CallIDs(events))
		checkNested(t, events, runs)
		checkTimeOrder(t, events)
	})
}
