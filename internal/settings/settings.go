// Package settings is cuff's one settings schema: the project file
// .cuff/settings.yml and the user file $XDG_CONFIG_HOME/cuff/settings.yml,
// merged key by key over the defaults, validated with errors that name the
// file, the line and what is expected.
package settings

import (
	"path/filepath"
	"time"
)

// Settings is the whole configuration of cuff.
type Settings struct {
	Recording Recording
	Execution Execution
	Redaction Redaction
	Gate      Gate
	Approvals Approvals
	Scripts   Scripts
	Sources   Sources
	TUI       TUI
	Sandbox   Sandbox
	// Plugins keeps the wrapper fields of seed-style plugin blocks
	// (plugins.bash_recorder, plugins.scripts); their config sections are
	// mapped into the fields above.
	Plugins map[string]Plugin
}

// Recording says what is recorded and where.
type Recording struct {
	Enabled bool
	// Directory holds the recordings, relative to the project or absolute.
	Directory     string
	SessionMode   SessionMode
	CaptureOutput CaptureMode
	// MaxOutputSize is the number of bytes kept per stream (head + tail).
	MaxOutputSize int64
	CaptureEnv    bool
	// EnvAllowlist names the variables captured when CaptureEnv is set:
	// exact names, or globs such as LC_*.
	EnvAllowlist []string
	// RetentionDays is used by `record clean`; 0 keeps recordings forever.
	RetentionDays int
}

// Dir returns the recording directory resolved against the project root.
func (r Recording) Dir(projectRoot string) string {
	if filepath.IsAbs(r.Directory) {
		return r.Directory
	}
	return filepath.Join(projectRoot, r.Directory)
}

// Execution configures commands that cuff runs itself.
type Execution struct {
	DefaultTimeout time.Duration
	MaxTimeout     time.Duration
	Shell          string
	// UseShell runs command strings through Shell; argv is the default.
	UseShell bool
	// WorkingDirectory is where commands run; empty means the project root.
	WorkingDirectory string
	MaxConcurrent    int
	Environment      Environment
	Limits           Limits
}

// Environment says which environment a command gets.
type Environment struct {
	Mode EnvMode
	// ExcludePatterns are globs of inherited variables to drop.
	ExcludePatterns []string
	// Include names variables always passed, even if excluded.
	Include   []string
	Overrides map[string]string
}

// Limits are resource limits for commands; zero means no limit.
type Limits struct {
	MemoryMB   int
	CPUSeconds int
}

// Redaction configures secret redaction before anything is recorded.
type Redaction struct {
	Enabled bool
	// Patterns are regular expressions added to the built-in ones.
	Patterns []string
}

// Gate configures the classification of commands.
type Gate struct {
	Mode GateMode
	Cop  Cop
	// Hooks are extra before-tool-use commands, run after the built-in
	// checks; the first deny wins.
	Hooks []string
	// Sandbox says where commands cuff allows run inside the sandbox.
	Sandbox SandboxMode
	// AllowAnswer is what an agent hook answers for a command the gate
	// allows: allow (cuff's allow, which skips the agent's own prompt) or
	// defer (no answer: the agent's own permission flow decides).
	AllowAnswer AllowAnswer
}

// Cop is the external classifier consulted in taint mode.
type Cop struct {
	// Command is the cop's command line; empty means no cop.
	Command string
	Timeout time.Duration
}

// Approvals configures human approval of gated commands.
type Approvals struct {
	Timeout time.Duration
	// NoWatcher is the hook's answer when no TUI is watching.
	NoWatcher Answer
	// MCPNoWatcher is the MCP server's answer when no TUI is watching.
	MCPNoWatcher Answer
}

// Scripts configures the scripts exposed as tools.
type Scripts struct {
	Patterns          []string
	BaseDirectory     string
	Exclude           []string
	DefaultTimeout    time.Duration
	WorkingDirectory  string
	Environment       map[string]string
	ExposeListScripts bool
	// Interpreters maps file extensions (".py") to interpreter commands.
	Interpreters      map[string]string
	RequireExecutable bool
	// CacheTTL is how long script discovery is cached; 0 disables caching.
	CacheTTL time.Duration
}

// Sources says which foreign transcript folders are read.
type Sources struct {
	Claude bool
	Codex  bool
}

// Sandbox configures the kernel sandbox of the commands cuff allows.
type Sandbox struct {
	// Writable are more folders a sandboxed command may write (~ is the
	// home directory, relative paths start at the project).
	Writable []string
	// WritableFile is the settings file that set Writable ("" for the
	// default): a project's own file may not widen its sandbox unasked.
	WritableFile string
}

// TUI configures the terminal interface.
type TUI struct {
	Theme Theme
}

// Plugin is the wrapper of a seed-style plugin block.
type Plugin struct {
	Enabled bool
	Type    string
	Module  string
}

// PluginEnabled reports whether a seed-style plugin block was left enabled
// (a plugin that is not mentioned is enabled).
func (s *Settings) PluginEnabled(name string) bool {
	p, ok := s.Plugins[name]
	return !ok || p.Enabled
}

// SessionMode says how recordings are grouped into sessions.
type SessionMode string

// Session modes.
const (
	PerConversation SessionMode = "per_conversation"
	PerDay          SessionMode = "per_day"
	Continuous      SessionMode = "continuous"
)

// CaptureMode says which output streams are recorded.
type CaptureMode string

// Capture modes; true in a settings file means CaptureAll, false CaptureNone.
const (
	CaptureAll    CaptureMode = "all"
	CaptureStdout CaptureMode = "stdout"
	CaptureStderr CaptureMode = "stderr"
	CaptureNone   CaptureMode = "none"
)

// Stdout reports whether standard output is recorded.
func (c CaptureMode) Stdout() bool { return c == CaptureAll || c == CaptureStdout }

// Stderr reports whether standard error is recorded.
func (c CaptureMode) Stderr() bool { return c == CaptureAll || c == CaptureStderr }

// EnvMode says how a command's environment is built.
type EnvMode string

// Environment modes.
const (
	// EnvInherit starts from cuff's environment minus ExcludePatterns.
	EnvInherit EnvMode = "inherit"
	// EnvReplace uses only Include and Overrides.
	EnvReplace EnvMode = "replace"
	// EnvMerge is cuff's whole environment plus Overrides.
	EnvMerge EnvMode = "merge"
)

// GateMode selects the gate's policy.
type GateMode string

// Gate modes.
const (
	GateStrict GateMode = "strict"
	GateTaint  GateMode = "taint"
)

// SandboxMode says when allowed commands run in the sandbox.
type SandboxMode string

// Sandbox modes.
const (
	// SandboxAuto sandboxes where the kernel supports it; elsewhere commands
	// that run code the agent may have written get no decision.
	SandboxAuto SandboxMode = "auto"
	// SandboxAlways requires the sandbox: where it is unavailable, cuff asks
	// before every command it would have allowed.
	SandboxAlways SandboxMode = "always"
	// SandboxOff never sandboxes: code-running commands get no decision.
	SandboxOff SandboxMode = "off"
)

// AllowAnswer is what an agent hook answers for a command the gate allows.
type AllowAnswer string

// Allow answers.
const (
	// AllowAnswerAllow answers allow: the agent runs the command without
	// its own prompt.
	AllowAnswerAllow AllowAnswer = "allow"
	// AllowAnswerDefer gives no answer: the agent's own permission flow
	// decides, so cuff never makes the agent less guarded than without it.
	AllowAnswerDefer AllowAnswer = "defer"
)

// Answer is an automatic answer to an approval request.
type Answer string

// Answers.
const (
	AnswerAllow Answer = "allow"
	AnswerAsk   Answer = "ask"
	AnswerDeny  Answer = "deny"
)

// Theme selects the TUI's colours.
type Theme string

// Themes.
const (
	ThemeAuto  Theme = "auto"
	ThemeDark  Theme = "dark"
	ThemeLight Theme = "light"
)

// Defaults returns the settings used when no file says otherwise.
func Defaults() *Settings {
	return &Settings{
		Recording: Recording{
			Enabled:       true,
			Directory:     ".cuff/recordings",
			SessionMode:   PerConversation,
			CaptureOutput: CaptureAll,
			MaxOutputSize: 1_000_000,
			CaptureEnv:    false,
			EnvAllowlist:  []string{"PATH", "HOME", "USER", "SHELL", "PWD"},
			RetentionDays: 30,
		},
		Execution: Execution{
			DefaultTimeout: 120 * time.Second,
			MaxTimeout:     600 * time.Second,
			Shell:          "/bin/bash",
			UseShell:       false,
			MaxConcurrent:  4,
			Environment: Environment{
				Mode:            EnvInherit,
				ExcludePatterns: []string{"*_TOKEN", "*_KEY", "*_SECRET", "*_PASSWORD"},
				Include:         []string{"PATH", "HOME", "TMP", "TEMP"},
				Overrides:       map[string]string{},
			},
		},
		Redaction: Redaction{Enabled: true, Patterns: []string{}},
		Gate: Gate{
			Mode:        GateStrict,
			Cop:         Cop{Timeout: 5 * time.Second},
			Hooks:       []string{},
			Sandbox:     SandboxAuto,
			AllowAnswer: AllowAnswerAllow,
		},
		Approvals: Approvals{
			Timeout:      300 * time.Second,
			NoWatcher:    AnswerAsk,
			MCPNoWatcher: AnswerDeny,
		},
		Scripts: Scripts{
			Patterns:          []string{},
			BaseDirectory:     ".",
			Exclude:           []string{},
			DefaultTimeout:    300 * time.Second,
			WorkingDirectory:  ".",
			Environment:       map[string]string{},
			ExposeListScripts: true,
			Interpreters:      map[string]string{},
			RequireExecutable: false,
			CacheTTL:          300 * time.Second,
		},
		Sources: Sources{Claude: true, Codex: true},
		TUI:     TUI{Theme: ThemeAuto},
		Sandbox: Sandbox{Writable: []string{}},
		Plugins: map[string]Plugin{},
	}
}
