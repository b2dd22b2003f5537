package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuff-dev/cuff/internal/secrettest"
	"github.com/cuff-dev/cuff/internal/tmuxtest"
)

// TestSecretsNeverLeak records every secret of the corpus (at least 60
// formats, fakes made at test time) the ways an agent's work reaches cuff —
// in a command's argv and its output through cuff exec, in a Bash command
// and its output through the Claude Code hook — and finds none of them in
// the store, in any export format, in any viewer (record show, runs list and
// show, the TUI) nor in the hook's recording.
func TestSecretsNeverLeak(t *testing.T) {
	corpus := secrettest.Corpus()
	if len(corpus) < 60 {
		t.Fatalf("corpus of %d formats, want at least 60", len(corpus))
	}
	e := newHookEnv(t)
	continuousSessions(t, e.dir) // the execs go to one session, even across midnight
	for i, c := range corpus {
		argv := append([]string{"exec", "--", "printf", "%s\\n", c.Text}, c.Argv...)
		if c.Argv != nil {
			argv = append([]string{"exec", "--", "true"}, c.Argv...)
		}
		if r := e.run("", argv...); r.code != 0 || c.Argv == nil && !strings.Contains(r.stdout, c.Secret) {
			t.Fatalf("%s: exec: %+v", c.Name, r)
		}
		id := fmt.Sprintf("toolu_%03d", i)
		e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": c.Text}})
		e.send("PostToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": c.Text},
			"tool_response": map[string]any{"stdout": "result:\n" + c.Text + "\n", "stderr": "", "interrupted": false}})
	}
	leaks := 0
	check := func(where, text string) {
		for _, c := range corpus {
			if c.Leaks(text) {
				leaks++
				t.Errorf("%s leaks %s", where, c.Name)
			}
		}
	}
	// The store, every file of it.
	store := filepath.Join(e.dir, ".cuff")
	filepath.Walk(store, func(path string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			data, _ := os.ReadFile(path)
			check("the store's "+filepath.Base(path), string(data))
		}
		return nil
	})
	// Every export format.
	out := t.TempDir()
	for _, format := range []string{"json", "jsonl", "csv", "html", "markdown", "sqlite"} {
		file := filepath.Join(out, "all."+format)
		if r := e.run("", "record", "export", "all", "--format", format, "--output", file); r.code != 0 {
			t.Fatalf("export %s: %+v", format, r)
		}
		data, _ := os.ReadFile(file)
		check("the "+format+" export", string(data))
	}
	// Every viewer.
	list := e.run("", "record", "list", "--format", "json")
	check("record list", list.stdout)
	var ids []string
	for _, line := range strings.Split(list.stdout, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), `"session_id": "`); ok && k == "" {
			ids = append(ids, strings.TrimSuffix(strings.TrimSuffix(v, ","), `"`))
		}
	}
	if len(ids) != 2 {
		t.Fatalf("sessions: %v\n%s", ids, list.stdout)
	}
	for _, id := range ids {
		check("record show", e.run("", "record", "show", id, "--entries", "--output").stdout)
	}
	check("runs list", e.run("", "runs", "list", "--limit", "0").stdout)
	runs := e.run("", "runs", "list", "--limit", "0", "--format", "json").stdout
	check("runs list --format json", runs)
	check("runs list --format csv", e.run("", "runs", "list", "--limit", "0", "--format", "csv").stdout)
	n := 0
	for _, line := range strings.Split(runs, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), `"id": "`); ok && k == "" && n < 200 {
			n++
			check("runs show", e.run("", "runs", "show", strings.TrimSuffix(strings.TrimSuffix(v, ","), `"`), "--full").stdout)
		}
	}
	if n < 2*len(corpus) {
		t.Errorf("runs show looked at %d runs, want %d", n, 2*len(corpus))
	}
	// The TUI, page by page through each session.
	for _, id := range ids {
		ts := tmuxtest.Start(t, fmt.Sprintf("%s CUFF_STATE_DIR=%s %s --dir %s watch %s", envLine(t), e.state, cuffBin, store, id))
		ts.WaitScreen("? help")
		for page := 0; page < 60; page++ {
			check("the TUI", ts.Screen())
			ts.Keys("PageDown")
		}
		ts.Keys("q")
	}
	t.Logf("%d formats, recorded %d ways, %d leaks", len(corpus), 2, leaks)
}

// TestSecretAcrossTheOutputCut: an output longer than the limit is cut in
// the middle; a token that the cut falls in is redacted whole before the
// cut (it used to keep 31 of its 36 characters, which no rule recognises).
func TestSecretAcrossTheOutputCut(t *testing.T) {
	dir := gitProject(t)
	var tok secrettest.Case
	for _, c := range secrettest.Corpus() {
		if c.Name == "github classic token" {
			tok = c
		}
	}
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte(tok.Secret), 0o600)
	// The default limit keeps 500,000 bytes of head: the token starts on a
	// line of its own 10 bytes before the cut.
	script := fmt.Sprintf("head -c 499989 /dev/zero | tr '\\0' x; echo; cat %s; echo; head -c 3000000 /dev/zero | tr '\\0' y", secret)
	if r := cuff(t, dir, "", "exec", "--shell", script); r.code != 0 || !strings.Contains(r.stdout, tok.Secret) {
		t.Fatalf("exec: %d", r.code)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, ".cuff", "recordings", "sessions", "*.jsonl"))
	data, _ := os.ReadFile(paths[0])
	if !strings.Contains(string(data), "bytes omitted") {
		t.Fatal("the output was not cut")
	}
	if tok.Leaks(string(data)) || strings.Contains(string(data), tok.Secret[:14]) {
		t.Errorf("part of the token was kept across the cut")
	}
}
