package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// writeFile writes a settings file into a temp dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustParse(t *testing.T, content string) *Settings {
	t.Helper()
	s, err := Parse(".cuff/settings.yml", []byte(content))
	if err != nil {
		t.Fatalf("Parse:\n%s\nerror: %v", content, err)
	}
	return s
}

func TestDefaultsMatchTheDesign(t *testing.T) {
	d := Defaults()
	checks := []struct {
		name      string
		got, want any
	}{
		{"recording.enabled", d.Recording.Enabled, true},
		{"recording.directory", d.Recording.Directory, ".cuff/recordings"},
		{"recording.session_mode", d.Recording.SessionMode, PerConversation},
		{"recording.capture_output", d.Recording.CaptureOutput, CaptureAll},
		{"recording.max_output_size", d.Recording.MaxOutputSize, int64(1000000)},
		{"recording.capture_env", d.Recording.CaptureEnv, false},
		{"recording.env_allowlist", d.Recording.EnvAllowlist, []string{"PATH", "HOME", "USER", "SHELL", "PWD"}},
		{"recording.retention_days", d.Recording.RetentionDays, 30},
		{"execution.default_timeout", d.Execution.DefaultTimeout, 120 * time.Second},
		{"execution.max_timeout", d.Execution.MaxTimeout, 600 * time.Second},
		{"execution.shell", d.Execution.Shell, "/bin/bash"},
		{"execution.use_shell", d.Execution.UseShell, false},
		{"execution.working_directory", d.Execution.WorkingDirectory, ""},
		{"execution.max_concurrent", d.Execution.MaxConcurrent, 4},
		{"execution.environment.mode", d.Execution.Environment.Mode, EnvInherit},
		{"execution.environment.exclude_patterns", d.Execution.Environment.ExcludePatterns, []string{"*_TOKEN", "*_KEY", "*_SECRET", "*_PASSWORD"}},
		{"execution.environment.include", d.Execution.Environment.Include, []string{"PATH", "HOME", "TMP", "TEMP"}},
		{"execution.environment.overrides", d.Execution.Environment.Overrides, map[string]string{}},
		{"execution.limits", d.Execution.Limits, Limits{}},
		{"redaction", d.Redaction, Redaction{Enabled: true, Patterns: []string{}}},
		{"gate.mode", d.Gate.Mode, GateStrict},
		{"gate.cop", d.Gate.Cop, Cop{Command: "", Timeout: 5 * time.Second}},
		{"gate.hooks", d.Gate.Hooks, []string{}},
		{"approvals", d.Approvals, Approvals{Timeout: 300 * time.Second, NoWatcher: AnswerAsk, MCPNoWatcher: AnswerDeny}},
		{"scripts.base_directory", d.Scripts.BaseDirectory, "."},
		{"scripts.default_timeout", d.Scripts.DefaultTimeout, 300 * time.Second},
		{"scripts.working_directory", d.Scripts.WorkingDirectory, "."},
		{"scripts.expose_list_scripts", d.Scripts.ExposeListScripts, true},
		{"scripts.require_executable", d.Scripts.RequireExecutable, false},
		{"scripts.cache_ttl", d.Scripts.CacheTTL, 300 * time.Second},
		{"sources", d.Sources, Sources{Claude: true, Codex: true}},
		{"tui.theme", d.TUI.Theme, ThemeAuto},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func TestDefaultsAreIndependentCopies(t *testing.T) {
	a := Defaults()
	a.Recording.EnvAllowlist[0] = "CHANGED"
	a.Scripts.Environment["X"] = "1"
	if b := Defaults(); b.Recording.EnvAllowlist[0] != "PATH" || len(b.Scripts.Environment) != 0 {
		t.Error("changing one Defaults() result changed another")
	}
}

func TestDefaultYAMLLoadsBackToDefaults(t *testing.T) {
	s, err := Parse("default.yml", DefaultYAML())
	if err != nil {
		t.Fatalf("DefaultYAML does not load: %v", err)
	}
	if want := Defaults(); !reflect.DeepEqual(s, want) {
		t.Errorf("DefaultYAML loads to\n%+v\nwant\n%+v", s, want)
	}
}

func TestDefaultYAMLSpellsOutEveryKey(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal(DefaultYAML(), &doc); err != nil {
		t.Fatal(err)
	}
	sc := newSchema()
	var found []string
	var walk func(prefix string, n *yaml.Node)
	walk = func(prefix string, n *yaml.Node) {
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := joinPath(prefix, n.Content[i].Value)
			if _, ok := sc.fields[p]; ok {
				found = append(found, p)
				continue
			}
			walk(p, n.Content[i+1])
		}
	}
	walk("", doc.Content[0])
	var want []string
	for p, f := range sc.fields {
		if f.target == f.path {
			want = append(want, p)
		}
	}
	sort.Strings(found)
	sort.Strings(want)
	if !slices.Equal(found, want) {
		t.Errorf("DefaultYAML keys\n%v\nschema keys\n%v", found, want)
	}
	if !strings.HasPrefix(string(DefaultYAML()), "# cuff settings") {
		t.Error("DefaultYAML lost its header comment")
	}
}

func TestLoadWithoutFilesGivesDefaults(t *testing.T) {
	dir := t.TempDir()
	for _, files := range [][2]string{
		{filepath.Join(dir, "missing.yml"), filepath.Join(dir, "nope", "settings.yml")},
		{"", ""},
	} {
		s, err := Load(files[0], files[1])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s, Defaults()) {
			t.Errorf("Load(%q, %q) differs from Defaults()", files[0], files[1])
		}
	}
	empty := writeFile(t, dir, "empty.yml", "# only a comment\n")
	if s, err := Load(empty, ""); err != nil || !reflect.DeepEqual(s, Defaults()) {
		t.Errorf("comment-only file: %v", err)
	}
}

func TestProjectWinsOverUserKeyByKey(t *testing.T) {
	dir := t.TempDir()
	user := writeFile(t, dir, "config/cuff/settings.yml", `
recording:
  retention_days: 7
  env_allowlist: [PATH, VIRTUAL_ENV]
execution:
  environment:
    overrides: {A: "1", B: "2"}
tui:
  theme: dark
approvals:
  no_watcher: deny
`)
	project := writeFile(t, dir, "project/.cuff/settings.yml", `
recording:
  enabled: false
execution:
  environment:
    overrides: {B: "3"}
tui:
  theme: light
`)
	s, err := Load(project, user)
	if err != nil {
		t.Fatal(err)
	}
	if s.Recording.RetentionDays != 7 || s.Recording.Enabled {
		t.Errorf("recording: retention %d (want user's 7), enabled %v (want project's false)",
			s.Recording.RetentionDays, s.Recording.Enabled)
	}
	if !slices.Equal(s.Recording.EnvAllowlist, []string{"PATH", "VIRTUAL_ENV"}) {
		t.Errorf("env_allowlist from user file lost: %v", s.Recording.EnvAllowlist)
	}
	if want := map[string]string{"A": "1", "B": "3"}; !reflect.DeepEqual(s.Execution.Environment.Overrides, want) {
		t.Errorf("overrides: got %v, want %v", s.Execution.Environment.Overrides, want)
	}
	if s.TUI.Theme != ThemeLight || s.Approvals.NoWatcher != AnswerDeny {
		t.Errorf("theme %q (want project's light), no_watcher %q (want user's deny)", s.TUI.Theme, s.Approvals.NoWatcher)
	}
}

func TestSeed000PluginNesting(t *testing.T) {
	s := mustParse(t, `
plugins:
  bash_recorder:
    enabled: true
    type: in_source
    module: opencuff.plugins.builtin.bash_recorder
    config:
      recording:
        enabled: true
        directory: .cuff/recordings
        capture_env: false
        env_allowlist:
          - PATH
          - HOME
          - USER
          - SHELL
          - PWD
          - VIRTUAL_ENV
        capture_output: true
        max_output_size: 5000000  # 5MB
        session_mode: per_conversation
        retention_days: 90

      execution:
        default_timeout: 300
        max_timeout: 600
        working_directory: null
        shell: /bin/bash
        inherit_env: true
        env_overrides:
          CI: "true"
`)
	if got := s.Recording.EnvAllowlist; !slices.Equal(got, []string{"PATH", "HOME", "USER", "SHELL", "PWD", "VIRTUAL_ENV"}) {
		t.Errorf("env_allowlist: %v", got)
	}
	if s.Recording.MaxOutputSize != 5000000 || s.Recording.RetentionDays != 90 {
		t.Errorf("max_output_size %d, retention_days %d", s.Recording.MaxOutputSize, s.Recording.RetentionDays)
	}
	if s.Execution.DefaultTimeout != 300*time.Second || s.Execution.Environment.Mode != EnvInherit {
		t.Errorf("default_timeout %v, mode %q", s.Execution.DefaultTimeout, s.Execution.Environment.Mode)
	}
	if s.Execution.Environment.Overrides["CI"] != "true" {
		t.Errorf("env_overrides not mapped: %v", s.Execution.Environment.Overrides)
	}
	want := Plugin{Enabled: true, Type: "in_source", Module: "opencuff.plugins.builtin.bash_recorder"}
	if s.Plugins["bash_recorder"] != want || !s.PluginEnabled("bash_recorder") {
		t.Errorf("plugin wrapper: %+v", s.Plugins["bash_recorder"])
	}

	minimal := mustParse(t, `
plugins:
  bash_recorder:
    enabled: false
    config:
      recording: {capture_output: false, session_mode: continuous, retention_days: 0}
      execution: {default_timeout: 60, max_timeout: 120, shell: /bin/sh, inherit_env: false}
`)
	if minimal.Recording.CaptureOutput != CaptureNone || minimal.Recording.SessionMode != Continuous ||
		minimal.Execution.Environment.Mode != EnvReplace || minimal.PluginEnabled("bash_recorder") {
		t.Errorf("minimal example: %+v %+v enabled=%v", minimal.Recording, minimal.Execution.Environment, minimal.PluginEnabled("bash_recorder"))
	}
}

func TestSeed002PluginNesting(t *testing.T) {
	s := mustParse(t, `
plugins:
  scripts:
    enabled: true
    type: in_source
    module: opencuff.plugins.builtin.scripts
    config:
      # Glob patterns for scripts to expose (required)
      patterns:
        - "scripts/*.sh"
        - "scripts/*.py"
        - "build/deploy.sh"
        - "tools/**/*.sh"
      base_directory: "."
      exclude:
        - "scripts/internal_*.sh"
        - "**/*_test.sh"
      default_timeout: 300
      working_directory: "."
      environment:
        CI: "true"
        VERBOSE: "1"
      expose_list_scripts: true
      interpreters:
        ".sh": "/bin/bash"
        ".py": "python3"
        ".rb": "ruby"
      require_executable: false
      cache_ttl: 300
`)
	sc := s.Scripts
	if len(sc.Patterns) != 4 || sc.Patterns[3] != "tools/**/*.sh" || len(sc.Exclude) != 2 {
		t.Errorf("patterns %v, exclude %v", sc.Patterns, sc.Exclude)
	}
	if want := map[string]string{".sh": "/bin/bash", ".py": "python3", ".rb": "ruby"}; !reflect.DeepEqual(sc.Interpreters, want) {
		t.Errorf("interpreters %v", sc.Interpreters)
	}
	if want := map[string]string{"CI": "true", "VERBOSE": "1"}; !reflect.DeepEqual(sc.Environment, want) {
		t.Errorf("environment %v", sc.Environment)
	}
	if s.Plugins["scripts"].Module != "opencuff.plugins.builtin.scripts" {
		t.Errorf("plugin wrapper %+v", s.Plugins["scripts"])
	}
}

func TestSeed001Spellings(t *testing.T) {
	s := mustParse(t, `
execution:
  default_timeout_seconds: 300
  max_output_kb: 1024
  use_shell: false
  max_concurrent: 4
  environment:
    mode: merge
    exclude_patterns: ["*_TOKEN"]
    include: [PATH]
  redaction:
    enabled: true
    patterns:
      - "(?i)(secret|password|token)[\\s:=]+['\"]?[^\\s'\"]+['\"]?"
      - "sk-[a-zA-Z0-9]{20,}"
recording:
  capture_output: stderr
`)
	if s.Execution.DefaultTimeout != 300*time.Second || s.Recording.MaxOutputSize != 1024*1024 {
		t.Errorf("default_timeout %v, max_output_size %d", s.Execution.DefaultTimeout, s.Recording.MaxOutputSize)
	}
	if s.Execution.Environment.Mode != EnvMerge || len(s.Redaction.Patterns) != 2 {
		t.Errorf("mode %q, patterns %v", s.Execution.Environment.Mode, s.Redaction.Patterns)
	}
	if c := s.Recording.CaptureOutput; c != CaptureStderr || c.Stdout() || !c.Stderr() {
		t.Errorf("capture_output %q", c)
	}
	for in, want := range map[string]CaptureMode{"true": CaptureAll, "false": CaptureNone, "all": CaptureAll, "stdout": CaptureStdout, "none": CaptureNone} {
		if got := mustParse(t, "recording: {capture_output: "+in+"}").Recording.CaptureOutput; got != want {
			t.Errorf("capture_output %s: got %q, want %q", in, got, want)
		}
	}
}

func TestValueForms(t *testing.T) {
	s := mustParse(t, `
recording:
  max_output_size: 512KiB
execution:
  default_timeout: 1.5
  max_timeout: 10m
  working_directory: ./src
  limits: {memory_mb: 512, cpu_seconds: 60}
gate:
  cop: {command: "cop --json", timeout: 500ms}
  hooks: ["./check.sh"]
scripts:
  cache_ttl: 0
`)
	if s.Recording.MaxOutputSize != 512*1024 || s.Execution.DefaultTimeout != 1500*time.Millisecond ||
		s.Execution.MaxTimeout != 10*time.Minute || s.Execution.WorkingDirectory != "./src" {
		t.Errorf("values: %+v %+v", s.Recording, s.Execution)
	}
	if s.Execution.Limits != (Limits{MemoryMB: 512, CPUSeconds: 60}) || s.Gate.Cop.Timeout != 500*time.Millisecond ||
		s.Gate.Cop.Command != "cop --json" || s.Scripts.CacheTTL != 0 {
		t.Errorf("limits %+v, cop %+v, cache_ttl %v", s.Execution.Limits, s.Gate.Cop, s.Scripts.CacheTTL)
	}

	// YAML anchors and aliases are followed.
	a := mustParse(t, "scripts:\n  environment: &env {LOG: info}\nexecution:\n  environment:\n    overrides: *env\n")
	if a.Execution.Environment.Overrides["LOG"] != "info" {
		t.Errorf("alias not followed: %v", a.Execution.Environment.Overrides)
	}
}

func TestRecordingDir(t *testing.T) {
	r := Recording{Directory: ".cuff/recordings"}
	if got := r.Dir("/p"); got != "/p/.cuff/recordings" {
		t.Errorf("relative: %s", got)
	}
	r.Directory = "/var/log/cuff"
	if got := r.Dir("/p"); got != "/var/log/cuff" {
		t.Errorf("absolute: %s", got)
	}
}

func TestUserFile(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	cases := []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}, "/x/cuff/settings.yml"},
		{map[string]string{"XDG_CONFIG_HOME": "relative", "HOME": "/h"}, "/h/.config/cuff/settings.yml"},
		{map[string]string{"HOME": "/h"}, "/h/.config/cuff/settings.yml"},
		{map[string]string{}, ""},
	}
	for _, c := range cases {
		if got := UserFile(env(c.vars)); got != c.want {
			t.Errorf("UserFile(%v) = %q, want %q", c.vars, got, c.want)
		}
	}
	if got := ProjectFile("/p/.cuff"); got != "/p/.cuff/settings.yml" {
		t.Errorf("ProjectFile = %q", got)
	}
}

func TestParseDurationAndSize(t *testing.T) {
	for in, want := range map[string]time.Duration{"90": 90 * time.Second, "1.5": 1500 * time.Millisecond, "90s": 90 * time.Second, " 5m ": 5 * time.Minute, "0": 0} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "soon", "5 minutes", "NaN", "Inf", "1e300"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
	for in, want := range map[string]int64{"1000000": 1000000, "512KB": 512000, "1MiB": 1 << 20, "1.5 MB": 1500000, "2gib": 2 << 30, "10b": 10} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MB", "lots", "1.2.3KB", "5 TB", "-1", "1e30GiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

// TestSandboxKeys: gate.sandbox takes auto, always or off; sandbox.writable
// remembers which file set it, since only the user's own file may widen
// the sandbox.
func TestSandboxKeys(t *testing.T) {
	if d := Defaults(); d.Gate.Sandbox != SandboxAuto || len(d.Sandbox.Writable) != 0 {
		t.Errorf("defaults: %q %v", d.Gate.Sandbox, d.Sandbox.Writable)
	}
	if s := mustParse(t, "gate:\n  sandbox: always\n"); s.Gate.Sandbox != SandboxAlways {
		t.Errorf("gate.sandbox: %q", s.Gate.Sandbox)
	}
	if _, err := Parse(".cuff/settings.yml", []byte("gate:\n  sandbox: maybe\n")); err == nil || !strings.Contains(err.Error(), "auto, always, off") {
		t.Errorf("a bad gate.sandbox: %v", err)
	}
	dir := t.TempDir()
	user := writeFile(t, dir, "user.yml", "sandbox:\n  writable: [~/.cache/tool]\n")
	project := writeFile(t, dir, "project.yml", "recording:\n  enabled: true\n")
	s, err := Load(project, user)
	if err != nil {
		t.Fatal(err)
	}
	if s.Sandbox.WritableFile != user || !slices.Equal(s.Sandbox.Writable, []string{"~/.cache/tool"}) {
		t.Errorf("from the user file: %q %v", s.Sandbox.WritableFile, s.Sandbox.Writable)
	}
	project = writeFile(t, dir, "project.yml", "sandbox:\n  writable: [/]\n")
	if s, err = Load(project, user); err != nil || s.Sandbox.WritableFile != project {
		t.Errorf("the project's sandbox.writable is not told apart: %v %+v", err, s.Sandbox)
	}
}
