package timeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/internal/jsonstr"
)

// FuzzRawIndex: a plain query is found in the escaped bytes of a string
// exactly when it is in the string.
func FuzzRawIndex(f *testing.F) {
	f.Add("a\\nb and a\nb", "nb")
	f.Add("tab\there\\\\tx", "tx")
	f.Add("\\\\\\\"q", "q")
	f.Add("Kelvin \u212a and k", "k and")
	f.Add("ends with a backslash \\", "slash")
	f.Add("MiXeD CaSe", "mixed case")
	f.Fuzz(func(t *testing.T, s, q string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Skip()
		}
		raw := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		raw = raw[1 : len(raw)-1]
		fold := !hasUpper(q)
		if !plainQuery([]byte(q), fold) || !utf8.Valid(raw) || bytes.Contains(raw, []byte(`\u`)) {
			t.Skip()
		}
		text, err := jsonstr.Unescape(nil, raw)
		if err != nil {
			t.Fatalf("unescape(%q): %v", raw, err)
		}
		want := indexBytes(text, []byte(q), fold) >= 0
		if got := rawIndex(raw, []byte(q), fold) >= 0; got != want {
			t.Fatalf("rawIndex(%q, %q) found %v, the text says %v", raw, q, got, want)
		}
	})
}

// FuzzIndex: the smart-case search finds the first match a byte-by-byte
// scan finds, in strings and in bytes.
func FuzzIndex(f *testing.F) {
	f.Add("Hello World hello", "world")
	f.Add("aaaaAAAAb", "ab")
	f.Add("x1x2x3", "x3")
	f.Add("ÄBC äbc", "äb")
	f.Add("k\u212a K", "k ")
	f.Fuzz(func(t *testing.T, s, q string) {
		if q == "" {
			return
		}
		fold := !hasUpper(q)
		want := strings.Index(s, q)
		if fold {
			want = -1
			q0, size := utf8.DecodeRuneInString(q)
			if q0 >= utf8.RuneSelf || size != 1 {
				want = strings.Index(strings.ToLower(s), strings.ToLower(q))
			} else {
				lo, up := byte(unicode.ToLower(q0)), byte(unicode.ToUpper(q0))
				for i := 0; i+len(q) <= len(s); i++ {
					if c := s[i]; (c == lo || c == up) && strings.EqualFold(s[i:i+len(q)], q) {
						want = i
						break
					}
				}
			}
		}
		if got := index(s, q, fold); got != want {
			t.Fatalf("index(%q, %q) = %d, want %d", s, q, got, want)
		}
		if got := indexBytes([]byte(s), []byte(q), fold); got != want {
			t.Fatalf("indexBytes(%q, %q) = %d, want %d", s, q, got, want)
		}
	})
}

func TestItemTime(t *testing.T) {
	if zeroSec != (time.Time{}).Unix() {
		t.Fatalf("zeroSec %d, want %d", int64(zeroSec), (time.Time{}).Unix())
	}
	for _, ts := range []time.Time{{}, time.Unix(0, 0), time.Date(2026, 1, 18, 14, 30, 52, 123456789, time.FixedZone("x", 3600)),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)} {
		var it Item
		it.setTS(ts)
		if got := it.TS(); !got.Equal(ts) || got.IsZero() != ts.IsZero() {
			t.Errorf("%v comes back as %v", ts, got)
		}
	}
}

// TestIndexFoldStaysInTheString: a non-ASCII query is found at an offset
// of s itself, however lower-casing changes byte lengths.
func TestIndexFoldStaysInTheString(t *testing.T) {
	for _, c := range []struct {
		s, q string
		want int
	}{
		{"ȺȺȺé", "é", 6},
		{"İİ café", "é", 8},
		{"ÉCOLE école", "é", 0},
		{"nothing here", "é", -1},
		{"é", "éé", -1},
	} {
		got := IndexFold(c.s, c.q)
		if got != c.want {
			t.Errorf("IndexFold(%q, %q) = %d, want %d", c.s, c.q, got, c.want)
		}
		if got >= 0 && got+len(c.q) > len(c.s) {
			t.Errorf("IndexFold(%q, %q) = %d runs past the string", c.s, c.q, got)
		}
	}
}
