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
)

// driftedCase expects a value the sample server's data does not hold.
const driftedCase = `
- case:
    name: "Drifted expectation"
    category: "Gene and Variant Utilities"
    input: "What is the Entrez id of NUTM2G (drifted)?"
    expected: "999999"
    checks: {contains: ["999999"]}
    reference:
      - {tool: get_gene_by_symbol, args: {gene_symbol: NUTM2G}}
`

// The drift check: the reference run replays each case's reference
// trajectory on the bundled server and catches an expectation that the
// server's data no longer supports: a fact of the expected answer that
// the results do not hold.
func TestReferenceRunCatchesAWrongExpectation(t *testing.T) {
	t.Parallel()
	r := runSuite(t, t.TempDir(), geneCases+driftedCase, env{})
	require.Error(t, r.err)
	assert.Contains(t, r.output, "REFERENCE RUN, not a model evaluation")
	assert.Contains(t, r.output, "OPENROUTER_API_KEY", "it says how to evaluate a model")
	assert.Equal(t, eval.Pass, r.records["NUTM2G symbol"].Status)
	assert.True(t, r.records["NUTM2G symbol"].Reference)
	assert.Equal(t, eval.Pass, r.records["Recover from a wrong symbol"].Status)
	drift := r.records["Drifted expectation"]
	assert.Equal(t, eval.Fail, drift.Status)
	assert.Contains(t, drift.Reason, "the reference trajectory's results do not hold 1 fact of the expected answer (found nowhere, nor computed from them): 999999")
	require.Len(t, drift.Facts, 1)
	assert.Equal(t, eval.Fact{Fact: "999999", Status: eval.FactMissing}, drift.Facts[0])
	assert.Equal(t, "fail", r.status("TestGeneAndVariantUtilities/Drifted_expectation"))
}

// The token-limit path of the reference run, on the sample server's
// oversized BRCA1 ClinVar listing.
func TestReferenceRunTokenLimit(t *testing.T) {
	t.Parallel()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	r := runSuite(t, t.TempDir(), "", env{"EVAL_CASES": filepath.Join(root, "testdata", "cases", "limits.yaml")})
	require.Error(t, r.err)
	rec := r.records["Gene-wide ClinVar listing for BRCA1"]
	assert.Equal(t, eval.TokenLimit, rec.Status)
	assert.Regexp(t, `^token count exceeded: (more than )?\d{3},\d{3} > 100,000 \(result of tool get_clinvar_by_gene_symbol\)$`, rec.Reason)
}

// A reference run is a pass/fail report, never a cache entry.
func TestReferenceRunIsNotCached(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runSuite(t, dir, geneCases, env{})
	require.NoError(t, r.err, r.output)
	data, err := os.ReadFile(filepath.Join(dir, "cache.json"))
	if err == nil {
		assert.False(t, strings.Contains(string(data), "NUTM2G symbol"), "reference records are not stored")
	}
}
