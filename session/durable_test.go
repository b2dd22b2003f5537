package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/internal/testenv"
	"github.com/cuff-dev/cuff/transcript"
)

// TestFullDiskLeavesNoEmptySession: on a full file system every attempt to
// start a session fails cleanly, leaving no session file (the hook tries
// once per event, and each used to leave an empty session behind).
func TestFullDiskLeavesNoEmptySession(t *testing.T) {
	mnt := testenv.Tmpfs(t, 1<<20)
	s := Open(filepath.Join(mnt, DirName))
	w, err := s.Create(&transcript.SessionStart{Agent: "before"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w.Close(transcript.StatusComplete)
	testenv.FillDisk(t, mnt)
	for i := 0; i < 5; i++ {
		if w, err := s.Create(&transcript.SessionStart{Agent: "during", WorkingDirectory: strings.Repeat("d", 8000)}, time.Now()); err == nil {
			w.Close(transcript.StatusComplete)
			t.Fatalf("attempt %d: a session started on a full disk", i)
		} else if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("attempt %d: %v, want ENOSPC", i, err)
		}
	}
	entries, _ := os.ReadDir(s.SessionsDir())
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 2 { // the one session from before: events and meta
		t.Errorf("after the failed starts the store holds %v", names)
	}
	os.Remove(filepath.Join(mnt, "filler"))
	all, err := s.Sessions()
	if err != nil || len(all) != 1 || all[0].Agent != "before" {
		t.Errorf("sessions after the disk was freed: %v %v", all, err)
	}
}

// TestPruneOfLastEventKeepsItsIDUnused: pruning the last run must not let
// the next append give its id to another event.
func TestPruneOfLastEventKeepsItsIDUnused(t *testing.T) {
	s, _ := newStore(t)
	w, err := s.Create(&transcript.SessionStart{Agent: "t"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	code := 1
	start := transcript.New(w.ID(), time.Now(), &transcript.BashStart{Command: "false"})
	w.Append(start)
	run := transcript.New(w.ID(), time.Now(), &transcript.BashRun{Command: "false", ExitCode: &code})
	run.CallID = start.CallID
	w.Append(run)
	pruned := run.ID
	res, err := s.PruneRuns(func(string, *transcript.Event, *transcript.BashRun) bool { return true }, false)
	if err != nil || res.Runs != 1 {
		t.Fatalf("prune: %+v %v", res, err)
	}
	next := transcript.New(w.ID(), time.Now(), &transcript.ChatTurn{Role: transcript.RoleUser, Text: "after"})
	if err := w.Append(next); err != nil {
		t.Fatal(err)
	}
	if next.Seq <= run.Seq || next.ID == pruned {
		t.Errorf("the next event got seq %d (id %s); the pruned run had %d (%s)", next.Seq, next.ID, run.Seq, pruned)
	}
	// Another process (a new writer) sees the mark too.
	w.Detach()
	w2, _ := s.Resume(w.ID())
	again := transcript.New(w.ID(), time.Now(), &transcript.ChatTurn{Role: transcript.RoleUser, Text: "later"})
	w2.Append(again)
	w2.Close(transcript.StatusComplete)
	if again.Seq != next.Seq+1 {
		t.Errorf("a resumed writer gave seq %d, want %d", again.Seq, next.Seq+1)
	}
}

// TestPruneCopiesGarbageVerbatim: a prune rewrites only the runs it drops;
// everything else, malformed lines and a torn tail included, stays byte for
// byte, without the rewrite holding a garbage line whole.
func TestPruneCopiesGarbageVerbatim(t *testing.T) {
	s, _ := newStore(t)
	w, _ := s.Create(&transcript.SessionStart{Agent: "t"}, time.Now())
	code := 0
	run := transcript.New(w.ID(), time.Now(), &transcript.BashRun{Command: "true", ExitCode: &code})
	w.Append(run)
	w.Detach()
	path := s.EventsPath(w.ID())
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	garbage := "\x00\x00not json " + strings.Repeat("z", 1<<20) + "\n{\"torn"
	f.WriteString(garbage)
	f.Close()
	before, _ := os.ReadFile(path)
	if _, err := s.PruneRuns(func(string, *transcript.Event, *transcript.BashRun) bool { return true }, false); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	want := strings.Replace(string(before), string(run.Raw)+"\n", "", 1)
	if string(after) != want {
		t.Errorf("the prune changed more than the run: %d bytes, want %d", len(after), len(want))
	}
}

// TestNonRegularSessionFileRefused: a session file replaced by a link, a
// directory or a named pipe is refused by readers and the writer, and left
// out of the listing with a warning that says why.
func TestNonRegularSessionFileRefused(t *testing.T) {
	s, _ := newStore(t)
	var warnings []string
	s.Warn = func(msg string) { warnings = append(warnings, msg) }
	w, _ := s.Create(&transcript.SessionStart{Agent: "t"}, time.Now())
	w.Close(transcript.StatusComplete)
	if all, _ := s.Sessions(); len(all) != 1 {
		t.Fatalf("listed %d sessions", len(all))
	}
	path := s.EventsPath(w.ID())
	for name, make := range map[string]func() error{
		"symbolic link": func() error { return os.Symlink("/dev/zero", path) },
		"named pipe":    func() error { return syscall.Mkfifo(path, 0o600) },
		"directory":     func() error { return os.Mkdir(path, 0o700) },
	} {
		os.RemoveAll(path)
		if err := make(); err != nil {
			t.Fatal(err)
		}
		warnings = nil
		all, err := s.Sessions()
		if err != nil || len(all) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "not a regular file") {
			t.Errorf("%s: listed %d, %v, warnings %q", name, len(all), err, warnings)
		}
		var nr *transcript.NotRegularError
		if _, err := s.ReadEvents(w.ID(), func(*transcript.Event) error { return nil }); !errors.As(err, &nr) {
			t.Errorf("%s: ReadEvents: %v", name, err)
		}
		if w, err := s.Resume(w.ID()); !errors.As(err, &nr) {
			t.Errorf("%s: Resume: %v", name, err)
			if w != nil {
				w.Detach()
			}
		}
		if _, err := os.Stat(s.leasePath(w.ID())); err == nil {
			t.Errorf("%s: a refused writer left its lease file", name)
		}
		if _, err := s.Find(w.ID()[9:20]); !errors.As(err, &nr) {
			t.Errorf("%s: Find: %v, want it to say why", name, err)
		}
	}
}

// TestSummaryWaitsForATornLine: a line still being written when the store
// is listed is summarised once it is complete, not skipped.
func TestSummaryWaitsForATornLine(t *testing.T) {
	s, _ := newStore(t)
	w, _ := s.Create(&transcript.SessionStart{Agent: "t"}, time.Now())
	w.Detach()
	line := `{"v":1,"type":"chat_turn","id":"e_x_2","session_id":"` + w.ID() + `","seq":2,"ts":"2026-01-01T00:00:00Z","role":"user","text":"hello there"}`
	f, _ := os.OpenFile(s.EventsPath(w.ID()), os.O_WRONLY|os.O_APPEND, 0)
	defer f.Close()
	f.WriteString(line[:30])
	all, _ := s.Sessions()
	if len(all) != 1 || all[0].EntryCount != 1 {
		t.Fatalf("with a torn line: %+v", all)
	}
	f.WriteString(line[30:] + "\n")
	all, _ = s.Sessions()
	if len(all) != 1 || all[0].EntryCount != 2 || all[0].Turns != 1 || all[0].Malformed != 0 {
		t.Errorf("once complete: %d events, %d turns, %d malformed", all[0].EntryCount, all[0].Turns, all[0].Malformed)
	}
}

// TestFollowDoesNotHoldAnUnfinishedLine: a follower (the TUI's live view)
// keeps only where an unfinished line starts, so a 128 MB torn tail of NUL
// bytes costs it nothing; a long event split across reads still arrives
// whole once its newline does.
func TestFollowDoesNotHoldAnUnfinishedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendLine(t, path, `{"v":1,"type":"chat_turn","seq":1,"role":"user","text":"one"}`+"\n")
	fi, _ := os.Stat(path)
	os.Truncate(path, fi.Size()+128<<20)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	c, stop := startFollow(t, path, FollowOptions{NoNotify: true})
	c.wait(t, 1)
	// The whole tail has been read once the follower has seen the newline
	// that ends it: wait for the line after it.
	big := strings.Repeat("b", 1<<20)
	appendLine(t, path, "\n"+`{"v":1,"type":"chat_turn","seq":2,"role":"user","text":"`+big[:1000])
	appendLine(t, path, big+`"}`+"\n")
	items := c.wait(t, 3)
	stop()
	runtime.ReadMemStats(&ms)
	if used := ms.TotalAlloc - before; used > 24<<20 {
		t.Errorf("following allocated %d MB for a 128 MB torn tail and a 1 MB line", used>>20)
	}
	var le *transcript.LineError
	if !errors.As(items[1].Err, &le) || le.Line != 2 {
		t.Errorf("the NUL line: %+v", items[1])
	}
	if ev := items[2].Event; ev == nil || len(ev.Body.(*transcript.ChatTurn).Text) != 1000+1<<20 {
		t.Errorf("the long line: %+v", items[2])
	}
}

// TestRunOfDeadRecorderIsInterrupted: a run whose start names a recorder
// that has died is read back ended (interrupted: the recorder died), listed
// as a command and a failure, and found by Runs; one whose recorder lives is
// still running; one without a recorder is judged by the session's life.
func TestRunOfDeadRecorderIsInterrupted(t *testing.T) {
	s, _ := newStore(t)
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	dead := ProcessOf(sleeper.Process.Pid)
	sleeper.Process.Kill()
	sleeper.Wait()
	if dead == nil || !RecorderGone(dead) || RecorderGone(SelfRecorder()) {
		t.Fatalf("recorders: dead %+v gone %v, self gone %v", dead, RecorderGone(dead), RecorderGone(SelfRecorder()))
	}
	w, _ := s.Create(&transcript.SessionStart{Agent: "t"}, time.Now())
	for _, rec := range []*transcript.RecorderProcess{dead, SelfRecorder()} {
		w.Append(transcript.New(w.ID(), time.Now(), &transcript.BashStart{Command: "sleep 300", Recorder: rec}))
	}
	var ends []*transcript.BashRun
	s.ReadEvents(w.ID(), func(ev *transcript.Event) error {
		if b, ok := ev.Body.(*transcript.BashRun); ok {
			ends = append(ends, b)
		}
		return nil
	})
	if len(ends) != 1 || !ends[0].RecorderDied() || !ends[0].Failed() {
		t.Errorf("ends read back: %+v", ends)
	}
	all, _ := s.Sessions()
	if all[0].AllCommands() != 1 || all[0].Failures() != 1 {
		t.Errorf("listed: %d commands, %d failures", all[0].AllCommands(), all[0].Failures())
	}
	if runs, _ := s.Runs(RunFilter{}); len(runs) != 1 || runs[0].Event.CallID == "" || runs[0].Start == nil {
		t.Errorf("runs: %+v", runs)
	}
	// Without a recorder: running while a writer holds the session, over
	// once it has none and nothing was appended for a while.
	w.Append(transcript.New(w.ID(), time.Now(), &transcript.BashStart{Command: "hook run"}))
	count := func() int {
		n := 0
		s.ReadEvents(w.ID(), func(ev *transcript.Event) error {
			if b, ok := ev.Body.(*transcript.BashRun); ok && b.RecorderDied() {
				n++
			}
			return nil
		})
		return n
	}
	if n := count(); n != 1 {
		t.Errorf("with the writer there: %d died", n)
	}
	w.Detach()
	old := time.Now().Add(-time.Hour) // no append for an hour, no writer
	os.Chtimes(s.EventsPath(w.ID()), old, old)
	if n := count(); n != 2 {
		t.Errorf("with no writer and no recent append: %d died, want 2", n)
	}
}

// FuzzFollowerLines feeds a file to the follower in pieces, as appends
// arrive, and checks it against reading the whole file: the same events in
// the same order and the same malformed lines, however the pieces fall.
func FuzzFollowerLines(f *testing.F) {
	f.Add([]byte(`{"v":1,"type":"chat_turn","seq":1,"text":"a"}`+"\n\x00\x00\n"+`{"v":1,"type":"chat_turn","seq":2,"text":"b"}`+"\n{\"torn"), uint8(3))
	f.Add([]byte("junk\n\n  {\"v\":1,\"type\":\"session_end\",\"seq\":5}\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, piece uint8) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		file, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		var got []string
		fl := &follower{path: path, file: file, fn: func(it FollowItem) {
			switch {
			case it.Event != nil:
				got = append(got, fmt.Sprintf("event %d %s", it.Event.Seq, it.Event.Type))
			case it.Err != nil:
				got = append(got, "bad line")
			}
		}}
		n := max(1, int(piece))
		for i := 0; i < len(data); i += n {
			chunk := data[i:min(i+n, len(data))]
			file.Write(chunk)
			fl.offset += int64(len(chunk))
			fl.consume(chunk)
		}
		var want []string
		rd := transcript.NewReader(bytes.NewReader(data))
		for {
			ev, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var le *transcript.LineError
			if errors.As(err, &le) {
				want = append(want, "bad line")
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, fmt.Sprintf("event %d %s", ev.Seq, ev.Type))
		}
		// The follower passes a seq on once: drop repeats from the reference.
		var dedup []string
		var last int64
		for _, w := range want {
			var seq int64
			var typ string
			if _, err := fmt.Sscanf(w, "event %d %s", &seq, &typ); err == nil && seq > 0 {
				if seq <= last {
					continue
				}
				last = seq
			}
			dedup = append(dedup, w)
		}
		if strings.Join(got, "|") != strings.Join(dedup, "|") {
			t.Fatalf("pieces of %d:\n got %v\nwant %v", n, got, dedup)
		}
	})
}
