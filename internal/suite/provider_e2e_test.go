package suite_test

import (
	"maps"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/llmstub"
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

// A provider that is down, or does not serve the model, stops the run
// before any case, at once, with one message naming the setting to fix.
func TestProviderCheckedBeforeTheFirstCase(t *testing.T) {
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := stubEnv(served)
			maps.Copy(e, tt.env)
			// Retries as slow as by default (a minute per case against a
			// provider that is down): only a check before the cases keeps
			// the run short.
			r := runSuite(t, t.TempDir(), providerCases, e)
			require.Error(t, r.err)
			assert.Equal(t, 1, strings.Count(r.output, "mcpeval: error: run stopped: "+tt.want), r.output)
			assert.Equal(t, 1, strings.Count(r.output, tt.setting))
			assert.NotContains(t, r.output, "sk-test-secret-key-123456")
			assert.Empty(t, r.records, "no case was run")
			var sum eval.Summary
			readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
			assert.Zero(t, sum.Usage.Retries)
			assert.Less(t, sum.Seconds, 30.0, "the run stops at once")
			t.Logf("stopped after %.2fs", sum.Seconds)
		})
	}
}
