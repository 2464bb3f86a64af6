package llm

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Limiter bounds how many cases run at once and paces the requests of a
// whole run by what the provider says:
//
//   - Rate-limit headers (x-ratelimit-remaining-requests and -tokens with
//     their -reset, as OpenAI, OpenRouter, Groq and others send them): a
//     request waits until the provider's budget, as the headers of the
//     latest response describe it and the requests sent since use it up,
//     holds room for it.
//   - Retry-After on a 429 that is a rate limit holds every request until
//     then.
//   - A 429 the headers do not explain is told from noise by its share of
//     recent responses: while at least half of the last 32 (and at least
//     16) are 429s the provider is taken to be over its limit, and the
//     number of cases running at once halves, to be judged anew on
//     responses of its own. Scattered 429s among
//     successes only make their own requests wait and retry. Every 10
//     successful responses raise the number again by one, up to the
//     configured maximum.
type Limiter struct {
	mu sync.Mutex

	// Cases running at once.
	max, limit, inUse int
	waiters           []chan struct{}
	lowest            int // the smallest limit reached
	successes         int // successful responses since the limit last rose

	// recent holds whether each of the last responses (seen of them, at
	// most window, since the limit was last halved) was a 429 that no
	// header explains; sinceCut counts responses since that halving.
	recent   [window]bool
	next     int
	seen     int
	sinceCut int

	// The provider's budget, one per kind of rate limit, and the
	// cumulative cost of the requests sent, in each kind's unit.
	budgets [kinds]budget
	sent    [kinds]float64
	// hold delays every request until then (a rate limit's Retry-After).
	hold time.Time

	now func() time.Time
}

const (
	// maxHold bounds how long a Retry-After holds every request (the
	// request that got it waits as its retry policy allows).
	maxHold      = time.Minute
	recoverAfter = 10
	// window is how many recent responses tell a rate limit from noise;
	// a rate limit is half of them or more.
	window = 32
)

// NewLimiter returns a limiter allowing max holders at once (at least 1).
func NewLimiter(n int) *Limiter {
	n = max(n, 1)
	return &Limiter{max: n, limit: n, lowest: n, now: time.Now}
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

// Limit returns the current limit and the lowest it has been.
func (l *Limiter) Limit() (current, lowest int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limit, l.lowest
}

// ticket is a request let through: what it cost, and the costs sent
// before it, to read the budgets its response reports.
type ticket struct {
	cost   [kinds]float64
	sentAt [kinds]float64 // sent, this request included
}

// admit waits until the provider's budgets hold room for a request with a
// body of bodyBytes, then counts it as sent.
func (l *Limiter) admit(ctx context.Context, bodyBytes int64) (ticket, error) {
	cost := [kinds]float64{requests: 1, tokens: float64(max(bodyBytes, 0)) / bytesPerToken}
	for {
		l.mu.Lock()
		now := l.now()
		wait := l.hold.Sub(now)
		for k := range l.budgets {
			wait = max(wait, l.budgets[k].wait(now, l.sent[k], cost[k]))
		}
		if wait <= 0 {
			var t ticket
			for k := range l.sent {
				l.sent[k] += cost[k]
				t.cost[k], t.sentAt[k] = cost[k], l.sent[k]
			}
			l.mu.Unlock()
			return t, nil
		}
		l.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return ticket{}, ctx.Err()
		case <-timer.C:
		}
	}
}

// observe learns from the response to a request let through with t: its
// rate-limit headers, and whether it was a success, a 429 or neither.
// retryAfter is the response's Retry-After (0 when none).
func (l *Limiter) observe(t ticket, status int, header http.Header, success bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	exhausted := false
	for k, state := range readBudgets(header, now) {
		if state.known {
			exhausted = exhausted || state.remaining < t.cost[k]
			l.budgets[k].update(state, t.sentAt[k])
		}
	}
	switch {
	case status == http.StatusTooManyRequests:
		limited := exhausted || l.noteLocked(true)
		if limited && retryAfter > 0 {
			l.hold = maxTime(l.hold, now.Add(min(retryAfter, maxHold)))
		}
	case success:
		l.noteLocked(false)
		l.succeededLocked()
	}
}

// noteLocked records one response in the window, and reports whether the
// window now shows a rate limit; then the limit halves, at most once per
// half window.
func (l *Limiter) noteLocked(throttled bool) bool {
	l.recent[l.next] = throttled
	l.next = (l.next + 1) % window
	l.seen = min(l.seen+1, window)
	l.sinceCut++
	n := 0
	for _, t := range l.recent[:l.seen] {
		if t {
			n++
		}
	}
	limited := l.seen >= window/2 && 2*n >= l.seen
	if limited && l.sinceCut >= window/2 {
		// Halve, and judge the halved limit on responses of its own.
		l.sinceCut, l.seen, l.next = 0, 0, 0
		l.limit = max(l.limit/2, 1)
		l.lowest = min(l.lowest, l.limit)
		l.successes = 0
	}
	return limited
}

func (l *Limiter) succeededLocked() {
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

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
