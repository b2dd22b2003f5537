package export

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/transcript"
)

// TestRawExportIsValidUTF8: a store can hold invalid UTF-8 inside strings
// (a command's output cut mid-character, bytes an old version wrote); the
// JSON and JSONL exports pass lines through, and must still be valid UTF-8
// (RFC 8259 requires it), with each bad byte as U+FFFD.
func TestRawExportIsValidUTF8(t *testing.T) {
	session := `{"v":1,"type":"bash_run","seq":1,"command":"cat bin","stdout":"caf` + "\xc3" + `\u00e9 ` + "\xff\xfe" + ` end"}` + "\n" +
		`{"v":1,"type":"future_kind","seq":2,"note":"` + "\xed\xa0\x80" + `"}` + "\n"
	for _, format := range []Format{FormatJSON, FormatJSONL} {
		var out bytes.Buffer
		rw, _ := NewRawWriter(&out, format)
		if err := rw.CopySession(t.Context(), strings.NewReader(session)); err != nil {
			t.Fatal(err)
		}
		ev, _ := transcript.Decode([]byte(`{"v":1,"type":"future_kind","seq":3,"x":"` + "\xff" + `"}`))
		rw.WriteEvent(ev)
		res, err := rw.Close()
		if err != nil || res.Events != 3 {
			t.Fatalf("%s: %+v %v", format, res, err)
		}
		if !utf8.Valid(out.Bytes()) {
			t.Errorf("%s export is not valid UTF-8:\n%q", format, out.String())
		}
		if format == FormatJSON && !json.Valid(out.Bytes()) {
			t.Errorf("json export is not valid JSON:\n%s", out.String())
		}
		if !strings.Contains(out.String(), `caf\ufffd\u00e9 \ufffd\ufffd end`) {
			t.Errorf("%s: bad bytes not replaced as expected:\n%s", format, out.String())
		}
	}
}

func FuzzValidUTF8JSON(f *testing.F) {
	f.Add([]byte(`{"a":"` + "\xff\xc3" + `"}`))
	f.Add([]byte(`{"a":["\u00e9",1,{"b":"` + "\xed\xa0\x80" + `"}]}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) {
			return
		}
		out := validUTF8(line)
		if !utf8.Valid(out) || !json.Valid(out) {
			t.Fatalf("%q -> %q", line, out)
		}
		var a, b any
		json.Unmarshal(line, &a)
		json.Unmarshal(out, &b)
		if ja, _ := json.Marshal(a); !bytes.Equal(ja, mustMarshal(b)) {
			t.Fatalf("the value changed: %q -> %q", line, out)
		}
	})
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
