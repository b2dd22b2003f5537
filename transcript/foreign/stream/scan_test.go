package stream

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// special flags exactly the bytes a string scan must look at, wherever
// they are in the word.
func TestSpecialBytes(t *testing.T) {
	for c := range 256 {
		want := c < 0x20 || c == '"' || c == '\\'
		for pos := range 8 {
			for _, fill := range []byte{'a', 0x21, 0x23, 0x5b, 0x5d, 0xff, 0x80} {
				w := bytes.Repeat([]byte{fill}, 8)
				w[pos] = byte(c)
				x := uint64(0)
				for i := 7; i >= 0; i-- {
					x = x<<8 | uint64(w[i])
				}
				if got := special(x) != 0; got != want {
					t.Fatalf("byte %#x at %d among %#x: special %v, want %v", c, pos, fill, got, want)
				}
			}
		}
	}
}

func TestFieldsIndex(t *testing.T) {
	f := NewFields("type", "parentUuid", "tool_use_id", "id", "is_error")
	for key, want := range map[string]int{
		"type": 0, "TYPE": 0, "Type": 0, "parentUuid": 1, "parentuuid": 1, "PARENTUUID": 1,
		"tool_use_id": 2, "TOOL_USE_ID": 2, "id": 3, "Id": 3, "is_error": 4,
		"": -1, "typ": -1, "types": -1, "tool-use-id": -1, "i": -1, "parentUuiD2": -1, "is_errOr": 4,
	} {
		if got := f.Index([]byte(key)); got != want {
			t.Errorf("Index(%q) = %d, want %d", key, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewFields took two keys that differ only in case")
		}
	}()
	NewFields("id", "ID")
}

// maxDepth is how deeply a valid JSON text nests its arrays and objects.
func maxDepth(data []byte) int {
	depth, most, in := 0, 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '[' || c == '{':
			depth++
			most = max(most, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return most
}

func checkSkip(t *testing.T, data []byte) {
	var s Scanner
	s.Reset(data, ClipOptions{})
	end, ok := s.Skip(s.Space(0))
	read := ok && s.End(end)
	switch valid := json.Valid(data); {
	case read && !valid:
		t.Fatalf("Skip passes over what is not JSON: %.200q", data)
	case valid && !read && maxDepth(data) <= maxScanDepth:
		t.Fatalf("Skip refuses valid JSON: %.200q", data)
	}
}

func TestSkipIsJSONValid(t *testing.T) {
	for _, in := range []string{`"a"`, `"\u00e9\"\\\/\b\f\n\r\t"`, "\"\xff\"", `"\u12"`, `"\x"`, "\"a\tb\"", `"`,
		`0`, `-0`, `-`, `01`, `1.`, `1.5e+3`, `1e`, `1E-0`, `.5`, `+1`, `true`, `tru`, `nul`, `null `,
		`[]`, `[1,]`, `[,1]`, `[1 2]`, `{}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{"a":1}{}`, ` [ { "a" : [ ] } ] `,
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001), strings.Repeat("[", 999) + strings.Repeat("]", 999),
		`"` + strings.Repeat("abcdefgh", 9) + "\x01" + `"`, `"` + strings.Repeat("abcdefgh", 9) + `\"` + strings.Repeat("z", 17) + `"`} {
		checkSkip(t, []byte(in))
	}
}

// FuzzSkip: Skip passes over exactly what encoding/json takes for valid
// JSON (short of nesting deeper than the scanner follows).
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":["b",1.5e3,true,null,{"c":"\u00e9"}]}`, "\"\xff\x01\"", `[1,2`, `"\ud83d\ude00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkSkip(t, data) })
}
