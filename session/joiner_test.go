package session

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// conv builds the two records of one conversation, as Claude Code's
// transcript and cuff's hook write them.
type conv struct {
	t0          time.Time
	rec, script []*transcript.Event
}

func newConv() *conv { return &conv{t0: time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)} }

func ev(at time.Time, body transcript.Body, agent, call, parent string) *transcript.Event {
	e := transcript.New("", at, body)
	e.CallID, e.ParentCallID = call, parent
	if agent != "" {
		e.AgentID = agent
	}
	return e
}

func (c *conv) at(ms int) time.Time { return c.t0.Add(time.Duration(ms) * time.Millisecond) }

// R adds an event to cuff's recording, T to the transcript.
func (c *conv) R(ms int, body transcript.Body, agent, call, parent string) {
	e := ev(c.at(ms), body, agent, call, parent)
	e.Seq = int64(len(c.rec) + 1)
	e.SessionID = "20260401_100000_0badc0de-0001"
	c.rec = append(c.rec, e)
}

func (c *conv) T(ms int, body transcript.Body, agent, call, parent string) {
	e := ev(c.at(ms), body, agent, call, parent)
	e.Seq = int64(len(c.script) + 1)
	e.SessionID = "claude:" + convUUID
	c.script = append(c.script, e)
}

const convUUID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"

func exitOf(n int) *int { return &n }

// hookConversation is one conversation as both record it: a prompt, text,
// an allowed command (whose transcript duration includes the hook's wait),
// a failing command, a risky command approved in the TUI, a sub-agent that
// runs a command, and a denied command that never ran.
func hookConversation() *conv {
	c := newConv()
	allow := &transcript.Verdict{Decision: "allow", Tier: "local"}
	ask := &transcript.Verdict{Decision: "ask", Tier: "risky"}
	t := true
	// The transcript: what Claude Code wrote.
	c.T(0, &transcript.SessionStart{Agent: "claude-code", Source: "claude", Title: "check things", WorkingDirectory: "/proj"}, "", "", "")
	c.T(1, &transcript.ChatTurn{Role: "user", Text: "check things"}, "", "", "")
	c.T(100, &transcript.ChatTurn{Role: "assistant", Text: "Let me look.", MessageID: "m1", Usage: &transcript.Usage{InputTokens: 5}}, "", "", "")
	c.T(101, &transcript.BashStart{Command: "echo hi"}, "", "toolu_A", "")
	c.T(400, &transcript.BashRun{Command: "echo hi", Description: "say hi", ExitCode: exitOf(0), Stdout: "hi", DurationMS: 299}, "", "toolu_A", "")
	c.T(500, &transcript.BashStart{Command: "ls nope"}, "", "toolu_B", "")
	c.T(600, &transcript.BashRun{Command: "ls nope", ExitCode: exitOf(2), Stdout: "ls: nope"}, "", "toolu_B", "")
	c.T(700, &transcript.BashStart{Command: "curl x | sh"}, "", "toolu_C", "")
	c.T(9000, &transcript.BashRun{Command: "curl x | sh", ExitCode: exitOf(0), Stdout: "installed", DurationMS: 8300}, "", "toolu_C", "")
	c.T(9100, &transcript.ChatTurn{Role: "assistant", Text: "Delegating."}, "", "", "")
	c.T(9101, &transcript.Delegation{Phase: "start", AgentType: "general-purpose", Task: "Count the files."}, "", "toolu_D", "")
	c.T(9102, &transcript.ChatTurn{Role: "user", Text: "Count the files."}, "sub1", "", "toolu_D")
	c.T(9200, &transcript.BashStart{Command: "ls | wc -l"}, "sub1", "toolu_S", "toolu_D")
	c.T(9300, &transcript.BashRun{Command: "ls | wc -l", ExitCode: exitOf(0), Stdout: "4"}, "sub1", "toolu_S", "toolu_D")
	c.T(9400, &transcript.ChatTurn{Role: "assistant", Text: "There are 4."}, "sub1", "", "toolu_D")
	c.T(9500, &transcript.Delegation{Phase: "end", Result: "There are 4.", Success: &t}, "", "toolu_D", "")
	c.T(9600, &transcript.BashStart{Command: "rm -rf /"}, "", "toolu_E", "")
	c.T(9700, &transcript.BashRun{Command: "rm -rf /", Stderr: "cuff: denied"}, "", "toolu_E", "")
	c.T(9800, &transcript.ChatTurn{Role: "assistant", Text: "All done."}, "", "", "")
	// cuff's recording: what the hook wrote.
	c.R(-50, &transcript.SessionStart{Agent: "claude-code", Source: "claude-hook", WorkingDirectory: "/proj"}, "", "", "")
	c.R(2, &transcript.ChatTurn{Role: "user", Text: "check things"}, "", "", "")
	c.R(110, &transcript.ChatTurn{Role: "assistant", Text: "Let me look."}, "", "", "")
	c.R(111, &transcript.BashStart{Command: "echo hi", WorkingDirectory: "/proj", Verdict: allow}, "", "toolu_A", "")
	c.R(390, &transcript.BashRun{Command: "echo hi", WorkingDirectory: "/proj", ExitCode: exitOf(0), Stdout: "hi", DurationMS: 12}, "", "toolu_A", "")
	c.R(510, &transcript.BashStart{Command: "ls nope", WorkingDirectory: "/proj", Verdict: allow}, "", "toolu_B", "")
	c.R(590, &transcript.BashRun{Command: "ls nope", WorkingDirectory: "/proj", ExitCode: exitOf(2), Stderr: "ls: nope", DurationMS: 8}, "", "toolu_B", "")
	c.R(710, &transcript.ApprovalRequest{RequestID: "r1", Command: "curl x | sh", Verdict: ask}, "", "toolu_C", "")
	c.R(8600, &transcript.ApprovalDecision{RequestID: "r1", Decision: "approve", By: "tui"}, "", "toolu_C", "")
	c.R(8610, &transcript.BashStart{Command: "curl x | sh", WorkingDirectory: "/proj", Verdict: ask}, "", "toolu_C", "")
	c.R(8990, &transcript.BashRun{Command: "curl x | sh", WorkingDirectory: "/proj", ExitCode: exitOf(0), Stdout: "installed", DurationMS: 370}, "", "toolu_C", "")
	c.R(9105, &transcript.Delegation{Phase: "start", AgentType: "general-purpose", Task: "Count the files."}, "", "toolu_D", "")
	c.R(9210, &transcript.BashStart{Command: "ls | wc -l", WorkingDirectory: "/proj", Verdict: allow}, "sub1", "toolu_S", "toolu_D")
	c.R(9290, &transcript.BashRun{Command: "ls | wc -l", WorkingDirectory: "/proj", ExitCode: exitOf(0), Stdout: "4", DurationMS: 3}, "sub1", "toolu_S", "toolu_D")
	c.R(9510, &transcript.Delegation{Phase: "end", SubAgentID: "sub1", Success: &t}, "", "toolu_D", "")
	c.R(9610, &transcript.BashStart{Command: "rm -rf /", WorkingDirectory: "/proj", Verdict: &transcript.Verdict{Decision: "deny", Tier: "deny_rule"}}, "", "toolu_E", "")
	c.R(9611, &transcript.BashRun{Command: "rm -rf /", WorkingDirectory: "/proj", Error: &transcript.RunError{Code: "CUFF-GATE-DENY", Message: "denied"}}, "", "toolu_E", "")
	c.R(9810, &transcript.ChatTurn{Role: "assistant", Text: "All done."}, "", "", "")
	c.R(9900, &transcript.SessionEnd{Status: "complete"}, "", "", "")
	return c
}

// story tells a joined stream as lines a person could check.
func story(events []*transcript.Event) []string {
	var out []string
	for _, e := range events {
		who := e.AgentID
		if e.ParentCallID != "" {
			who = "  " + who
		}
		var line string
		switch b := e.Body.(type) {
		case *transcript.SessionStart:
			line = "start " + b.Source + " " + b.WorkingDirectory
		case *transcript.SessionEnd:
			line = "end " + b.Status
		case *transcript.ChatTurn:
			line = b.Role + ": " + b.Text
		case *transcript.BashStart:
			line = "$ " + b.Command
			if b.Verdict != nil {
				line += " [" + b.Verdict.Decision + "]"
			}
		case *transcript.BashRun:
			switch {
			case b.Error != nil:
				line = "$ " + b.Command + " → " + b.Error.Code
			case b.ExitCode != nil:
				line = fmt.Sprintf("$ %s → exit %d in %d ms", b.Command, *b.ExitCode, b.DurationMS)
			default:
				line = "$ " + b.Command + " → ?"
			}
		case *transcript.ApprovalRequest:
			line = "approval? " + b.Command
		case *transcript.ApprovalDecision:
			line = "approval " + b.Decision + " by " + b.By
		case *transcript.Delegation:
			line = "delegation " + b.Phase
		case *transcript.ToolCall:
			line = "tool " + b.Tool
		case *transcript.ToolResult:
			line = fmt.Sprintf("tool %s → error %v", b.Tool, b.IsError)
		default:
			line = string(e.Type)
		}
		out = append(out, who+": "+line)
	}
	return out
}

func checkStory(t *testing.T, events []*transcript.Event, want []string) {
	t.Helper()
	got := story(events)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("joined:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i, e := range events {
		if e.Seq != int64(i+1) || e.SessionID != "claude:"+convUUID || e.ID != transcript.EventID(e.SessionID, e.Seq) {
			t.Errorf("event %d: seq %d session %s id %s", i, e.Seq, e.SessionID, e.ID)
		}
	}
}

var hookStory = []string{
	"main: start claude /proj",
	"main: user: check things",
	"main: assistant: Let me look.",
	"main: $ echo hi [allow]",
	"main: $ echo hi → exit 0 in 12 ms",
	"main: $ ls nope [allow]",
	"main: $ ls nope → exit 2 in 8 ms",
	"main: approval? curl x | sh",
	"main: approval approve by tui",
	"main: $ curl x | sh [ask]",
	"main: $ curl x | sh → exit 0 in 370 ms",
	"main: assistant: Delegating.",
	"main: delegation start",
	"  sub1: $ ls | wc -l [allow]",
	"  sub1: $ ls | wc -l → exit 0 in 3 ms",
	"  sub1: assistant: There are 4.",
	"main: delegation end",
	"main: $ rm -rf / [deny]",
	"main: $ rm -rf / → CUFF-GATE-DENY",
	"main: assistant: All done.",
	"main: end complete",
}

// wholeJoin joins the records as Read does: cuff's recording first, then
// the transcript.
func wholeJoin(t *testing.T, c *conv) []*transcript.Event {
	t.Helper()
	var got []*transcript.Event
	j := newJoiner("claude:"+convUUID, true, func(e *transcript.Event) error { got = append(got, e); return nil })
	for _, e := range c.rec {
		if err := j.Recording(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range c.script {
		if err := j.Transcript(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestJoinRead: a conversation read whole (cuff's recording, then the
// transcript) is one stream: the transcript's turns and attribution,
// cuff's verdicts, approvals, exit codes and durations (without the
// approval wait), each call once, cuff's end last.
func TestJoinRead(t *testing.T) {
	c := hookConversation()
	checkStory(t, wholeJoin(t, c), hookStory)
	// The joined events are copies: neither record changed.
	if c.rec[0].SessionID != "20260401_100000_0badc0de-0001" || c.script[0].Seq != 1 {
		t.Error("a record's event was changed")
	}
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// liveJoin plays the records into a live joiner in the given order (each
// step "r" takes cuff's next event, "t" the transcript's, "+" moves the
// clock past the wait and ticks), then closes.
func liveJoin(t *testing.T, c *conv, steps string, fromStart bool) []*transcript.Event {
	t.Helper()
	var got []*transcript.Event
	clock := &fakeClock{t: c.t0}
	j := newJoiner("claude:"+convUUID, fromStart, func(e *transcript.Event) error { got = append(got, e); return nil })
	j.live, j.now = true, clock.now
	ri, ti := 0, 0
	for _, s := range steps {
		switch s {
		case 'r':
			if ri < len(c.rec) {
				j.Recording(c.rec[ri])
				ri++
			}
		case 't':
			if !j.transcript {
				j.FoundTranscript()
			}
			if ti < len(c.script) {
				j.Transcript(c.script[ti])
				ti++
			}
		case '+':
			clock.t = clock.t.Add(holdLimit)
			j.Tick()
		}
		j.Tick()
	}
	for ; ri < len(c.rec); ri++ {
		j.Recording(c.rec[ri])
	}
	for ; ti < len(c.script); ti++ {
		j.Transcript(c.script[ti])
	}
	j.Quiet()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestJoinLive: followed live, the records arrive in any order — the
// transcript ahead of cuff's record of a call (the joiner waits for it),
// or behind (cuff's approvals and results are shown at once) — and the
// joined stream is the same as a whole read's.
func TestJoinLive(t *testing.T) {
	c := hookConversation()
	for name, steps := range map[string]string{
		"transcript first": strings.Repeat("t", len(c.script)) + strings.Repeat("r", len(c.rec)),
		"recording first":  strings.Repeat("r", len(c.rec)) + strings.Repeat("t", len(c.script)),
		"interleaved":      strings.Repeat("trr", 40),
		"transcript leads": strings.Repeat("ttr", 40),
		"recording leads":  strings.Repeat("rrt", 40),
	} {
		t.Run(name, func(t *testing.T) {
			checkStory(t, liveJoin(t, c, steps, true), hookStory)
		})
	}
}

// TestJoinLiveWaitEnds: a call the transcript shows and cuff never records
// (the hook was not installed yet) is shown as the transcript has it once
// the wait is over, and the events after it follow in order.
func TestJoinLiveWaitEnds(t *testing.T) {
	c := newConv()
	c.T(0, &transcript.SessionStart{Source: "claude"}, "", "", "")
	c.T(1, &transcript.BashStart{Command: "make"}, "", "toolu_M", "")
	c.T(2, &transcript.BashRun{Command: "make", ExitCode: exitOf(0)}, "", "toolu_M", "")
	c.T(3, &transcript.ChatTurn{Role: "assistant", Text: "Built."}, "", "", "")
	got := liveJoin(t, c, "tttt", true)
	// Before the wait ends nothing after the call is shown.
	var early []*transcript.Event
	clock := &fakeClock{t: c.t0}
	j := newJoiner("claude:"+convUUID, true, func(e *transcript.Event) error { early = append(early, e); return nil })
	j.live, j.now = true, clock.now
	for _, e := range c.script {
		j.Transcript(e)
	}
	j.Tick()
	if len(early) != 1 {
		t.Errorf("before the wait ended %d events were shown, want the start only", len(early))
	}
	clock.t = clock.t.Add(holdLimit)
	j.Tick()
	if len(early) != 4 {
		t.Errorf("after the wait %d events", len(early))
	}
	checkStory(t, got, []string{"main: start claude ", "main: $ make", "main: $ make → exit 0 in 0 ms", "main: assistant: Built."})
}

// TestJoinLiveBeforeTranscript: a live join that starts before Claude Code
// wrote its transcript shows cuff's recording alone, then joins the
// transcript in without showing anything twice.
func TestJoinLiveBeforeTranscript(t *testing.T) {
	c := hookConversation()
	got := liveJoin(t, c, "rrrrr"+strings.Repeat("t", len(c.script)), false)
	s := story(got)
	seen := map[string]int{}
	for _, line := range s {
		seen[line]++
		if seen[line] > 1 && !strings.Contains(line, "delegation") {
			t.Errorf("%q shown twice:\n%s", line, strings.Join(s, "\n"))
		}
	}
	if s[0] != "main: start claude-hook /proj" || s[len(s)-1] != "main: end complete" {
		t.Errorf("joined:\n%s", strings.Join(s, "\n"))
	}
	for _, want := range []string{"main: $ echo hi [allow]", "main: approval approve by tui", "  sub1: assistant: There are 4.", "main: assistant: All done."} {
		if seen[want] != 1 {
			t.Errorf("%q shown %d times:\n%s", want, seen[want], strings.Join(s, "\n"))
		}
	}
}

// TestJoinCodexMCP: a Codex rollout's call of cuff's MCP tool becomes the
// command cuff ran; a call cuff refused is the tool's failed result with
// the approval that refused it.
func TestJoinCodexMCP(t *testing.T) {
	c := newConv()
	tool := "mcp__cuff__bash_recorder_execute"
	c.T(0, &transcript.SessionStart{Agent: "codex", Source: "codex", WorkingDirectory: "/proj"}, "", "", "")
	c.T(1, &transcript.ChatTurn{Role: "user", Text: "run it"}, "", "", "")
	c.T(2, &transcript.ToolCall{Tool: tool, Input: []byte(`{"command":"echo hi"}`)}, "", "call_1", "")
	c.T(30, &transcript.ToolResult{Tool: tool, Output: `{"stdout":"hi\n"}`, DurationMS: 28}, "", "call_1", "")
	c.T(40, &transcript.ToolCall{Tool: tool, Input: []byte(`{"command":"curl x | sh"}`)}, "", "call_2", "")
	c.T(50, &transcript.ToolResult{Tool: tool, Output: "not run: the MCP client declined", IsError: true}, "", "call_2", "")
	c.T(60, &transcript.ChatTurn{Role: "assistant", Text: "Done."}, "", "", "")
	c.R(5, &transcript.SessionStart{Agent: "codex-mcp-client", Source: "mcp", WorkingDirectory: "/proj"}, "", "", "")
	c.R(6, &transcript.BashStart{Command: "echo hi", WorkingDirectory: "/proj"}, "", "call_1", "")
	c.R(9, &transcript.BashRun{Command: "echo hi", ExitCode: exitOf(0), Stdout: "hi\n", DurationMS: 2}, "", "call_1", "")
	c.R(42, &transcript.ApprovalRequest{RequestID: "r2", Command: "curl x | sh"}, "", "call_2", "")
	c.R(45, &transcript.ApprovalDecision{RequestID: "r2", Decision: "deny", By: "mcp"}, "", "call_2", "")
	c.R(70, &transcript.SessionEnd{Status: "shutdown"}, "", "", "")
	want := []string{
		"main: start codex /proj",
		"main: user: run it",
		"main: $ echo hi",
		"main: $ echo hi → exit 0 in 2 ms",
		"main: tool " + tool,
		"main: approval? curl x | sh",
		"main: approval deny by mcp",
		"main: tool " + tool + " → error true",
		"main: assistant: Done.",
		"main: end shutdown",
	}
	checkStory(t, wholeJoin(t, c), want)
	checkStory(t, liveJoin(t, c, strings.Repeat("rt", 10), true), want)
}

// TestJoinCallMissingFromTranscript: a call cuff recorded that the
// transcript never shows (lines lost) is placed by its time.
func TestJoinCallMissingFromTranscript(t *testing.T) {
	c := newConv()
	c.T(0, &transcript.SessionStart{Source: "claude"}, "", "", "")
	c.T(1, &transcript.ChatTurn{Role: "user", Text: "go"}, "", "", "")
	c.T(int(10*time.Minute/time.Millisecond), &transcript.ChatTurn{Role: "assistant", Text: "later"}, "", "", "")
	c.R(5, &transcript.BashStart{Command: "ls"}, "", "toolu_L", "")
	c.R(6, &transcript.BashRun{Command: "ls", ExitCode: exitOf(0), DurationMS: 1}, "", "toolu_L", "")
	checkStory(t, wholeJoin(t, c), []string{"main: start claude ", "main: user: go", "main: $ ls", "main: $ ls → exit 0 in 1 ms", "main: assistant: later"})
}

// FuzzJoinLive plays the two records of a conversation into a live joiner
// in any interleaving, with the clock moving at any step: every call's
// start and end are shown once, an end after its start, every approval
// once, every transcript turn once.
func FuzzJoinLive(f *testing.F) {
	f.Add([]byte("trtrtr"))
	f.Add([]byte("rrrrttttt+"))
	f.Add([]byte("t+t+t+rrr"))
	f.Fuzz(func(t *testing.T, steps []byte) {
		c := hookConversation()
		s := make([]byte, len(steps))
		for i, b := range steps {
			s[i] = "rt+"[int(b)%3]
		}
		got := liveJoin(t, c, string(s), true)
		starts, ends := map[string]int{}, map[string]int{}
		approvals := 0
		for _, e := range got {
			switch halfOf(e) {
			case halfStart:
				starts[e.CallID]++
			case halfEnd:
				if starts[e.CallID] == 0 {
					t.Errorf("the end of %s before its start", e.CallID)
				}
				ends[e.CallID]++
			}
			if _, ok := e.Body.(*transcript.ApprovalRequest); ok {
				approvals++
			}
		}
		for _, id := range []string{"toolu_A", "toolu_B", "toolu_C", "toolu_D", "toolu_S", "toolu_E"} {
			if starts[id] != 1 || ends[id] != 1 {
				t.Errorf("%s: %d starts, %d ends", id, starts[id], ends[id])
			}
		}
		if approvals != 1 {
			t.Errorf("%d approval requests", approvals)
		}
		turns := 0
		for _, line := range story(got) {
			if strings.Contains(line, "assistant: ") || strings.Contains(line, "user: ") {
				turns++
			}
		}
		if turns != 5 {
			t.Errorf("%d turns, want 5:\n%s", turns, strings.Join(story(got), "\n"))
		}
	})
}

// TestJoinCuffsRecordOfTheRequestWins: the agent can rewrite its own
// transcript afterwards; what a joined session shows of a call's request
// (the command, a tool's input) is what cuff's gate saw.
func TestJoinCuffsRecordOfTheRequestWins(t *testing.T) {
	c := newConv()
	c.T(0, &transcript.SessionStart{Source: "claude", WorkingDirectory: "/proj"}, "", "", "")
	c.T(1, &transcript.BashStart{Command: "echo harmless"}, "", "toolu_X", "")
	c.T(2, &transcript.BashRun{Command: "echo harmless", ExitCode: exitOf(0)}, "", "toolu_X", "")
	c.T(3, &transcript.ToolCall{Tool: "Write", Input: []byte(`{"file_path":"notes.txt"}`)}, "", "toolu_W", "")
	c.T(4, &transcript.ToolResult{Tool: "Write", Output: "written"}, "", "toolu_W", "")
	c.R(1, &transcript.BashStart{Command: "curl -s x | sh", Verdict: &transcript.Verdict{Decision: "allow"}}, "", "toolu_X", "")
	c.R(2, &transcript.BashRun{Command: "curl -s x | sh", ExitCode: exitOf(0)}, "", "toolu_X", "")
	c.R(3, &transcript.ToolCall{Tool: "Write", Input: []byte(`{"file_path":"/home/u/.bashrc"}`)}, "", "toolu_W", "")
	c.R(4, &transcript.ToolResult{Tool: "Write", Output: "ok"}, "", "toolu_W", "")
	got := wholeJoin(t, c)
	checkStory(t, got, []string{"main: start claude /proj", "main: $ curl -s x | sh [allow]", "main: $ curl -s x | sh → exit 0 in 0 ms",
		"main: tool Write", "main: tool Write → error false"})
	if in := string(got[3].Body.(*transcript.ToolCall).Input); !strings.Contains(in, ".bashrc") {
		t.Errorf("the tool's input shown is the transcript's: %s", in)
	}
}

// backgroundConversation is a sub-agent run in the background while the
// main agent goes on, then sent a message that runs it again, as both
// records hold it: the transcript (decoded with the sub-agent's file) ends
// each run's delegation when the sub-agent stopped; cuff's hook records the
// Agent call's start, the sub-agent's commands, the end at SubagentStop
// (here later than the notification was queued), the notification as the
// prompt it was, and SendMessage as the tool call it was.
func backgroundConversation() *conv {
	c := newConv()
	t := true
	allow := &transcript.Verdict{Decision: "allow"}
	note := &transcript.ChatTurn{Role: "system", Context: transcript.ContextTaskNotification, Text: "Agent \"count\" finished\n\n4"}
	c.T(0, &transcript.SessionStart{Source: "claude", WorkingDirectory: "/proj"}, "", "", "")
	c.T(10, &transcript.ChatTurn{Role: "user", Text: "count"}, "", "", "")
	c.T(100, &transcript.Delegation{Phase: "start", AgentType: "general-purpose", Task: "Count."}, "", "toolu_D", "")
	c.T(150, &transcript.ChatTurn{Role: "user", Text: "Count."}, "sub1", "", "toolu_D")
	c.T(210, &transcript.BashStart{Command: "ls"}, "sub1", "toolu_S", "toolu_D")
	c.T(600, &transcript.BashRun{Command: "ls", ExitCode: exitOf(0)}, "sub1", "toolu_S", "toolu_D")
	c.T(650, &transcript.ChatTurn{Role: "assistant", Text: "Meanwhile."}, "", "", "")
	c.T(700, &transcript.BashStart{Command: "git status"}, "", "toolu_M", "")
	c.T(900, &transcript.BashRun{Command: "git status", ExitCode: exitOf(0)}, "", "toolu_M", "")
	c.T(950, &transcript.ChatTurn{Role: "assistant", Text: "Waiting."}, "", "", "")
	c.T(1000, &transcript.ChatTurn{Role: "assistant", Text: "4 files."}, "sub1", "", "toolu_D")
	c.T(1100, &transcript.Delegation{Phase: "end", SubAgentID: "sub1", Result: "4 files.", Success: &t}, "", "toolu_D", "")
	c.T(1150, note, "", "", "")
	c.T(1300, &transcript.Delegation{Phase: "start", AgentType: "general-purpose", Task: "Again."}, "", "toolu_R", "")
	c.T(1350, &transcript.ChatTurn{Role: "user", Text: "The coordinator sent a message: Again."}, "sub1", "", "toolu_R")
	c.T(1400, &transcript.BashStart{Command: "ls -a"}, "sub1", "toolu_S2", "toolu_R")
	c.T(1500, &transcript.BashRun{Command: "ls -a", ExitCode: exitOf(0)}, "sub1", "toolu_S2", "toolu_R")
	c.T(1600, &transcript.Delegation{Phase: "end", SubAgentID: "sub1", Result: "5 files.", Success: &t}, "", "toolu_R", "")
	c.T(1650, note, "", "", "")
	c.T(1700, &transcript.ChatTurn{Role: "assistant", Text: "Done."}, "", "", "")

	c.R(-5, &transcript.SessionStart{Source: "claude-hook", WorkingDirectory: "/proj"}, "", "", "")
	c.R(12, &transcript.ChatTurn{Role: "user", Text: "count"}, "", "", "")
	c.R(105, &transcript.Delegation{Phase: "start", AgentType: "general-purpose", Task: "Count."}, "", "toolu_D", "")
	c.R(215, &transcript.BashStart{Command: "ls", Verdict: allow}, "sub1", "toolu_S", "toolu_D")
	c.R(590, &transcript.BashRun{Command: "ls", ExitCode: exitOf(0), DurationMS: 5}, "sub1", "toolu_S", "toolu_D")
	c.R(705, &transcript.BashStart{Command: "git status", Verdict: allow}, "", "toolu_M", "")
	c.R(890, &transcript.BashRun{Command: "git status", ExitCode: exitOf(0), DurationMS: 6}, "", "toolu_M", "")
	c.R(1170, &transcript.Delegation{Phase: "end", SubAgentID: "sub1", Result: "4 files.", Success: &t}, "", "toolu_D", "")
	c.R(1175, &transcript.ChatTurn{Role: "user", Text: "<task-notification>…"}, "", "", "")
	c.R(1305, &transcript.ToolCall{Tool: "SendMessage", Input: []byte(`{"to":"sub1","message":"Again."}`)}, "", "toolu_R", "")
	c.R(1320, &transcript.ToolResult{Tool: "SendMessage", Output: "Resuming agent sub1"}, "", "toolu_R", "")
	c.R(1405, &transcript.BashStart{Command: "ls -a", Verdict: allow}, "sub1", "toolu_S2", "")
	c.R(1495, &transcript.BashRun{Command: "ls -a", ExitCode: exitOf(0), DurationMS: 4}, "sub1", "toolu_S2", "")
	c.R(1800, &transcript.SessionEnd{Status: "complete"}, "", "", "")
	return c
}

// TestJoinBackgroundSubAgent: a sub-agent in the background, joined whole
// and live in any order: the transcript's interleaving and nesting, cuff's
// verdicts and exit codes, each delegation ending where the transcript
// ends it (when the sub-agent stopped, not at cuff's later SubagentStop),
// the run a message started shown as the delegation it is, everything in
// the order of time.
func TestJoinBackgroundSubAgent(t *testing.T) {
	c := backgroundConversation()
	want := []string{
		"main: start claude /proj",
		"main: user: count",
		"main: delegation start",
		"  sub1: $ ls [allow]",
		"  sub1: $ ls → exit 0 in 5 ms",
		"main: assistant: Meanwhile.",
		"main: $ git status [allow]",
		"main: $ git status → exit 0 in 6 ms",
		"main: assistant: Waiting.",
		"  sub1: assistant: 4 files.",
		"main: delegation end",
		"main: system: Agent \"count\" finished\n\n4",
		"main: delegation start",
		"  sub1: user: The coordinator sent a message: Again.",
		"  sub1: $ ls -a [allow]",
		"  sub1: $ ls -a → exit 0 in 4 ms",
		"main: delegation end",
		"main: system: Agent \"count\" finished\n\n4",
		"main: assistant: Done.",
		"main: end complete",
	}
	check := func(t *testing.T, got []*transcript.Event) {
		t.Helper()
		checkStory(t, got, want)
		for i := 1; i < len(got)-1; i++ { // cuff's session_end comes last, whenever
			if got[i].TS.Before(got[i-1].TS) {
				t.Errorf("%s at %v comes after %s at %v", got[i].Type, got[i].TS, got[i-1].Type, got[i-1].TS)
			}
		}
	}
	check(t, wholeJoin(t, c))
	for name, steps := range map[string]string{
		"transcript first": strings.Repeat("t", len(c.script)) + strings.Repeat("r", len(c.rec)),
		"recording first":  strings.Repeat("r", len(c.rec)) + strings.Repeat("t", len(c.script)),
		"interleaved":      strings.Repeat("trr", 40),
		"transcript leads": strings.Repeat("ttr", 40),
		"recording leads":  strings.Repeat("rrt", 40),
	} {
		t.Run(name, func(t *testing.T) { check(t, liveJoin(t, c, steps, true)) })
	}
}
