package scoring

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
)

func TestOverall(t *testing.T) {
	all := map[string]float64{eval.MetricCorrectness: 1, eval.MetricQuality: 0.5, eval.MetricPerformance: 0.8,
		eval.MetricUnderstanding: 0.6, eval.MetricCoverage: 0.4, eval.MetricRecovery: 1}
	o := overallScore(all)
	assert.InDelta(t, 0.25*1+0.20*0.5+0.15*0.8+0.15*0.6+0.15*0.4+0.10*1, o.Score, 1e-4)
	assert.Equal(t, metricWeights(), o.Weights)
	assert.Empty(t, o.NotApplicable)

	delete(all, eval.MetricQuality)
	o = overallScore(all)
	assert.Equal(t, []string{eval.MetricQuality}, o.NotApplicable)
	assert.InDelta(t, (0.25*1+0.15*0.8+0.15*0.6+0.15*0.4+0.10*1)/0.8, o.Score, 1e-4)
	assert.InDelta(t, 0.25/0.8, o.Weights[eval.MetricCorrectness], 1e-4)
	total := 0.0
	for _, w := range o.Weights {
		total += w
	}
	assert.InDelta(t, 1, total, 1e-3, "renormalised weights sum to 1")

	assert.Equal(t, 1.0, overallScore(map[string]float64{eval.MetricRecovery: 1}).Score)
	assert.Equal(t, 0.0, overallScore(nil).Score)
	assert.Equal(t, 1.0, overallScore(map[string]float64{eval.MetricCorrectness: 3}).Score, "inputs are clamped")
}

func TestScoreCode(t *testing.T) {
	c := CodeCase{
		Question: "What is the average salary by department?",
		Columns:  staffColumns,
		Attempts: []eval.Attempt{
			{Code: "result = df.groupby('dept')['salary'].mean()", Failed: true, Output: "KeyError: 'dept'"},
			{Code: "result = df.groupby('department')['salary'].mean()", Seconds: 0.02},
		},
		ResultMatches: true,
	}
	m := ScoreCode(c)
	assert.Equal(t, eval.KindCode, m.Kind)
	assert.Equal(t, 1.0, m.Correctness.Score)
	assert.Equal(t, 1.0, m.PromptUnderstanding.Score, "judged on the final code")
	assert.Equal(t, 1.0, m.RequirementCoverage.Score)
	assert.True(t, m.ErrorRecovery.HasError)
	assert.Equal(t, ColumnError, m.ErrorRecovery.ErrorClass)
	assert.Less(t, m.ErrorRecovery.RecoveryScore, 1.0)
	require.NotNil(t, m.Quality)
	assert.Empty(t, m.Overall.NotApplicable)
	assert.InDelta(t, 0.25*m.Correctness.Score+0.2*m.Quality.Score+0.15*m.Performance.Score+
		0.15*m.PromptUnderstanding.Score+0.15*m.RequirementCoverage.Score+0.1*m.ErrorRecovery.RecoveryScore,
		m.Overall.Score, 1e-4)

	clean := ScoreCode(CodeCase{Question: c.Question, Columns: staffColumns, Attempts: c.Attempts[1:], ResultMatches: true})
	assert.Greater(t, clean.Overall.Score, m.Overall.Score, "a recovered error costs something")

	wrong := ScoreCode(CodeCase{Question: c.Question, Columns: staffColumns, Attempts: c.Attempts[1:]})
	assert.Equal(t, 0.5, wrong.Correctness.Score, "code that runs but answers wrongly is half correct")

	none := ScoreCode(CodeCase{Question: c.Question, Columns: staffColumns})
	assert.Equal(t, 0.0, none.Correctness.Score)
	assert.False(t, none.ErrorRecovery.HasError)
}

func TestScoreCodeMatchNeedsARun(t *testing.T) {
	m := ScoreCode(CodeCase{Question: "q", Attempts: []eval.Attempt{{Code: "x", Failed: true, Output: "boom"}},
		ResultMatches: true, MaxRecoveryAttempts: 1})
	assert.False(t, m.Correctness.Details.ResultMatches, "code that did not run matched nothing")
	assert.Equal(t, 1, m.ErrorRecovery.MaxRecoveryAttempts)
}

func TestScoreTool(t *testing.T) {
	m := ScoreTool(eval.Case{}, eval.Record{
		Question:  "Which genes cause seizures?",
		Response:  "SCN1A",
		ToolCalls: []eval.ToolCall{call("search_hpo_terms", map[string]any{"phenotype_query": "seizures"})},
		Status:    eval.Pass,
		Seconds:   10,
		Usage:     eval.Usage{TotalTokens: 1000},
	})
	assert.Equal(t, eval.KindTool, m.Kind)
	assert.Nil(t, m.Quality)
	assert.Equal(t, []string{eval.MetricQuality, eval.MetricUnderstanding, eval.MetricCoverage}, m.Overall.NotApplicable)
	assert.InDelta(t, 0.25/0.5, m.Overall.Weights[eval.MetricCorrectness], 1e-4)
	assert.Equal(t, 1.0, m.Overall.Score)
}

// The JSON field names are the guide's.
func TestMetricsJSON(t *testing.T) {
	m := ScoreCode(CodeCase{
		Question: "What is the average salary by department?",
		Columns:  staffColumns,
		Attempts: []eval.Attempt{
			{Code: "x", Failed: true, Output: "KeyError: 'age'"},
			{Code: "y", Failed: true, Output: "KeyError: 'age'"},
			{Code: "result = df.groupby('department')['salary'].mean()"},
		},
	})
	data, err := json.Marshal(m)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(data, &got))

	keys := func(v any) []string {
		var out []string
		for k := range v.(map[string]any) {
			out = append(out, k)
		}
		return out
	}
	pu := got["prompt_understanding"].(map[string]any)
	assert.Contains(t, keys(pu), "understanding_score")
	assert.Subset(t, keys(pu["details"]), []string{"column_extraction_score", "nl_parsing_score",
		"statistical_understanding_score", "extracted_columns", "mentioned_columns", "statistical_operations"})
	rc := got["requirement_coverage"].(map[string]any)
	assert.Contains(t, keys(rc), "coverage_score")
	assert.Subset(t, keys(rc["details"]), []string{"filter_conditions_coverage", "groupby_columns_coverage",
		"sorting_coverage", "join_conditions_coverage", "missing_requirements"})
	er := got["error_recovery"].(map[string]any)
	assert.Subset(t, keys(er), []string{"has_error", "error_message", "recovery_attempts_count", "recovery_success",
		"recovery_success_rate", "error_fix_quality", "recovery_score", "recovery_details"})
	details := er["recovery_details"].([]any)
	require.Len(t, details, 2)
	assert.Subset(t, keys(details[0]), []string{"attempt_number", "success", "error", "fix_quality"})
	assert.Nil(t, details[1].(map[string]any)["error"], "a successful attempt has error null")
	assert.Equal(t, "KeyError: 'age'", details[0].(map[string]any)["error"])
	assert.Subset(t, keys(got["overall"]), []string{"overall_score", "weights", "not_applicable"})
	for _, k := range []string{"kind", "correctness", "quality", "performance"} {
		assert.Contains(t, keys(got), k)
	}

	tool, err := json.Marshal(ScoreTool(eval.Case{}, eval.Record{Question: "q"}))
	require.NoError(t, err)
	assert.NotContains(t, string(tool), `"quality":`)
	assert.Contains(t, string(tool), `"not_applicable":["quality","understanding","coverage"]`)
}

func TestSummarize(t *testing.T) {
	recovered := ScoreCode(CodeCase{Question: "How many rows?", Attempts: []eval.Attempt{
		{Code: "x", Failed: true, Output: "KeyError: 'a'"}, {Code: "result = len(df)"}}, ResultMatches: true})
	unrecovered := ScoreCode(CodeCase{Question: "How many rows?", Attempts: []eval.Attempt{
		{Code: "x", Failed: true, Output: "KeyError: 'a'"}, {Code: "y", Failed: true, Output: "TypeError: b"}, {Code: "z", Failed: true, Output: "TypeError: c"}}})
	clean := ScoreCode(CodeCase{Question: "How many rows?", Attempts: []eval.Attempt{
		{Code: "result = len(df)"}}, ResultMatches: true})
	tool := ScoreTool(eval.Case{}, eval.Record{Question: "Does TP53 matter?", Response: "yes", Status: eval.Pass,
		ToolCalls: []eval.ToolCall{call("get_gene_by_symbol", map[string]any{"gene_symbol": "TP53"})}})
	entries := []eval.MetricsEntry{
		{Case: "a", Category: "Counts", Kind: eval.KindCode, Model: "m1", Metrics: recovered},
		{Case: "b", Category: "Counts", Kind: eval.KindCode, Model: "m1", Metrics: unrecovered},
		{Case: "c", Category: "Counts", Kind: eval.KindCode, Model: "m2", Metrics: clean},
		{Case: "d", Category: "Genes", Kind: eval.KindTool, Model: "m2", Metrics: tool},
	}
	s := Summarize(entries)

	assert.Equal(t, 4, s.Entries)
	assert.Equal(t, 2, s.ErrorsEncountered)
	assert.Equal(t, 1, s.SuccessfulRecoveries)
	assert.Equal(t, 3, s.TotalRecoveryAttempts)
	// Upstream divided error-free entries by failing ones: (4-2)/... here
	// the rate is successful recoveries / errors encountered.
	assert.Equal(t, 0.5, s.RecoverySuccessRate)
	assert.InDelta(t, (recovered.ErrorRecovery.RecoveryScore+unrecovered.ErrorRecovery.RecoveryScore+1+1)/4,
		s.AverageRecoveryScore, 1e-4)
	assert.InDelta(t, (recovered.PromptUnderstanding.Score+unrecovered.PromptUnderstanding.Score+
		clean.PromptUnderstanding.Score+tool.PromptUnderstanding.Score)/4, s.AverageUnderstandingScore, 1e-4)
	assert.InDelta(t, (recovered.RequirementCoverage.Score+unrecovered.RequirementCoverage.Score+
		clean.RequirementCoverage.Score)/3, s.AverageCoverageScore, 1e-4, "the tool case states no requirement")
	assert.InDelta(t, (recovered.Overall.Score+unrecovered.Overall.Score+clean.Overall.Score+tool.Overall.Score)/4,
		s.AverageOverallScore, 1e-4)

	assert.Equal(t, 3, s.ByCategory["Counts"].Entries)
	assert.Equal(t, 1, s.ByKind[eval.KindTool].Entries)
	assert.NotContains(t, s.ByKind[eval.KindTool].AverageScores, eval.MetricQuality, "quality applies to no tool case")
	assert.InDelta(t, tool.Overall.Score, s.ByCategory["Genes"].AverageOverallScore, 1e-4)
	assert.InDelta(t, (recovered.Overall.Score+unrecovered.Overall.Score)/2, s.ByModel["m1"].AverageOverallScore, 1e-4)

	empty := Summarize(nil)
	assert.Equal(t, 0.0, empty.RecoverySuccessRate)
	assert.Equal(t, 0, empty.Entries)
}

// recovery_success_rate stays within [0, 1] however many clean entries there are.
func TestSummarizeRateNeverAboveOne(t *testing.T) {
	clean := ScoreCode(CodeCase{Question: "q", Attempts: []eval.Attempt{{Code: "result = 1"}}})
	failing := ScoreCode(CodeCase{Question: "q", Attempts: []eval.Attempt{{Code: "x", Failed: true, Output: "boom"}}})
	var entries []eval.MetricsEntry
	for range 9 {
		entries = append(entries, eval.MetricsEntry{Kind: eval.KindCode, Metrics: clean})
	}
	entries = append(entries, eval.MetricsEntry{Kind: eval.KindCode, Metrics: failing})
	s := Summarize(entries)
	assert.Equal(t, 1, s.ErrorsEncountered)
	assert.Equal(t, 0.0, s.RecoverySuccessRate)
	assert.LessOrEqual(t, s.RecoverySuccessRate, 1.0)
}

func TestScoreCodeRunningCodeParses(t *testing.T) {
	m := ScoreCode(CodeCase{Question: "q", Attempts: []eval.Attempt{{Code: "result = 1"}}, ResultMatches: true})
	assert.True(t, m.Correctness.Details.Parses)
	assert.True(t, m.Quality.Details.SyntaxValid)
	assert.Equal(t, 1.0, m.Correctness.Score)
}
