package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// allocated runs fn and returns how many bytes it allocated (the heap's
// running total: deterministic for a given code path, unlike RSS).
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// nulTail writes one event, then extends the file with size NUL bytes: a
// crash on a file system that had grown the file but not written its data
// leaves exactly that (a sparse tail, cheap to make).
func nulTail(t *testing.T, path string, size int64, newline bool) {
	t.Helper()
	a, err := OpenAppender(path, "s", AppendOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "before the crash"})); err != nil {
		t.Fatal(err)
	}
	a.Close()
	fi, _ := os.Stat(path)
	if err := os.Truncate(path, fi.Size()+size); err != nil {
		t.Fatal(err)
	}
	if newline {
		f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString("\n")
		f.Close()
	}
}

// TestAppendAfterHugeNULTailIsBounded: the next append after a crash that
// left a 256 MB NUL tail neither holds the tail nor loses the seq.
func TestAppendAfterHugeNULTailIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	nulTail(t, path, 256<<20, false)
	var ev *Event
	used := allocated(func() {
		a, err := OpenAppender(path, "s", AppendOptions{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		ev = New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "after"})
		if err := a.Append(ev); err != nil {
			t.Fatal(err)
		}
	})
	if used > 4<<20 {
		t.Errorf("the append allocated %d MB for a 256 MB torn tail", used>>20)
	}
	if ev.Seq != 2 {
		t.Errorf("seq %d after the torn tail, want 2", ev.Seq)
	}
	// Readers skip the NUL line, now complete, without holding it either.
	var events []*Event
	var st ReadStats
	used = allocated(func() { events, st = readFileQuiet(t, path) })
	if used > 4<<20 {
		t.Errorf("reading allocated %d MB for a 256 MB garbage line", used>>20)
	}
	if len(events) != 2 || st.Malformed != 1 || events[1].Seq != 2 {
		t.Errorf("read back %d events, stats %+v", len(events), st)
	}
}

// TestReaderSkipsHugeTornTailWithoutHoldingIt: a torn tail of NULs (no
// newline) costs readers nothing either.
func TestReaderSkipsHugeTornTailWithoutHoldingIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	nulTail(t, path, 256<<20, false)
	var events []*Event
	var st ReadStats
	used := allocated(func() { events, st = readFileQuiet(t, path) })
	if used > 4<<20 {
		t.Errorf("reading allocated %d MB for a 256 MB torn tail", used>>20)
	}
	if len(events) != 1 || st.Truncated != 1 {
		t.Errorf("read back %d events, stats %+v", len(events), st)
	}
}

// readFileQuiet reads every event of the file at path.
func readFileQuiet(t *testing.T, path string) ([]*Event, ReadStats) {
	t.Helper()
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := NewReader(f)
	var events []*Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return events, r.Stats()
		}
		var le *LineError
		if errors.As(err, &le) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, ev)
	}
}

// TestNotRegularSessionFilesAreRefused: a session file that is a link (to
// /dev/zero, to a file, to nowhere), a directory, a named pipe or a device
// is refused by the writer and the reader alike, at once and without
// blocking or following it.
func TestNotRegularSessionFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("{}\n"), 0o600)
	cases := map[string]func(p string) error{
		"symlink to /dev/zero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"symlink to a file":    func(p string) error { return os.Symlink(target, p) },
		"dangling symlink":     func(p string) error { return os.Symlink(filepath.Join(dir, "nowhere"), p) },
		"directory":            func(p string) error { return os.Mkdir(p, 0o700) },
		"named pipe":           func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"device":               func(p string) error { return syscall.Mknod(p, syscall.S_IFCHR|0o600, 1<<8|5) }, // 1,5 is /dev/zero
	}
	for name, make := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".jsonl")
		if err := make(p); err != nil {
			t.Logf("%s: cannot make one here (%v)", name, err)
			continue
		}
		_, err := OpenAppender(p, "s", AppendOptions{})
		var nr *NotRegularError
		if !errors.As(err, &nr) || nr.Path != p {
			t.Errorf("%s: OpenAppender: %v, want a NotRegularError", name, err)
		}
		if _, err := Open(p); !errors.As(err, &nr) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: Open: %v, want a NotRegularError", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("the dangling link's target was created")
	}
	if data, _ := os.ReadFile(target); string(data) != "{}\n" {
		t.Errorf("the link's target was written: %q", data)
	}
}

// TestAppendReplacedByLinkIsRefused: a session file replaced by a link
// while an appender has it open is not written through.
func TestAppendReplacedByLinkIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	target := filepath.Join(dir, "target")
	os.WriteFile(target, nil, 0o600)
	a, err := OpenAppender(path, "s", AppendOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "one"}))
	os.Remove(path)
	os.Symlink(target, path)
	err = a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "two"}))
	var nr *NotRegularError
	if !errors.As(err, &nr) {
		t.Errorf("append after the file became a link: %v", err)
	}
	if data, _ := os.ReadFile(target); len(data) != 0 {
		t.Errorf("written through the link: %q", data)
	}
}

// TestSeqNeverReusedAfterHighWater: once a high-water mark is recorded
// (events were pruned from the end), appends continue above it.
func TestSeqNeverReusedAfterHighWater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	a, _ := OpenAppender(path, "s", AppendOptions{NoSync: true})
	a.Append(New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "one"}))
	a.Close()
	if err := SetHighWater(path, 7); err != nil {
		t.Fatal(err)
	}
	if err := SetHighWater(path, 5); err != nil { // never lowered
		t.Fatal(err)
	}
	b, _ := OpenAppender(path, "s", AppendOptions{NoSync: true})
	defer b.Close()
	ev := New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "two"})
	b.Append(ev)
	if ev.Seq != 8 || ev.ID != "e_s_8" {
		t.Errorf("seq %d id %s after a high-water mark of 7", ev.Seq, ev.ID)
	}
}

// TestRawEventKeepsEnvelopeFirst: an event of a kind this version does not
// know is restamped with the envelope first, so that its seq is found near
// the start of its line however big its other fields.
func TestRawEventKeepsEnvelopeFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	a, _ := OpenAppender(path, "s", AppendOptions{NoSync: true})
	defer a.Close()
	raw := `{"type":"future_kind","aaa":"` + strings.Repeat("x", 200<<10) + `","zzz":1,"v":1}`
	ev, err := Decode([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Append(ev); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(ev.Raw), `{"v":1,"type":"future_kind","id":"e_s_1","session_id":"s","seq":1,`) ||
		!strings.Contains(string(ev.Raw), `"aaa":"xxx`) || !strings.HasSuffix(string(ev.Raw), `"zzz":1}`) {
		t.Errorf("restamped line starts %.120q and ends %q", ev.Raw, ev.Raw[len(ev.Raw)-20:])
	}
	b, _ := OpenAppender(path, "s", AppendOptions{NoSync: true})
	defer b.Close()
	next := New("s", time.Now(), &ChatTurn{Role: RoleUser, Text: "after"})
	b.Append(next)
	if next.Seq != 2 {
		t.Errorf("seq after the raw event %d, want 2", next.Seq)
	}
}

// FuzzLineReader checks the line splitting against a plain split: every
// complete line is returned whole when it may be an event (first non-blank
// byte '{') and as a prefix of itself otherwise, the offsets add up, and a
// final fragment is reported once. One line is stretched past the buffer.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\x00\x00\n  {\"b\":2}\n"), uint16(1))
	f.Add([]byte("garbage\n{}\n{\"torn"), uint16(0))
	f.Add([]byte("   \n\t{}\n"), uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, stretch uint16) {
		parts := bytes.Split(data, []byte{'\n'})
		k := int(stretch) % len(parts)
		fill := byte('x')
		if len(parts[k]) > 0 {
			fill = parts[k][len(parts[k])-1]
		}
		if fill == '\n' {
			fill = ' '
		}
		parts[k] = append(bytes.Clone(parts[k]), bytes.Repeat([]byte{fill}, 3*minReadBuffer)...)
		input := bytes.Join(parts, []byte{'\n'})
		checkLines(t, NewLineReaderSize(bytes.NewReader(input), minReadBuffer), parts, false)
		pad := []byte("garbage before\n")
		checkLines(t, NewLineReaderAt(bytes.NewReader(append(pad, input...)), int64(len(pad)), int64(len(pad)+len(input))), parts, true)
	})
}

// checkLines reads lr to its end and checks it against the lines of the
// input. A LineReaderAt returns only the head of a final fragment.
func checkLines(t *testing.T, lr *LineReader, parts [][]byte, at bool) {
	t.Helper()
	var off int64
	for i, want := range parts {
		last := i == len(parts)-1
		got, complete, err := lr.Next()
		if last && len(want) == 0 {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("after the last newline: %q %v %v", got, complete, err)
			}
			break
		}
		if err != nil || complete == last {
			t.Fatalf("line %d: complete %v err %v (last %v)", i+1, complete, err, last)
		}
		w, g := bytes.TrimSpace(want), bytes.TrimSpace(got)
		if len(w) > 0 && w[0] == '{' && !(at && last) {
			if !bytes.Equal(g, w) {
				t.Fatalf("line %d: got %.40q, want %.40q", i+1, g, w)
			}
		} else if !bytes.HasPrefix(w, g) {
			t.Fatalf("line %d: %.40q is not a prefix of %.40q", i+1, g, w)
		}
		if !last {
			off += int64(len(want)) + 1
		}
		if lr.Offset() != off {
			t.Fatalf("line %d: offset %d, want %d", i+1, lr.Offset(), off)
		}
	}
	if _, _, err := lr.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the end: %v", err)
	}
}

// FuzzLastSeq: whatever a file holds, the seq of a well-formed line
// appended after it is what lastSeq finds, and garbage after that line
// (a torn tail) does not change it.
func FuzzLastSeq(f *testing.F) {
	f.Add([]byte(`{"v":1,"seq":3}`+"\n"), []byte("\x00\x00"))
	f.Add([]byte("{\"seq\":"), []byte(`{"seq":9`))
	f.Add([]byte(""), []byte(`{"v":1,"seq":12}`))
	f.Fuzz(func(t *testing.T, before, tail []byte) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		content := append(bytes.Clone(before), "\n"+`{"v":1,"type":"chat_turn","seq":4242,"text":"x"}`+"\n"...)
		if bytes.IndexByte(tail, '\n') < 0 {
			content = append(content, tail...)
		}
		os.WriteFile(path, content, 0o600)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		seq, clean, err := lastSeq(f, int64(len(content)))
		if err != nil {
			t.Fatal(err)
		}
		if clean != (content[len(content)-1] == '\n') {
			t.Errorf("endsClean %v for %q", clean, content[len(content)-1:])
		}
		// A torn tail that is itself a whole event with a seq counts; else
		// the line before it does.
		if seq != 4242 {
			if whole, ok := wholeEventSeq(f, int64(len(content)-len(tail)), int64(len(content))); !ok || whole != seq {
				t.Errorf("seq %d, want 4242 (tail %q)", seq, tail)
			}
		}
	})
}
