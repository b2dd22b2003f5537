package export

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// serial reads data the way the store does, for comparison.
func serial(data []byte) ([]string, transcript.ReadStats) {
	var ids []string
	st, _ := session.ReadAll(bytes.NewReader(data), func(ev *transcript.Event) error {
		ids = append(ids, string(ev.Raw))
		return nil
	})
	return ids, st
}

func parallel(t testing.TB, data []byte) ([]string, transcript.ReadStats) {
	return parallelIn(t, bytes.NewReader(data), chunkSize)
}

// parallelIn decodes r in chunks of about size bytes.
func parallelIn(t testing.TB, r io.Reader, size int) ([]string, transcript.ReadStats) {
	var ids []string
	st, err := decodeParallel(r, size, func(ev *transcript.Event) error {
		ids = append(ids, string(ev.Raw))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids, st
}

func sameAsSerial(t testing.TB, data []byte) {
	want, wst := serial(data)
	got, gst := parallel(t, data)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("parallel decoding gave %d events, serial %d", len(got), len(want))
	}
	if gst.Malformed != wst.Malformed || gst.Truncated != wst.Truncated || gst.Unknown != wst.Unknown || gst.Lines != wst.Lines {
		t.Fatalf("stats %+v, serial %+v", gst, wst)
	}
}

func TestDecodeParallelMatchesTheReader(t *testing.T) {
	var b bytes.Buffer
	big := strings.Repeat("x", 5<<20) // longer than a chunk
	for i := 0; i < 3000; i++ {
		ev := transcript.New("s", time.Unix(int64(i), 0), &transcript.BashRun{Command: "echo", Stdout: strings.Repeat("y", i)})
		ev.Seq = int64(i + 1)
		line, _ := ev.MarshalJSON()
		b.Write(line)
		b.WriteByte('\n')
		switch i % 500 {
		case 7:
			b.WriteString("not json\n\n   \n")
		case 9:
			b.WriteString(`{"v":1,"type":"future","seq":1}` + "\n")
		case 11:
			b.WriteString(`{"v":1,"type":"bash_run","command":"` + big + `"}` + "\n")
		}
	}
	b.WriteString(`{"v":1,"type":"chat_turn","te`) // cut off mid-line
	sameAsSerial(t, b.Bytes())
	_, st := parallel(t, b.Bytes())
	if st.Malformed != 6 || st.Truncated != 1 || st.Unknown != 6 {
		t.Errorf("stats %+v", st)
	}
	sameAsSerial(t, nil)
	sameAsSerial(t, []byte("\n\n"))
}

func TestDecodeParallelStopsOnError(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 50000; i++ {
		b.WriteString(`{"v":1,"type":"chat_turn","role":"user","text":"hello there"}` + "\n")
	}
	before := runtime.NumGoroutine()
	stopErr := errors.New("sink full")
	n := 0
	_, err := DecodeParallel(bytes.NewReader(b.Bytes()), func(*transcript.Event) error {
		if n++; n == 10 {
			return stopErr
		}
		return nil
	})
	if !errors.Is(err, stopErr) || n != 10 {
		t.Errorf("error %v after %d events", err, n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before {
		t.Errorf("%d goroutines left behind", g-before)
	}
}

func TestFileReaderReadsSessions(t *testing.T) {
	s := fixtureStore(t)
	id := recordSession(t, s, time.Now(), everyKind)
	var got int
	st, err := FileReader(s.EventsPath)(id, func(*transcript.Event) error { got++; return nil })
	if err != nil || got != len(readAll(t, s, id)) || st.Unknown != 1 {
		t.Errorf("%v: %d events, %+v", err, got, st)
	}
	if _, err := FileReader(s.EventsPath)("20260101_000000_00000000-0000", nil); err == nil {
		t.Error("a missing session read without error")
	}
}

func FuzzDecodeParallel(f *testing.F) {
	f.Add([]byte(`{"v":1,"type":"chat_turn","role":"user","text":"hi"}` + "\n" + "junk\n" + `{"type":"x"}`))
	f.Add([]byte("\n\r\n{}\n{\"type\":\"bash_run\",\"exit_code\":\"no\"}\n"))
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\n{}\n{\"type\":\"chat_turn\",\"text\":\"a long line\"}\n{\"torn"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsSerial(t, data)
		// Chunks of 16 bytes: most lines are longer than a chunk, read as a
		// stream and by offset, the way exports read files.
		want, wst := serial(data)
		for _, r := range []io.Reader{bytes.NewReader(data), io.NewSectionReader(bytes.NewReader(data), 0, int64(len(data)))} {
			got, gst := parallelIn(t, r, 16)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("%T in small chunks: %d events, serial %d", r, len(got), len(want))
			}
			if gst.Malformed != wst.Malformed || gst.Unknown != wst.Unknown || gst.Lines != wst.Lines || (gst.Truncated > 0) != (wst.Truncated > 0) {
				t.Fatalf("%T in small chunks: stats %+v, serial %+v", r, gst, wst)
			}
		}
	})
}
