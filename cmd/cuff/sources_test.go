package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/internal/synthetic"
)

// withAgentFolders runs cuff with Claude Code's and Codex's folders set to
// copies of the decoders' synthetic fixtures.
func withAgentFolders(t *testing.T) (string, func(args ...string) result) {
	t.Helper()
	dir := gitProject(t)
	home := t.TempDir()
	claudeDir := filepath.Join(home, "claude")
	codexDir := filepath.Join(home, "codex")
	put := func(from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(to), 0o755)
		os.WriteFile(to, data, 0o644)
	}
	put("../../transcript/claude/testdata/streamed.jsonl", filepath.Join(claudeDir, "projects", "-home-dev-shop", "11111111-2222-4333-8444-555555555555.jsonl"))
	put("../../transcript/codex/testdata/rollout-2026-01-05T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl",
		filepath.Join(codexDir, "sessions", "2026", "01", "05", "rollout-2026-01-05T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee.jsonl"))
	return dir, func(args ...string) result {
		return cuffEnv(t, dir, "", []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + claudeDir, "CODEX_HOME=" + codexDir,
			"CUFF_STATE_DIR=" + filepath.Join(home, "state"), "NO_COLOR=1", "TZ=UTC"}, args...)
	}
}

func TestRecordListForeignSources(t *testing.T) {
	dir, run := withAgentFolders(t)
	r := run("record", "list", "--source", "all", "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v: %+v", err, r)
	}
	if len(rows) != 2 {
		t.Fatalf("rows %v", rows)
	}
	bySource := map[any]map[string]any{}
	for _, row := range rows {
		bySource[row["source"]] = row
	}
	c := bySource["claude"]
	if c == nil || c["session_id"] != "claude:11111111-2222-4333-8444-555555555555" || c["title"] != "the tests fail on CI, can you look?" ||
		c["working_directory"] != "/home/dev/shop" || c["commands"].(float64) < 1 {
		t.Errorf("claude row %v", c)
	}
	if x := bySource["codex"]; x == nil || !strings.HasPrefix(x["session_id"].(string), "codex:") {
		t.Errorf("codex row %v", x)
	}
	r = run("record", "stats", "--source", "all", "--format", "json")
	var st struct {
		Tokens struct {
			Output int64   `json:"output_tokens"`
			Cost   float64 `json:"estimated_cost_usd"`
		} `json:"tokens"`
		Disk map[string]int64 `json:"disk_bytes_by_source"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Tokens.Output == 0 || st.Disk["claude"] == 0 || st.Disk["codex"] == 0 {
		t.Errorf("stats across sources: %v %+v %s", err, st, r.stderr)
	}
	r = run("record", "list", "--source", "claude")
	if !strings.Contains(r.stdout, "claude  claude:11111111") {
		t.Errorf("table:\n%s", r.stdout)
	}
	r = run("record", "show", "claude:11111111-2222-4333-8444-555555555555", "--entries")
	if r.code != 0 || !strings.Contains(r.stdout, "Title: the tests fail on CI") || !strings.Contains(r.stdout, "Entries:") {
		t.Errorf("show foreign:\n%+v", r)
	}
	r = run("record", "export", "claude:11111111-2222-4333-8444-555555555555", "--format", "jsonl")
	if lines := strings.Count(r.stdout, "\n"); r.code != 0 || lines < 5 || !strings.Contains(r.stdout, `"session_id":"claude:11111111`) {
		t.Errorf("export foreign jsonl: %d lines %+v", lines, r)
	}
	r = run("record", "export", "codex:0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee", "--format", "markdown")
	if r.code != 0 || !strings.Contains(r.stdout, "#") {
		t.Errorf("export foreign markdown: %+v", r)
	}
	r = run("record", "show", "claude:00000000-0000-4000-8000-000000000000")
	if r.code == 0 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("missing foreign: %+v", r)
	}
	os.MkdirAll(filepath.Join(dir, ".cuff"), 0o700)
	os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"), []byte("sources:\n  claude: false\n"), 0o600)
	r = run("record", "list", "--source", "claude")
	if r.code != exitUsage || !strings.Contains(r.stderr, "switched off") {
		t.Errorf("switched off: %+v", r)
	}
	r = run("record", "list", "--source", "cursor")
	if r.code != exitUsage || !strings.Contains(r.stderr, "unknown source") {
		t.Errorf("bad source: %+v", r)
	}
}

// TestForeignSessionsByPartialID: any unique part of a Claude Code or Codex
// session's id names it, with or without the source prefix.
func TestForeignSessionsByPartialID(t *testing.T) {
	_, run := withAgentFolders(t)
	for _, id := range []string{"11111111", "claude:1111", "4333-8444"} {
		r := run("record", "show", id)
		if r.code != 0 || !strings.Contains(r.stdout, "claude:11111111-2222-4333-8444-555555555555") {
			t.Errorf("record show %s: %+v", id, r)
		}
	}
	for _, id := range []string{"11111111", "11111111-2222-4333-8444-555555555555"} {
		r := run("record", "export", id, "--format", "markdown")
		if r.code != 0 || !strings.Contains(r.stdout, "claude:11111111-2222-4333-8444-555555555555") {
			t.Errorf("record export %s: %+v", id, r)
		}
	}
	r := run("record", "show", "codex:1111")
	if r.code == 0 || !strings.Contains(r.stderr, "not found") {
		t.Errorf("a part of a claude id under codex: %+v", r)
	}
}

// Exporting a Claude Code session nobody has listed before reads its
// transcript once: no counting pass first (its counts stay uncounted in
// the listing cache), and the page ends with the counts of what it shows,
// the ones `record show` gives.
func TestExportForeignReadsTheTranscriptOnce(t *testing.T) {
	dir := gitProject(t)
	home := t.TempDir()
	claudeDir := filepath.Join(home, "claude")
	id := "b3f1c2d4-0000-4000-8000-000000000042"
	if _, err := synthetic.WriteClaudeFile(filepath.Join(claudeDir, "projects", "-home-dev-shop", id+".jsonl"),
		synthetic.ClaudeOptions{Bytes: 400 << 10, Seed: 42}); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(home, "state")
	run := func(args ...string) result {
		return cuffEnv(t, dir, "", []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + claudeDir, "CUFF_STATE_DIR=" + state, "NO_COLOR=1", "TZ=UTC"}, args...)
	}
	r := run("record", "export", "claude:"+id, "--format", "html")
	if r.code != 0 {
		t.Fatalf("export: %+v", r)
	}
	var cache map[string]struct {
		Info struct{ Events int64 }
	}
	data, err := os.ReadFile(filepath.Join(state, "sources", "claude.json"))
	if err != nil || json.Unmarshal(data, &cache) != nil || len(cache) != 1 {
		t.Fatalf("listing cache after the export: %v %s", err, data)
	}
	for _, e := range cache {
		if e.Info.Events != -1 {
			t.Errorf("the export counted the session first: %d events cached", e.Info.Events)
		}
	}
	show := run("record", "show", "claude:"+id, "--format", "json")
	var d struct {
		Session struct {
			Events, Turns, Commands int64
			ToolCalls               int64 `json:"tool_calls"`
		} `json:"session"`
	}
	if err := json.Unmarshal([]byte(show.stdout), &d); err != nil || d.Session.Commands < 1 {
		t.Fatalf("show: %v %+v", err, show)
	}
	footer := fmt.Sprintf("Exported by cuff · %d events · %d turns · %d tool calls · %d commands", d.Session.Events, d.Session.Turns, d.Session.ToolCalls, d.Session.Commands)
	if !strings.Contains(r.stdout, footer) {
		i := strings.Index(r.stdout, "<footer>")
		t.Errorf("the page does not end with %q:\n%s", footer, r.stdout[max(i, 0):])
	}
}
