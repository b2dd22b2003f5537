//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cuff-dev/cuff/internal/testenv"
)

// TestRecordingNeverStopsACommand fills a tiny tmpfs that holds the store:
// the command still runs and returns its result, and once space is back
// recording resumes in a new session and the cut-off one is marked
// interrupted.
func TestRecordingNeverStopsACommand(t *testing.T) {
	dir := gitProject(t)
	store := filepath.Join(dir, ".cuff")
	os.Mkdir(store, 0o700)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", store).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", store).Run() })
	state := t.TempDir()
	run := func(args ...string) result {
		return cuffEnv(t, dir, "", []string{"CUFF_STATE_DIR=" + state, "HOME=" + t.TempDir(), "NO_COLOR=1"}, args...)
	}
	if r := run("exec", "echo", "first"); r.code != 0 || r.stderr != "" {
		t.Fatalf("first run: %+v", r)
	}
	filler := filepath.Join(store, "filler")
	exec.Command("dd", "if=/dev/zero", "of="+filler, "bs=4k", "count=1000").Run() // until the disk is full
	r := run("exec", "sh", "-c", "seq 1 5000; exit 7")
	if r.code != 7 || !strings.HasSuffix(r.stdout, "\n5000\n") || !strings.Contains(r.stderr, "recording failed") {
		t.Fatalf("run on a full disk: %+v", r)
	}
	os.Remove(filler)
	r = run("exec", "echo", "third")
	if r.code != 0 || !strings.Contains(r.stderr, "recording recovered") {
		t.Fatalf("run after space is back: %+v", r)
	}
	list := run("record", "list", "--format", "json")
	if strings.Count(list.stdout, `"session_id"`) != 2 || !strings.Contains(list.stdout, `"status": "interrupted"`) {
		t.Errorf("sessions after recovery:\n%s", list.stdout)
	}
	runs := run("runs", "list")
	if !strings.Contains(runs.stdout, "echo first") || !strings.Contains(runs.stdout, "echo third") {
		t.Errorf("runs:\n%s", runs.stdout)
	}
}

// TestReadOnlyStoreStillRuns runs a command with the store on a read-only
// filesystem: a warning, and the command's own result.
func TestReadOnlyStoreStillRuns(t *testing.T) {
	dir := gitProject(t)
	store := filepath.Join(dir, ".cuff")
	os.Mkdir(store, 0o700)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", store).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", store).Run() })
	r := cuff(t, dir, "", "exec", "sh", "-c", "echo ran; exit 4")
	if r.code != 4 || r.stdout != "ran\n" || !strings.Contains(r.stderr, "recording failed") ||
		!strings.Contains(r.stderr, "read-only file system") {
		t.Errorf("%+v", r)
	}
}

// TestFullDiskHookLeavesNoEmptySessions: hook events arriving while the
// store's disk is full are not recorded and leave nothing behind (each used
// to leave an empty session, listed with agent "-"); once space is back the
// hook records again.
func TestFullDiskHookLeavesNoEmptySessions(t *testing.T) {
	e := newHookEnv(t)
	store := filepath.Join(e.dir, ".cuff")
	mnt := testenv.Tmpfs(t, 512<<10)
	if err := os.Mkdir(store, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(mnt, store, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount the tmpfs into the project: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(store, syscall.MNT_DETACH) })
	testenv.FillDisk(t, store)
	for i := 0; i < 4; i++ {
		r := e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": fmt.Sprintf("toolu_%d", i),
			"tool_input": map[string]any{"command": "ls"}})
		if r.code != 0 {
			t.Fatalf("hook on a full disk: %+v", r)
		}
	}
	sessions, _ := filepath.Glob(filepath.Join(store, "recordings", "sessions", "*.jsonl"))
	if len(sessions) != 0 {
		t.Errorf("the hook left sessions on a full disk: %v", sessions)
	}
	os.Remove(filepath.Join(store, "filler"))
	r := e.send("PreToolUse", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_after",
		"tool_input": map[string]any{"command": "ls"}})
	if r.code != 0 {
		t.Fatalf("hook after space is back: %+v", r)
	}
	list := e.run("", "record", "list", "--format", "json")
	if strings.Count(list.stdout, `"session_id"`) != 1 || !strings.Contains(list.stdout, `"agent": "claude-code"`) {
		t.Errorf("sessions after space is back:\n%s%s", list.stdout, list.stderr)
	}
}
