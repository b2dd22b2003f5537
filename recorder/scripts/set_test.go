package scripts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestScriptsSharingAToolNameAreAConflictAndNotExposed(t *testing.T) {
	dir := tree(t, map[string]string{
		"scripts/build.sh":      "#!/bin/sh\n",
		"scripts/build.py":      "#!/usr/bin/env python3\n",
		"scripts/a-b.sh":        "#!/bin/sh\n",
		"scripts/a_b.sh":        "#!/bin/sh\n",
		"scripts/a.b.sh":        "#!/bin/sh\n",
		"scripts/ok.sh":         "#!/bin/sh\n",
		"list_scripts.sh":       "#!/bin/sh\n",
		"scripts/list/other.sh": "#!/bin/sh\n",
	})
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"scripts/*.sh", "scripts/*.py", "*.sh"}, ExposeListScripts: true})
	if got := names(s); !slices.Equal(got, []string{"script_scripts_ok"}) {
		t.Errorf("exposed %v", got)
	}
	if len(s.Conflicts) != 3 {
		t.Fatalf("conflicts %v", s.Conflicts)
	}
	c := s.Conflicts[1]
	if c.Name != "script_scripts_a_b" || !slices.Equal(c.Paths, []string{"scripts/a-b.sh", "scripts/a.b.sh", "scripts/a_b.sh"}) {
		t.Errorf("conflict %+v", c)
	}
	if !s.Conflicts[0].ListTool || s.Conflicts[0].Paths[0] != "list_scripts.sh" {
		t.Errorf("list tool conflict %+v", s.Conflicts[0])
	}
	if got := s.Conflicts[2].String(); got != "Scripts 'scripts/build.py' and 'scripts/build.sh' map to the same tool name script_scripts_build - neither is exposed by that name" {
		t.Errorf("conflict text %q", got)
	}
	_, err := s.Resolve("script_scripts_build")
	if kindOf(err) != KindConflict || !strings.Contains(err.Error(), "scripts/build.py, scripts/build.sh") {
		t.Errorf("run by conflicting name: %v", err)
	}
	// Each can still be run by its path.
	if sc, err := s.Resolve("scripts/build.py"); err != nil || sc.Name != "script_scripts_build" {
		t.Errorf("run by path: %v %v", sc, err)
	}
	// Without the list tool, list_scripts.sh is an ordinary script.
	s = mustLoad(t, Config{Root: dir, Patterns: []string{"*.sh"}, ExposeListScripts: false})
	if got := names(s); !slices.Equal(got, []string{"script_list_scripts"}) || len(s.Tools()) != 1 {
		t.Errorf("without the list tool: %v, tools %v", got, s.Tools())
	}
}

func TestResolveRefusesWithTheDocumentedMessages(t *testing.T) {
	outside := tree(t, map[string]string{"evil.sh": "#!/bin/sh\necho evil\n"})
	dir := tree(t, map[string]string{
		"scripts/build.sh":      "#!/bin/sh\n",
		"scripts/internal_x.sh": "#!/bin/sh\n",
		"other/x.sh":            "#!/bin/sh\n",
	})
	if err := os.Symlink(filepath.Join(outside, "evil.sh"), filepath.Join(dir, "scripts", "evil.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "scripts", "build.sh"), filepath.Join(dir, "scripts", "alias.sh")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "scripts", "out")); err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"scripts/*.sh", "scripts/out/*.sh"}, Exclude: []string{"scripts/internal_*"}})
	if got := names(s); !slices.Equal(got, []string{"script_scripts_alias", "script_scripts_build"}) {
		t.Errorf("exposed %v", got)
	}
	cases := []struct {
		ref  string
		kind Kind
		msg  string
	}{
		{"../" + filepath.Base(outside) + "/evil.sh", KindTraversal, "Path traversal detected: ../" + filepath.Base(outside) + "/evil.sh"},
		{filepath.Join(outside, "evil.sh"), KindTraversal, "Path traversal detected: " + filepath.Join(outside, "evil.sh")},
		{"scripts/../../x.sh", KindTraversal, "Path traversal detected: scripts/../../x.sh"},
		{"scripts/evil.sh", KindSymlinkEscape, "Script resolves outside base directory: scripts/evil.sh"},
		{"script_scripts_evil", KindSymlinkEscape, "Script resolves outside base directory: scripts/evil.sh"},
		{"scripts/out/evil.sh", KindSymlinkEscape, "Script resolves outside base directory: scripts/out/evil.sh"},
		{"other/x.sh", KindNotAllowed, "Script not in allowed patterns: other/x.sh"},
		{"scripts/internal_x.sh", KindExcluded, "Script is excluded: scripts/internal_x.sh"},
		{"scripts/missing.sh", KindNotFound, "Script not found: scripts/missing.sh"},
		{"script_scripts_missing", KindNotFound, "Script not found: script_scripts_missing"},
		{"scripts", KindNotAllowed, "Script not in allowed patterns: scripts"},
		{"", KindInvalid, "Script path is empty or holds a NUL byte"},
	}
	for _, c := range cases {
		_, err := s.Resolve(c.ref)
		if kindOf(err) != c.kind || err.Error() != c.msg {
			t.Errorf("Resolve(%q) = %v (%s), want %q", c.ref, err, kindOf(err), c.msg)
		}
		if e, ok := err.(*Error); ok && e.Hint == "" {
			t.Errorf("Resolve(%q): no hint", c.ref)
		}
	}
	// A symlink inside the base directory is fine, by name and by path.
	for _, ref := range []string{"script_scripts_alias", "scripts/alias.sh", "./scripts/build.sh", filepath.Join(dir, "scripts/build.sh")} {
		if _, err := s.Resolve(ref); err != nil {
			t.Errorf("Resolve(%q): %v", ref, err)
		}
	}
	// The discovery warned about the escaping symlinks.
	var escapes []string
	for _, w := range s.Warnings {
		if w.Kind == WarnEscape {
			escapes = append(escapes, w.Path)
		}
	}
	if !slices.Equal(escapes, []string{"scripts/evil.sh", "scripts/out/evil.sh"}) {
		t.Errorf("escape warnings for %v", escapes)
	}
}

func TestLookupChecksTheDiskAgain(t *testing.T) {
	dir := tree(t, map[string]string{"scripts/a.sh": "#!/bin/sh\n# First\n"})
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"scripts/*.sh"}})
	write(t, dir, "scripts/a.sh", "#!/bin/bash\n# Second\n")
	sc, err := s.Lookup("script_scripts_a")
	if err != nil || sc.Description != "Second" || sc.InterpreterString() != "/bin/bash" {
		t.Fatalf("changed script: %+v %v", sc, err)
	}
	outside := tree(t, map[string]string{"x.sh": "#!/bin/sh\n"})
	os.Remove(filepath.Join(dir, "scripts", "a.sh"))
	if _, err := s.Lookup("script_scripts_a"); kindOf(err) != KindNotFound {
		t.Errorf("removed script: %v", err)
	}
	if err := os.Symlink(filepath.Join(outside, "x.sh"), filepath.Join(dir, "scripts", "a.sh")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Lookup("script_scripts_a"); kindOf(err) != KindSymlinkEscape {
		t.Errorf("script replaced by an escaping symlink: %v", err)
	}
}

func TestListAndToolsDescribeTheScripts(t *testing.T) {
	dir := tree(t, map[string]string{
		"scripts/build.sh": "#!/bin/bash\n# Build the project\nmake\n",
		"bin/run_server":   "\x7fELF\x00\x00",
	})
	if err := os.Chmod(filepath.Join(dir, "bin/run_server"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, Config{Root: dir, Patterns: []string{"scripts/*.sh", "bin/*"}, ExposeListScripts: true})
	data, err := json.Marshal(s.List())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"scripts":[{"name":"script_bin_run_server","path":"bin/run_server","description":"Run bin/run_server","interpreter":null},` +
		`{"name":"script_scripts_build","path":"scripts/build.sh","description":"Build the project","interpreter":"/bin/bash"}]}`
	if string(data) != want {
		t.Errorf("list:\n%s\nwant\n%s", data, want)
	}
	tools := s.Tools()
	if len(tools) != 3 || tools[0].Name != ListToolName || tools[0].Description != "List all available scripts" || tools[0].Script != nil ||
		tools[2].Description != "Build the project" {
		t.Errorf("tools %+v", tools)
	}
	var schema map[string]any
	if err := json.Unmarshal([]byte(ToolInputSchema), &schema); err != nil {
		t.Errorf("schema: %v", err)
	}
}

func TestCacheHonoursTheTTL(t *testing.T) {
	dir := tree(t, map[string]string{"scripts/a.sh": "#!/bin/sh\n"})
	now := time.Date(2026, 1, 18, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	cfg := Config{Root: dir, Patterns: []string{"scripts/*.sh"}, CacheTTL: 300 * time.Second}
	c := NewCache(cfg, clock)
	first, err := c.Set()
	if err != nil || len(first.Scripts) != 1 {
		t.Fatalf("%v %v", first, err)
	}
	write(t, dir, "scripts/b.sh", "#!/bin/sh\n")
	now = now.Add(299 * time.Second)
	if s, _ := c.Set(); s != first {
		t.Error("rediscovered within the TTL")
	}
	now = now.Add(time.Second)
	if s, _ := c.Set(); s == first || len(s.Scripts) != 2 {
		t.Errorf("not rediscovered after the TTL: %v", names(s))
	}
	write(t, dir, "scripts/c.sh", "#!/bin/sh\n")
	c.Invalidate()
	if s, _ := c.Set(); len(s.Scripts) != 3 {
		t.Errorf("not rediscovered after Invalidate: %v", names(s))
	}
	// TTL 0: every call discovers.
	cfg.CacheTTL = 0
	c = NewCache(cfg, clock)
	a, _ := c.Set()
	b, _ := c.Set()
	if a == b {
		t.Error("cache_ttl 0 cached")
	}
	// A clock that goes back does not keep a stale set forever.
	cfg.CacheTTL = time.Hour
	c = NewCache(cfg, clock)
	a, _ = c.Set()
	now = now.Add(-time.Minute)
	if b, _ := c.Set(); a == b {
		t.Error("clock went back: cached set kept")
	}
	// Errors are not cached.
	c = NewCache(Config{Root: dir, BaseDirectory: "missing", Patterns: []string{"*.sh"}, CacheTTL: time.Hour}, clock)
	if _, err := c.Set(); err == nil {
		t.Error("missing base directory")
	}
	if err := os.Mkdir(filepath.Join(dir, "missing"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Set(); err != nil {
		t.Errorf("error was cached: %v", err)
	}
}
