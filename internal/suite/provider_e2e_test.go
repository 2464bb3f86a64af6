package suite_test

import (
	"maps"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
	"github.com/mcpeval/mcpeval/internal/runs"
)

const providerCases = `
- case:
    name: "Gene lookup"
    category: "Gene and Variant Utilities"
    input: "q1"
    expected: "x"
- case:
    name: "alias Gene lookup"
    category: "Gene and Variant Utilities"
    input: "q2"
    expected: "x"
- case:
    name: "Phenotype"
    category: "Gene-Phenotype Databases"
    input: "q3"
    expected: "x"
- case:
    name: "Expression"
    category: "Expression Databases"
    input: "q4"
    expected: "x"
- case:
    name: "Unlisted"
    category: "Brand New Category"
    input: "q5"
    expected: "x"
`

// simulatedUserCase is a case whose user a model plays.
const simulatedUserCase = `
- case:
    name: "Asked back"
    category: "Brand New Category"
    input: "q6"
    expected: "x"
    user: {instructions: "A user who wants x."}
`

// A provider that is down, or does not serve the model (the evaluated
// one, a judge, the user model when a case has a simulated user), stops
// the run before any case, at once, with one message naming the setting
// to fix.
func TestProviderCheckedBeforeTheFirstCase(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	served := llmstub.Start(llmstub.Replay(nil), llmstub.Options{Models: []string{"stub-model", "stub-judge"}})
	defer served.Close()

	tests := []struct {
		name    string
		env     env
		want    string // the start of the reason the run stopped
		setting string // what the message says to check
		cases   string // besides providerCases
	}{
		{name: "connection refused", env: env{"OPENAI_BASE_URL": "http://" + addr + "/v1"},
			want:    "the provider at http://" + addr + "/v1 cannot be reached: dial tcp " + addr + ": connect: connection refused",
			setting: "Check OPENAI_BASE_URL (or -base-url): no case was run"},
		{name: "name not resolved", env: env{"OPENAI_BASE_URL": "http://no-such-provider.invalid/v1"},
			want:    "the provider at http://no-such-provider.invalid/v1 cannot be reached: dial tcp: lookup no-such-provider.invalid",
			setting: "Check OPENAI_BASE_URL (or -base-url): no case was run"},
		{name: "unknown model", env: env{"EVAL_MODEL": "no-such-model", "EVAL_JUDGE_MODEL": "stub-judge"},
			want:    `the provider does not serve the model "no-such-model" (provider error (HTTP 404): `,
			setting: "Check EVAL_MODEL (or -model): no case was run"},
		{name: "unknown judge model", env: env{"EVAL_JUDGE_MODEL": "no-such-judge"},
			want:    `the provider does not serve the model "no-such-judge" (provider error (HTTP 404): `,
			setting: "Check EVAL_JUDGE_MODEL (or -judge-model): no case was run"},
		{name: "unknown user model", env: env{"EVAL_JUDGE_MODEL": "stub-judge", "EVAL_USER_MODEL": "no-such-user"}, cases: simulatedUserCase,
			want:    `the provider does not serve the model "no-such-user" (provider error (HTTP 404): `,
			setting: "Check EVAL_USER_MODEL (or -user-model), the model that plays the simulated users: no case was run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := stubEnv(served)
			maps.Copy(e, tt.env)
			// Retries as slow as by default (a minute per case against a
			// provider that is down): only a check before the cases keeps
			// the run short.
			start := time.Now()
			r := runSuite(t, t.TempDir(), providerCases+tt.cases, e)
			require.Error(t, r.err)
			assert.Equal(t, 1, strings.Count(r.output, "mcpeval: error: run stopped: "+tt.want), r.output)
			assert.Equal(t, 1, strings.Count(r.output, tt.setting))
			assert.NotContains(t, r.output, "sk-test-secret-key-123456")
			assert.Empty(t, r.records, "no case was run")
			assert.Empty(t, r.out, "a run refused before any case is not kept")
			assert.Contains(t, r.output, "mcpeval: no case ran, so no run was kept (latest is unchanged)")
			assert.NotRegexp(t, `(?m)^PASS$`, r.output, "go test did not run the cases, so it says no PASS before the error")
			assert.Less(t, time.Since(start), 60*time.Second, "the run stops at once (the go build included)")
		})
	}
}

// A run refused before any case (a misspelt model) keeps no run: latest
// still names the run before it, and the history has no empty row.
func TestRunRefusedBeforeAnyCaseIsNotKept(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		if req.ForcedTool() == llmstub.JudgeTool {
			return llmstub.Verdict("yes", "fine")
		}
		return llmstub.Reply{Content: "x"}
	}, llmstub.Options{Models: []string{"stub-model"}})
	defer stub.Close()
	dir := t.TempDir()
	first := runSuite(t, dir, providerCases, stubEnv(stub))
	require.NoError(t, first.err, first.output)

	e := stubEnv(stub)
	e["EVAL_MODEL"] = "stub-modle"
	e["EVAL_JUDGE_MODEL"] = "stub-model"
	refused := runSuite(t, dir, providerCases, e)
	require.Error(t, refused.err)
	assert.Contains(t, refused.output, `run stopped: the provider does not serve the model "stub-modle" (did you mean stub-model?)`)

	list, err := runs.List(filepath.Join(dir, "out"))
	require.NoError(t, err)
	require.Len(t, list, 1, "only the first run is kept")
	latest, ok := runs.LatestFinished(filepath.Join(dir, "out"))
	require.True(t, ok)
	assert.Equal(t, list[0].ID, latest.ID, "latest still names the first run")
	assert.Equal(t, 5, latest.Summary.Passed)
	var sum eval.Summary
	readJSON(t, filepath.Join(first.out, eval.SummaryFile), &sum)
	assert.Equal(t, 5, sum.Passed)
}

// A provider's usage number that no float holds ("cost": 1e999) costs
// neither the answer nor a retry: it is left out, with a warning.
func TestUsageNumberBeyondAnyFloatIsLeftOut(t *testing.T) {
	t.Parallel()
	stub := llmstub.Start(func(req llmstub.Request) llmstub.Reply {
		return llmstub.Reply{Raw: &llmstub.Response{Headers: map[string]string{"Content-Type": "application/json"},
			Body: `{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"anything"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"cost":1e999}}`}}
	}, llmstub.Options{})
	defer stub.Close()
	e := stubEnv(stub)
	e["EVAL_SERVER"], e["EVAL_JUDGE_MODEL"] = faultServer(t), "none"
	r := runSuite(t, t.TempDir(), `
- case:
    name: "costly"
    category: "Faults"
    input: "costly"
    expected: "anything"
    checks: {contains: ["anything"]}
`, e)
	require.NoError(t, r.err, r.output)
	rec := r.records["costly"]
	assert.Equal(t, eval.Pass, rec.Status, rec.Reason)
	assert.Zero(t, rec.Usage.Retries, "the answer was not thrown away")
	assert.Equal(t, 12, rec.Usage.TotalTokens)
	assert.Contains(t, r.output, `mcpeval: warning: case "costly": the provider reported usage numbers that are not finite, non-negative numbers, left out: cost 1e999`)
}
