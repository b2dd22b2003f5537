package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cuff-dev/cuff/internal/atomicfile"
	"github.com/cuff-dev/cuff/transcript"
	"golang.org/x/sys/unix"
)

// Run is one recorded command run with the session it belongs to.
type Run struct {
	SessionID string
	Event     *transcript.Event
	Body      *transcript.BashRun
	// Start is the matching bash_start, if recorded.
	Start *transcript.Event
}

// RunFilter selects runs across sessions; zero fields select everything.
type RunFilter struct {
	RunID, TaskID, StepID string
	SessionID             string // full or partial session id
	Failed                bool
	Command               string // glob: * any text, ? one character
	Since, Until          time.Time
	Limit                 int
}

// globRegexp turns a command glob into an anchored regular expression.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`^`)
	for _, r := range glob {
		switch r {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`$`)
	return regexp.Compile(b.String())
}

func (f *RunFilter) match(sessionID string, ev *transcript.Event, b *transcript.BashRun, cmd *regexp.Regexp) bool {
	switch {
	case f.RunID != "" && ev.RunID != f.RunID,
		f.TaskID != "" && ev.TaskID != f.TaskID,
		f.StepID != "" && ev.StepID != f.StepID,
		f.Failed && !b.Failed(),
		!f.Since.IsZero() && ev.TS.Before(f.Since),
		!f.Until.IsZero() && ev.TS.After(f.Until),
		cmd != nil && !cmd.MatchString(b.Command):
		return false
	}
	return true
}

// Runs returns the recorded command runs that match f, newest first.
func (s *Store) Runs(f RunFilter) ([]Run, error) {
	var cmd *regexp.Regexp
	if f.Command != "" {
		var err error
		if cmd, err = globRegexp(f.Command); err != nil {
			return nil, fmt.Errorf("--command %q: %w", f.Command, err)
		}
	}
	if f.SessionID != "" {
		if err := checkPartial(f.SessionID); err != nil {
			return nil, err
		}
	}
	all, err := s.Sessions()
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, m := range all {
		if m.AllCommands() == 0 || (f.SessionID != "" && !strings.Contains(m.SessionID, f.SessionID)) ||
			(!f.Since.IsZero() && m.LastUpdated.Before(f.Since)) || (!f.Until.IsZero() && m.CreatedAt.After(f.Until)) {
			continue
		}
		starts := map[string]*transcript.Event{}
		_, err := s.ReadEvents(m.SessionID, func(ev *transcript.Event) error {
			switch b := ev.Body.(type) {
			case *transcript.BashStart:
				starts[ev.CallID] = ev
			case *transcript.BashRun:
				if f.match(m.SessionID, ev, b, cmd) {
					runs = append(runs, Run{SessionID: m.SessionID, Event: ev, Body: b, Start: starts[ev.CallID]})
				}
				delete(starts, ev.CallID)
			}
			return nil
		})
		var nf *NotFoundError
		if err != nil && !errors.As(err, &nf) {
			return nil, err
		}
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Event.TS.After(runs[j].Event.TS) })
	if f.Limit > 0 && len(runs) > f.Limit {
		runs = runs[:f.Limit]
	}
	return runs, nil
}

// runIDPattern is the id of an event: e_<session id>_<seq>; compiled when
// first used, not at every start of the hook.
var runIDPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^e_(\d{8}_\d{6}_[0-9a-f]{8}-[0-9a-f]{4})_(\d{1,12})$`)
})

// FindRun returns the run whose bash_run event has id (e_<session>_<seq>),
// or whose id ends with the given part.
func (s *Store) FindRun(id string) (*Run, error) {
	if m := runIDPattern().FindStringSubmatch(id); m != nil {
		runs, err := s.Runs(RunFilter{SessionID: m[1]})
		if err != nil {
			return nil, err
		}
		for i := range runs {
			if runs[i].Event.ID == id {
				return &runs[i], nil
			}
		}
		return nil, &RunNotFoundError{ID: id}
	}
	if !runPartPattern().MatchString(id) {
		return nil, &RunNotFoundError{ID: id}
	}
	runs, err := s.Runs(RunFilter{})
	if err != nil {
		return nil, err
	}
	var found []Run
	for _, r := range runs {
		if strings.HasSuffix(r.Event.ID, id) {
			found = append(found, r)
		}
	}
	switch len(found) {
	case 0:
		return nil, &RunNotFoundError{ID: id}
	case 1:
		return &found[0], nil
	}
	ids := make([]string, len(found))
	for i, r := range found {
		ids[i] = r.Event.ID
	}
	return nil, &AmbiguousError{ID: id, Candidates: ids}
}

// RunNotFoundError is a run id that names no recorded run.
type RunNotFoundError struct{ ID string }

func (e *RunNotFoundError) Error() string { return fmt.Sprintf("Run '%s' not found", e.ID) }

// Hint tells the user the way out.
func (e *RunNotFoundError) Hint() string { return "Hint: Use 'cuff runs list' to see recorded runs" }

// PruneResult tells what a prune removed.
type PruneResult struct {
	Runs     int
	Sessions int // sessions whose files were rewritten
	Bytes    int64
}

// PruneRuns removes the runs that drop selects (and their bash_start
// halves) from every session, rewriting each affected file under its append
// lock and replacing it atomically. With dryRun nothing is changed.
func (s *Store) PruneRuns(drop func(sessionID string, ev *transcript.Event, b *transcript.BashRun) bool, dryRun bool) (PruneResult, error) {
	var res PruneResult
	all, err := s.Sessions()
	if err != nil {
		return res, err
	}
	for _, m := range all {
		if m.AllCommands() == 0 {
			continue
		}
		n, freed, err := s.pruneSession(m.SessionID, drop, dryRun)
		if err != nil {
			return res, err
		}
		if n > 0 {
			res.Runs += n
			res.Sessions++
			res.Bytes += freed
		}
	}
	if res.Runs > 0 && !dryRun {
		_, err = s.Sessions() // refresh the index for the rewritten files
	}
	return res, err
}

func (s *Store) pruneSession(id string, drop func(string, *transcript.Event, *transcript.BashRun) bool, dryRun bool) (int, int64, error) {
	path := s.EventsPath(id)
	f, err := transcript.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return 0, 0, fmt.Errorf("lock session %s: %w", id, err)
	}
	defer unix.Flock(int(f.Fd()), unix.LOCK_UN) //nolint:errcheck
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, fmt.Errorf("stat session %s: %w", id, err)
	}
	// First pass: which call ids go, and the highest seq given out. A run
	// whose recorder died is judged by the end readers give it.
	gone := map[string]bool{}
	var maxSeq int64
	var open OpenRuns
	keep := func(ev *transcript.Event) {
		if b, ok := ev.Body.(*transcript.BashRun); ok && drop(id, ev, b) {
			gone[ev.CallID] = true
		}
	}
	if _, err := ReadAll(io.NewSectionReader(f, 0, fi.Size()), func(ev *transcript.Event) error {
		maxSeq = max(maxSeq, ev.Seq)
		open.Note(ev)
		keep(ev)
		return nil
	}); err != nil {
		return 0, 0, err
	}
	for _, ev := range open.died(false) {
		keep(ev)
	}
	if len(gone) == 0 {
		return 0, 0, nil
	}
	// Second pass: the byte ranges of the lines that go. Everything else is
	// copied from the file as it is, garbage and a torn tail included.
	var cut [][2]int64
	var freed int64
	lines := transcript.NewLineReaderAt(f, 0, fi.Size())
	for {
		start := lines.Offset()
		line, complete, err := lines.Next()
		if errors.Is(err, io.EOF) || err == nil && !complete {
			break
		}
		if err != nil {
			return 0, 0, err
		}
		if dropLine(line, gone) {
			cut = append(cut, [2]int64{start, lines.Offset()})
			freed += lines.Offset() - start
		}
	}
	if dryRun {
		return len(gone), freed, nil
	}
	// The ids of what goes are never given out again, even when it was the
	// end of the file.
	if err := transcript.SetHighWater(path, maxSeq); err != nil {
		return 0, 0, err
	}
	tmp, err := atomicfile.Create(path, transcript.FileMode)
	if err != nil {
		return 0, 0, fmt.Errorf("rewrite session %s: %w", id, err)
	}
	var pos int64
	for _, c := range append(cut, [2]int64{fi.Size(), fi.Size()}) {
		if _, err := io.Copy(tmp, io.NewSectionReader(f, pos, c[0]-pos)); err != nil {
			tmp.Abort()
			return 0, 0, fmt.Errorf("rewrite session %s: %w", id, err)
		}
		pos = c[1]
	}
	if err := tmp.Commit(); err != nil {
		return 0, 0, fmt.Errorf("rewrite session %s: %w", id, err)
	}
	return len(gone), freed, nil
}

// dropLine reports whether a line is a bash_start or bash_run of a call that goes.
func dropLine(line []byte, gone map[string]bool) bool {
	t := bytes.TrimSpace(line)
	if !bytes.Contains(t, []byte(`"bash_`)) {
		return false
	}
	ev, err := transcript.Decode(t)
	if err != nil {
		return false
	}
	return (ev.Type == transcript.TypeBashRun || ev.Type == transcript.TypeBashStart) && gone[ev.CallID]
}

// runPartPattern is what may be part of a run id.
var runPartPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f_e-]{1,60}$`) })
