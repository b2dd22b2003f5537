package claudehook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// hookCommandSuffix marks cuff's own hook handlers in settings.json.
const hookCommandSuffix = " hook claude"

// InstallOptions says what to install.
type InstallOptions struct {
	// SettingsPath is the settings.json to change (created if missing).
	SettingsPath string
	// Command runs cuff, e.g. "cuff" or an absolute path.
	Command string
	// GateTimeout is the PreToolUse hook's timeout: above the approval
	// timeout, or Claude Code gives up on the hook while a person decides.
	GateTimeout time.Duration
	// BackupDir is where the file as it was before the change is copied
	// (outside .claude/, so Claude Code never reads a backup as settings
	// and it is never committed); "" keeps no copy.
	BackupDir string
	// Now stamps the backup file's name.
	Now time.Time
}

// InstallResult says what changed.
type InstallResult struct {
	Added   []string // events that got cuff's hook
	Updated []string // events whose cuff hook was changed (timeout, command)
	Backup  string   // the copy of the file before the change, if any
}

// Changed reports whether the file was written.
func (r *InstallResult) Changed() bool { return len(r.Added)+len(r.Updated) > 0 }

// hookEvents are the events cuff records, with the timeout (seconds) of
// each and whether they take a tool matcher.
var hookEvents = []struct {
	name    string
	timeout int
	matcher bool
}{
	{EventSessionStart, 10, false},
	{EventUserPromptSubmit, 10, false},
	{EventPreToolUse, 0, true}, // 0: the gate timeout
	{EventPostToolUse, 10, true},
	{EventPostToolUseFailure, 10, true},
	{EventStop, 10, false},
	{EventSubagentStop, 10, false},
	{EventSessionEnd, 5, false},
}

// Install merges cuff's hooks into a Claude Code settings.json, keeping
// every other setting and hook. It is idempotent: a second run changes
// nothing, and a changed timeout or command is updated in place. Before
// writing, the old file is copied into BackupDir as
// <name>-<hash of its path>-<time>.
func Install(opts InstallOptions) (*InstallResult, error) {
	res := &InstallResult{}
	settings := map[string]any{}
	old, err := os.ReadFile(opts.SettingsPath)
	switch {
	case err == nil:
		if len(bytes.TrimSpace(old)) > 0 {
			dec := json.NewDecoder(bytes.NewReader(old))
			dec.UseNumber() // numbers are written back exactly as they were
			if err := dec.Decode(&settings); err != nil {
				return nil, fmt.Errorf("%s is not valid JSON (%v): fix it or move it away, then run again", opts.SettingsPath, err)
			}
		}
	case errors.Is(err, fs.ErrNotExist):
		old = nil
	default:
		return nil, fmt.Errorf("read %s: %w", opts.SettingsPath, err)
	}
	hooks, ok := settings["hooks"].(map[string]any)
	if settings["hooks"] != nil && !ok {
		return nil, fmt.Errorf("%s: \"hooks\" is not an object", opts.SettingsPath)
	}
	if hooks == nil {
		hooks = map[string]any{}
	}
	quoted, err := syntax.Quote(opts.Command, syntax.LangPOSIX)
	if err != nil {
		return nil, fmt.Errorf("cuff's path %q cannot be written as a shell word: %w", opts.Command, err)
	}
	command := quoted + hookCommandSuffix
	for _, ev := range hookEvents {
		timeout := ev.timeout
		if timeout == 0 {
			timeout = int(opts.GateTimeout.Seconds())
		}
		groups, _ := hooks[ev.name].([]any)
		if hooks[ev.name] != nil && groups == nil {
			return nil, fmt.Errorf("%s: hooks.%s is not a list", opts.SettingsPath, ev.name)
		}
		found := false
		for _, g := range groups {
			group, _ := g.(map[string]any)
			handlers, _ := group["hooks"].([]any)
			for _, h := range handlers {
				handler, _ := h.(map[string]any)
				cmd, _ := handler["command"].(string)
				if !strings.HasSuffix(cmd, hookCommandSuffix) {
					continue
				}
				found = true
				if cmd != command || toInt(handler["timeout"]) != timeout {
					handler["command"], handler["timeout"] = command, timeout
					res.Updated = append(res.Updated, ev.name)
				}
			}
		}
		if found {
			continue
		}
		group := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": timeout}}}
		if ev.matcher {
			group["matcher"] = "*"
		}
		hooks[ev.name] = append(groups, group)
		res.Added = append(res.Added, ev.name)
	}
	if !res.Changed() {
		return res, nil
	}
	settings["hooks"] = hooks
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep the user's own &&, < and > as they wrote them
	enc.SetIndent("", "  ")
	if err := enc.Encode(settings); err != nil {
		return nil, err
	}
	data := bytes.TrimRight(buf.Bytes(), "\n")
	if err := os.MkdirAll(filepath.Dir(opts.SettingsPath), 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", filepath.Dir(opts.SettingsPath), err)
	}
	if old != nil && opts.BackupDir != "" {
		abs, _ := filepath.Abs(opts.SettingsPath)
		sum := sha256.Sum256([]byte(abs))
		name := fmt.Sprintf("%s-%s-%s", filepath.Base(opts.SettingsPath), hex.EncodeToString(sum[:4]), opts.Now.Format("20060102-150405.000000000"))
		if err := os.MkdirAll(opts.BackupDir, 0o700); err != nil {
			return nil, fmt.Errorf("back up %s: %w", opts.SettingsPath, err)
		}
		res.Backup = filepath.Join(opts.BackupDir, name)
		if err := os.WriteFile(res.Backup, old, 0o600); err != nil {
			return nil, fmt.Errorf("back up %s: %w", opts.SettingsPath, err)
		}
	}
	tmp := opts.SettingsPath + ".cuff-tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", opts.SettingsPath, err)
	}
	if err := os.Rename(tmp, opts.SettingsPath); err != nil {
		return nil, fmt.Errorf("write %s: %w", opts.SettingsPath, err)
	}
	return res, nil
}

func toInt(v any) int {
	switch n := v.(type) {
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(i)
		}
	case float64:
		return int(n)
	case int:
		return n
	}
	return -1
}
