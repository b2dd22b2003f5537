package stream

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

func TestEmitterHoldsUntilBegin(t *testing.T) {
	var st Stats
	e := NewEmitter(&st)
	var got []*transcript.Event
	e.SetOutput(func(ev *transcript.Event) error { got = append(got, ev); return nil })
	e.Prepare = func() {
		e.SessionID = "x:1"
		e.Start.Title = "learned late"
	}
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	e.Emit(transcript.New("", ts, &transcript.ChatTurn{Role: "user", Text: "a"}))
	if len(got) != 0 || e.Held() != 1 {
		t.Fatalf("passed on before Begin")
	}
	e.Begin()
	e.Begin()
	e.Emit(transcript.New("", ts, &transcript.ChatTurn{Role: "assistant", Text: "b"}))
	if len(got) != 3 || got[0].Type != transcript.TypeSessionStart || got[0].Body.(*transcript.SessionStart).Title != "learned late" {
		t.Fatalf("got %d events", len(got))
	}
	for i, ev := range got {
		if ev.Seq != int64(i+1) || ev.SessionID != "x:1" || ev.ID != transcript.EventID("x:1", ev.Seq) {
			t.Errorf("event %d: %+v", i, ev.Envelope)
		}
	}
	if !got[0].TS.Equal(ts) || st.Events != 3 {
		t.Errorf("start at %v, %d counted", got[0].TS, st.Events)
	}
}

func TestEmitterBeginsAfterLookahead(t *testing.T) {
	var st Stats
	e := NewEmitter(&st)
	n := 0
	e.SetOutput(func(*transcript.Event) error { n++; return nil })
	for range Lookahead {
		e.Emit(transcript.New("", time.Time{}, &transcript.ChatTurn{Role: "user"}))
	}
	if !e.Started() || n != Lookahead+1 {
		t.Errorf("started %v after %d events, %d passed", e.Started(), Lookahead, n)
	}
}

func TestEmitterStopsOnError(t *testing.T) {
	var st Stats
	e := NewEmitter(&st)
	calls := 0
	e.SetOutput(func(*transcript.Event) error { calls++; return fmt.Errorf("full") })
	e.Begin()
	e.Emit(transcript.New("", time.Time{}, &transcript.ChatTurn{}))
	if calls != 1 || e.Err() == nil {
		t.Errorf("%d calls after an error, err %v", calls, e.Err())
	}
}

func TestStatsBounds(t *testing.T) {
	var st Stats
	for i := range 1000 {
		st.AddUnknown(fmt.Sprint("kind", i))
		st.AddMalformed(i)
	}
	if st.Unknown != 1000 || len(st.UnknownTypes) != maxUnknownKinds || st.Malformed != 1000 || len(st.MalformedLines) != maxMalformedLines {
		t.Errorf("unknown %d in %d names, malformed %d with %d lines", st.Unknown, len(st.UnknownTypes), st.Malformed, len(st.MalformedLines))
	}
}

func TestTitle(t *testing.T) {
	cases := map[string]string{
		"  fix\n\nthe   build\t": "fix the build",
		strings.Repeat("é", 100): strings.Repeat("é", TitleLength-1) + "…",
		"bad \xff byte":          "bad \uFFFD byte",
		"":                       "",
	}
	for in, want := range cases {
		if got := Title(in); got != want {
			t.Errorf("Title(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnmarshalLenient(t *testing.T) {
	var v struct {
		A string `json:"a"`
		B int    `json:"b"`
	}
	if !Unmarshal([]byte(`{"a":5,"b":2}`), &v) || v.B != 2 {
		t.Errorf("a wrong type should leave the rest: %+v", v)
	}
	for _, bad := range []string{``, `[1]`, `{"a":`, `nope`} {
		if Unmarshal([]byte(bad), &v) {
			t.Errorf("%q accepted", bad)
		}
	}
}
