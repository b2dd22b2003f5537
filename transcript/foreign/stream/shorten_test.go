package stream

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestShorten(t *testing.T) {
	long := strings.Repeat("x", 1000)
	cases := []struct{ name, in, want string }{
		{"short strings stay", `{"a":"b","c":[1,"d"]}`, `{"a":"b","c":[1,"d"]}`},
		{"a long value is cut", `{"a":"` + long + `"}`, `{"a":"` + long[:10] + `"}`},
		{"a command stays whole", `{"command":"` + long + `"}`, `{"command":"` + long + `"}`},
		{"a command key spaced", `{"command" : "` + long + `"}`, `{"command" : "` + long + `"}`},
		{"only the value of command", `{"command":"ls","x":"` + long + `"}`, `{"command":"ls","x":"` + long[:10] + `"}`},
		{"a string that is not a value", `["command","` + long + `"]`, `["command","` + long[:10] + `"]`},
		{"a command's arguments stay whole", `{"command":["bash","-lc","` + long + `"],"x":"` + long + `"}`, `{"command":["bash","-lc","` + long + `"],"x":"` + long[:10] + `"}`},
		{"JSON in a string stays", `{"output":"{\"a\":\"` + long + `\"}"}`, `{"output":"{\"a\":\"` + long + `\"}"}`},
		{"no escape is split", `{"a":"123456789\n` + long + `"}`, `{"a":"123456789"}`},
		{"no \\u escape is split", `{"a":"12345\u00e9` + long + `"}`, `{"a":"12345"}`},
		{"no rune is split", `{"a":"123456789é` + long + `"}`, `{"a":"123456789"}`},
		{"escaped quotes are inside", `{"a":"\"\"\"\"\"\"` + long + `","b":1}`, `{"a":"\"\"\"\"\"","b":1}`},
		{"an escaped backslash ends", `{"a":"\\","b":"` + long + `"}`, `{"a":"\\","b":"` + long[:10] + `"}`},
		{"unterminated", `{"a":"` + long, `{"a":"` + long},
	}
	for _, c := range cases {
		if got := string(Shorten(nil, []byte(c.in), 10, "command")); got != c.want {
			t.Errorf("%s:\n got %.80s\nwant %.80s", c.name, got, c.want)
		}
	}
}

func TestClip(t *testing.T) {
	long := strings.Repeat("a", 50) + strings.Repeat("z", 50)
	cases := []struct{ name, in, want string }{
		{"both ends", `{"a":"` + long + `"}`, `{"a":"aaaaa … zzzz"}`},
		{"short enough", `{"a":"0123456789abc"}`, `{"a":"0123456789abc"}`},
		{"no escape split at the tail", `{"a":"` + long + `\nzz"}`, `{"a":"aaaaa … \nzz"}`},
		{"commands whole", `{"command":"` + long + `"}`, `{"command":"` + long + `"}`},
	}
	for _, c := range cases {
		if got := string(Clip(nil, []byte(c.in), 5, 4, "command")); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// FuzzShorten: a valid JSON line stays valid and keeps its shape: the same
// keys, numbers and literals, every string a prefix of what it was.
func FuzzShorten(f *testing.F) {
	for _, s := range []string{`{"a":"bcdefghijklmnop","command":"zzzzzzzzzzzzzzzzzzzzzz"}`,
		`{"a":["\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9","\\\\\\\\\\\\\\\\\\\\"],"n":1.5e3,"t":true,"z":null}`,
		`{"x":{"y":"\"\"\"\"\"\"\"\"\"\"\"\"\"\""}}`, `{"s":"日本語日本語日本語日本語日本語"}`, `not json "at all`} {
		f.Add(s, 8)
	}
	f.Fuzz(func(t *testing.T, in string, keep int) {
		keep = max(keep%64, 0)
		out := Shorten(nil, []byte(in), keep, "command")
		var a any
		if json.Unmarshal([]byte(in), &a) != nil {
			return
		}
		var b any
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("valid %q became invalid %q: %v", in, out, err)
		}
		if !prefixOf(b, a) {
			t.Fatalf("%q shortened to %q changed its shape", in, out)
		}
		clipped := Clip(nil, []byte(in), keep, keep/2+1, "command")
		var c any
		if err := json.Unmarshal(clipped, &c); err != nil {
			t.Fatalf("valid %q clipped to invalid %q: %v", in, clipped, err)
		}
	})
}

// prefixOf reports whether b has a's shape with each string a prefix.
func prefixOf(b, a any) bool {
	switch a := a.(type) {
	case string:
		s, ok := b.(string)
		return ok && strings.HasPrefix(strings.ToValidUTF8(a, "\uFFFD"), strings.TrimSuffix(s, "\uFFFD"))
	case []any:
		bb, ok := b.([]any)
		if !ok || len(bb) != len(a) {
			return false
		}
		for i := range a {
			if !prefixOf(bb[i], a[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bb, ok := b.(map[string]any)
		if !ok || len(bb) != len(a) {
			return false
		}
		for k, v := range a {
			if !prefixOf(bb[k], v) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}
