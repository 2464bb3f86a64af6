package suite

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpeval/mcpeval/internal/eval"
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
		{"nothing to decide", eval.Record{Status: eval.Fail, Reason: noDecider + ": nothing can decide this case"}, true},
		{"no final answer", eval.Record{Status: eval.Fail, Reason: "no final answer after 10 iterations"}, false},
		{"an empty answer", eval.Record{Status: eval.Fail, Reason: "the model gave an empty answer"}, false},
		{"a judge that failed", eval.Record{Status: eval.Error, Reason: "judge: HTTP 500"}, true},
		{"checks out of time", eval.Record{Status: eval.Error, Reason: "timed out" + inChecks}, true},
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
