package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

func question() Request {
	return Request{Model: "m", Messages: []eval.Message{{Role: "user", Content: "q"}}}
}

func TestRetryAfterOneSecondIsHonoured(t *testing.T) {
	t.Parallel()
	p := startProvider(t, apiError(http.StatusTooManyRequests, "slow down", "Retry-After", "1"), completion("ok"))
	start := time.Now()
	resp, err := p.client(func(c *Config) { c.Retry.MaxWait = 10 * time.Second }).Chat(context.Background(), question())
	elapsed := time.Since(start)
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Message.Content)
	got := p.requests()
	require.Len(t, got, 2)
	assert.GreaterOrEqual(t, got[1].at.Sub(got[0].at), time.Second)
	assert.GreaterOrEqual(t, elapsed, time.Second)
	assert.Less(t, elapsed, 10*time.Second)
}

func TestRetriedResponses(t *testing.T) {
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	tests := []struct {
		name    string
		first   http.HandlerFunc
		minGap  time.Duration // least time between the two attempts
		maxWait time.Duration // most time the whole call may take
	}{
		{name: "429 Retry-After seconds", first: apiError(429, "rate limited", "Retry-After", "0.05"), minGap: 50 * time.Millisecond, maxWait: time.Second},
		{name: "429 Retry-After past date", first: apiError(429, "rate limited", "Retry-After", past), maxWait: time.Second},
		{name: "429 without Retry-After", first: apiError(429, "rate limited"), maxWait: time.Second},
		{name: "500", first: apiError(500, "internal")},
		{name: "502", first: apiError(502, "bad gateway")},
		{name: "503 with Retry-After", first: apiError(503, "overloaded", "Retry-After", "0.05"), minGap: 50 * time.Millisecond},
		{name: "504", first: apiError(504, "gateway timeout")},
		{name: "529", first: apiError(529, "overloaded")},
		{name: "500 not JSON", first: reply(500, "<html>oops</html>", "Content-Type", "text/html")},
		{name: "429 not JSON", first: reply(429, "Too Many Requests", "Retry-After", "0.01"), minGap: 10 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, tt.first, completion("recovered"))
			start := time.Now()
			resp, err := p.client().Chat(context.Background(), question())
			require.NoError(t, err)
			assert.Equal(t, "recovered", resp.Message.Content)
			got := p.requests()
			require.Len(t, got, 2)
			assert.GreaterOrEqual(t, got[1].at.Sub(got[0].at), tt.minGap)
			assert.Less(t, time.Since(start), max(tt.maxWait, 5*time.Second))
			assert.Equal(t, 1, resp.Retries)
		})
	}
}

func TestNotRetried(t *testing.T) {
	for _, code := range []int{400, 401, 403, 404, 422} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			message := fmt.Sprintf("provider says no (%d): model 'x' is not available", code)
			p := startProvider(t, apiError(code, message), completion("must not be reached"))
			resp, err := p.client().Chat(context.Background(), question())
			require.Error(t, err)
			assert.Equal(t, 1, p.count())
			assert.Zero(t, resp.Retries)
			assert.Contains(t, err.Error(), message)
			assert.Equal(t, code, statusCode(err))
			assert.Equal(t, code == 401 || code == 403, IsAuthError(err))
			assert.Contains(t, Describe(err), fmt.Sprintf("HTTP %d", code))
			assert.Contains(t, Describe(err), message)
		})
	}
}

func TestMaxRetriesBound(t *testing.T) {
	tests := []struct {
		maxRetries   int
		wantAttempts int
	}{
		{maxRetries: -1, wantAttempts: 1},
		{maxRetries: 1, wantAttempts: 2},
		{maxRetries: 4, wantAttempts: 5},
		{maxRetries: 0, wantAttempts: 6}, // zero means the default, 5
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.maxRetries), func(t *testing.T) {
			var n atomic.Int64
			p := startProvider(t, func(w http.ResponseWriter, r *http.Request) {
				apiError(503, fmt.Sprintf("overloaded (attempt %d)", n.Add(1)))(w, r)
			})
			resp, err := p.client(func(c *Config) { c.Retry.MaxRetries = tt.maxRetries }).
				Chat(context.Background(), question())
			require.Error(t, err)
			assert.Equal(t, tt.wantAttempts, p.count())
			assert.EqualValues(t, tt.wantAttempts-1, resp.Retries)
			assert.Contains(t, err.Error(), fmt.Sprintf("(attempt %d)", tt.wantAttempts), "the last error is returned")
			assert.Equal(t, 503, statusCode(err))
		})
	}
}

func TestMaxWaitBound(t *testing.T) {
	tests := []struct {
		name         string
		retryAfter   string
		wantAttempts int
	}{
		// Waits of 50 ms: after two the total is 100 ms, a third would pass 120 ms.
		{name: "waits add up", retryAfter: "0.05", wantAttempts: 3},
		{name: "one wait too long", retryAfter: "3600", wantAttempts: 1},
		{name: "absurd Retry-After", retryAfter: "1e300", wantAttempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, apiError(429, "slow down", "Retry-After", tt.retryAfter))
			start := time.Now()
			_, err := p.client(func(c *Config) {
				c.Retry.MaxRetries = 20
				c.Retry.MaxWait = 120 * time.Millisecond
			}).Chat(context.Background(), question())
			require.Error(t, err)
			assert.Equal(t, 429, statusCode(err))
			assert.Equal(t, tt.wantAttempts, p.count())
			assert.Less(t, time.Since(start), 10*time.Second, "no wait beyond MaxWait")
		})
	}
}

func TestConnectionFailuresRetried(t *testing.T) {
	tests := []struct {
		name  string
		fault http.HandlerFunc
	}{
		{name: "closed without answer", fault: hangUp(false)},
		{name: "reset", fault: hangUp(true)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProvider(t, tt.fault, tt.fault, completion("ok"))
			resp, err := p.client().Chat(context.Background(), question())
			require.NoError(t, err)
			assert.Equal(t, "ok", resp.Message.Content)
			assert.Equal(t, 3, p.count())
			assert.EqualValues(t, 2, resp.Retries)
		})
	}
}

// A provider nothing listens for (a local server that died) is given up
// on within seconds, whatever the retry policy allows other failures: the
// request fails as an *UnreachableError, and so does the next one at once,
// until the provider answers again.
func TestConnectionRefusedGivenUpFast(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	// The default policy: five retries, backoff from 2 s to 30 s.
	c := New(Config{BaseURL: "http://" + addr + "/v1", APIKey: testKey})
	start := time.Now()
	resp, err := c.Chat(context.Background(), question())
	took := time.Since(start)
	var unreachable *UnreachableError
	require.ErrorAs(t, err, &unreachable)
	assert.Equal(t, maxRefusals, resp.Retries)
	assert.Less(t, took, time.Duration(maxRefusals+1)*refusedWait, "refusals wait at most a second each")
	assert.Contains(t, err.Error(), "the provider at http://"+addr+"/v1 cannot be reached: ")
	assert.Contains(t, err.Error(), "connection refused")
	assert.NotContains(t, err.Error(), testKey)
	assert.Zero(t, statusCode(err))

	start = time.Now()
	resp, err = c.Chat(context.Background(), question())
	require.ErrorAs(t, err, &unreachable)
	assert.Zero(t, resp.Retries, "the provider is known to be down: no retry")
	assert.Less(t, time.Since(start), refusedWait)

	// It listens again: the next request succeeds and clears the mark.
	ln, err = net.Listen("tcp", addr)
	require.NoError(t, err)
	srv := &http.Server{Handler: completion("back")}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	resp, err = c.Chat(context.Background(), question())
	require.NoError(t, err)
	assert.Equal(t, "back", resp.Message.Content)
	assert.False(t, c.down.Load())
}

func TestPerRequestTimeout(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	t.Run("retried and recovers", func(t *testing.T) {
		p := startProvider(t, stall(time.Minute), completion("ok"))
		// Long enough for the second answer on a busy machine.
		resp, err := p.client(func(c *Config) { c.Timeout = 2 * time.Second }).
			Chat(context.Background(), question())
		require.NoError(t, err)
		assert.Equal(t, "ok", resp.Message.Content)
		assert.Equal(t, 2, p.count())
		assert.EqualValues(t, 1, resp.Retries)
	})
	t.Run("reported as a timeout", func(t *testing.T) {
		p := startProvider(t, stall(5*time.Second))
		start := time.Now()
		_, err := p.client(func(c *Config) {
			c.Timeout = timeout
			c.Retry.MaxRetries = 2
		}).Chat(context.Background(), question())
		require.Error(t, err)
		assert.Equal(t, 3, p.count())
		assert.Less(t, time.Since(start), 10*time.Second, "three stalls of 5 s were not waited out")
		assert.Contains(t, err.Error(), "timed out after 100ms")
		var ne net.Error
		require.ErrorAs(t, err, &ne)
		assert.True(t, ne.Timeout())
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("slow body is not cut by the timeout of headers", func(t *testing.T) {
		// The timeout covers the whole attempt, body included: a body that
		// streams in under the timeout is read completely.
		p := startProvider(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			body := `{"choices":[{"message":{"role":"assistant","content":"slow but fine"},"finish_reason":"stop"}]}`
			for i := range len(body) {
				w.Write([]byte{body[i]})
				if i%20 == 0 {
					w.(http.Flusher).Flush()
					time.Sleep(time.Millisecond)
				}
			}
		})
		resp, err := p.client(func(c *Config) { c.Timeout = time.Second }).Chat(context.Background(), question())
		require.NoError(t, err)
		assert.Equal(t, "slow but fine", resp.Message.Content)
	})
}

func TestBodyResentIntact(t *testing.T) {
	p := startProvider(t, apiError(500, "internal"), hangUp(false), apiError(429, "slow", "Retry-After", "0"), completion("ok"))
	req := question()
	big := strings.Repeat("0123456789abcdef ", 8<<10) // ~136 KiB
	req.Messages = append(req.Messages, eval.Message{Role: "assistant", Content: big})
	_, err := p.client().Chat(context.Background(), req)
	require.NoError(t, err)

	got := p.requests()
	require.Len(t, got, 4)
	w := decodeWire(t, got[0].body)
	assert.Equal(t, req.Messages, w.Messages)
	for i, r := range got {
		assert.Equal(t, got[0].body, r.body, "attempt %d sent a different body", i)
		assert.Equal(t, fmt.Sprint(len(got[0].body)), r.header.Get("Content-Length"), "attempt %d", i)
	}
}

func TestContextEndsDuringRetries(t *testing.T) {
	t.Run("cancelled during backoff", func(t *testing.T) {
		arrived := make(chan struct{}, 1)
		p := startProvider(t, func(w http.ResponseWriter, r *http.Request) {
			apiError(429, "slow down", "Retry-After", "30")(w, r)
			arrived <- struct{}{}
		})
		ctx, cancel := context.WithCancel(context.Background())
		var cancelled time.Time
		go func() {
			<-arrived
			time.Sleep(20 * time.Millisecond)
			cancelled = time.Now()
			cancel()
		}()
		resp, err := p.client(func(c *Config) { c.Retry.MaxWait = time.Minute }).Chat(ctx, question())
		require.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(cancelled), 10*time.Second, "the 30 s Retry-After was not waited out")
		assert.Equal(t, 1, p.count())
		assert.Zero(t, resp.Retries, "no retry was made")
	})
	t.Run("caller deadline during a request", func(t *testing.T) {
		p := startProvider(t, stall(5*time.Second))
		ctx, cancel := context.WithTimeout(context.Background(), 80*time.Millisecond)
		defer cancel()
		start := time.Now()
		resp, err := p.client().Chat(ctx, question())
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 4*time.Second, "the 5 s stall was not waited out")
		assert.Equal(t, 1, p.count())
		assert.Zero(t, resp.Retries, "the caller's own deadline is not retried")
		assert.NotContains(t, err.Error(), "timed out after", "not the per-request timeout")
	})
}

func TestRetriesComeBackOnTheResponse(t *testing.T) {
	p := startProvider(t, apiError(500, "a"), apiError(503, "b"), completion("one"), apiError(502, "c"), completion("two"))
	c := p.client()
	resp, err := c.Chat(context.Background(), question())
	require.NoError(t, err)
	assert.Equal(t, "one", resp.Message.Content)
	assert.Equal(t, 2, resp.Retries)
	resp, err = c.Chat(context.Background(), question())
	require.NoError(t, err)
	assert.Equal(t, "two", resp.Message.Content)
	assert.Equal(t, 1, resp.Retries)
	resp, err = c.Chat(context.Background(), question())
	require.NoError(t, err)
	assert.Zero(t, resp.Retries)
}

// Rate limits are budgeted by time, not by count: a 429 costs its wait,
// and the error says the wait ran out.
func TestNonJSON429Exhausted(t *testing.T) {
	p := startProvider(t, reply(429, "<html><body>Too Many Requests</body></html>", "Content-Type", "text/html", "Retry-After", "0.01"))
	resp, err := p.client(func(c *Config) { c.Retry.MaxRetries = 2; c.Retry.MaxWait = 55 * time.Millisecond }).Chat(context.Background(), question())
	require.Error(t, err)
	assert.Equal(t, 6, p.count(), "five waits of 10 ms fit in 55 ms, whatever MaxRetries says")
	assert.Equal(t, 5, resp.Retries)
	var pe *ProviderError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, 429, statusCode(err))
	assert.Contains(t, err.Error(), "Too Many Requests")
	assert.Contains(t, err.Error(), "a request may wait in all", "the error names what ran out")
	assert.False(t, IsAuthError(err))
}

// Failures are budgeted by count, and the error says the retries ran out.
func TestFailuresExhaustTheRetries(t *testing.T) {
	p := startProvider(t, apiError(500, "boom"))
	resp, err := p.client(func(c *Config) { c.Retry.MaxRetries = 2 }).Chat(context.Background(), question())
	require.Error(t, err)
	assert.Equal(t, 3, p.count())
	assert.Equal(t, 2, resp.Retries)
	assert.Contains(t, err.Error(), "boom (gave up after 2 retries)")
}

// A provider that answers nothing but 429s, without rate-limit headers, is
// over its limit: the run's concurrency halves, and grows back with
// successes.
func TestLimiterSlowsDownOnThrottling(t *testing.T) {
	throttle := apiError(429, "slow down", "Retry-After", "0")
	script := []http.HandlerFunc{}
	for range window / 2 {
		script = append(script, throttle)
	}
	p := startProvider(t, append(script, completion("ok"))...)
	lim := NewLimiter(8)
	c := p.client(func(c *Config) { c.Limiter, c.Retry.MaxRetries = lim, window })

	_, err := c.Chat(context.Background(), question())
	require.NoError(t, err)
	cur, lowest := lim.Limit()
	assert.Equal(t, 4, cur, "%d 429s in a row halve 8", window/2)
	assert.Equal(t, 4, lowest)

	for range 2*recoverAfter - 1 {
		_, err := c.Chat(context.Background(), question())
		require.NoError(t, err)
	}
	cur, lowest = lim.Limit()
	assert.Equal(t, 6, cur, "every %d successes raise the limit by one", recoverAfter)
	assert.Equal(t, 4, lowest)
}

// Against the project's stub injecting 429s and 500s, every fault is retried
// and counted, and concurrency never passes the limiter's.
func TestStubFaultsAreRetriedUnderLimiter(t *testing.T) {
	stub := llmstub.Start(func(r llmstub.Request) llmstub.Reply {
		return llmstub.Reply{Content: "answer to " + r.Question()}
	}, llmstub.Options{Rate429: 0.3, Rate500: 0.2, RetryAfter: "0.001", Seed: 7, Latency: time.Millisecond})
	t.Cleanup(stub.Close)

	const cases, limit = 24, 4
	lim := NewLimiter(limit)
	c := New(Config{BaseURL: stub.BaseURL(), APIKey: testKey, Limiter: lim,
		Retry: RetryPolicy{MaxRetries: 25, Initial: time.Millisecond, Max: 2 * time.Millisecond}})
	ctx := context.Background()

	var retries atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, cases)
	answers := make([]string, cases)
	for i := range cases {
		wg.Go(func() {
			if errs[i] = lim.Acquire(ctx); errs[i] != nil {
				return
			}
			defer lim.Release()
			resp, err := c.Chat(ctx, Request{Model: "m", Messages: []eval.Message{{Role: "user", Content: fmt.Sprint("case ", i)}}})
			errs[i], answers[i] = err, resp.Message.Content
			retries.Add(int64(resp.Retries))
		})
	}
	wg.Wait()
	for i := range cases {
		require.NoError(t, errs[i], "case %d", i)
		assert.Equal(t, fmt.Sprint("answer to case ", i), answers[i])
	}
	assert.Positive(t, stub.Faults())
	assert.EqualValues(t, stub.Faults(), retries.Load(), "one retry per injected fault")
	assert.Equal(t, cases+stub.Faults(), stub.Requests())
	assert.LessOrEqual(t, stub.PeakInFlight(), limit)
}

func TestBackoffWindow(t *testing.T) {
	tests := []struct {
		name   string
		policy RetryPolicy
		n      int
		window time.Duration
	}{
		{name: "first", policy: RetryPolicy{Initial: 10 * time.Millisecond, Max: time.Second}, n: 0, window: 10 * time.Millisecond},
		{name: "doubles", policy: RetryPolicy{Initial: 10 * time.Millisecond, Max: time.Second}, n: 1, window: 20 * time.Millisecond},
		{name: "doubles again", policy: RetryPolicy{Initial: 10 * time.Millisecond, Max: time.Second}, n: 3, window: 80 * time.Millisecond},
		{name: "capped", policy: RetryPolicy{Initial: 10 * time.Millisecond, Max: time.Second}, n: 7, window: time.Second},
		{name: "capped far out", policy: RetryPolicy{Initial: 10 * time.Millisecond, Max: time.Second}, n: 500, window: time.Second},
		{name: "defaults", policy: RetryPolicy{}.withDefaults(), n: 2, window: 8 * time.Second},
		{name: "defaults capped", policy: RetryPolicy{}.withDefaults(), n: 5, window: 30 * time.Second},
		// Initial<<30 overflows int64 here; the window must still be Max.
		{name: "no overflow", policy: RetryPolicy{Initial: 1<<34 + 1, Max: time.Hour}, n: 30, window: time.Hour},
		{name: "tiny", policy: RetryPolicy{Initial: 1, Max: 1}, n: 4, window: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := tt.policy.backoff(tt.n), tt.policy.backoff(tt.n)
			for range 2000 {
				d := tt.policy.backoff(tt.n)
				require.GreaterOrEqual(t, d, tt.window/2)
				require.LessOrEqual(t, d, tt.window)
				lo, hi = min(lo, d), max(hi, d)
			}
			if tt.window >= time.Millisecond {
				// Jitter spreads over the upper half of the window.
				assert.Less(t, lo, tt.window/2+tt.window/8)
				assert.Greater(t, hi, tt.window-tt.window/8)
			}
		})
	}
}

func TestRetryPolicyDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   RetryPolicy
		want RetryPolicy
	}{
		{name: "zero", in: RetryPolicy{}, want: RetryPolicy{MaxRetries: 5, Initial: 2 * time.Second, Max: 30 * time.Second, MaxWait: 5 * time.Minute}},
		{name: "negative retries mean none", in: RetryPolicy{MaxRetries: -3}, want: RetryPolicy{MaxRetries: 0, Initial: 2 * time.Second, Max: 30 * time.Second, MaxWait: 5 * time.Minute}},
		{name: "kept", in: RetryPolicy{MaxRetries: 2, Initial: time.Millisecond, Max: time.Second, MaxWait: time.Minute},
			want: RetryPolicy{MaxRetries: 2, Initial: time.Millisecond, Max: time.Second, MaxWait: time.Minute}},
		{name: "Max below Initial", in: RetryPolicy{Initial: time.Second, Max: time.Millisecond},
			want: RetryPolicy{MaxRetries: 5, Initial: time.Second, Max: time.Second, MaxWait: 5 * time.Minute}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.in.withDefaults())
		})
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Now()
	tests := []struct {
		header   string
		min, max time.Duration
	}{
		{header: ""},
		{header: "0"},
		{header: "0.05", min: 50 * time.Millisecond, max: 50 * time.Millisecond},
		{header: "1", min: time.Second, max: time.Second},
		{header: "120", min: 2 * time.Minute, max: 2 * time.Minute},
		{header: "-1"},
		{header: "soon"},
		{header: "NaN"},
		{header: "Inf", min: 1000 * time.Hour, max: 1<<63 - 1},
		{header: "1e300", min: 1000 * time.Hour, max: 1<<63 - 1},
		{header: now.Add(10 * time.Second).UTC().Format(http.TimeFormat), min: 8 * time.Second, max: 10 * time.Second},
		{header: now.Add(-10 * time.Second).UTC().Format(http.TimeFormat)},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			got := retryAfter(tt.header)
			assert.GreaterOrEqual(t, got, tt.min)
			assert.LessOrEqual(t, got, tt.max)
		})
	}
}

func TestTimeoutErrorIsATimeout(t *testing.T) {
	err := error(&timeoutError{after: time.Second, err: context.DeadlineExceeded})
	assert.Equal(t, "request timed out after 1s: context deadline exceeded", err.Error())
	assert.True(t, errors.Is(err, context.DeadlineExceeded))
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
}

// inFlightMeter wraps a handler and records how many requests were in
// progress whenever one arrived.
type inFlightMeter struct {
	next      http.Handler
	now       atomic.Int64
	sum, seen atomic.Int64
}

func (m *inFlightMeter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.sum.Add(m.now.Add(1))
	m.seen.Add(1)
	defer m.now.Add(-1)
	m.next.ServeHTTP(w, r)
}

func (m *inFlightMeter) mean() float64 { return float64(m.sum.Load()) / float64(max(m.seen.Load(), 1)) }

// runCases runs cases that each hold a limiter slot for three requests.
func runCases(t *testing.T, c *Client, lim *Limiter, cases int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, cases)
	for i := range cases {
		wg.Go(func() {
			if errs[i] = lim.Acquire(context.Background()); errs[i] != nil {
				return
			}
			defer lim.Release()
			for range 3 {
				if _, errs[i] = c.Chat(context.Background(), question()); errs[i] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "case %d", i)
	}
}

// 20% 429s and 5% 500s at random are noise, not a rate limit: the run keeps
// its concurrency (each request waits and retries on its own).
func TestNoiseKeepsTheConcurrency(t *testing.T) {
	t.Parallel()
	stub := llmstub.New(func(llmstub.Request) llmstub.Reply { return llmstub.Reply{Content: "ok"} },
		llmstub.Options{Latency: 50 * time.Millisecond, Rate429: 0.2, Rate500: 0.05, RetryAfter: "0", Seed: 11})
	meter := &inFlightMeter{next: stub}
	server := httptest.NewServer(meter)
	t.Cleanup(server.Close)
	const limit = 16
	lim := NewLimiter(limit)
	c := New(Config{BaseURL: server.URL + "/v1", APIKey: testKey, Limiter: lim,
		Retry: RetryPolicy{MaxRetries: 20, Initial: time.Millisecond, Max: 2 * time.Millisecond}})
	runCases(t, c, lim, 10*limit)
	assert.Positive(t, stub.Faults())
	t.Logf("%d requests, %d faults, %.1f in flight on average", stub.Requests(), stub.Faults(), meter.mean())
	assert.Greater(t, meter.mean(), 0.5*limit, "requests in flight when one arrives, on average")
}

// Against a provider that enforces 100 requests per second and says so in
// its rate-limit headers, requests are paced: hardly any is refused.
func TestRateLimitHeadersPaceTheRequests(t *testing.T) {
	t.Parallel()
	const rate = 100
	stub := llmstub.Start(func(llmstub.Request) llmstub.Reply { return llmstub.Reply{Content: "ok"} },
		llmstub.Options{Latency: 10 * time.Millisecond, RateLimit: rate})
	t.Cleanup(stub.Close)
	lim := NewLimiter(16)
	c := New(Config{BaseURL: stub.BaseURL(), APIKey: testKey, Limiter: lim,
		Retry: RetryPolicy{MaxRetries: 5, Initial: 10 * time.Millisecond, Max: time.Second}})
	const cases = 100 // 300 requests: 3 s at the provider's rate
	runCases(t, c, lim, cases)
	t.Logf("%d requests, %d refused by the rate limit", stub.Requests(), stub.Throttled())
	assert.Less(t, stub.Throttled(), 3*cases/20, "refused requests: fewer than 5%")
	cur, _ := lim.Limit()
	assert.Equal(t, 16, cur, "429s the headers explain leave the concurrency to the pacing")
}

// A response whose body stalls after its headers is a timed-out attempt,
// retried like a server that does not answer.
func TestStalledBodyIsRetried(t *testing.T) {
	stalledBody := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"never fin`)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	}
	p := startProvider(t, stalledBody, completion("ok"))
	start := time.Now()
	resp, err := p.client(func(c *Config) { c.Timeout = 300 * time.Millisecond }).Chat(context.Background(), question())
	require.NoError(t, err)
	assert.Equal(t, "ok", resp.Message.Content)
	assert.Equal(t, 2, p.count(), "the stalled attempt was retried")
	assert.Less(t, time.Since(start), 10*time.Second)
}
