package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cuff-dev/cuff/transcript"
)

// JoinedSourceName is the Name of a Joined source.
const JoinedSourceName = "all"

// Joined is every session of the project's store and of the agents'
// folders, one per conversation: a Claude Code conversation that cuff's
// hook recorded, or a Codex session that ran commands through `cuff mcp`,
// is one session whose id is the agent's (claude:<uuid>, codex:<uuid>),
// joined from the agent's transcript and cuff's recordings of it (see the
// joiner). Its parts stay readable alone through the store's own source and
// the folders (Parts).
//
// Which native sessions belong to a conversation is told from their
// summaries alone (source, agent and conversation id, see conversationOf),
// so listing finds joins without reading any transcript.
type Joined struct {
	store   *Store
	folders []*FolderSource
	counts  *joinCounts
}

var _ Source = (*Joined)(nil)

// NewJoined joins the store's sessions with the folders' transcripts.
// cacheFile keeps the counts of joined sessions between runs ("" for none).
func NewJoined(store *Store, folders []*FolderSource, cacheFile string) *Joined {
	return &Joined{store: store, folders: folders, counts: &joinCounts{path: cacheFile}}
}

// Name implements Source.
func (j *Joined) Name() string { return JoinedSourceName }

// Parts are the sources whose sessions Joined joins, each alone: the
// store's own first, then the agents' folders.
func (j *Joined) Parts() []Source {
	out := []Source{j.store.Source()}
	for _, f := range j.folders {
		out = append(out, f)
	}
	return out
}

// folder is the folder source of a conversation id's agent (claude:…,
// codex:…), nil when that source is switched off.
func (j *Joined) folder(id string) *FolderSource {
	prefix, _, ok := strings.Cut(id, ":")
	if !ok {
		return nil
	}
	for _, f := range j.folders {
		if f.Name() == prefix {
			return f
		}
	}
	return nil
}

// conversationOf is the id of the agent conversation a native session
// recorded: claude:<uuid> for a session of the Claude Code hook (and of
// cuff mcp under Claude Code), codex:<uuid> for cuff mcp under Codex
// (which names its thread in each call's _meta); "" for anything else.
func conversationOf(m *Meta) string {
	cid := m.ConversationID
	if !isUUID(cid) {
		return ""
	}
	agent := strings.ToLower(m.Agent)
	switch {
	case m.Source == transcript.SourceClaudeHook:
		return ClaudeSourceName + ":" + cid
	case m.Source == transcript.SourceMCP && strings.Contains(agent, "codex"):
		return CodexSourceName + ":" + cid
	case m.Source == transcript.SourceMCP && strings.Contains(agent, "claude"):
		return ClaudeSourceName + ":" + cid
	}
	return ""
}

// isUUID reports whether s is a UUID in its usual form.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// conversation is what List gathers for one conversation.
type conversation struct {
	id      string
	folder  *FolderSource
	foreign *Info
	natives []*Meta
}

// List implements Source: one row per conversation, newest first. A
// conversation recorded by both the agent and cuff is one row with the
// agent's id and both as its Parts; a native session whose transcript is
// not found is listed alone, with Conversation set.
func (j *Joined) List(ctx context.Context) ([]Info, error) {
	metas, err := j.store.Sessions()
	if err != nil {
		return nil, err
	}
	convs := map[string]*conversation{}
	var out []Info
	for _, m := range metas {
		key := conversationOf(m)
		f := j.folder(key)
		if f == nil {
			out = append(out, j.store.InfoOf(m))
			continue
		}
		c := convs[key]
		if c == nil {
			c = &conversation{id: key, folder: f}
			convs[key] = c
		}
		c.natives = append(c.natives, m)
	}
	for _, f := range j.folders {
		infos, err := f.List(ctx)
		if err != nil {
			return nil, err
		}
		for i := range infos {
			if c := convs[infos[i].ID]; c != nil && c.folder == f {
				c.foreign = &infos[i]
				continue
			}
			out = append(out, infos[i])
		}
	}
	for _, c := range convs {
		if c.foreign == nil {
			for _, m := range c.natives {
				in := j.store.InfoOf(m)
				in.Conversation = c.id
				out = append(out, in)
			}
			continue
		}
		out = append(out, j.joinedInfo(c))
	}
	j.counts.save()
	sort.SliceStable(out, func(a, b int) bool {
		if !out[a].Started.Equal(out[b].Started) {
			return out[a].Started.After(out[b].Started)
		}
		return out[a].ID > out[b].ID
	})
	return out, nil
}

// joinedInfo is the listing of a conversation with a transcript: the
// transcript's title, directory and agent; the time span, size and
// liveness of all its parts; the status cuff's recording ended with; and
// the counts of the joined events, from the cache when no part changed
// since they were counted (else Unknown until Fill).
func (j *Joined) joinedInfo(c *conversation) Info {
	in := *c.foreign
	in.Parts = []Part{{ID: in.ID, Source: c.folder.Name(), Path: in.Path, Size: in.SizeBytes, Modified: in.Updated}}
	sort.Slice(c.natives, func(a, b int) bool { return c.natives[a].CreatedAt.Before(c.natives[b].CreatedAt) })
	var last *Meta
	for _, m := range c.natives {
		in.Parts = append(in.Parts, Part{ID: m.SessionID, Source: NativeSourceName, Path: j.store.EventsPath(m.SessionID),
			Size: m.FileSizeBytes, Modified: time.Unix(0, m.FileModTime).UTC()})
		if !m.CreatedAt.IsZero() && (in.Started.IsZero() || m.CreatedAt.Before(in.Started)) {
			in.Started = m.CreatedAt
		}
		if m.LastUpdated.After(in.Updated) {
			in.Updated = m.LastUpdated
		}
		in.SizeBytes += m.FileSizeBytes
		in.Live = in.Live || m.Live
		in.Title = or(in.Title, m.Title)
		in.WorkingDirectory = or(in.WorkingDirectory, m.WorkingDirectory)
		last = m
	}
	in.Duration = in.Updated.Sub(in.Started)
	if last != nil && last.Ended && !last.Live {
		// cuff saw the agent end the conversation (a resumed one opens
		// its session again): the transcript's last writes do not make it live.
		in.Live = false
	}
	switch {
	case in.Live:
		in.Status = transcript.StatusActive
	case last != nil && last.Ended && last.Status != "":
		in.Status = last.Status
	}
	in.Events, in.Turns, in.ToolCalls, in.Commands, in.Failures, in.TimedOut, in.Approvals, in.ToolErrors, in.Background =
		Unknown, Unknown, Unknown, Unknown, Unknown, Unknown, Unknown, Unknown, Unknown
	if n, ok := j.counts.lookup(in); ok {
		n.apply(&in)
	}
	return in
}

// Fill implements the listing's counting: the joined sessions' counts from
// their joined events, the other foreign sessions' by their folders, until
// ctx is done; what is counted is cached.
func (j *Joined) Fill(ctx context.Context, infos []Info) error {
	for i := range infos {
		if len(infos[i].Parts) < 2 || infos[i].Events != Unknown {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		var m Meta
		if err := j.read(ctx, infos[i], true, func(ev *transcript.Event) error {
			m.add(ev)
			return nil
		}); err != nil {
			continue
		}
		n := countsOf(&m)
		n.apply(&infos[i])
		j.counts.store(infos[i], n)
	}
	j.counts.save()
	for _, f := range j.folders {
		var idx []int
		var alone []Info
		for i := range infos {
			if infos[i].Source == f.Name() && len(infos[i].Parts) < 2 {
				idx, alone = append(idx, i), append(alone, infos[i])
			}
		}
		if len(alone) == 0 {
			continue
		}
		err := f.Fill(ctx, alone)
		for k, i := range idx {
			infos[i] = alone[k]
		}
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// Find resolves a full or partial session id to one row of the listing:
// any unique part of a row's id or of its parts' ids (a native session's
// id finds the conversation it belongs to). claude:… and codex:… look only
// among that agent's sessions. An exact id wins over parts.
func (j *Joined) Find(ctx context.Context, id string) (Info, error) {
	prefix, part, prefixed := strings.Cut(id, ":")
	if !prefixed {
		prefix, part = "", id
		if !findablePart().MatchString(id) {
			if err := checkPartial(id); err != nil {
				return Info{}, err
			}
			return Info{}, &NotFoundError{ID: id}
		}
	}
	infos, err := j.List(ctx)
	if err != nil {
		return Info{}, err
	}
	var matches []Info
	for _, in := range infos {
		if prefix != "" && in.Source != prefix {
			continue
		}
		ids := []string{in.ID}
		for _, p := range in.Parts {
			ids = append(ids, p.ID)
		}
		hit := false
		for _, x := range ids {
			exact, partial := matchID(x, id, prefix, part)
			if exact {
				return in, nil
			}
			hit = hit || partial
		}
		if hit {
			matches = append(matches, in)
		}
	}
	switch len(matches) {
	case 0:
		if !prefixed {
			return Info{}, &NotFoundError{ID: id}
		}
		return Info{}, &ForeignNotFoundError{ID: id}
	case 1:
		return matches[0], nil
	}
	ids := make([]string, len(matches))
	for i, m := range matches {
		ids[i] = m.ID
	}
	sort.Strings(ids)
	return Info{}, &AmbiguousError{ID: id, Candidates: ids}
}

// findablePart is what may be a part of a listed session's id: of a
// native id, a uuid, or a transcript's file name.
var findablePart = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z._-]{1,100}$`) })

// matchID tells whether session id x is the id asked for (exactly, or by
// its uuid alone) or contains the part asked for; with a prefix (claude,
// codex) only ids of that source match.
func matchID(x, id, prefix, part string) (exact, partial bool) {
	p, bare, hasPrefix := strings.Cut(x, ":")
	if !hasPrefix {
		p, bare = "", x
	}
	if prefix != "" && p != prefix {
		return false, false
	}
	if x == id || bare == part {
		return true, true
	}
	return false, part != "" && strings.Contains(bare, part)
}

// resolve finds what session id names for Read and Follow: a listing row
// when the id is one the listing gives (or a native session's), without
// listing the folders when the id says where to look.
func (j *Joined) resolve(ctx context.Context, id string) (Info, error) {
	if !strings.Contains(id, ":") {
		m, err := j.store.Find(id)
		if err != nil {
			return Info{}, err
		}
		key := conversationOf(m)
		if f := j.folder(key); f != nil {
			if path, err := f.findPath(ctx, key); err == nil {
				return j.conversationInfo(ctx, key, f, path)
			}
			in := j.store.InfoOf(m)
			in.Conversation = key
			return in, nil
		}
		return j.store.InfoOf(m), nil
	}
	f := j.folder(id)
	if f == nil {
		return Info{}, &ForeignNotFoundError{ID: id}
	}
	path, err := f.findPath(ctx, id)
	var nf *NotFoundError
	if err != nil && !errors.As(err, &nf) {
		return Info{}, err
	}
	return j.conversationInfo(ctx, id, f, path)
}

// conversationInfo is the row of conversation id with its transcript at
// path ("" when none was found) and the native sessions that recorded it.
func (j *Joined) conversationInfo(ctx context.Context, id string, f *FolderSource, path string) (Info, error) {
	metas, err := j.store.Sessions()
	if err != nil {
		return Info{}, err
	}
	var natives []*Meta
	for _, m := range metas {
		if conversationOf(m) == id {
			natives = append(natives, m)
		}
	}
	switch {
	case path == "" && len(natives) == 0:
		return Info{}, &ForeignNotFoundError{ID: id}
	case path == "":
		in := Info{ID: id, Source: f.Name()}
		sort.Slice(natives, func(a, b int) bool { return natives[a].CreatedAt.Before(natives[b].CreatedAt) })
		for _, m := range natives {
			in.Parts = append(in.Parts, Part{ID: m.SessionID, Source: NativeSourceName, Path: j.store.EventsPath(m.SessionID)})
		}
		first := j.store.InfoOf(natives[0])
		in.Title, in.Agent, in.WorkingDirectory, in.Started = first.Title, first.Agent, first.WorkingDirectory, first.Started
		return in, nil
	case len(natives) == 0:
		return Info{ID: id, Source: f.Name(), Path: path, Parts: nil}, nil
	}
	fi := Info{ID: id, Source: f.Name(), Path: path}
	return j.joinedInfo(&conversation{id: id, folder: f, foreign: &fi, natives: natives}), nil
}

// Read implements Source: a joined session's events, joined; any other
// session's from the source that holds it.
func (j *Joined) Read(ctx context.Context, id string, fn func(*transcript.Event) error) error {
	in, err := j.resolve(ctx, id)
	if err != nil {
		return err
	}
	return j.read(ctx, in, false, fn)
}

// ReadFigures implements FiguresReader: the session read briefly (the
// transcript's long texts cut short), for its figures.
func (j *Joined) ReadFigures(ctx context.Context, in Info, fn func(*transcript.Event) error) error {
	if len(in.Parts) == 0 {
		resolved, err := j.resolve(ctx, in.ID)
		if err != nil {
			return err
		}
		in = resolved
	}
	return j.read(ctx, in, true, fn)
}

// read streams the events of a listed session; brief cuts the
// transcript's long texts (for counting).
func (j *Joined) read(ctx context.Context, in Info, brief bool, fn func(*transcript.Event) error) error {
	if len(in.Parts) == 0 {
		switch f := j.folder(in.ID); {
		case f != nil && in.Path != "":
			return f.readFile(ctx, in.Path, brief, fn)
		case f != nil:
			return f.Read(ctx, in.ID, fn)
		}
		return j.store.Source().Read(ctx, in.ID, fn)
	}
	var transcriptPath string
	var natives []string
	for _, p := range in.Parts {
		if p.Source == NativeSourceName {
			natives = append(natives, p.ID)
		} else {
			transcriptPath = p.Path
		}
	}
	jn := newJoiner(in.ID, transcriptPath != "", func(ev *transcript.Event) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(ev)
	})
	for _, id := range natives {
		if _, err := j.store.ReadEvents(id, jn.Recording); err != nil {
			var nf *NotFoundError
			if errors.As(err, &nf) {
				continue // cleaned away meanwhile
			}
			return fmt.Errorf("read session %s: %w", id, err)
		}
	}
	if transcriptPath != "" {
		f := j.folder(in.ID)
		if err := f.readFile(ctx, transcriptPath, brief, jn.Transcript); err != nil {
			return err
		}
	}
	return jn.Close()
}

// Follow implements Source: a joined session followed live (both records
// as they grow, joined), any other from the source that holds it.
func (j *Joined) Follow(ctx context.Context, id string, fn func(FollowItem)) error {
	in, err := j.resolve(ctx, id)
	if err != nil {
		return err
	}
	key := in.Conversation
	if len(in.Parts) > 0 {
		key = in.ID
	}
	f := j.folder(key)
	if f == nil {
		if len(in.Parts) == 0 && j.folder(in.ID) != nil {
			return FollowFile(ctx, in.Path, fn)
		}
		return j.store.Source().Follow(ctx, in.ID, fn)
	}
	var natives []string
	transcriptPath := ""
	for _, p := range in.Parts {
		if p.Source == NativeSourceName {
			natives = append(natives, j.store.EventsPath(p.ID))
		} else {
			transcriptPath = p.Path
		}
	}
	if len(in.Parts) == 0 {
		if in.Source == NativeSourceName {
			natives = []string{j.store.EventsPath(in.ID)}
		} else {
			transcriptPath = in.Path
		}
	}
	find := func() string {
		if transcriptPath != "" {
			return transcriptPath
		}
		p, _ := f.quickPath(key)
		return p
	}
	return followJoined(ctx, joinedFollow{id: key, recordings: natives, transcript: find, expects: expectsOf(f.Name())}, fn)
}

// expectsOf says which calls of a transcript cuff records: every tool
// call of Claude Code (the hook sees each), only the calls of cuff's own
// MCP tools for Codex.
func expectsOf(source string) func(*transcript.Event) bool {
	if source != CodexSourceName {
		return nil
	}
	return func(ev *transcript.Event) bool {
		c, ok := ev.Body.(*transcript.ToolCall)
		return ok && strings.Contains(c.Tool, "bash_recorder")
	}
}

// quickPath finds the transcript of session id (claude:<uuid>,
// codex:<uuid>) by its name alone, without walking the folder: Claude
// Code keeps <projects>/<project>/<uuid>.jsonl, Codex
// <sessions>/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl.
func (f *FolderSource) quickPath(id string) (string, bool) {
	uuid, ok := strings.CutPrefix(id, f.name+":")
	if !ok || !isUUID(uuid) {
		return "", false
	}
	pattern := filepath.Join(f.root, "*", uuid+".jsonl")
	if f.name == CodexSourceName {
		pattern = filepath.Join(f.root, "*", "*", "*", "rollout-*-"+uuid+".jsonl")
	}
	matches, _ := filepath.Glob(pattern)
	if len(matches) == 0 {
		return "", false
	}
	return matches[0], true
}

// joinCounts caches the counts of joined sessions by the size and time of
// every part, so a listing shows them without reading the parts again.
type joinCounts struct {
	path    string
	mu      sync.Mutex
	loaded  bool
	dirty   bool
	entries map[string]joinCountsEntry
}

type joinCountsEntry struct {
	Stamp  string `json:"stamp"`
	Counts counts `json:"counts"`
}

// counts are the figures a listing shows of a session (see
// transcript.Tally); Version is CountsVersion when they were counted.
type counts struct {
	Events, Turns, ToolCalls, Commands, Failures, TimedOut, Approvals, ToolErrors, Background int64
	Updated                                                                                   time.Time
	Version                                                                                   int
}

func countsOf(m *Meta) counts {
	return counts{Events: m.EntryCount, Turns: m.Turns, ToolCalls: m.ToolCalls, Commands: m.AllCommands(),
		Failures: m.Failures(), TimedOut: m.CommandsTimedOut, Approvals: m.Approvals, ToolErrors: m.ToolErrors,
		Background: m.Background, Updated: m.LastUpdated, Version: CountsVersion}
}

func (n counts) apply(in *Info) {
	in.Events, in.Turns, in.ToolCalls, in.Commands = n.Events, n.Turns, n.ToolCalls, n.Commands
	in.Failures, in.TimedOut, in.Approvals = n.Failures, n.TimedOut, n.Approvals
	in.ToolErrors, in.Background = n.ToolErrors, n.Background
	if n.Updated.After(in.Updated) {
		in.Updated = n.Updated
		in.Duration = in.Updated.Sub(in.Started)
	}
}

// stampOf fingerprints a joined session's parts: their paths, sizes and
// times of last change, as the listing found them (or, for parts it did
// not describe, as the files are now); "" when a part is gone.
func stampOf(in Info) string {
	var b strings.Builder
	for _, p := range in.Parts {
		size, mod := p.Size, p.Modified
		if size == 0 {
			fi, err := os.Stat(p.Path)
			if err != nil {
				return ""
			}
			size, mod = fi.Size(), fi.ModTime()
		}
		fmt.Fprintf(&b, "%s:%d:%d;", p.Path, size, mod.UnixNano())
	}
	return b.String()
}

func (c *joinCounts) lookup(in Info) (counts, bool) {
	stamp := stampOf(in)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	e, ok := c.entries[in.ID]
	return e.Counts, ok && stamp != "" && e.Stamp == stamp && e.Counts.Version == CountsVersion
}

func (c *joinCounts) store(in Info, n counts) {
	stamp := stampOf(in)
	if stamp == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	c.entries[in.ID] = joinCountsEntry{Stamp: stamp, Counts: n}
	c.dirty = true
}

func (c *joinCounts) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.entries = map[string]joinCountsEntry{}
	if c.path == "" {
		return
	}
	if data, err := os.ReadFile(c.path); err == nil && json.Unmarshal(data, &c.entries) != nil {
		c.entries = nil // a damaged cache only costs counting again
	}
	if c.entries == nil {
		c.entries = map[string]joinCountsEntry{}
	}
}

// save writes the cache when it changed; failing to is not an error (the
// next listing counts again).
func (c *joinCounts) save() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty || c.path == "" {
		return
	}
	if os.MkdirAll(filepath.Dir(c.path), DirMode) != nil {
		return
	}
	if writeJSONAtomic(c.path, c.entries) == nil {
		c.dirty = false
	}
}

// partsStamp is the key and the size and time a cache keeps a joined
// session's figures by: the sum of its parts' sizes and the latest of their
// times. nil when a part is gone.
func partsStamp(in Info) (string, os.FileInfo) {
	st := &stampInfo{}
	for _, p := range in.Parts {
		fi, err := os.Stat(p.Path)
		if err != nil {
			return "", nil
		}
		st.size += fi.Size()
		if fi.ModTime().After(st.mtime) {
			st.mtime = fi.ModTime()
		}
	}
	return "joined:" + in.ID, st
}

// stampInfo is a joined session's size and time as an os.FileInfo.
type stampInfo struct {
	size  int64
	mtime time.Time
}

func (s *stampInfo) Name() string       { return "" }
func (s *stampInfo) Size() int64        { return s.size }
func (s *stampInfo) Mode() os.FileMode  { return 0 }
func (s *stampInfo) ModTime() time.Time { return s.mtime }
func (s *stampInfo) IsDir() bool        { return false }
func (s *stampInfo) Sys() any           { return nil }

// ConversationOf is the conversation (claude:<uuid>, codex:<uuid>) that the
// native session id belongs to, "" when it belongs to none or its agent's
// source is switched off. It reads the session's meta file only.
func (j *Joined) ConversationOf(id string) string {
	if !ValidID(id) {
		return ""
	}
	m, err := readMeta(j.store.MetaPath(id))
	if err != nil {
		return ""
	}
	key := conversationOf(m)
	if j.folder(key) == nil {
		return ""
	}
	return key
}
