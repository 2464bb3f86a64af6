package calibrate

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/grading"
	"github.com/mcpeval/mcpeval/internal/labelled"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/settings"
)

// bundled is the settings of a reference run over the bundled cases and
// labels.
func bundled(t *testing.T) settings.Settings {
	t.Helper()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	return settings.Settings{Root: root, Cases: filepath.Join(root, "cases"), Labels: filepath.Join(root, "testdata", "calibration"),
		Reference: true, JudgeMode: settings.JudgeMajority, Concurrency: 4}
}

// The bundled labels: at least 80 answers to the bundled cases, half to
// accept and half to reject, of every kind the judge must handle. On those
// written beside the checks, the checks never decide against the label
// (they may leave an answer undecided) and decide most; on every blind set
// they pass at most 5% of the wrong answers, fail at most 5% of the right
// ones and decide at least half.
func TestBundledChecksAgreeWithEveryLabel(t *testing.T) {
	st := bundled(t)
	in, err := Load(st)
	require.NoError(t, err)
	assert.Empty(t, in.Warnings, "every bundled label matches its case")
	cal, err := Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)

	require.GreaterOrEqual(t, cal.Items, 80)
	kinds := map[string]map[string]int{"yes": {}, "no": {}}
	beside := 0
	for i, r := range cal.Results {
		require.NotNil(t, in.Cases[i], "%s: names no bundled case", r.Where())
		assert.NotEmpty(t, r.Checks, "%s: its case %q checks its answer", r.Where(), r.Case)
		if r.Provenance != eval.BesideTheChecks {
			continue
		}
		beside++
		kinds[r.Verdict][r.Kind]++
		if r.Checks != labelled.Undecided {
			assert.Equal(t, r.Verdict, r.Checks, "%s (%s, %s): %q\n%v", r.Where(), r.Case, r.Why, r.Answer, r.CheckDetail)
		}
	}
	yes, no := 0, 0
	for _, n := range kinds["yes"] {
		yes += n
	}
	for _, n := range kinds["no"] {
		no += n
	}
	assert.Equal(t, yes, no, "half to accept, half to reject")
	for _, k := range []string{"paraphrase", "extra correct detail", "number formatting", "units spelled out", "different order"} {
		assert.Positive(t, kinds["yes"][k], "answers to accept: %s", k)
	}
	for _, k := range []string{"negation", "right digits, wrong number", "wrong unit", "wrong entity", "half an answer",
		"hedging both ways", "refusal", "tells the judge to say yes", "confident wrong extra claim"} {
		assert.Positive(t, kinds["no"][k], "answers to reject: %s", k)
	}
	require.NotNil(t, cal.Checks)
	assert.Equal(t, cal.Items, cal.Checks.Items)
	// The adversarial answers, written to break the checks: at least 60,
	// half right in unusual forms, half wrong with the right tokens, and
	// measured on their own.
	adversarial := map[string]int{}
	seen := map[[3]string]string{}
	for _, r := range cal.Results {
		key := [3]string{r.Provenance + r.Set, r.Case, r.Answer}
		assert.Empty(t, seen[key], "%s repeats the answer of %s", r.Where(), seen[key])
		seen[key] = r.Where()
		if r.Set == "adversarial" {
			adversarial[r.Verdict]++
		}
	}
	assert.GreaterOrEqual(t, adversarial["yes"], 30)
	assert.GreaterOrEqual(t, adversarial["no"], 30)
	bySet := map[string]eval.SetAgreement{}
	for _, s := range cal.ChecksSets {
		bySet[s.Set] = s
	}
	require.Contains(t, bySet, "adversarial")
	assert.Equal(t, adversarial["yes"]+adversarial["no"], bySet["adversarial"].Items)
	require.Contains(t, bySet, eval.BesideTheChecks, "the labels of no set, by their provenance")
	assert.Equal(t, beside, bySet["adversarial"].Items+bySet[eval.BesideTheChecks].Items)
	assert.GreaterOrEqual(t, bySet[eval.BesideTheChecks].Decided, 0.6, "the checks decide most answers written beside them")
	blind := 0
	for _, s := range cal.ChecksSets {
		if s.Provenance != eval.Blind {
			continue
		}
		blind++
		assert.LessOrEqual(t, *s.WrongPassed, 0.05, "%s: wrong answers passed", s.Set)
		assert.LessOrEqual(t, *s.RightFailed, 0.05, "%s: right answers failed", s.Set)
		if s.Trusted() { // the bar; a spent set guards the error rates only
			assert.GreaterOrEqual(t, s.Decided, 0.5, "%s: decided", s.Set)
		}
		assert.GreaterOrEqual(t, s.Items, 80, "%s: a blind set of at least 80 answers", s.Set)
	}
	assert.Positive(t, blind, "at least one blind set")
	assert.Nil(t, cal.Judge, "a reference run asks no judge")
}

// Every bundled case's own expected answer passes its answer checks, and
// each turn's expected reply the turn's checks and asks: not one fails,
// and not one is undecided.
func TestBundledExpectedAnswersPassTheirChecks(t *testing.T) {
	cases, err := evalcase.LoadPath(bundled(t).Cases)
	require.NoError(t, err)
	for _, c := range cases {
		for _, r := range grading.CheckAnswer(c, c.Expected) {
			if !r.Passed {
				t.Errorf("%s (%s): the expected answer does not pass %s: %s", c.Where(), c.Name, r.Check, r.Detail)
			}
		}
		users := c.UserMessages()
		for k, turn := range c.Turns {
			tc := eval.Case{Input: strings.Join(users[:k+2], "\n"), Expected: turn.Expected, Checks: turn.Checks}
			for _, r := range append(grading.CheckAnswer(tc, turn.Expected), grading.CheckAsks(turn.Asks, turn.Expected)...) {
				if !r.Passed {
					t.Errorf("%s (%s): turn %d's expected reply does not pass %s: %s", c.Where(), c.Name, k+2, r.Check, r.Detail)
				}
			}
		}
	}
}

const labelFile = `
- question: "What is the CADD phred score of X?"
  expected: "8.103"
  answer: "8.103"
  verdict: yes
  why: "same"
- question: "What is the CADD phred score of X?"
  expected: "8.103"
  answer: "81.03"
  verdict: no
  why: "wrong number"
- case: gene
  question: "Which gene?"
  expected: "NUTM2G"
  answer: "NUTM2G, the NUT family member 2G"
  verdict: "yes"
  why: "extra detail"
- case: gene
  answer: "NUTM2F"
  verdict: "no"
  why: "wrong gene"
`

// stubSettings configures a judge run against a stub: cases and labels of
// the test's own, the cache in dir.
func stubSettings(t *testing.T, dir string, stub *llmstub.Server, judges string) settings.Settings {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(`
- case:
    name: "gene"
    input: "Which gene?"
    expected: "NUTM2G"
    checks: {contains: [NUTM2G]}
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.labels.yaml"), []byte(labelFile), 0o644))
	return settings.Settings{Root: dir, Cases: filepath.Join(dir, "cases.yaml"), Labels: filepath.Join(dir, "none"),
		Cache: filepath.Join(dir, "cache.json"), Out: dir, BaseURL: stub.BaseURL(), Model: "m", Judge: judges,
		JudgeMode: settings.JudgeMajority, Concurrency: 2, RequestTimeout: 10 * time.Second, RetryWait: time.Millisecond,
		RetryMaxWait: time.Millisecond, MaxRetries: 1}
}

// fairJudge accepts exactly the answers that contain the expected answer
// and nothing that looks like another value.
func fairJudge(_ string, g llmstub.Graded) llmstub.Reply {
	if strings.HasPrefix(g.Answer, g.Expected) {
		return llmstub.Verdict("yes", "contains the expected answer")
	}
	return llmstub.Verdict("no", "differs")
}

func TestJudgeCalibrationAgainstAStub(t *testing.T) {
	var asked atomic.Int64
	stub := llmstub.Start(llmstub.JudgeWith(nil, func(model string, g llmstub.Graded) llmstub.Reply {
		asked.Add(1)
		if model == "yes-man" {
			return llmstub.Verdict("yes", "fine")
		}
		if model == "mumbler" {
			return llmstub.Reply{Content: "I think it is fine."}
		}
		return fairJudge(model, g)
	}), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()

	st := stubSettings(t, dir, stub, "fair")
	in, err := Load(st)
	require.NoError(t, err)
	require.Len(t, in.Labels, 4, "labels next to the case file are found")
	cal, err := Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)
	require.NotNil(t, cal.Judge)
	assert.Equal(t, []string{"fair"}, cal.Judge.Models)
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, cal.Judge.PromptHash)
	assert.Equal(t, 4, cal.Judge.Items)
	require.NotNil(t, cal.Judge.Kappa)
	assert.InDelta(t, 1.0, *cal.Judge.Kappa, 1e-9)
	assert.Equal(t, int64(4), asked.Load())
	require.NotNil(t, cal.Checks, "the two labels of the loaded case are checked")
	assert.Equal(t, 2, cal.Checks.Items)

	// A second calibration reuses every verdict; -force asks again.
	cal, err = Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 4, cal.Judge.Cached)
	assert.Equal(t, int64(4), asked.Load(), "cached verdicts cost nothing")
	st.Force = true
	cal, err = Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)
	assert.Zero(t, cal.Judge.Cached)
	assert.Equal(t, int64(8), asked.Load())
	st.Force = false

	// A judge that accepts everything has a kappa of 0.
	st.Judge = "yes-man"
	cal, err = Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)
	require.NotNil(t, cal.Judge.Kappa)
	assert.InDelta(t, 0.0, *cal.Judge.Kappa, 1e-9)
	assert.Contains(t, Format(cal, ""), "kappa 0.00 is below 0.8: do not trust this judge's verdicts alone")

	// Unusable replies count as undecided (apart from the verdicts) and are
	// asked again next time.
	st.Judge = "mumbler"
	cal, err = Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, 4, cal.Judge.Unusable)
	assert.Equal(t, eval.Confusion{YesUndecided: 2, NoUndecided: 2}, cal.Judge.Confusion)
	assert.Equal(t, 4, cal.Judge.Undecided)
	assert.Zero(t, cal.Judge.Decided)
	cal, err = Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)
	assert.Zero(t, cal.Judge.Cached)

	// Three judges: the fair pair outvotes the yes-man; they split on the
	// two answers to reject.
	st.Judge, st.JudgeMode = "fair,yes-man,fair2", settings.JudgeMajority
	cal, err = Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, []string{"fair", "yes-man", "fair2"}, cal.Judge.Models)
	assert.Equal(t, settings.JudgeMajority, cal.Judge.Mode)
	assert.InDelta(t, 1.0, *cal.Judge.Kappa, 1e-9)
	assert.Equal(t, 2, cal.Judge.Disagreements)
	for _, r := range cal.Results {
		require.Len(t, r.Judges, 3)
	}

	path, err := Write(dir, cal)
	require.NoError(t, err)
	var back eval.Calibration
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, cal.Judge.Agreement, back.Judge.Agreement)
	assert.Equal(t, len(cal.Results), len(back.Results))
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	st := settings.Settings{Root: dir, Cases: filepath.Join(dir, "cases.yaml"), Labels: filepath.Join(dir, "labels")}
	require.NoError(t, os.WriteFile(st.Cases, []byte("- case: {name: a, input: q, expected: e}\n"), 0o644))
	_, err := Load(st)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no labelled answers")
	assert.Contains(t, err.Error(), "EVAL_LABELS")

	require.NoError(t, os.MkdirAll(st.Labels, 0o755))
	stale := "- case: a\n  question: q\n  expected: another answer\n  answer: x\n  verdict: no\n  why: w\n"
	require.NoError(t, os.WriteFile(filepath.Join(st.Labels, "a.labels.yaml"), []byte(stale), 0o644))
	in, err := Load(st)
	require.NoError(t, err)
	require.Len(t, in.Warnings, 1)
	assert.Contains(t, in.Warnings[0], "a.labels.yaml:1: the label's expected answer differs from that of case \"a\"")
	var log strings.Builder
	cal, err := Run(context.Background(), st, in, &log)
	require.NoError(t, err)
	assert.Contains(t, log.String(), "calibrate: warning: "+in.Warnings[0])
	assert.Nil(t, cal.Checks, "a stale label is not measured on the case's checks")

	bad := "- case: a\n  answer: x\n  verdict: maybe\n  why: w\n"
	require.NoError(t, os.WriteFile(filepath.Join(st.Labels, "a.labels.yaml"), []byte(bad), 0o644))
	_, err = Load(st)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `a.labels.yaml:1: label: verdict must be "yes" or "no", not "maybe"`)
}

// Labelled answers to a case graded by claims are measured as runs grade
// them: the checks by the claims' own checks and the case's pass coverage,
// the judge claim by claim.
func TestClaimsCasesAreCalibratedByTheirClaims(t *testing.T) {
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() != llmstub.ClaimsTool {
			return llmstub.Verdict("yes", "asked as a plain case")
		}
		var verdicts []string
		for _, claim := range req.Claims() {
			v := "not"
			for _, n := range []string{"6,446.20", "6,786.60"} {
				if strings.Contains(claim, n) && strings.Contains(req.GradedAnswer(), n) {
					v = "fulfilled"
				}
			}
			verdicts = append(verdicts, v)
		}
		return llmstub.ClaimVerdicts(req, verdicts...)
	}, llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	st := stubSettings(t, dir, stub, "fair")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.yaml"), []byte(`
- case:
    name: "profit"
    input: "What was the average profit for the first and the last five weeks?"
    claims:
      - claim: "The first five weeks averaged $6,446.20."
        checks: {numbers: [{value: 6446.20, tolerance: 0.005}]}
      - claim: "The last five weeks averaged $6,786.60."
        checks: {numbers: [{value: 6786.60, tolerance: 0.005}]}
`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cases.labels.yaml"), []byte(`
- {case: profit, answer: "The first five weeks averaged $6,446.20 and the last five weeks averaged $6,786.60.", verdict: "yes", why: "both"}
- {case: profit, answer: "The first five weeks averaged $6,446.20 and the last five weeks averaged $6,768.60.", verdict: "no", why: "digits swapped"}
`), 0o644))
	in, err := Load(st)
	require.NoError(t, err)
	require.Len(t, in.Labels, 2)
	cal, err := Run(context.Background(), st, in, io.Discard)
	require.NoError(t, err)
	require.NotNil(t, cal.Checks)
	assert.Equal(t, 2, cal.Checks.Items, "the claims' checks decide")
	assert.Equal(t, "yes", cal.Results[0].Checks)
	assert.Equal(t, "no", cal.Results[1].Checks)
	require.NotNil(t, cal.Judge)
	assert.Equal(t, "yes", cal.Results[0].Judge, cal.Results[0].JudgeReason)
	assert.Equal(t, "no", cal.Results[1].Judge, cal.Results[1].JudgeReason)
	assert.Contains(t, cal.Results[1].JudgeReason, "claim 2 not")
}
