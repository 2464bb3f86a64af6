package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSummaryCount(t *testing.T) {
	var s Summary
	for _, r := range []Record{
		{Status: Pass, Cached: true, Usage: Usage{Retries: 4, TotalTokens: 10, Requests: 1}},
		{Status: Pass, Usage: Usage{Retries: 2, TotalTokens: 5, Requests: 2, Estimated: true}},
		{Status: Fail},
		{Status: TokenLimit, Cached: true, Usage: Usage{TotalTokens: 99}},
		{Status: Error, Usage: Usage{Retries: 1}},
	} {
		s.Count(r)
	}
	assert.Equal(t, Summary{Total: 5, Passed: 2, Failed: 1, TokenLimit: 1, Errors: 1, Cached: 2,
		Usage: Usage{TotalTokens: 5, Requests: 2, Retries: 3, Estimated: true}}, s, "cached cases cost nothing in this run")
}
