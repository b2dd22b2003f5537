package viewer

import (
	"strconv"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// bigSession is many short exchanges, each a prompt "prompt N" and an
// answer, numbered from 1.
func bigSession(n int) []*transcript.Event {
	b := fixture.NewBuilder()
	for i := 1; i <= n; i++ {
		b.Add(&transcript.ChatTurn{Role: transcript.RoleUser, Text: "prompt " + strconv.Itoa(i)}, "", "")
		b.Add(&transcript.ChatTurn{Role: transcript.RoleAssistant, Text: "answer " + strconv.Itoa(i)}, "", "")
	}
	return b.Events
}

// A view of a transcript's tail asks for the older part once it reaches
// its top, keeps the items on screen where they are when the part comes,
// and after a jump to the top goes on to each new top until the start.
func TestOlderPartsOnDemand(t *testing.T) {
	events := bigSession(60)
	m := newViewer(nil, 80, 20)
	m.SetPartial(true)
	m.SetOnDemand(true)
	m.Append(events[80:]) // the last 20 exchanges
	if m.TakeOlderRequest() {
		t.Fatal("asked for older history while showing the bottom")
	}
	if !strings.Contains(plain(m), "↑ older history") {
		t.Errorf("the header does not say older history is there:\n%s", plain(m))
	}
	for range 200 {
		m = press(m, "k")
		if m.pos(m.top) == 0 && m.off == 0 {
			break
		}
	}
	if !m.TakeOlderRequest() {
		t.Fatal("no request for older history at the top")
	}
	if m.TakeOlderRequest() {
		t.Fatal("asked twice for one step")
	}
	if !strings.Contains(plain(m), "loading older…") {
		t.Errorf("the header does not say older history is loading:\n%s", plain(m))
	}
	before := plain(m)
	m.Prepend(build(events[40:80]), true)
	if after := plain(m); bodyOf(after) != bodyOf(before) {
		t.Errorf("the screen moved when the older part came:\n%s\nbefore:\n%s", after, before)
	}
	if m.TakeOlderRequest() {
		t.Fatal("asked for more while not at the top")
	}
	m = press(m, "g")
	if !strings.Contains(plain(m), "prompt 21") || !m.TakeOlderRequest() {
		t.Fatalf("g does not show the top and ask for more:\n%s", plain(m))
	}
	m.Prepend(build(events[:40]), false)
	if !strings.Contains(plain(m), "prompt 1\n") && !strings.Contains(plain(m), "prompt 1 ") {
		t.Errorf("after g the view does not follow to the start:\n%s", plain(m))
	}
	if m.TakeOlderRequest() || strings.Contains(plain(m), "older history") {
		t.Errorf("asks for more at the start:\n%s", plain(m))
	}
}

func build(events []*transcript.Event) *timeline.Timeline {
	tl := timeline.New()
	for _, ev := range events {
		tl.Add(ev)
	}
	return tl
}

// bodyOf is a screen without its header and status lines.
func bodyOf(screen string) string {
	lines := strings.Split(screen, "\n")
	if len(lines) > 4 {
		lines = lines[3 : len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
