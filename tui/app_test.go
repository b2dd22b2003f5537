package tui

import (
	"context"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/tui/browser"
	"github.com/cuff-dev/cuff/tui/dialog"
	"github.com/cuff-dev/cuff/tui/internal/fixture"
)

// waitLimit bounds every wait for the screen.
const waitLimit = 10 * time.Second

// clock is a settable clock for the model under test.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.ns.Store(t.UnixNano())
	return c
}
func (c *clock) now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }

// store makes a project store holding the given sessions.
func store(t *testing.T, sessions ...[]byte) *session.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".cuff")
	s := session.Open(dir)
	if err := os.MkdirAll(s.SessionsDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	for i, data := range sessions {
		id := fixture.ID
		if i > 0 {
			id = strings.Replace(fixture.ID, "a7b3c9d2", "b7b3c9d"+string(rune('0'+i)), 1)
			data = []byte(strings.ReplaceAll(string(data), fixture.ID, id))
		}
		if err := os.WriteFile(s.EventsPath(id), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// harness runs the whole program under teatest and keeps the last frame,
// taken on the program's own goroutine.
type harness struct {
	tm    *teatest.TestModel
	mu    sync.Mutex
	frame string
}

type nudge struct{}

func run(t *testing.T, m Model, w, h int) *harness {
	t.Helper()
	hs := &harness{}
	filter := func(mod tea.Model, msg tea.Msg) tea.Msg {
		v := mod.View().Content
		hs.mu.Lock()
		hs.frame = v
		hs.mu.Unlock()
		return msg
	}
	hs.tm = teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h), teatest.WithProgramOptions(tea.WithFilter(filter)))
	return hs
}

// waitFor waits until the frame (without colours) holds every text.
func (hs *harness) waitFor(t *testing.T, texts ...string) string {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		hs.tm.Send(nudge{})
		time.Sleep(20 * time.Millisecond)
		hs.mu.Lock()
		frame := ansi.Strip(hs.frame)
		hs.mu.Unlock()
		ok := true
		for _, s := range texts {
			ok = ok && strings.Contains(frame, s)
		}
		if ok {
			return frame
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q:\n%s", texts, frame)
		}
	}
}

func (hs *harness) key(s string) {
	switch s {
	case "enter":
		hs.tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	case "esc":
		hs.tm.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	case "tab":
		hs.tm.Send(tea.KeyPressMsg{Code: tea.KeyTab})
	case "ctrl+e":
		hs.tm.Send(tea.KeyPressMsg{Code: 'e', Mod: tea.ModCtrl})
	default:
		hs.tm.Type(s)
	}
}

func (hs *harness) quit(t *testing.T) Model {
	t.Helper()
	hs.key("q")
	return hs.tm.FinalModel(t, teatest.WithFinalTimeout(waitLimit)).(Model)
}

// drive runs the model's Update by hand, running each command at once
// (but not the ones that block on a feed or a timer), for deterministic
// frames.
func drive(m Model, msgs ...tea.Msg) Model {
	for _, msg := range msgs {
		next, _ := m.Update(msg)
		m = next.(Model)
	}
	return m
}

func TestListGolden(t *testing.T) {
	s := store(t, fixture.Session().JSONL(), fixture.JSONL(fixture.Session().Events[:6]))
	ck := newClock(fixture.Start.Add(2 * time.Hour))
	m := New(Options{Sources: []session.Source{s.Source()}, Where: "/project/.cuff", Now: ck.now, Location: time.UTC})
	listed := browser.List(context.Background(), m.opts.Sources)()
	m = drive(m, tea.WindowSizeMsg{Width: 120, Height: 12}, listed)
	golden.RequireEqual(t, ansi.Strip(m.View().Content))
	if !strings.Contains(ansi.Strip(m.View().Content), "2 sessions") {
		t.Error("the list does not count its sessions")
	}
}

func TestListEmpty(t *testing.T) {
	s := store(t)
	m := New(Options{Sources: []session.Source{s.Source()}, Where: s.Dir})
	m = drive(m, tea.WindowSizeMsg{Width: 90, Height: 14}, browser.List(context.Background(), m.opts.Sources)())
	if v := ansi.Strip(m.View().Content); !strings.Contains(v, "No sessions yet") || !strings.Contains(v, "cuff demo") {
		t.Errorf("empty list:\n%s", v)
	}
}

// TestBrowseOpenExport: open a session from the list, go back and forth
// with tab, export it with Ctrl+E, and see the toast.
func TestBrowseOpenExport(t *testing.T) {
	s := store(t, fixture.Session().JSONL())
	exports := filepath.Join(t.TempDir(), "exports")
	m := New(Options{Sources: []session.Source{s.Source()}, ExportDir: exports, Where: "store"})
	hs := run(t, m, 160, 40)
	hs.waitFor(t, "1 session", "Fix the flaky test")
	hs.key("enter")
	hs.waitFor(t, "Session ended · complete", "⤷ planner")
	hs.key("tab")
	hs.waitFor(t, "1 session")
	hs.key("tab")
	hs.waitFor(t, "⤷ planner")
	hs.key("ctrl+e")
	frame := hs.waitFor(t, "Exported to")
	path := filepath.Join(exports, fixture.ID+".md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no export: %v", err)
	}
	if !strings.Contains(string(data), "### ❌ Bash: `go test ./...`") {
		t.Error("the export is not the markdown export")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("export mode %v", fi.Mode().Perm())
	}
	fm := hs.quit(t)
	if !fm.open || fm.viewer.Info().ID != fixture.ID {
		t.Error("the session is not open at the end")
	}
	last := strings.Split(frame, "\n")
	// The padding between toast and status depends on the temporary
	// directory's length: compare with single spaces.
	toastLine := strings.Join(strings.Fields(last[len(last)-1]), " ")
	golden.RequireEqual(t, strings.ReplaceAll(toastLine, exports, "$EXPORTS"))
}

func TestExportError(t *testing.T) {
	s := store(t, fixture.Session().JSONL())
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Sources: []session.Source{s.Source()}, ExportDir: filepath.Join(blocker, "exports")})
	hs := run(t, m, 120, 30)
	hs.waitFor(t, "1 session")
	hs.key("ctrl+e") // from the list: the selected session
	hs.waitFor(t, "Export failed")
	fm := hs.quit(t)
	if !fm.toast.err {
		t.Error("the failure is not shown as an error")
	}
}

// fakeApprover records decisions; it stands in for the approval broker.
type fakeApprover struct {
	Approver
	mu  sync.Mutex
	got []string
}

func (f *fakeApprover) Decide(_ context.Context, id string, d Decision) (*transcript.ApprovalDecision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	verdict := "deny"
	dec := &transcript.ApprovalDecision{RequestID: id, Decision: transcript.DecisionDeny, By: "tui", Reason: d.Reason}
	if d.Approve {
		verdict = "approve " + d.Scope
		dec = &transcript.ApprovalDecision{RequestID: id, Decision: transcript.DecisionApprove, Scope: d.Scope, By: "tui"}
	}
	f.got = append(f.got, id+" "+verdict)
	return dec, nil
}

func (f *fakeApprover) decisions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.got...)
}

// TestApprovalPrompt: a fresh request pops the prompt up; keys in the
// grace period are ignored; y approves once.
func TestApprovalPrompt(t *testing.T) {
	ck := newClock(time.Now())
	b := fixture.NewBuilder()
	b.TS = ck.now()
	b.Add(&transcript.SessionStart{Agent: "claude-code"}, "", "")
	b.Add(&transcript.ApprovalRequest{RequestID: "req_9", Tool: "Bash", Command: "git push origin main",
		Verdict: &transcript.Verdict{Tier: "risky", Reasons: []string{"pushing publishes work"}}}, "c9", "")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, b.JSONL(), 0o600); err != nil {
		t.Fatal(err)
	}
	ap := &fakeApprover{}
	m := New(Options{Mode: ModeWatch, Watch: &session.Info{ID: "s", Path: path}, Approver: ap, Now: ck.now})
	hs := run(t, m, 100, 30)
	hs.waitFor(t, "Approval requested", "The agent wants to run:", "git push origin main", "Deny")
	hs.key("y") // within the grace period: ignored
	time.Sleep(100 * time.Millisecond)
	if got := ap.decisions(); len(got) != 0 {
		t.Fatalf("a key in the grace period answered: %v", got)
	}
	ck.add(dialog.GracePeriod + time.Second)
	hs.key("y")
	hs.waitFor(t, "Approved (once)")
	fm := hs.quit(t)
	if got := ap.decisions(); len(got) != 1 || got[0] != "req_9 approve once" {
		t.Fatalf("decisions %v", got)
	}
	if fm.dialogs.Len() != 0 {
		t.Error("the prompt is still open")
	}
}

// TestApprovalDecidedElsewhere: a decision that arrives in the session
// closes the prompt.
func TestApprovalDecidedElsewhere(t *testing.T) {
	b := fixture.NewBuilder()
	b.TS = time.Now().UTC()
	b.Add(&transcript.ApprovalRequest{RequestID: "req_1", Command: "make deploy"}, "c1", "")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, b.JSONL(), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Mode: ModeWatch, Watch: &session.Info{ID: "s", Path: path}, Approver: &fakeApprover{}})
	hs := run(t, m, 100, 30)
	hs.waitFor(t, "The agent wants to run:")
	b.Add(&transcript.ApprovalDecision{RequestID: "req_1", Decision: "deny", By: "cli"}, "c1", "")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(fixture.JSONL(b.Events[1:]))
	f.Close()
	hs.waitFor(t, "decided elsewhere", "✗ denied by cli")
	if fm := hs.quit(t); fm.dialogs.Len() != 0 {
		t.Error("the prompt stayed open")
	}
}

// TestWatchFollowsAndRemoved: a followed file grows, then goes away.
func TestWatchFollowsAndRemoved(t *testing.T) {
	events := fixture.Session().Events
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, fixture.JSONL(events[:4]), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Mode: ModeWatch, Watch: &session.Info{ID: "s", Path: path}})
	hs := run(t, m, 100, 40)
	hs.waitFor(t, "I'll look at the test first")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(fixture.JSONL(events[4:8]))
	f.Close()
	hs.waitFor(t, "$ go test ./...", "✗ 1")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	hs.waitFor(t, "file removed", "The session file was removed")
	hs.quit(t)
}

// TestWatchWaitsForLiveSession: with nothing live, watch waits, then opens
// the session that starts.
func TestWatchWaitsForLiveSession(t *testing.T) {
	s := store(t)
	m := New(Options{Mode: ModeWatch, Sources: []session.Source{s.Source()}, Where: s.Dir})
	hs := run(t, m, 100, 30)
	hs.waitFor(t, "Waiting for a live session")
	w, err := s.Create(&transcript.SessionStart{Agent: "codex", Title: "brand new"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Detach()
	hs.waitFor(t, "brand new", "● live")
	if err := w.Append(transcript.New(w.ID(), time.Now(), &transcript.ChatTurn{Role: "user", Text: "hello from the agent"})); err != nil {
		t.Fatal(err)
	}
	hs.waitFor(t, "hello from the agent")
	hs.quit(t)
}

func TestRootKeys(t *testing.T) {
	s := store(t, fixture.Session().JSONL())
	m := New(Options{Sources: []session.Source{s.Source()}})
	m = drive(m, tea.WindowSizeMsg{Width: 100, Height: 30}, browser.List(context.Background(), m.opts.Sources)())
	m = drive(m, tea.KeyPressMsg{Code: '?', Text: "?"})
	if m.dialogs.Len() != 1 || !strings.Contains(ansi.Strip(m.View().Content), "Keys: session list") {
		t.Fatal("? does not open the help")
	}
	m = drive(m, tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.dialogs.Len() != 0 {
		t.Fatal("esc does not close the help")
	}
	m = drive(m, tea.KeyPressMsg{Code: '/', Text: "/"}, tea.KeyPressMsg{Code: 'q', Text: "q"})
	if !m.browser.Filtering() {
		t.Fatal("/ does not start the filter")
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("a letter typed into the filter quits")
		}
	}
	m = drive(m, tea.KeyPressMsg{Code: tea.KeyEscape})
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
	if cmd == nil {
		t.Fatal("q does nothing")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatal("q does not quit")
	}
}

func TestSizesDownTo40x10(t *testing.T) {
	s := store(t, fixture.Session().JSONL())
	m := New(Options{Sources: []session.Source{s.Source()}})
	m = drive(m, tea.WindowSizeMsg{Width: 100, Height: 30}, browser.List(context.Background(), m.opts.Sources)())
	check := func(w, h int) {
		t.Helper()
		m = drive(m, tea.WindowSizeMsg{Width: w, Height: h})
		lines := strings.Split(m.View().Content, "\n")
		if len(lines) != h {
			t.Fatalf("%dx%d: %d lines", w, h, len(lines))
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > w {
				t.Fatalf("%dx%d: %q too wide", w, h, ansi.Strip(l))
			}
		}
	}
	for w := 40; w <= 120; w += 20 {
		for h := 10; h <= 30; h += 10 {
			check(w, h)
		}
	}
	m = drive(m, tea.KeyPressMsg{Code: '?', Text: "?"})
	check(40, 10)
	m = drive(m, tea.KeyPressMsg{Code: tea.KeyEscape})
}

func TestExportName(t *testing.T) {
	for in, want := range map[[2]string]string{
		{fixture.ID, ""}:            fixture.ID,
		{"claude:1234", ""}:         "claude_1234",
		{"", "/x/my session.jsonl"}: "my_session",
		{"../../etc/passwd", ""}:    "_.._etc_passwd",
		{"", "/x/.hidden.jsonl"}:    "hidden",
	} {
		if got := exportName(in[0], in[1]); got != want {
			t.Errorf("exportName(%q, %q) = %q, want %q", in[0], in[1], got, want)
		}
	}
}

func TestCtrlCQuitsFromADialog(t *testing.T) {
	m := New(Options{})
	m = drive(m, tea.WindowSizeMsg{Width: 80, Height: 20}, tea.KeyPressMsg{Code: '?', Text: "?"})
	if m.dialogs.Len() != 1 {
		t.Fatal("no dialog")
	}
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if cmd == nil {
		t.Fatal("ctrl+c does nothing in a dialog")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatal("ctrl+c does not quit from a dialog")
	}
}

func TestFixedThemeIgnoresTheTerminalBackground(t *testing.T) {
	m := New(Options{Theme: ThemeLight})
	if m.st.Dark {
		t.Fatal("light theme starts dark")
	}
	next, _ := m.Update(tea.BackgroundColorMsg{Color: color.Black})
	if next.(Model).st.Dark {
		t.Error("a fixed light theme followed a dark terminal")
	}
	auto := New(Options{})
	next, _ = auto.Update(tea.BackgroundColorMsg{Color: color.White})
	if next.(Model).st.Dark {
		t.Error("auto theme did not follow a light terminal")
	}
}

// TestOneRefreshChain: while cuff watch waits for a live session, every
// listing used to start one more refresh timer (their number doubled every
// two seconds); there is one chain however many listings arrive.
func TestOneRefreshChain(t *testing.T) {
	m := New(Options{Mode: ModeWatch})
	next, _ := m.Update(browser.ListedMsg{})
	m = next.(Model)
	if !m.refreshing || !m.waiting {
		t.Fatalf("refreshing %v, waiting %v", m.refreshing, m.waiting)
	}
	for range 3 {
		next, cmd := m.Update(browser.ListedMsg{})
		m = next.(Model)
		if cmd != nil {
			t.Fatal("a listing while a refresh is due starts another timer")
		}
	}
	next, cmd := m.Update(refreshMsg{})
	if m = next.(Model); cmd == nil || !m.refreshing {
		t.Fatal("the refresh tick does not re-arm itself")
	}
}
