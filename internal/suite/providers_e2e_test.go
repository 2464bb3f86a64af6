package suite_test

// The provider corpus: every recorded provider shape of testdata/providers
// replayed through the real suite, with the bundled sample server as MCP
// server and no judge, so that the deterministic checks decide.

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// fixtureCase is the case every fixture answers unless its case: says
// otherwise (testdata/providers/README.md).
func fixtureCase(t *testing.T, fx *llmstub.Fixture) string {
	t.Helper()
	c := map[string]any{
		"name":     fx.Name,
		"category": "Gene and Variant Utilities",
		"input":    "What is the Entrez Gene ID of the human gene NUTM2G?",
		"expected": "NUTM2G has the Entrez Gene ID 441457.",
		"checks":   map[string]any{"contains": []string{"441457"}},
		"tools":    map[string]any{"must_call": []string{"get_gene_by_symbol"}},
	}
	maps.Copy(c, fx.Case)
	out, err := yaml.Marshal([]map[string]any{{"case": c}})
	require.NoError(t, err)
	return string(out)
}

func TestProviderShapes(t *testing.T) {
	t.Parallel()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	fixtures, err := llmstub.LoadFixtures(filepath.Join(root, "testdata", "providers"))
	require.NoError(t, err)

	for _, fx := range fixtures {
		t.Run(fx.Name, func(t *testing.T) {
			t.Parallel()
			stub := llmstub.Start(fx.Respond, fx.Options())
			defer stub.Close()
			base, model := fx.BasePath, fx.Model
			if base == "" {
				base = "/v1"
			}
			if model == "" {
				model = "stub-model"
			}
			r := runSuite(t, t.TempDir(), fixtureCase(t, fx), env{
				"OPENAI_BASE_URL":     stub.URL + base,
				"OPENAI_API_KEY":      "sk-test-secret-key-123456",
				"EVAL_MODEL":          model,
				"EVAL_JUDGE_MODEL":    "none",
				"EVAL_MAX_RETRIES":    "2",
				"EVAL_RETRY_WAIT":     "1ms",
				"EVAL_RETRY_MAX_WAIT": "1ms",
			})
			rec, ok := r.records[fx.Name]
			require.True(t, ok, "no record for the case:\n%s", r.output)
			want := fx.Expect
			t.Logf("%s: %s", rec.Status, rec.Reason)
			why := "reason: " + rec.Reason + "\nstub refusals: " + strings.Join(fx.Refusals(), "; ")

			assert.Equal(t, eval.Status(want.Status), rec.Status, why)
			if want.ReasonContains != "" {
				assert.Contains(t, rec.Reason, want.ReasonContains, why)
			}
			if want.Status == string(eval.Cut) {
				assert.Empty(t, rec.Checks, "a cut reply is never graded")
			}
			if want.Status == string(eval.Pass) {
				assert.Empty(t, fx.Refusals(), "a passing case keeps every rule of its provider")
				assert.GreaterOrEqual(t, len(stub.Received()), len(fx.Steps), "every recorded response was served")
			}
			if want.ToolCalls != nil {
				var names []string
				for _, c := range rec.ToolCalls {
					names = append(names, c.Name)
				}
				require.Equal(t, want.ToolCalls, names)
				for i, c := range fx.Calls() {
					got := rec.ToolCalls[i]
					assert.JSONEq(t, c.Arguments, got.Arguments, "call %d runs with the arguments the provider gave", i)
					assert.False(t, got.IsError || got.NotRun, "call %d %s(%s) failed: %s", i, got.Name, got.Arguments, got.Result)
				}
			}
			for _, text := range want.ResponseExcludes {
				assert.NotContains(t, rec.Response, text)
			}
			if want.CachedTokens != nil {
				assert.Equal(t, *want.CachedTokens, rec.Usage.CachedTokens)
			}
			if want.CostUSD != nil {
				assert.InDelta(t, *want.CostUSD, rec.Usage.CostUSD, 1e-9)
			}
			if want.UsageEstimated != nil {
				assert.Equal(t, *want.UsageEstimated, rec.Usage.Estimated)
			}
			assert.NotContains(t, r.output, "sk-test-secret-key-123456")
		})
	}
}
