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

// commandOutput is about n bytes of command output: short lines of ASCII
// with the odd quote, tab and non-ASCII letter.
func commandOutput(n int) string {
	lines := []string{
		"=== RUN   TestParse/quoted_\"input\"",
		"--- PASS: TestParse (0.00s)",
		"ok  \tgithub.com/example/project/internal/lexer\t0.012s",
		"-rw-r--r--  1 dev  staff   4096 Jan 18 14:30 résumé.md",
		"main.go:42:13: undefined: parseConfig",
		"npm http fetch GET 200 https://registry.npmjs.org/left-pad 34ms (cache hit)",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteByte('\n')
	}
	return b.String()[:n]
}

func BenchmarkAppendJSONString(b *testing.B) {
	s := commandOutput(1 << 20)
	dst := make([]byte, 0, 2<<20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		dst = appendJSONString(dst[:0], s)
	}
}

// TestAppendJSONStringEveryByteInEveryLane puts each byte value at each
// position of a plain 24-byte string, so the eight-at-a-time check meets
// it in every lane of its word.
func TestAppendJSONStringEveryByteInEveryLane(t *testing.T) {
	plain := "abcdefghijklmnopqrstuvwx"
	for c := 0; c < 256; c++ {
		for pos := 0; pos < len(plain); pos++ {
			s := plain[:pos] + string([]byte{byte(c)}) + plain[pos+1:]
			enc := appendJSONString(nil, s)
			var got string
			if err := json.Unmarshal(enc, &got); err != nil {
				t.Fatalf("byte %#x at %d: invalid JSON %q: %v", c, pos, enc, err)
			}
			if want := viaEncodingJSON(t, s); got != want {
				t.Fatalf("byte %#x at %d: decoded %q, want %q", c, pos, got, want)
			}
		}
	}
}
