package mcpserver

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
)

// runOnce executes a command and returns its result.
func runOnce(t *testing.T, ts *testServer, command string) (ExecuteResult, string) {
	t.Helper()
	res := ts.call(t, "bash_recorder.execute", map[string]any{"command": command}, nil)
	var out ExecuteResult
	if res.StructuredContent != nil {
		decode(t, res, &out)
	}
	return out, text(res)
}

func TestReloadRecordingDirectory(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	first, msg := runOnce(t, ts, "echo one")
	if first.SessionID == nil {
		t.Fatalf("not recorded: %s", msg)
	}
	p.write(t, "settings.yml", "recording:\n  directory: other-recordings\n")
	eventually(t, "the old session ends with config_reload", func() bool {
		return endStatus(storeEvents(t, session.Open(p.dir))[*first.SessionID]) == StatusConfigReload
	})
	second, msg := runOnce(t, ts, "echo two")
	if second.SessionID == nil || *second.SessionID == *first.SessionID {
		t.Fatalf("second run: %s", msg)
	}
	other := session.Open(p.dir)
	other.Recordings = filepath.Join(p.root, "other-recordings")
	if evs := storeEvents(t, other)[*second.SessionID]; len(evs) < 3 {
		t.Errorf("second run not in the new directory: %d events", len(evs))
	}
}

func TestReloadDisablesRecording(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	first, _ := runOnce(t, ts, "echo one")
	p.write(t, "settings.yml", "recording:\n  enabled: false\n")
	eventually(t, "the session ends with recording_disabled", func() bool {
		return endStatus(events(t, p.dir)[*first.SessionID]) == StatusRecordingDisabled
	})
	second, msg := runOnce(t, ts, "echo two")
	if second.RecordingID != nil || second.Stdout != "two\n" {
		t.Errorf("recorded while disabled: %s", msg)
	}
}

func TestReloadExecutionSettings(t *testing.T) {
	p := newProject(t, "")
	ts := serve(t, p, nil, nil, "")
	if _, msg := runOnce(t, ts, "sleep 0.01"); strings.Contains(msg, "error") {
		t.Fatal(msg)
	}
	p.write(t, "settings.yml", "execution:\n  default_timeout: 2\n  max_timeout: 5\n")
	eventually(t, "the new maximum timeout applies", func() bool {
		res := ts.call(t, "bash_recorder.execute", map[string]any{"command": "true", "timeout": 10}, nil)
		return res.IsError && strings.Contains(text(res), "from 1 to 5, got 10")
	})
}

func TestBrokenSettingsReported(t *testing.T) {
	p := newProject(t, "recording:\n  session_mode: hourly\n")
	ts := serve(t, p, nil, nil, "")
	_, msg := runOnce(t, ts, "echo hi")
	if !strings.Contains(msg, "settings.yml") || !strings.Contains(msg, "session_mode") || !strings.Contains(msg, "settings.yml:2:") {
		t.Errorf("broken settings: %s", msg)
	}
	res := ts.call(t, "bash_recorder.health", nil, nil)
	if !strings.Contains(text(res), `"healthy":false`) {
		t.Errorf("health with broken settings: %s", text(res))
	}
	p.write(t, "settings.yml", "recording:\n  session_mode: per_day\n")
	eventually(t, "fixed settings apply", func() bool {
		out, _ := runOnce(t, ts, "echo fixed")
		return out.Stdout == "fixed\n"
	})
	// A later mistake keeps the working settings in force.
	p.write(t, "settings.yml", "execution: [\n")
	eventually(t, "the health check reports the settings that were not applied", func() bool {
		return strings.Contains(text(ts.call(t, "bash_recorder.health", nil, nil)), "not applied")
	})
	if out, msg := runOnce(t, ts, "echo still"); out.Stdout != "still\n" {
		t.Errorf("after a bad edit: %s", msg)
	}
}

func TestBrokenPolicyStopsCommands(t *testing.T) {
	p := newProject(t, "")
	p.write(t, "policy.yml", "rules:\n  - match: \"git push *\"\n    action: maybe\n")
	ts := serve(t, p, nil, nil, "")
	_, msg := runOnce(t, ts, "echo hi")
	if !strings.Contains(msg, "policy.yml") || !strings.Contains(msg, "cannot run commands") {
		t.Errorf("broken policy: %s", msg)
	}
}

// TestConcurrencyLimit runs a command that can only finish while a second
// one runs beside it: with execution.max_concurrent 1 it times out, since
// the second waits for its slot; once the setting says 2 it finishes.
func TestConcurrencyLimit(t *testing.T) {
	// The waiting command gives up after a second, so the test ends.
	p := newProject(t, "execution:\n  max_concurrent: 1\n  default_timeout: 1\n")
	ts := serve(t, p, nil, nil, "")
	pair := func(tag string) (ExecuteResult, ExecuteResult) {
		first := make(chan ExecuteResult, 1)
		go func() {
			out, _ := runOnce(t, ts, "touch "+tag+"-a; while [ ! -e "+tag+"-b ]; do sleep 0.01; done")
			first <- out
		}()
		eventually(t, "the first command starts", func() bool { return fileExists(filepath.Join(p.root, tag+"-a")) })
		second, _ := runOnce(t, ts, "touch "+tag+"-b")
		return <-first, second
	}
	a, b := pair("one")
	if !a.TimedOut || b.ExitCode == nil || *b.ExitCode != 0 {
		t.Errorf("max_concurrent 1: first timed out %v, second %+v", a.TimedOut, b)
	}
	// Now the first ends only when the second has started beside it: its
	// timeout is a hang guard, not a second a loaded machine may overrun.
	p.write(t, "settings.yml", "execution:\n  max_concurrent: 2\n  default_timeout: 60\n")
	eventually(t, "max_concurrent 2 applies", func() bool {
		a, _ := pair("two-" + strconv.FormatInt(time.Now().UnixNano(), 10))
		return !a.TimedOut && a.ExitCode != nil && *a.ExitCode == 0
	})
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
