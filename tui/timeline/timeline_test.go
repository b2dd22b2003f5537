package timeline_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
	"github.com/cuff-dev/cuff/tui/timeline"
)

func build(events []*transcript.Event) *timeline.Timeline {
	tl := timeline.New()
	for _, ev := range events {
		tl.Add(ev)
	}
	return tl
}

// shape writes a timeline as "depth kind" lines.
func shape(tl *timeline.Timeline) string {
	var b strings.Builder
	names := map[timeline.Kind]string{
		timeline.KindSessionStart: "start", timeline.KindUser: "user", timeline.KindAssistant: "assistant",
		timeline.KindThinking: "thinking", timeline.KindTool: "tool", timeline.KindBash: "bash",
		timeline.KindDelegation: "delegation", timeline.KindDelegationEnd: "delegation-end",
		timeline.KindApproval: "approval", timeline.KindSessionEnd: "end", timeline.KindUnknown: "unknown",
		timeline.KindNotice: "notice", timeline.KindSystem: "system",
	}
	for i, it := range tl.Items() {
		if it.Index() != i {
			fmt.Fprintf(&b, "BAD INDEX %d ", it.Index())
		}
		fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", it.Depth), names[it.Kind])
	}
	return b.String()
}

func TestPairsAndNesting(t *testing.T) {
	tl := build(fixture.Session().Events)
	want := `start
user
thinking
assistant
tool
bash
delegation
  assistant
  bash
  delegation-end
tool
approval
bash
unknown
assistant
end
`
	if got := shape(tl); got != want {
		t.Errorf("shape:\n%s\nwant:\n%s", got, want)
	}
	c := tl.Counts
	if c.Events != 20 || c.Commands != 3 || c.Failures() != 2 || c.ToolCalls != 2 || c.Approvals != 1 {
		t.Errorf("counts = %+v", c)
	}
	items := tl.Items()
	if r := items[5].BashRun(); r == nil || items[5].BashStart() == nil || !items[5].Failed() {
		t.Error("bash_start and bash_run are not one failed item")
	}
	if items[6].Running() || items[6].DelegationEnd() == nil {
		t.Error("the delegation head does not know its end")
	}
	if d := items[11].ApprovalDecision(); d == nil || d.Decision != "deny" {
		t.Error("the approval item lacks its decision")
	}
}

// TestInterleavedDelegations: two sub-agents working at once are told in
// the order they worked, each item inside its own delegation's block.
func TestInterleavedDelegations(t *testing.T) {
	b := fixture.NewBuilder()
	b.Add(&transcript.Delegation{Phase: "start", AgentType: "a"}, "A", "")
	b.Add(&transcript.Delegation{Phase: "start", AgentType: "b"}, "B", "")
	b.Add(&transcript.ChatTurn{Role: "assistant", Text: "a1"}, "", "A")
	b.Add(&transcript.ChatTurn{Role: "assistant", Text: "b1"}, "", "B")
	b.Add(&transcript.Delegation{Phase: "start", AgentType: "a-child"}, "A2", "A")
	b.Add(&transcript.ChatTurn{Role: "assistant", Text: "a2-1"}, "", "A2")
	b.Add(&transcript.ChatTurn{Role: "assistant", Text: "a2"}, "", "A")
	b.Add(&transcript.Delegation{Phase: "end", Result: "A2 done"}, "A2", "A")
	b.Add(&transcript.Delegation{Phase: "end", Result: "A done"}, "A", "")
	b.Add(&transcript.ChatTurn{Role: "user", Text: "top"}, "", "")
	b.Add(&transcript.Delegation{Phase: "end", Result: "B done"}, "B", "")
	tl := build(b.Events)
	var got []string
	for _, it := range tl.Items() {
		text := ""
		if c := it.Chat(); c != nil {
			text = c.Text
		} else if d := it.Delegation(); d != nil {
			text = d.AgentType + d.Result
		}
		if it.Resumes() {
			text += "(resumes)"
		}
		got = append(got, fmt.Sprintf("%d:%s", it.Depth, text))
	}
	want := "0:a 0:b 1:a1(resumes) 1:b1(resumes) 1:a-child(resumes) 2:a2-1 1:a2 2:A2 done(resumes) 1:A done 0:top 1:B done(resumes)"
	if strings.Join(got, " ") != want {
		t.Errorf("order:\n%s\nwant:\n%s", strings.Join(got, " "), want)
	}
}

func TestOrphanHalves(t *testing.T) {
	b := fixture.NewBuilder()
	b.Add(&transcript.ToolResult{Tool: "Grep", Output: "x"}, "lost", "")
	b.Add(&transcript.BashRun{Command: "ls"}, "lost", "")
	b.Add(&transcript.ApprovalDecision{RequestID: "r", Decision: "approve"}, "lost", "")
	b.Add(&transcript.Delegation{Phase: "end", Result: "r"}, "lost", "")
	b.Add(&transcript.ChatTurn{Role: "assistant", Text: "inside a delegation we never saw"}, "", "gone")
	tl := build(b.Events)
	if got := shape(tl); got != "tool\nbash\napproval\ndelegation\nassistant\n" {
		t.Errorf("orphans:\n%s", got)
	}
	for _, it := range tl.Items()[:3] {
		if it.Running() {
			t.Errorf("an orphan second half counts as running: %v", it.Kind)
		}
	}
}

// TestSameCallIDAcrossKinds: a gated bash command's approval and run share
// a call_id without being joined.
func TestSameCallIDAcrossKinds(t *testing.T) {
	b := fixture.NewBuilder()
	b.Add(&transcript.ApprovalRequest{RequestID: "r", Command: "gh"}, "c", "")
	b.Add(&transcript.BashStart{Command: "gh"}, "c", "")
	b.Add(&transcript.ApprovalDecision{RequestID: "r", Decision: "approve"}, "c", "")
	b.Add(&transcript.BashRun{Command: "gh", ExitCode: new(int)}, "c", "")
	tl := build(b.Events)
	if tl.Len() != 2 || tl.At(0).ApprovalDecision() == nil || tl.At(1).BashRun() == nil {
		t.Errorf("shape:\n%s", shape(tl))
	}
}

func TestFilters(t *testing.T) {
	tl := build(fixture.Session().Events)
	count := func(f timeline.Filter) int {
		n := 0
		for _, it := range tl.Items() {
			if f.Match(it) {
				n++
			}
		}
		return n
	}
	want := map[timeline.Filter]int{
		timeline.FilterAll: 16, timeline.FilterTurns: 4, timeline.FilterTools: 2, timeline.FilterBash: 3,
		timeline.FilterFailures: 2, timeline.FilterApprovals: 1,
	}
	for f, n := range want {
		if got := count(f); got != n {
			t.Errorf("filter %s shows %d, want %d", f, got, n)
		}
	}
	// The filters show exactly what the counts count.
	if c := tl.Counts; int64(count(timeline.FilterTurns)) != c.Turns || int64(count(timeline.FilterFailures)) != c.Failures() {
		t.Errorf("filters show %d turns and %d failures; the counts say %d and %d",
			count(timeline.FilterTurns), count(timeline.FilterFailures), c.Turns, c.Failures())
	}
	if timeline.FilterApprovals.Next() != timeline.FilterAll {
		t.Error("filters do not cycle")
	}
}

func TestContains(t *testing.T) {
	tl := build(fixture.Session().Events)
	find := func(q string) int {
		n := 0
		for _, it := range tl.Items() {
			if it.Contains(q) {
				n++
			}
		}
		return n
	}
	if n := find("mutex"); n != 4 { // thinking, plan, the delegation's head and end
		t.Errorf("mutex: %d matches", n)
	}
	if n := find("MUTEX"); n != 0 {
		t.Errorf("upper-case query must match case: %d", n)
	}
	if n := find("race"); n != 4 { // thinking, a failing run's output, the -race run, the last answer
		t.Errorf("race: %d", n)
	}
	if n := find("kept"); n != 1 {
		t.Errorf("unknown kinds are searched raw: %d", n)
	}
	if timeline.IndexFold("Hello World", "world") != 6 || timeline.IndexFold("abc", "") != -1 || timeline.IndexFold("ÄBC", "äb") != 0 {
		t.Error("IndexFold")
	}
}

func BenchmarkAdd(b *testing.B) {
	var events []*transcript.Event
	for _, line := range strings.Split(strings.TrimSpace(string(fixture.Big(10000))), "\n") {
		ev, err := transcript.Decode([]byte(line))
		if err != nil {
			b.Fatal(err)
		}
		events = append(events, ev)
	}
	b.ResetTimer()
	for b.Loop() {
		tl := timeline.New()
		for _, ev := range events {
			tl.Add(ev)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/event")
}

// TestPrependMendsTheCut: a session read in two parts, the newer first,
// comes out as it does read whole, wherever the cut falls: calls split by
// the cut are one item again and a delegation's items rejoin its block.
func TestPrependMendsTheCut(t *testing.T) {
	events := fixture.Session().Events
	whole := build(events)
	for cut := 1; cut < len(events); cut++ {
		tl := build(events[cut:])
		tl.Prepend(build(events[:cut]))
		if got, want := shape(tl), shape(whole); got != want {
			t.Fatalf("cut before event %d:\n%s\nwant:\n%s", cut, got, want)
		}
		if tl.Counts != whole.Counts || tl.Start != whole.Start || !tl.First.Equal(whole.First) || !tl.Last.Equal(whole.Last) {
			t.Fatalf("cut before event %d: counts %+v, want %+v", cut, tl.Counts, whole.Counts)
		}
		ids := map[int]bool{}
		for i, it := range tl.Items() {
			if ids[it.ID] {
				t.Fatalf("cut before event %d: ID %d twice", cut, it.ID)
			}
			ids[it.ID] = true
			w := whole.At(i)
			if it.Running() != w.Running() || it.Failed() != w.Failed() || it.Seq() != w.Seq() {
				t.Fatalf("cut before event %d: item %d running %v failed %v seq %d, want %v %v %d",
					cut, i, it.Running(), it.Failed(), it.Seq(), w.Running(), w.Failed(), w.Seq())
			}
		}
	}
}

// TestPrependThreeParts: parts read newest first, each put before the
// last, make the whole.
func TestPrependThreeParts(t *testing.T) {
	events := fixture.Session().Events
	whole := build(events)
	for a := 1; a < len(events)-1; a++ {
		for b := a + 1; b < len(events); b++ {
			tl := build(events[b:])
			tl.Prepend(build(events[a:b]))
			tl.Prepend(build(events[:a]))
			if got, want := shape(tl), shape(whole); got != want {
				t.Fatalf("cuts before %d and %d:\n%s\nwant:\n%s", a, b, got, want)
			}
		}
	}
}
