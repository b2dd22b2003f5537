package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestDecodeArrayRoundTrip(t *testing.T) {
	var events []*Event
	for i, b := range []Body{&SessionStart{Agent: "a"}, &ChatTurn{Role: "user", Text: "hi ] [ \" }"}, &SessionEnd{Status: StatusComplete}} {
		ev := New("20260118_143052_a7b3c9d2-e4f5", time.Unix(1700000000, 0).UTC(), b)
		ev.Seq = int64(i + 1)
		events = append(events, ev)
	}
	data, err := json.Marshal(events)
	if err != nil {
		t.Fatal(err)
	}
	var got []*Event
	st, err := DecodeArray(bytes.NewReader(data), func(ev *Event) error { got = append(got, ev); return nil })
	if err != nil || st.Events != 3 || st.Malformed != 0 {
		t.Fatalf("%+v %v", st, err)
	}
	if c, ok := got[1].Body.(*ChatTurn); !ok || c.Text != "hi ] [ \" }" || got[1].Seq != 2 {
		t.Errorf("second event %+v", got[1])
	}
}

func TestDecodeArrayBadInput(t *testing.T) {
	for in, want := range map[string]string{
		``:                                    "read JSON array",
		`{"v":1}`:                             "does not start with [",
		`[{"v":1,"type":"chat_turn","seq":1}`: "breaks off",
		`[1, 2`:                               "breaks off",
	} {
		_, err := DecodeArray(strings.NewReader(in), func(*Event) error { return nil })
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	st, err := DecodeArray(strings.NewReader(`[1, "x", {"v":1,"type":"chat_turn","seq":1,"role":"user","text":"ok"}]`),
		func(*Event) error { return nil })
	if err != nil || st.Events != 1 || st.Malformed != 2 {
		t.Errorf("mixed array: %+v %v", st, err)
	}
}

func FuzzDecodeArray(f *testing.F) {
	for _, s := range []string{`[]`, `[{"v":1,"type":"chat_turn","seq":1,"text":"x"}]`, `[1,[2],{"a":null}]`, `[`, `{`, ``, `[{"v":1,"type":"bash_run"},]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := 0
		st, _ := DecodeArray(strings.NewReader(s), func(ev *Event) error {
			if ev == nil {
				t.Fatal("nil event")
			}
			n++
			return nil
		})
		if st.Events != n {
			t.Fatalf("stats say %d events, fn saw %d", st.Events, n)
		}
	})
}
