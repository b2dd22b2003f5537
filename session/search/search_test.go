package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/synthetic"
	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/redact"
)

// claudeLine is a Claude Code record of the given type and message.
func claudeLine(session, typ, uuid, ts, message string, extra ...string) string {
	more := ""
	for _, e := range extra {
		more += "," + e
	}
	return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/shop","sessionId":%q,"version":"2.1.40","gitBranch":"main","type":%q,"message":%s,"uuid":%q,"timestamp":%q%s}`+"\n",
		session, typ, message, uuid, ts, more)
}

// testHistory is a Claude Code folder with a few generated sessions and
// one written by hand, whose texts the tests search for.
type testHistory struct {
	dir  string // CLAUDE_CONFIG_DIR
	hand string // the hand-written session's file
}

const handSession = "b3f1c2d4-0000-4000-8000-0000000000aa"

func newHistory(t *testing.T) testHistory {
	t.Helper()
	dir := t.TempDir()
	for i := range 3 {
		p := filepath.Join(dir, "projects", "-home-dev-shop", fmt.Sprintf("b3f1c2d4-0000-4000-8000-%012d.jsonl", i))
		if _, err := synthetic.WriteClaudeFile(p, synthetic.ClaudeOptions{Bytes: 300 << 10, Seed: uint64(i + 1),
			Start: time.Date(2026, 2, 1+i, 9, 0, 0, 0, time.UTC)}); err != nil {
			t.Fatal(err)
		}
	}
	hand := filepath.Join(dir, "projects", "-home-dev-cart", handSession+".jsonl")
	s := handSession
	lines := claudeLine(s, "user", "u1", "2026-02-10T10:00:00.000Z", `{"role":"user","content":"the checkout page shows a zebracorn error"}`) +
		claudeLine(s, "assistant", "a1", "2026-02-10T10:00:05.000Z", `{"id":"msg_1","role":"assistant","model":"claude-opus-4-6","content":[{"type":"text","text":"I will run the quokkatest suite."}]}`) +
		claudeLine(s, "assistant", "a2", "2026-02-10T10:00:06.000Z", `{"id":"msg_1","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./checkout -run TestWombat"}}]}`) +
		claudeLine(s, "user", "r1", "2026-02-10T10:00:09.000Z", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Exit code 1\n--- FAIL: TestWombat\n    cart_test.go:12: platypus mismatch","is_error":true}]}`, `"toolUseResult":"Error: Exit code 1"`) +
		claudeLine(s, "assistant", "a3", "2026-02-10T10:00:12.000Z", `{"id":"msg_2","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"/home/dev/cart/narwhal.go"}}]}`) +
		claudeLine(s, "user", "r2", "2026-02-10T10:00:13.000Z", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"package cart // the secret is AKIAIOSFODNN7EXAMPLE\nfunc Narwhal() {}"}]}`)
	if err := os.MkdirAll(filepath.Dir(hand), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hand, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	return testHistory{dir: dir, hand: hand}
}

func (h testHistory) sources() []session.Source {
	return []session.Source{session.ClaudeSource(h.dir, "")}
}

func openIndex(t *testing.T, path string) *Index {
	t.Helper()
	r, err := redact.New(redact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, err := Open(context.Background(), path, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	return x
}

func update(t *testing.T, x *Index, h testHistory) UpdateStats {
	t.Helper()
	files, errs := Files(context.Background(), h.sources(), "")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	st, err := x.Update(context.Background(), files, UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func search(t *testing.T, x *Index, q Query) []Hit {
	t.Helper()
	hits, err := x.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return hits
}

func describe(hits []Hit) string {
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s %s %s failed=%v %q\n", h.SessionID, h.Time.Format(time.RFC3339), h.Kind, h.Failed, h.Snippet)
	}
	return b.String()
}

func TestSearchFindsEveryKindOfText(t *testing.T) {
	h := newHistory(t)
	x := openIndex(t, filepath.Join(t.TempDir(), "search.db"))
	if st := update(t, x, h); st.Sessions != 4 || st.Docs < 100 {
		t.Fatalf("update: %+v", st)
	}
	for _, c := range []struct {
		query string
		kind  Kind
		mark  string
	}{
		{"zebracorn", KindPrompt, "zebracorn"},
		{"quokkatest", KindAnswer, "quokkatest"},
		{"TestWombat", KindCommand, "TestWombat"},
		{"platypus", KindOutput, "platypus"},
		{"narwhal.go", KindTool, "narwhal.go"},
		{"Narwhal", KindResult, "Narwhal"},
	} {
		hits := search(t, x, Query{Text: c.query, Kinds: []Kind{c.kind}})
		if len(hits) != 1 || hits[0].SessionID != "claude:"+handSession || hits[0].Kind != c.kind {
			t.Errorf("%s as %s:\n%s", c.query, c.kind, describe(hits))
			continue
		}
		hl := hits[0].Highlights
		if len(hl) == 0 || !strings.EqualFold(hits[0].Snippet[hl[0][0]:hl[0][1]], c.mark) {
			t.Errorf("%s: snippet %q, highlights %v", c.query, hits[0].Snippet, hl)
		}
	}
}

// dbBytes is every byte the index keeps on disk.
func dbBytes(t *testing.T, path string) []byte {
	t.Helper()
	var all []byte
	files, _ := filepath.Glob(path + "*") // every shard, and their logs
	if len(files) < 2*shardCount-1 {
		t.Fatalf("the index's files: %v", files)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, data...)
	}
	return all
}

// The index never holds a secret the store would redact: not as a word,
// not in its text, not anywhere in its files.
func TestSearchIndexHoldsNoSecret(t *testing.T) {
	h := newHistory(t)
	path := filepath.Join(t.TempDir(), "search.db")
	x := openIndex(t, path)
	update(t, x, h)
	if hits := search(t, x, Query{Text: "AKIAIOSFODNN7EXAMPLE"}); len(hits) != 0 {
		t.Fatalf("the secret is found:\n%s", describe(hits))
	}
	hits := search(t, x, Query{Text: "secret"})
	if len(hits) != 1 || !strings.Contains(hits[0].Snippet, redact.DefaultMarker) {
		t.Fatalf("the text around the secret:\n%s", describe(hits))
	}
	if strings.Contains(string(dbBytes(t, path)), "AKIAIOSFODNN7EXAMPLE") {
		t.Fatal("the index files hold the secret")
	}
}

func TestSearchQuerySyntax(t *testing.T) {
	h := newHistory(t)
	x := openIndex(t, filepath.Join(t.TempDir(), "search.db"))
	update(t, x, h)
	for _, c := range []struct {
		query string
		want  []Kind // kinds of the hits in the hand-written session, any order
	}{
		{`"zebracorn error"`, []Kind{KindPrompt}},
		{`"error zebracorn"`, nil},
		{`zebra*`, []Kind{KindPrompt}},
		{`zebracorn OR quokkatest`, []Kind{KindPrompt, KindAnswer}},
		{`checkout -zebracorn`, []Kind{KindCommand}},
		{`cmd:TestWombat`, []Kind{KindCommand}},
		{`out:TestWombat`, []Kind{KindOutput}},
		{`failed:TestWombat`, []Kind{KindCommand, KindOutput}},
		{`prompt:quokkatest`, nil},
		{`platypus mismatch`, []Kind{KindOutput}},
	} {
		var got []Kind
		for _, hit := range search(t, x, Query{Text: c.query}) {
			if hit.SessionID == "claude:"+handSession {
				got = append(got, hit.Kind)
			}
		}
		if fmt.Sprint(sortedKinds(got)) != fmt.Sprint(sortedKinds(c.want)) {
			t.Errorf("%s: kinds %v, want %v", c.query, got, c.want)
		}
	}
	for _, bad := range []string{"", "   ", "-zebracorn", "OR zebracorn", "zebracorn OR", "nosuch:field"} {
		if _, err := x.Search(context.Background(), Query{Text: bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	// failed: alone lists failures, newest first
	hits := search(t, x, Query{Text: "failed:", Limit: 1000})
	if len(hits) < 3 {
		t.Fatalf("failed: %d hits", len(hits))
	}
	for i, hit := range hits {
		if !hit.Failed || i > 0 && hit.Time.After(hits[i-1].Time) {
			t.Fatalf("failed: hit %d:\n%s", i, describe(hits[i:i+1]))
		}
	}
}

func sortedKinds(ks []Kind) []Kind {
	out := append([]Kind(nil), ks...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// Filters: source, time, agent, kind.
func TestSearchFilters(t *testing.T) {
	h := newHistory(t)
	x := openIndex(t, filepath.Join(t.TempDir(), "search.db"))
	update(t, x, h)
	q := Query{Text: "zebracorn"}
	if n := len(search(t, x, q)); n != 1 {
		t.Fatalf("%d hits", n)
	}
	for _, f := range []Query{
		{Text: "zebracorn", Sources: []string{"codex"}},
		{Text: "zebracorn", Since: time.Date(2026, 2, 11, 0, 0, 0, 0, time.UTC)},
		{Text: "zebracorn", Agent: "codex"},
		{Text: "zebracorn", Kinds: []Kind{KindCommand}},
	} {
		if hits := search(t, x, f); len(hits) != 0 {
			t.Errorf("%+v:\n%s", f, describe(hits))
		}
	}
	for _, f := range []Query{
		{Text: "zebracorn", Sources: []string{"claude"}},
		{Text: "zebracorn", Since: time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC)},
		{Text: "zebracorn", Agent: "Claude"},
	} {
		if hits := search(t, x, f); len(hits) != 1 {
			t.Errorf("%+v:\n%s", f, describe(hits))
		}
	}
}

// Codex rollouts and cuff's own sessions are searched too: a prompt of
// each, with its source, and the injected context is not a prompt.
func TestSearchCodexAndNative(t *testing.T) {
	codexHome := t.TempDir()
	src := "../../transcript/codex/testdata/rollout-2026-01-05T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(codexHome, "sessions", "2026", "01", "05", filepath.Base(src))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		t.Fatal(err)
	}
	storeDir := filepath.Join(t.TempDir(), ".cuff")
	store := session.Open(storeDir)
	w, err := store.Create(&transcript.SessionStart{Agent: "cuff-exec", Source: transcript.SourceExec}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	code := 3
	if err := w.Append(transcript.New(w.ID(), time.Now(), &transcript.BashRun{Command: "terraform apply", ExitCode: &code, Stderr: "Error: quota exceeded for ibex"})); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(transcript.StatusComplete); err != nil {
		t.Fatal(err)
	}
	x := openIndex(t, filepath.Join(t.TempDir(), "search.db"))
	files, errs := Files(context.Background(), []session.Source{store.Source(), session.CodexSource(codexHome, "")}, storeDir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, err := x.Update(context.Background(), files, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	hits := search(t, x, Query{Text: "health endpoint", Store: storeDir})
	if len(hits) == 0 || hits[0].Source != "codex" || hits[0].Kind != KindPrompt {
		t.Fatalf("codex prompt:\n%s", describe(hits))
	}
	if hits := search(t, x, Query{Text: "approval_policy", Kinds: []Kind{KindPrompt}, Store: storeDir}); len(hits) != 0 {
		t.Errorf("injected context as a prompt:\n%s", describe(hits))
	}
	hits = search(t, x, Query{Text: "failed:ibex", Store: storeDir})
	if len(hits) != 1 || hits[0].Source != "cuff" || hits[0].Seq == 0 || hits[0].Kind != KindOutput {
		t.Fatalf("cuff's own failed run:\n%s", describe(hits))
	}
	if hits := search(t, x, Query{Text: "ibex", Store: "/another/project/.cuff"}); len(hits) != 0 {
		t.Errorf("another project's own sessions are searched:\n%s", describe(hits))
	}
}
