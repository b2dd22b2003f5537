package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
	"go.yaml.in/yaml/v3"
)

// project makes a project folder with a store holding two finished sessions
// and returns the folder and the session ids (older first).
func project(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	s := session.Open(filepath.Join(dir, ".cuff"))
	var ids []string
	for i, start := range []time.Time{time.Now().Add(-2 * time.Hour), time.Now().Add(-time.Hour)} {
		w, err := s.Create(&transcript.SessionStart{Agent: "claude-code", Source: transcript.SourceExec, WorkingDirectory: "/proj"}, start)
		if err != nil {
			t.Fatal(err)
		}
		ok, fail := 0, 1
		events := []*transcript.Event{
			transcript.New(w.ID(), start, &transcript.ChatTurn{Role: "user", Text: "run the tests please"}),
			transcript.New(w.ID(), start.Add(time.Second), &transcript.BashRun{Command: "git status", ExitCode: &ok, Stdout: "On branch main\n", DurationMS: 20}),
			transcript.New(w.ID(), start.Add(2*time.Second), &transcript.BashRun{Command: "git status", ExitCode: &ok, DurationMS: 30}),
			transcript.New(w.ID(), start.Add(3*time.Second), &transcript.BashRun{Command: "go test ./...", ExitCode: &fail, Stderr: "FAIL x\n", DurationMS: 4500}),
			transcript.New(w.ID(), start.Add(4*time.Second), &transcript.BashRun{Command: "sleep 100", TimedOut: true, DurationMS: 120000}),
		}
		if i == 1 {
			events = append(events, &transcript.Event{Envelope: transcript.Envelope{Type: "future_kind", TS: start}, Raw: []byte(`{"type":"future_kind","extra":{"a":[1,2]}}`)})
		}
		if err := w.Append(events...); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(transcript.StatusComplete); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, w.ID())
	}
	return dir, ids
}

func TestRecordListEmpty(t *testing.T) {
	r := cuff(t, t.TempDir(), "", "record", "list")
	if r.code != 0 || !strings.HasPrefix(r.stderr, "No recordings found.") || r.stdout != "" {
		t.Errorf("%+v", r)
	}
	r = cuff(t, t.TempDir(), "", "record", "list", "--format", "json")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("json of nothing: %+v", r)
	}
}

func TestRecordListFormats(t *testing.T) {
	dir, ids := project(t)
	r := cuff(t, dir, "", "record", "list")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "Session ID") || !strings.HasPrefix(lines[2], ids[1]) ||
		!strings.HasPrefix(lines[3], ids[0]) || !strings.Contains(lines[2], "complete") {
		t.Errorf("table:\n%s", r.stdout)
	}
	if !strings.Contains(lines[2], "        4 ") {
		t.Errorf("command count missing: %q", lines[2])
	}

	r = cuff(t, dir, "", "record", "list", "--format", "json", "--limit", "1")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
		t.Fatalf("json: %v %s", err, r.stdout)
	}
	if rows[0]["session_id"] != ids[1] || rows[0]["commands"] != 4.0 || rows[0]["commands_failed"] != 1.0 ||
		rows[0]["commands_timed_out"] != 1.0 || rows[0]["title"] != "run the tests please" {
		t.Errorf("json row %v", rows[0])
	}

	r = cuff(t, dir, "", "record", "list", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 3 || recs[0][0] != "session_id" {
		t.Errorf("csv: %v %q", err, r.stdout)
	}

	r = cuff(t, dir, "", "record", "list", "--verbose")
	if !strings.Contains(r.stdout, "claude-code") || !strings.Contains(r.stdout, "run the tests please") {
		t.Errorf("verbose:\n%s", r.stdout)
	}

	r = cuff(t, dir, "", "record", "list", "--since", "2h")
	if strings.Count(r.stdout, "\n") != 3 {
		t.Errorf("--since 2h:\n%s", r.stdout)
	}
}

func TestRecordErrorsHaveHints(t *testing.T) {
	dir, ids := project(t)
	// A part both ids hold: their common start. A fixed year would name one
	// session, or none, once the sessions are dated in another year.
	n := 0
	for n < len(ids[0]) && ids[0][n] == ids[1][n] {
		n++
	}
	shared := ids[0][:n]
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"record", "list", "--since", "invalid"}, "Error: Invalid date format 'invalid'\n\nExpected: YYYY-MM-DD or relative format (e.g., '7d', '2w', '1m')\n"},
		{[]string{"record", "show", "999999"}, "Error: Session '999999' not found\n\nHint: Use 'cuff record list' to see available sessions\n"},
		{[]string{"record", "show", "../../etc/passwd"}, "Error: invalid session id \"../../etc/passwd\""},
		{[]string{"record", "show", "2026\nx"}, "Error: invalid session id \"2026\\nx\""},
		{[]string{"record", "show", shared}, "is ambiguous: it matches 2 sessions"},
		{[]string{"record", "show"}, "Error: missing SESSION_ID"},
		{[]string{"record", "list", "--format", "xml"}, "Error: unknown format \"xml\"\n\nHint: use one of: table, json, csv\n"},
		{[]string{"record", "list", "--bogus"}, "Error: unknown flag: --bogus\n\nHint: Run 'cuff record list --help' for usage\n"},
	}
	for _, c := range cases {
		r := cuff(t, dir, "", c.args...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("cuff %q: code %d stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

func TestRecordShow(t *testing.T) {
	dir, ids := project(t)
	// The time part and the underscore after it: the time alone, 202611 at
	// 20:26:11, is also part of the other session's date (20261125).
	partial := ids[0][9:16]
	r := cuff(t, dir, "", "record", "show", partial, "--entries", "--output")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	for _, want := range []string{"Session: " + ids[0], "Commands: 4 total", "✓ Succeeded: 2", "✗ Failed: 1",
		"⏱ Timed out: 1", "git status    - 2 calls", "On branch main", "FAIL x", "sleep 100"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("show output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = cuff(t, dir, "", "record", "show", ids[0], "--format", "yaml")
	// Parsed, not matched as text: an id such as 20261125_220122_5173011e-4203
	// reads as a YAML 1.1 float, so the encoder quotes it.
	var shown struct {
		Session struct {
			SessionID string `yaml:"session_id"`
		} `yaml:"session"`
		Stats struct {
			TotalCommands int `yaml:"total_commands"`
		} `yaml:"stats"`
	}
	if err := yaml.Unmarshal([]byte(r.stdout), &shown); err != nil || shown.Session.SessionID != ids[0] || shown.Stats.TotalCommands != 4 {
		t.Errorf("yaml (%v): %+v\n%s", err, shown, r.stdout)
	}
	r = cuff(t, dir, "", "record", "show", ids[0], "--output")
	if r.code != exitUsage {
		t.Errorf("--output without --entries: %+v", r)
	}
}

func TestRecordStats(t *testing.T) {
	dir, _ := project(t)
	r := cuff(t, dir, "", "record", "stats", "--since", "30d")
	for _, want := range []string{"Recording Statistics (last 30 days)", "Sessions: 2", "Total Commands: 8",
		"git status    - 4 (50.0%)", "0 (success)", "Longest Command: sleep 100 (2m 00s)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stats lacks %q:\n%s", want, r.stdout)
		}
	}
	r = cuff(t, t.TempDir(), "", "record", "stats")
	if !strings.HasPrefix(r.stderr, "No recordings found.") {
		t.Errorf("empty stats: %+v", r)
	}
}

func TestRecordExport(t *testing.T) {
	dir, ids := project(t)
	r := cuff(t, dir, "", "record", "export", ids[1])
	var events []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &events); err != nil {
		t.Fatalf("export json: %v\n%s", err, r.stdout)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, ".cuff/recordings/sessions", ids[1]+".jsonl"))
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(events) != len(lines) {
		t.Fatalf("%d events exported, file has %d lines", len(events), len(lines))
	}
	var unknown map[string]any
	for _, e := range events {
		if e["type"] == "future_kind" {
			unknown = e
		}
	}
	if unknown == nil || unknown["extra"] == nil {
		t.Errorf("unknown kind lost or changed: %v", unknown)
	}

	r = cuff(t, dir, "", "record", "export", "all", "--format", "jsonl")
	if got := strings.Count(r.stdout, "\n"); got != 2*len(lines)-1 {
		t.Errorf("jsonl of all: %d lines", got)
	}
	out := filepath.Join(t.TempDir(), "x.json")
	r = cuff(t, dir, "", "record", "export", ids[0], "--output", out)
	data, err := os.ReadFile(out)
	if r.code != 0 || err != nil || !json.Valid(data) || !strings.Contains(r.stderr, "Wrote "+out) {
		t.Errorf("--output: %+v %v", r, err)
	}
	r = cuff(t, dir, "", "record", "export", ids[0], "--format", "xml")
	if r.code != exitUsage || !strings.Contains(r.stderr, "use one of: json, jsonl") {
		t.Errorf("xml: %+v", r)
	}
}

func TestRecordClean(t *testing.T) {
	dir, ids := project(t)
	sessions := filepath.Join(dir, ".cuff/recordings/sessions")
	old := time.Now().AddDate(0, 0, -45)
	// age the first session: its events and its file
	p := filepath.Join(sessions, ids[0]+".jsonl")
	data, _ := os.ReadFile(p)
	aged := regexp.MustCompile(`"ts":"\d{4}-\d{2}-\d{2}`).ReplaceAll(data, []byte(`"ts":"`+old.UTC().Format("2006-01-02")))
	os.WriteFile(p, aged, 0o600)
	os.Chtimes(p, old, old)

	r := cuff(t, dir, "", "record", "clean", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "Dry run: would delete 1 session ") || !strings.Contains(r.stdout, ids[0]) {
		t.Fatalf("dry run: %+v", r)
	}
	r = cuff(t, dir, "n\n", "record", "clean")
	if !strings.Contains(r.stdout, "Nothing deleted.") || !strings.Contains(r.stderr, "Delete 1 session? [y/N]") {
		t.Errorf("declined: %+v", r)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatal("declined clean deleted the session")
	}
	r = cuff(t, dir, "", "record", "clean") // no answer at all means no
	if _, err := os.Stat(p); err != nil {
		t.Fatal("clean with no answer deleted the session")
	}
	r = cuff(t, dir, "", "record", "clean", "--force")
	if !strings.Contains(r.stdout, "Deleted 1 session, freed") {
		t.Errorf("force: %+v", r)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Error("session still there")
	}
	r = cuff(t, dir, "", "record", "list", "--format", "json")
	if strings.Count(r.stdout, `"session_id"`) != 1 {
		t.Errorf("after clean: %s", r.stdout)
	}
}

func TestRecordListAfterCrashAndLostIndex(t *testing.T) {
	dir, ids := project(t)
	rec := filepath.Join(dir, ".cuff/recordings")
	p := filepath.Join(rec, "sessions", ids[1]+".jsonl")
	f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"v":1,"type":"bash_run","seq":99,"comm`) // torn by a crash
	f.Close()
	os.WriteFile(filepath.Join(rec, "index.json"), []byte("{garbage"), 0o600)
	r := cuff(t, dir, "", "record", "list")
	if r.code != 0 || !strings.Contains(r.stderr, "warning: corrupt index") || !strings.Contains(r.stdout, ids[1]) ||
		!strings.Contains(r.stdout, ids[0]) {
		t.Errorf("%+v", r)
	}
	r = cuff(t, dir, "", "record", "list")
	if r.stderr != "" {
		t.Errorf("index was not saved after rebuild: %q", r.stderr)
	}
}

func TestDirFlag(t *testing.T) {
	dir, ids := project(t)
	elsewhere := t.TempDir()
	for _, d := range []string{dir, filepath.Join(dir, ".cuff")} {
		r := cuff(t, elsewhere, "", "--dir", d, "record", "list")
		if !strings.Contains(r.stdout, ids[0]) {
			t.Errorf("--dir %s: %+v", d, r)
		}
	}
	// a nested folder finds the store by walking up
	sub := filepath.Join(dir, "a", "b")
	os.MkdirAll(sub, 0o755)
	if r := cuff(t, sub, "", "record", "list"); !strings.Contains(r.stdout, ids[0]) {
		t.Errorf("walk up: %+v", r)
	}
}

func TestRecordCleanFollowsRetentionSetting(t *testing.T) {
	dir, _ := project(t)
	os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"), []byte("recording:\n  retention_days: 0\n"), 0o600)
	r := cuff(t, dir, "", "record", "clean", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, "retention_days is 0") {
		t.Errorf("%+v", r)
	}
	os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"), []byte("recording:\n  retention_days: -3\n"), 0o600)
	r = cuff(t, dir, "", "record", "list")
	if r.code == 0 || !strings.Contains(r.stderr, "settings.yml:2") || !strings.Contains(r.stderr, "retention_days") {
		t.Errorf("bad settings: %+v", r)
	}
}
