// Package approval is the broker between agents whose commands wait for a
// person and the people who answer them. Requests and decisions are files
// in the per-user state directory, so one TUI sees the requests of every
// project's agents:
//
//	approvals/pending/<id>.json    a request, written by the requester
//	approvals/decided/<id>.json    its decision, created exclusively: the first decision wins
//	watchers/<pid>.json            heartbeats of running TUIs
//	grants/<key>.json              session-scoped approvals and taint of one agent session
//
// Files are written atomically with mode 0600 in 0700 directories; a file of
// another user, one with looser permissions, or a name that is not a
// request id is ignored. The decider records the approval_decision event in
// the session the request names, so the record stands even if the requester
// has died.
package approval

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cuff-dev/cuff/session"
	"github.com/cuff-dev/cuff/transcript"
)

// Defaults of a Broker.
const (
	// DefaultTimeout is how long a request waits for an answer.
	DefaultTimeout = 300 * time.Second
	// DefaultGrace is how long request and decision files stay after the
	// request expired, so that a slow waiter still finds its answer.
	DefaultGrace = 5 * time.Minute
	// DefaultPollInterval is how often waiters look at the files when file
	// notifications are not available or were missed.
	DefaultPollInterval = 500 * time.Millisecond
	// DefaultHeartbeat is how often a running TUI refreshes its heartbeat.
	DefaultHeartbeat = 2 * time.Second
	// MinPrefix is the shortest id prefix that names a request.
	MinPrefix = 6
	// maxDiffBytes bounds the diff a request carries.
	maxDiffBytes = 1 << 20
)

// Broker reads and writes the approval files of one user. The zero value is
// not usable; call New.
type Broker struct {
	// Dir is the user state directory.
	Dir string
	// Timeout is how long a new request waits (approvals.timeout).
	Timeout time.Duration
	// Grace keeps expired files this long before Clean removes them.
	Grace time.Duration
	// PollInterval is the fallback rescan period of Wait and Watch.
	PollInterval time.Duration
	// Heartbeat is the refresh period of StartHeartbeat; a heartbeat older
	// than five periods is stale.
	Heartbeat time.Duration
	// Now is the clock; tests may replace it.
	Now func() time.Time
	// Warn receives problems that do not stop the work, such as a session
	// that could not be written. Nil discards them.
	Warn func(msg string)
	// OpenStore opens the store of the session a request names, so that
	// the caller can apply that project's settings (such as redaction) to
	// the events the broker records. Nil opens it plainly.
	OpenStore func(ref SessionRef) (*session.Store, error)

	// noNotify turns file notifications off, leaving polling alone; tests
	// use it to exercise the fallback.
	noNotify bool
}

// New returns a broker over the state directory dir with the defaults.
func New(dir string) *Broker {
	return &Broker{Dir: dir, Timeout: DefaultTimeout, Grace: DefaultGrace,
		PollInterval: DefaultPollInterval, Heartbeat: DefaultHeartbeat, Now: time.Now}
}

// StateDir is the per-user state directory: $CUFF_STATE_DIR, else
// $XDG_STATE_HOME/cuff, else ~/.local/state/cuff — or, with neither
// variable set, the directory a running TUI announced there (see
// Announce), so that a process started with a short environment (an MCP
// server under Codex) finds the TUI all the same.
func StateDir(getenv func(string) string) (string, error) {
	if d := getenv("CUFF_STATE_DIR"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "cuff"), nil
	}
	def, err := DefaultStateDir(getenv)
	if err != nil {
		return "", err
	}
	if d, ok := redirected(def); ok {
		return d, nil
	}
	return def, nil
}

func (b *Broker) pendingDir() string { return filepath.Join(b.Dir, "approvals", "pending") }
func (b *Broker) decidedDir() string { return filepath.Join(b.Dir, "approvals", "decided") }
func (b *Broker) watchersDir() string {
	return filepath.Join(b.Dir, "watchers")
}
func (b *Broker) grantsDir() string { return filepath.Join(b.Dir, "grants") }

func (b *Broker) pendingPath(id string) string { return filepath.Join(b.pendingDir(), id+".json") }
func (b *Broker) decidedPath(id string) string { return filepath.Join(b.decidedDir(), id+".json") }

func (b *Broker) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

func (b *Broker) warn(format string, args ...any) {
	if b.Warn != nil {
		b.Warn(fmt.Sprintf(format, args...))
	}
}

func (b *Broker) timeout() time.Duration {
	if b.Timeout > 0 {
		return b.Timeout
	}
	return DefaultTimeout
}

func (b *Broker) grace() time.Duration {
	if b.Grace > 0 {
		return b.Grace
	}
	return DefaultGrace
}

func (b *Broker) poll() time.Duration {
	if b.PollInterval > 0 {
		return b.PollInterval
	}
	return DefaultPollInterval
}

// ensureDirs creates the state directories, tightening looser ones.
func (b *Broker) ensureDirs(dirs ...string) error {
	if b.Dir == "" {
		return errors.New("no state directory: set CUFF_STATE_DIR or HOME")
	}
	for _, d := range append([]string{b.Dir, filepath.Join(b.Dir, "approvals")}, dirs...) {
		if err := ensureDir(d); err != nil {
			return err
		}
	}
	return nil
}

// Submit files a request: it fills in the id, call id (when empty), pid and
// times (expiring after the broker's timeout), records the approval_request
// event in the request's session and then writes the pending file, so that
// the request event always precedes its decision. A failure to record the
// event is returned as a *RecordError after the request was filed.
func (b *Broker) Submit(req *Request) (*Request, error) {
	r := *req
	r.V = formatVersion
	r.ID = NewID()
	if r.CallID == "" {
		r.CallID = transcript.NewCallID()
	}
	r.PID = os.Getpid()
	now := b.now().UTC()
	r.CreatedAt = now
	r.ExpiresAt = now.Add(b.timeout())
	if len(r.Diff) > maxDiffBytes {
		r.Diff = r.Diff[:maxDiffBytes] + "\n… (diff cut at 1 MiB)"
	}
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("submit %w", err)
	}
	if err := b.ensureDirs(b.pendingDir(), b.decidedDir()); err != nil {
		return nil, err
	}
	data, err := encode(&r)
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	recErr := b.record(&r, r.Event())
	if err := writeAtomic(b.pendingPath(r.ID), data); err != nil {
		return nil, err
	}
	if _, err := b.Clean(); err != nil {
		b.warn("clean approvals: %v", err)
	}
	return &r, recErr
}

// Get reads the pending request id. A missing, untrusted or malformed file
// is a *NotFoundError.
func (b *Broker) Get(id string) (*Request, error) {
	if !ValidID(id) {
		return nil, &NotFoundError{ID: id}
	}
	r, _, err := b.readRequest(id)
	if err != nil {
		return nil, &NotFoundError{ID: id, cause: err}
	}
	return r, nil
}

func (b *Broker) readRequest(id string) (*Request, fs.FileInfo, error) {
	data, fi, err := readTrusted(b.pendingPath(id))
	if err != nil {
		return nil, fi, err
	}
	r, err := ParseRequest(data)
	if err != nil {
		return nil, fi, err
	}
	if r.ID != id {
		return nil, fi, fmt.Errorf("request file %s.json holds request %s: %w", id, r.ID, errUntrusted)
	}
	return r, fi, nil
}

// Decision returns the decision on request id, or nil when there is none
// (a file that is not trusted or not well formed does not count).
func (b *Broker) Decision(id string) *Decision {
	d, _, _ := b.readDecision(id)
	return d
}

// decisionOn returns the decision on request r, or nil: a decision file
// counts only when it can answer r (made after r was filed).
func (b *Broker) decisionOn(r *Request) *Decision {
	if d := b.Decision(r.ID); d != nil && d.answers(r) {
		return d
	}
	return nil
}

// readDecision reads decided/<id>.json. fi is set when a file was there,
// even one that does not count.
func (b *Broker) readDecision(id string) (*Decision, fs.FileInfo, error) {
	if !ValidID(id) {
		return nil, nil, fmt.Errorf("request id %q: %w", id, errUntrusted)
	}
	data, fi, err := readTrusted(b.decidedPath(id))
	if err != nil {
		return nil, fi, err
	}
	d, err := ParseDecision(data)
	if err != nil {
		return nil, fi, err
	}
	if d.RequestID != id {
		return nil, fi, fmt.Errorf("decision file %s.json answers request %s: %w", id, d.RequestID, errUntrusted)
	}
	return d, fi, nil
}

// Pending lists the requests that wait for an answer, oldest first:
// undecided and not expired.
func (b *Broker) Pending() ([]*Request, error) {
	ids, err := listJSON(b.pendingDir(), ValidID)
	if err != nil {
		return nil, err
	}
	now := b.now()
	var out []*Request
	for _, id := range ids {
		r, _, err := b.readRequest(id)
		if err != nil || !now.Before(r.ExpiresAt) || b.decisionOn(r) != nil {
			continue
		}
		if r.PID > 0 && !alive(r.PID) {
			continue // its requester is gone: no one waits for an answer
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.Before(out[j].CreatedAt) })
	return out, nil
}

// Resolve finds the request named by a full id or a unique prefix of at
// least MinPrefix characters, pending or already decided.
func (b *Broker) Resolve(prefix string) (*Request, error) {
	p := strings.ToLower(strings.TrimSpace(prefix))
	if ValidID(p) {
		return b.Get(p)
	}
	if len(p) < MinPrefix || len(p) > 2*idBytes || strings.Trim(p, "0123456789abcdef") != "" {
		return nil, &BadIDError{ID: prefix}
	}
	ids, err := listJSON(b.pendingDir(), ValidID)
	if err != nil {
		return nil, err
	}
	var found []*Request
	for _, id := range ids {
		if !strings.HasPrefix(id, p) {
			continue
		}
		if r, _, err := b.readRequest(id); err == nil {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 0:
		return nil, &NotFoundError{ID: prefix}
	case 1:
		return found[0], nil
	}
	amb := &AmbiguousError{ID: prefix}
	for _, r := range found {
		amb.Matches = append(amb.Matches, r.ID)
	}
	sort.Strings(amb.Matches)
	return nil, amb
}

func (b *Broker) openStore(ref SessionRef) (*session.Store, error) {
	if b.OpenStore != nil {
		return b.OpenStore(ref)
	}
	s := session.Open(ref.Dir)
	s.Recordings = ref.Recordings
	s.Warn = b.Warn
	return s, nil
}

// record appends ev to the session the request names, if any.
func (b *Broker) record(r *Request, ev *transcript.Event) error {
	if r.Session.ID == "" {
		return nil
	}
	s, err := b.openStore(r.Session)
	if err != nil {
		return &RecordError{Session: r.Session.ID, Err: err}
	}
	w, err := s.Resume(r.Session.ID)
	if err != nil {
		return &RecordError{Session: r.Session.ID, Err: err}
	}
	defer w.Detach()
	if err := w.Append(ev); err != nil {
		return &RecordError{Session: r.Session.ID, Err: err}
	}
	return nil
}
