package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// The markdown export of a recorded session streams through MarkdownSink:
// entries are rendered as they complete and the document is put together
// at the end. These tests hold it to the document that Markdown writes from
// events in memory, and both to a plain model of the document: the tree of
// entries built from all the events sorted by seq, written depth first —
// a delegation's entries inside it, except that where something outside it
// came between, it goes on in a continuation placed there, and its end is
// then told where it came.

// modelEntry is an entry of the model: an event, the second half of its
// call, and for a delegation the entries inside it; or a continuation of
// delegation of, or the end of delegation of told apart.
type modelEntry struct {
	ev, second *transcript.Event
	children   []*modelEntry
	owner      *modelEntry // the delegation it is inside (for a continuation, the delegation's own)
	cont, end  bool
	of         *modelEntry
	seg        *modelEntry // a delegation's part that takes entries
	apart      bool
}

// inside reports whether e is d or inside it.
func (e *modelEntry) inside(d *modelEntry) bool {
	for ; e != nil; e = e.owner {
		if e == d {
			return true
		}
	}
	return false
}

// modelMarkdown writes the document the simple way: sort, build the whole
// tree, write it in order.
func modelMarkdown(events []*transcript.Event, opts MarkdownOptions) []byte {
	opts = opts.withDefaults()
	sorted := append([]*transcript.Event(nil), events...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Seq < sorted[j].Seq })
	var roots []*modelEntry
	var start, end *transcript.Event
	open := map[string]*modelEntry{}
	delegations := map[string]*modelEntry{}
	var last *modelEntry // the entry placed last
	var place func(e, d *modelEntry)
	place = func(e, d *modelEntry) {
		if d != nil && (last == nil || !last.inside(d)) {
			c := &modelEntry{ev: d.ev, cont: true, of: d, owner: d.owner}
			place(c, d.owner)
			d.seg = c
		}
		if d == nil {
			roots = append(roots, e)
		} else {
			d.seg.children = append(d.seg.children, e)
			e.owner = d
		}
		last = e
	}
	for _, ev := range sorted {
		switch b := ev.Body.(type) {
		case *transcript.SessionStart:
			if start == nil {
				start = ev
				continue
			}
		case *transcript.SessionEnd:
			end = ev
			continue
		case *transcript.ToolResult, *transcript.BashRun, *transcript.ApprovalDecision:
			if e := open[pairKey(ev)]; e != nil && ev.CallID != "" {
				e.second = ev
				delete(open, pairKey(ev))
				continue
			}
		case *transcript.Delegation:
			if e := delegations[ev.CallID]; b.Phase == transcript.PhaseEnd && e != nil && ev.CallID != "" && e.second == nil {
				e.second = ev
				if e.seg != e || !last.inside(e) {
					e.apart = true
					place(&modelEntry{ev: e.ev, end: true, of: e}, e.owner)
				}
				continue
			}
		}
		e := &modelEntry{ev: ev}
		switch b := ev.Body.(type) {
		case *transcript.ToolCall, *transcript.BashStart, *transcript.ApprovalRequest:
			if ev.CallID != "" {
				open[pairKey(ev)] = e
			}
		case *transcript.Delegation:
			if b.Phase != transcript.PhaseEnd && ev.CallID != "" {
				delegations[ev.CallID] = e
			}
		}
		if b, ok := ev.Body.(*transcript.Delegation); ok && b.Phase != transcript.PhaseEnd {
			e.seg = e
		}
		if p := delegations[ev.ParentCallID]; p != nil && ev.ParentCallID != "" && p != e {
			place(e, p)
		} else {
			place(e, nil)
		}
	}
	sum := mdSummary{start: start, end: end}
	for _, ev := range events {
		if sum.id == "" {
			sum.id = ev.SessionID
		}
		if !ev.TS.IsZero() && (sum.first.IsZero() || ev.TS.Before(sum.first)) {
			sum.first = ev.TS
		}
		if ev.TS.After(sum.last) {
			sum.last = ev.TS
		}
		sum.counts.Add(ev)
	}
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	o := &mdOut{w: bw, loc: opts.Location}
	m := &mdWriter{w: &bytes.Buffer{}, opts: opts}
	emit := func(fn func()) {
		m.w.Reset()
		fn()
		if err := o.write(m.w.Bytes()); err != nil {
			panic(err)
		}
	}
	emit(func() { m.header(&sum) })
	if !sum.first.IsZero() {
		o.day = sum.first.In(opts.Location).Format("2006-01-02")
	}
	var walk func(e *modelEntry, prefix string)
	walk = func(e *modelEntry, prefix string) {
		switch {
		case e.cont:
			emit(func() { m.delegationGoesOn(e.ev, prefix) })
			for _, c := range e.children {
				walk(c, prefix+"> ")
			}
			emit(func() { m.line(prefix, "") })
			return
		case e.end:
			n := &mdNode{ev: e.of.ev, second: e.of.second}
			emit(func() { m.delegationEnd(n, n.ev.Body.(*transcript.Delegation), prefix) })
			return
		}
		n := &mdNode{ev: e.ev, second: e.second}
		emit(func() { m.node(n, prefix) })
		b, ok := e.ev.Body.(*transcript.Delegation)
		if !ok {
			return
		}
		for _, c := range e.children {
			walk(c, prefix+"> ")
		}
		if len(e.children) > 0 {
			emit(func() { m.line(prefix, "") })
		}
		if !e.apart {
			emit(func() { m.delegationEnd(n, b, prefix) })
		}
	}
	for _, e := range roots {
		walk(e, "")
	}
	if end != nil {
		emit(func() { m.sessionEnd(end, "") })
	}
	bw.Flush()
	return out.Bytes()
}

// writeJSONL writes events to a session file as a recorder would and
// returns its path.
func writeJSONL(t testing.TB, events []*transcript.Event) string {
	t.Helper()
	var b bytes.Buffer
	for _, ev := range events {
		line, err := ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sinkMarkdown exports sessions (each a file) through a MarkdownSink that
// holds at most hold bytes of calls waiting for their result.
func sinkMarkdown(t testing.TB, hold int, paths ...string) []byte {
	t.Helper()
	var out bytes.Buffer
	sink := NewMarkdownSink(&out, MarkdownOptions{})
	sink.hold = hold
	var list []session.Info
	for i := range paths {
		list = append(list, session.Info{ID: fmt.Sprint(i)})
	}
	read := FileReader(func(id string) string {
		var i int
		fmt.Sscan(id, &i)
		return paths[i]
	})
	if _, err := WriteSessions(context.Background(), sink, list, read); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// sliceMarkdown exports events held in memory through a MarkdownSink, as
// an export of a foreign transcript does: the events have no raw line.
func sliceMarkdown(t testing.TB, hold int, events []*transcript.Event) []byte {
	t.Helper()
	var out bytes.Buffer
	sink := NewMarkdownSink(&out, MarkdownOptions{})
	sink.hold = hold
	read := func(_ string, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
		for _, ev := range events {
			if err := fn(ev); err != nil {
				return transcript.ReadStats{}, err
			}
		}
		return transcript.ReadStats{}, nil
	}
	if _, err := WriteSessions(context.Background(), sink, []session.Info{{ID: "s"}}, read); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func markdownOf(t testing.TB, events []*transcript.Event) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := Markdown(&out, events, MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// readBack decodes events from the file they were written to.
func readBack(t testing.TB, path string) []*transcript.Event {
	t.Helper()
	var events []*transcript.Event
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := DecodeParallel(f, func(ev *transcript.Event) error { events = append(events, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	return events
}

// checkSame fails when got differs from want, showing where.
func checkSame(t testing.TB, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-200)
	t.Fatalf("%s differs at byte %d:\n got: %q\nwant: %q", what, i, got[from:min(len(got), i+200)], want[from:min(len(want), i+200)])
}

// recordedSample is sampleSession as written to a file and read back (its
// event of an unknown kind has no time in its line, so it loses it).
func recordedSample(t testing.TB) []*transcript.Event {
	return readBack(t, writeJSONL(t, sampleSession()))
}

func TestMarkdownSinkGolden(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "TestMarkdownGolden.golden"))
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, "model", modelMarkdown(sampleSession(), MarkdownOptions{}), want)
	path := writeJSONL(t, sampleSession())
	recorded := markdownOf(t, readBack(t, path))
	for _, hold := range []int{defaultMarkdownHold, 0} {
		checkSame(t, fmt.Sprintf("sink export of unread events (hold %d)", hold), sliceMarkdown(t, hold, sampleSession()), want)
		checkSame(t, fmt.Sprintf("sink export (hold %d)", hold), sinkMarkdown(t, hold, path), recorded)
	}
}

// TestMarkdownSinkLateResults has results that come long after their
// calls, a delegation whose sub-agent goes on after its end, and a call_id
// used again: with a tiny hold every waiting call is let go of and rendered
// at the end from the spool, and the document is the same.
func TestMarkdownSinkLateResults(t *testing.T) {
	b := newSessionBuilder()
	b.add(&transcript.SessionStart{Agent: "claude-code"}, "", "")
	for i := 0; i < 40; i++ {
		b.add(&transcript.ToolCall{Tool: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"f%d.go"}`, i))}, fmt.Sprint("t", i), "")
		b.add(&transcript.BashStart{Command: fmt.Sprint("make ", i)}, fmt.Sprint("b", i), "")
	}
	b.add(&transcript.Delegation{Phase: "start", AgentType: "tester", Task: "test"}, "d1", "")
	b.add(&transcript.ChatTurn{Role: "user", Text: "meanwhile"}, "", "")
	b.add(&transcript.Delegation{Phase: "end", Result: "done", Success: boolp(true)}, "d1", "")
	b.add(&transcript.ChatTurn{Role: "assistant", Text: "late child"}, "", "d1")
	for i := 39; i >= 0; i-- {
		b.add(&transcript.BashRun{Command: fmt.Sprint("make ", i), ExitCode: intp(i % 2), Stdout: strings.Repeat("x\n", i)}, fmt.Sprint("b", i), "")
		b.add(&transcript.ToolResult{Tool: "Read", Output: fmt.Sprint("package f", i)}, fmt.Sprint("t", i), "d1")
	}
	b.add(&transcript.ToolCall{Tool: "Read"}, "t1", "")
	b.add(&transcript.ToolCall{Tool: "Grep"}, "t1", "")
	b.add(&transcript.ToolResult{Tool: "Grep", Output: "hit"}, "t1", "")
	b.add(&transcript.SessionEnd{Status: "complete"}, "", "")
	want := modelMarkdown(b.events, MarkdownOptions{})
	checkSame(t, "in memory", markdownOf(t, b.events), want)
	path := writeJSONL(t, b.events)
	for _, hold := range []int{defaultMarkdownHold, 2000, 0} {
		checkSame(t, fmt.Sprintf("sink export (hold %d)", hold), sinkMarkdown(t, hold, path), want)
		checkSame(t, fmt.Sprintf("sink export of unread events (hold %d)", hold), sliceMarkdown(t, hold, b.events), want)
	}
}

// TestMarkdownSinkOutOfOrder reads a session whose lines are not in seq
// order: the events are placed by seq all the same.
func TestMarkdownSinkOutOfOrder(t *testing.T) {
	events := recordedSample(t)
	shuffled := append([]*transcript.Event(nil), events...)
	for i, j := 0, len(shuffled)-1; i < j; i, j = i+2, j-3 {
		shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
	}
	want := markdownOf(t, events)
	checkSame(t, "in memory", markdownOf(t, shuffled), want)
	checkSame(t, "sink export", sinkMarkdown(t, defaultMarkdownHold, writeJSONL(t, shuffled)), want)
	// In order at first, then not.
	late := append(append([]*transcript.Event(nil), events[:12]...), events[15], events[12], events[13], events[14])
	late = append(late, events[16:]...)
	checkSame(t, "sink export, late disorder", sinkMarkdown(t, defaultMarkdownHold, writeJSONL(t, late)), want)
}

func TestMarkdownSinkSessions(t *testing.T) {
	one, two := recordedSample(t), recordedSample(t)[:9]
	got := sinkMarkdown(t, defaultMarkdownHold, writeJSONL(t, one), writeJSONL(t, two))
	want := string(markdownOf(t, one)) + sessionSeparator + string(markdownOf(t, two))
	checkSame(t, "two sessions", got, []byte(want))

	var out bytes.Buffer
	res, err := WriteSessions(context.Background(), NewMarkdownSink(&out, MarkdownOptions{}), []session.Info{{ID: "empty"}},
		func(string, func(*transcript.Event) error) (transcript.ReadStats, error) {
			return transcript.ReadStats{}, nil
		})
	if err != nil || res.Events != 0 {
		t.Fatalf("empty session: %v, %+v", err, res)
	}
	checkSame(t, "empty session", out.Bytes(), markdownOf(t, nil))
}

func TestMarkdownSinkWriteError(t *testing.T) {
	path := writeJSONL(t, recordedSample(t))
	_, err := WriteSessions(context.Background(), NewMarkdownSink(failWriter{}, MarkdownOptions{}), []session.Info{{ID: "s"}},
		FileReader(func(string) string { return path }))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v, want the writer's error", err)
	}
}

func TestClockMarkers(t *testing.T) {
	var out bytes.Buffer
	o := &mdOut{w: bufio.NewWriter(&out), loc: time.UTC, day: "2026-01-18"}
	at := time.Date(2026, 1, 18, 23, 59, 59, 999, time.UTC)
	shown := func(ts time.Time) string { return clockMarker(ts, clockShown) }
	text := "a " + shown(at) + " b " + shown(at.Add(time.Second)) + " c " + shown(at.Add(2*time.Second)) +
		" d " + clockMarker(at.Add(24*time.Hour), clockUnshown) + shown(at.Add(24*time.Hour)) + "\n"
	if err := o.write([]byte(text)); err != nil {
		t.Fatal(err)
	}
	o.w.Flush()
	if want := "a 23:59:59 b 2026-01-19 00:00:00 c 00:00:01 d 23:59:59\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	old := time.Date(1969, 12, 31, 23, 59, 58, 500, time.UTC)
	out.Reset()
	if err := o.write([]byte(shown(old))); err != nil {
		t.Fatal(err)
	}
	o.w.Flush()
	if want := "1969-12-31 23:59:58"; out.String() != want {
		t.Errorf("before 1970: got %q, want %q", out.String(), want)
	}
	for _, bad := range []string{"\x1b", "\x1bc0123", "\x1bczzzzzzzzzzzzzzzz", "\x1bx0000000000000000"} {
		if err := o.write([]byte(bad)); !errors.Is(err, errClockMarker) {
			t.Errorf("write(%q) = %v, want errClockMarker", bad, err)
		}
	}
}

// fuzzSession makes a session out of arbitrary bytes, four per event: any
// kind, call_ids and parent_call_ids from a small set so that halves pair,
// pair twice or not at all and delegations nest, seqs now and then out of
// order or repeated, times that jump across days or are missing, and text
// taken from the input.
func fuzzSession(data []byte) []*transcript.Event {
	ids := []string{"", "a", "b", "c"}
	base := time.Date(2026, 1, 18, 22, 0, 0, 0, time.UTC)
	var events []*transcript.Event
	for i := 0; i+4 <= len(data) && len(events) < 400; i += 4 {
		b0, b1, b2, b3 := data[i], data[i+1], data[i+2], data[i+3]
		// Text as a recording holds it: valid UTF-8 (JSON has no other).
		text := strings.Repeat(string(rune('a'+b3%26)), int(b3%7)) + strings.ToValidUTF8(string(data[i:i+4]), "\uFFFD")
		input, _ := json.Marshal(map[string]string{"file_path": text, "old_string": "x", "new_string": text})
		call, parent := ids[b1>>4&3], ids[b2&3]
		var body transcript.Body
		switch b0 % 13 {
		case 0:
			body = &transcript.ChatTurn{Role: transcript.RoleUser, Text: text}
		case 1:
			body = &transcript.ChatTurn{Role: transcript.RoleAssistant, Text: text, Thinking: b1&1 == 1}
		case 2:
			body = &transcript.ToolCall{Tool: "Edit", Input: input}
		case 3:
			body = &transcript.ToolResult{Tool: "Read", Output: text, IsError: b1&1 == 1, DurationMS: int64(b3)}
		case 4:
			body = &transcript.BashStart{Command: text, WorkingDirectory: "/w"}
		case 5:
			body = &transcript.BashRun{Command: text, ExitCode: intp(int(b1 % 3)), Stdout: text, TimedOut: b1&8 == 8, DurationMS: int64(b3)}
		case 6:
			body = &transcript.Delegation{Phase: transcript.PhaseStart, AgentType: "tester", Task: text}
		case 7:
			body = &transcript.Delegation{Phase: transcript.PhaseEnd, Result: text, Success: boolp(b1&1 == 1)}
		case 8:
			body = &transcript.ApprovalRequest{RequestID: "r", Command: text}
		case 9:
			body = &transcript.ApprovalDecision{RequestID: "r", Decision: "approve"}
		case 10:
			body = &transcript.SessionStart{Agent: text}
		case 11:
			body = &transcript.SessionEnd{Status: text}
		default:
			body = &transcript.SessionEnd{}
		}
		ts := base.Add(time.Duration(i) * time.Minute)
		if b3&0x40 != 0 {
			ts = ts.Add(-30 * time.Hour)
		}
		if b3&0x30 == 0x30 {
			ts = time.Time{}
		}
		ev := transcript.New(sampleID, ts, body)
		ev.Seq = int64(len(events) + 1)
		if b2&0x80 != 0 {
			ev.Seq -= int64(b2 >> 4 & 3)
		}
		ev.CallID, ev.ParentCallID = call, parent
		if b0%13 == 12 {
			ev.Body, ev.Type = nil, "future_kind"
			env, _ := json.Marshal(&ev.Envelope)
			x, _ := json.Marshal(text)
			ev.Raw = json.RawMessage(fmt.Sprintf(`%s,"x":%s}`, env[:len(env)-1], x))
		}
		events = append(events, ev)
	}
	return events
}

// FuzzMarkdownStream holds every way of writing the markdown export to the
// model: from memory, and streamed through the sink from a file and from
// events that were never written, holding waiting calls or not.
func FuzzMarkdownStream(f *testing.F) {
	f.Add([]byte("\x06\x10\x00\x00\x00\x00\x01\x00\x02\x20\x01\x00\x03\x20\x00\x00\x07\x10\x00\x00"))
	f.Add([]byte("\x02\x10\x00\x00\x02\x10\x00\x00\x03\x10\x80\x00\x04\x20\x00\x40\x05\x20\x00\x00\x0c\x00\x00\x00"))
	f.Add([]byte("\x06\x10\x00\x00\x06\x20\x01\x00\x00\x00\x02\x70\x07\x20\x01\x00\x07\x10\x00\x00\x01\x00\x01\x00"))
	f.Add([]byte("\x0a\x00\x00\x00\x08\x30\x00\x00\x09\x30\x90\x00\x0b\x00\x00\x00\x0a\x00\x00\x00\x0b\x00\x00\x30"))
	f.Add([]byte("aA0AB10 00000000000000000000")) // a thinking turn on the next day
	f.Fuzz(func(t *testing.T, data []byte) {
		events := fuzzSession(data)
		want := modelMarkdown(events, MarkdownOptions{})
		checkSame(t, "in memory", markdownOf(t, events), want)
		path := writeJSONL(t, events)
		for _, hold := range []int{defaultMarkdownHold, 0} {
			checkSame(t, "sink export", sinkMarkdown(t, hold, path), want)
			checkSame(t, "sink export of unread events", sliceMarkdown(t, hold, events), want)
		}
	})
}

// TestMarkdownClockAcrossDays: a time shows its date when the day differs
// from the last time written, in the order of the document (a delegation
// going on after something outside it comes after it). A thinking turn's
// time never shows the date, as it never has.
func TestMarkdownClockAcrossDays(t *testing.T) {
	b := newSessionBuilder()
	b.add(&transcript.ChatTurn{Role: "user", Text: "one"}, "", "")
	b.add(&transcript.Delegation{Phase: "start", AgentType: "planner"}, "d1", "")
	b.ts = b.ts.Add(12 * time.Hour)
	b.add(&transcript.ChatTurn{Role: "user", Text: "next day, outside"}, "", "")
	b.add(&transcript.ChatTurn{Role: "assistant", Text: "next day, inside"}, "", "d1")
	b.add(&transcript.Delegation{Phase: "end", Success: boolp(true)}, "d1", "")
	b.ts = b.ts.Add(24 * time.Hour)
	b.add(&transcript.ChatTurn{Role: "assistant", Thinking: true, Text: "hmm"}, "", "")
	path := writeJSONL(t, b.events)
	for what, doc := range map[string][]byte{
		"in memory":    markdownOf(t, b.events),
		"sink export":  sinkMarkdown(t, defaultMarkdownHold, path),
		"sink, hold 0": sinkMarkdown(t, 0, path),
	} {
		var heads []string
		for _, l := range strings.Split(string(doc), "\n") {
			if strings.Contains(l, " · ") && (strings.HasPrefix(strings.TrimLeft(l, "> "), "#") || strings.Contains(l, "Thinking")) {
				heads = append(heads, l)
			}
		}
		want := []string{
			"## 👤 User · 14:30:52",
			"### ✅ Delegation to `planner` · 14:30:53",
			"## 👤 User · 2026-01-19 02:30:54",
			"> ## 🤖 Assistant · 02:30:55 · agent `sub_d1`",
			"<details><summary>💭 Thinking · 02:30:57</summary>",
		}
		if strings.Join(heads, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: headings\n%s\nwant\n%s", what, strings.Join(heads, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestMarkdownSinkBodilessEvent: an event of a known kind but without a
// body (made in memory, never read from a file) reads back from the spool
// with one; it is still shown as an event of unknown content.
func TestMarkdownSinkBodilessEvent(t *testing.T) {
	events := recordedSample(t)
	odd := transcript.New(sampleID, events[3].TS, &transcript.ChatTurn{})
	odd.Body, odd.Seq = nil, 2 // out of seq order, so every event is read back
	events = append(events[:5:5], append([]*transcript.Event{odd}, events[5:]...)...)
	want := markdownOf(t, events)
	if !bytes.Contains(want, []byte("### ❔ Event `chat_turn`")) {
		t.Fatalf("in memory, the event is not shown as unknown:\n%s", want)
	}
	checkSame(t, "sink export", sliceMarkdown(t, defaultMarkdownHold, events), want)
}

// TestMarkdownSinkLeavesNoTemporaryFile: the spool is gone once the export
// is, whether it succeeded or not.
func TestMarkdownSinkLeavesNoTemporaryFile(t *testing.T) {
	path := writeJSONL(t, recordedSample(t))
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	sinkMarkdown(t, defaultMarkdownHold, path)
	_, err := WriteSessions(context.Background(), NewMarkdownSink(failWriter{}, MarkdownOptions{}), []session.Info{{ID: "s"}},
		FileReader(func(string) string { return path }))
	if err == nil {
		t.Fatal("export to a failing writer succeeded")
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("left behind in the temporary folder: %v", left)
	}
}
