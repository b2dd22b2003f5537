package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	childPathEnv  = "CUFF_TEST_APPEND_PATH"
	childCountEnv = "CUFF_TEST_APPEND_COUNT"
	childNameEnv  = "CUFF_TEST_APPEND_NAME"
)

// TestMain lets the test binary act as an appending child process.
func TestMain(m *testing.M) {
	if path := os.Getenv(childPathEnv); path != "" {
		n, _ := strconv.Atoi(os.Getenv(childCountEnv))
		if err := appendMany(path, os.Getenv(childNameEnv), n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func appendMany(path, name string, n int) error {
	a, err := OpenAppender(path, "s", AppendOptions{})
	if err != nil {
		return err
	}
	defer a.Close()
	for i := 0; i < n; i++ {
		ev := New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: fmt.Sprintf("%s-%d", name, i)})
		if err := a.Append(ev); err != nil {
			return err
		}
	}
	return nil
}

func readFile(t *testing.T, path string) ([]*Event, ReadStats) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f)
	events, _ := readAll(t, r)
	return events, r.Stats()
}

func TestAppendAssignsSeqAndID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	a, err := OpenAppender(path, "sess", AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	start := New("sess", time.Now(), &BashStart{Command: "ls"})
	run := New("sess", time.Now(), &BashRun{Command: "ls"})
	if err := a.Append(start); err != nil {
		t.Fatal(err)
	}
	run.CallID = start.CallID
	if err := a.Append(run); err != nil {
		t.Fatal(err)
	}
	if start.CallID == "" {
		t.Error("paired event got no call_id")
	}
	events, _ := readFile(t, path)
	if len(events) != 2 || events[1].Seq != 2 || events[1].ID != "e_sess_2" {
		t.Fatalf("events %+v", events)
	}
	if events[0].CallID != events[1].CallID {
		t.Error("call ids differ")
	}
	if string(events[1].Raw) != string(run.Raw) {
		t.Errorf("Raw after append %s, file has %s", run.Raw, events[1].Raw)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != FileMode {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), os.FileMode(FileMode))
	}
}

func TestAppendClosesTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	good := `{"v":1,"type":"chat_turn","id":"e_s_7","session_id":"s","seq":7,"ts":"2026-01-01T00:00:00Z","role":"user","text":"a"}`
	if err := os.WriteFile(path, []byte(good+"\n"+`{"v":1,"type":"chat_turn","seq":8,"text":"tor`), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := OpenAppender(path, "s", AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "b"})); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	r := NewReader(f)
	events, errs := readAll(t, r)
	if len(events) != 2 || len(errs) != 1 || errs[0].Line != 2 {
		t.Fatalf("events %d errs %v: want 2 events and line 2 malformed", len(events), errs)
	}
	if events[1].Seq != 8 {
		t.Errorf("seq after torn tail %d, want 8", events[1].Seq)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != FileMode {
		t.Errorf("loose file not tightened: %v", fi.Mode().Perm())
	}
}

func TestAppendFindsSeqBehindMalformedAndHugeLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	var b bytes.Buffer
	b.WriteString(`{"v":1,"type":"chat_turn","seq":41,"role":"user","text":"a"}` + "\n")
	b.WriteString(`{"v":1,"type":"tool_result","seq":42,"output":"` + strings.Repeat("y", 300<<10) + `"}` + "\n")
	b.WriteString("garbage line\n")
	if err := os.WriteFile(path, b.Bytes(), FileMode); err != nil {
		t.Fatal(err)
	}
	a, err := OpenAppender(path, "s", AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ev := New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "next"})
	if err := a.Append(ev); err != nil {
		t.Fatal(err)
	}
	if ev.Seq != 43 {
		t.Errorf("seq %d, want 43", ev.Seq)
	}
}

func TestAppendRedactsAndRefusesOnRedactError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	redact := func(line []byte) ([]byte, error) {
		if bytes.Contains(line, []byte("explode")) {
			return nil, errors.New("redactor broke")
		}
		return bytes.ReplaceAll(line, []byte("hunter2"), []byte("[REDACTED]")), nil
	}
	a, err := OpenAppender(path, "s", AppendOptions{Redact: redact})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if err := a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "pw hunter2"})); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "explode hunter2"})); err == nil {
		t.Fatal("append with failing redactor succeeded")
	}
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte("hunter2")) || !bytes.Contains(data, []byte("[REDACTED]")) {
		t.Errorf("file content %s", data)
	}
}

func TestConcurrentProcessesAppend(t *testing.T) {
	const procs, each = 8, 500
	path := filepath.Join(t.TempDir(), "s.jsonl")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), childPathEnv+"="+path, childCountEnv+"="+strconv.Itoa(each),
				childNameEnv+"="+fmt.Sprintf("p%d", p))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("child %d: %v: %s", p, err, out)
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	events, st := readFile(t, path)
	if len(events) != procs*each || st.Malformed != 0 || st.Truncated != 0 {
		t.Fatalf("read %d events (stats %+v), want %d intact", len(events), st, procs*each)
	}
	seen := make(map[int64]bool)
	texts := make(map[string]bool)
	for _, ev := range events {
		if seen[ev.Seq] {
			t.Fatalf("seq %d appears twice", ev.Seq)
		}
		seen[ev.Seq] = true
		texts[ev.Body.(*ChatTurn).Text] = true
	}
	for s := int64(1); s <= procs*each; s++ {
		if !seen[s] {
			t.Fatalf("seq %d missing", s)
		}
	}
	if len(texts) != procs*each {
		t.Errorf("%d distinct texts, want %d", len(texts), procs*each)
	}
}

func BenchmarkAppendFsync(b *testing.B) {
	benchmarkAppend(b, false)
}

func BenchmarkAppendNoSync(b *testing.B) {
	benchmarkAppend(b, true)
}

func benchmarkAppend(b *testing.B, noSync bool) {
	path := filepath.Join(b.TempDir(), "s.jsonl")
	a, err := OpenAppender(path, "20260118_143052_a7b3c9d2-e4f5", AppendOptions{NoSync: noSync})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	code := 0
	var took []time.Duration
	for b.Loop() {
		ev := New("20260118_143052_a7b3c9d2-e4f5", time.Now(), &BashRun{Command: "git status", ExitCode: &code, Stdout: "On branch main\n"})
		start := time.Now()
		if err := a.Append(ev); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
}

func BenchmarkReaderNext(b *testing.B) {
	var buf bytes.Buffer
	code := 0
	for i := 0; i < 1000; i++ {
		ev := New("s", time.Now(), &BashRun{Command: "git status", ExitCode: &code, Stdout: strings.Repeat("line of output\n", 20)})
		ev.Seq = int64(i + 1)
		line, _ := ev.MarshalJSON()
		buf.Write(line)
		buf.WriteByte('\n')
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		r := NewReader(bytes.NewReader(data))
		for {
			if _, err := r.Next(); errors.Is(err, io.EOF) {
				break
			}
		}
	}
}

func TestAppendAfterAWriteCutJustBeforeItsNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	a, err := OpenAppender(path, "s", AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "one"}), New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "two"}))
	a.Close()
	fi, _ := os.Stat(path)
	os.Truncate(path, fi.Size()-1) // the last event is whole, its newline lost
	b, _ := OpenAppender(path, "s", AppendOptions{})
	defer b.Close()
	ev := New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "three"})
	if err := b.Append(ev); err != nil {
		t.Fatal(err)
	}
	events, st := readFile(t, path)
	if len(events) != 3 || st.Malformed != 0 || events[2].Seq != 3 {
		t.Fatalf("%d events (stats %+v), last seq %d: want 3 events with seq 1..3", len(events), st, ev.Seq)
	}
}
