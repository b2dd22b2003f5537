package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestErrorsNameFileLineAndExpectation(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"enum", "recording:\n  enabled: true\n  session_mode: weekly\n",
			`.cuff/settings.yml:3: recording.session_mode: "weekly" is not one of per_conversation, per_day, continuous`},
		{"typo with suggestion", "recording:\n  sesion_mode: per_day\n",
			`.cuff/settings.yml:2: recording.sesion_mode: unknown key (did you mean session_mode?)`},
		{"other spelling", "execution:\n  defaultTimeout: 5\n",
			`.cuff/settings.yml:2: execution.defaultTimeout: unknown key (did you mean default_timeout?)`},
		{"key in the wrong section", "session_mode: per_day\n",
			`.cuff/settings.yml:1: session_mode: unknown key here (did you mean recording.session_mode?)`},
		{"ambiguous key in the wrong section", "tui:\n  default_timeout: 5\n",
			`.cuff/settings.yml:2: tui.default_timeout: unknown key here (did you mean execution.default_timeout or scripts.default_timeout?)`},
		{"unknown key without suggestion", "gate:\n  colour: red\n",
			`.cuff/settings.yml:2: gate.colour: unknown key; expected one of mode, cop, hooks, sandbox, allow_answer`},
		{"unknown section", "zzz: 1\n",
			`.cuff/settings.yml:1: zzz: unknown key; expected one of recording, execution, redaction, gate, approvals, scripts, sandbox, sources, tui, plugins`},
		{"bool", "recording:\n  enabled: yes\n",
			`.cuff/settings.yml:2: recording.enabled: expected true or false, got "yes"`},
		{"empty value", "sources:\n  claude:\n",
			`.cuff/settings.yml:2: sources.claude: expected true or false, got null`},
		{"negative retention", "recording:\n  retention_days: -1\n",
			`.cuff/settings.yml:2: recording.retention_days: must be 0 or more, got -1`},
		{"quoted number", "recording:\n  retention_days: \"30\"\n",
			`.cuff/settings.yml:2: recording.retention_days: expected a whole number, got "30"`},
		{"zero output size", "recording:\n  max_output_size: 0\n",
			`.cuff/settings.yml:2: recording.max_output_size: must be more than 0 bytes, got 0`},
		{"bad output size", "recording:\n  max_output_size: lots\n",
			`.cuff/settings.yml:2: recording.max_output_size: expected a number of bytes or a size such as "512KB" or "1MiB", got "lots"`},
		{"zero max_output_kb", "execution:\n  max_output_kb: 0\n",
			`.cuff/settings.yml:2: execution.max_output_kb: must be a positive number of kilobytes, got 0`},
		{"capture mode", "recording:\n  capture_output: both\n",
			`.cuff/settings.yml:2: recording.capture_output: "both" is not one of true, false, all, stdout, stderr, none`},
		{"zero timeout", "execution:\n  default_timeout: 0\n",
			`.cuff/settings.yml:2: execution.default_timeout: must be positive, got 0`},
		{"negative timeout", "approvals:\n  timeout: -5s\n",
			`.cuff/settings.yml:2: approvals.timeout: must be positive, got "-5s"`},
		{"bad timeout", "gate:\n  cop:\n    timeout: soon\n",
			`.cuff/settings.yml:3: gate.cop.timeout: expected a number of seconds or a duration such as "90s" or "5m", got "soon"`},
		{"negative cache ttl", "scripts:\n  cache_ttl: -1\n",
			`.cuff/settings.yml:2: scripts.cache_ttl: must be 0 or more, got -1`},
		{"default above max", "execution:\n  max_timeout: 600\n  default_timeout: 900\n",
			`.cuff/settings.yml:3: execution.default_timeout: execution.default_timeout (900s) is more than execution.max_timeout (600s); raise max_timeout or lower default_timeout`},
		{"max below default", "execution:\n  max_timeout: 60\n",
			`.cuff/settings.yml:2: execution.max_timeout: execution.default_timeout (120s) is more than execution.max_timeout (60s); raise max_timeout or lower default_timeout`},
		{"max_concurrent", "execution:\n  max_concurrent: 0\n",
			`.cuff/settings.yml:2: execution.max_concurrent: must be a positive number, got 0`},
		{"limit", "execution:\n  limits:\n    memory_mb: 0\n",
			`.cuff/settings.yml:3: execution.limits.memory_mb: must be a positive number, or null for no limit, got 0`},
		{"shell null", "execution:\n  shell: null\n",
			`.cuff/settings.yml:2: execution.shell: expected a string, got null`},
		{"shell empty", "execution:\n  shell: \"\"\n",
			`.cuff/settings.yml:2: execution.shell: must not be empty`},
		{"env mode", "execution:\n  environment:\n    mode: copy\n",
			`.cuff/settings.yml:3: execution.environment.mode: "copy" is not one of inherit, replace, merge`},
		{"gate mode", "gate:\n  mode: lax\n",
			`.cuff/settings.yml:2: gate.mode: "lax" is not one of strict, taint`},
		{"no_watcher", "approvals:\n  no_watcher: maybe\n",
			`.cuff/settings.yml:2: approvals.no_watcher: "maybe" is not one of allow, ask, deny`},
		{"mcp_no_watcher", "approvals:\n  mcp_no_watcher: 1\n",
			`.cuff/settings.yml:2: approvals.mcp_no_watcher: 1 is not one of allow, ask, deny`},
		{"theme", "tui:\n  theme: solarized\n",
			`.cuff/settings.yml:2: tui.theme: "solarized" is not one of auto, dark, light`},
		{"regexp", "redaction:\n  patterns:\n    - 'ok'\n    - 'sk-['\n",
			".cuff/settings.yml:4: redaction.patterns: item 2 \"sk-[\" does not compile: missing closing ]: `[`"},
		{"glob", "scripts:\n  patterns: [\"scripts/[a\"]\n",
			`.cuff/settings.yml:2: scripts.patterns: item 1 "scripts/[a" is not a valid glob pattern`},
		{"list expected", "recording:\n  env_allowlist: PATH\n",
			`.cuff/settings.yml:2: recording.env_allowlist: expected a list of strings, got "PATH"`},
		{"list item", "recording:\n  env_allowlist:\n    - PATH\n    - {a: b}\n",
			`.cuff/settings.yml:4: recording.env_allowlist: item 2: expected a string, got a mapping`},
		{"env pattern", "recording:\n  env_allowlist: [\"MY VAR\"]\n",
			`.cuff/settings.yml:2: recording.env_allowlist: item 1 "MY VAR" is not a variable name or a glob of names such as LC_*`},
		{"override name", "execution:\n  environment:\n    overrides:\n      BAD-NAME: x\n",
			`.cuff/settings.yml:4: execution.environment.overrides: key "BAD-NAME" is not an environment variable name (letters, digits and _)`},
		{"interpreter extension", "scripts:\n  interpreters:\n    py: python3\n",
			`.cuff/settings.yml:3: scripts.interpreters: key "py" should be a file extension starting with a dot, such as ".py"`},
		{"empty interpreter", "scripts:\n  interpreters:\n    .py: \"\"\n",
			`.cuff/settings.yml:3: scripts.interpreters: .py: value is empty`},
		{"empty glob", "scripts:\n  exclude: [\"\"]\n",
			`.cuff/settings.yml:2: scripts.exclude: item 1 "" is empty; expected a glob pattern`},
		{"empty hook", "gate:\n  hooks: [\" \"]\n",
			`.cuff/settings.yml:2: gate.hooks: item 1 " " is empty`},
		{"map value", "scripts:\n  environment:\n    A: [1]\n",
			`.cuff/settings.yml:3: scripts.environment: A: expected a string, got a list`},
		{"mapping expected", "recording: true\n",
			`.cuff/settings.yml:1: recording: expected a mapping of keys, got true`},
		{"duplicate key", "tui:\n  theme: dark\n  theme: light\n",
			`.cuff/settings.yml:3: tui.theme: set twice (first on line 2)`},
		{"duplicate section", "tui:\n  theme: dark\ntui:\n  theme: light\n",
			`.cuff/settings.yml:3: tui: set twice (first on line 1)`},
		{"same key two spellings", "recording:\n  max_output_size: 100\nexecution:\n  max_output_kb: 1\n",
			`.cuff/settings.yml:4: execution.max_output_kb: set twice: line 2 already sets it as recording.max_output_size`},
		{"same key via plugin", "scripts:\n  cache_ttl: 1\nplugins:\n  scripts:\n    config:\n      cache_ttl: 2\n",
			`.cuff/settings.yml:6: plugins.scripts.config.cache_ttl: set twice: line 2 already sets it as scripts.cache_ttl`},
		{"unknown plugin", "plugins:\n  makefile:\n    enabled: true\n",
			`.cuff/settings.yml:2: plugins.makefile: unknown plugin; cuff reads bash_recorder and scripts`},
		{"plugin typo", "plugins:\n  script: {}\n",
			`.cuff/settings.yml:2: plugins.script: unknown plugin (did you mean scripts?)`},
		{"plugin key", "plugins:\n  scripts:\n    configs: {}\n",
			`.cuff/settings.yml:3: plugins.scripts.configs: unknown key (did you mean config?)`},
		{"plugin enabled", "plugins:\n  scripts:\n    enabled: on\n",
			`.cuff/settings.yml:3: plugins.scripts.enabled: expected true or false, got "on"`},
		{"bash_recorder section", "plugins:\n  bash_recorder:\n    config:\n      gate: {}\n",
			`.cuff/settings.yml:4: plugins.bash_recorder.config.gate: unknown key; expected one of recording, execution`},
		{"bash_recorder value", "plugins:\n  bash_recorder:\n    config:\n      recording:\n        session_mode: weekly\n",
			`.cuff/settings.yml:5: plugins.bash_recorder.config.recording.session_mode: "weekly" is not one of per_conversation, per_day, continuous`},
		{"not a mapping", "- recording\n",
			`.cuff/settings.yml:1: expected a mapping of settings sections such as recording: and execution:, got a list`},
		{"non-name key", "[a, b]: 1\n",
			`.cuff/settings.yml:1: keys must be plain names, got a list`},
		{"yaml syntax", "recording:\n  enabled: true\n bad: [\n",
			`.cuff/settings.yml:2: invalid YAML: did not find expected key`},
		{"two documents", "tui: {theme: dark}\n---\ntui: {theme: light}\n",
			`.cuff/settings.yml:2: invalid YAML: only one YAML document is allowed; remove the extra "---"`},
		{"tabs", "recording:\n\tenabled: true\n",
			`.cuff/settings.yml:2: invalid YAML: found character that cannot start any token`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(".cuff/settings.yml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("accepted:\n%s", c.yaml)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got: %s\nwant: %s", err, c.want)
			}
		})
	}
}

func TestAllProblemsAreReported(t *testing.T) {
	_, err := Parse("s.yml", []byte("recording:\n  enabled: 1\n  session_mode: x\ntui:\n  theme: y\n"))
	want := `s.yml:2: recording.enabled: expected true or false, got 1
s.yml:3: recording.session_mode: "x" is not one of per_conversation, per_day, continuous
s.yml:5: tui.theme: "y" is not one of auto, dark, light`
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
	var se *Error
	if !errors.As(err, &se) || se.File != "s.yml" || se.Line != 2 || se.Key != "recording.enabled" {
		t.Errorf("first error as *Error: %+v", se)
	}

	many := strings.Repeat("tui: {theme: x}\n", 1) + "recording:\n" + strings.Repeat("  zz: 1\n", 50)
	_, err = Parse("s.yml", []byte(many))
	if n := strings.Count(err.Error(), "\n") + 1; n != maxErrors {
		t.Errorf("reported %d problems, want the first %d", n, maxErrors)
	}
}

func TestLoadErrorsNameTheirFile(t *testing.T) {
	dir := t.TempDir()
	user := writeFile(t, dir, "user.yml", "execution:\n  max_timeout: 60\n")
	project := writeFile(t, dir, "project.yml", "tui:\n  theme: dark\n")
	_, err := Load(project, user)
	want := user + ":2: execution.max_timeout: execution.default_timeout (120s) is more than execution.max_timeout (60s); raise max_timeout or lower default_timeout"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}

	// The project file can repair what the user file broke.
	fixed := writeFile(t, dir, "fixed.yml", "execution:\n  default_timeout: 30\n")
	if _, err := Load(fixed, user); err != nil {
		t.Errorf("project default_timeout below user max_timeout: %v", err)
	}

	both := writeFile(t, dir, "both.yml", "tui: {theme: x}\n")
	bad := writeFile(t, dir, "bad.yml", "gate: {mode: x}\n")
	_, err = Load(both, bad)
	want = bad + `:1: gate.mode: "x" is not one of strict, taint` + "\n" + both + `:1: tui.theme: "x" is not one of auto, dark, light`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestLoadUnreadableFile(t *testing.T) {
	dir := t.TempDir()
	for name, make := range map[string]func(string) error{
		"a directory":         func(p string) error { return os.Mkdir(p, 0o700) },
		"a named pipe (FIFO)": func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"a device":            func(p string) error { return os.Symlink("/dev/zero", p) }, // a link is followed, to a device
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yml")
		if err := make(p); err != nil {
			t.Fatal(err)
		}
		_, err := Load(p, "")
		want := "read settings: " + p + " is " + name + ", not a regular file: cuff refuses it as its settings file"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("got %v, want %s…", err, want)
		}
	}
	big := filepath.Join(dir, "big.yml")
	os.WriteFile(big, nil, 0o600)
	os.Truncate(big, MaxFileBytes+1)
	if _, err := Load(big, ""); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("a settings file over the limit: %v", err)
	}
}
