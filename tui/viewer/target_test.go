package viewer

import (
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// A search hit older than the tail on screen: the view asks for older
// parts until it is loaded, then selects it (and stops following).
func TestTargetInOlderHistory(t *testing.T) {
	events := bigSession(60)
	m := newViewer(nil, 80, 20)
	m.SetTarget(Target{Time: events[21].TS}) // "answer 11"
	m.SetOnDemand(true)
	m.SetPartial(true)
	m.Append(events[80:])
	if !m.TakeOlderRequest() {
		t.Fatal("no request for the older part the target is in")
	}
	m.Prepend(build(events[40:80]), true)
	if !m.TakeOlderRequest() {
		t.Fatal("no request for the part before: the target is older still")
	}
	m.Prepend(build(events[:40]), false)
	if got := m.sel.Chat(); got == nil || got.Text != "answer 11" || m.follow {
		t.Fatalf("selected %+v (following %v), want answer 11", got, m.follow)
	}
	if m.TakeOlderRequest() {
		t.Error("asks for more once the target is shown")
	}
}

// In one of cuff's own sessions the hit's seq names its item: in the tail,
// at once; before it, once the full index replaces the tail.
func TestTargetBySeq(t *testing.T) {
	events := bigSession(60)
	m := newViewer(nil, 80, 20)
	m.SetPartial(true)
	m.SetTarget(Target{Seq: events[100].Seq, Time: events[0].TS}) // the time would point elsewhere
	m.Append(events[80:])
	if got := m.sel.Chat(); got == nil || got.Text != "prompt 51" {
		t.Fatalf("selected %+v, want prompt 51", got)
	}
	m.SetTarget(Target{Seq: events[3].Seq})
	if m.target == nil {
		t.Fatal("a target before the tail was given up while the session is indexed")
	}
	m.Replace(build(events), false)
	if got := m.sel.Chat(); got == nil || got.Text != "answer 2" || m.sel.Kind != timeline.KindAssistant {
		t.Fatalf("selected %+v after the full index, want answer 2", got)
	}
}

// A hit in a command's output has the time of the command's end: the view
// selects that command, not whatever started after it ended.
func TestTargetInACommandsOutput(t *testing.T) {
	one := 1
	b := fixture.NewBuilder()
	b.Add(&transcript.ChatTurn{Role: transcript.RoleUser, Text: "run the tests"}, "", "")
	b.Add(&transcript.BashStart{Command: "go test ./..."}, "b1", "")
	end := b.Add(&transcript.BashRun{Command: "go test ./...", ExitCode: &one, Stdout: "--- FAIL: TestStoreClient"}, "b1", "")
	b.Add(&transcript.ChatTurn{Role: transcript.RoleAssistant, Text: "it failed"}, "", "")
	m := newViewer(nil, 80, 20)
	m.SetTarget(Target{Time: end.TS})
	m.Append(b.Events)
	if m.sel == nil || m.sel.Kind != timeline.KindBash {
		t.Fatalf("selected %+v, want the command whose output holds the hit", m.sel)
	}
}
