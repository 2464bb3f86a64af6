package llm

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The kinds of rate limit a provider reports in its headers.
const (
	requests = iota
	tokens
	kinds
)

// bytesPerToken estimates a request's tokens from its body, for a token
// budget.
const bytesPerToken = 4

// budgetState is what one response's headers say of one kind of limit.
type budgetState struct {
	known     bool
	remaining float64
	// limit is the budget's size, 0 when not given; resetAt is when the
	// budget is whole again, zero when not given.
	limit   float64
	resetAt time.Time
	at      time.Time
}

// The header names of each kind: remaining, limit and reset. OpenAI,
// Groq and Together send the -requests and -tokens forms; OpenRouter and
// others the bare x-ratelimit-* forms (requests); the IETF draft the
// ratelimit-* forms.
var budgetHeaders = [kinds][3][]string{
	requests: {
		{"X-Ratelimit-Remaining-Requests", "X-Ratelimit-Remaining", "Ratelimit-Remaining"},
		{"X-Ratelimit-Limit-Requests", "X-Ratelimit-Limit", "Ratelimit-Limit"},
		{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset", "Ratelimit-Reset"},
	},
	tokens: {
		{"X-Ratelimit-Remaining-Tokens"},
		{"X-Ratelimit-Limit-Tokens"},
		{"X-Ratelimit-Reset-Tokens"},
	},
}

// readBudgets reads the rate-limit headers of a response received at now.
func readBudgets(h http.Header, now time.Time) [kinds]budgetState {
	var out [kinds]budgetState
	for k, names := range budgetHeaders {
		remaining, ok := headerNumber(h, names[0])
		if !ok {
			continue
		}
		s := budgetState{known: true, remaining: remaining, at: now}
		s.limit, _ = headerNumber(h, names[1])
		for _, name := range names[2] {
			if d, ok := resetIn(h.Get(name), now); ok {
				s.resetAt = now.Add(d)
				break
			}
		}
		out[k] = s
	}
	return out
}

// headerNumber returns the first of the named headers that holds a finite,
// non-negative number.
func headerNumber(h http.Header, names []string) (float64, bool) {
	for _, name := range names {
		v := strings.TrimSpace(h.Get(name))
		if v == "" {
			continue
		}
		if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 && !math.IsInf(n, 0) {
			return n, true
		}
	}
	return 0, false
}

// resetIn reads a reset header: a duration ("1s", "6m0s", "20ms", OpenAI's
// form), seconds from now ("0.5"), a Unix time in seconds or milliseconds
// (OpenRouter's), or a date.
func resetIn(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, true
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 && !math.IsInf(f, 0) {
		switch {
		case f >= 1e15: // no time a reset names
			return 0, false
		case f > 1e12: // Unix milliseconds
			return max(time.UnixMilli(int64(f)).Sub(now), 0), true
		case f > 1e9: // Unix seconds
			return max(time.Unix(int64(f), 0).Sub(now), 0), true
		}
		return time.Duration(f * float64(time.Second)), true
	}
	for _, layout := range []string{time.RFC3339, http.TimeFormat} {
		if at, err := time.Parse(layout, v); err == nil {
			return max(at.Sub(now), 0), true
		}
	}
	return 0, false
}

// budget is the client's picture of one kind of provider budget: the
// latest report, and how much was sent up to the request it answered. In
// between reports the budget refills at the rate the report implies (the
// spent part over the time to its reset) and whole at the reset.
type budget struct {
	report budgetState
	// sentAt is the cumulative cost sent up to the reported request.
	sentAt float64
}

// update takes a report about the request sent when sentAt had been sent,
// unless a report about a later request is already in.
func (b *budget) update(s budgetState, sentAt float64) {
	if b.report.known && sentAt < b.sentAt {
		return
	}
	b.report, b.sentAt = s, sentAt
}

// wait returns how long a request of cost must wait at now, sent being the
// cumulative cost sent so far; 0 when it may go.
func (b *budget) wait(now time.Time, sent, cost float64) time.Duration {
	r := b.report
	if !r.known {
		return 0
	}
	since := sent - b.sentAt // sent after the reported request
	rate := b.rate()
	if rate == 0 {
		// No refill rate to go by: what remains lasts until the reset,
		// when the budget is whole again. Without a reset, the provider's
		// 429s will tell.
		if r.remaining-since >= cost || r.resetAt.IsZero() || !now.Before(r.resetAt) {
			return 0
		}
		return r.resetAt.Sub(now)
	}
	// The budget refills at rate up to its size; a request larger than
	// the whole budget goes when the budget is whole, not never.
	cost = min(cost, r.limit)
	level := min(r.limit, r.remaining+rate*now.Sub(r.at).Seconds())
	short := cost - (level - since)
	if short <= 0 {
		return 0
	}
	return max(time.Duration(short/rate*float64(time.Second)), time.Millisecond)
}

// rate returns the refill rate the report implies, per second, or 0.
func (b *budget) rate() float64 {
	r := b.report
	spent := r.limit - r.remaining
	window := r.resetAt.Sub(r.at).Seconds()
	if r.limit <= 0 || spent <= 0 || window <= 0 {
		return 0
	}
	return spent / window
}
