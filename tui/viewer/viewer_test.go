package viewer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/common"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
	"github.com/cuff-dev/cuff/tui/keys"
	"github.com/cuff-dev/cuff/tui/styles"
	"github.com/cuff-dev/cuff/tui/timeline"
)

// testNow is a fixed clock an hour after the fixtures start.
func testNow() time.Time { return fixture.Start.Add(time.Hour) }

func newViewer(events []*transcript.Event, w, h int) Model {
	m := New(styles.New(true), keys.DefaultKeyMap(), time.UTC, testNow)
	m.SetSize(w, h)
	m.Open(1, session.Info{ID: fixture.ID, Title: "Fix the flaky test"})
	m.Append(events)
	return m
}

func keyMsg(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "ctrl+d":
		return tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// press sends keys, each a key name or a run of characters to type.
func press(m Model, keys ...string) Model {
	for _, k := range keys {
		if len([]rune(k)) > 1 && k != "enter" && k != "esc" && k != "pgdown" && k != "ctrl+d" {
			for _, r := range k {
				m, _ = m.Update(keyMsg(string(r)))
			}
			continue
		}
		m, _ = m.Update(keyMsg(k))
	}
	return m
}

func plain(m Model) string { return ansi.Strip(m.View()) }

func TestViewCollapsedGolden(t *testing.T) {
	m := press(newViewer(fixture.Session().Events, 100, 40), "g")
	golden.RequireEqual(t, plain(m))
}

// TestViewStyledGolden keeps the colours too, so a change of style shows in
// review.
func TestViewStyledGolden(t *testing.T) {
	m := press(newViewer(fixture.Session().Events, 80, 24), "g")
	golden.RequireEqual(t, m.View())
}

func TestViewExpandedGolden(t *testing.T) {
	m := press(newViewer(fixture.Session().Events, 100, 60), "e", "g")
	golden.RequireEqual(t, plain(m))
}

func TestSearchGolden(t *testing.T) {
	m := press(newViewer(fixture.Session().Events, 100, 30), "g", "/", "mutex")
	if !m.Searching() || !strings.Contains(plain(m), "/mutex") {
		t.Fatalf("the search input is not shown:\n%s", plain(m))
	}
	m = press(m, "enter")
	if m.Searching() || m.Query() != "mutex" || m.Matches() != 4 {
		t.Fatalf("query %q, %d matches", m.Query(), m.Matches())
	}
	if !strings.Contains(m.View(), m.st.Match.Render("mutex")) {
		t.Error("the match is not highlighted")
	}
	if !strings.Contains(ansi.Strip(m.Status()), "“mutex” 1/4") {
		t.Errorf("status = %q", ansi.Strip(m.Status()))
	}
	golden.RequireEqual(t, plain(m))
	m = press(m, "n", "n", "n")
	if !strings.Contains(ansi.Strip(m.Status()), "4/4") {
		t.Errorf("after n n n: %q", ansi.Strip(m.Status()))
	}
	m = press(m, "n")
	if !strings.Contains(ansi.Strip(m.Status()), "1/4") {
		t.Errorf("n does not wrap around: %q", ansi.Strip(m.Status()))
	}
	m = press(m, "N")
	if !strings.Contains(ansi.Strip(m.Status()), "4/4") {
		t.Errorf("N does not go back: %q", ansi.Strip(m.Status()))
	}
	m = press(m, "esc")
	if m.Query() != "" || strings.Contains(m.View(), m.st.Match.Render("mutex")) {
		t.Error("esc does not clear the search")
	}
}

func TestSearchExpandsFoldedMatch(t *testing.T) {
	m := press(newViewer(fixture.Session().Events, 100, 30), "g", "/", "parser_test.go:12", "enter")
	if m.Matches() != 1 || m.Selected().Kind != timeline.KindBash {
		t.Fatalf("%d matches, selected %v", m.Matches(), m.Selected().Kind)
	}
	if !strings.Contains(plain(m), "parser_test.go:12: race") {
		t.Errorf("the folded output with the match was not opened:\n%s", plain(m))
	}
}

func TestSelectionAndToggle(t *testing.T) {
	m := newViewer(fixture.Session().Events, 100, 40)
	if m.Selected() == nil || m.Selected().Kind != timeline.KindSessionEnd || !m.Following() {
		t.Fatalf("a new view starts at the end, following")
	}
	m = press(m, "g")
	if m.Selected().Kind != timeline.KindSessionStart || m.Following() {
		t.Fatal("g goes to the top and stops following")
	}
	m = press(m, "j", "j", "j", "j", "j")
	if m.Selected().Kind != timeline.KindBash {
		t.Fatalf("5×j selects %v, want the bash run", m.Selected().Kind)
	}
	if strings.Contains(plain(m), "parser_test.go:12: race") {
		t.Fatal("the output shows before expanding")
	}
	m = press(m, "enter")
	if !strings.Contains(plain(m), "parser_test.go:12: race") || !strings.Contains(plain(m), "stderr") {
		t.Fatalf("enter does not expand:\n%s", plain(m))
	}
	m = press(m, "enter")
	if strings.Contains(plain(m), "parser_test.go:12: race") {
		t.Fatal("enter does not fold again")
	}
	m = press(m, "k")
	if m.Selected().Kind != timeline.KindTool {
		t.Fatalf("k selects %v", m.Selected().Kind)
	}
	m = press(m, "G")
	if !m.Following() || m.Selected().Kind != timeline.KindSessionEnd {
		t.Fatal("G goes to the end and follows")
	}
}

func TestPromptJumpsAndFilters(t *testing.T) {
	b := fixture.Session()
	b.Add(&transcript.ChatTurn{Role: "user", Text: "second prompt"}, "", "")
	m := press(newViewer(b.Events, 100, 40), "g", "]")
	if c := m.Selected().Chat(); c == nil || c.Role != "user" || !strings.HasPrefix(c.Text, "Fix") {
		t.Fatal("] does not go to the first prompt")
	}
	m = press(m, "]")
	if c := m.Selected().Chat(); c == nil || c.Text != "second prompt" {
		t.Fatal("] does not go to the next prompt")
	}
	m = press(m, "[")
	if c := m.Selected().Chat(); c == nil || !strings.HasPrefix(c.Text, "Fix") {
		t.Fatal("[ does not go back")
	}
	m = press(m, "3")
	if m.Filter() != timeline.FilterBash {
		t.Fatalf("3 sets filter %v", m.Filter())
	}
	for _, it := range m.vis {
		if it.Kind != timeline.KindBash {
			t.Fatalf("bash filter shows %v", it.Kind)
		}
	}
	if !strings.Contains(ansi.Strip(m.Status()), "only bash runs") {
		t.Errorf("status = %q", ansi.Strip(m.Status()))
	}
	m = press(m, "v")
	if m.Filter() != timeline.FilterFailures || len(m.vis) != 2 {
		t.Fatalf("v moves to %v with %d items", m.Filter(), len(m.vis))
	}
	m = press(m, "5")
	if len(m.vis) != 1 || m.vis[0].Kind != timeline.KindApproval {
		t.Fatal("5 shows the approvals")
	}
	m = press(m, "0")
	if len(m.vis) != m.tl.Len() {
		t.Fatal("0 shows everything again")
	}
}

func TestFollowAndNewBelow(t *testing.T) {
	b := fixture.Session()
	events := b.Events
	m := newViewer(events[:5], 100, 12)
	if !m.Following() {
		t.Fatal("not following at the start")
	}
	m.Append(events[5:10])
	if !m.Following() || !strings.Contains(plain(m), "Plan the fix") {
		t.Fatalf("following does not show the new events:\n%s", plain(m))
	}
	m = press(m, "g")
	m.Append(events[10:15])
	if m.Following() || !strings.Contains(ansi.Strip(m.Status()), "new ↓") {
		t.Fatalf("away from the bottom, new events must be counted: %q", ansi.Strip(m.Status()))
	}
	m = press(m, "G")
	if !m.Following() || strings.Contains(ansi.Strip(m.Status()), "new ↓") {
		t.Fatal("G does not catch up")
	}
	m = press(m, "f")
	if m.Following() {
		t.Fatal("f does not pause")
	}
	m.Append(events[15:])
	if strings.Contains(plain(m), "Done: the race is fixed") {
		t.Fatal("a paused view moved to show new events")
	}
	m = press(m, "f")
	if !m.Following() || !strings.Contains(plain(m), "Session ended") {
		t.Fatal("f does not resume following")
	}
}

func TestMouse(t *testing.T) {
	m := press(newViewer(fixture.Session().Events, 100, 20), "g")
	top := m.top
	m, _ = m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if m.top == top && m.off == 0 {
		t.Fatal("the wheel does not scroll")
	}
	m, _ = m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if m.top != top || m.off != 0 {
		t.Fatal("the wheel does not scroll back")
	}
	row := -1
	for r, it := range m.frameItems {
		if it != nil && it.Kind == timeline.KindTool {
			row = r
			break
		}
	}
	m, _ = m.Update(tea.MouseClickMsg{Button: tea.MouseLeft, Y: row + m.headerHeight()})
	if m.Selected().Kind != timeline.KindTool {
		t.Fatal("a click does not select")
	}
}

// TestAnySize draws every size down to 40×10 (and some absurd ones): the
// frame is always exactly the size asked for.
func TestAnySize(t *testing.T) {
	events := fixture.Session().Events
	m := newViewer(events, 120, 40)
	sizes := [][2]int{{1, 1}, {2, 2}, {10, 3}, {20, 5}}
	for w := 40; w <= 120; w += 7 {
		for h := 10; h <= 40; h += 6 {
			sizes = append(sizes, [2]int{w, h})
		}
	}
	for _, sz := range sizes {
		for _, keys := range [][]string{{"g"}, {"e"}, {"G"}, {"j", "enter"}} {
			m.SetSize(sz[0], sz[1])
			m = press(m, keys...)
			lines := strings.Split(m.View(), "\n")
			if len(lines) != sz[1] {
				t.Fatalf("%dx%d: %d lines", sz[0], sz[1], len(lines))
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Fatalf("%dx%d: line %q is %d wide", sz[0], sz[1], ansi.Strip(l), w)
				}
			}
		}
	}
}

func TestEmptyAndLoading(t *testing.T) {
	m := newViewer(nil, 60, 12)
	if !strings.Contains(plain(m), "Loading") {
		t.Errorf("before any event:\n%s", plain(m))
	}
	m.Append([]*transcript.Event{})
	m.SetLive(true)
	m.Replace(timeline.New(), false)
	if !strings.Contains(plain(m), "Waiting for events") {
		t.Errorf("an empty live session:\n%s", plain(m))
	}
	m = press(m, "j", "k", "enter", "G", "g", "n", "]", "e", "pgdown")
	m.SetRemoved()
	if !strings.Contains(plain(m), "file removed") || !strings.Contains(plain(m), "was removed") {
		t.Errorf("a removed file:\n%s", plain(m))
	}
}

// TestHostileTranscript: nothing from a recording reaches the terminal as
// a control sequence; everything is shown escaped.
func TestHostileTranscript(t *testing.T) {
	for _, w := range []int{40, 80, 140} {
		m := press(newViewer(fixture.Hostile().Events, w, 80), "e", "g")
		m.SetCanAnswer(true)
		for _, view := range []string{m.View(), press(m, "G").View(), m.Status()} {
			if common.KeepSGR(view) != view {
				t.Fatalf("width %d: the frame holds a control sequence other than SGR: %q", w, view)
			}
			for _, r := range []rune{0x9b, 0x202e, 0xE0041, 0x07} {
				if strings.ContainsRune(view, r) {
					t.Fatalf("width %d: the frame holds %U", w, r)
				}
			}
		}
		if !strings.Contains(plain(m), `\x1b]52;c;`) || !strings.Contains(plain(m), `\u202e`) {
			t.Fatalf("width %d: the hostile bytes are not shown escaped:\n%s", w, plain(m))
		}
	}
}

// TestHugeLine: a session that is one 10 MB line shows a sensible screen.
func TestHugeLine(t *testing.T) {
	huge := strings.Repeat("0123456789abcdef", 10<<20/16)
	b := fixture.NewBuilder()
	b.Add(&transcript.ChatTurn{Role: "assistant", Text: huge}, "", "")
	m := newViewer(b.Events, 80, 24)
	if lines := strings.Split(m.View(), "\n"); len(lines) != 24 {
		t.Fatalf("%d lines", len(lines))
	}
	check := func(m Model, notice string, most int) {
		t.Helper()
		lines := m.lines(m.vis[0])
		if len(lines) > most {
			t.Errorf("%d lines laid out, want at most %d", len(lines), most)
		}
		if !strings.Contains(ansi.Strip(strings.Join(lines, "\n")), notice) {
			t.Errorf("no notice %q of what was left out", notice)
		}
	}
	check(m, "not shown (Ctrl+E exports everything)", (fieldHeadBytes+fieldTailBytes)/70)
	b = fixture.NewBuilder()
	zero := 0
	b.Add(&transcript.BashRun{Command: "yes", ExitCode: &zero, Stdout: huge}, "c", "")
	m = press(newViewer(b.Events, 80, 24), "enter", "G")
	check(m, "lines not shown", outputHeadLines+outputTailLines+10)
	if lines := strings.Split(m.View(), "\n"); len(lines) != 24 {
		t.Fatalf("%d lines", len(lines))
	}
}

// TestLongMarkdownInBackground: a long message is shown as plain text at
// once, rendered as markdown in a command, then swapped in.
func TestLongMarkdownInBackground(t *testing.T) {
	text := strings.Repeat("- item with **bold** text\n", syncMarkdownBytes/24)
	b := fixture.NewBuilder()
	b.Add(&transcript.ChatTurn{Role: "assistant", Text: text}, "", "")
	m := newViewer(b.Events, 80, 24)
	if !strings.Contains(plain(m), "**bold**") {
		t.Fatalf("not shown plain first:\n%s", plain(m))
	}
	cmd := m.Cmds()
	if cmd == nil {
		t.Fatal("no background rendering asked for")
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		msg = batch[0]()
	}
	m, _ = m.Update(msg)
	if strings.Contains(plain(m), "**bold**") || !strings.Contains(plain(m), "•") {
		t.Fatalf("the markdown rendering did not replace the plain text:\n%s", plain(m))
	}
	stale := msg.(MarkdownMsg)
	stale.Gen = 99
	m.Open(2, session.Info{})
	m, _ = m.Update(stale) // a result for another session is dropped
}

func TestApprovalAnswerKey(t *testing.T) {
	b := fixture.NewBuilder()
	req := b.Add(&transcript.ApprovalRequest{RequestID: "r1", Command: "rm -rf build"}, "c1", "")
	m := newViewer(b.Events, 80, 20)
	m.SetLive(true)
	m.SetCanAnswer(true)
	if !strings.Contains(plain(m), "a to answer") {
		t.Errorf("a pending request does not say how to answer:\n%s", plain(m))
	}
	_, cmd := m.Update(keyMsg("a"))
	if cmd == nil {
		t.Fatal("a does nothing")
	}
	if am, ok := cmd().(AnswerMsg); !ok || am.Request != req {
		t.Fatalf("a asks for %#v", cmd())
	}
}

func BenchmarkFrame(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(itoa(n), func(b *testing.B) {
			m := newViewer(bigEvents(b, n), 120, 40)
			m = press(m, "g")
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if i%200 < 100 {
					m.scroll(1)
				} else {
					m.scroll(-1)
				}
				m.layout()
				_ = m.View()
			}
		})
	}
}

func BenchmarkAppendFollowing(b *testing.B) {
	events := bigEvents(b, 20000)
	m := newViewer(events[:10000], 120, 40)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m.Append(events[10000+i%10000 : 10000+i%10000+1])
		_ = m.View()
	}
}

func bigEvents(tb testing.TB, n int) []*transcript.Event {
	var events []*transcript.Event
	for _, line := range strings.Split(strings.TrimSpace(string(fixture.Big(n))), "\n") {
		ev, err := transcript.Decode([]byte(line))
		if err != nil {
			tb.Fatal(err)
		}
		events = append(events, ev)
	}
	return events
}

func itoa(n int) string { return fmt.Sprintf("%dk", n/1000) }

// TestFollowingEndsWithTheSession: a live session shows "following" until
// its end arrives.
func TestFollowingEndsWithTheSession(t *testing.T) {
	events := fixture.Session().Events
	last := len(events) - 1
	if _, ok := events[last].Body.(*transcript.SessionEnd); !ok {
		t.Fatalf("the fixture does not end with session_end: %s", events[last].Type)
	}
	m := New(styles.New(true), keys.DefaultKeyMap(), time.UTC, testNow)
	m.SetSize(100, 12)
	m.Open(1, session.Info{ID: fixture.ID, Live: true})
	m.SetLive(true) // as the app does for a followed session
	m.Append(events[:last])
	if !strings.Contains(ansi.Strip(m.Status()), "following") {
		t.Fatalf("a live session: %q", ansi.Strip(m.Status()))
	}
	m.Append(events[last:])
	if strings.Contains(ansi.Strip(m.Status()), "following") {
		t.Errorf("an ended session still says following: %q", ansi.Strip(m.Status()))
	}
}

// TestContextTurns checks what a person sees of what the agent put into
// the conversation itself: one line saying what it is (enter shows the
// text), a slash command as typed, and no empty turn for a message that
// only carries token usage.
func TestContextTurns(t *testing.T) {
	at := fixture.Start
	var events []*transcript.Event
	add := func(b transcript.Body) {
		ev := transcript.New(fixture.ID, at, b)
		ev.Seq = int64(len(events) + 1)
		at = at.Add(time.Second)
		events = append(events, ev)
	}
	add(&transcript.SessionStart{Agent: "codex", Source: "codex"})
	add(&transcript.ChatTurn{Role: "system", Context: transcript.ContextEnvironment,
		Text: "<environment_context>\n  <cwd>/work/app</cwd>\n  <shell>bash</shell>\n</environment_context>"})
	add(&transcript.ChatTurn{Role: "user", Context: transcript.ContextCommand, Text: "/review src"})
	add(&transcript.ChatTurn{Role: "assistant", MessageID: "m1", Usage: &transcript.Usage{InputTokens: 9}})
	add(&transcript.ChatTurn{Role: "assistant", Text: "Looks fine."})
	m := press(newViewer(events, 100, 30), "g")
	view := plain(m)
	for _, want := range []string{"⚙ Environment · /work/app · bash", "▸ 4 lines (enter)", "❯ You · command", "/review src", "Looks fine."} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	for _, bad := range []string{"<cwd>", "(empty)"} {
		if strings.Contains(view, bad) {
			t.Errorf("view shows %q:\n%s", bad, view)
		}
	}
	if strings.Count(view, "◆ Assistant") != 1 {
		t.Errorf("want one assistant turn:\n%s", view)
	}
}

// TestBackgroundSubAgent: a sub-agent that works while the main agent goes
// on is shown as it happened — its block taken up again, saying whose,
// after the main agent's turns — and the task notification that reports
// it is one line saying what it is.
func TestBackgroundSubAgent(t *testing.T) {
	at := fixture.Start
	var events []*transcript.Event
	add := func(b transcript.Body, call, parent string) {
		ev := transcript.New(fixture.ID, at, b)
		ev.Seq, ev.CallID, ev.ParentCallID = int64(len(events)+1), call, parent
		if parent != "" {
			ev.AgentID = "a1"
		}
		at = at.Add(time.Second)
		events = append(events, ev)
	}
	ok := true
	add(&transcript.SessionStart{Agent: "claude-code", Source: "claude"}, "", "")
	add(&transcript.Delegation{Phase: "start", AgentType: "general-purpose", Task: "Count the files"}, "d1", "")
	add(&transcript.ChatTurn{Role: "assistant", Text: "Counting now."}, "", "d1")
	add(&transcript.ChatTurn{Role: "assistant", Text: "Meanwhile I check the status."}, "", "")
	add(&transcript.ChatTurn{Role: "assistant", Text: "There are 4 entries."}, "", "d1")
	add(&transcript.Delegation{Phase: "end", Result: "4", Success: &ok}, "d1", "")
	add(&transcript.ChatTurn{Role: "system", Context: transcript.ContextTaskNotification,
		Text: "Agent \"count files\" finished\n\nThere are 4 entries."}, "", "")
	add(&transcript.ChatTurn{Role: "assistant", Text: "The helper reported."}, "", "")
	view := plain(press(newViewer(events, 100, 40), "g"))
	order := []string{"⤷ general-purpose", "│ Counting now.", "Meanwhile I check the status.", "│ ⤷ general-purpose continues",
		"│ There are 4 entries.", "│ ↩ result ✓", "⚙ Task notification · Agent \"count files\" finished", "The helper reported."}
	rest := view
	for _, want := range order {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("view lacks %q after what came before:\n%s", want, view)
		}
		rest = rest[i+len(want):]
	}
	if strings.Count(view, "continues") != 1 {
		t.Errorf("want the block taken up once:\n%s", view)
	}
}
