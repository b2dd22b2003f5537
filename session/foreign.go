package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cuff-dev/cuff/transcript"
	"github.com/cuff-dev/cuff/transcript/claude"
	"github.com/cuff-dev/cuff/transcript/codex"
	"github.com/cuff-dev/cuff/transcript/foreign"
	"github.com/cuff-dev/cuff/transcript/foreign/stream"
)

// Names of the foreign sources.
const (
	ClaudeSourceName = "claude"
	CodexSourceName  = "codex"
)

// headBytes and tailBytes bound what a listing reads of each file: the
// head names the session (first prompt, directory, start), the tail tells
// when it last changed.
const (
	headBytes = 64 << 10
	tailBytes = 16 << 10
)

// Unknown marks a count that a listing has not computed (see Fill).
const Unknown = -1

// FolderSource lists and reads the transcripts an agent keeps in a folder
// (Claude Code's projects folder, Codex's sessions folder) in place, never
// modifying them. Listing reads only heads and tails and caches what it
// learns by file size and modification time; Fill computes exact counts.
type FolderSource struct {
	name  string
	root  string
	cache string // file that keeps the listing cache between runs; "" for none
	// Now is the clock that tells live sessions; nil for time.Now.
	Now func() time.Time
	// Figures, when set, keeps the statistics of each session Fill
	// counts (read in the same pass), so that `record stats` after a
	// listing reads nothing again.
	Figures *StatsCache

	mu      sync.Mutex
	filling sync.Mutex            // one Fill at a time
	entries map[string]cachedInfo // by path
	loaded  bool
	dirty   bool
}

type cachedInfo struct {
	Size    int64 `json:"size"`
	MTime   int64 `json:"mtime_ns"`
	Version int   `json:"v,omitempty"`
	Info    Info  `json:"info"`
}

// cacheVersion is how the cached counts were computed; entries of another
// version are computed again. Version 1 counts Claude Code sub-agents'
// own files with their parent.
const cacheVersion = 2

// fresh reports whether a cached entry still describes the file.
func (c cachedInfo) fresh(fi os.FileInfo) bool {
	return c.Version == cacheVersion && c.Size == fi.Size() && c.MTime == fi.ModTime().UnixNano()
}

func newCachedInfo(fi os.FileInfo, info Info) cachedInfo {
	return cachedInfo{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Version: cacheVersion, Info: info}
}

// ClaudeSource is Claude Code's transcripts: <configDir>/projects/**/*.jsonl
// (configDir: $CLAUDE_CONFIG_DIR or ~/.claude). cacheFile may be "".
func ClaudeSource(configDir, cacheFile string) *FolderSource {
	return &FolderSource{name: ClaudeSourceName, root: filepath.Join(configDir, "projects"), cache: cacheFile}
}

// CodexSource is Codex's rollouts: <codexHome>/sessions/**/rollout-*.jsonl
// (codexHome: $CODEX_HOME or ~/.codex). cacheFile may be "".
func CodexSource(codexHome, cacheFile string) *FolderSource {
	return &FolderSource{name: CodexSourceName, root: filepath.Join(codexHome, "sessions"), cache: cacheFile}
}

var _ Source = (*FolderSource)(nil)

// Name implements Source.
func (f *FolderSource) Name() string { return f.name }

// Root is the folder the source reads.
func (f *FolderSource) Root() string { return f.root }

// files lists the transcript files of the source. Claude Code's sub-agent
// files (…/subagents/agent-*.jsonl) belong to their parent and are skipped.
func (f *FolderSource) files(ctx context.Context) ([]string, error) {
	var out []string
	err := filepath.WalkDir(f.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return nil // a folder that vanished or that we may not read is skipped
			}
			return err
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if d.IsDir() {
			if d.Name() == "subagents" && f.name == ClaudeSourceName {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		if f.name == CodexSourceName && !strings.HasPrefix(d.Name(), "rollout-") {
			return nil
		}
		out = append(out, p)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return out, err
}

// Paths are the transcript files of the source (sub-agents' own files are
// read with their parent's), found by walking its folder, nothing read.
func (f *FolderSource) Paths(ctx context.Context) ([]string, error) { return f.files(ctx) }

// IDOf names the session of the file at path as a listing does before it
// reads the file: claude:<uuid> / codex:<uuid>.
func (f *FolderSource) IDOf(path string) string { return f.idOf(path) }

// idOf names a file's session: claude:<uuid> / codex:<uuid>.
func (f *FolderSource) idOf(path string) string {
	return f.name + ":" + foreign.FallbackID(path)
}

// List implements Source: every session of the folder, newest first, with
// title, directory, start and last change from the file's head and tail.
// Counts come from the cache when the file has not changed since they were
// computed, else they are Unknown until Fill.
func (f *FolderSource) List(ctx context.Context) ([]Info, error) {
	paths, err := f.files(ctx)
	if err != nil {
		return nil, fmt.Errorf("list %s sessions in %s: %w", f.name, f.root, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.loadCache()
	seen := make(map[string]bool, len(paths))
	out := make([]Info, 0, len(paths))
	now := time.Now()
	if f.Now != nil {
		now = f.Now()
	}
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		seen[p] = true
		c, ok := f.entries[p]
		if !ok || !c.fresh(fi) {
			info, err := f.skim(p, fi)
			if err != nil {
				continue // unreadable: leave it out rather than fail the listing
			}
			c = newCachedInfo(fi, info)
			f.entries[p] = c
			f.dirty = true
		}
		info := c.Info
		info.Live = IsLive(false, false, info.Updated, fi.ModTime(), now)
		switch {
		case info.Live:
			info.Status = transcript.StatusActive
		case info.Status == transcript.StatusActive:
			info.Status = StatusIdle // counted while it was live; it has gone quiet since
		}
		out = append(out, info)
	}
	for p := range f.entries {
		if !seen[p] {
			delete(f.entries, p)
			f.dirty = true
		}
	}
	f.saveCache()
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}

// Fill computes exact counts for the listed sessions whose counts are
// Unknown, until ctx is done: several files at once (one per processor),
// each read for its figures only (texts cut short, see claude.Options.Brief).
// What it computed is cached, however far it got, so that the next
// listing goes on from there; a file cut short by ctx is left Unknown.
func (f *FolderSource) Fill(ctx context.Context, infos []Info) error {
	if !f.filling.TryLock() {
		return nil // another pass is counting; its results reach the cache
	}
	defer f.filling.Unlock()
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Go(func() {
			for i := range work {
				f.fillOne(ctx, &infos[i])
			}
		})
	}
	for i := range infos {
		if infos[i].Source != f.name || infos[i].Events != Unknown {
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
	f.mu.Lock()
	f.saveCache()
	f.mu.Unlock()
	f.Figures.save()
	return ctx.Err()
}

// fillOne counts one listed session and caches the counts.
func (f *FolderSource) fillOne(ctx context.Context, in *Info) {
	if ctx.Err() != nil {
		return
	}
	fi, err := os.Stat(in.Path)
	if err != nil {
		return
	}
	info := *in
	st := &CommandStats{}
	if err := f.count(ctx, in.Path, &info, st); err != nil {
		return
	}
	if f.Figures != nil {
		f.Figures.put(in.Path, fi, st)
	}
	cached := info
	if cached.Status == transcript.StatusActive {
		cached.Status = StatusIdle // liveness is worked out afresh at each listing
	}
	f.mu.Lock()
	f.entries[info.Path] = newCachedInfo(fi, cached)
	f.dirty = true
	f.mu.Unlock()
	live, status := in.Live, in.Status
	*in = info
	in.Live, in.Status = live, status
}

// skim reads a file's head and tail. A file that fits in the head is
// decoded whole, once, for its name and exact counts; for a Claude Code
// session that reads the files of its sub-agents, whose work the counts
// include. A bigger file's head is decoded alone, for its name only: its
// sub-agents' files are read by Fill, when it is counted.
func (f *FolderSource) skim(path string, fi os.FileInfo) (Info, error) {
	file, err := os.Open(path)
	if err != nil {
		return Info{}, err
	}
	defer file.Close()
	info := Info{ID: f.idOf(path), Source: f.name, Path: path, SizeBytes: fi.Size(), Status: StatusIdle,
		Events: Unknown, Turns: Unknown, ToolCalls: Unknown, Commands: Unknown, Failures: Unknown, TimedOut: Unknown, Approvals: Unknown,
		ToolErrors: Unknown, Background: Unknown}
	head := make([]byte, min(fi.Size(), headBytes))
	n, err := io.ReadFull(file, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Info{}, err
	}
	head = head[:n]
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 && int64(n) < fi.Size() {
		head = head[:i+1] // whole lines only
	}
	if int64(n) >= fi.Size() && fi.Size() <= headBytes {
		// the whole file was read: name and count it exactly in one pass
		if err := f.countFrom(context.Background(), bytes.NewReader(head), int64(len(head)), path, false, &info, nil); err == nil {
			info.Updated = lastTime(head, info.Started)
		}
	} else {
		_, _ = foreign.DecodeWith(bytes.NewReader(head), foreign.Options{FallbackUUID: foreign.FallbackID(path)},
			func(ev *transcript.Event) error {
				if startInfo(ev, &info) {
					return errStop
				}
				return nil
			})
	}
	if info.Updated.IsZero() {
		tail := make([]byte, min(fi.Size(), tailBytes))
		if _, err := file.ReadAt(tail, fi.Size()-int64(len(tail))); err == nil || errors.Is(err, io.EOF) {
			info.Updated = lastTime(tail, info.Started)
		}
	}
	if info.Started.IsZero() {
		info.Started = fi.ModTime()
	}
	if info.Updated.IsZero() {
		info.Updated = fi.ModTime()
	}
	info.Duration = info.Updated.Sub(info.Started)
	return info, nil
}

var errStop = errors.New("stop")

// startInfo takes what a listing shows from a session_start; it reports
// whether ev was one.
func startInfo(ev *transcript.Event, info *Info) bool {
	s, ok := ev.Body.(*transcript.SessionStart)
	if !ok {
		return false
	}
	info.Title, info.Agent, info.WorkingDirectory, info.Started = s.Title, s.Agent, s.WorkingDirectory, ev.TS
	if ev.SessionID != "" {
		info.ID = ev.SessionID
	}
	return true
}

// lastTime finds the newest "timestamp" among the complete lines of a tail.
func lastTime(tail []byte, floor time.Time) time.Time {
	latest := floor
	for _, line := range bytes.Split(tail, []byte{'\n'}) {
		if t, ok := timestampIn(line); ok && t.After(latest) {
			latest = t
		}
	}
	return latest
}

// timestampIn finds the first "timestamp" field's time in a JSON line,
// however it is spaced ("timestamp":"…" or "timestamp": "…").
func timestampIn(line []byte) (time.Time, bool) {
	for {
		i := bytes.Index(line, []byte(`"timestamp"`))
		if i < 0 {
			return time.Time{}, false
		}
		rest := bytes.TrimLeft(line[i+len(`"timestamp"`):], " \t")
		if len(rest) > 0 && rest[0] == ':' {
			rest = bytes.TrimLeft(rest[1:], " \t")
			if len(rest) > 0 && rest[0] == '"' {
				if j := bytes.IndexByte(rest[1:], '"'); j >= 0 {
					if t := stream.ParseTime(string(rest[1 : j+1])); !t.IsZero() {
						return t, true
					}
				}
			}
		}
		line = line[i+len(`"timestamp"`):]
	}
}

// count reads a whole file for its exact counts, briefly (see Fill), and
// adds its events to st.
func (f *FolderSource) count(ctx context.Context, path string, info *Info, st *CommandStats) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	size := int64(-1)
	if fi, err := file.Stat(); err == nil {
		size = fi.Size()
	}
	return f.countFrom(ctx, file, size, path, true, info, st)
}

// countFrom reads a transcript from r, brief or whole, for its exact
// counts and what its session_start says (a title already known is kept:
// a brief read cuts the prompt it comes from); its events are added to st
// too when st is not nil.
func (f *FolderSource) countFrom(ctx context.Context, r io.Reader, size int64, path string, brief bool, info *Info, st *CommandStats) error {
	var m Meta
	title := info.Title
	err := decodeTranscript(r, size, path, brief, func(ev *transcript.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if m.EntryCount == 0 {
			startInfo(ev, info)
		}
		m.add(ev)
		if st != nil {
			st.AddEvent(ev)
		}
		return nil
	})
	if err != nil {
		return err
	}
	info.Events, info.Turns, info.ToolCalls, info.Commands, info.Failures = m.EntryCount, m.Turns, m.ToolCalls, m.Commands, m.Failures()
	info.TimedOut, info.Approvals, info.ToolErrors, info.Background = m.CommandsTimedOut, m.Approvals, m.ToolErrors, m.Background
	if !m.LastUpdated.IsZero() {
		info.Updated = m.LastUpdated
		info.Duration = m.LastUpdated.Sub(info.Started)
	}
	switch {
	case title != "":
		info.Title = title
	case info.Title == "":
		info.Title = m.Title
	}
	return nil
}

// findPath returns the file of session id (claude:<uuid> / codex:<uuid>).
func (f *FolderSource) findPath(ctx context.Context, id string) (string, error) {
	uuid, ok := strings.CutPrefix(id, f.name+":")
	if !ok || uuid == "" || strings.ContainsAny(uuid, "/\\\x00\n") {
		return "", &NotFoundError{ID: id}
	}
	f.mu.Lock()
	for p, c := range f.entries {
		if c.Info.ID == id {
			f.mu.Unlock()
			return p, nil
		}
	}
	f.mu.Unlock()
	paths, err := f.files(ctx)
	if err != nil {
		return "", err
	}
	for _, p := range paths {
		if f.idOf(p) == id {
			return p, nil
		}
	}
	return "", &NotFoundError{ID: id}
}

// Read implements Source.
func (f *FolderSource) Read(ctx context.Context, id string, fn func(*transcript.Event) error) error {
	path, err := f.findPath(ctx, id)
	if err != nil {
		return err
	}
	return f.readFile(ctx, path, false, fn)
}

// readFile decodes the transcript at path, whole or brief, until ctx is done.
func (f *FolderSource) readFile(ctx context.Context, path string, brief bool, fn func(*transcript.Event) error) error {
	file, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &NotFoundError{ID: f.idOf(path)}
		}
		return err // *fs.PathError: "open PATH: why"
	}
	defer file.Close()
	size := int64(-1)
	if fi, err := file.Stat(); err == nil {
		size = fi.Size()
	}
	return decodeTranscript(file, size, path, brief, func(ev *transcript.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(ev)
	})
}

// decodeTranscript decodes the transcript at path, read from r, whole: a
// Claude Code session with the work of its sub-agents that wrote files of
// their own nested in (see claude.Options.Path), any other format as
// foreign.DecodeWith does; brief for its figures only (see
// claude.Options.Brief). size, when known (else -1), sizes the buffers for
// a small file.
func decodeTranscript(r io.Reader, size int64, path string, brief bool, fn func(*transcript.Event) error) error {
	uuid := foreign.FallbackID(path)
	peek := foreign.HeadSize
	if size >= 0 && size < int64(peek) {
		peek = int(size) + 1
	}
	br := bufio.NewReaderSize(r, peek)
	head, err := br.Peek(peek)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if foreign.Detect(head) != foreign.FormatClaude {
		_, err = foreign.DecodeWith(br, foreign.Options{FallbackUUID: uuid, Brief: brief}, fn)
		return err
	}
	d := claude.NewDecoder(claude.Options{FallbackUUID: uuid, Path: path, Brief: brief})
	lines := transcript.NewLineReader(br)
	if size >= 0 {
		lines = transcript.NewLineReaderSize(br, int(min(size, math.MaxInt32))+1)
	}
	for {
		line, complete, err := lines.Next()
		if errors.Is(err, io.EOF) || (err == nil && !complete) { // a torn last line is still being written
			break
		}
		if err != nil {
			return fmt.Errorf("read %s line %d: %w", path, lines.Line()+1, err)
		}
		if err := d.Line(line, fn); err != nil {
			return err
		}
	}
	return d.Close(fn)
}

// Follow implements Source: the session's events, then each one the agent
// appends, decoded line by line as it writes them.
func (f *FolderSource) Follow(ctx context.Context, id string, fn func(FollowItem)) error {
	path, err := f.findPath(ctx, id)
	if err != nil {
		return err
	}
	return FollowFile(ctx, path, fn)
}

// FollowFile follows any transcript file cuff understands — a cuff session,
// a Claude Code transcript or a Codex rollout — told from its content. A
// file that is empty or does not exist yet is waited for, and its format
// told from its first line. In a Claude Code session, the work of a
// sub-agent that wrote its own file (and none in the session's) is read
// from that file when its delegation ends: what is in the session when
// following starts comes merged by time, as Read gives it; a delegation
// that ends later brings its sub-agent's events just before its end.
func FollowFile(ctx context.Context, path string, fn func(FollowItem)) error {
	uuid := foreign.FallbackID(path)
	opts := FollowOptions{Detect: true, FallbackUUID: uuid}
	if file, err := os.Open(path); err == nil {
		head := make([]byte, headBytes)
		n, _ := io.ReadFull(file, head)
		file.Close()
		if n > 0 {
			opts.Detect = false
			opts.Decoder = fileDecoderFor(foreign.Detect(head[:n]), uuid, path)
		}
	}
	return Follow(ctx, path, opts, fn)
}

// fileDecoderFor is the line decoder of a foreign format for the transcript
// at path (nil for cuff's own): a Claude Code session's decoder reads its
// sub-agents' files beside it.
func fileDecoderFor(f foreign.Format, uuid, path string) LineDecoder {
	if d := newTranscriptDecoder(f, uuid, path, stream.ClipOptions{}); d != nil {
		return d
	}
	return nil
}

// TranscriptDecoder decodes a foreign transcript line by line: as a
// follower feeds it (Line, Flush when the file is quiet), or a part of it
// read whole (Line, then Close).
type TranscriptDecoder interface {
	LineDecoder
	Close(out stream.Emit) error
}

// NewTranscriptDecoder returns a decoder for the foreign transcript at
// path in format f, its session named as its listing names it: a Claude
// Code session's decoder reads its sub-agents' files beside it. With clip
// set, long strings are cut to their ends before decoding (see
// stream.Clip). It is nil for any other format.
func NewTranscriptDecoder(f foreign.Format, path string, clip stream.ClipOptions) TranscriptDecoder {
	return newTranscriptDecoder(f, foreign.FallbackID(path), path, clip)
}

func newTranscriptDecoder(f foreign.Format, uuid, path string, clip stream.ClipOptions) TranscriptDecoder {
	switch f {
	case foreign.FormatClaude:
		return claude.NewDecoder(claude.Options{FallbackUUID: uuid, Path: path, Clip: clip})
	case foreign.FormatCodex:
		return codex.NewDecoder(codex.Options{FallbackUUID: uuid, Clip: clip})
	}
	return nil
}

// loadCache reads the listing cache once. A damaged cache is ignored.
func (f *FolderSource) loadCache() {
	if f.loaded {
		return
	}
	f.loaded = true
	f.entries = map[string]cachedInfo{}
	if f.cache == "" {
		return
	}
	data, err := os.ReadFile(f.cache)
	if err != nil {
		return
	}
	var entries map[string]cachedInfo
	if json.Unmarshal(data, &entries) == nil && entries != nil {
		f.entries = entries
	}
}

// saveCache writes the cache when it changed; failing to is not an error
// (the next listing skims again).
func (f *FolderSource) saveCache() {
	if !f.dirty || f.cache == "" {
		return
	}
	if os.MkdirAll(filepath.Dir(f.cache), DirMode) != nil {
		return
	}
	if writeJSONAtomic(f.cache, f.entries) == nil {
		f.dirty = false
	}
}

// ReadFigures implements FiguresReader: the session's transcript (the
// file in.Path names, else the one of in.ID) read briefly, texts cut short.
func (f *FolderSource) ReadFigures(ctx context.Context, in Info, fn func(*transcript.Event) error) error {
	path := in.Path
	if path == "" {
		p, err := f.findPath(ctx, in.ID)
		if err != nil {
			return err
		}
		path = p
	}
	return f.readFile(ctx, path, true, fn)
}
