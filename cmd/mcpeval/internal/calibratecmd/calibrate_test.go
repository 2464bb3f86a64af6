package calibratecmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/base"
	"github.com/mcpeval/mcpeval/cmd/mcpeval/internal/cmdtest"
	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// isolate clears the provider and suite settings of the environment and
// points the output and cache at a temporary directory.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"OPENROUTER_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "EVAL_MODEL", "EVAL_JUDGE_MODEL",
		"EVAL_JUDGE_MODE", "EVAL_CASES", "EVAL_LABELS", "EVAL_REFERENCE", "EVAL_FORCE", "EVAL_CLEAR"} {
		t.Setenv(name, "")
	}
	t.Setenv("EVAL_DOTENV", "off")
	t.Setenv("EVAL_OUT", dir)
	t.Setenv("EVAL_CACHE", filepath.Join(dir, "cache.json"))
	return dir
}

func readCalibration(t *testing.T, dir string) eval.Calibration {
	t.Helper()
	var cal eval.Calibration
	data, err := os.ReadFile(filepath.Join(dir, eval.CalibrationFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &cal))
	return cal
}

// Offline, make calibrate measures the deterministic checks on the bundled
// labels, each set on its own line with its provenance: they never decide
// against a label written beside them, and on the blind sets they pass at
// most 5% of the wrong answers and fail at most 5% of the right ones.
func TestOfflineCalibrationMeasuresTheChecks(t *testing.T) {
	dir := isolate(t)
	var out, errOut bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, nil, nil, &out, &errOut, nil), errOut.String())
	assert.Regexp(t, `calibrate: \d+ labelled answers \((\d+) to accept, \d+ to reject\)`, out.String())
	assert.Regexp(t, `deterministic checks, on all \d+ answers whose case checks its answer \(of every provenance: no trust figure\): decided \d+\.\d%`, out.String())
	assert.Regexp(t, `calibrate: deterministic checks, on the \d+ adversarial answers alone \(written beside the checks: a regression guard, not a trust figure\): decided \d+\.\d%; pass right 100\.0%, fail right 100\.0%; wrong answers passed 0\.0%, right answers failed 0\.0%`, out.String())
	assert.Regexp(t, `calibrate: deterministic checks, on the \d+ blind-3 answers alone \(blind: written by .+ against 809ab28, without reading the grading code\)`, out.String())
	assert.Contains(t, out.String(), "calibrate: judge: none: no provider is configured (or EVAL_REFERENCE is set). To evaluate a model, set")
	cal := readCalibration(t, dir)
	assert.Nil(t, cal.Judge)
	require.NotNil(t, cal.Checks)
	blind := 0
	for _, s := range cal.ChecksSets {
		switch s.Provenance {
		case eval.BesideTheChecks:
			assert.Zero(t, s.Confusion.NoYes+s.Confusion.YesNo, "%s: no verdict against a label written beside the checks", s.Set)
		case eval.Blind:
			blind++
			assert.LessOrEqual(t, *s.WrongPassed, 0.05, s.Set)
			assert.LessOrEqual(t, *s.RightFailed, 0.05, s.Set)
		}
	}
	assert.Positive(t, blind)
	var results []eval.LabelResult
	for _, r := range cal.Results {
		if r.Checks != "" {
			results = append(results, r)
		}
	}
	assert.Contains(t, []string{"yes", "no", "undecided"}, results[0].Checks, "each answer's checks: yes, no or undecided")
}

// Against the stub model, whose judge approves every answer, the judge's
// kappa is 0 and the output says not to trust it.
func TestStubJudgeCalibration(t *testing.T) {
	dir := isolate(t)
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	cases, err := evalcase.LoadPath(filepath.Join(root, "cases"))
	require.NoError(t, err)
	stub := llmstub.Start(llmstub.Replay(cases), llmstub.Options{})
	defer stub.Close()
	t.Setenv("OPENAI_BASE_URL", stub.BaseURL())
	t.Setenv("EVAL_MODEL", "stub")

	var out, errOut bytes.Buffer
	require.NoError(t, cmdtest.Run(Cmd, nil, nil, &out, &errOut, nil), errOut.String())
	assert.Regexp(t, `calibrate: judge stub \(prompt sha256:[0-9a-f]{12}\) on \d+ answers: decided 100\.0%; pass right 50\.\d%, fail right n/a; wrong answers passed 100\.0%, right answers failed 0\.0%; kappa on the decided 0\.00`, out.String())
	assert.Contains(t, out.String(), "kappa 0.00 is below 0.8: do not trust this judge's verdicts alone")
	cal := readCalibration(t, dir)
	require.NotNil(t, cal.Judge)
	assert.Equal(t, []string{"stub"}, cal.Judge.Models)
	require.NotNil(t, cal.Judge.Kappa)
	assert.Zero(t, *cal.Judge.Kappa)
	requests := stub.Requests()
	distinct := map[[3]string]bool{}
	for _, r := range cal.Results {
		distinct[[3]string{r.Question, r.Expected, r.Answer}] = true
	}
	assert.Equal(t, len(distinct), requests, "one judge request per distinct labelled answer (the same answer in two sets is asked once)")

	out.Reset()
	require.NoError(t, cmdtest.Run(Cmd, nil, nil, &out, &errOut, nil))
	assert.Equal(t, requests, stub.Requests(), "a second calibration reuses the cached verdicts")
	assert.Contains(t, out.String(), "reused from the cache")
}

func TestConfigurationErrors(t *testing.T) {
	isolate(t)
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("EVAL_MODEL", "m")
	t.Setenv("EVAL_JUDGE_MODEL", "a,b")
	var out, errOut bytes.Buffer
	err := cmdtest.Run(Cmd, nil, nil, &out, &errOut, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "EVAL_JUDGE_MODEL names 2 judge models: a majority needs an odd number")
	assert.Equal(t, 2, base.ExitStatus(err), "a setup error")
}
