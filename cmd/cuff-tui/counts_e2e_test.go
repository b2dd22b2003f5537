package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/tmuxtest"
)

// countsTranscript is a Claude Code session with a prompt, reasoning, two
// answers, a command left in the background, a command that fails and a
// tool that returns an error: 3 turns, 2 commands, 2 failures.
func countsTranscript(t *testing.T, home, id string, at time.Time) string {
	t.Helper()
	n := 0
	line := func(typ string, msg any, extra map[string]any) string {
		n++
		rec := map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/home/dev/shop",
			"sessionId": id, "version": "2.1.40", "gitBranch": "main", "type": typ, "message": msg,
			"uuid": fmt.Sprintf("u-%d", n), "timestamp": at.Add(time.Duration(n) * time.Second).UTC().Format("2006-01-02T15:04:05.000Z")}
		for k, v := range extra {
			rec[k] = v
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	assistant := func(mid string, content ...any) string {
		return line("assistant", map[string]any{"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4",
			"content": content, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}, nil)
	}
	result := func(callID, text string, isError bool, tur map[string]any) string {
		var extra map[string]any
		if tur != nil {
			extra = map[string]any{"toolUseResult": tur}
		}
		return line("user", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result",
			"tool_use_id": callID, "content": text, "is_error": isError}}}, extra)
	}
	body := line("user", map[string]any{"role": "user", "content": "start the dev server and check the build"}, nil) +
		assistant("m1", map[string]any{"type": "thinking", "thinking": "The server first, then the build."},
			map[string]any{"type": "text", "text": "I'll start the server in the background."}) +
		assistant("m2", map[string]any{"type": "tool_use", "id": "toolu_bg", "name": "Bash",
			"input": map[string]any{"command": "npm run dev", "run_in_background": true}}) +
		result("toolu_bg", "Command running in background with ID: bash_1", false, map[string]any{"stdout": "", "stderr": "",
			"interrupted": false, "backgroundTaskId": "bash_1"}) +
		assistant("m3", map[string]any{"type": "tool_use", "id": "toolu_fail", "name": "Bash",
			"input": map[string]any{"command": "npm run build"}}) +
		result("toolu_fail", "Exit code 2\nbuild failed", true, nil) +
		assistant("m4", map[string]any{"type": "tool_use", "id": "toolu_read", "name": "Read",
			"input": map[string]any{"file_path": "/home/dev/shop/missing.ts"}}) +
		result("toolu_read", "<tool_use_error>File does not exist.</tool_use_error>", true, nil) +
		assistant("m5", map[string]any{"type": "text", "text": "The build fails; the server runs."})
	dir := filepath.Join(home, ".claude", "projects", "-home-dev-shop")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// position is the "N/M" the session view shows on its status bar: M is
// how many items it shows.
var position = regexp.MustCompile(`(\d+)/(\d+) · \d+%`)

// shownItems is how many items the status bar says the view shows ("" when
// it says none).
func shownItems(screen string) string {
	m := position.FindStringSubmatch(lastLine(screen))
	if m == nil {
		return ""
	}
	return m[2]
}

// waitShown waits until the session view's filter says filter, its status
// bar says it shows n items, and the screen does not show hidden ("" for
// nothing to check).
func waitShown(t *testing.T, ts *tmuxtest.Session, filter, n, hidden string) {
	t.Helper()
	ts.WaitFor(fmt.Sprintf("%s with %s items", filter, n), func(s string) bool {
		return strings.Contains(s, filter) && shownItems(s) == n && (hidden == "" || !strings.Contains(s, hidden))
	})
}

// TestTUIOneCountEverywhere: the list, record show, the markdown export,
// the session view's header and its filters give the same turns and
// failures for one session, and a command left in the background is not
// a failure anywhere.
func TestTUIOneCountEverywhere(t *testing.T) {
	for _, size := range e2eSizes {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			p := listProject(t)
			p.home = t.TempDir()
			id := "3c0f1a2b-1111-4222-8333-444455556666"
			countsTranscript(t, p.home, id, time.Now().Add(-time.Hour))

			cuff := func(args ...string) string {
				cmd := exec.Command(filepath.Join(binDir, "cuff"), append([]string{"--dir", p.dir}, args...)...)
				cmd.Env = append(os.Environ(), "HOME="+p.home, "XDG_CONFIG_HOME="+p.home+"/config", "XDG_STATE_HOME="+p.home+"/state",
					"XDG_CACHE_HOME="+p.home+"/cache", "CUFF_STATE_DIR="+p.state, "NO_COLOR=1", "TZ=UTC")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("cuff %v: %v\n%s", args, err, out)
				}
				return string(out)
			}
			show := cuff("record", "show", "claude:3c0f1a2b")
			for _, want := range []string{"(3 turns,", "Failures: 2 (1 commands, 1 tool calls)", "In the background: 1"} {
				if !strings.Contains(show, want) {
					t.Errorf("record show lacks %q:\n%s", want, show)
				}
			}
			md := cuff("record", "export", "claude:3c0f1a2b", "--format", "markdown")
			if !strings.Contains(md, "3 turns · 1 tool call · 2 commands · ❌ 2 failures") {
				t.Errorf("the export counts differently:\n%s", md[:min(len(md), 1500)])
			}
			if !strings.Contains(md, "⏩ Bash: `npm run dev`") {
				t.Errorf("the background command is not marked as such in the export")
			}

			// Every check waits for the whole screen it needs: a frame may be
			// read half drawn, and a foreign session shows "?" until counted.
			ts := p.startSized(t, size[0], size[1])
			counts := regexp.MustCompile(`\s2\s+2\s`) // commands, failures
			if size[0] >= 160 {
				counts = regexp.MustCompile(`\s3\s+2\s+2\s`) // turns too
			}
			waitRow(t, ts, "start the dev server", "the counts "+counts.String(), counts.MatchString)
			ts.Keys("Enter")
			ts.WaitScreen("The build fails; the server runs.", "⏩ in background")
			if size[0] >= 160 {
				ts.WaitScreen("3 turns · 2 commands · 2 failures")
			}
			ts.Keys("1") // turns
			waitShown(t, ts, "only turns", "3", "")
			ts.Keys("4") // failures
			waitShown(t, ts, "only failures", "2", "npm run dev")
			ts.Keys("q")
		})
	}
}
