package browser

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
)

func TestParseQuery(t *testing.T) {
	for in, want := range map[string]Query{
		"":                            {},
		"  phx  Deploy ":              {Words: []string{"phx", "deploy"}},
		"source:Codex failed":         {Fields: []Field{{"source", "codex"}}, Failed: true},
		"agent:claude status:live x":  {Words: []string{"x"}, Fields: []Field{{"agent", "claude"}, {"status", "live"}}},
		"https://example.com":         {Words: []string{"https://example.com"}},
		"source: cwd:/srv/api":        {Words: []string{"source:"}, Fields: []Field{{"dir", "/srv/api"}}},
		"is:live src:claude folder:x": {Fields: []Field{{"status", "live"}, {"source", "claude"}, {"dir", "x"}}},
	} {
		if got := ParseQuery(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseQuery(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestMatchWordRanks(t *testing.T) {
	for _, c := range []struct {
		w, text string
		want    int
	}{
		{"phx", "phx", exactMatch},
		{"phx", "phx deploy", prefixMatch},
		{"phx", "fix the phx router", wordMatch},
		{"phx", "fix the_phx", wordMatch},
		{"ploy", "redeploy", substringMatch},
		{"dpy", "deploy", fuzzyMatch},
		{"xyz", "deploy", noMatch},
		{"", "deploy", noMatch},
		{"é", "café", wordMatch - 1}, // inside a word: a substring
	} {
		if got := matchWord(c.w, c.text); got != c.want {
			t.Errorf("matchWord(%q, %q) = %d, want %d", c.w, c.text, got, c.want)
		}
	}
}

func infos() []session.Info {
	base := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	mk := func(n int, title, src, agent string, fails int64, live bool) session.Info {
		return session.Info{ID: sessionIDFor(n), Title: title, Source: src, Agent: agent, Failures: fails, Live: live,
			Status: "complete", Started: base.Add(-time.Duration(n) * time.Minute), WorkingDirectory: "/home/dev/shop"}
	}
	return []session.Info{ // newest first
		mk(1, "fuzzy: deploy hidden in d-e-p-l-o-y", "cuff", "cuff-exec", 0, true),
		mk(2, "redeploy the api", "claude", "claude-code", 2, false),
		mk(3, "deploy", "codex", "codex", 0, false),
		mk(4, "deploy the api", "cuff", "claude-code", 1, false),
		mk(5, "unrelated", "claude", "claude-code", 0, false),
	}
}

func sessionIDFor(n int) string {
	return "20250301_10000" + string(rune('0'+n)) + "_a000000" + string(rune('0'+n)) + "-beef"
}

func titles(in []session.Info) []string {
	var out []string
	for _, i := range in {
		out = append(out, i.Title)
	}
	return out
}

func TestFilterRanksAndFields(t *testing.T) {
	all := infos()
	for q, want := range map[string][]string{
		// exact, prefix, word, substring, then fuzzy; ties newest first.
		"deploy":          {"deploy", "deploy the api", "fuzzy: deploy hidden in d-e-p-l-o-y", "redeploy the api"},
		"dply":            {"fuzzy: deploy hidden in d-e-p-l-o-y", "redeploy the api", "deploy", "deploy the api"},
		"deploy api":      {"deploy the api", "redeploy the api"},
		"source:claude":   {"redeploy the api", "unrelated"},
		"agent:claude":    {"redeploy the api", "deploy the api", "unrelated"},
		"status:live":     {"fuzzy: deploy hidden in d-e-p-l-o-y"},
		"failed":          {"redeploy the api", "deploy the api"},
		"failed source:c": {"redeploy the api", "deploy the api"},
		"status:complete": {"redeploy the api", "deploy", "deploy the api", "unrelated"},
		"shop":            {"fuzzy: deploy hidden in d-e-p-l-o-y", "redeploy the api", "deploy", "deploy the api", "unrelated"},
		"nothing-here":    nil,
	} {
		if got := titles(ParseQuery(q).Filter(all)); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", q, got, want)
		}
	}
	if got := ParseQuery("  ").Filter(all); len(got) != len(all) {
		t.Errorf("an empty query filtered: %d of %d", len(got), len(all))
	}
}

// FuzzQuery: any query parses and filters without panicking, keeps only
// sessions it scores, and keeps the listing's order among equal scores.
func FuzzQuery(f *testing.F) {
	for _, seed := range []string{"", "phx", "source:codex failed", "agent:", ":", "a:b:c", "\xff\xfe", "é ü 日本", "status:live dir:/x", "d\x00p"} {
		f.Add(seed)
	}
	all := infos()
	all = append(all, session.Info{ID: "claude:\xff\xfe", Title: "\xffbad\xfe utf8", Agent: "\xf0"})
	f.Fuzz(func(t *testing.T, q string) {
		parsed := ParseQuery(q)
		got := parsed.Filter(all)
		if len(got) > len(all) {
			t.Fatalf("%q: %d results from %d sessions", q, len(got), len(all))
		}
		prev := 1 << 30
		for _, info := range got {
			score, ok := parsed.Score(info)
			if !ok {
				t.Fatalf("%q: %q listed but not passing", q, info.Title)
			}
			if score > prev {
				t.Fatalf("%q: results not best first", q)
			}
			prev = score
		}
	})
}
