package llm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"
)

// RetryPolicy bounds retries of throttled (429) and transiently failed
// requests (5xx, timeouts, connection resets).
type RetryPolicy struct {
	// MaxRetries is the number of failed attempts retried (default 5);
	// rate limits (429) are not counted: their waits count towards
	// MaxWait.
	MaxRetries int
	// Initial is the first backoff window (default 2 s); each retry doubles
	// it, up to Max (default 30 s, at least Initial), and waits a random time
	// in its upper half. A Retry-After header wins.
	Initial time.Duration
	Max     time.Duration
	// MaxWait bounds the total time spent waiting between attempts of one
	// request, for rate limits and failures alike (default 5 min).
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

// exchange is one attempt's response, its body read whole.
type exchange struct {
	status int
	header http.Header
	body   []byte
}

// GaveUpError is a request whose retries ran out: Err is the last
// attempt's error, Reason says which limit was reached.
type GaveUpError struct {
	Err error
	// Reason names the limit: the number of retries of failures, or the
	// time to wait in all (rate limits and backoff).
	Reason string
}

func (e *GaveUpError) Error() string { return e.Err.Error() + " (" + e.Reason + ")" }
func (e *GaveUpError) Unwrap() error { return e.Err }

// send posts body to url until decode accepts a response or the retry
// policy gives up, and returns how many attempts were retried. A failure
// (a 5xx, an error inside a 200 response, a timeout, a connection lost,
// a body that stalled) costs one of MaxRetries; a rate limit (429) costs
// only its wait, which counts towards MaxWait with every other wait.
//
// A refused connection (nothing listens: a local server that died, a host
// name that no longer resolves) is retried twice, a second apart at most,
// and then is an *UnreachableError; once one request has found the
// provider down, the next refused one is at once, until a request
// succeeds again.
func (c *Client) send(ctx context.Context, url string, body []byte, decode func(exchange) error) (retries int, err error) {
	var waited time.Duration
	failures, refusals := 0, 0
	for {
		var tk ticket
		if c.limiter != nil {
			if tk, err = c.limiter.admit(ctx, int64(len(body))); err != nil {
				return retries, err
			}
		}
		ex, err := c.attempt(ctx, url, body)
		if err == nil {
			err = decode(ex)
		}
		retry, throttled, after := retryable(err)
		if c.limiter != nil && ex.header != nil {
			c.limiter.observe(tk, ex.status, ex.header, err == nil, after)
		}
		if err == nil {
			c.down.Store(false)
		}
		// The caller's own context ending is final, not a transient failure.
		if !retry || ctx.Err() != nil {
			return retries, err
		}
		wait := c.policy.backoff(retries)
		if refused(err) {
			if refusals++; refusals > maxRefusals || c.down.Load() {
				c.down.Store(true)
				return retries, &UnreachableError{URL: c.endpoint.base, Err: redact(unwrapURLError(err), c.apiKey)}
			}
			wait = min(wait, refusedWait)
		}
		if !throttled {
			if failures++; failures > c.policy.MaxRetries {
				return retries, &GaveUpError{Err: err, Reason: fmt.Sprintf("gave up after %d retries", c.policy.MaxRetries)}
			}
		}
		if after > 0 {
			wait = after
		}
		if waited+wait > c.policy.MaxWait {
			return retries, &GaveUpError{Err: err, Reason: fmt.Sprintf("gave up: waiting %s more would pass the %s a request may wait in all", wait.Round(time.Millisecond), c.policy.MaxWait)}
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return retries, ctx.Err()
		case <-timer.C:
		}
		waited += wait
		retries++
	}
}

// attempt sends one request and reads its response whole, within the
// client's timeout: a body that stalls is a timeout like a server that
// does not answer.
func (c *Client) attempt(ctx context.Context, url string, body []byte) (exchange, error) {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	timedOut := func(err error) error {
		if errors.Is(actx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			return &timeoutError{after: c.timeout, err: err}
		}
		return err
	}
	req, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return exchange{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return exchange{}, timedOut(err)
	}
	defer resp.Body.Close()
	ex := exchange{status: resp.StatusCode, header: resp.Header}
	ex.body, err = readBounded(resp.Body)
	var tooLarge *ResponseTooLargeError
	if err != nil && !errors.As(err, &tooLarge) {
		err = timedOut(err)
	}
	return ex, err
}

// authorize sets the request's key header (the endpoint's kind decides
// which) and the configured headers.
func (c *Client) authorize(req *http.Request) {
	if c.apiKey != "" {
		c.endpoint.authorize(req.Header, c.apiKey)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
}

// readBounded reads a body of at most MaxResponseBytes. A larger one is
// read on only to count it, holding nothing of it, and is a
// *ResponseTooLargeError.
func readBounded(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxResponseBytes+1))
	if err != nil || len(data) <= MaxResponseBytes {
		return data, err
	}
	rest, err := io.Copy(io.Discard, r)
	return nil, &ResponseTooLargeError{Bytes: int64(len(data)) + rest, Complete: err == nil}
}

// maxRefusals is how many refused connections a request retries, each
// after at most refusedWait: a local server restarting has that long to
// listen again.
const (
	maxRefusals = 2
	refusedWait = time.Second
)

// refused reports whether err says that nothing listens at the provider's
// address: the connection was refused, or its host name does not resolve.
func refused(err error) bool {
	var dns *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &dns) && dns.IsNotFound
}

// retryable decides whether an attempt's error is worth another attempt,
// whether it was a rate limit, and the wait the provider asked for.
func retryable(err error) (retry, throttled bool, after time.Duration) {
	if err == nil {
		return false, false, 0
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.Transient(), pe.Throttled(), pe.RetryAfter
	}
	var te *timeoutError
	var ne net.Error
	switch {
	case errors.As(err, &te), errors.As(err, &ne) && ne.Timeout(),
		errors.Is(err, syscall.ECONNRESET), refused(err),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true, false, 0
	}
	return false, false, 0
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
