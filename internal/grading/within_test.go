package grading

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// A regexp that takes seconds on a long answer ends with the case's time,
// not when the match is done.
func TestCheckAnswerWithinEndsWithTheCase(t *testing.T) {
	const n = 3000
	slow := strings.Repeat("a?", n) + strings.Repeat("a", n) + "b" // RE2 is linear, but n states per byte
	c := eval.Case{Name: "slow", Input: "What?", Checks: eval.Checks{Regexp: []string{slow}}}
	answer := strings.Repeat("a", 40_000)

	ctx, cancel := context.WithTimeoutCause(context.Background(), 100*time.Millisecond, context.DeadlineExceeded)
	defer cancel()
	start := time.Now()
	checks, err := CheckAnswerWithin(ctx, c, answer)
	assert.Less(t, time.Since(start), time.Second, "the checks end with the case's context")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Nil(t, checks)

	checks, err = CheckAnswerWithin(context.Background(), eval.Case{Name: "quick", Input: "What?", Checks: eval.Checks{Contains: eval.Terms{{Any: []string{"TP53"}}}}}, "It is TP53.")
	require.NoError(t, err)
	require.Len(t, checks, 1)
	assert.True(t, checks[0].Passed)
}
