package transcript

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// viaEncodingJSON is what encoding/json makes of s after a round trip.
func viaEncodingJSON(t testing.TB, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out string
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" backslash \\ nl \n tab \t cr \r", "\x00\x01\x1f\x7f",
		"bad \xff\xfe utf8", "sep \u2028 \u2029", "emoji 🎉 and é", "<html>&amp;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := appendJSONString(nil, s)
		if !json.Valid(enc) {
			t.Fatalf("invalid JSON %q for %q", enc, s)
		}
		var got string
		if err := json.Unmarshal(enc, &got); err != nil {
			t.Fatal(err)
		}
		if want := viaEncodingJSON(t, s); got != want {
			t.Fatalf("decoded %q, encoding/json gives %q", got, want)
		}
	})
}

func TestBigBodiesEncodeLikeSmallOnes(t *testing.T) {
	big := strings.Repeat("line \"quoted\" \\ tab\t bad\xff sep\u2028 é\n", 4000)
	code := 3
	bodies := []Body{
		&BashRun{Command: "cat big", ExitCode: &code, Stdout: big, Stderr: big[:bigString+10], DurationMS: 7, OutputTruncated: true},
		&BashRun{Command: "cat big", ExitCode: &code, Stdout: big, Stderr: "small"},
		&ToolResult{Tool: "Read", Output: big, IsError: true, OutputTruncated: true, DurationMS: 9},
	}
	for _, b := range bodies {
		ev := New("s", time.Unix(0, 0), b)
		ev.Seq, ev.CallID = 1, "c"
		line, err := ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(line) {
			t.Fatalf("%s: invalid line", b.EventType())
		}
		got, err := Decode(line)
		if err != nil {
			t.Fatal(err)
		}
		// what encoding/json alone makes of the same body
		ref, _ := json.Marshal(b)
		want := newBody(b.EventType())
		json.Unmarshal(ref, want)
		if !reflect.DeepEqual(got.Body, want) {
			t.Errorf("%s: body differs after the round trip", b.EventType())
		}
	}
}
