package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

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
//
// Anything at path but a regular file (a symbolic link, a directory, a
// device, a named pipe) is refused with a *NotRegularError.
func OpenAppender(path, sessionID string, opts AppendOptions) (*Appender, error) {
	f, err := openAppend(path)
	if err != nil {
		return nil, err
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
		a.lastSeq = max(seq, highWater(a.path))
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
		if n > 0 {
			// Cut short (a full disk fills the last page, then fails): take
			// the part back, under the lock, rather than leave a torn line
			// that the next append would close as a malformed one.
			_ = a.f.Truncate(size)
		}
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
		f, err := openAppend(a.path)
		if err != nil {
			return nil, err
		}
		a.f.Close()
		a.f, a.knownSize = f, -1
	}
}

// maxReopen bounds how often an append follows a replaced file.
const maxReopen = 3

// openAppend opens (creating it 0600) the regular file at path for appending.
func openAppend(path string) (*os.File, error) {
	return openRegular(path, unix.O_RDWR|unix.O_APPEND|unix.O_CREAT, FileMode)
}

// encode stamps ev with seq and returns its redacted line.
func (a *Appender) encode(ev *Event, seq int64) ([]byte, error) {
	return EncodeLine(ev, a.sessionID, seq, a.opts.Redact)
}

// EncodeLine stamps ev as the event with sequence number seq of session
// sessionID (when ev names none) and returns its line, redacted by redact
// when that is set, without the newline. It is what an Appender writes, for
// a caller that writes a session's first line itself.
func EncodeLine(ev *Event, sessionID string, seq int64, redact func([]byte) ([]byte, error)) ([]byte, error) {
	if ev.SessionID == "" {
		ev.SessionID = sessionID
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
	if redact != nil {
		if line, err = redact(line); err != nil {
			return nil, fmt.Errorf("redact %s event: %w", ev.Type, err)
		}
	}
	if bytes.IndexByte(line, '\n') >= 0 {
		return nil, fmt.Errorf("encode %s event: newline in encoded line", ev.Type)
	}
	return line, nil
}

// restampRaw rewrites the envelope fields of a raw event of unknown kind,
// keeping all its other fields in their order. The envelope goes first, as
// for every other event, so that the seq is always near the start of the
// line (see seqOf).
func restampRaw(ev *Event) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(ev.Raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	stamped := map[string]bool{"v": true, "type": true, "id": true, "session_id": true, "seq": true}
	head, err := json.Marshal(struct {
		V         int    `json:"v"`
		Type      Type   `json:"type"`
		ID        string `json:"id"`
		SessionID string `json:"session_id"`
		Seq       int64  `json:"seq"`
	}{ev.V, ev.Type, ev.ID, ev.SessionID, ev.Seq})
	if err != nil {
		return nil, err
	}
	out := head[:len(head)-1]
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		if stamped[key] {
			continue
		}
		k, _ := json.Marshal(key)
		out = append(out, ',')
		out = append(out, k...)
		out = append(out, ':')
		out = append(out, value...)
	}
	return append(out, '}'), nil
}

// lastSeq finds the seq of the last complete line of f that holds one, and
// whether f ends with a newline (a file that does not was torn by a crash).
// It reads backwards a window at a time and only the head of each line, so
// a torn tail or a garbage line of any size costs no memory.
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

// wholeEventSeq returns the seq of the bytes [start, end) of f if they are
// one complete JSON object. Nothing is held but one token at a time.
func wholeEventSeq(f *os.File, start, end int64) (int64, bool) {
	var edge [1]byte
	if _, err := f.ReadAt(edge[:], start); err != nil || edge[0] != '{' {
		return 0, false
	}
	if _, err := f.ReadAt(edge[:], end-1); err != nil || edge[0] != '}' {
		return 0, false
	}
	seq, ok := seqOf(io.NewSectionReader(f, start, end-start))
	if !ok || !validJSON(io.NewSectionReader(f, start, end-start)) {
		return 0, false
	}
	return seq, true
}

// validJSON reports whether r holds exactly one JSON value, reading it
// token by token.
func validJSON(r io.Reader) bool {
	dec := json.NewDecoder(r)
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			_, err := dec.Token()
			return errors.Is(err, io.EOF)
		}
	}
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

// seqHead is how much of a line seqOf reads: cuff writes the envelope, seq
// included, at the start of every line.
const seqHead = 64 << 10

// seqOf returns the top-level seq field of one line, if the line is a JSON
// object that has one within its first seqHead bytes. It decodes only as
// far as the seq key, so a long line costs little.
func seqOf(line io.Reader) (int64, bool) {
	dec := json.NewDecoder(io.LimitReader(line, seqHead))
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

// HighWaterPath is the file beside a session file that holds the highest seq
// ever assigned in it, once events have been removed from its end (a prune):
// ids are never given out twice.
func HighWaterPath(path string) string { return path + ".seq" }

// highWater is the recorded high-water mark of the session file at path, 0
// when there is none (or it is unreadable: the file's own seqs then rule).
func highWater(path string) int64 {
	f, err := openRegular(HighWaterPath(path), unix.O_RDONLY, 0)
	if err != nil {
		return 0
	}
	defer f.Close()
	var buf [32]byte
	n, _ := io.ReadFull(f, buf[:])
	v, err := strconv.ParseInt(string(bytes.TrimSpace(buf[:n])), 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// SetHighWater records that seq has been given out in the session file at
// path, for when the events up to it may no longer be in the file. The mark
// only ever rises. Call it holding the file's lock (as a rewrite does), and
// before the events are removed.
func SetHighWater(path string, seq int64) error {
	if seq <= highWater(path) {
		return nil
	}
	hw := HighWaterPath(path)
	tmp := hw + ".tmp"
	f, err := openRegular(tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, FileMode)
	if err != nil {
		return fmt.Errorf("record the high-water mark of %s: %w", path, err)
	}
	_, werr := fmt.Fprintf(f, "%d\n", seq)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("record the high-water mark of %s: %w", path, err)
	}
	if err := os.Rename(tmp, hw); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("record the high-water mark of %s: %w", path, err)
	}
	return nil
}
