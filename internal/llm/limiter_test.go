package llm

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// state returns the limiter's holders and waiters.
func (l *Limiter) state() (inUse, waiting int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inUse, len(l.waiters)
}

func TestLimiterBoundsConcurrency(t *testing.T) {
	for _, limit := range []int{1, 3, 8} {
		t.Run(fmt.Sprint("limit ", limit), func(t *testing.T) {
			lim := NewLimiter(limit)
			var inFlight, peak atomic.Int64
			var wg sync.WaitGroup
			for range 6 * limit {
				wg.Go(func() {
					if !assert.NoError(t, lim.Acquire(context.Background())) {
						return
					}
					defer lim.Release()
					n := inFlight.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.Sleep(10 * time.Millisecond)
					inFlight.Add(-1)
				})
			}
			wg.Wait()
			assert.EqualValues(t, limit, peak.Load())
			inUse, waiting := lim.state()
			assert.Zero(t, inUse)
			assert.Zero(t, waiting)
		})
	}
}

func TestNewLimiterAtLeastOne(t *testing.T) {
	for _, n := range []int{-5, 0, 1} {
		cur, lowest := NewLimiter(n).Limit()
		assert.Equal(t, 1, cur)
		assert.Equal(t, 1, lowest)
	}
}

func TestLimiterRaisedLimitWakesWaiter(t *testing.T) {
	lim := NewLimiter(2)
	throttle(lim, 1) // limit 1
	require.NoError(t, lim.Acquire(context.Background()))
	got := make(chan error, 1)
	go func() { got <- lim.Acquire(context.Background()) }()
	require.Eventually(t, func() bool { _, w := lim.state(); return w == 1 }, time.Second, time.Millisecond)

	succeed(lim, recoverAfter-1)
	select {
	case <-got:
		t.Fatal("acquired before the limit rose")
	case <-time.After(20 * time.Millisecond):
	}
	succeed(lim, 1)
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(time.Second):
		t.Fatal("raising the limit did not hand the slot over")
	}
	inUse, _ := lim.state()
	assert.Equal(t, 2, inUse)
}

func TestLimiterThrottleDoesNotRevokeHeldSlots(t *testing.T) {
	lim := NewLimiter(4)
	for range 4 {
		require.NoError(t, lim.Acquire(context.Background()))
	}
	throttle(lim, 1) // limit 2 while 4 are held
	got := make(chan error, 1)
	go func() { got <- lim.Acquire(context.Background()) }()
	require.Eventually(t, func() bool { _, w := lim.state(); return w == 1 }, time.Second, time.Millisecond)

	lim.Release()
	lim.Release() // 2 held: still at the limit
	select {
	case <-got:
		t.Fatal("acquired beyond the lowered limit")
	case <-time.After(20 * time.Millisecond):
	}
	lim.Release()
	require.NoError(t, <-got)
	inUse, waiting := lim.state()
	assert.Equal(t, 2, inUse)
	assert.Zero(t, waiting)
}

func TestLimiterAcquireHonoursContext(t *testing.T) {
	const limit = 2
	lim := NewLimiter(limit)
	for range limit {
		require.NoError(t, lim.Acquire(context.Background()))
	}

	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() { got <- lim.Acquire(ctx) }()
	require.Eventually(t, func() bool { _, w := lim.state(); return w == 1 }, time.Second, time.Millisecond)
	cancel()
	select {
	case err := <-got:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(time.Second):
		t.Fatal("Acquire ignored the cancellation")
	}

	timeout, cancelTimeout := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancelTimeout()
	require.ErrorIs(t, lim.Acquire(timeout), context.DeadlineExceeded)

	inUse, waiting := lim.state()
	assert.Equal(t, limit, inUse)
	assert.Zero(t, waiting, "a cancelled waiter leaves the queue")

	// Every slot is still usable, and no more than that.
	for range limit {
		lim.Release()
	}
	for range limit {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		require.NoError(t, lim.Acquire(ctx))
		cancel()
	}
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, lim.Acquire(ctx), context.DeadlineExceeded)
}

// Many waiters whose contexts end while slots are handed over: no slot is
// lost or doubled.
func TestLimiterCancellationRaceKeepsSlots(t *testing.T) {
	const limit = 3
	lim := NewLimiter(limit)
	var inFlight, peak, granted atomic.Int64
	var wg sync.WaitGroup
	for g := range 40 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for range 25 {
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.IntN(300))*time.Microsecond)
				if lim.Acquire(ctx) == nil {
					granted.Add(1)
					n := inFlight.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.Sleep(time.Duration(rng.IntN(200)) * time.Microsecond)
					inFlight.Add(-1)
					lim.Release()
				}
				cancel()
			}
		})
	}
	wg.Wait()
	assert.Positive(t, granted.Load())
	assert.LessOrEqual(t, peak.Load(), int64(limit))
	inUse, waiting := lim.state()
	assert.Zero(t, inUse)
	assert.Zero(t, waiting)
	for range limit {
		require.NoError(t, lim.Acquire(context.Background()))
	}
}

func TestLimiterFIFO(t *testing.T) {
	lim := NewLimiter(1)
	require.NoError(t, lim.Acquire(context.Background()))
	const waiters = 6
	order := make(chan int, waiters)
	var wg sync.WaitGroup
	for i := range waiters {
		wg.Go(func() {
			if !assert.NoError(t, lim.Acquire(context.Background())) {
				return
			}
			order <- i
			lim.Release()
		})
		// Enqueue one at a time so that the arrival order is known.
		require.Eventually(t, func() bool { _, w := lim.state(); return w == i+1 }, time.Second, time.Millisecond)
	}
	lim.Release()
	wg.Wait()
	close(order)
	var got []int
	for i := range order {
		got = append(got, i)
	}
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, got)
}

// response is a response of the given status with header pairs (name,
// value, ...).
func response(status int, header ...string) *http.Response {
	h := http.Header{}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	return &http.Response{StatusCode: status, Header: h}
}

// throttle halves the limiter's limit n times with runs of 429s that no
// header explains.
func throttle(l *Limiter, n int) {
	for range n {
		cur, _ := l.Limit()
		for range window {
			l.observeResponse(ticket{}, response(http.StatusTooManyRequests), 0)
			if now, _ := l.Limit(); now < cur {
				break
			}
		}
	}
}

// succeed records n successful responses.
func succeed(l *Limiter, n int) {
	for range n {
		l.observeResponse(ticket{}, response(http.StatusOK), 0)
	}
}

// Scattered 429s among successes are noise: the limit stays. Half or more
// 429s over the window are a rate limit: it halves, once per half window,
// and grows back by one every recoverAfter successes.
func TestLimiterTellsARateLimitFromNoise(t *testing.T) {
	// 20% 429s and 5% 500s at random are noise: over 10,000 responses the
	// limit is at its maximum nearly all the time, and seldom halved (a
	// run of 429s as long as a rate limit's happens by chance too, about
	// once per 10,000 responses), and then only once, and soon back.
	rng := rand.New(rand.NewPCG(5, 5))
	noisy := NewLimiter(16)
	atMax := 0
	for range 10_000 {
		switch x := rng.Float64(); {
		case x < 0.20:
			noisy.observeResponse(ticket{}, response(http.StatusTooManyRequests, "Retry-After", "1"), time.Second)
		case x < 0.25:
			noisy.observeResponse(ticket{}, response(http.StatusInternalServerError), 0)
		default:
			noisy.observeResponse(ticket{}, response(http.StatusOK), 0)
		}
		if cur, _ := noisy.Limit(); cur == 16 {
			atMax++
		}
	}
	_, lowest := noisy.Limit()
	assert.GreaterOrEqual(t, atMax, 9_700, "responses with the limit at its maximum")
	assert.GreaterOrEqual(t, lowest, 8)
	var cur int

	limited := NewLimiter(16)
	for range window/2 - 1 {
		limited.observeResponse(ticket{}, response(http.StatusTooManyRequests), 0)
	}
	cur, _ = limited.Limit()
	assert.Equal(t, 16, cur, "too few responses to tell")
	limited.observeResponse(ticket{}, response(http.StatusTooManyRequests, "Retry-After", "2"), 2*time.Second)
	cur, _ = limited.Limit()
	assert.Equal(t, 8, cur, "half of the window is a rate limit")
	assert.WithinDuration(t, time.Now().Add(2*time.Second), limited.hold, time.Second, "its Retry-After holds every request")
	for range window/2 - 1 {
		limited.observeResponse(ticket{}, response(http.StatusTooManyRequests), 0)
	}
	cur, _ = limited.Limit()
	assert.Equal(t, 8, cur, "once per half window")
	limited.observeResponse(ticket{}, response(http.StatusTooManyRequests), 0)
	cur, _ = limited.Limit()
	assert.Equal(t, 4, cur)

	succeed(limited, recoverAfter-1)
	cur, _ = limited.Limit()
	assert.Equal(t, 4, cur)
	succeed(limited, 1)
	cur, lowest = limited.Limit()
	assert.Equal(t, 5, cur, "every %d successes raise the limit by one", recoverAfter)
	assert.Equal(t, 4, lowest)
	succeed(limited, 100*recoverAfter)
	cur, _ = limited.Limit()
	assert.Equal(t, 16, cur, "up to the maximum, never beyond")

	// 429s that the rate-limit headers explain are left to the pacing.
	explained := NewLimiter(16)
	for range 3 * window {
		explained.observeResponse(ticket{cost: [kinds]float64{requests: 1}},
			response(http.StatusTooManyRequests, "X-Ratelimit-Remaining-Requests", "0", "X-Ratelimit-Reset-Requests", "1s"), 0)
	}
	cur, _ = explained.Limit()
	assert.Equal(t, 16, cur)
}

// observeResponse is observe for a response.
func (l *Limiter) observeResponse(t ticket, r *http.Response, after time.Duration) {
	l.observe(t, r.StatusCode, r.Header, r.StatusCode < 300, after)
}
