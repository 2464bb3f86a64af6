package llmstub

import (
	"sync"
	"time"
)

// keyLimiter limits each API key to a rate of requests: a token bucket
// per Authorization header value.
type keyLimiter struct {
	mu      sync.Mutex
	buckets map[string]*bucket
}

// bucket is one key's tokens as of last.
type bucket struct {
	tokens float64
	last   time.Time
	// served and throttled count the key's requests.
	served, throttled int
}

// take spends one of key's tokens at rate per second (bursts of burst,
// at least 1). ok false: none is left, and wait is how long until one is.
// A rate of 0 limits nothing.
func (l *keyLimiter) take(key string, rate float64, burst int) (wait time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buckets == nil {
		l.buckets = map[string]*bucket{}
	}
	b := l.buckets[key]
	capacity := float64(max(burst, 1))
	now := time.Now()
	if b == nil {
		b = &bucket{tokens: capacity, last: now}
		l.buckets[key] = b
	}
	if rate <= 0 {
		b.served++
		return 0, true
	}
	b.tokens = min(capacity, b.tokens+now.Sub(b.last).Seconds()*rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		b.served++
		return 0, true
	}
	b.throttled++
	return time.Duration((1 - b.tokens) / rate * float64(time.Second)), false
}

// KeyCount is what one API key sent.
type KeyCount struct {
	Served, Throttled int
}

// Keys returns, per Authorization header value, the requests served and
// those answered 429 for the key's rate limit.
func (s *Server) Keys() map[string]KeyCount {
	s.keys.mu.Lock()
	defer s.keys.mu.Unlock()
	out := make(map[string]KeyCount, len(s.keys.buckets))
	for key, b := range s.keys.buckets {
		out[key] = KeyCount{Served: b.served, Throttled: b.throttled}
	}
	return out
}
