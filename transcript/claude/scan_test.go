package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// scanCuts are the ways decoders cut long strings: not at all (a whole
// read), briefly (counting) and at both ends (the search index).
var scanCuts = []stream.ClipOptions{{}, {Head: stream.BriefKeep}, {Head: 40, Tail: 24}}

// viaJSON reads a line as the decoder does without the scanner: cut, then
// encoding/json.
func viaJSON(raw []byte, cut stream.ClipOptions) (line, bool) {
	raw = stream.TrimSpace(raw)
	if cut.Head > 0 {
		raw = stream.Clip(nil, raw, cut.Head, cut.Tail, briefWhole...)
	}
	var l line
	ok := stream.Unmarshal(raw, &l)
	return l, ok
}

// viaScan reads a line with the scanner; ok false when it leaves the line
// to encoding/json.
func viaScan(raw []byte, cut stream.ClipOptions) (line, bool) {
	var s stream.Scanner
	s.Reset(stream.TrimSpace(raw), cut, briefWhole...)
	var l line
	ok := scanLine(&s, &l)
	return l, ok
}

// sameAsJSON fails when the scanner reads a line differently from
// encoding/json; it reports whether the scanner read it at all.
func sameAsJSON(t testing.TB, raw []byte, cut stream.ClipOptions) bool {
	t.Helper()
	got, ok := viaScan(raw, cut)
	if !ok {
		return false
	}
	want, wantOK := viaJSON(raw, cut)
	if !wantOK {
		t.Fatalf("cut %+v: the scanner read a line encoding/json refuses:\n%.300q", cut, raw)
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("cut %+v: the scanner reads\n%.300q\nas\n%s\nencoding/json as\n%s", cut, raw, g, w)
	}
	return true
}

// corpusLines are the lines of every test transcript, a generated one and
// the real samples (when they are beside the checkout).
func corpusLines(t testing.TB) [][]byte {
	t.Helper()
	files, _ := filepath.Glob("testdata/*.jsonl")
	more, _ := filepath.Glob("testdata/*/*.jsonl")
	nested, _ := filepath.Glob(filepath.Join(nestedFixture, "*", "subagents", "*.jsonl"))
	files = append(append(files, more...), nested...)
	if dir := streamtest.FindSamples("claude"); dir != "" {
		real, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		files = append(files, real...)
	}
	var lines [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, bytes.Split(data, []byte("\n"))...)
	}
	var gen bytes.Buffer
	if _, err := synthetic.WriteClaude(&gen, synthetic.ClaudeOptions{Bytes: 1 << 20, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	return append(lines, bytes.Split(gen.Bytes(), []byte("\n"))...)
}

// Every line of the test transcripts, a generated history and the real
// samples is read by the scanner exactly as encoding/json reads it, cut
// each way a decoder cuts, and none is left to encoding/json but those
// that are not JSON.
func TestScanReadsTheCorpusAsJSONDoes(t *testing.T) {
	lines := corpusLines(t)
	for _, cut := range scanCuts {
		left := 0
		for _, raw := range lines {
			if len(stream.TrimSpace(raw)) == 0 {
				continue
			}
			if !sameAsJSON(t, raw, cut) {
				left++
				if !json.Valid(raw) {
					continue
				}
				t.Errorf("cut %+v: the scanner leaves a real-shaped line to encoding/json:\n%.300s", cut, raw)
			}
		}
		t.Logf("cut %+v: %d lines, %d left to encoding/json", cut, len(lines), left)
	}
}

// The scanner reads what encoding/json reads, or leaves the line to it,
// on lines made to be awkward: wrong types, nulls, keys in another case,
// keys given twice, escapes, broken UTF-8 and surrogates, deep nesting.
func TestScanAwkwardLines(t *testing.T) {
	long := strings.Repeat("é\\n\\\"x", 200)
	cases := []struct {
		line string
		read bool // the scanner reads it (else encoding/json does)
	}{
		{`{"type":"user","message":{"role":"user","content":"hi"}}`, true},
		{`  {"type":"user"}  `, true},
		{`{"type":1,"isMeta":"yes","timestamp":true,"uuid":null}`, true},
		{`{"toolUseResult":"User rejected tool use"}`, true},
		{`{"toolUseResult":[1,2],"error":5,"data":"x","message":false}`, true},
		{`{"message":null,"toolUseResult":null}`, true},
		{`{"message":{"usage":{"input_tokens":1.5,"output_tokens":1e3,"cache_read_input_tokens":99999999999999999999}}}`, true},
		{`{"message":{"usage":{"input_tokens":-0,"output_tokens":-9223372036854775808,"cache_creation_input_tokens":9223372036854775807}}}`, true},
		{`{"error":{"status":"500","message":7}}`, true},
		{`{"error":{"status":-9223372036854775809}}`, true},
		{`{"error":{"status":9223372036854775808}}`, true},
		{`{"error":{"status":-9223372036854775808,"message":"\b\f\n\r\t\/\\\"\u0000\u001f"}}`, true},
		{`{"TYPE":"user","SessionId":"s","Message":{"Role":"assistant","CONTENT":"x"}}`, true},
		{`{"type":"user","Type":"assistant"}`, false},
		{`{"message":{"content":[{"type":"text"}]},"message":{"id":"m"}}`, false},
		{`{"t\u0079pe":"user"}`, false},
		{`{"ſessionId":"s"}`, false},
		{`{"message":{"content":[null,{"type":"text","text":"a"}]}}`, true},
		{`{"message":{"content":["text"]}}`, false},
		{`{"message":{"content":[{"type":1}]}}`, false},
		{`{"message":{"content":[{"is_error":"yes"}]}}`, false},
		{`{"message":{"content":[{"content":[{"type":5}]}]}}`, false},
		{`{"message":{"content":[{"content":{"a":1},"input":null}]}}`, true},
		{`{"message":{"content":[{"content":7,"input":"` + long + `"}]}}`, true},
		{`{"message":{"content":{"type":"text"}},"content":12}`, true},
		{`{"message":{"content":[]},"content":[]}`, true},
		{`{"summary":"` + long + `"}`, true},
		{`{"summary":"[` + long + `"}`, true},
		{`{"summary":"\ud83d\ude00 \ud83d \udc00\u0041 \uD834\uDD1E"}`, true},
		{"{\"summary\":\"\xff\xfe bad \xc3\"}", true},
		{"{\"summary\":\"tab\tinside\"}", false},
		{`{"summary":"bad \x escape"}`, false},
		{`{"type":"user"} trailing`, false},
		{`{"type":"user",}`, false},
		{`{"type":"user"`, false},
		{`["type"]`, false},
		{`{"n":01}`, false},
		{`{"n":-}`, false},
		{`{"n":1.}`, false},
		{`{"n":tru}`, false},
		{`{"x":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`, false},
		{`{"x":` + strings.Repeat(`{"a":`, 50) + "1" + strings.Repeat("}", 50) + `,"type":"user"}`, true},
		{`{"data":{"type":"agent_progress","message":{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"` + long + `"}}]}}}}`, true},
		{`{"command":["` + long + `",{"a":"b"},"` + long + `"],"summary":"` + long + `"}`, true},
	}
	for _, c := range cases {
		for _, cut := range scanCuts {
			if read := sameAsJSON(t, []byte(c.line), cut); read != c.read {
				t.Errorf("cut %+v: read by the scanner %v, want %v:\n%.200s", cut, read, c.read, c.line)
			}
		}
	}
}

// Every field of the records the decoder reads is read by the scanner: a
// field added to lines.go and not to scan.go fails here.
func TestScanKnowsEveryField(t *testing.T) {
	for _, blocks := range []bool{false, true} {
		raw, err := json.Marshal(sampleJSON(reflect.TypeFor[line](), blocks, 0))
		if err != nil {
			t.Fatal(err)
		}
		for _, cut := range scanCuts {
			if !sameAsJSON(t, raw, cut) {
				t.Fatalf("the scanner leaves a line with every field to encoding/json:\n%s", raw)
			}
		}
		if got, _ := viaScan(raw, stream.ClipOptions{}); reflect.DeepEqual(got, line{}) {
			t.Fatal("nothing read")
		}
	}
}

// sampleJSON is a JSON value for typ with every field set (content as a
// text, or as blocks), by the fields' JSON keys.
func sampleJSON(typ reflect.Type, blocks bool, depth int) any {
	switch {
	case typ == reflect.TypeFor[content]():
		if blocks && depth < 6 {
			return []any{sampleJSON(reflect.TypeFor[block](), blocks, depth+1)}
		}
		return fmt.Sprintf("text %d", depth)
	case typ == reflect.TypeFor[json.RawMessage]():
		return json.RawMessage(`{"command":"ls","n":[1,true,null]}`)
	}
	switch typ.Kind() {
	case reflect.String:
		return fmt.Sprintf("%s value %d", typ.Name(), depth)
	case reflect.Bool:
		return true
	case reflect.Int, reflect.Int64:
		return 7 + depth
	case reflect.Pointer:
		if depth < 6 {
			return sampleJSON(typ.Elem(), blocks, depth+1)
		}
		return nil
	case reflect.Struct:
		obj := map[string]any{}
		for i := range typ.NumField() {
			key, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			obj[key] = sampleJSON(typ.Field(i).Type, blocks, depth+1)
		}
		return obj
	}
	panic("sampleJSON: no sample of " + typ.String())
}

// FuzzScanLine: whatever the line, the scanner reads it as encoding/json
// reads it once cut, or leaves it to encoding/json.
func FuzzScanLine(f *testing.F) {
	for _, raw := range corpusLines(f) {
		if len(raw) < 4096 {
			f.Add(raw, uint8(0))
		}
	}
	f.Add([]byte(`{"summary":"\ud83d\ude00 \ud83d \udc00","TYPE":"u","message":{"content":[null]}}`), uint8(1))
	f.Add([]byte("{\"summary\":\"\xff\xfe bad \xc3\",\"toolUseResult\":\"no\"}"), uint8(2))
	f.Fuzz(func(t *testing.T, raw []byte, mode uint8) {
		sameAsJSON(t, raw, scanCuts[int(mode)%len(scanCuts)])
	})
}

// decodeLines decodes data line by line as the session reader does, with
// the scanner or without it.
func decodeLines(t testing.TB, data []byte, opts Options, noScan bool) []*transcript.Event {
	t.Helper()
	d := NewDecoder(opts)
	d.noScan = noScan
	var events []*transcript.Event
	if _, err := stream.Run(bytes.NewReader(data), d, func(ev *transcript.Event) error {
		events = append(events, ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return events
}

// FuzzClaudeScan: a transcript decodes to the same events, and so the same
// counts, with the scanner as with encoding/json alone, read whole, brief
// or cut at both ends.
func FuzzClaudeScan(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opts := []Options{{}, {Brief: true}, {Clip: stream.ClipOptions{Head: 40, Tail: 24}}}[int(mode)%3]
		a, b := decodeLines(t, data, opts, false), decodeLines(t, data, opts, true)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("with the scanner:\n%s\nwith encoding/json:\n%s", streamtest.KindsString(a), streamtest.KindsString(b))
		}
	})
}
