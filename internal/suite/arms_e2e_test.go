package suite_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
	"github.com/mcpeval/mcpeval/internal/files"
	"github.com/mcpeval/mcpeval/internal/llmstub"
)

// armsFile writes an arms file into dir.
func armsFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

// bundledCases loads some of the bundled case files.
func bundledCases(t *testing.T, names ...string) (path string, cases []eval.Case) {
	t.Helper()
	root, err := files.ModuleRoot()
	require.NoError(t, err)
	dir := t.TempDir()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(root, "cases", n))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), data, 0o644))
		loaded, err := evalcase.LoadPath(filepath.Join(dir, n))
		require.NoError(t, err)
		cases = append(cases, loaded...)
	}
	return dir, cases
}

const misleading = `
arms:
  - name: no-server
    servers: []
  - name: server
  - name: misleading
    override:
      get_gene_by_symbol: {description: "Deprecated: do not use. Looks up a gene by its symbol."}
      marrvel-sample/convert_hgvs_to_genomic: {description: "Deprecated: do not use. Converts an HGVS variant."}
`

// Arms side by side against a stub that answers with what it was offered:
// the bundled server lifts the pass rate over no server at all, two
// misleading descriptions cost the cases that need those tools, each with
// its paired test; changing an override re-runs the arm it changes and no
// other.
func TestArmsSideBySide(t *testing.T) {
	t.Parallel()
	casesDir, cases := bundledCases(t, "variants.yaml", "utilities.yaml")
	stub := llmstub.Start(llmstub.ReplayOffered(cases), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	e := stubEnv(stub)
	e["EVAL_CASES"], e["EVAL_JUDGE_MODEL"] = casesDir, "none"
	e["EVAL_ARMS"] = armsFile(t, dir, "arms.yaml", misleading)

	r := runSuite(t, dir, "", e)
	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	require.Len(t, sum.Models, 3, r.output)
	assert.Equal(t, sum.Models, sum.Arms, "the arms under their own word, and under models until the next release")
	byArm := map[string]eval.ModelResult{}
	for _, m := range sum.Models {
		require.NotNil(t, m.Arm, m.Model)
		byArm[m.Model] = m
	}
	n := len(cases)
	assert.Equal(t, 0, byArm["no-server"].Passes, "without tools the stub cannot answer")
	assert.Equal(t, n, byArm["server"].Passes, "with the server every reference trajectory answers")
	assert.Zero(t, byArm["no-server"].Tools)
	assert.Positive(t, byArm["server"].ToolTokens)
	uses := 0
	for _, c := range cases {
		for _, ref := range c.Reference {
			if ref.Tool == "get_gene_by_symbol" || ref.Tool == "convert_hgvs_to_genomic" {
				uses++
				break
			}
		}
	}
	require.Positive(t, uses)
	assert.Equal(t, n-uses, byArm["misleading"].Passes, "the cases that need a misleading tool fail")

	effects := map[string]eval.ArmEffect{}
	for _, ef := range sum.ArmEffects {
		effects[ef.To] = ef
	}
	lift := effects["server"]
	assert.Equal(t, "servers", lift.Kind)
	assert.InDelta(t, 1.0, lift.Effect, 1e-9)
	assert.Less(t, lift.AdjustedP, 0.05)
	assert.Positive(t, lift.Low)
	var drop eval.ModelPair
	for _, p := range sum.ModelPairs {
		if p.A == "server" && p.B == "misleading" {
			drop = p
		}
	}
	assert.InDelta(t, -float64(uses)/float64(n), drop.Uplift, 1e-9, "the misleading descriptions' drop")
	assert.Less(t, drop.AdjustedP, 0.05)
	assert.Contains(t, r.output, "arm server over no-server (no server): +100.0 points of pass rate")

	// A changed override re-runs its own arm; the other arms' passes come
	// from the cache.
	e["EVAL_ARMS"] = armsFile(t, dir, "arms.yaml", strings.Replace(misleading, "Looks up a gene by its symbol.", "Finds a gene.", 1))
	r = runSuite(t, dir, "", e)
	cachedBy, ranBy := map[string]int{}, map[string]int{}
	for _, rec := range r.allRecords {
		if rec.Cached {
			cachedBy[rec.Arm]++
		} else {
			ranBy[rec.Arm]++
		}
	}
	assert.Equal(t, n, cachedBy["server"], "the server arm's passes are cached")
	assert.Zero(t, ranBy["server"])
	assert.Equal(t, n, ranBy["misleading"], "the changed arm runs again")
	assert.Zero(t, cachedBy["misleading"])
}

// Leave-one-out arms rank the tools by what leaving each out costs.
func TestLeaveOneOutRanksTheTools(t *testing.T) {
	t.Parallel()
	casesDir, cases := bundledCases(t, "variants.yaml")
	stub := llmstub.Start(llmstub.ReplayOffered(cases), llmstub.Options{})
	defer stub.Close()
	dir := t.TempDir()
	e := stubEnv(stub)
	e["EVAL_CASES"], e["EVAL_JUDGE_MODEL"] = casesDir, "none"
	e["EVAL_ARMS"] = armsFile(t, dir, "arms.yaml", `
arms:
  - name: server
    allow: {marrvel-sample: [convert_hgvs_to_genomic, get_variant_dbnsfp, get_gene_by_symbol, get_clinvar_by_variant, get_gtex_expression]}
    leave_one_out: tools
`)
	r := runSuite(t, dir, "", e)
	var sum eval.Summary
	readJSON(t, filepath.Join(r.out, eval.SummaryFile), &sum)
	require.Len(t, sum.Models, 6, r.output)
	var hidden []string
	used := map[string]int{}
	for _, c := range cases {
		seen := map[string]bool{}
		for _, ref := range c.AllReference() { // a conversation's turns too
			if !seen[ref.Tool] {
				used[ref.Tool]++
				seen[ref.Tool] = true
			}
		}
	}
	for i, ef := range sum.ArmEffects {
		require.Equal(t, "leave_one_out", ef.Kind)
		hidden = append(hidden, ef.Hidden)
		assert.InDelta(t, -float64(used[ef.Hidden])/float64(len(cases)), ef.Effect, 1e-9, ef.Hidden)
		if i > 0 {
			assert.LessOrEqual(t, sum.ArmEffects[i-1].Effect, ef.Effect, "the costliest absence first")
		}
	}
	assert.ElementsMatch(t, []string{"convert_hgvs_to_genomic", "get_variant_dbnsfp", "get_gene_by_symbol", "get_clinvar_by_variant", "get_gtex_expression"}, hidden)
	assert.Contains(t, r.output, "leaving convert_hgvs_to_genomic out of server")
}
