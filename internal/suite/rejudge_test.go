package suite

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// A record is graded again only when its answer was graded: runs that
// ended before an answer keep their outcome.
func TestAnswered(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  eval.Record
		want bool
	}{
		{"a pass", eval.Record{Status: eval.Pass}, true},
		{"an undecided judge", eval.Record{Status: eval.Undecided}, true},
		{"a failed check", eval.Record{Status: eval.Fail, Checks: []eval.CheckResult{{Check: "contains"}}}, true},
		{"a judge's no", eval.Record{Status: eval.Fail, Verdict: "no"}, true},
		{"nothing to decide", eval.Record{Status: eval.Fail, Reason: grading.NoDecider + ": nothing can decide this case"}, true},
		{"no final answer", eval.Record{Status: eval.Fail, Reason: "no final answer after 10 iterations"}, false},
		{"an empty answer", eval.Record{Status: eval.Fail, Reason: "the model gave an empty answer"}, false},
		{"a judge that failed", eval.Record{Status: eval.Error, Reason: "judge: HTTP 500"}, true},
		{"checks out of time", eval.Record{Status: eval.Error, Reason: "timed out" + grading.InChecks}, true},
		{"a provider error", eval.Record{Status: eval.Error, Reason: "HTTP 500"}, false},
		{"the model over the token limit", eval.Record{Status: eval.TokenLimit}, false},
		{"the judge's prompt over the limit", eval.Record{Status: eval.TokenLimit, JudgeUsage: &eval.Usage{}}, true},
		{"a cut reply", eval.Record{Status: eval.Cut}, false},
		{"not run", eval.Record{Status: eval.NotRun}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, answered(tc.rec))
		})
	}
}

// Graded again, a record's tool calls are judged as the case now asks: a
// failure the case now expects counts as expected, one it no longer
// expects as a failure; the record graded from is left as it was.
func TestRegradeMarksTheFailuresTheCaseNowExpects(t *testing.T) {
	st := settings.Settings{Judge: "none", MaxIterations: 10, CaseTimeout: time.Minute}
	cases, err := evalcase.Parse("cases.yaml", []byte(`
- case:
    name: lookup
    input: Look up x.
    expected: x
    checks: {contains: [x]}
    reference:
      - {tool: lookup, args: {id: missing}, expect_error: true}
      - {tool: lookup, args: {id: x}}
`))
	require.NoError(t, err)
	c := cases[0]
	s, err := newRun(st, cases, io.Discard)
	require.NoError(t, err)
	r := eval.Record{Name: c.Name, Status: eval.Pass, Response: "x", ToolCalls: []eval.ToolCall{
		{Name: "lookup", Arguments: `{"id":"missing"}`, IsError: true},
		{Name: "lookup", Arguments: `{"id":"other"}`, IsError: true, ExpectedError: true},
	}}
	got := s.regrade(context.Background(), c, r)
	require.Len(t, got.ToolCalls, 2)
	assert.True(t, got.ToolCalls[0].ExpectedError, "the case now asks for this failure")
	assert.False(t, got.ToolCalls[1].ExpectedError, "nor for this one any more")
	assert.False(t, r.ToolCalls[0].ExpectedError, "the source record is not changed")
	assert.Equal(t, eval.Pass, got.Status)
}
