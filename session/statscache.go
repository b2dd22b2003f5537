package session

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// statsCacheVersion is how cached figures were computed; entries of
// another version are computed again.
const statsCacheVersion = 2

// StatsCache keeps each session's statistics by its file's path, size and
// modification time, in one file shared by every project (the user's
// cache directory), so that `record stats` reads only the sessions that
// changed since it last ran. Several processes may use it at once: each
// replaces the file whole (a rename), the last one wins, and a damaged
// file is ignored.
type StatsCache struct {
	path string

	mu      sync.Mutex
	loaded  bool
	dirty   bool
	entries map[string]statsEntry
	seen    map[string]bool
}

// statsEntry is one session's figures as kept in the cache.
type statsEntry struct {
	Size    int64         `json:"size"`
	MTime   int64         `json:"mtime_ns"`
	Version int           `json:"v"`
	Figures cachedFigures `json:"figures"`
}

// cachedFigures is CommandStats as the cache keeps it: the command
// frequencies too, and the token figures without the message ids.
type cachedFigures struct {
	Commands        int64            `json:"commands"`
	Succeeded       int64            `json:"succeeded"`
	Failed          int64            `json:"failed"`
	TimedOut        int64            `json:"timed_out"`
	Background      int64            `json:"background,omitempty"`
	TotalDurationMS int64            `json:"total_duration_ms"`
	Longest         *CommandTime     `json:"longest,omitempty"`
	Counts          map[string]int64 `json:"counts,omitempty"`
	ExitCodes       ExitCodeCounts   `json:"exit_codes"`
	Tokens          TokenStats       `json:"tokens"`
}

func figuresToCache(c *CommandStats) cachedFigures {
	return cachedFigures{Commands: c.Commands, Succeeded: c.Succeeded, Failed: c.Failed, TimedOut: c.TimedOut, Background: c.Background,
		TotalDurationMS: c.TotalDurationMS, Longest: c.Longest, Counts: c.counts, ExitCodes: c.ExitCodes, Tokens: c.Tokens}
}

func (f cachedFigures) stats() *CommandStats {
	return &CommandStats{Commands: f.Commands, Succeeded: f.Succeeded, Failed: f.Failed, TimedOut: f.TimedOut, Background: f.Background,
		TotalDurationMS: f.TotalDurationMS, Longest: f.Longest, counts: f.Counts, ExitCodes: f.ExitCodes, Tokens: f.Tokens}
}

// OpenStatsCache uses the cache kept in the file at path ("" for none:
// every session is read).
func OpenStatsCache(path string) *StatsCache {
	return &StatsCache{path: path}
}

// figures returns one session's statistics, from the cache when its file
// has not changed since they were computed, else read from src (and then
// kept). A nil cache reads every time.
func (c *StatsCache) figures(ctx context.Context, src Source, in Info) (*CommandStats, error) {
	var fi os.FileInfo
	key := in.Path
	if c != nil && in.Path != "" {
		fi, _ = os.Stat(in.Path)
	}
	if c != nil && len(in.Parts) > 0 {
		key, fi = partsStamp(in) // a joined session: every part's size and time
	}
	if fi != nil {
		if e, ok := c.lookup(key, fi); ok {
			return e.Figures.stats(), nil
		}
	}
	st, err := figuresOf(ctx, src, in)
	if err != nil || fi == nil || ctx.Err() != nil {
		return st, err
	}
	c.put(key, fi, st)
	return st, nil
}

// put keeps the figures of the file at key as it was (fi) when they were
// read.
func (c *StatsCache) put(key string, fi os.FileInfo, st *CommandStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	c.seen[key] = true
	c.entries[key] = statsEntry{Size: fi.Size(), MTime: fi.ModTime().UnixNano(), Version: statsCacheVersion, Figures: figuresToCache(st)}
	c.dirty = true
}

// lookup finds a fresh entry for the file at path, loading the cache the
// first time.
func (c *StatsCache) lookup(path string, fi os.FileInfo) (statsEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.load()
	c.seen[path] = true
	e, ok := c.entries[path]
	fresh := ok && e.Version == statsCacheVersion && e.Size == fi.Size() && e.MTime == fi.ModTime().UnixNano()
	return e, fresh
}

// load reads the cache file once; a missing or damaged one is empty.
func (c *StatsCache) load() {
	if c.loaded {
		return
	}
	c.loaded = true
	c.entries, c.seen = map[string]statsEntry{}, map[string]bool{}
	if c.path == "" {
		return
	}
	data, err := os.ReadFile(c.path)
	if err != nil {
		return
	}
	var entries map[string]statsEntry
	if json.Unmarshal(data, &entries) == nil && entries != nil {
		c.entries = entries
	}
}

// save writes the cache when it changed, leaving out the sessions whose
// files are gone. Failing to is not an error: the next run reads again.
func (c *StatsCache) save() {
	if c == nil || c.path == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return
	}
	for p := range c.entries {
		if _, err := os.Stat(p); !c.seen[p] && errors.Is(err, os.ErrNotExist) {
			delete(c.entries, p)
		}
	}
	if os.MkdirAll(filepath.Dir(c.path), DirMode) != nil {
		return
	}
	if writeJSONAtomic(c.path, c.entries) == nil {
		c.dirty = false
	}
}
