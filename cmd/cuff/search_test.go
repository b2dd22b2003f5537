package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/synthetic"
)

// searchEnv is a project and a Claude Code history to search, with its own
// home, state and cache.
type searchEnv struct {
	t                    *testing.T
	dir, home, claudeDir string
	cache                string
}

const searchSession = "b3f1c2d4-0000-4000-8000-0000000000bb"

func newSearchEnv(t *testing.T, generatedMB int64) searchEnv {
	t.Helper()
	home := t.TempDir()
	e := searchEnv{t: t, dir: gitProject(t), home: home, claudeDir: filepath.Join(home, "claude"), cache: filepath.Join(home, "cache")}
	for i := range 4 {
		p := filepath.Join(e.claudeDir, "projects", "-home-dev-shop", fmt.Sprintf("b3f1c2d4-0000-4000-8000-%012d.jsonl", i))
		if _, err := synthetic.WriteClaudeFile(p, synthetic.ClaudeOptions{Bytes: generatedMB << 20 / 4, Seed: uint64(i + 1),
			Start: time.Now().Add(-time.Duration(40-i) * 24 * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	ts := time.Now().Add(-2 * time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")
	rec := func(typ, uuid, message string, extra string) string {
		return fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/dev/cart","sessionId":%q,"version":"2.1.40","gitBranch":"main","type":%q,"message":%s,"uuid":%q,"timestamp":%q%s}`+"\n",
			searchSession, typ, message, uuid, ts, extra)
	}
	hand := rec("user", "u1", `{"role":"user","content":"why does the pangolin checkout fail?"}`, "") +
		rec("assistant", "a1", `{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"go test ./pangolin/..."}}]}`, "") +
		rec("user", "r1", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"Exit code 1\nFAIL pangolin token=ghp_abcdefghijklmnopqrstuvwxyz0123456789","is_error":true}]}`, `,"toolUseResult":"Error: Exit code 1"`)
	p := filepath.Join(e.claudeDir, "projects", "-home-dev-cart", searchSession+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(hand), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e searchEnv) env() []string {
	return []string{"HOME=" + e.home, "CLAUDE_CONFIG_DIR=" + e.claudeDir, "CODEX_HOME=" + filepath.Join(e.home, "codex"),
		"CUFF_STATE_DIR=" + filepath.Join(e.home, "state"), "CUFF_CACHE_DIR=" + e.cache, "NO_COLOR=1", "TZ=UTC"}
}

func (e searchEnv) run(args ...string) result {
	e.t.Helper()
	return cuffEnv(e.t, e.dir, "", e.env(), args...)
}

// command is the binary set to run in the environment, not yet started.
func (e searchEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(cuffBin, args...)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), e.env()...)
	return cmd
}

type searchRow struct {
	SessionID  string   `json:"session_id"`
	Kind       string   `json:"kind"`
	Failed     bool     `json:"failed"`
	Snippet    string   `json:"snippet"`
	Highlights [][2]int `json:"highlights"`
	Time       string   `json:"time"`
}

func (e searchEnv) hits(args ...string) []searchRow {
	e.t.Helper()
	r := e.run(append([]string{"search", "--format", "json"}, args...)...)
	var rows []searchRow
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &rows) != nil {
		e.t.Fatalf("cuff search %v: %+v", args, r)
	}
	return rows
}

func TestSearchCommand(t *testing.T) {
	e := newSearchEnv(t, 2)
	r := e.run("search", "pangolin")
	if r.code != 0 || !strings.Contains(r.stdout, "claude:"+searchSession) || !strings.Contains(r.stdout, "prompt") ||
		!strings.Contains(r.stdout, "why does the pangolin checkout fail?") {
		t.Fatalf("cuff search pangolin:\n%+v", r)
	}
	rows := e.hits("pangolin")
	kinds := map[string]bool{}
	for _, h := range rows {
		kinds[h.Kind] = true
		if len(h.Highlights) == 0 || !strings.EqualFold(h.Snippet[h.Highlights[0][0]:h.Highlights[0][1]], "pangolin") {
			t.Errorf("hit %+v: the highlight is not the word", h)
		}
	}
	if len(rows) != 3 || !kinds["prompt"] || !kinds["command"] || !kinds["output"] {
		t.Fatalf("pangolin: %+v", rows)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"cmd:pangolin"}, 1},
		{[]string{"failed:pangolin"}, 2},
		{[]string{"pangolin", "--type", "prompt"}, 1},
		{[]string{"pangolin", "--source", "codex"}, 0},
		{[]string{"pangolin", "--since", "1d"}, 3},
		{[]string{"pangolin", "--agent", "codex"}, 0},
		{[]string{`"pangolin checkout"`}, 1},
		{[]string{"pango*"}, 3},
	} {
		if got := e.hits(c.args...); len(got) != c.want {
			t.Errorf("search %v: %d hits, want %d: %+v", c.args, len(got), c.want, got)
		}
	}
	r = e.run("search", "ghp_abcdefghijklmnopqrstuvwxyz0123456789")
	if r.code != 0 || strings.Contains(r.stdout, "ghp_abc") {
		t.Errorf("a secret is found: %+v", r)
	}
	r = e.run("search", "token", "--format", "json")
	if !strings.Contains(r.stdout, "[REDACTED]") || strings.Contains(r.stdout, "ghp_abc") {
		t.Errorf("the text around the secret: %+v", r)
	}
	files, _ := filepath.Glob(filepath.Join(e.cache, "search", "*"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), "ghp_abcdefghij") {
			t.Errorf("%s holds the secret", f)
		}
	}
	for _, bad := range [][]string{{"x", "--type", "nonsense"}, {"x", "--source", "cursor"}, {"-pangolin"}, {"x", "--format", "csv"}} {
		if r := e.run(append([]string{"search"}, bad...)...); r.code == 0 || !strings.Contains(r.stderr, "Hint") {
			t.Errorf("search %v: %+v", bad, r)
		}
	}
}

// An update killed with SIGKILL in the middle leaves an index that the
// next search finishes: the same hits as an index built in one go.
func TestSearchIndexSurvivesKill(t *testing.T) {
	e := newSearchEnv(t, 24)
	queries := []string{"pangolin", "the", "failed:", "cmd:go", `"exit code"`}
	for round, grow := range []int64{1 << 20, 2 << 20, 3 << 20} {
		before := indexBytes(e.cache)
		cmd := e.command("search", "pangolin")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		if !waitIndexBytes(t, e.cache, before+grow, exited) {
			t.Fatalf("round %d: the update ended before the index grew by %d bytes", round, grow)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-exited
	}
	got := map[string]int{}
	for _, q := range queries {
		got[q] = len(e.hits(q, "--limit", "100000"))
	}
	os.RemoveAll(e.cache)
	for _, q := range queries {
		if want := len(e.hits(q, "--limit", "100000")); got[q] != want || want == 0 {
			t.Errorf("%s: %d hits after the kills, %d in an index built in one go", q, got[q], want)
		}
	}
}

// indexBytes is the size of the search index's files (database and log).
func indexBytes(cache string) int64 {
	files, _ := filepath.Glob(filepath.Join(cache, "search", "*.db*"))
	var n int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// waitIndexBytes waits until the index's files hold n bytes (an update is
// writing), and reports false if the process ends first.
func waitIndexBytes(t *testing.T, cache string, n int64, exited <-chan struct{}) bool {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond) // watching files another process writes
	defer tick.Stop()
	for indexBytes(cache) < n {
		select {
		case <-exited:
			return false
		case <-tick.C:
		}
	}
	return true
}

// Two searches at once on an index that is not there yet both succeed,
// and the index holds each text once.
func TestSearchConcurrentProcesses(t *testing.T) {
	e := newSearchEnv(t, 8)
	var cmds []*exec.Cmd
	for range 3 {
		cmd := e.command("search", "--format", "json", "--limit", "100000", "the")
		cmd.Stderr = os.Stderr
		cmds = append(cmds, cmd)
	}
	outs := make([][]byte, len(cmds))
	errs := make(chan error, len(cmds))
	for i, cmd := range cmds {
		go func() {
			out, err := cmd.Output()
			outs[i] = out
			errs <- err
		}()
	}
	for range cmds {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	after := len(e.hits("the", "--limit", "100000"))
	os.RemoveAll(e.cache)
	want := len(e.hits("the", "--limit", "100000"))
	if after != want {
		t.Fatalf("%d hits after three processes indexed at once, %d from one", after, want)
	}
}
