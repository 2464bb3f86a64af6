package suite_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// A deterministic check that would run for seconds past the case's time
// limit ends with it: the case is an error that says so, and its record is
// written.
func TestSlowCheckEndsWithTheCaseTimeout(t *testing.T) {
	t.Parallel()
	const n = 4000
	slow := strings.Repeat("a?", n) + strings.Repeat("a", n) + "b" // seconds on a long answer
	cases := `
- case:
    name: "Slow regexp"
    category: "Gene and Variant Utilities"
    input: "Say a lot."
    expected: "a"
    checks: {regexp: ['` + slow + `']}
`
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() == llmstub.JudgeTool {
			return llmstub.Verdict("yes", "fine")
		}
		return llmstub.Reply{Content: strings.Repeat("a", 60_000)}
	}, llmstub.Options{})
	defer stub.Close()
	t.Run("EVAL_CASE_TIMEOUT", func(t *testing.T) {
		e := stubEnv(stub)
		e["EVAL_CASE_TIMEOUT"] = "1s"
		r := runSuite(t, t.TempDir(), cases, e)
		require.Error(t, r.err, "the case fails")
		rec, ok := r.records["Slow regexp"]
		require.True(t, ok, "the record is written: %s", r.output)
		assert.Equal(t, eval.Error, rec.Status)
		assert.Equal(t, "timed out: the case took longer than EVAL_CASE_TIMEOUT (1s) (in the deterministic checks)", rec.Reason)
		assert.Less(t, rec.Seconds, 2.0, "the case ends with its time limit")
	})
	t.Run("go test -timeout", func(t *testing.T) {
		// The case ends 5 s before go test's own deadline: no panic, a record.
		r := runSuite(t, t.TempDir(), cases, stubEnv(stub), "-timeout", "6s")
		require.Error(t, r.err, "the case fails")
		assert.NotContains(t, r.output, "panic: test timed out")
		rec, ok := r.records["Slow regexp"]
		require.True(t, ok, "the record is written: %s", r.output)
		assert.Equal(t, eval.Error, rec.Status)
		assert.Contains(t, rec.Reason, "go test -timeout is about to expire")
	})
}
