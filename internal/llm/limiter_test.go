package llm

import (
	"context"
	"fmt"
	"math/rand/v2"
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
			lim := newTestLimiter(limit)
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
		cur, lowest := newTestLimiter(n).Limit()
		assert.Equal(t, 1, cur)
		assert.Equal(t, 1, lowest)
	}
}

func TestLimiterThrottledHalves(t *testing.T) {
	tests := []struct {
		start     int
		throttles int
		want      int
	}{
		{start: 8, throttles: 1, want: 4},
		{start: 8, throttles: 2, want: 2},
		{start: 8, throttles: 3, want: 1},
		{start: 8, throttles: 10, want: 1},
		{start: 7, throttles: 1, want: 3},
		{start: 1, throttles: 1, want: 1},
	}
	for _, tt := range tests {
		lim := newTestLimiter(tt.start)
		for range tt.throttles {
			lim.throttled()
		}
		cur, lowest := lim.Limit()
		assert.Equal(t, tt.want, cur, "%d halved %d times", tt.start, tt.throttles)
		assert.Equal(t, tt.want, lowest)
	}
}

func TestLimiterRecovers(t *testing.T) {
	lim := newTestLimiter(6)
	lim.throttled()
	lim.throttled() // 6 → 3 → 1
	succeed := func(n int) {
		for range n {
			lim.succeeded()
		}
	}
	steps := []struct {
		successes, throttles int
		want                 int
	}{
		{successes: recoverAfter - 1, want: 1},
		{successes: 1, want: 2},
		{successes: recoverAfter, want: 3},
		{successes: recoverAfter - 1, throttles: 1, want: 1}, // a throttle restarts the count
		{successes: 1, want: 1},
		{successes: recoverAfter - 1, want: 2},
		{successes: 5 * recoverAfter, want: 6}, // up to max, never beyond
		{successes: 3 * recoverAfter, want: 6},
		{throttles: 1, want: 3},
	}
	for i, s := range steps {
		succeed(s.successes)
		for range s.throttles {
			lim.throttled()
		}
		cur, lowest := lim.Limit()
		assert.Equal(t, s.want, cur, "step %d", i)
		assert.Equal(t, 1, lowest, "step %d", i)
	}
}

func TestLimiterRaisedLimitWakesWaiter(t *testing.T) {
	lim := newTestLimiter(2)
	lim.throttled() // limit 1
	require.NoError(t, lim.Acquire(context.Background()))
	got := make(chan error, 1)
	go func() { got <- lim.Acquire(context.Background()) }()
	require.Eventually(t, func() bool { _, w := lim.state(); return w == 1 }, time.Second, time.Millisecond)

	for range recoverAfter - 1 {
		lim.succeeded()
	}
	select {
	case <-got:
		t.Fatal("acquired before the limit rose")
	case <-time.After(20 * time.Millisecond):
	}
	lim.succeeded()
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
	lim := newTestLimiter(4)
	for range 4 {
		require.NoError(t, lim.Acquire(context.Background()))
	}
	lim.throttled() // limit 2 while 4 are held
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
	lim := newTestLimiter(limit)
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
	lim := newTestLimiter(limit)
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
	lim := newTestLimiter(1)
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

// newTestLimiter returns a limiter that halves on every 429, so tests can
// throttle it step by step.
func newTestLimiter(n int) *Limiter {
	l := NewLimiter(n)
	l.settle = 0
	return l
}

func TestLimiterBurstOf429sCountsOnce(t *testing.T) {
	lim := NewLimiter(8)
	for range 5 {
		lim.throttled()
	}
	cur, lowest := lim.Limit()
	assert.Equal(t, 4, cur, "simultaneous 429s are one signal")
	assert.Equal(t, 4, lowest)
}
