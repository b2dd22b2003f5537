package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// FileMode is the permission of every file cuff writes; recordings may hold
// secrets the redactor did not know.
const FileMode = 0o600

// tailWindow is how much of a file's end is read at first to find the last
// complete line; it doubles until a whole line fits.
const tailWindow = 64 << 10

// AppendOptions configures an Appender.
type AppendOptions struct {
	// Redact, when set, rewrites each encoded line before it is written
	// (secret redaction). An error refuses the write: nothing unredacted is
	// ever written.
	Redact func(line []byte) ([]byte, error)
	// NoSync skips the fsync after each append. Only for tests and
	// benchmarks that measure everything but the disk.
	NoSync bool
}

// Appender adds events to one JSONL file durably. Each append takes an
// advisory lock (flock) on the file, so any number of processes may append
// to the same session: seq is taken from the last complete line under the
// lock, the lines are written with one write, then the file is fsynced. A
// torn tail left by a crash is closed with a newline first, so the fragment
// stays one malformed line and the new events stay readable.
type Appender struct {
	f         *os.File
	path      string
	sessionID string
	opts      AppendOptions
	lastSeq   int64
	knownSize int64 // file size after our last append; -1 when unknown
}

// OpenAppender opens (creating if needed, mode 0600) the JSONL file at path
// for appending events of session sessionID.
func OpenAppender(path, sessionID string, opts AppendOptions) (*Appender, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, FileMode)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&^FileMode != 0 {
		if err := f.Chmod(FileMode); err != nil {
			f.Close()
			return nil, fmt.Errorf("tighten permissions of %s: %w", path, err)
		}
	}
	return &Appender{f: f, path: path, sessionID: sessionID, opts: opts, knownSize: -1}, nil
}

// Path is the file the appender writes.
func (a *Appender) Path() string { return a.path }

// LastSeq is the seq of the last event this appender wrote or saw.
func (a *Appender) LastSeq() int64 { return a.lastSeq }

// Close releases the file.
func (a *Appender) Close() error {
	if err := a.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", a.path, err)
	}
	return nil
}

// Append assigns each event its seq and id (and the session id when empty),
// encodes and redacts it, and writes all of them durably. On success each
// event's Raw holds the bytes written.
func (a *Appender) Append(events ...*Event) error {
	if len(events) == 0 {
		return nil
	}
	fi, err := a.lockCurrent()
	if err != nil {
		return err
	}
	defer flock(a.f, unix.LOCK_UN) //nolint:errcheck // closing the fd releases it too

	size := fi.Size()
	var out []byte
	if size != a.knownSize {
		seq, endsClean, err := lastSeq(a.f, size)
		if err != nil {
			return fmt.Errorf("read end of %s: %w", a.path, err)
		}
		a.lastSeq = seq
		if !endsClean {
			out = append(out, '\n')
		}
	}
	seq := a.lastSeq
	starts := make([]int, len(events))
	for i, ev := range events {
		seq++
		line, err := a.encode(ev, seq)
		if err != nil {
			return err
		}
		starts[i] = len(out)
		out = append(out, line...)
		out = append(out, '\n')
	}
	n, err := a.f.Write(out)
	if err != nil {
		a.knownSize = -1
		return fmt.Errorf("write %s: %w", a.path, err)
	}
	if !a.opts.NoSync {
		if err := a.f.Sync(); err != nil {
			a.knownSize = -1
			return fmt.Errorf("sync %s: %w", a.path, err)
		}
	}
	a.lastSeq = seq
	a.knownSize = size + int64(n)
	for i, ev := range events {
		end := len(out) - 1
		if i+1 < len(starts) {
			end = starts[i+1] - 1
		}
		ev.Raw = json.RawMessage(out[starts[i]:end])
	}
	return nil
}

// lockCurrent takes the file's lock, first reopening the path if the file
// was replaced (a rewrite that pruned events renames a new file into place),
// so that nothing is appended to a file no reader will see.
func (a *Appender) lockCurrent() (os.FileInfo, error) {
	for attempt := 0; ; attempt++ {
		if err := flock(a.f, unix.LOCK_EX); err != nil {
			return nil, fmt.Errorf("lock %s: %w", a.path, err)
		}
		fi, err := a.f.Stat()
		if err != nil {
			flock(a.f, unix.LOCK_UN) //nolint:errcheck
			return nil, fmt.Errorf("stat %s: %w", a.path, err)
		}
		onDisk, err := os.Stat(a.path)
		if err == nil && os.SameFile(fi, onDisk) || attempt == maxReopen {
			return fi, nil
		}
		flock(a.f, unix.LOCK_UN) //nolint:errcheck
		f, err := os.OpenFile(a.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, FileMode)
		if err != nil {
			return nil, fmt.Errorf("reopen %s: %w", a.path, err)
		}
		a.f.Close()
		a.f, a.knownSize = f, -1
	}
}

// maxReopen bounds how often an append follows a replaced file.
const maxReopen = 3

// encode stamps ev with seq and returns its redacted line.
func (a *Appender) encode(ev *Event, seq int64) ([]byte, error) {
	if ev.SessionID == "" {
		ev.SessionID = a.sessionID
	}
	if ev.V == 0 {
		ev.V = SchemaVersion
	}
	ev.Seq = seq
	ev.ID = EventID(ev.SessionID, seq)
	if Paired(ev.Type) && ev.CallID == "" {
		ev.CallID = NewCallID()
	}
	var line []byte
	var err error
	if ev.Body == nil && len(ev.Raw) > 0 {
		line, err = restampRaw(ev)
	} else {
		line, err = ev.MarshalJSON() // not json.Marshal, which would re-scan the whole line
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s event: %w", ev.Type, err)
	}
	if a.opts.Redact != nil {
		if line, err = a.opts.Redact(line); err != nil {
			return nil, fmt.Errorf("redact %s event: %w", ev.Type, err)
		}
	}
	if bytes.IndexByte(line, '\n') >= 0 {
		return nil, fmt.Errorf("encode %s event: newline in encoded line", ev.Type)
	}
	return line, nil
}

// restampRaw rewrites the envelope fields of a raw event of unknown kind,
// keeping all its other fields.
func restampRaw(ev *Event) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(ev.Raw, &fields); err != nil {
		return nil, err
	}
	set := func(k string, v any) {
		b, _ := json.Marshal(v) // strings and ints always encode
		fields[k] = b
	}
	set("v", ev.V)
	set("session_id", ev.SessionID)
	set("seq", ev.Seq)
	set("id", ev.ID)
	return json.Marshal(fields)
}

// lastSeq finds the seq of the last complete line of f that holds one, and
// whether f ends with a newline (a file that does not was torn by a crash).
func lastSeq(f *os.File, size int64) (seq int64, endsClean bool, err error) {
	if size == 0 {
		return 0, true, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return 0, false, err
	}
	endsClean = last[0] == '\n'
	end := size - 1 // index of the newline that ends the line to examine
	if !endsClean {
		start, err := lineStart(f, size)
		if err != nil {
			return 0, false, err
		}
		// A write cut short just before its newline leaves a whole event:
		// the newline written next makes it a readable line, so its seq
		// counts. Anything less is a fragment that stays malformed.
		if s, ok := wholeEventSeq(f, start, size); ok {
			return s, false, nil
		}
		if start == 0 {
			return 0, false, nil // one torn line and nothing before it
		}
		end = start - 1
	}
	for end >= 0 {
		start, err := lineStart(f, end)
		if err != nil {
			return 0, endsClean, err
		}
		if s, ok := seqOf(io.NewSectionReader(f, start, end-start)); ok {
			return s, endsClean, nil
		}
		end = start - 1
	}
	return 0, endsClean, nil
}

// wholeEventSeq reads the bytes [start, end) and returns their seq if they
// are one complete JSON object.
func wholeEventSeq(f *os.File, start, end int64) (int64, bool) {
	buf := make([]byte, end-start)
	if _, err := f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	if !json.Valid(buf) {
		return 0, false
	}
	return seqOf(bytes.NewReader(buf))
}

// lineStart returns the offset where the line that ends just before end
// begins: one past the previous newline, or 0.
func lineStart(f *os.File, end int64) (int64, error) {
	buf := make([]byte, tailWindow)
	for pos := end; pos > 0; {
		n := int64(len(buf))
		if n > pos {
			n = pos
		}
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, pos-n); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return pos - n + int64(i) + 1, nil
		}
		pos -= n
	}
	return 0, nil
}

// seqOf returns the top-level seq field of one line, if the line is a JSON
// object that has one. It decodes only as far as the seq key, which cuff
// writes near the start, so a long line costs little.
func seqOf(line io.Reader) (int64, bool) {
	dec := json.NewDecoder(line)
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, false
		}
		if key == "seq" {
			var n json.Number
			if err := dec.Decode(&n); err != nil {
				return 0, false
			}
			v, err := n.Int64()
			return v, err == nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0, false
		}
	}
	return 0, false
}

// flock takes or releases an advisory lock, retrying when interrupted.
func flock(f *os.File, how int) error {
	for {
		err := unix.Flock(int(f.Fd()), how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
