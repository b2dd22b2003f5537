package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cuff-dev/cuff/internal/testenv"
	"github.com/cuff-dev/cuff/internal/tmuxtest"
)

// TestKilledExecTakesItsCommandAlong: kill -9 of `cuff exec` must not leave
// the command's process group running (re-parented to init), grandchildren
// included.
func TestKilledExecTakesItsCommandAlong(t *testing.T) {
	dir := gitProject(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	home := t.TempDir()
	cmd := exec.Command(cuffBin, "exec", "--shell", "echo $$ > "+pidFile+"; sleep 300 & sleep 300")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, ".state"), "CUFF_DIR=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pgid := pidOf(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	if len(testenv.LiveGroupMembers(pgid)) == 0 {
		t.Fatalf("the command's group %d is not seen running", pgid)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	testenv.WaitGroupGone(t, pgid, "after kill -9 of cuff exec")
	diedEverywhere(t, dir, filepath.Join(dir, ".cuff"))
}

// diedEverywhere checks that the one run of the project, whose recorder was
// killed, shows as interrupted by the recorder's death in every view that
// counts runs: record list (a command, a failure), record show, runs list,
// runs show, and the TUI.
func diedEverywhere(t *testing.T, dir, store string) {
	t.Helper()
	const died = "interrupted: the recorder died"
	list := cuff(t, dir, "", "--dir", store, "record", "list", "--format", "json")
	var sessions []map[string]any
	if err := json.Unmarshal([]byte(list.stdout), &sessions); err != nil || len(sessions) != 1 {
		t.Fatalf("record list: %v\n%s%s", err, list.stdout, list.stderr)
	}
	id, _ := sessions[0]["session_id"].(string)
	if sessions[0]["commands"] != 1.0 || sessions[0]["commands_failed"] != 1.0 {
		t.Errorf("record list counts: %v", sessions[0])
	}
	if r := cuff(t, dir, "", "--dir", store, "record", "show", id, "--entries"); !strings.Contains(r.stdout, died) || !strings.Contains(r.stdout, "Failed: 1") {
		t.Errorf("record show:\n%s%s", r.stdout, r.stderr)
	}
	if r := cuff(t, dir, "", "--dir", store, "runs", "list"); !strings.Contains(r.stdout, died) {
		t.Errorf("runs list:\n%s%s", r.stdout, r.stderr)
	}
	runs := cuff(t, dir, "", "--dir", store, "runs", "list", "--format", "json")
	var rows []map[string]any
	json.Unmarshal([]byte(runs.stdout), &rows)
	if len(rows) != 1 || rows[0]["error"] != "CUFF-REC-001: "+died || rows[0]["success"] != false {
		t.Fatalf("runs list json: %s", runs.stdout)
	}
	if r := cuff(t, dir, "", "--dir", store, "runs", "show", rows[0]["id"].(string)); !strings.Contains(r.stdout, died) {
		t.Errorf("runs show:\n%s%s", r.stdout, r.stderr)
	}
	ts := tmuxtest.Start(t, fmt.Sprintf("%s %s --dir %s watch %s", envLine(t), cuffBin, store, id))
	ts.WaitScreen(died)
}

// TestKilledMCPTakesItsCommandsAlong: the same for `cuff mcp` with a call
// running.
func TestKilledMCPTakesItsCommandsAlong(t *testing.T) {
	p := newMCPProject(t, "", "")
	r := p.startRaw(t)
	pgid := r.startSleeping(t)
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	if len(testenv.LiveGroupMembers(pgid)) == 0 {
		t.Fatalf("the command's group %d is not seen running", pgid)
	}
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-r.done
	r.done <- err
	testenv.WaitGroupGone(t, pgid, "after kill -9 of cuff mcp")
	diedEverywhere(t, p.root, p.dir)
}

// TestHookRunOfDeadAgentIsInterrupted: a Bash command the hook recorded the
// start of, whose agent is gone with no PostToolUse, shows as interrupted
// by the recorder's death (the agent records a hook run's end).
func TestHookRunOfDeadAgentIsInterrupted(t *testing.T) {
	e := newHookEnv(t)
	payload, _ := json.Marshal(map[string]any{"session_id": e.session, "transcript_path": e.transcript, "cwd": e.dir,
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "toolu_gone", "tool_input": map[string]any{"command": "make"}})
	// timeout stands in for the agent: the hook's parent, gone once the hook returns.
	agent := exec.Command("timeout", "60", cuffBin, "hook", "claude")
	agent.Dir = e.dir
	agent.Env = append(os.Environ(), "CUFF_STATE_DIR="+e.state, "HOME="+e.state, "CLAUDE_PROJECT_DIR="+e.dir)
	agent.Stdin = strings.NewReader(string(payload))
	if out, err := agent.CombinedOutput(); err != nil {
		t.Fatalf("hook: %v\n%s", err, out)
	}
	r := e.run("", "runs", "list", "--format", "json")
	if !strings.Contains(r.stdout, "CUFF-REC-001: interrupted: the recorder died") {
		t.Errorf("runs list:\n%s%s", r.stdout, r.stderr)
	}
}
