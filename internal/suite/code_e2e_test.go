package suite_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/sampleserver"
)

// requirePandas skips a test when no python3 can import pandas, except
// under CI, where that is a failure.
func requirePandas(t *testing.T) {
	t.Helper()
	if _, err := sampleserver.PythonWithPandas(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err.Error())
	}
}

const (
	recoveredQuestion = "What is the average salary per department in the employees dataset?"
	hopelessQuestion  = "Which dept has the most employees in the employees dataset?"
	selfFixQuestion   = "How many employees are there in the employees dataset?"
)

var codeCases = fmt.Sprintf(`
- case:
    name: "Recovered on the second attempt"
    category: "Data Analysis"
    kind: code
    input: %q
    expected: "Engineering 135500, Finance 99222.22, ..."
    checks: {contains: ["Engineering"], numbers: [{value: 99222.22, tolerance: 0.01}]}
- case:
    name: "Never recovers"
    category: "Data Analysis"
    kind: code
    input: %q
    expected: "Engineering, 14"
    checks: {contains: ["Engineering"]}
- case:
    name: "Fixed within the agent loop"
    category: "Data Analysis"
    kind: code
    input: %q
    expected: "60"
    checks: {numbers: [{value: 60, tolerance: 0}]}
`, recoveredQuestion, hopelessQuestion, selfFixQuestion)

// Code the stub model writes.
const (
	deptCode      = "result = df.groupby('dept')['salary'].mean()"
	deptNameCode  = "result = df.groupby('department_name')['salary'].mean()"
	fixedCode     = "result = df.groupby('department')['salary'].mean().round(2)"
	hopelessCode  = "result = df['dept'].value_counts().head(1)"
	wrongLenCode  = "result = len(df['employee'])"
	rightLenCode  = "result = len(df)"
	recoveryIntro = "Your pandas code failed"
)

// codeModel is a stub model for the three code cases. In the agent loop it
// runs wrong-column code and gives up (or, for the self-fix question, fixes
// it itself); asked to recover, it answers by the failing code in the
// prompt: dept -> department_name -> the right column.
func codeModel(req llmstub.Request) llmstub.Reply {
	if req.ForcedTool() == llmstub.JudgeTool {
		return llmstub.Verdict("yes", "the result matches")
	}
	q := req.Question()
	if strings.HasPrefix(q, recoveryIntro) {
		switch {
		case strings.Contains(q, hopelessCode):
			return llmstub.Reply{Content: "```python\n" + hopelessCode + "\n```"}
		case strings.Contains(q, deptCode):
			return llmstub.Reply{Content: "```python\n" + deptNameCode + "\n```"}
		case strings.Contains(q, deptNameCode):
			return llmstub.Reply{Content: "Use the department column.\n```python\n" + fixedCode + "\n```"}
		}
		return llmstub.Reply{Content: "I cannot fix this."}
	}
	done := 0
	for _, m := range req.Messages {
		if m.Role == "tool" {
			done++
		}
	}
	runCode := func(code string) llmstub.Reply {
		args, _ := json.Marshal(map[string]string{"code": code, "dataset": "employees"})
		return llmstub.Reply{ToolCalls: []llmstub.Call{{Name: "run_pandas", Arguments: string(args)}}}
	}
	switch {
	case q == recoveredQuestion && done == 0:
		return runCode(deptCode)
	case q == hopelessQuestion && done == 0:
		return runCode(hopelessCode)
	case q == selfFixQuestion && done == 0:
		return runCode(wrongLenCode)
	case q == selfFixQuestion && done == 1:
		return runCode(rightLenCode)
	case q == selfFixQuestion:
		return llmstub.Reply{Content: "There are 60 employees."}
	}
	return llmstub.Reply{Content: "The code failed; I could not compute it."}
}

// recoveryScore is the guide's formula, computed here from the attempts'
// fix qualities: 0.5 × successful recoveries / attempts + 0.3 × mean fix
// quality + 0.2 × min(attempts/3, 1); the loop stops at the first success,
// so a recovered case has one successful recovery.
func recoveryScore(recovered bool, fixQualities ...float64) float64 {
	n := float64(len(fixQualities))
	rate, sum := 0.0, 0.0
	if recovered {
		rate = 1 / n
	}
	for _, q := range fixQualities {
		sum += q
	}
	return 0.5*rate + 0.3*sum/n + 0.2*math.Min(n/3, 1)
}

// Fix qualities of the guide: success, a different error class, the same class.
const (
	fixSuccess   = 1.0
	fixSameClass = 0.1
)

func metricsOfRecord(t *testing.T, rec eval.Record) eval.Metrics {
	t.Helper()
	require.NotNil(t, rec.Metrics, rec.Name)
	return *rec.Metrics
}

func TestCodeCasesRecoveryLoop(t *testing.T) {
	t.Parallel()
	requirePandas(t)
	stub := llmstub.Start(codeModel, llmstub.Options{})
	defer stub.Close()
	r := runSuite(t, t.TempDir(), codeCases, stubEnv(stub))
	require.Error(t, r.err, "the hopeless case fails")

	// The recovery prompts: a new request per attempt, each with the
	// latest error and the latest failed code.
	var prompts []string
	for _, req := range stub.Received() {
		if q := req.Question(); strings.HasPrefix(q, recoveryIntro) && strings.Contains(q, recoveredQuestion) {
			prompts = append(prompts, q)
			assert.Empty(t, req.Tools, "the recovery request asks for code only")
		}
	}
	require.Len(t, prompts, 2)
	assert.NotEqual(t, prompts[0], prompts[1])
	assert.Contains(t, prompts[0], "KeyError: 'dept'")
	assert.Contains(t, prompts[0], deptCode)
	assert.Contains(t, prompts[1], "KeyError: 'department_name'", "attempt 2 carries attempt 1's error")
	assert.Contains(t, prompts[1], deptNameCode, "and attempt 1's code")
	assert.NotContains(t, prompts[1], deptCode)
	assert.Contains(t, prompts[0], "department object", "the prompt shows the dataset's columns from list_datasets")

	rec := r.records["Recovered on the second attempt"]
	assert.Equal(t, eval.Pass, rec.Status, rec.Reason)
	assert.Equal(t, eval.KindCode, rec.Kind)
	assert.Contains(t, rec.Response, "99222.22", "the answer is the recovered code's result")
	assert.NotContains(t, rec.Response, "could not compute")
	require.Len(t, rec.ToolCalls, 3)
	assert.Equal(t, []bool{true, true, false}, []bool{rec.ToolCalls[0].IsError, rec.ToolCalls[1].IsError, rec.ToolCalls[2].IsError})
	assert.Equal(t, "recovery_1", rec.ToolCalls[1].ID)
	assert.Equal(t, "recovery_2", rec.ToolCalls[2].ID)
	assert.Contains(t, rec.ToolCalls[2].Arguments, "groupby('department')")
	n := len(rec.Conversation)
	require.GreaterOrEqual(t, n, 6)
	assert.Equal(t, prompts[0], rec.Conversation[n-6].Content, "the recovery requests are in the record's conversation")
	assert.Equal(t, prompts[1], rec.Conversation[n-3].Content)

	m := metricsOfRecord(t, rec)
	assert.Equal(t, eval.KindCode, m.Kind)
	assert.Equal(t, 1.0, m.Correctness.Score, "parses, runs and matches")
	er := m.ErrorRecovery
	assert.True(t, er.HasError)
	assert.Equal(t, "column_error", er.ErrorClass)
	assert.Contains(t, er.ErrorMessage, "KeyError: 'dept'", "scored from the first failure on")
	// The guide's example, end to end: an error, a failed fix, a good one.
	assert.Equal(t, 2, er.RecoveryAttemptsCount)
	assert.Equal(t, 1, er.SuccessfulRecoveries)
	assert.True(t, er.RecoverySuccess)
	assert.Equal(t, 0.5, er.RecoverySuccessRate, "the guide's 0.5: 1 successful recovery / 2 attempts")
	assert.Equal(t, 0.5483, er.RecoveryScore, "0.5 × 0.5 + 0.3 × 0.55 + 0.2 × 2/3")
	require.Len(t, er.RecoveryDetails, 2)
	assert.InDelta(t, fixSameClass, er.RecoveryDetails[0].FixQuality, 1e-9, "KeyError again: same class")
	assert.InDelta(t, fixSuccess, er.RecoveryDetails[1].FixQuality, 1e-9)
	assert.InDelta(t, (fixSameClass+fixSuccess)/2, er.ErrorFixQuality, 1e-4)
	assert.InDelta(t, recoveryScore(true, fixSameClass, fixSuccess), er.RecoveryScore, 1e-4)
	assert.Contains(t, m.PromptUnderstanding.Details.ExtractedColumns, "department", "the final code is scored")

	never := r.records["Never recovers"]
	assert.Equal(t, eval.Fail, never.Status)
	assert.Equal(t, "the final code failed after 2 recovery attempts: KeyError: 'dept'", never.Reason)
	assert.Len(t, never.ToolCalls, 3, "the loop's call and two recovery attempts")
	m = metricsOfRecord(t, never)
	assert.Equal(t, 0.25, m.Correctness.Score, "the code parses but never runs")
	assert.False(t, m.ErrorRecovery.RecoverySuccess)
	assert.Equal(t, 2, m.ErrorRecovery.RecoveryAttemptsCount)
	assert.InDelta(t, recoveryScore(false, fixSameClass, fixSameClass), m.ErrorRecovery.RecoveryScore, 1e-4)

	self := r.records["Fixed within the agent loop"]
	assert.Equal(t, eval.Pass, self.Status, self.Reason)
	assert.Equal(t, "60", self.Response)
	assert.Len(t, self.ToolCalls, 2, "no recovery loop after a success")
	m = metricsOfRecord(t, self)
	assert.True(t, m.ErrorRecovery.HasError, "an error fixed inside the loop still counts")
	assert.Equal(t, 1, m.ErrorRecovery.RecoveryAttemptsCount)
	assert.InDelta(t, recoveryScore(true, fixSuccess), m.ErrorRecovery.RecoveryScore, 1e-4)
	for _, req := range stub.Received() {
		q := req.Question()
		assert.False(t, strings.HasPrefix(q, recoveryIntro) && strings.Contains(q, selfFixQuestion), "no recovery request for it")
	}

	// The metrics files.
	var entries []struct{ Case, Kind string }
	readJSON(t, filepath.Join(r.out, eval.MetricsFile), &entries)
	require.Len(t, entries, 3)
	for _, e := range entries {
		assert.Equal(t, "code", e.Kind, e.Case)
	}
	var summary struct {
		Summary struct {
			ErrorsEncountered     int     `json:"errors_encountered"`
			TotalRecoveryAttempts int     `json:"total_recovery_attempts"`
			SuccessfulRecoveries  int     `json:"successful_recoveries"`
			RecoverySuccessRate   float64 `json:"recovery_success_rate"`
			RecoveredErrors       int     `json:"recovered_errors"`
			ErrorRecoveryRate     float64 `json:"error_recovery_rate"`
		} `json:"summary"`
	}
	readJSON(t, filepath.Join(r.out, eval.MetricsSummaryFile), &summary)
	assert.Equal(t, 3, summary.Summary.ErrorsEncountered)
	assert.Equal(t, 5, summary.Summary.TotalRecoveryAttempts, "2 + 2 + 1")
	assert.Equal(t, 2, summary.Summary.SuccessfulRecoveries)
	assert.Equal(t, 0.4, summary.Summary.RecoverySuccessRate, "2 successful recoveries / 5 attempts")
	assert.Equal(t, 2, summary.Summary.RecoveredErrors)
	assert.InDelta(t, 2.0/3, summary.Summary.ErrorRecoveryRate, 1e-4)
	assert.NotContains(t, r.output, "sk-test-secret-key-123456")
}

// The offline reference run passes every code case of cases/code.yaml, so
// the cases and the datasets agree.
func TestCodeCasesReferenceRun(t *testing.T) {
	t.Parallel()
	requirePandas(t)
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	r := runSuite(t, t.TempDir(), "", env{"EVAL_CASES": filepath.Join(root, "cases", "code.yaml")})
	require.NoError(t, r.err, r.output)
	require.GreaterOrEqual(t, len(r.records), 15)
	recovered := 0
	for name, rec := range r.records {
		assert.Equal(t, eval.Pass, rec.Status, "%s: %s", name, rec.Reason)
		m := metricsOfRecord(t, rec)
		assert.Equal(t, 1.0, m.Correctness.Score, name)
		if m.ErrorRecovery.HasError {
			recovered++
			assert.True(t, m.ErrorRecovery.RecoverySuccess, name)
			assert.InDelta(t, recoveryScore(true, fixSuccess), m.ErrorRecovery.RecoveryScore, 1e-4, name)
		}
	}
	assert.GreaterOrEqual(t, recovered, 3, "the wrong-column cases fail first")
}
