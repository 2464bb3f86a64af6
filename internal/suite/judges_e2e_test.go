package suite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

func withEnv(base env, extra env) env {
	out := env{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// Three judges on a stub whose judge "b" rejects every answer: the majority
// passes the cases, the split is in each record and counted in the
// summary; unanimous mode fails them and names each judge's verdict. The
// set of judges and the mode are part of the cache key; their order is not.
func TestSeveralJudgesEndToEnd(t *testing.T) {
	stub := llmstub.Start(llmstub.RejectingJudges(llmstub.Replay(mustParse(t, geneCases)), "b"), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	const q = "What is the Entrez id of NUTM2G?"

	r := runSuite(t, dir, geneCases, withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "a,b,c"}))
	require.NoError(t, r.err, r.output)
	rec := r.records["NUTM2G symbol"]
	assert.Equal(t, eval.Pass, rec.Status, "two of three judges accept")
	assert.Equal(t, "yes", rec.Verdict)
	assert.Equal(t, "a,b,c", rec.JudgeModel)
	assert.True(t, rec.JudgeDisagreement)
	require.Len(t, rec.Judges, 3)
	assert.Equal(t, eval.JudgeVerdict{Model: "b", Verdict: "no", Reason: "the answer does not match the expected answer"}, rec.Judges[1])
	assert.Equal(t, "yes", rec.Judges[2].Verdict)
	assert.Equal(t, 3+2, rec.Usage.Requests, "two agent turns and three judge requests")
	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, 2, sum.JudgeDisagreements)
	assert.Equal(t, "a,b,c", sum.JudgeModel)
	assert.Equal(t, "majority", sum.JudgeMode)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, sum.JudgePromptHash)

	// The same judges in another order reuse the passes.
	before := len(stub.Received())
	r = runSuite(t, dir, geneCases, withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "c, a, b"}))
	require.NoError(t, r.err, r.output)
	assert.True(t, r.records["NUTM2G symbol"].Cached)
	assert.Zero(t, requestsFor(stub, before, q))

	// Another judge set runs again.
	before = len(stub.Received())
	r = runSuite(t, dir, geneCases, withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "a,b,d"}))
	require.NoError(t, r.err, r.output)
	assert.False(t, r.records["NUTM2G symbol"].Cached)
	assert.Positive(t, requestsFor(stub, before, q))

	// Unanimous: b's "no" fails every case, and the failure says who said what.
	r = runSuite(t, dir, geneCases, withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "a,b,c", "EVAL_JUDGE_MODE": "unanimous"}))
	require.Error(t, r.err)
	rec = r.records["NUTM2G symbol"]
	assert.False(t, rec.Cached, "the mode is part of the key")
	assert.Equal(t, eval.Fail, rec.Status)
	assert.Equal(t, "no", rec.Verdict)
	assert.Contains(t, rec.Reason, "2 of 3 judges said yes (unanimous decides)")
	assert.Contains(t, r.output, "judges: a yes, b no, c yes")

	// An even number of judges in majority mode is a configuration error.
	r = runSuite(t, dir, geneCases, withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "a,b"}))
	require.Error(t, r.err)
	assert.Contains(t, r.output, "EVAL_JUDGE_MODEL names 2 judge models: a majority needs an odd number")
}

// A reference run of MARRVEL-MCP's own case file, whose cases have no
// reference trajectory, skips every case and says why, instead of failing
// them; cases with a trajectory still run.
func TestReferenceRunSkipsCasesWithoutATrajectory(t *testing.T) {
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	upstream := filepath.Join(root, "..", "shared", "marrvel", "test_cases.yaml")
	if _, err := os.Stat(upstream); err != nil {
		t.Skip("the shared folder is not checked out beside the project")
	}
	dir := t.TempDir()
	r := runSuite(t, dir, "", env{"EVAL_CASES": upstream}, "-v")
	require.NoError(t, r.err, "skipped cases do not fail the run\n%s", r.output)
	skipped := 0
	for _, e := range r.events {
		if e.Action == "skip" && len(e.Test) > len("TestOtherCategories/test_cases/") {
			skipped++
		}
	}
	assert.Equal(t, 22, skipped)
	assert.Contains(t, r.output, "reference run: the case has no reference trajectory to replay")
	assert.Empty(t, r.records, "a skipped case writes no record")
	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, 22, sum.Skipped)
	assert.Zero(t, sum.NotRun)
	assert.Contains(t, r.output, "0 cases: 0 passed, 0 failed, 0 errors, 0 token-limit, 0 cached, 22 skipped")

	mixed := geneCases + `
- case:
    name: "No trajectory"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of CFTR?"
    expected: "1080"
    checks: {contains: ["1080"]}
`
	r = runSuite(t, t.TempDir(), mixed, env{}, "-count=2")
	require.NoError(t, r.err, r.output)
	assert.Equal(t, "skip", r.status("TestGeneAndVariantUtilities/No_trajectory"))
	assert.Equal(t, eval.Pass, r.records["NUTM2G symbol"].Status)
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, []int{4, 4, 2, 0}, []int{sum.Total, sum.Passed, sum.Skipped, sum.NotRun},
		"two runs of each case: two cases pass twice, one is skipped twice, none is left out")
}
