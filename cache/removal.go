package cache

import "time"

// removal is what the cache remembers of a key whose latest outcome was
// not stored (a fail): when that was, and how long the run took. A merge
// of caches needs the time (a later fail beats an earlier pass, as within
// a run), and balancing shards by history the seconds.
type removal struct {
	At      time.Time `json:"at"`
	Seconds float64   `json:"seconds,omitempty"`
}

// removalTTL is how long a removal is remembered: a compaction leaves out
// older ones, so that keys of settings long gone do not pile up.
const removalTTL = 30 * 24 * time.Hour

// Removed reports whether the latest outcome stored for key was one the
// cache does not keep (a fail), and how many seconds that run took. It
// answers from the files as this Cache last read them, plus its own Puts.
func (c *Cache) Removed(key string) (seconds float64, ok bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if ch, put := c.pending[key]; put {
		return ch.removal.Seconds, ch.entry == nil
	}
	r, ok := c.removed[key]
	return r.Seconds, ok
}

// Has reports whether key has a stored entry (without reading it).
func (c *Cache) Has(key string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if ch, put := c.pending[key]; put {
		return ch.entry != nil
	}
	_, ok := c.entries[key]
	return ok
}
