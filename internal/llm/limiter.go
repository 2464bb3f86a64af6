package llm

import (
	"context"
	"sync"
	"time"
)

// Limiter bounds how many cases run at once and adapts to throttling: a 429
// halves the limit (a burst of 429s within a second counts once), and every
// recoverAfter successful requests raise it by one again, up to the
// configured maximum.
type Limiter struct {
	mu        sync.Mutex
	max       int
	limit     int
	inUse     int
	successes int
	waiters   []chan struct{}
	// lowest is the smallest limit reached, for the run summary.
	lowest int
	// lastCut is when the limit was last halved; 429s within settle of it
	// belong to the same burst.
	lastCut time.Time
	settle  time.Duration
}

const recoverAfter = 10

// NewLimiter returns a limiter allowing max holders at once (at least 1).
func NewLimiter(n int) *Limiter {
	n = max(n, 1)
	return &Limiter{max: n, limit: n, lowest: n, settle: time.Second}
}

// Acquire waits for a slot or for ctx to end.
func (l *Limiter) Acquire(ctx context.Context) error {
	l.mu.Lock()
	if l.inUse < l.limit {
		l.inUse++
		l.mu.Unlock()
		return nil
	}
	ch := make(chan struct{})
	l.waiters = append(l.waiters, ch)
	l.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		for i, w := range l.waiters {
			if w == ch {
				l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
				return ctx.Err()
			}
		}
		// The slot was handed over while ctx ended: give it back.
		l.inUse--
		l.wakeLocked()
		return ctx.Err()
	}
}

// Release frees a slot.
func (l *Limiter) Release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.inUse--
	l.wakeLocked()
}

// wakeLocked hands free slots to waiters, in arrival order.
func (l *Limiter) wakeLocked() {
	for l.inUse < l.limit && len(l.waiters) > 0 {
		ch := l.waiters[0]
		l.waiters = l.waiters[1:]
		l.inUse++
		close(ch)
	}
}

func (l *Limiter) throttled() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.successes = 0
	if time.Since(l.lastCut) < l.settle {
		return // the same burst: requests sent before the last cut
	}
	l.lastCut = time.Now()
	l.limit = max(l.limit/2, 1)
	l.lowest = min(l.lowest, l.limit)
	l.successes = 0
}

func (l *Limiter) succeeded() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.limit >= l.max {
		return
	}
	l.successes++
	if l.successes >= recoverAfter {
		l.successes = 0
		l.limit++
		l.wakeLocked()
	}
}

// Limit returns the current limit and the lowest it has been.
func (l *Limiter) Limit() (current, lowest int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit, l.lowest
}
