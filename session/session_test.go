package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

func newStore(t testing.TB) (*Store, *[]string) {
	t.Helper()
	s := Open(filepath.Join(t.TempDir(), DirName))
	var warnings []string
	s.Warn = func(m string) { warnings = append(warnings, m) }
	return s, &warnings
}

// record creates a session with a prompt and the given exit codes as bash runs.
func record(t testing.TB, s *Store, at time.Time, prompt string, codes ...int) string {
	t.Helper()
	w, err := s.Create(&transcript.SessionStart{Agent: "claude-code", Source: transcript.SourceExec, WorkingDirectory: "/proj"}, at)
	if err != nil {
		t.Fatal(err)
	}
	evs := []*transcript.Event{transcript.New(w.ID(), at, &transcript.ChatTurn{Role: transcript.RoleUser, Text: prompt})}
	for i, c := range codes {
		c := c
		evs = append(evs, transcript.New(w.ID(), at.Add(time.Duration(i+1)*time.Second),
			&transcript.BashRun{Command: fmt.Sprintf("cmd %d", c), ExitCode: &c, DurationMS: int64(100 * (i + 1))}))
	}
	if err := w.Append(evs...); err != nil {
		t.Fatal(err)
	}
	end := transcript.New(w.ID(), at.Add(time.Duration(len(codes)+1)*time.Second), &transcript.SessionEnd{Status: transcript.StatusComplete})
	if err := w.Append(end); err != nil {
		t.Fatal(err)
	}
	if err := w.refresh(); err != nil {
		t.Fatal(err)
	}
	w.release()
	return w.ID()
}

func TestCreateListAndCounts(t *testing.T) {
	s, warnings := newStore(t)
	at := time.Date(2026, 1, 18, 14, 30, 52, 0, time.UTC)
	id := record(t, s, at, "fix the\nbuild", 0, 1, 0)
	all, err := s.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 {
		t.Fatalf("%d sessions", len(all))
	}
	m := all[0]
	if m.SessionID != id || m.Commands != 3 || m.CommandsFailed != 1 || m.CommandsSucceeded != 2 ||
		m.Turns != 1 || m.Status != "complete" || m.Title != "fix the build" || m.Live {
		t.Errorf("meta %+v", m)
	}
	if len(*warnings) != 0 {
		t.Errorf("warnings %v", *warnings)
	}
	for _, p := range []string{s.EventsPath(id), s.MetaPath(id), s.IndexPath()} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", p, err, fi)
		}
	}
	for _, d := range []string{s.Dir, s.Recordings, s.SessionsDir()} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != DirMode {
			t.Errorf("%s mode %v", d, fi.Mode().Perm())
		}
	}
	if _, err := os.Stat(s.leasePath(id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lease file left behind: %v", err)
	}
}

func TestLooseStoreIsTightened(t *testing.T) {
	s, _ := newStore(t)
	if err := os.MkdirAll(s.SessionsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(s.Dir, 0o755)
	record(t, s, time.Now(), "x")
	for _, d := range []string{s.Dir, s.SessionsDir()} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != DirMode {
			t.Errorf("%s not tightened: %v", d, fi.Mode().Perm())
		}
	}
}

func TestIndexRebuiltWhenCorruptOrMissing(t *testing.T) {
	for _, damage := range []string{"corrupt", "missing", "wrong-entry"} {
		t.Run(damage, func(t *testing.T) {
			s, warnings := newStore(t)
			a := record(t, s, time.Now().Add(-time.Hour), "one", 0)
			b := record(t, s, time.Now(), "two", 1, 1)
			switch damage {
			case "corrupt":
				os.WriteFile(s.IndexPath(), []byte(`{"version":"1.0","sessions":{`), 0o600)
			case "missing":
				os.Remove(s.IndexPath())
			case "wrong-entry":
				os.WriteFile(s.IndexPath(), []byte(`{"version":"1.0","sessions":{"../x":{"session_id":"../x"}}}`), 0o600)
			}
			all, err := s.Sessions()
			if err != nil {
				t.Fatal(err)
			}
			if len(all) != 2 || all[0].SessionID != b || all[1].SessionID != a || all[0].CommandsFailed != 2 {
				t.Fatalf("after rebuild: %+v", all)
			}
			if len(*warnings) != 1 || !strings.Contains((*warnings)[0], "rebuilding") {
				t.Errorf("warnings %q", *warnings)
			}
			if ix, err := s.readIndex(); err != nil || ix == nil || ix.TotalSessions != 2 {
				t.Errorf("index not saved: %v %+v", err, ix)
			}
		})
	}
}

func TestStaleIndexRefreshedIncrementally(t *testing.T) {
	s, _ := newStore(t)
	w, err := s.Create(&transcript.SessionStart{Agent: "a"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(transcript.StatusComplete)
	all, _ := s.Sessions()
	if all[0].Commands != 0 || !all[0].Live || all[0].Status != "active" {
		t.Fatalf("fresh session %+v", all[0])
	}
	code := 3
	w.Append(transcript.New(w.ID(), time.Now(), &transcript.BashRun{Command: "x", ExitCode: &code}))
	all, _ = s.Sessions()
	if all[0].Commands != 1 || all[0].CommandsFailed != 1 || all[0].EntryCount != 2 {
		t.Fatalf("after append %+v", all[0])
	}
}

func TestInterruptedWhenWriterGone(t *testing.T) {
	s, _ := newStore(t)
	w, err := s.Create(&transcript.SessionStart{Agent: "a"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * LiveWindow)
	w.Detach()
	os.Chtimes(s.EventsPath(w.ID()), old, old)
	all, _ := s.Sessions()
	if all[0].Live || all[0].Status != StatusIdle {
		t.Errorf("idle session %+v", all[0])
	}
	w, _ = s.Resume(w.ID())
	w.Append(transcript.New(w.ID(), time.Now(), &transcript.BashStart{Command: "sleep 1000"}))
	w.Detach()
	os.Chtimes(s.EventsPath(w.ID()), old, old)
	all, _ = s.Sessions()
	if all[0].Live || all[0].Status != transcript.StatusInterrupted {
		t.Errorf("session with a command cut off: %+v", all[0])
	}
}

func TestFind(t *testing.T) {
	s, _ := newStore(t)
	a := record(t, s, time.Date(2026, 1, 18, 14, 30, 52, 0, time.UTC), "a")
	b := record(t, s, time.Date(2026, 1, 18, 16, 3, 15, 0, time.UTC), "b")
	if m, err := s.Find(a); err != nil || m.SessionID != a {
		t.Errorf("exact: %v %v", m, err)
	}
	if m, err := s.Find("160315"); err != nil || m.SessionID != b {
		t.Errorf("partial: %v %v", m, err)
	}
	var amb *AmbiguousError
	if _, err := s.Find("20260118"); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Errorf("ambiguous: %v", err)
	}
	var nf *NotFoundError
	if _, err := s.Find("999999"); !errors.As(err, &nf) || err.Error() != "Session '999999' not found" {
		t.Errorf("not found: %v", err)
	}
	for _, bad := range []string{"../../etc/passwd", "a\x00b", "2026\n", "/etc", "", "ABC", strings.Repeat("1", 40)} {
		var inv *InvalidIDError
		if _, err := s.Find(bad); !errors.As(err, &inv) {
			t.Errorf("Find(%q) = %v, want InvalidIDError", bad, err)
		}
		if _, err := s.ReadEvents(bad, nil); !errors.As(err, &inv) {
			t.Errorf("ReadEvents(%q) = %v, want InvalidIDError", bad, err)
		}
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	cases := map[string]time.Time{
		"7d": now.AddDate(0, 0, -7), "2w": now.AddDate(0, 0, -14), "1m": now.AddDate(0, 0, -30), "12h": now.Add(-12 * time.Hour),
		"2026-01-02": time.Date(2026, 1, 2, 0, 0, 0, 0, time.Local),
	}
	for in, want := range cases {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"invalid", "7", "d7", "2026-13-01", "-3d", ""} {
		_, err := ParseSince(bad, now)
		var de *DateError
		if !errors.As(err, &de) {
			t.Errorf("ParseSince(%q) error %v", bad, err)
		}
	}
}

func TestStatsAndClean(t *testing.T) {
	s, _ := newStore(t)
	old := record(t, s, time.Now().AddDate(0, 0, -40), "old", 0, 0, 2)
	record(t, s, time.Now(), "new", 0, 1)
	// make the old one's file look old too
	past := time.Now().AddDate(0, 0, -40)
	os.Chtimes(s.EventsPath(old), past, past)
	all, _ := s.Sessions()
	infos := make([]Info, len(all))
	for i, m := range all {
		infos[i] = s.InfoOf(m)
	}
	st, err := StatsOf(context.Background(), []Source{s.Source()}, infos, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Commands != 5 || st.ExitCodes.Success != 3 || st.ExitCodes.Error != 1 || st.ExitCodes.Other != 1 ||
		st.Frequency[0].Command != "cmd 0" || st.Frequency[0].Count != 3 || st.Longest.DurationMS != 300 {
		t.Errorf("stats %+v", st)
	}
	plan, err := s.PlanClean(time.Now().AddDate(0, 0, -30))
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Sessions) != 1 || plan.Sessions[0].SessionID != old || plan.Bytes == 0 {
		t.Fatalf("plan %+v", plan)
	}
	n, freed, err := s.Clean(plan)
	if err != nil || n != 1 || freed != plan.Bytes {
		t.Fatalf("clean %d %d %v", n, freed, err)
	}
	all, _ = s.Sessions()
	if len(all) != 1 {
		t.Errorf("%d sessions after clean", len(all))
	}
	if _, err := os.Stat(s.MetaPath(old)); !errors.Is(err, os.ErrNotExist) {
		t.Error("meta file left")
	}
}

// BenchmarkIndexRebuild10000 is `record list` after index.json was lost:
// every session's meta file is current, as the writers left them. It takes
// the binary's own path (Sessions, with the store syncing as the binary's
// does), not Rebuild.
func BenchmarkIndexRebuild10000(b *testing.B) {
	s := manySessions(b, 10000, true)
	benchRebuild(b, s)
}

// BenchmarkIndexRebuild10000NoMeta is the same with no meta files: every
// session file is summarised (and, as listing writes no meta file, every
// time).
func BenchmarkIndexRebuild10000NoMeta(b *testing.B) {
	s := manySessions(b, 10000, false)
	benchRebuild(b, s)
}

// BenchmarkIndexRebuild10000StaleMeta is the same with the meta files as
// `cuff exec` leaves them: written when its session started, before the
// commands that were appended since (an exec session has no end that
// would write it again).
func BenchmarkIndexRebuild10000StaleMeta(b *testing.B) {
	s := manySessions(b, 10000, true)
	ids, err := s.sessionFiles()
	if err != nil {
		b.Fatal(err)
	}
	s.NoSync = true
	for _, id := range ids {
		w, err := s.openWriter(id)
		if err != nil {
			b.Fatal(err)
		}
		c := 0
		if err := w.Append(transcript.New(id, time.Now(), &transcript.BashRun{Command: "make", ExitCode: &c})); err != nil {
			b.Fatal(err)
		}
		w.release()
	}
	s.NoSync = false
	benchRebuild(b, s)
}

// benchRebuild times listing the 10,000 sessions of s with its index lost.
func benchRebuild(b *testing.B, s *Store) {
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		os.Remove(s.IndexPath())
		if all, err := s.Sessions(); err != nil || len(all) != 10000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkList10000 lists a store whose index is up to date: what
// `record list` and the TUI pay on every refresh.
func BenchmarkList10000(b *testing.B) {
	s := manySessions(b, 10000, true)
	if _, err := s.Sessions(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	defer reportCPU(b)()
	for b.Loop() {
		if all, err := s.Sessions(); err != nil || len(all) != 10000 {
			b.Fatal(err)
		}
	}
}

// reportCPU reports the CPU time per op (user and system, all threads),
// which a loaded machine does not inflate as it does wall time. Call the
// function it returns when the loop is done.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64((cpu()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

// manySessions lays out n small finished sessions, with their meta files
// when metas is set (as writers leave them). The layout skips fsync; the
// store returned syncs, as the binary's does.
func manySessions(b *testing.B, n int, metas bool) *Store {
	s, _ := newStore(b)
	s.NoSync = true
	at := time.Now()
	for i := 0; i < n; i++ {
		w, err := s.openWriterForBench(at)
		if err != nil {
			b.Fatal(err)
		}
		c := 0
		w.Append(transcript.New(w.ID(), at, &transcript.SessionStart{Agent: "a"}),
			transcript.New(w.ID(), at, &transcript.ChatTurn{Role: "user", Text: "hello"}),
			transcript.New(w.ID(), at, &transcript.BashRun{Command: "ls", ExitCode: &c}),
			transcript.New(w.ID(), at, &transcript.SessionEnd{Status: "complete"}))
		if metas {
			m := &Meta{SessionID: w.ID()}
			if err := summarize(w.Path(), m); err != nil {
				b.Fatal(err)
			}
			if err := writeJSONAtomic(s.MetaPath(w.ID()), m); err != nil {
				b.Fatal(err)
			}
		}
		w.release()
	}
	s.NoSync = false
	return s
}

// openWriterForBench creates a session without writing its meta and index,
// so a benchmark can lay out many sessions quickly.
func (s *Store) openWriterForBench(at time.Time) (*Writer, error) {
	if err := s.ensureDirs(); err != nil {
		return nil, err
	}
	return s.openWriter(NewID(at))
}

func TestCurrentReusesOpenSessionPerKey(t *testing.T) {
	s, _ := newStore(t)
	start := &transcript.SessionStart{Agent: "cuff-exec", Source: transcript.SourceExec}
	now := time.Now()
	w1, created, err := s.Current("day:2026-01-18", CurrentOptions{Start: start, Now: now})
	if err != nil || !created {
		t.Fatal(err, created)
	}
	w1.Detach()
	w2, created, err := s.Current("day:2026-01-18", CurrentOptions{Start: start, Now: now})
	if err != nil || created || w2.ID() != w1.ID() {
		t.Fatalf("second lookup: %v %v %s vs %s", err, created, w2.ID(), w1.ID())
	}
	w2.Close(transcript.StatusComplete)
	w3, created, err := s.Current("day:2026-01-18", CurrentOptions{Start: start, Now: now})
	if err != nil || !created || w3.ID() == w1.ID() {
		t.Fatalf("after end: %v %v", err, created)
	}
	w3.Detach()
	w4, created, _ := s.Current("conv:abc", CurrentOptions{Start: start, ConversationID: "abc", Now: now})
	if !created || w4.ID() == w3.ID() {
		t.Fatal("a new key shares a session")
	}
	w4.Detach()
	all, _ := s.Sessions()
	var conv string
	for _, m := range all {
		if m.SessionID == w4.ID() {
			conv = m.ConversationID
		}
	}
	if conv != "abc" {
		t.Errorf("conversation id %q", conv)
	}
	w5, created, _ := s.Current("day:2026-01-18", CurrentOptions{Start: start, Now: now, Fresh: true})
	if !created || w5.ID() == w3.ID() {
		t.Error("Fresh reused the open session")
	}
	w5.Detach()
}
