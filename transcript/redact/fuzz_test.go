package redact

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cuff-dev/cuff/internal/secrettest"
)

// planted is a secret embedded in text: what is written, and the parts of
// it that must not survive redaction (or, for a case of the corpus, the
// case, which says what a leak is).
type planted struct {
	text    string
	secrets []string
	c       *secrettest.Case
}

// leaks reports whether out shows the planted secret, unless the text
// around it (fuzzed) holds it already.
func (p planted) leaks(out, around string) bool {
	if p.c != nil {
		return !p.c.Leaks(around) && p.c.Leaks(out)
	}
	for _, sec := range p.secrets {
		if !strings.Contains(around, sec) && strings.Contains(out, sec) {
			return true
		}
	}
	return false
}

// corpus is secrettest's corpus, planted by kinds from 20 on.
var corpus = secrettest.Corpus()

const (
	alnum     = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upperNum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	base64Set = alnum + "+/"
	b64url    = alnum + "-_"
)

func randFrom(rng *rand.Rand, set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[rng.IntN(len(set))]
	}
	return string(b)
}

// plant generates a secret of one of the shapes the built-in rules cover.
func plant(kind uint8, seed uint64) planted {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	v := randFrom(rng, alnum, 16+rng.IntN(24))
	one := func(text string) planted { return planted{text: text, secrets: []string{text}} }
	withValue := func(format string) planted { return planted{text: fmt.Sprintf(format, v), secrets: []string{v}} }
	if k := int(kind) % (20 + len(corpus)); k >= 20 {
		c := corpus[k-20]
		return planted{text: c.Text, c: &c}
	}
	switch kind % 20 {
	case 0:
		return one("sk-proj-" + randFrom(rng, alnum+"_-", 40))
	case 1:
		return one("sk-ant-api03-" + randFrom(rng, alnum, 60))
	case 2:
		return one("ghp_" + randFrom(rng, alnum, 36))
	case 3:
		return one("github_pat_" + randFrom(rng, alnum+"_", 60))
	case 4:
		return one("AKIA" + randFrom(rng, upperNum, 16))
	case 5:
		return one("xoxb-" + randFrom(rng, "0123456789", 12) + "-" + randFrom(rng, alnum, 24))
	case 6:
		return one("eyJ" + randFrom(rng, b64url, 20) + ".eyJ" + randFrom(rng, b64url, 30) + "." + randFrom(rng, b64url, 20))
	case 7:
		return withValue("PASSWORD=%s")
	case 8:
		return withValue(`"api_key": "%s"`)
	case 9:
		return withValue("--token %s")
	case 10:
		return withValue("Authorization: Bearer %s")
	case 11:
		return withValue("postgres://admin:%s@db.internal:5432/app")
	case 12:
		return withValue("<password>%s</password>")
	case 13:
		return withValue("client_secret='%s'")
	case 14:
		sec := randFrom(rng, base64Set, 40)
		return planted{text: "aws_secret_access_key = " + sec, secrets: []string{sec}}
	case 15, 16:
		lines := []string{randFrom(rng, base64Set, 64), randFrom(rng, base64Set, 64), randFrom(rng, base64Set, 20) + "=="}
		text := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Join(lines, "\n")
		if kind%20 == 15 {
			text += "\n-----END RSA PRIVATE KEY-----"
		}
		return planted{text: text, secrets: lines}
	case 17:
		return one("AIza" + randFrom(rng, alnum+"_-", 35))
	case 18:
		return one("glpat-" + randFrom(rng, alnum, 20))
	default:
		return withValue(`{\"secret\":\"%s\"}`)
	}
}

func FuzzRedact(f *testing.F) {
	f.Add("", "", uint8(0), uint64(1))
	f.Add("log line before", "and after", uint8(7), uint64(2))
	f.Add("-----BEGIN RSA PRIVATE KEY-----", "", uint8(4), uint64(3))
	f.Add("token: \"abc", "\"", uint8(8), uint64(4))
	f.Add("\xff\xfe", "\xc3", uint8(11), uint64(5))
	f.Add("https://a:b@c", "PASSWORD=", uint8(16), uint64(6))
	f.Add(strings.Repeat("x", 300), "--password", uint8(9), uint64(7))
	r := MustNew(Options{})
	seps := []string{" ", "\n", "\t", "\r\n"}
	f.Fuzz(func(t *testing.T, prefix, suffix string, kind uint8, seed uint64) {
		p := plant(kind, seed)
		in := prefix + seps[seed%4] + p.text + seps[(seed/4)%4] + suffix
		out := r.String(in)
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 in, invalid out: %q", out)
		}
		if p.leaks(out, prefix+" "+suffix) {
			t.Fatalf("the secret survived\n  in %q\n out %q", in, out)
		}
		if again := r.String(out); again != out {
			t.Fatalf("redacting twice changed the text\nonce  %q\ntwice %q", out, again)
		}
		// The text around the secret is fuzzed on its own as well.
		for _, s := range []string{prefix, suffix} {
			o := r.String(s)
			if utf8.ValidString(s) && !utf8.ValidString(o) {
				t.Fatalf("valid UTF-8 in, invalid out: %q -> %q", s, o)
			}
		}
	})
}

func FuzzRedactJSON(f *testing.F) {
	f.Add([]byte(`{"a":"b"}`), uint8(0), uint64(1))
	f.Add([]byte(`[1,"x",{"password":2},null]`), uint8(7), uint64(2))
	f.Add([]byte(`"\ud83d\ude00 \u0000"`), uint8(15), uint64(3))
	f.Add([]byte(`{"token":{"x":[true,false,-1.5e+3]}}`), uint8(10), uint64(4))
	f.Add([]byte("{\"a\xff\":\"\xfe\"}"), uint8(3), uint64(5))
	f.Add([]byte(`{"a":`), uint8(1), uint64(6))
	r := MustNew(Options{})
	f.Fuzz(func(t *testing.T, raw []byte, kind uint8, seed uint64) {
		out, err := r.JSON(raw)
		if valid := json.Valid(raw); valid != (err == nil) {
			t.Fatalf("json.Valid=%v but err=%v for %q", valid, err, raw)
		}
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON out: %q -> %q", raw, out)
		}
		// Plant a secret in a string of a document wrapping the input.
		p := plant(kind, seed)
		doc, _ := json.Marshal(map[string]any{"stdout": "x " + p.text + " y"})
		wrapped := []byte(`{"input":` + string(raw) + `,"event":` + string(doc) + `}`)
		got, err := r.JSON(wrapped)
		if err != nil {
			t.Fatalf("wrapped valid JSON rejected: %v", err)
		}
		var back struct {
			Event struct{ Stdout string } `json:"event"`
		}
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("redacted document does not decode: %v", err)
		}
		if p.leaks(back.Event.Stdout, "") {
			t.Fatalf("the secret survived in %q", back.Event.Stdout)
		}
	})
}

func FuzzDecodeString(f *testing.F) {
	f.Add(`"a\u00e9\ud83d\ude00\n"`)
	f.Add(`"\ud83d"`)
	f.Add("\"\xff\"")
	f.Fuzz(func(t *testing.T, lit string) {
		var want string
		if json.Unmarshal([]byte(lit), &want) != nil || !strings.HasPrefix(strings.TrimSpace(lit), `"`) {
			return
		}
		lit = strings.TrimSpace(lit)
		if got := decodeString([]byte(lit)); got != want {
			t.Fatalf("decodeString(%q) = %q, want %q", lit, got, want)
		}
	})
}
