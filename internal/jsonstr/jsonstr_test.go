package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzUnescape: Unescape reads the contents of a JSON string exactly as
// encoding/json does, and rejects what it rejects.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{``, `plain`, `\"\\\/\b\f\n\r\t`, `\'`, `\u00e9\u001B`, `\ud83d\ude00`, `\ud800`, `\ud800\u0041`,
		`\udc00\ud800`, "\xff\xfe", "é表😀", `\u12`, `\x`, `\`, `"`, "\x01", `\u12g4`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		werr := json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &want)
		got, err := Unescape(nil, raw)
		if (err == nil) != (werr == nil) {
			t.Fatalf("Unescape(%q) error %v, encoding/json %v", raw, err, werr)
		}
		if err == nil && string(got) != want {
			t.Fatalf("Unescape(%q) = %q, want %q", raw, got, want)
		}
		if _, n, plain, err := Scan(nil, append(bytes.Clone(raw), '"', 'x')); err == nil && werr == nil {
			if n != len(raw) {
				t.Fatalf("Scan(%q) ends at %d", raw, n)
			}
			if plain && !utf8.Valid(raw) || !plain && utf8.Valid(raw) && !bytes.Contains(raw, []byte(`\u`)) {
				t.Fatalf("Scan(%q) says plain %v", raw, plain)
			}
		}
	})
}
