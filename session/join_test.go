package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// claudeLines writes Claude Code transcript lines (the shape of 2.1.x) for
// one conversation.
type claudeLines struct {
	uuid string
	t0   time.Time
	n    int
}

func (c *claudeLines) line(typ string, sec int, message any, extra map[string]any) string {
	c.n++
	rec := map[string]any{"type": typ, "uuid": fmt.Sprintf("u%d", c.n), "parentUuid": nil, "isSidechain": false,
		"cwd": "/proj", "sessionId": c.uuid, "version": "2.1.197", "gitBranch": "main",
		"timestamp": c.t0.Add(time.Duration(sec) * time.Second).Format(time.RFC3339Nano), "message": message}
	for k, v := range extra {
		rec[k] = v
	}
	b, _ := json.Marshal(rec)
	return string(b) + "\n"
}

func (c *claudeLines) user(sec int, text string) string {
	return c.line("user", sec, map[string]any{"role": "user", "content": text}, nil)
}

func (c *claudeLines) say(sec int, id, text string) string {
	return c.line("assistant", sec, map[string]any{"id": id, "role": "assistant", "model": "m",
		"content": []any{map[string]any{"type": "text", "text": text}}}, nil)
}

func (c *claudeLines) bash(sec int, msg, callID, command string) string {
	return c.line("assistant", sec, map[string]any{"id": msg, "role": "assistant", "model": "m",
		"content": []any{map[string]any{"type": "tool_use", "id": callID, "name": "Bash", "input": map[string]any{"command": command}}}}, nil)
}

func (c *claudeLines) result(sec int, callID, out string, isErr bool) string {
	return c.line("user", sec, map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
		"tool_use_id": callID, "content": out, "is_error": isErr}}}, nil)
}

// joinWorld is a project store and a Claude Code folder.
type joinWorld struct {
	store  *Store
	claude *FolderSource
	cache  string
	t0     time.Time
}

func newJoinWorld(t *testing.T) *joinWorld {
	t.Helper()
	base := t.TempDir()
	s := Open(filepath.Join(base, "proj", DirName))
	s.NoSync = true
	return &joinWorld{store: s, claude: ClaudeSource(filepath.Join(base, "claude"), ""), cache: filepath.Join(base, "cache", "joined.json"),
		t0: time.Date(2026, 4, 2, 9, 0, 0, 0, time.UTC)}
}

func (w *joinWorld) joined() *Joined { return NewJoined(w.store, []*FolderSource{w.claude}, w.cache) }

// transcriptPath is where Claude Code keeps conversation uuid.
func (w *joinWorld) transcriptPath(uuid string) string {
	return filepath.Join(w.claude.Root(), "-proj", uuid+".jsonl")
}

func (w *joinWorld) appendTranscript(t *testing.T, uuid string, lines ...string) {
	t.Helper()
	p := w.transcriptPath(uuid)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

// hookSession starts a native session as cuff's Claude Code hook does.
func (w *joinWorld) hookSession(t *testing.T, uuid string) *Writer {
	t.Helper()
	ev := transcript.New("", w.t0, &transcript.SessionStart{Agent: "claude-code", Source: transcript.SourceClaudeHook, WorkingDirectory: "/proj"})
	ev.ConversationID = uuid
	wr, err := w.store.create(ev, w.t0)
	if err != nil {
		t.Fatal(err)
	}
	return wr
}

func (w *joinWorld) rec(sec int, body transcript.Body, call string) *transcript.Event {
	e := transcript.New("", w.t0.Add(time.Duration(sec)*time.Second), body)
	e.CallID = call
	return e
}

const (
	joinUUID  = "6b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
	otherUUID = "7c2d3e4f-5061-4728-93a4-b5c6d7e8f901"
)

// recordConversation writes both records of a conversation: a prompt, a
// command allowed and run, a risky one approved in the TUI.
func (w *joinWorld) recordConversation(t *testing.T) string {
	t.Helper()
	c := &claudeLines{uuid: joinUUID, t0: w.t0}
	w.appendTranscript(t, joinUUID,
		c.user(1, "tidy up"),
		c.say(2, "m1", "Looking first."),
		c.bash(3, "m1", "toolu_ls", "ls"),
		c.result(5, "toolu_ls", "a\nb", false),
		c.bash(6, "m2", "toolu_rm", "rm -rf build"),
		c.result(40, "toolu_rm", "", false),
		c.say(41, "m3", "Tidied."),
	)
	// The conversation is over: its transcript last changed when it ended.
	if err := os.Chtimes(w.transcriptPath(joinUUID), w.t0.Add(41*time.Second), w.t0.Add(41*time.Second)); err != nil {
		t.Fatal(err)
	}
	wr := w.hookSession(t, joinUUID)
	allow := &transcript.Verdict{Decision: "allow", Tier: "local"}
	ask := &transcript.Verdict{Decision: "ask", Tier: "risky"}
	for _, e := range []*transcript.Event{
		w.rec(1, &transcript.ChatTurn{Role: "user", Text: "tidy up"}, ""),
		w.rec(2, &transcript.ChatTurn{Role: "assistant", Text: "Looking first."}, ""),
		w.rec(3, &transcript.BashStart{Command: "ls", WorkingDirectory: "/proj", Verdict: allow}, "toolu_ls"),
		w.rec(4, &transcript.BashRun{Command: "ls", WorkingDirectory: "/proj", ExitCode: exitOf(0), Stdout: "a\nb", DurationMS: 7}, "toolu_ls"),
		w.rec(6, &transcript.ApprovalRequest{RequestID: "req1", Command: "rm -rf build", Verdict: ask}, "toolu_rm"),
		w.rec(38, &transcript.ApprovalDecision{RequestID: "req1", Decision: "approve", By: "tui"}, "toolu_rm"),
		w.rec(38, &transcript.BashStart{Command: "rm -rf build", WorkingDirectory: "/proj", Verdict: ask}, "toolu_rm"),
		w.rec(39, &transcript.BashRun{Command: "rm -rf build", WorkingDirectory: "/proj", ExitCode: exitOf(0), DurationMS: 12}, "toolu_rm"),
		w.rec(41, &transcript.ChatTurn{Role: "assistant", Text: "Tidied."}, ""),
	} {
		e.ConversationID = joinUUID
		if err := wr.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := wr.CloseAt(transcript.StatusComplete, w.t0.Add(42*time.Second)); err != nil {
		t.Fatal(err)
	}
	return wr.ID()
}

var joinedStory = []string{
	"main: start claude /proj",
	"main: user: tidy up",
	"main: assistant: Looking first.",
	"main: $ ls [allow]",
	"main: $ ls → exit 0 in 7 ms",
	"main: approval? rm -rf build",
	"main: approval approve by tui",
	"main: $ rm -rf build [ask]",
	"main: $ rm -rf build → exit 0 in 12 ms",
	"main: assistant: Tidied.",
	"main: end complete",
}

// TestJoinedListReadFind: the conversation that Claude Code and cuff's hook
// both recorded is one row, named by the agent's id, with both records as
// its parts, found by any part of either id and read joined; counts come
// from the joined events (and from the cache next time); sessions of one
// record stay as they are.
func TestJoinedListReadFind(t *testing.T) {
	w := newJoinWorld(t)
	native := w.recordConversation(t)
	c := &claudeLines{uuid: otherUUID, t0: w.t0.Add(time.Hour)}
	w.appendTranscript(t, otherUUID, c.user(0, "another conversation, no hook"))
	lonely := w.hookSession(t, "9d3e4f50-6172-4839-a4b5-c6d7e8f90123") // its transcript is elsewhere
	lonely.Close(transcript.StatusShutdown)
	exec, err := w.store.Create(&transcript.SessionStart{Agent: "cuff-exec", Source: transcript.SourceExec}, w.t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	exec.Close(transcript.StatusComplete)

	j := w.joined()
	ctx := context.Background()
	infos, err := j.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Info{}
	for _, in := range infos {
		byID[in.ID] = in
	}
	if len(infos) != 4 {
		t.Fatalf("%d rows, want 4: %+v", len(infos), infos)
	}
	id := "claude:" + joinUUID
	in, ok := byID[id]
	if !ok || in.Source != ClaudeSourceName || len(in.Parts) != 2 || in.Parts[0].ID != id || in.Parts[1].ID != native ||
		in.Status != transcript.StatusComplete || in.Title != "tidy up" || in.Events != Unknown {
		t.Errorf("joined row %+v", in)
	}
	if r := byID[lonely.ID()]; r.Conversation != "claude:9d3e4f50-6172-4839-a4b5-c6d7e8f90123" || len(r.Parts) != 0 {
		t.Errorf("a hook session whose transcript is not found: %+v", r)
	}
	if r := byID["claude:"+otherUUID]; r.Source != ClaudeSourceName || len(r.Parts) != 0 {
		t.Errorf("a transcript cuff did not record: %+v", r)
	}
	if r := byID[exec.ID()]; r.Source != NativeSourceName || r.Conversation != "" {
		t.Errorf("an exec session: %+v", r)
	}

	// Counted from the joined events, then from the cache.
	if err := j.Fill(ctx, infos); err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.ID == id && (in.Events != int64(len(joinedStory)) || in.Commands != 2 || in.Approvals != 1 || in.Turns != 3) {
			t.Errorf("filled counts %+v", in)
		}
	}
	again, err := w.joined().List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range again {
		if in.ID == id && in.Commands != 2 {
			t.Errorf("counts not cached: %+v", in)
		}
	}

	var got []*transcript.Event
	if err := j.Read(ctx, id, func(e *transcript.Event) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if s := story(got); strings.Join(s, "\n") != strings.Join(joinedStory, "\n") {
		t.Errorf("read:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(joinedStory, "\n"))
	}
	// The native id reads the conversation too.
	var viaNative []*transcript.Event
	if err := j.Read(ctx, native, func(e *transcript.Event) error { viaNative = append(viaNative, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(viaNative) != len(got) || viaNative[0].SessionID != id {
		t.Errorf("read by the native id: %d events of %s", len(viaNative), viaNative[0].SessionID)
	}

	for _, q := range []string{id, joinUUID, joinUUID[:8], "claude:" + joinUUID[:8], native, native[16:24]} {
		found, err := j.Find(ctx, q)
		if err != nil || found.ID != id {
			t.Errorf("Find(%q) = %s, %v; want the conversation", q, found.ID, err)
		}
	}
	if _, err := j.Find(ctx, "codex:"+joinUUID[:8]); err == nil {
		t.Error("a claude session found under codex:")
	}
	var amb *AmbiguousError
	if _, err := j.Find(ctx, "2026"); !errors.As(err, &amb) {
		t.Errorf("Find(2026): %v, want ambiguous", err)
	}
	var bad *InvalidIDError
	if _, err := j.Find(ctx, "../etc/passwd"); !errors.As(err, &bad) {
		t.Errorf("Find of a path: %v", err)
	}
}

// followCollector gathers what a follow passes on, for a test to wait on.
type followCollector struct {
	mu     sync.Mutex
	events []*transcript.Event
	more   chan struct{}
}

func newFollowCollector() *followCollector { return &followCollector{more: make(chan struct{}, 1)} }

func (c *followCollector) add(it FollowItem) {
	if it.Event == nil {
		return
	}
	c.mu.Lock()
	c.events = append(c.events, it.Event)
	c.mu.Unlock()
	select {
	case c.more <- struct{}{}:
	default:
	}
}

// waitFor waits until the story so far ends with last (a hang guard only
// bounds the wait).
func (c *followCollector) waitFor(t *testing.T, last string) []string {
	t.Helper()
	guard := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		s := story(c.events)
		c.mu.Unlock()
		if len(s) > 0 && s[len(s)-1] == last {
			return s
		}
		select {
		case <-c.more:
		case <-guard:
			t.Fatalf("never came: %q; so far:\n%s", last, strings.Join(s, "\n"))
		}
	}
}

// follow follows the joined conversation of cuff's recording wr until the
// test ends, gathering what it passes on.
func (w *joinWorld) follow(t *testing.T, wr *Writer) *followCollector {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	col := newFollowCollector()
	done := make(chan error, 1)
	go func() { done <- w.joined().Follow(ctx, wr.ID(), col.add) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("follow: %v", err)
		}
	})
	return col
}

// record appends an event of conversation joinUUID to cuff's recording wr.
func (w *joinWorld) record(t *testing.T, wr *Writer, e *transcript.Event) {
	t.Helper()
	e.ConversationID = joinUUID
	if err := wr.Append(e); err != nil {
		t.Fatal(err)
	}
}

// TestJoinedFollowLive: following a conversation while both records grow —
// cuff's recording before Claude Code's transcript exists, then the
// transcript appearing — shows one session, each event once, in order.
func TestJoinedFollowLive(t *testing.T) {
	w := newJoinWorld(t)
	wr := w.hookSession(t, joinUUID)
	col := w.follow(t, wr)
	col.waitFor(t, "main: start claude-hook /proj")
	appendRec := func(e *transcript.Event) { w.record(t, wr, e) }
	appendRec(w.rec(1, &transcript.ChatTurn{Role: "user", Text: "tidy up"}, ""))
	col.waitFor(t, "main: user: tidy up")
	// The transcript appears, from its start: what cuff showed already is
	// not shown again.
	c := &claudeLines{uuid: joinUUID, t0: w.t0}
	w.appendTranscript(t, joinUUID, c.user(1, "tidy up"), c.say(2, "m1", "Looking first."))
	col.waitFor(t, "main: assistant: Looking first.")
	// The transcript shows the call first; cuff's record of it follows.
	w.appendTranscript(t, joinUUID, c.bash(3, "m1", "toolu_ls", "ls"))
	appendRec(w.rec(3, &transcript.BashStart{Command: "ls", WorkingDirectory: "/proj", Verdict: &transcript.Verdict{Decision: "allow"}}, "toolu_ls"))
	col.waitFor(t, "main: $ ls [allow]")
	appendRec(w.rec(4, &transcript.BashRun{Command: "ls", ExitCode: exitOf(0), DurationMS: 7}, "toolu_ls"))
	col.waitFor(t, "main: $ ls → exit 0 in 7 ms")
	w.appendTranscript(t, joinUUID, c.result(5, "toolu_ls", "a\nb", false), c.say(6, "m2", "Done."))
	col.waitFor(t, "main: assistant: Done.")
	if err := wr.CloseAt(transcript.StatusComplete, w.t0.Add(7*time.Second)); err != nil {
		t.Fatal(err)
	}
	s := col.waitFor(t, "main: end complete")
	want := []string{"main: start claude-hook /proj", "main: user: tidy up", "main: assistant: Looking first.",
		"main: $ ls [allow]", "main: $ ls → exit 0 in 7 ms", "main: assistant: Done.", "main: end complete"}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Errorf("followed:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
}

// TestJoinedFollowFindsTheTranscriptWhenCuffRecords: Claude Code's
// transcript appears while a follower shows cuff's recording alone, and
// cuff records a call the transcript shows after some text: the follower
// looks for the transcript as soon as cuff's record grows, so the text
// still comes before the call (it waited up to a second for its next look,
// showing the call first).
func TestJoinedFollowFindsTheTranscriptWhenCuffRecords(t *testing.T) {
	w := newJoinWorld(t)
	wr := w.hookSession(t, joinUUID)
	col := w.follow(t, wr)
	appendRec := func(e *transcript.Event) { w.record(t, wr, e) }
	appendRec(w.rec(1, &transcript.ChatTurn{Role: "user", Text: "tidy up"}, ""))
	col.waitFor(t, "main: user: tidy up") // shown alone: there is no transcript yet
	c := &claudeLines{uuid: joinUUID, t0: w.t0}
	w.appendTranscript(t, joinUUID, c.user(1, "tidy up"), c.say(2, "m1", "Looking first."), c.bash(3, "m1", "toolu_ls", "ls"))
	appendRec(w.rec(3, &transcript.BashStart{Command: "ls", WorkingDirectory: "/proj", Verdict: &transcript.Verdict{Decision: "allow"}}, "toolu_ls"))
	s := col.waitFor(t, "main: $ ls [allow]")
	want := []string{"main: start claude-hook /proj", "main: user: tidy up", "main: assistant: Looking first.", "main: $ ls [allow]"}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Errorf("followed:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
}

// TestJoinedFollowEndsAfterWhatTheTranscriptHolds: cuff records the
// session's end while Claude Code's decoder holds the transcript's newest
// events back (a sub-agent works: see claude.LiveSettle), and the follower
// wakes meanwhile with nothing new: the end still comes last.
func TestJoinedFollowEndsAfterWhatTheTranscriptHolds(t *testing.T) {
	w := newJoinWorld(t)
	w.t0 = time.Now().UTC() // recent: held as a live session's events are
	wr := w.hookSession(t, joinUUID)
	col := w.follow(t, wr)
	c := &claudeLines{uuid: joinUUID, t0: w.t0}
	w.appendTranscript(t, joinUUID, c.user(0, "look around"), c.say(0, "m1", "Asking a helper."))
	col.waitFor(t, "main: assistant: Asking a helper.")
	w.appendTranscript(t, joinUUID, c.line("assistant", 0, map[string]any{"id": "m2", "role": "assistant", "model": "m",
		"content": []any{map[string]any{"type": "tool_use", "id": "toolu_agent", "name": "Agent",
			"input": map[string]any{"subagent_type": "Explore", "description": "look", "prompt": "Look around."}}}}, nil),
		c.say(0, "m3", "Meanwhile, more."))
	if err := wr.CloseAt(transcript.StatusComplete, w.t0); err != nil {
		t.Fatal(err)
	}
	for range 5 { // wake the follower with nothing to read: a line still being written
		w.appendTranscript(t, joinUUID, " ")
	}
	s := col.waitFor(t, "main: end complete")
	if i := slices.Index(s, "main: assistant: Meanwhile, more."); i < 0 || i > len(s)-2 {
		t.Errorf("the session's end is not last:\n%s", strings.Join(s, "\n"))
	}
}
