package suite_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/rundata"
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
	t.Parallel()
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
	b := rec.Judges[1]
	assert.Contains(t, b.Reply, `"verdict":"no"`, "each judge's reply is kept")
	b.Reply = ""
	assert.Equal(t, eval.JudgeVerdict{Model: "b", Verdict: "no", Reason: "the answer does not match the expected answer"}, b)
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
	t.Parallel()
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

// A judge whose every reply contradicts itself (a yes call beside "Correct:
// no") is asked once more, then leaves the case undecided: neither a pass
// nor a failure, with both replies in the record, counted in the summary,
// the closing lines and the report, and never cached.
func TestUndecidedJudgeEndToEnd(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(llmstub.UnclearJudges(llmstub.Replay(mustParse(t, geneCases)), "j"), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	e := withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "j"})
	r := runSuite(t, dir, geneCases, e)
	require.Error(t, r.err, "an undecided case does not pass")
	rec := r.records["NUTM2G symbol"]
	assert.Equal(t, eval.Undecided, rec.Status)
	assert.Empty(t, rec.Verdict)
	assert.Contains(t, rec.Reason, "the judge could not decide: asked twice, it replied unclearly both times")
	assert.Equal(t, 2, strings.Count(rec.JudgeRaw, "Correct: no"), "both replies are kept")
	assert.Contains(t, rec.JudgeRaw, "first reply:")
	assert.Contains(t, rec.JudgeRaw, "second reply:")
	assert.Equal(t, 2+2, rec.Usage.Requests, "two agent turns and two judge requests")
	assert.Nil(t, rec.Metrics, "an undecided case says nothing of the model")

	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, []int{2, 0, 0, 2}, []int{sum.Total, sum.Passed, sum.Failed, sum.Undecided})
	assert.Equal(t, eval.VerdictsByJudge, sum.Verdicts)
	assert.Contains(t, r.output, "2 cases: 0 passed, 0 failed, 0 errors, 0 token-limit, 0 cached, 2 undecided (the judge could not decide)")
	assert.Contains(t, r.output, "undecided: the judge could not decide")

	d, err := rundata.Load(r.out, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, d.Totals.Undecided)
	assert.Zero(t, d.Totals.Failed)

	before := len(stub.Received())
	r = runSuite(t, dir, geneCases, e)
	assert.False(t, r.records["NUTM2G symbol"].Cached, "an undecided case is asked again in the next run")
	assert.Positive(t, requestsFor(stub, before, "What is the Entrez id of NUTM2G?"))
}

// A run without a judge says that the checks alone decided it where they
// were sure, and how far they can be trusted: the figures of a blind label
// set of its cases, naming the set, in the closing lines, summary.json and
// the report; labels written beside the checks measure nothing, and the
// run says so.
func TestChecksOnlyRunStatesTheChecksAgreement(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(llmstub.Replay(mustParse(t, geneCases)), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.labels.yaml"), []byte(`
- {case: "NUTM2G symbol", answer: "Its Entrez ID is 441457.", verdict: "yes", why: "right"}
- {case: "NUTM2G symbol", answer: "Not 441457: the ID is 441458.", verdict: "no", why: "negated", set: adversarial}
`), 0o644))
	r := runSuite(t, dir, geneCases, withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "none"}))
	require.NoError(t, r.err, r.output)
	assert.Contains(t, r.output, "mcpeval: checks only: no judge ran; the deterministic checks decided where they were sure and left the rest undecided; "+
		"how far they can be trusted is unmeasured: no blind label set covers this run's cases (the 2 labelled answers found were written beside the checks")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.labels.yaml"), []byte(`
provenance: blind
author: a reviewer who read only README and cases/
commit: c14a7a2
set: blind-e2e
labels:
- {case: "NUTM2G symbol", answer: "The Entrez Gene ID of NUTM2G is 441457.", verdict: "yes", why: "right"}
- {case: "NUTM2G symbol", answer: "NUTM2G is 441458 in Entrez.", verdict: "no", why: "off by one"}
- {case: "NUTM2G symbol", answer: "It might be 441457, or maybe 441458.", verdict: "no", why: "hedged"}
`), 0o644))
	r = runSuite(t, dir, geneCases, withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "none"}))
	require.NoError(t, r.err, r.output)
	assert.Contains(t, r.output, "mcpeval: checks only: no judge ran; the deterministic checks decided where they were sure and left the rest undecided\n")
	assert.Regexp(t, `mcpeval: checks only: on blind label set blind-e2e \(3 answers to this run's cases, written by a reviewer who read only README and cases/ against c14a7a2\): `+
		`wrong answers passed \d+\.\d%, right answers failed \d+\.\d%, decided \d+\.\d%, kappa on the decided`, r.output)

	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	assert.Equal(t, eval.VerdictsByChecks, sum.Verdicts)
	assert.Empty(t, sum.JudgeModel)
	require.NotNil(t, sum.ChecksCalibration)
	require.NotNil(t, sum.ChecksCalibration.Agreement)
	var blind *eval.SetAgreement
	for i, s := range sum.ChecksCalibration.Sets {
		if s.Set == "blind-e2e" {
			blind = &sum.ChecksCalibration.Sets[i]
		}
	}
	require.NotNil(t, blind, "%+v", sum.ChecksCalibration.Sets)
	assert.Equal(t, eval.Blind, blind.Provenance)
	assert.Equal(t, 3, blind.Items)
	assert.True(t, blind.Trusted())
	assert.Contains(t, sum.ChecksCalibration.Labels, filepath.Join(dir, "cases.labels.yaml"))

	d, err := rundata.Load(r.out, nil)
	require.NoError(t, err)
	assert.Equal(t, rundata.TrustChecks, d.Trust.Level)
	assert.True(t, strings.HasPrefix(d.Trust.Message, "Checks only: no judge ran"), d.Trust.Message)
	require.Len(t, d.Trust.Lines, 1, "the blind set on a line of its own")
	assert.Contains(t, d.Trust.Lines[0], "on blind label set blind-e2e")

	// A run of cases the labels do not answer quotes no figure.
	r = runSuite(t, dir, geneCases, withEnv(stubEnv(stub), env{"EVAL_JUDGE_MODEL": "none"}), "-run", "Gene/Recover")
	require.NoError(t, r.err, r.output)
	assert.Contains(t, r.output, "how far they can be trusted is unmeasured")
	assert.NotContains(t, r.output, "blind-e2e")

	// With a judge, the run says the judge decided.
	r = runSuite(t, t.TempDir(), geneCases, stubEnv(stub))
	require.NoError(t, r.err, r.output)
	assert.NotContains(t, r.output, "checks only")
	var judged eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &judged)
	assert.Equal(t, eval.VerdictsByJudge, judged.Verdicts)
	assert.Nil(t, judged.ChecksCalibration)
}
