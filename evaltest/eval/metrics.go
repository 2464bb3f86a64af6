package eval

import (
	"bytes"
	"encoding/json"

	// encoding/json's semantics, decoded in one pass: a cached run
	// decodes every record's metrics.
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// The metrics of a case, in the metrics guide's shape: six metrics and an
// overall score, every score in [0, 1]. The scoring package computes them
// and documents each formula; code cases fill the Details fields, tool cases
// the ToolDetails fields, both written as the guide's "details". A metric that does not apply to a case is written
// with a null score (and not_applicable), never 0, and left out of the
// overall score and of every average.

// The metric names, as used in weights, averages and report columns.
const (
	MetricCorrectness   = "correctness"
	MetricQuality       = "quality"
	MetricPerformance   = "performance"
	MetricUnderstanding = "understanding"
	MetricCoverage      = "coverage"
	MetricRecovery      = "recovery"
)

// MetricNames lists the six metrics in the guide's order.
func MetricNames() []string {
	return []string{MetricCorrectness, MetricQuality, MetricPerformance, MetricUnderstanding, MetricCoverage, MetricRecovery}
}

// Metrics holds the six metrics and the overall score of one case. Quality
// is nil for tool cases; understanding, coverage and recovery may be not
// applicable.
type Metrics struct {
	// Kind is the kind of the case scored, which says which details the
	// metrics hold.
	Kind Kind `json:"kind"`
	// Correctness is whether the answer is right and, for a code case,
	// whether its code parses and runs (weight 0.25).
	Correctness CorrectnessMetric `json:"correctness"`
	// Quality is the code's quality (weight 0.20); nil for a tool case.
	Quality *QualityMetric `json:"quality,omitempty"`
	// Performance is a tool case's time, tokens and calls against its
	// budget, or a code case's speed, complexity and length (weight 0.15).
	Performance PerformanceMetric `json:"performance"`
	// PromptUnderstanding is how much of the question the calls or the
	// code carried (weight 0.15).
	PromptUnderstanding UnderstandingMetric `json:"prompt_understanding"`
	// RequirementCoverage is how much of what the case requires was done
	// (weight 0.15).
	RequirementCoverage CoverageMetric `json:"requirement_coverage"`
	// ErrorRecovery is how the model recovered from failed tool calls or
	// code (weight 0.10).
	ErrorRecovery RecoveryMetric `json:"error_recovery"`
	// Overall is the weighted score of the applicable metrics.
	Overall OverallMetric `json:"overall"`
}

// UnmarshalJSON reads metrics as MarshalJSON writes them: the details of a
// tool case's metrics into their ToolDetails (also from "tool_details",
// where earlier versions wrote them). A report reads the metrics of every
// record, so the metrics are decoded in one pass, each metric's details
// kept raw until the kind says which details they are.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	type (
		plain         Metrics
		correctness   CorrectnessMetric
		performance   PerformanceMetric
		understanding UnderstandingMetric
		coverage      CoverageMetric
	)
	// Each metric's fields but its details, which the raw ones (outside
	// the embedded metric, so that they win) shadow.
	var raw struct {
		*plain
		Correctness struct {
			*correctness
			Details json.RawMessage `json:"details"`
			Tool    json.RawMessage `json:"tool_details"`
		} `json:"correctness"`
		Performance struct {
			*performance
			Details json.RawMessage `json:"details"`
			Tool    json.RawMessage `json:"tool_details"`
		} `json:"performance"`
		Understanding struct {
			*understanding
			Details json.RawMessage `json:"details"`
			Tool    json.RawMessage `json:"tool_details"`
		} `json:"prompt_understanding"`
		Coverage struct {
			*coverage
			Details json.RawMessage `json:"details"`
			Tool    json.RawMessage `json:"tool_details"`
		} `json:"requirement_coverage"`
	}
	if toolMetricsJSON(b) {
		// Metrics of a tool case as MarshalJSON writes them: decoded in
		// one pass, the details straight into the tool details. A cached
		// run reads every record's metrics.
		var tool struct {
			*plain
			Correctness struct {
				*correctness
				Details *ToolCorrectnessDetails `json:"details"`
			} `json:"correctness"`
			Performance struct {
				*performance
				Details *ToolPerformanceDetails `json:"details"`
			} `json:"performance"`
			Understanding struct {
				*understanding
				Details *EntityDetails `json:"details"`
			} `json:"prompt_understanding"`
			Coverage struct {
				*coverage
				Details *ToolCoverageDetails `json:"details"`
			} `json:"requirement_coverage"`
		}
		tool.plain = (*plain)(m)
		tool.Correctness.correctness = (*correctness)(&m.Correctness)
		tool.Performance.performance = (*performance)(&m.Performance)
		tool.Understanding.understanding = (*understanding)(&m.PromptUnderstanding)
		tool.Coverage.coverage = (*coverage)(&m.RequirementCoverage)
		if err := jsonv1.Unmarshal(b, &tool); err != nil {
			return err
		}
		m.Correctness.ToolDetails, m.Performance.ToolDetails = tool.Correctness.Details, tool.Performance.Details
		m.PromptUnderstanding.ToolDetails, m.RequirementCoverage.ToolDetails = tool.Understanding.Details, tool.Coverage.Details
		return nil
	}
	raw.plain = (*plain)(m)
	raw.Correctness.correctness = (*correctness)(&m.Correctness)
	raw.Performance.performance = (*performance)(&m.Performance)
	raw.Understanding.understanding = (*understanding)(&m.PromptUnderstanding)
	raw.Coverage.coverage = (*coverage)(&m.RequirementCoverage)
	if err := jsonv1.Unmarshal(b, &raw); err != nil {
		return err
	}
	c, p, u, v := raw.Correctness, raw.Performance, raw.Understanding, raw.Coverage
	tool := m.Kind == KindTool || m.Kind == "" && (rawDetails{c.Details, c.Tool}).ofTool()
	for _, d := range []struct {
		raw        rawDetails
		code, into any
	}{
		{rawDetails{c.Details, c.Tool}, &m.Correctness.Details, &m.Correctness.ToolDetails},
		{rawDetails{p.Details, p.Tool}, &m.Performance.Details, &m.Performance.ToolDetails},
		{rawDetails{u.Details, u.Tool}, &m.PromptUnderstanding.Details, &m.PromptUnderstanding.ToolDetails},
		{rawDetails{v.Details, v.Tool}, &m.RequirementCoverage.Details, &m.RequirementCoverage.ToolDetails},
	} {
		text, into := d.raw.Details, d.code
		if tool {
			into = d.into
			if len(text) == 0 {
				text = d.raw.Tool
			}
		}
		if len(text) == 0 {
			continue
		}
		if err := jsonv1.Unmarshal(text, into); err != nil {
			return err
		}
	}
	return nil
}

// toolMetricsJSON reports whether b is a tool case's metrics as
// MarshalJSON writes them: its kind first, and no "tool_details" of
// earlier versions.
func toolMetricsJSON(b []byte) bool {
	for _, want := range []string{"{", `"kind"`, ":", `"tool"`, ","} {
		b = bytes.TrimLeft(b, " \t\r\n")
		if !bytes.HasPrefix(b, []byte(want)) {
			return false
		}
		b = b[len(want):]
	}
	return !bytes.Contains(b, []byte(`"tool_details"`))
}

// rawDetails are a metric's details as written: under "details", or
// under "tool_details" by earlier versions.
type rawDetails struct {
	Details json.RawMessage `json:"details"`
	Tool    json.RawMessage `json:"tool_details"`
}

// ofTool reports whether correctness details are a tool case's (for
// metrics written without their kind).
func (d rawDetails) ofTool() bool {
	var probe map[string]json.RawMessage
	passed := false
	if jsonv1.Unmarshal(d.Details, &probe) == nil {
		_, passed = probe["passed"]
	}
	return len(d.Tool) > 0 || passed
}

// Scores returns the scores of the applicable metrics by name.
func (m Metrics) Scores() map[string]float64 {
	s := map[string]float64{
		MetricCorrectness: m.Correctness.Score,
		MetricPerformance: m.Performance.Score,
	}
	if !m.ErrorRecovery.NotApplicable {
		s[MetricRecovery] = m.ErrorRecovery.RecoveryScore
	}
	if m.Quality != nil {
		s[MetricQuality] = m.Quality.Score
	}
	if !m.PromptUnderstanding.NotApplicable {
		s[MetricUnderstanding] = m.PromptUnderstanding.Score
	}
	if !m.RequirementCoverage.NotApplicable {
		s[MetricCoverage] = m.RequirementCoverage.Score
	}
	return s
}

// OverallMetric is the weighted overall score.
type OverallMetric struct {
	// Score is the weighted mean of the applicable metrics' scores, in
	// [0, 1] (JSON "overall_score").
	Score float64 `json:"overall_score"`
	// Weights are the weights used, renormalised over the applicable metrics.
	Weights map[string]float64 `json:"weights"`
	// NotApplicable names the metrics left out (MetricNames' names).
	NotApplicable []string `json:"not_applicable"`
}

// CorrectnessMetric is correctness.
type CorrectnessMetric struct {
	// Score is 1 for a tool case that passed, else 0; for a code case,
	// 0.25 if the code parses + 0.25 if it runs + 0.5 if its result is right.
	Score float64 `json:"correctness_score"`
	// Details are a code case's; nil for a tool case.
	Details     *CorrectnessDetails     `json:"details,omitempty"`
	ToolDetails *ToolCorrectnessDetails `json:"-"` // written as details
}

// MarshalJSON writes the details of either kind as details.
func (m CorrectnessMetric) MarshalJSON() ([]byte, error) {
	type plain CorrectnessMetric
	return json.Marshal(struct {
		plain
		Details any `json:"details,omitempty"`
	}{plain(m), detailsOf(m.Details, m.ToolDetails)})
}

// detailsOf is the details a metric writes: a tool case's, else a code
// case's, else none.
func detailsOf[C, T any](code *C, tool *T) any {
	switch {
	case tool != nil:
		return tool
	case code != nil:
		return code
	}
	return nil
}

// CorrectnessDetails are the facts a code case's correctness rests on.
type CorrectnessDetails struct {
	// Parses is true when the final code is valid Python.
	Parses bool `json:"parses"`
	// Runs is true when the final code ran without an error.
	Runs bool `json:"runs"`
	// ResultMatches is true when the code ran and the case passed.
	ResultMatches bool `json:"result_matches"`
}

// ToolCorrectnessDetails is the verdict a tool case's correctness rests on.
type ToolCorrectnessDetails struct {
	// Passed is true when the case's status is pass.
	Passed bool `json:"passed"`
}

// QualityMetric is code quality (code cases only).
type QualityMetric struct {
	// Score is 0.3 × syntax valid + 0.3 × safety + 0.2 × readability +
	// 0.2 × imports, in [0, 1].
	Score float64 `json:"quality_score"`
	// Details are the parts of the score.
	Details QualityDetails `json:"details"`
}

// QualityDetails explains a quality score.
type QualityDetails struct {
	// SyntaxValid is true when the final code is valid Python.
	SyntaxValid bool `json:"syntax_valid"`
	// SafetyScore is 1 less 0.2 per unsafe kind found, in [0, 1].
	SafetyScore float64 `json:"safety_score"`
	// UnsafePatterns names the unsafe kinds found: file_write, file_read,
	// network, code_execution, dangerous_import.
	UnsafePatterns []string `json:"unsafe_patterns"`
	// ReadabilityScore rates line length, comments and branching, in [0, 1].
	ReadabilityScore float64 `json:"readability_score"`
	// Imports are the top-level modules the code imports.
	Imports []string `json:"imports"`
	// ImportsScore is the share of Imports that are analysis modules
	// (pandas, numpy, math, ...); 1 without imports.
	ImportsScore float64 `json:"imports_score"`
}

// PerformanceMetric is performance.
type PerformanceMetric struct {
	// Score is the performance score, in [0, 1] (see the details).
	Score float64 `json:"performance_score"`
	// Details are a code case's; nil for a tool case.
	Details     *PerformanceDetails     `json:"details,omitempty"`
	ToolDetails *ToolPerformanceDetails `json:"-"` // written as details
}

// MarshalJSON writes the details of either kind as details.
func (m PerformanceMetric) MarshalJSON() ([]byte, error) {
	type plain PerformanceMetric
	return json.Marshal(struct {
		plain
		Details any `json:"details,omitempty"`
	}{plain(m), detailsOf(m.Details, m.ToolDetails)})
}

// PerformanceDetails explains a code case's performance score.
type PerformanceDetails struct {
	// ExecutionSeconds is the time scored: with Timing "code_cpu" the CPU
	// time of the code's own execution as the server reported it, with
	// "tool_call" the duration of the whole tool call (the server reported
	// none).
	ExecutionSeconds float64 `json:"execution_seconds"`
	// Timing says what ExecutionSeconds timed: TimingCodeCPU or
	// TimingToolCall.
	Timing string `json:"timing"`
	// WallSeconds is the wall time of the code's own execution, when the
	// server reported it.
	WallSeconds float64 `json:"wall_seconds,omitempty"`
	// Ran is true when the final code ran without an error; only then
	// does the time score.
	Ran bool `json:"ran"`
	// ExecutionTimeScore is the time part, out of 0.3.
	ExecutionTimeScore float64 `json:"execution_time_score"`
	// TimeComplexity is a guess of the code's time complexity from its
	// calls and loops ("O(1)", "O(n)", "O(n log n)", "O(n^2)").
	TimeComplexity string `json:"time_complexity"`
	// TimeComplexityScore rates TimeComplexity (O(1) 1.0, O(n) 0.7, O(n
	// log n) 0.5, O(n^2) 0.3); it weighs 0.3 in the score.
	TimeComplexityScore float64 `json:"time_complexity_score"`
	// SpaceComplexity is a guess of the code's space complexity ("O(1)"
	// or "O(n)").
	SpaceComplexity string `json:"space_complexity"`
	// SpaceComplexityScore rates SpaceComplexity alike; it weighs 0.2.
	SpaceComplexityScore float64 `json:"space_complexity_score"`
	// CodeLines counts the code's lines (short code earns up to 0.1).
	CodeLines int `json:"code_lines"`
}

// How a code case's execution was timed (PerformanceDetails.Timing).
const (
	TimingCodeCPU  = "code_cpu"
	TimingToolCall = "tool_call"
)

// ToolPerformanceDetails explains a tool case's performance score.
type ToolPerformanceDetails struct {
	// Seconds is the case run's wall time, the judge's included
	// (Record.Seconds).
	Seconds float64 `json:"seconds"`
	// Tokens is the case run's total tokens, the judge's included
	// (Record.Usage.TotalTokens).
	Tokens int `json:"tokens"`
	// ToolCalls counts the case run's tool calls.
	ToolCalls int `json:"tool_calls"`
	// Budget is the case's budget, defaults filled in.
	Budget Budget `json:"budget"`
	// TimeScore is 1 within the budget's seconds, else budget / Seconds.
	TimeScore float64 `json:"time_score"`
	// TokenScore is 1 within the budget's tokens, else budget / Tokens.
	TokenScore float64 `json:"token_score"`
	// ToolCallScore is 1 within the budget's calls, else budget / ToolCalls.
	ToolCallScore float64 `json:"tool_call_score"`
}

// UnderstandingMetric is prompt understanding.
type UnderstandingMetric struct {
	// Score is the understanding score, in [0, 1]; null when NotApplicable.
	Score float64 `json:"understanding_score"`
	// NotApplicable is true when the question gives nothing to check (a tool
	// case whose question names no entity, a code case whose code the
	// server did not read); the score is then written as null.
	NotApplicable bool `json:"not_applicable,omitempty"`
	// Details are a code case's; nil for a tool case, and when the code
	// was not read.
	Details     *UnderstandingDetails `json:"details,omitempty"`
	ToolDetails *EntityDetails        `json:"-"` // written as details
}

// MarshalJSON writes the score as null when the metric does not apply.
func (m UnderstandingMetric) MarshalJSON() ([]byte, error) {
	type plain UnderstandingMetric
	return json.Marshal(struct {
		Score *float64 `json:"understanding_score"`
		plain
		Details any `json:"details,omitempty"`
	}{applicable(m.Score, m.NotApplicable), plain(m), detailsOf(m.Details, m.ToolDetails)})
}

// applicable is a score as written: nil (null) when it does not apply.
func applicable(score float64, notApplicable bool) *float64 {
	if notApplicable {
		return nil
	}
	return &score
}

// UnderstandingDetails explains a code case's understanding score.
type UnderstandingDetails struct {
	// ColumnExtractionScore is the columns part: 0.4 × the share of
	// MentionedColumns the code uses (0.2 when none is named but some used).
	ColumnExtractionScore float64 `json:"column_extraction_score"`
	// NLParsingScore is the phrasings part: 0.3 × the share of
	// RequestedPatterns carried out (0.3 when none is asked).
	NLParsingScore float64 `json:"nl_parsing_score"`
	// StatisticalUnderstandingScore is the operations part: 0.3 × the
	// share of RequestedOperations performed (0.3 when none is asked).
	StatisticalUnderstandingScore float64 `json:"statistical_understanding_score"`
	// ExtractedColumns are the dataset columns the code uses.
	ExtractedColumns []string `json:"extracted_columns"`
	// MentionedColumns are the dataset columns the question names.
	MentionedColumns []string `json:"mentioned_columns"`
	// StatisticalOperations are the operations asked for and performed.
	StatisticalOperations []string `json:"statistical_operations"`
	// RequestedOperations are the operations the question asks for.
	RequestedOperations []string `json:"requested_operations"`
	// NLPatterns are the phrasings (top_n, filtering, ...) asked for and
	// carried out.
	NLPatterns []string `json:"nl_patterns"`
	// RequestedPatterns are the phrasings the question asks for.
	RequestedPatterns []string `json:"requested_patterns"`
}

// EntityDetails explains a tool case's understanding score.
type EntityDetails struct {
	// Entities are the question's entities that count, each with whether
	// the calls carried it.
	Entities []Entity `json:"entities"`
	// MissingEntities are the texts of the entities the calls did not carry.
	MissingEntities []string `json:"missing_entities"`
	// Untaken are numbers of the question that no call could carry (every
	// call took only paths), left out of the score.
	Untaken []string `json:"untaken_entities,omitempty"`
}

// Entity is something a question names that a tool call should carry on:
// a gene, a variant, a position, an identifier, a term or a number.
type Entity struct {
	// Text is the entity as the question writes it.
	Text string `json:"text"`
	// Kind is gene, hgvs, protein, rsid, coordinate, hpo, mim, entrez,
	// term or number.
	Kind string `json:"kind"`
	// Found is true when the calls carried the entity (Via says how).
	Found bool `json:"found"`
	// Via says how it was found: in the calls' arguments, or in the
	// results of the calls, which tie it to what they asked for.
	Via string `json:"via,omitempty"`
}

// How an entity was found (Entity.Via).
const (
	ViaArguments = "arguments"
	ViaResults   = "tool_results"
)

// CoverageMetric is requirement coverage.
type CoverageMetric struct {
	// Score is the coverage score, in [0, 1]; null when NotApplicable.
	Score float64 `json:"coverage_score"`
	// NotApplicable is true when the case states no requirement to cover (a
	// tool case without expected tools or facts, a code case whose code the
	// server did not read); the score is then written as null.
	NotApplicable bool `json:"not_applicable,omitempty"`
	// Details are a code case's; nil for a tool case, and when the code
	// was not read.
	Details     *CoverageDetails     `json:"details,omitempty"`
	ToolDetails *ToolCoverageDetails `json:"-"` // written as details
}

// MarshalJSON writes the score as null when the metric does not apply.
func (m CoverageMetric) MarshalJSON() ([]byte, error) {
	type plain CoverageMetric
	return json.Marshal(struct {
		Score *float64 `json:"coverage_score"`
		plain
		Details any `json:"details,omitempty"`
	}{applicable(m.Score, m.NotApplicable), plain(m), detailsOf(m.Details, m.ToolDetails)})
}

// CoverageDetails explains a code case's coverage score. Each part is a
// share in [0, 1]; the score weighs them 0.3, 0.3, 0.2 and 0.2.
type CoverageDetails struct {
	// FilterConditionsCoverage is the share of the asked conditions the
	// code's filters carry out; 1 when none is asked.
	FilterConditionsCoverage float64 `json:"filter_conditions_coverage"`
	// GroupbyColumnsCoverage is the share of the asked group-by columns the
	// code groups by; 1 when none is asked.
	GroupbyColumnsCoverage float64 `json:"groupby_columns_coverage"`
	// SortingCoverage is the share of the sorting asked (a sort, its
	// order, its keys) the code meets; 1 when none is asked.
	SortingCoverage float64 `json:"sorting_coverage"`
	// JoinConditionsCoverage is the share of the asked joins and join keys
	// the code's joins meet; 1 when none is asked.
	JoinConditionsCoverage float64 `json:"join_conditions_coverage"`
	// MissingRequirements say what of Requirements the code misses.
	MissingRequirements []string `json:"missing_requirements"`
	// Requirements are what the question was read to ask ("filter: more
	// than 150000", "group by: department", "sort order: descending").
	Requirements []string `json:"requirements"`
}

// ToolCoverageDetails explains a tool case's coverage score.
type ToolCoverageDetails struct {
	// ExpectedToolsCoverage is the share of the expected tools (must_call
	// and the reference trajectory's) counted as covered; 1 when none.
	ExpectedToolsCoverage float64 `json:"expected_tools_coverage"`
	// RequiredFactsCoverage is the share of the required facts (contains
	// terms, decided claims by score) the answer covers; 1 when none.
	RequiredFactsCoverage float64 `json:"required_facts_coverage"`
	// CalledTools are the tools called, by name on their server, in order
	// of first call.
	CalledTools []string `json:"called_tools"`
	// MissingTools are the expected tools not covered.
	MissingTools []string `json:"missing_tools"`
	// MissingFacts are the contains terms (first spelling) and the claims
	// the answer does not fully cover.
	MissingFacts []string `json:"missing_facts"`
	// MissingRequirements say what is missing, one line per missing fact
	// or tool.
	MissingRequirements []string `json:"missing_requirements"`
}

// RecoveryMetric is error recovery.
type RecoveryMetric struct {
	// HasError is true when something failed: the first code execution,
	// or some tool call.
	HasError bool `json:"has_error"`
	// ErrorMessage is the first error's text ("tool: message" for a tool
	// call); "" without an error.
	ErrorMessage string `json:"error_message"`
	// ErrorClass is the class of the first error.
	ErrorClass string `json:"error_class,omitempty"`
	// RecoveryAttemptsCount counts the recovery attempts made after the
	// first error (the guide's total_attempts).
	RecoveryAttemptsCount int `json:"recovery_attempts_count"`
	// SuccessfulRecoveries counts the attempts that succeeded (at most one
	// for a code case, whose loop stops at the first success).
	SuccessfulRecoveries int `json:"successful_recoveries"`
	// RecoverySuccess is true when the error was recovered: the last code
	// attempt succeeded, or every failed tool was later called successfully.
	RecoverySuccess bool `json:"recovery_success"`
	// RecoverySuccessRate is SuccessfulRecoveries / RecoveryAttemptsCount,
	// the guide's successful_recoveries / total_attempts. Without attempts
	// it does not apply: it is written as null.
	RecoverySuccessRate float64 `json:"recovery_success_rate"`
	// ErrorFixQuality is the mean fix quality of the attempts; null
	// without attempts.
	ErrorFixQuality float64 `json:"error_fix_quality"`
	// RecoveryScore is 0.5 × success rate + 0.3 × fix quality + 0.2 ×
	// min(attempts / 3, 1); 1 without an error, null when NotApplicable.
	RecoveryScore float64 `json:"recovery_score"`
	// MaxRecoveryAttempts is the limit the attempts were counted against
	// (code cases only).
	MaxRecoveryAttempts int `json:"max_recovery_attempts,omitempty"`
	// RecoveryDetails are the attempts, in order.
	RecoveryDetails []RecoveryAttempt `json:"recovery_details"`
	// NotApplicable is true when nothing ran that could fail (a code case
	// whose model wrote no code); the scores are then written as null.
	NotApplicable bool `json:"not_applicable,omitempty"`
}

// MarshalJSON writes the scores as null when the metric does not apply,
// and the success rate and fix quality as null without attempts.
func (m RecoveryMetric) MarshalJSON() ([]byte, error) {
	type plain RecoveryMetric
	noAttempts := m.NotApplicable || m.RecoveryAttemptsCount == 0
	return json.Marshal(struct {
		RecoverySuccessRate *float64 `json:"recovery_success_rate"`
		ErrorFixQuality     *float64 `json:"error_fix_quality"`
		RecoveryScore       *float64 `json:"recovery_score"`
		plain
	}{applicable(m.RecoverySuccessRate, noAttempts), applicable(m.ErrorFixQuality, noAttempts),
		applicable(m.RecoveryScore, m.NotApplicable), plain(m)})
}

// RecoveryAttempt is one recovery attempt.
type RecoveryAttempt struct {
	// AttemptNumber numbers the attempts, from 1.
	AttemptNumber int `json:"attempt_number"`
	// Tool is the retried tool (tool cases only).
	Tool string `json:"tool,omitempty"`
	// Success is true when the attempt ran without an error.
	Success bool `json:"success"`
	// Error is the attempt's error message, null when it succeeded.
	Error *string `json:"error"`
	// ErrorClass is the class of the attempt's error; "" when it succeeded.
	ErrorClass string `json:"error_class,omitempty"`
	// FixQuality is 1.0 for a success, 0.5 when the error's class changed,
	// 0.1 when it did not.
	FixQuality float64 `json:"fix_quality"`
}

// MetricsEntry is the metrics of one evaluated case, one element of
// metrics.json: the case, then the guide's blocks at the top level
// (correctness, quality, performance, prompt_understanding,
// requirement_coverage, error_recovery) and the overall score.
type MetricsEntry struct {
	// Case is the case's name.
	Case string `json:"case"`
	// Category is the case's category.
	Category string `json:"category"`
	// Kind is the case's kind.
	Kind Kind `json:"kind"`
	// Model names what the case run evaluated: its arm, else its model
	// (Record.ArmName).
	Model string `json:"model"`
	Metrics
}

// UnmarshalJSON reads an entry: its case, category, kind and model, and its
// metrics (whose own UnmarshalJSON the embedding would otherwise make the
// entry's alone).
func (e *MetricsEntry) UnmarshalJSON(b []byte) error {
	var head struct {
		Case     string `json:"case"`
		Category string `json:"category"`
		Kind     Kind   `json:"kind"`
		Model    string `json:"model"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	if err := e.Metrics.UnmarshalJSON(b); err != nil {
		return err
	}
	e.Case, e.Category, e.Kind, e.Model = head.Case, head.Category, head.Kind, head.Model
	return nil
}

// MetricsFileSummary is the content of metrics_summary.json: the summary
// under a "summary" key, like the guide's file.
type MetricsFileSummary struct {
	// Summary is the run's aggregate.
	Summary MetricsSummary `json:"summary"`
}

// MetricsSummary aggregates the metrics of a run's cases. Each average is
// taken over the entries where its metric applies, says over how many, and
// is null over none.
type MetricsSummary struct {
	// Entries counts the scored case runs (the entries of metrics.json).
	Entries int `json:"entries"`
	// AverageUnderstandingScore is the guide's average understanding
	// score, over UnderstandingEntries entries.
	AverageUnderstandingScore *float64 `json:"average_understanding_score"`
	// UnderstandingEntries counts the entries where understanding applies.
	UnderstandingEntries int `json:"understanding_entries"`
	// AverageCoverageScore is the average coverage score, over
	// CoverageEntries entries.
	AverageCoverageScore *float64 `json:"average_coverage_score"`
	// CoverageEntries counts the entries where coverage applies.
	CoverageEntries int `json:"coverage_entries"`
	// AverageRecoveryScore is the average recovery score, over
	// RecoveryEntries entries.
	AverageRecoveryScore *float64 `json:"average_recovery_score"`
	// RecoveryEntries counts the entries where recovery applies.
	RecoveryEntries int `json:"recovery_entries"`
	// AverageOverallScore is over every entry (null without entries).
	AverageOverallScore *float64 `json:"average_overall_score"`
	// ErrorsEncountered counts entries whose first execution (code) or some
	// tool call (tool) failed.
	ErrorsEncountered int `json:"errors_encountered"`
	// TotalRecoveryAttempts adds up the recovery attempts of the entries
	// with an error.
	TotalRecoveryAttempts int `json:"total_recovery_attempts"`
	// SuccessfulRecoveries adds up the successful ones among them, so it
	// never exceeds TotalRecoveryAttempts.
	SuccessfulRecoveries int `json:"successful_recoveries"`
	// RecoverySuccessRate is SuccessfulRecoveries / TotalRecoveryAttempts,
	// the guide's definition (null without attempts).
	RecoverySuccessRate *float64 `json:"recovery_success_rate"`
	// RecoveredErrors counts the entries with an error that recovered.
	RecoveredErrors int `json:"recovered_errors"`
	// ErrorRecoveryRate is RecoveredErrors / ErrorsEncountered (null
	// without errors).
	ErrorRecoveryRate *float64 `json:"error_recovery_rate"`
	// AverageScores holds every metric's average over the entries where it
	// applies, by metric name; a metric that applies nowhere is absent.
	AverageScores map[string]float64 `json:"average_scores"`
	// AverageEntries holds how many entries each average is over.
	AverageEntries map[string]int `json:"average_entries"`
	// ByCategory aggregates the entries of each category, by its name.
	ByCategory map[string]MetricsGroup `json:"by_category"`
	// ByKind aggregates the entries of each case kind.
	ByKind map[Kind]MetricsGroup `json:"by_kind"`
	// ByModel aggregates the entries by MetricsEntry.Model.
	ByModel map[string]MetricsGroup `json:"by_model"`
}

// MetricsGroup aggregates the entries of one category, kind or model.
type MetricsGroup struct {
	// Entries counts the group's entries.
	Entries int `json:"entries"`
	// AverageOverallScore is the mean overall score of the entries.
	AverageOverallScore *float64 `json:"average_overall_score"`
	// AverageScores holds each metric's average over the group's entries
	// where it applies, by metric name.
	AverageScores map[string]float64 `json:"average_scores"`
	// AverageEntries holds how many entries each average is over.
	AverageEntries map[string]int `json:"average_entries"`
}
