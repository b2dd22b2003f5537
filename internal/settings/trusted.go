package settings

import (
	"errors"
	"fmt"
	"github.com/cuff-dev/cuff/internal/regular"
	"io/fs"
	"maps"
	"slices"
	"strings"
)

// Ignored is a key of the project's settings file whose value loosens the
// gate but has not been trusted: the trusted value applies instead.
type Ignored struct {
	// Key is the dotted key, such as gate.mode.
	Key string
	// Value and Trusted are the file's value and the one that applies.
	Value, Trusted string
}

func (i Ignored) String() string {
	return fmt.Sprintf("%s: %s (applies: %s)", i.Key, i.Value, i.Trusted)
}

// LoadTrusted is Load for a project file whose text may differ from what a
// person trusted (trusted, which is nil when nothing or the file's absence
// was trusted): every key whose current value tightens the gate, or
// equals the trusted value, applies; a key whose value would loosen it
// (taint mode, no_watcher: allow, exposed scripts, extra hooks or a cop,
// less redaction, recordings elsewhere ...) keeps its trusted value and is
// listed in the result. The user's own file is trusted as it is.
func LoadTrusted(projectFile string, current, trusted []byte, userFile string) (*Settings, []Ignored, error) {
	cur, err := loadWith(projectFile, current, userFile)
	if err != nil {
		return nil, nil, err
	}
	tr, err := loadWith(projectFile+" (as trusted)", trusted, userFile)
	if err != nil {
		// A trusted text that no longer parses (the schema changed):
		// the defaults and the user's file stand for it.
		if tr, err = loadWith("", nil, userFile); err != nil {
			return nil, nil, err
		}
	}
	ignored := restrict(cur, tr)
	return cur, ignored, nil
}

// loadWith reads the user file, then project text data over it.
func loadWith(projectName string, data []byte, userFile string) (*Settings, error) {
	l := newLoader()
	if userFile != "" {
		if b, err := readIfExists(userFile); err != nil {
			l.errs = append(l.errs, fmt.Errorf("read settings: %w", err))
		} else if b != nil {
			l.parse(userFile, b)
		}
	}
	if data != nil {
		l.parse(projectName, data)
	}
	return l.finish()
}

// restrict changes cur in place so that no key loosens the gate beyond
// tr, and lists the keys it changed.
func restrict(cur, tr *Settings) []Ignored {
	var out []Ignored
	keep := func(key string, untrusted bool, value, trusted string, reset func()) {
		if untrusted {
			out = append(out, Ignored{Key: key, Value: value, Trusted: trusted})
			reset()
		}
	}
	rank := func(v string, order ...string) int { return slices.Index(order, v) }
	str := fmt.Sprint

	// The gate and approvals: stricter values apply, looser ones do not.
	keep("gate.mode", cur.Gate.Mode != tr.Gate.Mode && cur.Gate.Mode == GateTaint, str(cur.Gate.Mode), str(tr.Gate.Mode),
		func() { cur.Gate.Mode = tr.Gate.Mode })
	keep("gate.cop.command", cur.Gate.Cop.Command != tr.Gate.Cop.Command, cur.Gate.Cop.Command, tr.Gate.Cop.Command,
		func() { cur.Gate.Cop.Command = tr.Gate.Cop.Command })
	keep("gate.hooks", !slices.Equal(cur.Gate.Hooks, tr.Gate.Hooks), strings.Join(cur.Gate.Hooks, ", "), strings.Join(tr.Gate.Hooks, ", "),
		func() { cur.Gate.Hooks = tr.Gate.Hooks })
	keep("gate.sandbox", rank(string(cur.Gate.Sandbox), "auto", "off", "always") < rank(string(tr.Gate.Sandbox), "auto", "off", "always"),
		str(cur.Gate.Sandbox), str(tr.Gate.Sandbox), func() { cur.Gate.Sandbox = tr.Gate.Sandbox })
	keep("gate.allow_answer", rank(string(cur.Gate.AllowAnswer), "allow", "defer") < rank(string(tr.Gate.AllowAnswer), "allow", "defer"),
		str(cur.Gate.AllowAnswer), str(tr.Gate.AllowAnswer), func() { cur.Gate.AllowAnswer = tr.Gate.AllowAnswer })
	answers := []string{"allow", "ask", "deny"}
	keep("approvals.no_watcher", rank(string(cur.Approvals.NoWatcher), answers...) < rank(string(tr.Approvals.NoWatcher), answers...),
		str(cur.Approvals.NoWatcher), str(tr.Approvals.NoWatcher), func() { cur.Approvals.NoWatcher = tr.Approvals.NoWatcher })
	keep("approvals.mcp_no_watcher", rank(string(cur.Approvals.MCPNoWatcher), answers...) < rank(string(tr.Approvals.MCPNoWatcher), answers...),
		str(cur.Approvals.MCPNoWatcher), str(tr.Approvals.MCPNoWatcher), func() { cur.Approvals.MCPNoWatcher = tr.Approvals.MCPNoWatcher })

	// Recording and redaction: what is recorded, and what is kept from it.
	keep("recording.enabled", !cur.Recording.Enabled && tr.Recording.Enabled, "false", "true",
		func() { cur.Recording.Enabled = true })
	keep("recording.directory", cur.Recording.Directory != tr.Recording.Directory, cur.Recording.Directory, tr.Recording.Directory,
		func() { cur.Recording.Directory = tr.Recording.Directory })
	keep("recording.capture_env", cur.Recording.CaptureEnv && !tr.Recording.CaptureEnv, "true", "false",
		func() { cur.Recording.CaptureEnv = false })
	keep("recording.env_allowlist", !subset(cur.Recording.EnvAllowlist, tr.Recording.EnvAllowlist),
		strings.Join(cur.Recording.EnvAllowlist, ", "), strings.Join(tr.Recording.EnvAllowlist, ", "),
		func() { cur.Recording.EnvAllowlist = tr.Recording.EnvAllowlist })
	keep("redaction.enabled", !cur.Redaction.Enabled && tr.Redaction.Enabled, "false", "true",
		func() { cur.Redaction.Enabled = true })
	keep("redaction.patterns", !subset(tr.Redaction.Patterns, cur.Redaction.Patterns), strings.Join(cur.Redaction.Patterns, ", "),
		strings.Join(tr.Redaction.Patterns, ", "), func() { cur.Redaction.Patterns = tr.Redaction.Patterns })

	// What cuff runs itself: the shell, the environment, the limits.
	e, te := &cur.Execution, &tr.Execution
	keep("execution.shell", e.Shell != te.Shell, e.Shell, te.Shell, func() { e.Shell = te.Shell })
	keep("execution.use_shell", e.UseShell && !te.UseShell, "true", "false", func() { e.UseShell = false })
	keep("execution.working_directory", e.WorkingDirectory != te.WorkingDirectory, e.WorkingDirectory, te.WorkingDirectory,
		func() { e.WorkingDirectory = te.WorkingDirectory })
	keep("execution.environment.mode", e.Environment.Mode != te.Environment.Mode && e.Environment.Mode != EnvReplace,
		str(e.Environment.Mode), str(te.Environment.Mode), func() { e.Environment.Mode = te.Environment.Mode })
	keep("execution.environment.exclude_patterns", !subset(te.Environment.ExcludePatterns, e.Environment.ExcludePatterns),
		strings.Join(e.Environment.ExcludePatterns, ", "), strings.Join(te.Environment.ExcludePatterns, ", "),
		func() { e.Environment.ExcludePatterns = te.Environment.ExcludePatterns })
	keep("execution.environment.include", !subset(e.Environment.Include, te.Environment.Include),
		strings.Join(e.Environment.Include, ", "), strings.Join(te.Environment.Include, ", "),
		func() { e.Environment.Include = te.Environment.Include })
	keep("execution.environment.overrides", !maps.Equal(e.Environment.Overrides, te.Environment.Overrides),
		fmt.Sprint(e.Environment.Overrides), fmt.Sprint(te.Environment.Overrides),
		func() { e.Environment.Overrides = te.Environment.Overrides })
	keep("execution.limits.memory_mb", looserLimit(e.Limits.MemoryMB, te.Limits.MemoryMB), str(e.Limits.MemoryMB), str(te.Limits.MemoryMB),
		func() { e.Limits.MemoryMB = te.Limits.MemoryMB })
	keep("execution.limits.cpu_seconds", looserLimit(e.Limits.CPUSeconds, te.Limits.CPUSeconds), str(e.Limits.CPUSeconds), str(te.Limits.CPUSeconds),
		func() { e.Limits.CPUSeconds = te.Limits.CPUSeconds })

	// Scripts exposed as tools: fewer is fine, anything else waits.
	s, ts := &cur.Scripts, &tr.Scripts
	if !scriptsTighter(s, ts) {
		keep("scripts", true, strings.Join(s.Patterns, ", "), strings.Join(ts.Patterns, ", "), func() { *s = *ts })
	}
	keep("sandbox.writable", !subset(cur.Sandbox.Writable, tr.Sandbox.Writable), strings.Join(cur.Sandbox.Writable, ", "),
		strings.Join(tr.Sandbox.Writable, ", "), func() {
			cur.Sandbox.Writable, cur.Sandbox.WritableFile = tr.Sandbox.Writable, tr.Sandbox.WritableFile
		})
	for name := range cur.Plugins {
		keep("plugins."+name+".enabled", cur.PluginEnabled(name) && !tr.PluginEnabled(name), "true", "false", func() {
			p := cur.Plugins[name]
			p.Enabled = false
			cur.Plugins[name] = p
		})
	}
	return out
}

// subset reports whether every entry of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// looserLimit reports a resource limit that allows more than the trusted
// one (0 is no limit).
func looserLimit(cur, trusted int) bool {
	return trusted != 0 && (cur == 0 || cur > trusted)
}

// scriptsTighter reports whether the scripts section exposes no more than
// the trusted one: the same, except fewer patterns or more exclusions.
func scriptsTighter(s, t *Scripts) bool {
	a, b := *s, *t
	if !subset(a.Patterns, b.Patterns) || !subset(b.Exclude, a.Exclude) || a.RequireExecutable != b.RequireExecutable && !a.RequireExecutable {
		return false
	}
	a.Patterns, a.Exclude, a.RequireExecutable = b.Patterns, b.Exclude, b.RequireExecutable
	a.DefaultTimeout, a.CacheTTL, a.ExposeListScripts = b.DefaultTimeout, b.CacheTTL, b.ExposeListScripts
	return a.BaseDirectory == b.BaseDirectory && a.WorkingDirectory == b.WorkingDirectory &&
		maps.Equal(a.Environment, b.Environment) && maps.Equal(a.Interpreters, b.Interpreters)
}

// readIfExists reads a file; nil without an error when it does not exist.
func readIfExists(p string) ([]byte, error) {
	b, err := regular.Read(p, "settings file", MaxFileBytes, true)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}
