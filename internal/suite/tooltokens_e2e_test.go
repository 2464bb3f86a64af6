package suite_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/runs"
	"github.com/mcpeval/mcpeval/internal/tokens"
)

// A run whose tool surface is the one the previous run of the same
// servers recorded takes that run's counts of the tool definitions
// instead of loading the encoding's tables to count them again; a
// recorded count in another encoding is counted anew.
func TestToolTokensOfAnUnchangedSurfaceComeFromThePreviousRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const cases = `
- case:
    name: "gene"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G?"
    expected: "441457"
    checks: {contains: ["441457"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
`
	latest := func() (string, eval.Summary) {
		t.Helper()
		r, ok := runs.LatestFinished(filepath.Join(dir, "out"))
		require.True(t, ok, "no finished run")
		return r.Dir, *r.Summary
	}
	counts := func(sum eval.Summary) (total int, byTool map[string]int, model int) {
		byTool = map[string]int{}
		for _, srv := range sum.Tools.Servers {
			for _, st := range srv.Stats {
				byTool[st.Name] = st.DefinitionTokens
			}
		}
		require.Len(t, sum.Models, 1)
		return sum.Tools.DefinitionTokens, byTool, sum.Models[0].ToolTokens
	}
	rewrite := func(runDir string, edit func(*eval.Summary)) {
		t.Helper()
		path := filepath.Join(runDir, eval.SummaryFile)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var sum eval.Summary
		require.NoError(t, json.Unmarshal(data, &sum))
		edit(&sum)
		data, err = json.Marshal(sum)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data, 0o644))
	}
	reference := func() {
		t.Helper()
		r := runSuite(t, dir, cases, env{}, "-reference")
		require.NoError(t, r.err, r.output)
	}

	reference()
	firstDir, first := latest()
	total, byTool, model := counts(first)
	require.Positive(t, total)
	require.Equal(t, total, model, "the model is offered every tool")
	require.Positive(t, byTool["get_gene_by_symbol"])

	reference()
	_, second := latest()
	require.Equal(t, first.Tools.Hash, second.Tools.Hash)
	gotTotal, gotByTool, gotModel := counts(second)
	assert.Equal(t, total, gotTotal)
	assert.Equal(t, byTool, gotByTool)
	assert.Equal(t, model, gotModel)

	// Counts recorded for this surface are what the next run reports: it
	// did not count them itself.
	secondDir, _ := latest()
	require.NotEqual(t, firstDir, secondDir)
	rewrite(secondDir, func(sum *eval.Summary) {
		for i := range sum.Tools.Servers {
			for j := range sum.Tools.Servers[i].Stats {
				sum.Tools.Servers[i].Stats[j].DefinitionTokens += 1000
			}
		}
	})
	reference()
	_, third := latest()
	gotTotal, gotByTool, gotModel = counts(third)
	assert.Equal(t, byTool["get_gene_by_symbol"]+1000, gotByTool["get_gene_by_symbol"])
	assert.Equal(t, total+1000*len(byTool), gotTotal)
	assert.Equal(t, gotTotal, gotModel)

	// Counts in another encoding, or counted another way (an earlier
	// version's), are not this run's: it counts.
	for name, edit := range map[string]func(*eval.Summary){
		"encoding": func(sum *eval.Summary) { sum.Tools.Encoding = "o200k_base" },
		"method":   func(sum *eval.Summary) { sum.Tools.DefinitionMethod = "" },
	} {
		runDir, _ := latest()
		rewrite(runDir, func(sum *eval.Summary) {
			for i := range sum.Tools.Servers {
				for j := range sum.Tools.Servers[i].Stats {
					sum.Tools.Servers[i].Stats[j].DefinitionTokens += 1000
				}
			}
			edit(sum)
		})
		reference()
		_, next := latest()
		gotTotal, gotByTool, gotModel = counts(next)
		assert.Equal(t, total, gotTotal, name)
		assert.Equal(t, byTool, gotByTool, name)
		assert.Equal(t, model, gotModel, name)
		assert.Equal(t, tokens.DefinitionMethod, next.Tools.DefinitionMethod, name)
	}
}
