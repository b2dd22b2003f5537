package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestMetricsFromRecordings(t *testing.T) {
	dir := gitProject(t)
	cuff(t, dir, "", "exec", "true")
	cuff(t, dir, "", "exec", "sh", "-c", "exit 2")
	cuff(t, dir, "", "exec", "--timeout", "1", "--", "sleep", "5")
	r := cuff(t, dir, "", "metrics")
	for _, want := range []string{
		`bash_recorder_commands_total{exit_code="0",timed_out="false"} 1`,
		`bash_recorder_commands_total{exit_code="2",timed_out="false"} 1`,
		`bash_recorder_commands_total{exit_code="none",timed_out="true"} 1`,
		`bash_recorder_command_duration_seconds_count 3`,
		`bash_recorder_command_duration_seconds_bucket{le="+Inf"} 3`,
		`bash_recorder_active_sessions 1`,
		`bash_recorder_entries_recorded_total 7`,
		"# TYPE bash_recorder_output_truncated_total counter",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("metrics lack %q:\n%s", want, r.stdout)
		}
	}
}

func TestHealth(t *testing.T) {
	dir := gitProject(t)
	cuff(t, dir, "", "exec", "true")
	r := cuff(t, dir, "", "health") // text by default, as its help says
	if r.code != 0 || !strings.HasPrefix(r.stdout, "cuff is healthy\n") || !strings.Contains(r.stdout, "writable: true") {
		t.Errorf("health (text): %+v", r)
	}
	r = cuff(t, dir, "", "health", "--format", "json")
	var h map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &h); err != nil || r.code != 0 {
		t.Fatalf("health: %v %+v", err, r)
	}
	if h["healthy"] != true || h["directory_writable"] != true || h["current_session"] == nil || h["entries_recorded"] != 3.0 {
		t.Errorf("health %v", h)
	}
	store := filepath.Join(dir, ".cuff", "recordings")
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k,ro", "tmpfs", store).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a read-only tmpfs (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", store).Run() })
	r = cuff(t, dir, "", "health", "--format", "text")
	if r.code != 1 || !strings.Contains(r.stdout, "cuff is unhealthy") || !strings.Contains(r.stdout, "writable: false") {
		t.Errorf("unhealthy: %+v", r)
	}
}
