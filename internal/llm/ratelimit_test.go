package llm

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestResetIn(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"1s", time.Second, true},
		{"6m0s", 6 * time.Minute, true},
		{"20ms", 20 * time.Millisecond, true},
		{"2m59.56s", 2*time.Minute + 59560*time.Millisecond, true},
		{"0.5", 500 * time.Millisecond, true},
		{"30", 30 * time.Second, true},
		{"1795521610000", 10 * time.Second, true}, // Unix milliseconds (OpenRouter)
		{"1795521610", 10 * time.Second, true},    // Unix seconds
		{"1795521590000", 0, true},                // in the past
		{"2026-11-24T12:00:05Z", 5 * time.Second, true},
		{"Tue, 24 Nov 2026 12:00:07 GMT", 7 * time.Second, true},
		{"", 0, false},
		{"soon", 0, false},
		{"-1", 0, false},
		{"1e300", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			got, ok := resetIn(tt.header, now)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestReadBudgets(t *testing.T) {
	now := time.Now()
	h := http.Header{}
	h.Set("x-ratelimit-limit-requests", "500")
	h.Set("x-ratelimit-remaining-requests", "499")
	h.Set("x-ratelimit-reset-requests", "120ms")
	h.Set("x-ratelimit-remaining-tokens", "29000")
	h.Set("x-ratelimit-limit-tokens", "30000")
	h.Set("x-ratelimit-reset-tokens", "2s")
	b := readBudgets(h, now)
	assert.Equal(t, budgetState{known: true, remaining: 499, limit: 500, resetAt: now.Add(120 * time.Millisecond), at: now}, b[requests])
	assert.Equal(t, budgetState{known: true, remaining: 29000, limit: 30000, resetAt: now.Add(2 * time.Second), at: now}, b[tokens])

	openRouter := http.Header{}
	openRouter.Set("X-RateLimit-Limit", "20")
	openRouter.Set("X-RateLimit-Remaining", "0")
	openRouter.Set("X-RateLimit-Reset", "bogus")
	b = readBudgets(openRouter, now)
	assert.Equal(t, budgetState{known: true, remaining: 0, limit: 20, at: now}, b[requests])
	assert.False(t, b[tokens].known)

	assert.False(t, readBudgets(http.Header{"X-Ratelimit-Remaining-Requests": {"NaN"}}, now)[requests].known)
}

func TestBudgetWait(t *testing.T) {
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	// 10 of 100 left, whole again in 900 ms: it refills 100 per second.
	refilling := budget{report: budgetState{known: true, remaining: 10, limit: 100, resetAt: at.Add(900 * time.Millisecond), at: at}, sentAt: 50}
	fixed := budget{report: budgetState{known: true, remaining: 2, resetAt: at.Add(time.Second), at: at}, sentAt: 50}
	tests := []struct {
		name       string
		b          budget
		now        time.Time
		sent, cost float64
		want       time.Duration
	}{
		{"nothing known", budget{}, at, 1000, 1, 0},
		{"room left", refilling, at, 55, 1, 0},
		{"used up by what was sent since", refilling, at, 60, 1, 10 * time.Millisecond},
		{"refilled since", refilling, at.Add(20 * time.Millisecond), 60, 1, 0},
		{"a large request waits for room", refilling, at, 50, 30, 200 * time.Millisecond},
		{"larger than the whole budget: when whole", refilling, at, 50, 500, 900 * time.Millisecond},
		{"no refill rate: what remains", fixed, at, 51, 1, 0},
		{"no refill rate: until the reset", fixed, at, 52, 1, time.Second},
		{"no refill rate: whole after the reset", fixed, at.Add(time.Second), 60, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, tt.b.wait(tt.now, tt.sent, tt.cost), float64(time.Millisecond))
		})
	}
}

// A later report about an earlier request does not replace a report about
// a later one.
func TestBudgetKeepsTheLatestReport(t *testing.T) {
	var b budget
	b.update(budgetState{known: true, remaining: 5}, 10)
	b.update(budgetState{known: true, remaining: 9}, 7)
	assert.Equal(t, 5.0, b.report.remaining)
	b.update(budgetState{known: true, remaining: 3}, 12)
	assert.Equal(t, 3.0, b.report.remaining)
}
