package scripts

import (
	"sync"
	"time"
)

// Cache keeps a discovery for the configured cache_ttl, so that a
// long-running server does not walk the project on every tool call. Runs
// are checked on disk regardless (see Set.Lookup), so a stale entry can
// hide a new script for at most one TTL but never lets a removed or
// changed one run unchecked. A Cache is safe for concurrent use.
type Cache struct {
	cfg Config
	now func() time.Time

	mu  sync.Mutex
	set *Set
	at  time.Time
}

// NewCache returns a cache for cfg. now is the clock; nil means time.Now.
func NewCache(cfg Config, now func() time.Time) *Cache {
	if now == nil {
		now = time.Now
	}
	return &Cache{cfg: cfg, now: now}
}

// Set returns the cached discovery while it is younger than the TTL, and
// discovers again otherwise (every time when the TTL is 0). Failed
// discoveries are not cached.
func (c *Cache) Set() (*Set, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.set != nil && c.cfg.CacheTTL > 0 && now.Sub(c.at) < c.cfg.CacheTTL && !now.Before(c.at) {
		return c.set, nil
	}
	set, err := Load(c.cfg)
	if err != nil {
		return nil, err
	}
	c.set, c.at = set, now
	return set, nil
}

// Invalidate drops the cached discovery.
func (c *Cache) Invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set = nil
}
