package session

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

const crashDirEnv = "CUFF_TEST_CRASH_DIR"
const crashResumeEnv = "CUFF_TEST_CRASH_RESUME"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashWriter(dir, os.Getenv(crashResumeEnv))
		return
	}
	code := m.Run()
	removeBenchHistories()
	os.Exit(code)
}

// crashWriter appends events until it is killed.
func crashWriter(dir, resume string) {
	s := Open(dir)
	var w *Writer
	var err error
	if resume != "" {
		w, err = s.Resume(resume)
	} else {
		w, err = s.Create(&transcript.SessionStart{Agent: "crash"}, time.Now())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(w.ID())
	big := strings.Repeat("output line\n", 2000)
	for i := 0; ; i++ {
		c := i % 3
		if err := w.Append(transcript.New(w.ID(), time.Now(), &transcript.BashRun{Command: "step", ExitCode: &c, Stdout: big})); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func TestWriterKilledRepeatedly(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 50 processes")
	}
	s, _ := newStore(t)
	exe, _ := os.Executable()
	var ids []string
	const kills = 50
	for i := 0; i < kills; i++ {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), crashDirEnv+"="+s.Dir)
		if len(ids) > 0 && i%2 == 1 {
			cmd.Env = append(cmd.Env, crashResumeEnv+"="+ids[rand.IntN(len(ids))])
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		n, _ := out.Read(buf)
		if id := strings.TrimSpace(string(buf[:n])); ValidID(id) && !contains(ids, id) {
			ids = append(ids, id)
		}
		time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if i%10 == 9 && len(ids) > 0 { // a crash that tears the last line
			p := s.EventsPath(ids[rand.IntN(len(ids))])
			// Tear only files with more than one line: the line being written
			// when a crash hits is never the session's first, which Create
			// writes before it returns.
			if data, err := os.ReadFile(p); err == nil && strings.Count(string(data), "\n") > 1 {
				os.Truncate(p, int64(len(data))-int64(rand.IntN(90)+1))
			}
		}
	}
	os.Remove(s.IndexPath())
	all, err := s.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(ids) {
		t.Fatalf("listed %d sessions, created %d", len(all), len(ids))
	}
	for _, id := range ids {
		var last int64
		var n int
		st, err := s.ReadEvents(id, func(ev *transcript.Event) error {
			if ev.Seq <= last {
				return fmt.Errorf("seq %d after %d", ev.Seq, last)
			}
			last = ev.Seq
			n++
			return nil
		})
		if err != nil {
			t.Fatalf("session %s: %v", id, err)
		}
		if n == 0 || st.Malformed > kills/10+1 {
			t.Errorf("session %s: %d events, stats %+v", id, n, st)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
