package htmlreport

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/baseline"
)

// compare.html names a replay on either side.
func TestComparisonLabelsAReplay(t *testing.T) {
	c := &baseline.Comparison{Base: eval.Summary{RunID: "r1", Model: "m"}, Current: eval.Summary{RunID: "r2", Model: "m",
		Replay: &eval.ReplayInfo{Source: "r1"}}, Alpha: 0.05}
	var b strings.Builder
	require.NoError(t, WriteComparison(&b, c))
	assert.Contains(t, b.String(), "r2 (m, a replay of run r1) against the baseline r1 (m)")
}

// compare.html names every cause of a flip (internal/baseline's
// TestTwoCausesShown checks the other places that show them).
func TestComparisonShowsTwoCauses(t *testing.T) {
	causes := []baseline.CauseEvidence{
		{Cause: eval.CauseData, Why: "a result changed", DataChanges: []baseline.DataChange{{Tool: "get", Arguments: "{}", Diff: "[-a-]{+b+}"}}},
		{Cause: eval.CauseSurface, Why: "a tool changed"},
	}
	a := &baseline.Attribution{Cause: causes[0].Cause, Why: causes[0].Why, DataChanges: causes[0].DataChanges, Causes: causes}
	c := &baseline.Comparison{Base: eval.Summary{RunID: "base"}, Current: eval.Summary{RunID: "now"},
		Cases: []baseline.CaseDiff{{Name: "case a", Change: baseline.Regression, Attribution: a}}}
	var html strings.Builder
	require.NoError(t, WriteComparison(&html, c))
	assert.Contains(t, html.String(), `<div class="further">also surface: a tool changed</div>`)
	assert.Contains(t, html.String(), `<td class="cause">data, surface</td>`)
}
