package foreign

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/foreign/stream/streamtest"
)

// fixtures are the decoders' own test files, by the format they are in.
var fixtures = map[string]Format{
	"../claude/testdata/streamed.jsonl":                                                        FormatClaude,
	"../claude/testdata/sidechains.jsonl":                                                      FormatClaude,
	"../claude/testdata/progress.jsonl":                                                        FormatClaude,
	"../claude/testdata/subagents/agent-a7f3c21.jsonl":                                         FormatClaude,
	"../codex/testdata/rollout-2026-01-05T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl": FormatCodex,
	"../codex/testdata/rollout-2026-05-01T08-00-00-019e0000-1111-7222-8333-444444444444.jsonl": FormatCodex,
}

// nativeSession writes a small cuff session with the appender and returns
// its bytes.
func nativeSession(t testing.TB) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	a, err := transcript.OpenAppender(path, "20260101_120000_abcdef01-2345", transcript.AppendOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	zero := 0
	start := transcript.New("", ts, &transcript.SessionStart{Agent: "cuff-exec", Source: transcript.SourceExec})
	bs := transcript.New("", ts, &transcript.BashStart{Command: "true"})
	bs.CallID = "c1"
	br := transcript.New("", ts, &transcript.BashRun{Command: "true", ExitCode: &zero})
	br.CallID = "c1"
	end := transcript.New("", ts, &transcript.SessionEnd{Status: transcript.StatusComplete})
	if err := a.Append(start, bs, br, end); err != nil {
		t.Fatal(err)
	}
	a.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A kind this version does not know, as a newer cuff might write.
	return append(data, []byte(`{"v":1,"type":"future_kind","id":"e_x_5","session_id":"20260101_120000_abcdef01-2345","seq":5,"ts":"2026-01-01T12:00:01Z"}`+"\n")...)
}

func TestDetect(t *testing.T) {
	for path, want := range fixtures {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := Detect(data); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
	if got := Detect(nativeSession(t)); got != FormatNative {
		t.Errorf("native session: %v", got)
	}
	long := strings.Repeat("instructions ", HeadSize)
	cases := []struct {
		name string
		head string
		want Format
	}{
		{"empty", "", FormatUnknown},
		{"text", "hello\nworld\n", FormatUnknown},
		{"other JSON", `{"name":"x","version":1}` + "\n", FormatUnknown},
		{"array", `[1,2]` + "\n", FormatUnknown},
		{"codex line cut inside a huge first line",
			(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"u","base_instructions":{"text":"` + long)[:HeadSize], FormatCodex},
		{"claude line cut before its type",
			(`{"parentUuid":null,"isSidechain":false,"sessionId":"s","message":{"content":"` + long)[:HeadSize], FormatClaude},
		{"claude summary first", `{"type":"summary","summary":"x","leafUuid":"y"}` + "\n", FormatClaude},
		{"claude snapshot first", `{"type":"file-history-snapshot","messageId":"m","snapshot":{}}` + "\n", FormatClaude},
		{"garbage then codex", "not json\n\n" + `{"timestamp":"t","type":"event_msg","payload":{"type":"user_message"}}` + "\n", FormatCodex},
		{"native cut", `{"v":1,"type":"bash_run","id":"e_1","session_id":"s","seq":1,"ts":"`, FormatNative},
	}
	for _, c := range cases {
		if got := Detect([]byte(c.head)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestDecodeDispatches(t *testing.T) {
	for path, want := range fixtures {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var events []*transcript.Event
		st, err := Decode(bytes.NewReader(data), func(ev *transcript.Event) error {
			events = append(events, ev)
			return nil
		})
		if err != nil || st.Format != want || st.Events != len(events) || len(events) < 5 {
			t.Errorf("%s: %v, format %v, %d events", path, err, st.Format, len(events))
		}
		prefix := map[Format]string{FormatClaude: "claude:", FormatCodex: "codex:"}[want]
		streamtest.Invariants(t, events, prefix)
	}
}

func TestDecodeStats(t *testing.T) {
	data, err := os.ReadFile("../claude/testdata/streamed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Decode(bytes.NewReader(data), func(*transcript.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if st.Unknown != 1 || st.Malformed != 1 || st.Truncated != 1 || st.UnknownTypes["quantum-entanglement"] != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestDecodeNative(t *testing.T) {
	data := nativeSession(t)
	data = append(data, []byte("{broken\n")...)
	var events []*transcript.Event
	st, err := Decode(bytes.NewReader(data), func(ev *transcript.Event) error {
		events = append(events, ev)
		return nil
	})
	if err != nil || st.Format != FormatNative {
		t.Fatalf("%v, %v", err, st.Format)
	}
	if len(events) != 5 || st.Events != 5 || st.Unknown != 1 || st.Malformed != 1 || st.Lines != 6 {
		t.Errorf("%d events, stats %+v", len(events), st)
	}
	if events[2].Type != transcript.TypeBashRun || events[2].CallID != "c1" || events[4].Body != nil || len(events[4].Raw) == 0 {
		t.Errorf("native events not passed as read")
	}
}

func TestDecodeUnknownFormat(t *testing.T) {
	for _, in := range []string{"", "plain text\n", `{"some":"json"}` + "\n"} {
		n := 0
		_, err := Decode(strings.NewReader(in), func(*transcript.Event) error { n++; return nil })
		var ue *UnknownFormatError
		if !errors.As(err, &ue) || ue.Empty != (in == "") || ue.Hint() == "" || n != 0 {
			t.Errorf("%q: %v (%d events)", in, err, n)
		}
	}
}

func TestFallbackUUID(t *testing.T) {
	cases := map[string]string{
		"/x/rollout-2026-01-05T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl": "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
		"/p/11111111-2222-4333-8444-555555555555.jsonl":                             "11111111-2222-4333-8444-555555555555",
		"/p/agent-a7f3c21.jsonl":                                                    "",
	}
	for path, want := range cases {
		if got := FallbackUUID(path); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	// A rollout without session_meta is named by its file.
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout-2026-01-05T09-00-00-0199aaaa-bbbb-7ccc-8ddd-000000000000.jsonl")
	line := `{"timestamp":"2026-01-05T09:00:00Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	var first *transcript.Event
	if _, err := DecodeFile(path, func(ev *transcript.Event) error {
		if first == nil {
			first = ev
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if first == nil || first.SessionID != "codex:0199aaaa-bbbb-7ccc-8ddd-000000000000" {
		t.Errorf("session %+v", first)
	}
}

// TestRealSamples decodes the real files kept beside the checkout through
// detection: each is told apart correctly and decodes cleanly.
func TestRealSamples(t *testing.T) {
	for sub, want := range map[string]Format{"claude": FormatClaude, "codex": FormatCodex} {
		dir := streamtest.SamplesDir(t, sub)
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, f := range files {
			var events []*transcript.Event
			st, err := DecodeFile(f, func(ev *transcript.Event) error {
				events = append(events, ev)
				return nil
			})
			if err != nil || st.Format != want {
				t.Errorf("%s: %v, %v", filepath.Base(f), err, st.Format)
				continue
			}
			streamtest.Invariants(t, events, sub+":")
			t.Logf("%s: %d lines, %d events (%s), %d unknown %v, %d malformed", filepath.Base(f), st.Lines, st.Events,
				streamtest.KindsString(events), st.Unknown, st.UnknownTypes, st.Malformed)
		}
	}
}

// FuzzDetect checks that detection never panics, and that what it calls a
// format decodes without failing.
func FuzzDetect(f *testing.F) {
	for path := range fixtures {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/3])
	}
	for _, seed := range []string{"", "{", `{"v":1,"seq":1,"session_id":"s","type":"x"}`, `{"type":"session_meta"`,
		`{"a":[[[[{"b":{"c":[1,2,{"d":"`, "\n\n\n{}\n", `{"parentUuid":1}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		format := Detect(data[:min(len(data), HeadSize)]) // all that Decode looks at
		st, err := Decode(bytes.NewReader(data), func(*transcript.Event) error { return nil })
		if st.Format != format {
			t.Fatalf("Decode saw %v, Detect %v", st.Format, format)
		}
		var ue *UnknownFormatError
		if (format == FormatUnknown) != errors.As(err, &ue) {
			t.Fatalf("format %v, error %v", format, err)
		}
		if format != FormatUnknown && err != nil {
			t.Fatalf("%v decode failed: %v", format, err)
		}
	})
}

func TestFallbackID(t *testing.T) {
	for path, want := range map[string]string{
		"/p/11111111-2222-4333-8444-555555555555.jsonl": "11111111-2222-4333-8444-555555555555",
		"/p/corrupt.jsonl":      "corrupt",
		"/p/my notes (1).jsonl": "mynotes1",
		"/p/.jsonl":             "",
	} {
		if got := FallbackID(path); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}
