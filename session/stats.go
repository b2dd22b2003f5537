package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// ReadEvents streams the events of session id to fn in file order. Malformed
// lines are skipped and counted in the returned stats; an error from fn
// stops the reading and is returned. A run that started and whose recorder
// died before it recorded the end gets that end last (DiedRun), so that it
// is shown and counted as the interrupted run it is.
func (s *Store) ReadEvents(id string, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
	if !ValidID(id) {
		return transcript.ReadStats{}, &InvalidIDError{ID: id}
	}
	f, err := transcript.Open(s.EventsPath(id))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return transcript.ReadStats{}, &NotFoundError{ID: id}
		}
		return transcript.ReadStats{}, err // it names the file and what is wrong with it
	}
	defer f.Close()
	var open OpenRuns
	var ended bool
	var last time.Time
	st, err := ReadFile(f, func(ev *transcript.Event) error {
		open.Note(ev)
		if ev.Type == transcript.TypeSessionEnd {
			ended = true
		}
		if ev.TS.After(last) {
			last = ev.TS
		}
		return fn(ev)
	})
	if err != nil || len(open.starts) == 0 {
		return st, err
	}
	fi, err := f.Stat()
	if err != nil {
		return st, err
	}
	over := !IsLive(ended, s.leaseHeld(id), last, fi.ModTime(), time.Now())
	for _, ev := range open.died(over) {
		if err := fn(ev); err != nil {
			return st, err
		}
	}
	return st, nil
}

// ReadFile streams every valid event of the file f to fn, skipping
// malformed lines, without holding more than one line at a time (and no
// line that cannot be an event, nor a torn tail, at all).
func ReadFile(f *os.File, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
	fi, err := f.Stat()
	if err != nil {
		return transcript.ReadStats{}, err
	}
	return ReadAll(io.NewSectionReader(f, 0, fi.Size()), fn)
}

// ReadAll streams every valid event of r to fn, skipping malformed lines.
// A *io.SectionReader is read by offset (see transcript.NewLineReaderAt).
func ReadAll(r io.Reader, fn func(*transcript.Event) error) (transcript.ReadStats, error) {
	rd := transcript.NewReader(r)
	if sr, ok := r.(*io.SectionReader); ok {
		rd = transcript.NewReaderAt(sr, 0, sr.Size())
	}
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return rd.Stats(), nil
		}
		var le *transcript.LineError
		if errors.As(err, &le) {
			continue
		}
		if err != nil {
			return rd.Stats(), err
		}
		if err := fn(ev); err != nil {
			return rd.Stats(), err
		}
	}
}

// CommandCount is how often one command ran.
type CommandCount struct {
	Command string `json:"command" yaml:"command"`
	Count   int64  `json:"count" yaml:"count"`
}

// CommandStats aggregates the bash runs of one or more sessions.
type CommandStats struct {
	Sessions        int            `json:"sessions" yaml:"sessions"`
	Commands        int64          `json:"total_commands" yaml:"total_commands"`
	Succeeded       int64          `json:"succeeded" yaml:"succeeded"`
	Failed          int64          `json:"failed" yaml:"failed"`
	TimedOut        int64          `json:"timed_out" yaml:"timed_out"`
	Background      int64          `json:"in_background" yaml:"in_background"`
	TotalDurationMS int64          `json:"total_duration_ms" yaml:"total_duration_ms"`
	AverageMS       int64          `json:"average_duration_ms" yaml:"average_duration_ms"`
	Longest         *CommandTime   `json:"longest_command,omitempty" yaml:"longest_command,omitempty"`
	Frequency       []CommandCount `json:"command_frequency" yaml:"command_frequency"`
	ExitCodes       ExitCodeCounts `json:"exit_codes" yaml:"exit_codes"`
	// Tokens adds up the model usage the transcripts carry.
	Tokens TokenStats `json:"tokens" yaml:"tokens"`
	// DiskBytes is the size of the session files, by source.
	DiskBytes map[string]int64 `json:"disk_bytes_by_source,omitempty" yaml:"disk_bytes_by_source,omitempty"`

	counts map[string]int64
}

// CommandTime names a command and how long it ran.
type CommandTime struct {
	Command    string `json:"command" yaml:"command"`
	DurationMS int64  `json:"duration_ms" yaml:"duration_ms"`
}

// ExitCodeCounts buckets exit codes the way the stats report shows them.
type ExitCodeCounts struct {
	Success int64 `json:"success" yaml:"success"`
	Error   int64 `json:"error" yaml:"error"`
	Other   int64 `json:"other" yaml:"other"`
	None    int64 `json:"none" yaml:"none"`
}

// Add folds one bash run into the statistics.
func (c *CommandStats) Add(b *transcript.BashRun) {
	if c.counts == nil {
		c.counts = map[string]int64{}
	}
	c.Commands++
	c.TotalDurationMS += b.DurationMS
	switch {
	case b.InBackground():
		c.Background++
	case b.TimedOut:
		c.TimedOut++
	case b.Failed():
		c.Failed++
	default:
		c.Succeeded++
	}
	switch {
	case b.ExitCode == nil:
		c.ExitCodes.None++
	case *b.ExitCode == 0:
		c.ExitCodes.Success++
	case *b.ExitCode == 1:
		c.ExitCodes.Error++
	default:
		c.ExitCodes.Other++
	}
	if c.Longest == nil || b.DurationMS > c.Longest.DurationMS {
		c.Longest = &CommandTime{Command: b.Command, DurationMS: b.DurationMS}
	}
	c.counts[b.Command]++
}

// AddEvent folds any event into the statistics: bash runs and token usage.
func (c *CommandStats) AddEvent(ev *transcript.Event) {
	switch b := ev.Body.(type) {
	case *transcript.BashRun:
		c.Add(b)
	case *transcript.ChatTurn:
		c.Tokens.Add(ev.SessionID, b)
	}
}

// Finish computes the average and the frequency table once every run is added.
func (c *CommandStats) Finish() {
	if c.Commands > 0 {
		c.AverageMS = c.TotalDurationMS / c.Commands
	}
	c.Frequency = make([]CommandCount, 0, len(c.counts))
	for cmd, n := range c.counts {
		c.Frequency = append(c.Frequency, CommandCount{Command: cmd, Count: n})
	}
	sort.Slice(c.Frequency, func(i, j int) bool {
		if c.Frequency[i].Count != c.Frequency[j].Count {
			return c.Frequency[i].Count > c.Frequency[j].Count
		}
		return c.Frequency[i].Command < c.Frequency[j].Command
	})
}

// StatsOf reads every listed session from the source that holds it (by
// Info.Source) into one set of statistics, with disk use by source.
// Sessions are read several at a time (one per processor), each for its
// figures only where the source can (see FiguresReader), and each
// session's figures are kept in cache (nil: none) by its file's size and
// modification time, so that a session read before is not read again
// until it changes. A session removed meanwhile is skipped.
func StatsOf(ctx context.Context, sources []Source, infos []Info, cache *StatsCache) (*CommandStats, error) {
	bySource := make(map[string]Source, len(sources))
	for _, src := range sources {
		bySource[src.Name()] = src
	}
	st := &CommandStats{Sessions: len(infos), DiskBytes: map[string]int64{}}
	per := make([]*CommandStats, len(infos))
	errs := make([]error, len(infos))
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Go(func() {
			for i := range work {
				per[i], errs[i] = cache.figures(ctx, sourceOf(bySource, infos[i]), infos[i])
			}
		})
	}
	for i, in := range infos {
		st.DiskBytes[in.Source] += in.SizeBytes
		if sourceOf(bySource, in) == nil {
			continue
		}
		select {
		case work <- i:
			continue
		case <-ctx.Done():
		}
		break
	}
	close(work)
	wg.Wait()
	cache.save()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, in := range infos {
		var nf *NotFoundError
		if errs[i] != nil && !errors.As(errs[i], &nf) {
			return nil, fmt.Errorf("read session %s: %w", in.ID, errs[i])
		}
		if per[i] != nil {
			st.merge(per[i])
		}
	}
	st.Finish()
	return st, nil
}

// sourceOf is the source that reads a listed session: the joined one for a
// session joined from several records, else the one it is listed from.
func sourceOf(bySource map[string]Source, in Info) Source {
	if j := bySource[JoinedSourceName]; j != nil && len(in.Parts) > 0 {
		return j
	}
	return bySource[in.Source]
}

// FiguresReader is a Source that can read a session for its figures alone
// (its events, counts, commands, exit codes and token usage) faster than
// Read does, with long texts cut short.
type FiguresReader interface {
	ReadFigures(ctx context.Context, in Info, fn func(*transcript.Event) error) error
}

// figuresOf reads one session into statistics of its own.
func figuresOf(ctx context.Context, src Source, in Info) (*CommandStats, error) {
	st := &CommandStats{}
	add := func(ev *transcript.Event) error {
		st.AddEvent(ev)
		return nil
	}
	var err error
	if fr, ok := src.(FiguresReader); ok {
		err = fr.ReadFigures(ctx, in, add)
	} else {
		err = src.Read(ctx, in.ID, add)
	}
	return st, err
}

// merge adds the statistics of other sessions.
func (c *CommandStats) merge(o *CommandStats) {
	if c.counts == nil {
		c.counts = map[string]int64{}
	}
	c.Commands += o.Commands
	c.Succeeded += o.Succeeded
	c.Failed += o.Failed
	c.Background += o.Background
	c.TimedOut += o.TimedOut
	c.TotalDurationMS += o.TotalDurationMS
	c.ExitCodes.Success += o.ExitCodes.Success
	c.ExitCodes.Error += o.ExitCodes.Error
	c.ExitCodes.Other += o.ExitCodes.Other
	c.ExitCodes.None += o.ExitCodes.None
	if o.Longest != nil && (c.Longest == nil || o.Longest.DurationMS > c.Longest.DurationMS) {
		c.Longest = o.Longest
	}
	for cmd, n := range o.counts {
		c.counts[cmd] += n
	}
	c.Tokens.merge(&o.Tokens)
}

// CleanPlan is what a clean would remove.
type CleanPlan struct {
	Cutoff   time.Time
	Sessions []*Meta
	Bytes    int64
	LiveKept int // live sessions old enough but kept
}

// PlanClean lists the sessions last updated before cutoff; live sessions are
// never removed.
func (s *Store) PlanClean(cutoff time.Time) (*CleanPlan, error) {
	all, err := s.Sessions()
	if err != nil {
		return nil, err
	}
	plan := &CleanPlan{Cutoff: cutoff}
	for _, m := range all {
		if !m.LastUpdated.Before(cutoff) {
			continue
		}
		if m.Live {
			plan.LiveKept++
			continue
		}
		plan.Sessions = append(plan.Sessions, m)
		plan.Bytes += m.FileSizeBytes + metaSize(s.MetaPath(m.SessionID))
	}
	return plan, nil
}

func metaSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil {
		return fi.Size()
	}
	return 0
}

// PermissionError is a store the user may not change.
type PermissionError struct {
	Dir string
	Err error
}

func (e *PermissionError) Error() string { return fmt.Sprintf("Cannot delete recordings in %s", e.Dir) }

// Hint tells the user the way out.
func (e *PermissionError) Hint() string {
	return "Permission denied. Try running with appropriate permissions."
}

func (e *PermissionError) Unwrap() error { return e.Err }

// Clean removes the sessions of plan and drops them from the index. It
// returns how many sessions and bytes went.
func (s *Store) Clean(plan *CleanPlan) (removed int, freed int64, err error) {
	for _, m := range plan.Sessions {
		size := m.FileSizeBytes + metaSize(s.MetaPath(m.SessionID))
		if err := os.Remove(s.EventsPath(m.SessionID)); err != nil && !errors.Is(err, os.ErrNotExist) {
			if errors.Is(err, os.ErrPermission) {
				return removed, freed, &PermissionError{Dir: s.SessionsDir(), Err: err}
			}
			return removed, freed, fmt.Errorf("remove session %s: %w", m.SessionID, err)
		}
		s.remove(m.SessionID)
		removed++
		freed += size
	}
	if removed > 0 {
		if _, err := s.Sessions(); err != nil { // drops the removed entries from the index
			return removed, freed, err
		}
	}
	return removed, freed, nil
}
