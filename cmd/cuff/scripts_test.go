package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scriptProject is a git project with files (path → content; "#!" content
// is made executable) and .cuff/settings.yml holding settingsYAML.
func scriptProject(t *testing.T, settingsYAML string, files map[string]string) string {
	t.Helper()
	dir := gitProject(t)
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(full, mode); err != nil {
			t.Fatal(err)
		}
	}
	if settingsYAML != "" {
		if err := os.MkdirAll(filepath.Join(dir, ".cuff"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".cuff", "settings.yml"), []byte(settingsYAML), 0o600); err != nil {
			t.Fatal(err)
		}
		trustProject(t, dir) // exposing scripts loosens the gate: it counts once trusted
	}
	return dir
}

// newestRun is `cuff runs show ID --json` of the newest run.
func newestRun(t *testing.T, dir string) map[string]any {
	t.Helper()
	rows := runsJSON(t, dir)
	if len(rows) == 0 {
		t.Fatal("nothing recorded")
	}
	r := cuff(t, dir, "", "runs", "show", rows[0]["id"].(string), "--json")
	var ev map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &ev); err != nil {
		t.Fatalf("runs show: %v\n%s%s", err, r.stdout, r.stderr)
	}
	return ev
}

func TestScriptsListShowsToolNamesInterpretersAndDescriptions(t *testing.T) {
	dir := scriptProject(t, `scripts:
  patterns: ["scripts/*.sh", "scripts/*.py", "tools/**/*.ts"]
  exclude: ["**/internal_*"]
  interpreters: {".ts": "npx ts-node"}
`, map[string]string{
		"scripts/build.sh":       "#!/bin/bash\n# Build the project\nmake\n",
		"scripts/deploy-prod.sh": "echo deploying\n",
		"scripts/internal_x.sh":  "#!/bin/sh\n",
		"scripts/migrate.py":     "#!/usr/bin/env python3\n# Migrate the database\n",
		"scripts/migrate.sh":     "#!/bin/sh\n",
		"tools/web/serve.ts":     "// serve\n",
	})
	r := cuff(t, dir, "", "scripts", "list")
	if r.code != 0 {
		t.Fatalf("list: %+v", r)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	want := [][]string{
		{"NAME", "PATH", "INTERPRETER", "DESCRIPTION"},
		{"script_scripts_build", "scripts/build.sh", "/bin/bash", "Build", "the", "project"},
		{"script_scripts_deploy_prod", "scripts/deploy-prod.sh", "/bin/sh", "Run", "scripts/deploy-prod.sh"},
		{"script_tools_web_serve", "tools/web/serve.ts", "npx", "ts-node", "Run", "tools/web/serve.ts"},
	}
	if len(lines) != len(want) {
		t.Fatalf("table:\n%s", r.stdout)
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("row %d: %q, want %q", i, got, w)
		}
	}
	for _, s := range []string{
		"warning: Script 'scripts/deploy-prod.sh' has no shebang line - interpreter will be guessed",
		"conflict: Scripts 'scripts/migrate.py' and 'scripts/migrate.sh' map to the same tool name script_scripts_migrate",
	} {
		if !strings.Contains(r.stderr, s) {
			t.Errorf("stderr lacks %q:\n%s", s, r.stderr)
		}
	}

	r = cuff(t, dir, "", "scripts", "list", "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("json: %v\n%s", err, r.stdout)
	}
	if rows[0]["name"] != "script_scripts_build" || rows[0]["interpreter"] != "/bin/bash" || rows[0]["description"] != "Build the project" {
		t.Errorf("json row %v", rows[0])
	}

	r = cuff(t, dir, "", "scripts", "list", "--pattern", "scripts/build.sh", "--format", "json")
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 {
		t.Errorf("--pattern: %s", r.stdout)
	}
	r = cuff(t, dir, "", "scripts", "list", "--format", "yaml")
	if r.code != exitUsage || !strings.Contains(r.stderr, `unknown format "yaml"`) {
		t.Errorf("bad format: %+v", r)
	}
	r = cuff(t, dir, "", "scripts", "list", "--pattern", "../*.sh")
	if r.code != exitError || !strings.Contains(r.stderr, "leaves the base directory") || !strings.Contains(r.stderr, "Hint:") {
		t.Errorf("bad pattern: %+v", r)
	}
}

func TestScriptsListWithoutPatternsSaysWhatDiscoveryFound(t *testing.T) {
	dir := scriptProject(t, "", map[string]string{"scripts/build.sh": "#!/bin/sh\n", "deploy.sh": "#!/bin/sh\n"})
	r := cuff(t, dir, "", "scripts", "list")
	if r.code != 0 || strings.Count(r.stdout, "\n") != 1 ||
		!strings.Contains(r.stderr, "scripts.patterns is empty") || !strings.Contains(r.stderr, `["scripts/*.sh", "*.sh"]`) {
		t.Errorf("no patterns: %+v", r)
	}
}

func TestScriptsRunRecordsTheRunAndExitsWithTheScriptsCode(t *testing.T) {
	// One session for all the runs: by default runs without a conversation
	// go to the day's session, and runs on both sides of midnight to two.
	dir := scriptProject(t, `scripts:
  patterns: ["scripts/*.sh"]
  environment: {CI: "true", PYTHONPATH: ./src}
recording:
  session_mode: continuous
`, map[string]string{
		"scripts/show.sh": "#!/bin/sh\n# Show things\necho \"args=$* CI=$CI PYTHONPATH=$PYTHONPATH LEVEL=$LEVEL\"\n",
		"scripts/fail.sh": "#!/bin/sh\necho failing >&2\nexit 3\n",
	})
	r := cuff(t, dir, "", "scripts", "run", "script_scripts_show", "--env", "LEVEL=debug", "--", "a", "--verbose")
	if r.code != 0 || r.stdout != "args=a --verbose CI=true PYTHONPATH=./src LEVEL=debug\n" {
		t.Fatalf("run: %+v", r)
	}
	ev := newestRun(t, dir)
	if ev["description"] != "script script_scripts_show" || ev["command"] != "/bin/sh ./scripts/show.sh a --verbose" ||
		ev["exit_code"] != 0.0 || ev["timeout_seconds"] != 300.0 {
		t.Errorf("recorded %v", ev)
	}
	// by path, failing
	r = cuff(t, dir, "", "scripts", "run", "scripts/fail.sh")
	if r.code != 3 || !strings.Contains(r.stderr, "failing\n") || !strings.Contains(r.stderr, "cuff: Script failed with exit code 3") {
		t.Errorf("failing script: %+v", r)
	}
	if ev := newestRun(t, dir); ev["exit_code"] != 3.0 || ev["stderr"] != "failing\n" {
		t.Errorf("recorded %v", ev)
	}
	r = cuff(t, dir, "", "record", "list", "--format", "json")
	var sessions []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &sessions); err != nil || len(sessions) != 1 || sessions[0]["agent"] != "cuff-scripts" {
		t.Errorf("session: %v %s", err, r.stdout)
	}
	r = cuff(t, dir, "", "scripts", "run")
	if r.code != exitUsage || !strings.Contains(r.stderr, "missing the script") {
		t.Errorf("no name: %+v", r)
	}
	r = cuff(t, dir, "", "scripts", "run", "script_scripts_show", "--env", "NOEQUALS")
	if r.code != exitUsage {
		t.Errorf("bad --env: %+v", r)
	}
}

// Every error of the scripts plugin's error table, through a real cuff
// process, each refusal recorded with its code.
func TestScriptsRunErrorTable(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "evil.sh"), []byte("#!/bin/sh\necho escaped\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := scriptProject(t, `scripts:
  patterns: ["scripts/*"]
  exclude: ["scripts/internal_*"]
`, map[string]string{
		"scripts/ok.sh":         "#!/bin/sh\necho ok\n",
		"scripts/plain":         "echo no interpreter and no execute bit\n",
		"scripts/slow.sh":       "#!/bin/sh\necho started\nsleep 30\n",
		"scripts/fail.sh":       "#!/bin/sh\nexit 4\n",
		"scripts/internal_x.sh": "#!/bin/sh\n",
		"other/x.sh":            "#!/bin/sh\n",
	})
	if err := os.Symlink(filepath.Join(outside, "evil.sh"), filepath.Join(dir, "scripts", "evil.sh")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"script not found", []string{"scripts/missing.sh"}, 127, "Error: Script not found: scripts/missing.sh"},
		{"unknown tool name", []string{"script_nope"}, 127, "Error: Script not found: script_nope"},
		{"permission denied", []string{"scripts/plain"}, 126, "Error: Permission denied: scripts/plain"},
		{"timeout", []string{"scripts/slow.sh", "--timeout", "1"}, 124, "cuff: Script timed out after 1 seconds"},
		{"non-zero exit", []string{"script_scripts_fail"}, 4, "cuff: Script failed with exit code 4"},
		{"pattern mismatch", []string{"other/x.sh"}, 125, "Error: Script not in allowed patterns: other/x.sh"},
		{"excluded", []string{"scripts/internal_x.sh"}, 125, "Error: Script is excluded: scripts/internal_x.sh"},
		{"path traversal", []string{"../../etc/passwd"}, 125, "Error: Path traversal detected: ../../etc/passwd"},
		{"dangerous arguments", []string{"script_scripts_ok", "--", "a", "x; rm -rf ~"}, 125, "Error: Argument contains dangerous characters: {';', '~'}"},
		{"blocked env var", []string{"script_scripts_ok", "--env", "LD_PRELOAD=/tmp/x.so", "--env", "PATH=/tmp"}, 125, "Error: Blocked environment variables: {'LD_PRELOAD', 'PATH'}"},
		{"symlink escape", []string{"scripts/evil.sh"}, 125, "Error: Script resolves outside base directory: scripts/evil.sh"},
		{"symlink escape by name", []string{"script_scripts_evil"}, 125, "Error: Script resolves outside base directory: scripts/evil.sh"},
	}
	for _, c := range cases {
		r := cuff(t, dir, "", append([]string{"scripts", "run"}, c.args...)...)
		if r.code != c.code || !strings.Contains(r.stderr, c.msg+"\n") || c.code != 4 && !strings.Contains(r.stderr, "Hint: ") {
			t.Errorf("%s: code %d (want %d)\nstderr %q\nwant %q", c.name, r.code, c.code, r.stderr, c.msg)
		}
		if strings.Contains(r.stdout, "escaped") {
			t.Errorf("%s: the outside script ran", c.name)
		}
		ev := newestRun(t, dir)
		if ev["exit_code"] == 0.0 {
			t.Errorf("%s: recorded as a success: %v", c.name, ev)
		}
		if c.code == 125 || c.code == 127 || c.code == 126 {
			if e, _ := ev["error"].(map[string]any); e == nil || !strings.HasPrefix(c.msg, "Error: "+e["message"].(string)) {
				t.Errorf("%s: refusal not recorded with its message: %v", c.name, ev["error"])
			}
		}
	}
	if rows := runsJSON(t, dir); len(rows) != len(cases) {
		t.Errorf("%d runs recorded, want %d", len(rows), len(cases))
	}
}

func TestScriptsDryRunRunsAndRecordsNothing(t *testing.T) {
	dir := scriptProject(t, "scripts:\n  patterns: [\"*.sh\"]\n  default_timeout: 42\n", map[string]string{
		"touch.sh": "#!/bin/sh\ntouch ran\n",
	})
	r := cuff(t, dir, "", "scripts", "run", "script_touch", "--dry-run", "--", "x")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "/bin/sh ./touch.sh x\n") || !strings.Contains(r.stdout, "timeout: 42 seconds") {
		t.Errorf("dry run: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("dry run ran the script")
	}
	r = cuff(t, dir, "", "scripts", "run", "script_touch", "--dry-run", "--", "$x")
	if r.code != 125 || !strings.Contains(r.stderr, "Argument contains dangerous characters: {'$'}") {
		t.Errorf("dry run of a refused request: %+v", r)
	}
	if rows := runsJSON(t, dir); len(rows) != 0 {
		t.Errorf("dry run recorded %v", rows)
	}
}

func TestScriptsSettingsKeys(t *testing.T) {
	dir := scriptProject(t, `plugins:
  scripts:
    enabled: true
    config:
      patterns: ["*.task", "*.sh"]
      base_directory: ops
      working_directory: run
      require_executable: true
      interpreters: {".task": "/bin/sh -e"}
      environment: {WHERE: ops}
`, map[string]string{
		"ops/hello.task": "#!/bin/sh\necho \"hello $WHERE from ${PWD##*/}\"\n",
		"ops/plain.sh":   "echo not executable\n",
		"ops/run/.keep":  "",
	})
	r := cuff(t, dir, "", "scripts", "run", "script_hello")
	if r.code != 0 || r.stdout != "hello ops from run\n" {
		t.Errorf("nested settings: %+v", r)
	}
	r = cuff(t, dir, "", "scripts", "run", "plain.sh")
	if r.code != 126 || !strings.Contains(r.stderr, "Permission denied: plain.sh") || !strings.Contains(r.stderr, "chmod +x plain.sh") {
		t.Errorf("require_executable: %+v", r)
	}
	disabled := scriptProject(t, "plugins:\n  scripts:\n    enabled: false\n    config:\n      patterns: [\"*.sh\"]\n", map[string]string{"a.sh": "#!/bin/sh\n"})
	r = cuff(t, disabled, "", "scripts", "list")
	if r.code != exitError || !strings.Contains(r.stderr, "scripts are disabled") {
		t.Errorf("disabled: %+v", r)
	}
	bad := scriptProject(t, "scripts:\n  patterns: [\"*.sh\"]\n  base_directory: nowhere\n", nil)
	r = cuff(t, bad, "", "scripts", "run", "x")
	if r.code != exitError || !strings.Contains(r.stderr, `scripts.base_directory "nowhere" is not a directory`) {
		t.Errorf("missing base directory: %+v", r)
	}
}
