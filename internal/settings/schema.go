package settings

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// field is one settable key of the schema.
type field struct {
	// path is the dotted key as written in a file.
	path string
	// target is the canonical key the field sets; it differs for the
	// aliases that accept the seeds' own spellings.
	target string
	set    func(s *Settings, n *yaml.Node) *problem
}

// schema is the table of every key cuff reads.
type schema struct {
	fields   map[string]field
	sections map[string][]string // section path -> child names, in file order
	// sectionAliases map a seed's section to ours (execution.redaction).
	sectionAliases map[string]string
}

// newSchema builds the table. Every leaf of DefaultYAML appears here.
func newSchema() *schema {
	sc := &schema{
		fields:         map[string]field{},
		sections:       map[string][]string{},
		sectionAliases: map[string]string{"execution.redaction": "redaction"},
	}
	add := func(f field) {
		if f.target == "" {
			f.target = f.path
		}
		sc.fields[f.path] = f
		parent, name := splitPath(f.path)
		sc.addChild(parent, name)
	}

	// recording
	add(boolField("recording.enabled", func(s *Settings) *bool { return &s.Recording.Enabled }))
	add(stringField("recording.directory", false, func(s *Settings) *string { return &s.Recording.Directory }))
	add(enumField("recording.session_mode", func(s *Settings) *SessionMode { return &s.Recording.SessionMode },
		PerConversation, PerDay, Continuous))
	add(field{path: "recording.capture_output", set: setCaptureOutput})
	add(field{path: "recording.max_output_size", set: func(s *Settings, n *yaml.Node) *problem {
		v, p := parseSizeNode(n)
		if p == nil {
			s.Recording.MaxOutputSize = v
		}
		return p
	}})
	add(boolField("recording.capture_env", func(s *Settings) *bool { return &s.Recording.CaptureEnv }))
	add(listField("recording.env_allowlist", checkEnvPattern, func(s *Settings) *[]string { return &s.Recording.EnvAllowlist }))
	add(countField("recording.retention_days", 0, func(s *Settings) *int { return &s.Recording.RetentionDays }))

	// execution
	add(durationField("execution.default_timeout", false, func(s *Settings) *time.Duration { return &s.Execution.DefaultTimeout }))
	add(durationField("execution.max_timeout", false, func(s *Settings) *time.Duration { return &s.Execution.MaxTimeout }))
	add(stringField("execution.shell", false, func(s *Settings) *string { return &s.Execution.Shell }))
	add(boolField("execution.use_shell", func(s *Settings) *bool { return &s.Execution.UseShell }))
	add(nullableStringField("execution.working_directory", func(s *Settings) *string { return &s.Execution.WorkingDirectory }))
	add(countField("execution.max_concurrent", 1, func(s *Settings) *int { return &s.Execution.MaxConcurrent }))
	add(enumField("execution.environment.mode", func(s *Settings) *EnvMode { return &s.Execution.Environment.Mode },
		EnvInherit, EnvReplace, EnvMerge))
	add(listField("execution.environment.exclude_patterns", checkEnvPattern, func(s *Settings) *[]string { return &s.Execution.Environment.ExcludePatterns }))
	add(listField("execution.environment.include", checkEnvPattern, func(s *Settings) *[]string { return &s.Execution.Environment.Include }))
	add(mapField("execution.environment.overrides", checkEnvName, nil, func(s *Settings) *map[string]string { return &s.Execution.Environment.Overrides }))
	add(limitField("execution.limits.memory_mb", func(s *Settings) *int { return &s.Execution.Limits.MemoryMB }))
	add(limitField("execution.limits.cpu_seconds", func(s *Settings) *int { return &s.Execution.Limits.CPUSeconds }))

	// redaction
	add(boolField("redaction.enabled", func(s *Settings) *bool { return &s.Redaction.Enabled }))
	add(listField("redaction.patterns", checkRegexp, func(s *Settings) *[]string { return &s.Redaction.Patterns }))

	// gate
	add(enumField("gate.mode", func(s *Settings) *GateMode { return &s.Gate.Mode }, GateStrict, GateTaint))
	add(nullableStringField("gate.cop.command", func(s *Settings) *string { return &s.Gate.Cop.Command }))
	add(durationField("gate.cop.timeout", false, func(s *Settings) *time.Duration { return &s.Gate.Cop.Timeout }))
	add(listField("gate.hooks", checkNonEmpty, func(s *Settings) *[]string { return &s.Gate.Hooks }))
	add(enumField("gate.sandbox", func(s *Settings) *SandboxMode { return &s.Gate.Sandbox }, SandboxAuto, SandboxAlways, SandboxOff))
	add(enumField("gate.allow_answer", func(s *Settings) *AllowAnswer { return &s.Gate.AllowAnswer }, AllowAnswerAllow, AllowAnswerDefer))

	// approvals
	add(durationField("approvals.timeout", false, func(s *Settings) *time.Duration { return &s.Approvals.Timeout }))
	add(enumField("approvals.no_watcher", func(s *Settings) *Answer { return &s.Approvals.NoWatcher }, AnswerAllow, AnswerAsk, AnswerDeny))
	add(enumField("approvals.mcp_no_watcher", func(s *Settings) *Answer { return &s.Approvals.MCPNoWatcher }, AnswerAllow, AnswerAsk, AnswerDeny))

	// scripts
	add(listField("scripts.patterns", checkGlob, func(s *Settings) *[]string { return &s.Scripts.Patterns }))
	add(stringField("scripts.base_directory", false, func(s *Settings) *string { return &s.Scripts.BaseDirectory }))
	add(listField("scripts.exclude", checkGlob, func(s *Settings) *[]string { return &s.Scripts.Exclude }))
	add(durationField("scripts.default_timeout", false, func(s *Settings) *time.Duration { return &s.Scripts.DefaultTimeout }))
	add(stringField("scripts.working_directory", false, func(s *Settings) *string { return &s.Scripts.WorkingDirectory }))
	add(mapField("scripts.environment", checkEnvName, nil, func(s *Settings) *map[string]string { return &s.Scripts.Environment }))
	add(boolField("scripts.expose_list_scripts", func(s *Settings) *bool { return &s.Scripts.ExposeListScripts }))
	add(mapField("scripts.interpreters", checkExtension, checkNonEmpty, func(s *Settings) *map[string]string { return &s.Scripts.Interpreters }))
	add(boolField("scripts.require_executable", func(s *Settings) *bool { return &s.Scripts.RequireExecutable }))
	add(durationField("scripts.cache_ttl", true, func(s *Settings) *time.Duration { return &s.Scripts.CacheTTL }))

	// sandbox
	add(listField("sandbox.writable", checkNonEmpty, func(s *Settings) *[]string { return &s.Sandbox.Writable }))

	// sources, tui
	add(boolField("sources.claude", func(s *Settings) *bool { return &s.Sources.Claude }))
	add(boolField("sources.codex", func(s *Settings) *bool { return &s.Sources.Codex }))
	add(enumField("tui.theme", func(s *Settings) *Theme { return &s.TUI.Theme }, ThemeAuto, ThemeDark, ThemeLight))

	// The seeds' own spellings.
	add(field{path: "execution.inherit_env", target: "execution.environment.mode", set: func(s *Settings, n *yaml.Node) *problem {
		v, p := parseBool(n)
		if p == nil {
			s.Execution.Environment.Mode = EnvReplace
			if v {
				s.Execution.Environment.Mode = EnvInherit
			}
		}
		return p
	}})
	overrides := mapField("execution.env_overrides", checkEnvName, nil, func(s *Settings) *map[string]string { return &s.Execution.Environment.Overrides })
	overrides.target = "execution.environment.overrides"
	add(overrides)
	for _, p := range []string{"recording.max_output_kb", "execution.max_output_kb"} {
		add(field{path: p, target: "recording.max_output_size", set: setMaxOutputKB})
	}
	seconds := durationField("execution.default_timeout_seconds", false, func(s *Settings) *time.Duration { return &s.Execution.DefaultTimeout })
	seconds.target = "execution.default_timeout"
	add(seconds)
	sc.addChild("execution", "redaction")
	return sc
}

// addChild records a child name of a section and, recursively, the
// section itself in its parent.
func (sc *schema) addChild(parent, name string) {
	kids, known := sc.sections[parent]
	for _, k := range kids {
		if k == name {
			return
		}
	}
	sc.sections[parent] = append(kids, name)
	if !known && parent != "" {
		gp, n := splitPath(parent)
		sc.addChild(gp, n)
	}
}

// splitPath splits "a.b.c" into "a.b" and "c".
func splitPath(p string) (string, string) {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

func joinPath(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func boolField(path string, ptr func(*Settings) *bool) field {
	return field{path: path, set: func(s *Settings, n *yaml.Node) *problem {
		v, p := parseBool(n)
		if p == nil {
			*ptr(s) = v
		}
		return p
	}}
}

func countField(path string, min int64, ptr func(*Settings) *int) field {
	return field{path: path, set: func(s *Settings, n *yaml.Node) *problem {
		v, p := parseCount(n, min)
		if p == nil {
			*ptr(s) = v
		}
		return p
	}}
}

// limitField is a resource limit: null for none, else a positive number.
func limitField(path string, ptr func(*Settings) *int) field {
	return field{path: path, set: func(s *Settings, n *yaml.Node) *problem {
		if isNull(n) {
			*ptr(s) = 0
			return nil
		}
		v, p := parseInt(n)
		if p != nil {
			return bad(n, "expected a positive whole number, or null for no limit, got %s", describe(n))
		}
		if v <= 0 || v > 1<<31 {
			return bad(n, "must be a positive number, or null for no limit, got %d", v)
		}
		*ptr(s) = int(v)
		return nil
	}}
}

func durationField(path string, allowZero bool, ptr func(*Settings) *time.Duration) field {
	return field{path: path, set: func(s *Settings, n *yaml.Node) *problem {
		v, p := parseDurationNode(n, allowZero)
		if p == nil {
			*ptr(s) = v
		}
		return p
	}}
}

func stringField(path string, nullable bool, ptr func(*Settings) *string) field {
	return field{path: path, set: func(s *Settings, n *yaml.Node) *problem {
		v, p := parseString(n, nullable, !nullable)
		if p == nil {
			*ptr(s) = v
		}
		return p
	}}
}

func nullableStringField(path string, ptr func(*Settings) *string) field {
	return stringField(path, true, ptr)
}

func enumField[T ~string](path string, ptr func(*Settings) *T, values ...T) field {
	return field{path: path, set: func(s *Settings, n *yaml.Node) *problem {
		v, p := parseEnum(n, values...)
		if p == nil {
			*ptr(s) = v
		}
		return p
	}}
}

func listField(path string, check func(string) string, ptr func(*Settings) *[]string) field {
	return field{path: path, set: func(s *Settings, n *yaml.Node) *problem {
		v, p := parseList(n, check)
		if p == nil {
			*ptr(s) = v
		}
		return p
	}}
}

// mapField merges a mapping into the existing one, entry by entry.
func mapField(path string, checkKey, checkValue func(string) string, ptr func(*Settings) *map[string]string) field {
	return field{path: path, set: func(s *Settings, n *yaml.Node) *problem {
		v, p := parseMap(n, *ptr(s), checkKey, checkValue)
		if p != nil {
			return p
		}
		*ptr(s) = v
		return nil
	}}
}

func setCaptureOutput(s *Settings, n *yaml.Node) *problem {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		b, p := parseBool(n)
		if p != nil {
			return p
		}
		s.Recording.CaptureOutput = CaptureNone
		if b {
			s.Recording.CaptureOutput = CaptureAll
		}
		return nil
	}
	v, p := parseEnum(n, CaptureAll, CaptureStdout, CaptureStderr, CaptureNone)
	if p != nil {
		return bad(n, "%s is not one of true, false, all, stdout, stderr, none", describe(n))
	}
	s.Recording.CaptureOutput = v
	return nil
}

// kilobyte is the unit of the seeds' max_output_kb.
const kilobyte = 1024

func setMaxOutputKB(s *Settings, n *yaml.Node) *problem {
	v, p := parseInt(n)
	if p != nil {
		return p
	}
	if v <= 0 || v > (1<<62)/kilobyte {
		return bad(n, "must be a positive number of kilobytes, got %d", v)
	}
	s.Recording.MaxOutputSize = v * kilobyte
	return nil
}

// children lists the keys a section accepts, leaving out the aliases that
// exist only for the seeds' spellings.
func (sc *schema) children(prefix string) []string {
	var out []string
	for _, name := range sc.sections[prefix] {
		p := joinPath(prefix, name)
		if f, ok := sc.fields[p]; ok && f.target != f.path {
			continue
		}
		if _, ok := sc.sectionAliases[p]; ok {
			continue
		}
		out = append(out, name)
	}
	if prefix == "" {
		out = append(out, "plugins")
	}
	return out
}

// elsewhere returns the full paths of keys elsewhere in the schema whose
// name is, or is a likely typo of, name.
func (sc *schema) elsewhere(name string) []string {
	byName := map[string][]string{}
	var names []string
	var walk func(prefix string)
	walk = func(prefix string) {
		for _, kid := range sc.children(prefix) {
			p := joinPath(prefix, kid)
			if p == "plugins" {
				continue
			}
			if _, ok := byName[kid]; !ok {
				names = append(names, kid)
			}
			byName[kid] = append(byName[kid], p)
			walk(p)
		}
	}
	walk("")
	if s := suggest(name, names); s != "" {
		return byName[s]
	}
	return nil
}
