package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/internal/settings"
)

func TestInitCreatesThePrivateStoreSettingsAndGitignore(t *testing.T) {
	dir := gitProject(t)
	sub := filepath.Join(dir, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	r := cuff(t, sub, "", "init") // from a subfolder: the git root is the project
	if r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	store := filepath.Join(dir, ".cuff")
	fi, err := os.Stat(store)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf(".cuff: %v %v", fi, err)
	}
	file := filepath.Join(store, "settings.yml")
	fi, err = os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings.yml: %v %v", fi, err)
	}
	data, _ := os.ReadFile(file)
	if string(data) != string(settings.DefaultYAML()) {
		t.Error("settings.yml is not the default file (no scripts were found)")
	}
	if _, err := settings.Load(file, ""); err != nil {
		t.Errorf("written settings do not load: %v", err)
	}
	gi, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if strings.Count(string(gi), ".cuff/\n") != 1 {
		t.Errorf(".gitignore: %q", gi)
	}
	for _, s := range []string{"created .gitignore", "No scripts found", "What next", "cuff exec", "cuff hook install claude"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("output lacks %q:\n%s", s, r.stdout)
		}
	}

	// Again: idempotent, nothing duplicated, the settings kept.
	if err := os.WriteFile(file, []byte("recording:\n  retention_days: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(store, 0o755); err != nil {
		t.Fatal(err)
	}
	r = cuff(t, dir, "", "init")
	if r.code != 0 || !strings.Contains(r.stdout, "kept .cuff/settings.yml") || !strings.Contains(r.stdout, "already ignores .cuff/") {
		t.Errorf("second init: %+v", r)
	}
	gi2, _ := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if string(gi2) != string(gi) {
		t.Errorf(".gitignore changed: %q", gi2)
	}
	if data, _ := os.ReadFile(file); string(data) != "recording:\n  retention_days: 7\n" {
		t.Errorf("settings overwritten without --force: %q", data)
	}
	if fi, _ := os.Stat(store); fi.Mode().Perm() != 0o700 {
		t.Errorf("looser store not tightened: %v", fi.Mode())
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("looser settings not tightened: %v", fi.Mode())
	}

	// --force replaces it and keeps a backup.
	r = cuff(t, dir, "", "init", "--force")
	if r.code != 0 || !strings.Contains(r.stdout, "replaced .cuff/settings.yml") {
		t.Fatalf("--force: %+v", r)
	}
	if data, _ := os.ReadFile(file); string(data) != string(settings.DefaultYAML()) {
		t.Error("--force did not write the defaults")
	}
	backups, _ := filepath.Glob(filepath.Join(store, "settings.yml.*.bak"))
	if len(backups) != 1 {
		t.Fatalf("backups %v", backups)
	}
	if data, _ := os.ReadFile(backups[0]); string(data) != "recording:\n  retention_days: 7\n" {
		t.Errorf("backup holds %q", data)
	}
}

func TestInitKeepsAnExistingGitignoreAndItsLastLine(t *testing.T) {
	dir := gitProject(t)
	gi := filepath.Join(dir, ".gitignore")
	if err := os.WriteFile(gi, []byte("node_modules/\n*.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := cuff(t, dir, "", "init"); r.code != 0 || !strings.Contains(r.stdout, "added .cuff/ to .gitignore") {
		t.Fatalf("init: %+v", r)
	}
	data, _ := os.ReadFile(gi)
	if !strings.HasPrefix(string(data), "node_modules/\n*.log\n") || !strings.HasSuffix(string(data), "\n.cuff/\n") {
		t.Errorf(".gitignore: %q", data)
	}
	// A project that already ignores /.cuff gets no second line.
	other := gitProject(t)
	if err := os.WriteFile(filepath.Join(other, ".gitignore"), []byte("/.cuff\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cuff(t, other, "", "init")
	if data, _ := os.ReadFile(filepath.Join(other, ".gitignore")); string(data) != "/.cuff\n" {
		t.Errorf("duplicated: %q", data)
	}
}

func TestInitPrintWritesNothing(t *testing.T) {
	dir := gitProject(t)
	r := cuff(t, dir, "", "init", "--print")
	if r.code != 0 || r.stdout != string(settings.DefaultYAML()) {
		t.Errorf("--print: code %d, %d bytes", r.code, len(r.stdout))
	}
	for _, p := range []string{".cuff", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("--print created %s", p)
		}
	}
}

func TestInitDiscoversScriptsAndPrintsEveryWarning(t *testing.T) {
	dir := scriptProject(t, "", map[string]string{
		"scripts/build.sh":          "#!/bin/bash\n# Build the project\n",
		"scripts/deploy_secrets.sh": "#!/bin/sh\necho deploying\n",
		"scripts/db-migrate.sh":     "#!/bin/sh\n",
		"scripts/db_migrate.py":     "#!/usr/bin/env python3\n",
		"tools/backup.sh":           "echo no shebang\n",
		"bin/blob.sh":               "\x7fELF\x00\x00",
		"open.sh":                   "#!/bin/sh\n",
	})
	if err := os.Chmod(filepath.Join(dir, "open.sh"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("build.sh", filepath.Join(dir, "scripts", "alias.sh")); err != nil {
		t.Fatal(err)
	}
	r := cuff(t, dir, "", "init")
	if r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	for _, s := range []string{
		"[+] scripts: Found 8 scripts",
		"Warning: Script 'scripts/deploy_secrets.sh' may contain sensitive operations - review before enabling",
		"Warning: Script 'tools/backup.sh' has no shebang line - interpreter will be guessed",
		"Warning: Script 'bin/blob.sh' appears to be binary - verify this is intentional",
		"Warning: SECURITY: Script 'open.sh' is world-writable - this allows any user to modify the script",
		"Warning: Script 'scripts/alias.sh' is a symlink - target will be validated at runtime",
		"Conflict: Scripts 'scripts/db-migrate.sh' and 'scripts/db_migrate.py' map to the same tool name script_scripts_db_migrate",
		`scripts.patterns: ["scripts/*.sh", "scripts/*.py", "bin/*.sh", "tools/*.sh", "*.sh"]`,
		"Excluded until reviewed (remove from scripts.exclude to expose): bin/blob.sh, open.sh, scripts/deploy_secrets.sh",
	} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("init output lacks %q:\n%s", s, r.stdout)
		}
	}
	// The written settings expose the reviewed scripts only.
	data, _ := os.ReadFile(filepath.Join(dir, ".cuff", "settings.yml"))
	cfg, err := settings.Parse("settings.yml", data)
	if err != nil || len(cfg.Scripts.Patterns) != 5 || len(cfg.Scripts.Exclude) != 3 {
		t.Fatalf("settings: %v %+v", err, cfg.Scripts)
	}
	r = cuff(t, dir, "", "scripts", "list", "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, row := range rows {
		got = append(got, row["path"].(string))
	}
	if strings.Join(got, " ") != "scripts/alias.sh scripts/build.sh tools/backup.sh" {
		t.Errorf("exposed after init: %v", got)
	}
	r = cuff(t, dir, "", "scripts", "run", "scripts/deploy_secrets.sh")
	if r.code != 125 || !strings.Contains(r.stderr, "Script is excluded: scripts/deploy_secrets.sh") {
		t.Errorf("a script under review ran: %+v", r)
	}

	// A second init keeps the settings and reports on the configured scripts.
	r = cuff(t, dir, "", "init")
	if r.code != 0 || !strings.Contains(r.stdout, "configured scripts") || !strings.Contains(r.stdout, ": 3 exposed") {
		t.Errorf("second init: %+v", r)
	}
}

func TestInitQuotesGlobCharactersOfExcludedPaths(t *testing.T) {
	dir := scriptProject(t, "", map[string]string{"scripts/key[1].sh": "#!/bin/sh\n", "scripts/k.sh": "#!/bin/sh\n"})
	if r := cuff(t, dir, "", "init"); r.code != 0 {
		t.Fatalf("init: %+v", r)
	}
	r := cuff(t, dir, "", "scripts", "list", "--format", "json")
	var rows []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 1 || rows[0]["path"] != "scripts/k.sh" {
		t.Errorf("exposed: %s %s", r.stdout, r.stderr)
	}
}

func TestInitHonoursDir(t *testing.T) {
	dir := gitProject(t)
	elsewhere := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	r := cuff(t, dir, "", "--dir", filepath.Join(elsewhere, ".cuff"), "init")
	if r.code != 0 {
		t.Fatalf("init --dir: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, ".cuff", "settings.yml")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cuff")); err == nil {
		t.Error("created a store in the working directory too")
	}
}

// TestInitAgainDoesNotAskForWhatIsSet: run twice, init does not tell the
// user to set the script patterns the first run already set.
func TestInitAgainDoesNotAskForWhatIsSet(t *testing.T) {
	dir := gitProject(t)
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "scripts", "test.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	first := cuff(t, dir, "", "init")
	if first.code != 0 || !strings.Contains(first.stdout, "Exposed to agents") {
		t.Fatalf("first init: %+v", first)
	}
	again := cuff(t, dir, "", "init")
	if again.code != 0 || strings.Contains(again.stdout, "To expose them") || !strings.Contains(again.stdout, "1 exposed") {
		t.Errorf("second init: %+v", again)
	}
}
