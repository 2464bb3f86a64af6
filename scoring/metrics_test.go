package scoring

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
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
	final := "result = df.groupby('department')['salary'].mean()"
	c := CodeCase{
		Question: "What is the average salary by department?",
		Columns:  staffColumns,
		Attempts: []eval.Attempt{
			{Code: "result = df.groupby('dept')['salary'].mean()", Failed: true, Output: "KeyError: 'dept'"},
			ran(final, readCode(t, final)[0], 0.02),
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

	unread := ScoreCode(CodeCase{Question: c.Question, Columns: staffColumns,
		Attempts: []eval.Attempt{{Code: final, Seconds: 0.02}}, ResultMatches: true})
	assert.Equal(t, []string{eval.MetricUnderstanding, eval.MetricCoverage}, unread.Overall.NotApplicable,
		"without the server's reading of the code, understanding and coverage are not applicable")

	broken := ScoreCode(CodeCase{Question: c.Question, Columns: staffColumns, Attempts: []eval.Attempt{
		{Code: "result = df[", Failed: true, Output: "SyntaxError: '[' was never closed (line 1)",
			Execution: &eval.CodeExecution{Facts: readCode(t, "result = df[")[0]}}}})
	assert.False(t, broken.Correctness.Details.Parses)
	assert.Less(t, broken.PromptUnderstanding.Score, 1.0, "code that does not parse understands nothing asked")
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

// A conversation is scored whole: the tools and facts of every turn, each
// fact in the reply of any turn.
func TestScoreToolOverTurns(t *testing.T) {
	c := eval.Case{
		Input: "What is the CADD phred score of NM_000546.6:c.181T>G?", Checks: eval.Checks{Contains: eval.Terms{{Any: []string{"pathogenic"}}}},
		Turns: []eval.Turn{
			{User: "Sorry, it is NM_007294.4:c.181T>G.", ReplyExpect: eval.ReplyExpect{Expected: "31.835", Checks: eval.Checks{Contains: eval.Terms{{Any: []string{"BRCA1"}}}},
				Tools: eval.ToolExpect{MustCall: []string{"get_variant_dbnsfp"}}}},
			{User: "How does ClinVar classify it?", ReplyExpect: eval.ReplyExpect{Tools: eval.ToolExpect{MustCall: []string{"get_variant_clinvar", "get_variant_dbnsfp"}}}},
		},
	}
	r := eval.Record{
		Question: c.Input, Response: "ClinVar classifies it as Pathogenic.", Status: eval.Pass,
		ToolCalls: []eval.ToolCall{call("get_variant_dbnsfp", map[string]any{"chr": "17"}), call("get_variant_clinvar", map[string]any{"chr": "17"})},
		Turns: []eval.TurnResult{
			{Turn: 1, Reply: "I could not find that variant."},
			{Turn: 2, Reply: "On BRCA1 its CADD phred score is 31.835."},
			{Turn: 3, Reply: "ClinVar classifies it as Pathogenic."},
		},
	}
	m := ScoreTool(c, r)
	d := m.RequirementCoverage.ToolDetails
	require.NotNil(t, d)
	assert.Empty(t, d.MissingFacts, "BRCA1 is stated at turn 2, Pathogenic at turn 3")
	assert.Empty(t, d.MissingTools)
	assert.Equal(t, 1.0, m.RequirementCoverage.Score)

	r.ToolCalls = r.ToolCalls[:1]
	d = ScoreTool(c, r).RequirementCoverage.ToolDetails
	assert.Equal(t, []string{"get_variant_clinvar"}, d.MissingTools, "the last turn's must_call counts, once")
}

// The JSON field names are the guide's.
func TestMetricsJSON(t *testing.T) {
	m := ScoreCode(CodeCase{
		Question: "What is the average salary by department?",
		Columns:  staffColumns,
		Attempts: []eval.Attempt{
			{Code: "x", Failed: true, Output: "KeyError: 'age'"},
			{Code: "y", Failed: true, Output: "KeyError: 'age'"},
			ran("result = df.groupby('department')['salary'].mean()", &eval.CodeFacts{Parsed: true}, 0.001),
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

// A tool case's metrics write their details under the guide's "details",
// and read back into the tool details, also from "tool_details", where
// earlier versions wrote them.
func TestToolMetricsDetailsRoundTrip(t *testing.T) {
	m := ScoreTool(eval.Case{Checks: eval.Checks{Contains: eval.Terms{{Any: []string{"99"}}}}}, eval.Record{
		Question: "How many ClinVar variants does TP53 have?", Response: "TP53 has 99.", Status: eval.Pass, Seconds: 2,
		ToolCalls: []eval.ToolCall{call("get_clinvar_by_gene_symbol", map[string]any{"gene_symbol": "TP53"})}})
	data, err := json.Marshal(m)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "tool_details")
	var got map[string]any
	require.NoError(t, json.Unmarshal(data, &got))
	for _, metric := range []string{"correctness", "performance", "prompt_understanding", "requirement_coverage"} {
		assert.Contains(t, got[metric], "details", metric)
	}
	assert.Equal(t, true, got["correctness"].(map[string]any)["details"].(map[string]any)["passed"])

	var back eval.Metrics
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, m, back)
	indented, err := json.MarshalIndent(m, "    ", "  ") // as the cache file holds them
	require.NoError(t, err)
	back = eval.Metrics{}
	require.NoError(t, json.Unmarshal(indented, &back))
	assert.Equal(t, m, back)

	legacy := strings.ReplaceAll(string(data), `"details"`, `"tool_details"`)
	back = eval.Metrics{}
	require.NoError(t, json.Unmarshal([]byte(legacy), &back))
	assert.Equal(t, m, back)

	entry := eval.MetricsEntry{Case: "c", Category: "k", Kind: eval.KindTool, Model: "m", Metrics: m}
	data, err = json.Marshal(entry)
	require.NoError(t, err)
	var entryBack eval.MetricsEntry
	require.NoError(t, json.Unmarshal(data, &entryBack))
	assert.Equal(t, entry, entryBack, "an entry keeps its case beside the metrics it embeds")

	entry.Kind = "" // the entry's kind hides the metrics' in JSON: their details tell
	data, err = json.Marshal(entry)
	require.NoError(t, err)
	entryBack = eval.MetricsEntry{}
	require.NoError(t, json.Unmarshal(data, &entryBack))
	assert.Equal(t, m.Correctness.ToolDetails, entryBack.Correctness.ToolDetails)
	assert.Nil(t, entryBack.Correctness.Details)
	assert.Equal(t, m.RequirementCoverage.ToolDetails, entryBack.RequirementCoverage.ToolDetails)

	code := ScoreCode(CodeCase{Question: "How many rows?", Attempts: []eval.Attempt{
		ran("result = len(df)", &eval.CodeFacts{Parsed: true, Operations: []string{"len"}}, 0.001)}, ResultMatches: true})
	data, err = json.Marshal(code)
	require.NoError(t, err)
	back = eval.Metrics{}
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, code, back)
}

func TestSummarize(t *testing.T) {
	counted := ran("result = len(df)", &eval.CodeFacts{Parsed: true, Operations: []string{"len"}}, 0.001)
	recovered := ScoreCode(CodeCase{Question: "How many rows?", Attempts: []eval.Attempt{
		{Code: "x", Failed: true, Output: "KeyError: 'a'"}, counted}, ResultMatches: true})
	unrecovered := ScoreCode(CodeCase{Question: "How many rows?", Attempts: []eval.Attempt{
		{Code: "x", Failed: true, Output: "KeyError: 'a'"}, {Code: "y", Failed: true, Output: "TypeError: b"}, {Code: "z", Failed: true, Output: "TypeError: c"}}})
	clean := ScoreCode(CodeCase{Question: "How many rows?", Attempts: []eval.Attempt{counted}, ResultMatches: true})
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
	// the rate is the guide's successful recoveries / attempts, and the
	// share of errors recovered is a rate of its own.
	assert.Equal(t, 0.3333, value(t, s.RecoverySuccessRate), "1 successful recovery in 3 attempts")
	assert.Equal(t, 1, s.RecoveredErrors)
	assert.Equal(t, 0.5, value(t, s.ErrorRecoveryRate), "1 of 2 errors recovered")
	assert.InDelta(t, (recovered.ErrorRecovery.RecoveryScore+unrecovered.ErrorRecovery.RecoveryScore+1+1)/4,
		value(t, s.AverageRecoveryScore), 1e-4)
	assert.Equal(t, 4, s.RecoveryEntries)
	assert.InDelta(t, (recovered.PromptUnderstanding.Score+clean.PromptUnderstanding.Score+tool.PromptUnderstanding.Score)/3,
		value(t, s.AverageUnderstandingScore), 1e-4, "the unrecovered case's code was never read")
	assert.Equal(t, 3, s.UnderstandingEntries)
	assert.Equal(t, 3, s.AverageEntries[eval.MetricUnderstanding])
	assert.InDelta(t, (recovered.RequirementCoverage.Score+clean.RequirementCoverage.Score)/2, value(t, s.AverageCoverageScore), 1e-4,
		"the tool case states no requirement")
	assert.Equal(t, 2, s.CoverageEntries)
	assert.InDelta(t, (recovered.Overall.Score+unrecovered.Overall.Score+clean.Overall.Score+tool.Overall.Score)/4,
		value(t, s.AverageOverallScore), 1e-4)

	assert.Equal(t, 3, s.ByCategory["Counts"].Entries)
	assert.Equal(t, 2, s.ByCategory["Counts"].AverageEntries[eval.MetricCoverage])
	assert.Equal(t, 1, s.ByKind[eval.KindTool].Entries)
	assert.NotContains(t, s.ByKind[eval.KindTool].AverageScores, eval.MetricQuality, "quality applies to no tool case")
	assert.InDelta(t, tool.Overall.Score, value(t, s.ByCategory["Genes"].AverageOverallScore), 1e-4)
	assert.InDelta(t, (recovered.Overall.Score+unrecovered.Overall.Score)/2, value(t, s.ByModel["m1"].AverageOverallScore), 1e-4)

	empty := Summarize(nil)
	assert.Nil(t, empty.RecoverySuccessRate, "no attempts: no rate")
	assert.Nil(t, empty.AverageOverallScore)
	assert.Nil(t, empty.AverageCoverageScore)
	assert.Equal(t, 0, empty.Entries)
}

// Successful recoveries never exceed attempts: a tool case that worked
// around an error without a retry made no attempt and counts no success
// (upstream's port counted 12 successful recoveries in 11 attempts).
func TestSummarizeSuccessesNeverAboveAttempts(t *testing.T) {
	failed := eval.ToolCall{Name: "get_gene_by_symbol", IsError: true, Result: "500"}
	workedAround := ScoreTool(eval.Case{}, eval.Record{Question: "q", Status: eval.Pass,
		ToolCalls: []eval.ToolCall{failed, {Name: "search_genes"}}})
	retried := ScoreTool(eval.Case{}, eval.Record{Question: "q", Status: eval.Pass,
		ToolCalls: []eval.ToolCall{failed, failed, {Name: "get_gene_by_symbol"}}})
	code := ScoreCode(CodeCase{Question: "q", Attempts: []eval.Attempt{fail("KeyError: 'a'"), ok}})
	var entries []eval.MetricsEntry
	for _, m := range []eval.Metrics{workedAround, workedAround, retried, code} {
		entries = append(entries, eval.MetricsEntry{Metrics: m})
	}
	s := Summarize(entries)
	assert.Equal(t, 4, s.ErrorsEncountered)
	assert.Equal(t, 3, s.TotalRecoveryAttempts, "two retries and one code fix")
	assert.Equal(t, 2, s.SuccessfulRecoveries)
	assert.LessOrEqual(t, s.SuccessfulRecoveries, s.TotalRecoveryAttempts)
	assert.Equal(t, 0.6667, value(t, s.RecoverySuccessRate))
	assert.Equal(t, 2, s.RecoveredErrors)
	assert.Equal(t, 0.5, value(t, s.ErrorRecoveryRate))
	assert.False(t, workedAround.ErrorRecovery.RecoverySuccess)
	assert.Equal(t, 0, workedAround.ErrorRecovery.RecoveryAttemptsCount)
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
	assert.Nil(t, s.RecoverySuccessRate, "no recovery attempts: no rate")
	assert.Equal(t, 0.0, value(t, s.ErrorRecoveryRate))
}

func TestScoreCodeRunningCodeParses(t *testing.T) {
	m := ScoreCode(CodeCase{Question: "q", Attempts: []eval.Attempt{{Code: "result = 1"}}, ResultMatches: true})
	assert.True(t, m.Correctness.Details.Parses)
	assert.True(t, m.Quality.Details.SyntaxValid)
	assert.Equal(t, 1.0, m.Correctness.Score)
}

// value is a summary value that must be there.
func value(t *testing.T, v *float64) float64 {
	t.Helper()
	require.NotNil(t, v)
	return *v
}

// metrics.json follows the metrics guide: each entry carries the guide's
// blocks at the top level, with its field names; a metric that does not
// apply is null, never 0.
func TestMetricsEntryInTheGuidesShape(t *testing.T) {
	code := ScoreCode(CodeCase{Question: "How many rows?", Attempts: []eval.Attempt{
		ran("result = len(df)", &eval.CodeFacts{Parsed: true, Operations: []string{"len"}}, 0.001)}, ResultMatches: true})
	tool := ScoreTool(eval.Case{}, eval.Record{Question: "Is it raining?", Response: "no", Status: eval.Pass})
	b, err := json.Marshal([]eval.MetricsEntry{
		{Case: "rows", Category: "Counts", Kind: eval.KindCode, Model: "m", Metrics: code},
		{Case: "rain", Category: "Weather", Kind: eval.KindTool, Model: "m", Metrics: tool},
	})
	require.NoError(t, err)
	var entries []map[string]any
	require.NoError(t, json.Unmarshal(b, &entries))

	e := entries[0]
	for _, block := range []string{"correctness", "quality", "performance", "prompt_understanding", "requirement_coverage", "error_recovery", "overall"} {
		assert.Contains(t, e, block)
	}
	assert.NotContains(t, e, "metrics", "the blocks are not nested")
	assert.Equal(t, "code", e["kind"])
	pu := e["prompt_understanding"].(map[string]any)
	assert.InDelta(t, code.PromptUnderstanding.Score, pu["understanding_score"], 1e-12)
	for _, field := range []string{"column_extraction_score", "nl_parsing_score", "statistical_understanding_score", "extracted_columns", "mentioned_columns", "statistical_operations"} {
		assert.Contains(t, pu["details"], field)
	}
	rc := e["requirement_coverage"].(map[string]any)
	assert.Contains(t, rc, "coverage_score")
	for _, field := range []string{"filter_conditions_coverage", "groupby_columns_coverage", "sorting_coverage", "join_conditions_coverage", "missing_requirements"} {
		assert.Contains(t, rc["details"], field)
	}
	er := e["error_recovery"].(map[string]any)
	for _, field := range []string{"has_error", "error_message", "recovery_attempts_count", "recovery_success", "recovery_success_rate", "error_fix_quality", "recovery_score", "recovery_details"} {
		assert.Contains(t, er, field)
	}
	assert.Nil(t, er["recovery_success_rate"], "no error, no attempts: no rate")
	assert.Equal(t, 1.0, er["recovery_score"])

	rain := entries[1]
	assert.Nil(t, rain["prompt_understanding"].(map[string]any)["understanding_score"], "the question names nothing to check")
	assert.Equal(t, true, rain["prompt_understanding"].(map[string]any)["not_applicable"])
	assert.Nil(t, rain["requirement_coverage"].(map[string]any)["coverage_score"], "the case states no requirement")
	assert.NotContains(t, rain, "quality")
}

// A code case whose model ran no code has nothing to credit: 0 on every
// metric of the code, and no recovery to score.
func TestScoreCodeWithoutCode(t *testing.T) {
	m := ScoreCode(CodeCase{Question: "What is the average salary by department?", ResultMatches: false})
	assert.False(t, m.PromptUnderstanding.NotApplicable)
	assert.Zero(t, m.PromptUnderstanding.Score)
	assert.False(t, m.RequirementCoverage.NotApplicable)
	assert.Zero(t, m.RequirementCoverage.Score)
	assert.Equal(t, []string{"no code was written"}, m.RequirementCoverage.Details.MissingRequirements)
	assert.True(t, m.ErrorRecovery.NotApplicable, "nothing ran that could fail")
	assert.Zero(t, m.Overall.Score)
	assert.Contains(t, m.Overall.NotApplicable, eval.MetricRecovery)

	// Ten answers without code among nineteen pull the average down.
	good := ScoreCode(CodeCase{Question: "How many rows?", Attempts: []eval.Attempt{
		ran("result = len(df)", &eval.CodeFacts{Parsed: true, Operations: []string{"len"}}, 0.001)}, ResultMatches: true})
	var entries []eval.MetricsEntry
	for i := range 19 {
		e := eval.MetricsEntry{Kind: eval.KindCode, Metrics: good}
		if i < 10 {
			e.Metrics = m
		}
		entries = append(entries, e)
	}
	s := Summarize(entries)
	assert.Equal(t, 19, s.UnderstandingEntries)
	assert.InDelta(t, 9*good.PromptUnderstanding.Score/19, value(t, s.AverageUnderstandingScore), 1e-4)
	assert.Equal(t, 9, s.RecoveryEntries)
}

// A run whose cases state no requirement has no coverage average: null,
// over no entry, and absent from average_scores.
func TestSummarizeWithoutCoverage(t *testing.T) {
	tool := ScoreTool(eval.Case{}, eval.Record{Question: "Does TP53 matter?", Response: "yes", Status: eval.Pass,
		ToolCalls: []eval.ToolCall{call("get_gene_by_symbol", map[string]any{"gene_symbol": "TP53"})}})
	b, err := json.Marshal(eval.MetricsFileSummary{Summary: Summarize([]eval.MetricsEntry{{Kind: eval.KindTool, Metrics: tool}})})
	require.NoError(t, err)
	var file struct{ Summary map[string]any }
	require.NoError(t, json.Unmarshal(b, &file))
	assert.Nil(t, file.Summary["average_coverage_score"])
	assert.Equal(t, 0.0, file.Summary["coverage_entries"])
	assert.NotContains(t, file.Summary["average_scores"], "coverage")
	assert.Equal(t, 1.0, file.Summary["understanding_entries"])
}

func TestUnit(t *testing.T) {
	assert.Equal(t, 0.3, unit(0.1+0.2))
	assert.Equal(t, 1.0, unit(1.7))
	assert.Equal(t, 0.0, unit(-0.2))
	assert.Equal(t, 1.0, share(0, 0), "nothing wanted is fully covered")
	assert.Equal(t, 0.5, share(1, 2))
	assert.Equal(t, 1.0, share(3, 2), "a share never exceeds 1")
}
