package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDidYouMean: a mistyped command or subcommand names the one meant.
func TestDidYouMean(t *testing.T) {
	dir := gitProject(t)
	for args, want := range map[string]string{
		"recrod":          "Hint: Did you mean 'cuff record'?",
		"exex ls":         "Hint: Did you mean 'cuff exec'?",
		"record shwo 1":   "Hint: Did you mean 'cuff record show'?",
		"runs lsit":       "Hint: Did you mean 'cuff runs list'?",
		"scripts rnu x":   "Hint: Did you mean 'cuff scripts run'?",
		"zzzzzz":          "Hint: Run 'cuff --help' to see the commands",
		"record qqqqqqqq": "Hint: cuff record has: ",
	} {
		r := cuff(t, dir, "", strings.Fields(args)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "Did you mean this?") {
			t.Errorf("cuff %s: %+v, want %q", args, r, want)
		}
	}
}

// TestScriptsRunByShortName: the name a person reads in scripts list runs
// the script; a bare word that names none says so.
func TestScriptsRunByShortName(t *testing.T) {
	dir := scriptProject(t, "scripts:\n  patterns: [\"scripts/*.sh\"]\n", map[string]string{
		"scripts/build.sh": "#!/bin/sh\n# Build it\necho building\n",
	})
	if r := cuff(t, dir, "", "scripts", "list"); !strings.Contains(r.stdout, "script_scripts_build") {
		t.Fatalf("list: %+v", r)
	}
	for _, name := range []string{"build", "scripts_build", "script_scripts_build", "scripts/build.sh"} {
		if r := cuff(t, dir, "", "scripts", "run", name); r.code != 0 || !strings.Contains(r.stdout, "building") {
			t.Errorf("run %s: %+v", name, r)
		}
	}
	if r := cuff(t, dir, "", "scripts", "run", "deploy"); r.code != 127 || !strings.Contains(r.stderr, "Script not found: script_deploy") {
		t.Errorf("run deploy: %+v", r)
	}
}

// TestRunsShowQuotesArgvAsAShell: argv reads as a command line.
func TestRunsShowQuotesArgvAsAShell(t *testing.T) {
	dir := gitProject(t)
	cuff(t, dir, "", "exec", "--", "echo", "hello world", "it's", "$HOME")
	rows := runsJSON(t, dir)
	r := cuff(t, dir, "", "runs", "show", rows[0]["id"].(string))
	if !strings.Contains(r.stdout, `Argv: echo 'hello world' "it's" '$HOME'`+"\n") {
		t.Errorf("runs show:\n%s", r.stdout)
	}
}

// TestEntriesAreNumbered: record show --entries numbers runs 1, 2, 3.
func TestEntriesAreNumbered(t *testing.T) {
	dir := gitProject(t)
	for _, c := range []string{"true", "false", "true"} {
		cuff(t, dir, "", "exec", "--conversation-id", "c1", "--", c)
	}
	rows := runsJSON(t, dir)
	r := cuff(t, dir, "", "record", "show", "--entries", rows[0]["session_id"].(string))
	got := regexp.MustCompile(`(?m)^  #(\d+) `).FindAllStringSubmatch(r.stdout, -1)
	if len(got) != 3 || got[0][1] != "1" || got[1][1] != "2" || got[2][1] != "3" {
		t.Errorf("entries numbered %v:\n%s", got, r.stdout)
	}
}

// TestEmptyAgentListingTalksAboutTheAgent: no Codex sessions is said in
// Codex's terms, not cuff exec's; the project's listing says what it
// leaves out that the TUI shows.
func TestEmptyAgentListingTalksAboutTheAgent(t *testing.T) {
	dir := gitProject(t)
	r := cuff(t, dir, "", "record", "list", "--source", "codex")
	if r.code != 0 || !strings.Contains(r.stderr, "No Codex sessions found in ") || strings.Contains(r.stderr, "cuff exec") {
		t.Errorf("empty codex listing: %+v", r)
	}
	home := t.TempDir()
	claude := filepath.Join(home, ".claude", "projects", "-elsewhere")
	if err := os.MkdirAll(claude, 0o700); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"user","sessionId":"5b3c8a52-1111-4222-8333-444455556666","cwd":"/elsewhere","uuid":"u1","timestamp":"2025-09-03T00:52:31.000Z","message":{"role":"user","content":"hello"}}` + "\n"
	if err := os.WriteFile(filepath.Join(claude, "5b3c8a52-1111-4222-8333-444455556666.jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	cuff(t, dir, "", "exec", "true")
	r = cuffEnv(t, dir, "", []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config", "XDG_STATE_HOME=" + home + "/.state",
		"XDG_CACHE_HOME=" + home + "/.cache", "TZ=UTC", "NO_COLOR=1", "CUFF_DIR="}, "record", "list")
	if !strings.Contains(r.stderr, "1 Claude Code or Codex session that cuff did not record here not shown") {
		t.Errorf("the project's listing does not say what the TUI adds: %+v", r)
	}
}
