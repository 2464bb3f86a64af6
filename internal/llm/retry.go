package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// RetryPolicy bounds retries of throttled (429) and transiently failed
// requests (5xx, timeouts, connection resets).
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt (default 5).
	MaxRetries int
	// Initial is the first backoff window (default 2 s); each retry doubles
	// it, up to Max (default 30 s, at least Initial), and waits a random time
	// in its upper half. A Retry-After header wins.
	Initial time.Duration
	Max     time.Duration
	// MaxWait bounds the total time spent waiting between attempts of one
	// request (default 5 min).
	MaxWait time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxRetries == 0 {
		p.MaxRetries = 5
	}
	if p.MaxRetries < 0 {
		p.MaxRetries = 0
	}
	if p.Initial <= 0 {
		p.Initial = 2 * time.Second
	}
	if p.Max <= 0 {
		p.Max = 30 * time.Second
	}
	p.Max = max(p.Max, p.Initial)
	if p.MaxWait <= 0 {
		p.MaxWait = 5 * time.Minute
	}
	return p
}

// backoff returns the wait before retry n (0-based): a random time in the
// upper half of a window that doubles with every retry, up to Max.
func (p RetryPolicy) backoff(n int) time.Duration {
	window := p.Initial
	for ; n > 0 && window < p.Max; n-- {
		window *= 2
	}
	if window <= 0 || window > p.Max {
		window = p.Max
	}
	return window/2 + rand.N(window/2+1)
}

type retryCounterKey struct{}

// WithRetryCounter returns a context whose requests add their retries to n.
func WithRetryCounter(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, retryCounterKey{}, n)
}

type retryTransport struct {
	base    http.RoundTripper
	policy  RetryPolicy
	timeout time.Duration
	limiter *Limiter
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	counter, _ := ctx.Value(retryCounterKey{}).(*atomic.Int64)
	var waited time.Duration
	for attempt := 0; ; attempt++ {
		var tk ticket
		if t.limiter != nil {
			var err error
			if tk, err = t.limiter.admit(ctx, req.ContentLength); err != nil {
				return nil, err
			}
		}
		resp, err := t.once(req, attempt)
		retry, after := t.retryable(resp, err)
		if t.limiter != nil {
			t.limiter.observe(tk, resp, after)
		}
		// The caller's own context ending is final, not a transient failure.
		if !retry || attempt >= t.policy.MaxRetries || ctx.Err() != nil {
			return resp, err
		}
		wait := t.policy.backoff(attempt)
		if after > 0 {
			wait = after
		}
		if wait > t.policy.MaxWait-waited {
			return resp, err
		}
		if resp != nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
		waited += wait
		if counter != nil {
			counter.Add(1)
		}
	}
}

// once sends one attempt with its own timeout; the timeout stays armed until
// the response body is closed.
func (t *retryTransport) once(req *http.Request, attempt int) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(req.Context(), t.timeout)
	r := req.Clone(ctx)
	if attempt > 0 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			cancel()
			return nil, err
		}
		r.Body = body
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		cancel()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && req.Context().Err() == nil {
			return nil, &timeoutError{after: t.timeout, err: err}
		}
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: &limitedBody{body: resp.Body, left: MaxResponseBytes}, cancel: cancel}
	return resp, nil
}

// retryable decides whether a result is worth another attempt, and the
// server's Retry-After if it gave one.
func (t *retryTransport) retryable(resp *http.Response, err error) (bool, time.Duration) {
	if err != nil {
		var te *timeoutError
		var ne net.Error
		switch {
		case errors.As(err, &te), errors.As(err, &ne) && ne.Timeout(),
			errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
			errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return true, 0
		}
		return false, 0
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout, 529:
		return true, retryAfterOf(resp.Header)
	}
	return false, 0
}

// retryAfterOf returns the wait a response asks for: retry-after-ms (OpenAI,
// Azure) when given, else Retry-After.
func retryAfterOf(h http.Header) time.Duration {
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if n, err := strconv.ParseFloat(ms, 64); err == nil && n >= 0 && n < math.MaxInt64/float64(time.Millisecond) {
			return time.Duration(n * float64(time.Millisecond))
		}
	}
	return retryAfter(h.Get("Retry-After"))
}

// retryAfter parses a Retry-After header: seconds or an HTTP date. Values
// beyond what a Duration holds become the longest Duration.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		if s >= math.MaxInt64/float64(time.Second) {
			return math.MaxInt64
		}
		return time.Duration(s * float64(time.Second))
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(time.Until(at), 0)
	}
	return 0
}

type timeoutError struct {
	after time.Duration
	err   error
}

func (e *timeoutError) Error() string {
	return "request timed out after " + e.after.String() + ": " + e.err.Error()
}
func (e *timeoutError) Unwrap() error { return e.err }

// Timeout marks the error as a timeout for net.Error and url.Error.
func (e *timeoutError) Timeout() bool { return true }

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// MaxResponseBytes bounds the body of a provider's response that is read
// (8 MiB, millions of tokens: no model's reply comes near it). A larger
// body is not decoded, so that a hostile or broken endpoint cannot make
// the run hold it in memory: reading it fails with *ResponseTooLargeError.
const MaxResponseBytes = 8 << 20

// ResponseTooLargeError is a response body larger than MaxResponseBytes.
type ResponseTooLargeError struct {
	// Bytes is the size of the body: all of it when Complete, else as much
	// as arrived within the request's time limit.
	Bytes    int64
	Complete bool
}

func (e *ResponseTooLargeError) Error() string {
	size := fmt.Sprintf("%d bytes", e.Bytes)
	if !e.Complete {
		size = "more than " + size
	}
	return fmt.Sprintf("the response of %s is larger than the %d MiB a response may have", size, MaxResponseBytes>>20)
}

// limitedBody passes on the first MaxResponseBytes of a body; past them it
// reads the rest only to count it, and fails.
type limitedBody struct {
	body io.ReadCloser
	left int64
	read int64
	err  error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.body.Read(p)
	b.read += int64(n)
	if int64(n) <= b.left {
		b.left -= int64(n)
		return n, err
	}
	// One byte beyond the limit: count the rest, hold nothing of it.
	rest, drainErr := io.Copy(io.Discard, b.body)
	b.err = &ResponseTooLargeError{Bytes: b.read + rest, Complete: err == io.EOF || drainErr == nil}
	return 0, b.err
}

func (b *limitedBody) Close() error { return b.body.Close() }
