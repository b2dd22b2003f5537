// Package streamtest checks the promises every foreign decoder makes about
// the events it yields, for the decoders' tests.
package streamtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// IsCallStart reports whether ev opens a tool invocation.
func IsCallStart(ev *transcript.Event) bool {
	switch b := ev.Body.(type) {
	case *transcript.ToolCall, *transcript.BashStart:
		return true
	case *transcript.Delegation:
		return b.Phase == transcript.PhaseStart
	}
	return false
}

// IsCallEnd reports whether ev closes a tool invocation.
func IsCallEnd(ev *transcript.Event) bool {
	switch b := ev.Body.(type) {
	case *transcript.ToolResult, *transcript.BashRun:
		return true
	case *transcript.Delegation:
		return b.Phase == transcript.PhaseEnd
	}
	return false
}

// Generated reports whether a call id was made by a decoder rather than
// taken from the agent.
func Generated(id string) bool { return strings.HasPrefix(id, "cuff_") }

// closer is the kind that closes an invocation opened by kind t.
func closer(t transcript.Type) transcript.Type {
	switch t {
	case transcript.TypeToolCall:
		return transcript.TypeToolResult
	case transcript.TypeBashStart:
		return transcript.TypeBashRun
	}
	return t
}

// Basics checks what holds for any input, even garbage: a session_start
// first and only there, seq 1..N, ids and session ids with the given
// prefix, call ids on paired kinds, no invocation started or ended twice,
// events that encode to native lines and decode back.
func Basics(t testing.TB, events []*transcript.Event, idPrefix string) {
	t.Helper()
	if len(events) == 0 {
		return
	}
	if events[0].Type != transcript.TypeSessionStart {
		t.Errorf("first event is %s, want session_start", events[0].Type)
	}
	starts, ends := map[string]bool{}, map[string]bool{}
	for i, ev := range events {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		if ev.SessionID != events[0].SessionID || !strings.HasPrefix(ev.SessionID, idPrefix) {
			t.Fatalf("event %d has session id %q", i, ev.SessionID)
		}
		if ev.ID != transcript.EventID(ev.SessionID, ev.Seq) {
			t.Fatalf("event %d has id %q", i, ev.ID)
		}
		if i > 0 && ev.Type == transcript.TypeSessionStart {
			t.Errorf("second session_start at seq %d", ev.Seq)
		}
		if transcript.Paired(ev.Type) && ev.CallID == "" {
			t.Errorf("%s at seq %d has no call id", ev.Type, ev.Seq)
		}
		if IsCallStart(ev) {
			if starts[ev.CallID] {
				t.Errorf("call %s started twice", ev.CallID)
			}
			starts[ev.CallID] = true
		}
		if IsCallEnd(ev) {
			if ends[ev.CallID] {
				t.Errorf("call %s ended twice", ev.CallID)
			}
			ends[ev.CallID] = true
		}
		line, err := ev.MarshalJSON()
		if err != nil {
			t.Fatalf("encode event %d: %v", i, err)
		}
		back, err := transcript.Decode(line)
		if err != nil || back.Body == nil || back.Type != ev.Type {
			t.Fatalf("event %d does not decode back: %v\n%s", i, err, line)
		}
	}
}

// Invariants checks a well-formed, finished transcript: everything Basics
// checks, plus times on every event, every invocation ended once after it
// started, ends of the right kind, nesting (an agent other than main works
// inside a delegation started before), and usage once per message id.
func Invariants(t testing.TB, events []*transcript.Event, idPrefix string) {
	t.Helper()
	Basics(t, events, idPrefix)
	open := map[string]transcript.Type{}
	closed := map[string]bool{}
	delegations := map[string]bool{}
	usage := map[string]int{}
	for _, ev := range events {
		if ev.TS.IsZero() {
			t.Errorf("%s at seq %d has no time", ev.Type, ev.Seq)
		}
		if IsCallStart(ev) {
			open[ev.CallID] = ev.Type
			if ev.Type == transcript.TypeDelegation {
				delegations[ev.CallID] = true
			}
		}
		if IsCallEnd(ev) {
			want, ok := open[ev.CallID]
			if !ok {
				t.Errorf("%s at seq %d ends call %s that was not started", ev.Type, ev.Seq, ev.CallID)
			} else if closer(want) != ev.Type {
				t.Errorf("call %s started as %s, ended as %s", ev.CallID, want, ev.Type)
			}
			closed[ev.CallID] = true
		}
		if ev.ParentCallID != "" && !delegations[ev.ParentCallID] {
			t.Errorf("%s at seq %d is inside %s, not a delegation started before it", ev.Type, ev.Seq, ev.ParentCallID)
		}
		if (ev.AgentID != transcript.MainAgent) != (ev.ParentCallID != "") {
			t.Errorf("%s at seq %d: agent %q, parent call %q", ev.Type, ev.Seq, ev.AgentID, ev.ParentCallID)
		}
		if turn, ok := ev.Body.(*transcript.ChatTurn); ok && turn.Usage != nil {
			if turn.MessageID == "" {
				t.Errorf("usage without message id at seq %d", ev.Seq)
			}
			usage[turn.MessageID]++
		}
	}
	for id, typ := range open {
		if !closed[id] {
			t.Errorf("%s %s has no end", typ, id)
		}
	}
	for id, n := range usage {
		if n != 1 {
			t.Errorf("usage of message %s counted %d times", id, n)
		}
	}
}

// CallIDs counts the agent's own call ids among the invocations decoded.
func CallIDs(events []*transcript.Event) map[string]int {
	got := map[string]int{}
	for _, ev := range events {
		if IsCallStart(ev) && !Generated(ev.CallID) {
			got[ev.CallID]++
		}
	}
	return got
}

// ExactlyOnce checks that every id in want was decoded exactly once and
// nothing else was.
func ExactlyOnce(t testing.TB, want map[string]bool, got map[string]int) {
	t.Helper()
	for id := range want {
		if got[id] != 1 {
			t.Errorf("invocation %s decoded %d times", id, got[id])
		}
	}
	for id := range got {
		if !want[id] {
			t.Errorf("invocation %s decoded but not in the file", id)
		}
	}
}

// Kinds counts events by kind.
func Kinds(events []*transcript.Event) map[transcript.Type]int {
	n := map[transcript.Type]int{}
	for _, ev := range events {
		n[ev.Type]++
	}
	return n
}

// KindsString prints Kinds in a stable order.
func KindsString(events []*transcript.Event) string {
	var out []string
	for k, v := range Kinds(events) {
		out = append(out, string(k)+"="+strconv.Itoa(v))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// WalkJSONL calls fn for every JSON object, nested ones included, of every
// line of a JSONL file; lines that are not JSON are passed over.
func WalkJSONL(data []byte, fn func(map[string]any)) {
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			fn(x)
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	for sc.Scan() {
		var v any
		if json.Unmarshal(sc.Bytes(), &v) == nil {
			walk(v)
		}
	}
}

// SamplesDir finds the real transcripts kept beside the checkout
// (shared/samples/<sub> in a folder above the repository root, as
// ../shared/samples for /work/main or ../../shared/samples for a worktree
// in /work/wt, or <sub> in the folder $CUFF_SAMPLES names, for a checkout
// kept elsewhere), or skips the test.
func SamplesDir(t testing.TB, sub string) string {
	t.Helper()
	dir := FindSamples(sub)
	if dir == "" {
		t.Skipf("no real samples of %s beside the checkout (set CUFF_SAMPLES)", sub)
	}
	return dir
}

// FindSamples is the folder SamplesDir finds, or "" when there is none.
func FindSamples(sub string) string {
	if d := os.Getenv("CUFF_SAMPLES"); d != "" {
		return filepath.Join(d, sub)
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	for dir = filepath.Dir(dir); ; dir = filepath.Dir(dir) {
		samples := filepath.Join(dir, "shared", "samples", sub)
		if fi, err := os.Stat(samples); err == nil && fi.IsDir() {
			return samples
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Shape describes an event by what a brief read (see stream.Shorten) must
// keep exact: its place, its kind, who made it, its call, and the body's
// figures and names, but not its long texts (only whether there is one).
func Shape(ev *transcript.Event) string {
	s := fmt.Sprintf("%d %s %s agent=%s call=%s parent=%s", ev.Seq, ev.Type, ev.TS.Format(time.RFC3339Nano), ev.AgentID, ev.CallID, ev.ParentCallID)
	switch b := ev.Body.(type) {
	case *transcript.SessionStart:
		s += fmt.Sprintf(" agent=%s source=%s cwd=%s", b.Agent, b.Source, b.WorkingDirectory)
		if b.Git != nil {
			s += fmt.Sprintf(" git=%+v", *b.Git)
		}
	case *transcript.ChatTurn:
		s += fmt.Sprintf(" role=%s thinking=%v text=%v model=%s msg=%s", b.Role, b.Thinking, b.Text != "", b.Model, b.MessageID)
		if b.Usage != nil {
			s += fmt.Sprintf(" usage=%+v", *b.Usage)
		}
	case *transcript.ToolCall:
		s += fmt.Sprintf(" tool=%s", b.Tool)
	case *transcript.ToolResult:
		s += fmt.Sprintf(" tool=%s error=%v duration=%d", b.Tool, b.IsError, b.DurationMS)
	case *transcript.BashStart:
		s += fmt.Sprintf(" command=%q cwd=%s", b.Command, b.WorkingDirectory)
	case *transcript.BashRun:
		s += fmt.Sprintf(" command=%q cwd=%s timedout=%v interrupted=%v failed=%v duration=%d timeout=%d",
			b.Command, b.WorkingDirectory, b.TimedOut, b.Interrupted, b.Failed(), b.DurationMS, b.TimeoutSeconds)
		if b.ExitCode != nil {
			s += fmt.Sprintf(" code=%d", *b.ExitCode)
		}
	case *transcript.Delegation:
		s += fmt.Sprintf(" phase=%s type=%s sub=%s", b.Phase, b.AgentType, b.SubAgentID)
		if b.Success != nil {
			s += fmt.Sprintf(" success=%v", *b.Success)
		}
	case *transcript.SessionEnd:
		s += fmt.Sprintf(" status=%s", b.Status)
	}
	return s
}

// SameShapes fails the test unless brief has the events of full, shape
// for shape (see Shape).
func SameShapes(t testing.TB, full, brief []*transcript.Event) {
	t.Helper()
	for i := 0; i < len(full) || i < len(brief); i++ {
		var a, b string
		if i < len(full) {
			a = Shape(full[i])
		}
		if i < len(brief) {
			b = Shape(brief[i])
		}
		if a != b {
			t.Fatalf("event %d of %d/%d differs:\n full: %s\nbrief: %s", i+1, len(full), len(brief), a, b)
		}
	}
}
