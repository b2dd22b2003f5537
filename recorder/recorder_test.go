package recorder

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// TestRunSpanningMidnightStaysInOneSession: a per-day run that starts before
// midnight and ends after it is recorded whole in the day it started.
func TestRunSpanningMidnightStaysInOneSession(t *testing.T) {
	store := session.Open(filepath.Join(t.TempDir(), ".cuff"))
	now := time.Date(2026, 1, 1, 23, 59, 50, 0, time.Local)
	r := New(Options{Store: store, Mode: ModePerDay, Agent: "cuff-exec", Source: transcript.SourceExec,
		Now: func() time.Time { return now }})
	p := r.Begin(Correlation{}, &transcript.BashStart{Command: "sleep 20"})
	now = now.Add(20 * time.Second)
	code := 0
	if id := p.Finish(&transcript.BashRun{Command: "sleep 20", ExitCode: &code}); id == "" {
		t.Fatal("run not recorded")
	}
	r.Close("")
	all, err := store.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Commands != 1 || len(all[0].OpenCalls) != 0 {
		t.Fatalf("sessions %+v", all)
	}
	// the next run, on the new day, goes to a new session
	p = r.Begin(Correlation{}, &transcript.BashStart{Command: "true"})
	p.Finish(&transcript.BashRun{Command: "true", ExitCode: &code})
	r.Close("")
	if all, _ = store.Sessions(); len(all) != 2 {
		t.Errorf("%d sessions after a run on the next day, want 2", len(all))
	}
}
