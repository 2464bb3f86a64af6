package eval

import "encoding/json"

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
	Kind                Kind                `json:"kind"`
	Correctness         CorrectnessMetric   `json:"correctness"`
	Quality             *QualityMetric      `json:"quality,omitempty"`
	Performance         PerformanceMetric   `json:"performance"`
	PromptUnderstanding UnderstandingMetric `json:"prompt_understanding"`
	RequirementCoverage CoverageMetric      `json:"requirement_coverage"`
	ErrorRecovery       RecoveryMetric      `json:"error_recovery"`
	Overall             OverallMetric       `json:"overall"`
}

// UnmarshalJSON reads metrics as MarshalJSON writes them: the details of a
// tool case's metrics into their ToolDetails (also from "tool_details",
// where earlier versions wrote them).
func (m *Metrics) UnmarshalJSON(b []byte) error {
	type plain Metrics
	if err := json.Unmarshal(b, (*plain)(m)); err != nil {
		return err
	}
	var raw struct {
		Correctness   rawDetails `json:"correctness"`
		Performance   rawDetails `json:"performance"`
		Understanding rawDetails `json:"prompt_understanding"`
		Coverage      rawDetails `json:"requirement_coverage"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if m.Kind != KindTool && (m.Kind != "" || !raw.Correctness.ofTool()) {
		return nil
	}
	m.Correctness.Details, m.Performance.Details = nil, nil
	m.PromptUnderstanding.Details, m.RequirementCoverage.Details = nil, nil
	for _, d := range []struct {
		raw  rawDetails
		into any
	}{
		{raw.Correctness, &m.Correctness.ToolDetails},
		{raw.Performance, &m.Performance.ToolDetails},
		{raw.Understanding, &m.PromptUnderstanding.ToolDetails},
		{raw.Coverage, &m.RequirementCoverage.ToolDetails},
	} {
		text := d.raw.Details
		if len(text) == 0 {
			text = d.raw.Tool
		}
		if len(text) == 0 {
			continue
		}
		if err := json.Unmarshal(text, d.into); err != nil {
			return err
		}
	}
	return nil
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
	if json.Unmarshal(d.Details, &probe) == nil {
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
	Score float64 `json:"overall_score"`
	// Weights are the weights used, renormalised over the applicable metrics.
	Weights       map[string]float64 `json:"weights"`
	NotApplicable []string           `json:"not_applicable"`
}

// CorrectnessMetric is correctness.
type CorrectnessMetric struct {
	Score       float64                 `json:"correctness_score"`
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
	Parses        bool `json:"parses"`
	Runs          bool `json:"runs"`
	ResultMatches bool `json:"result_matches"`
}

// ToolCorrectnessDetails is the verdict a tool case's correctness rests on.
type ToolCorrectnessDetails struct {
	Passed bool `json:"passed"`
}

// QualityMetric is code quality (code cases only).
type QualityMetric struct {
	Score   float64        `json:"quality_score"`
	Details QualityDetails `json:"details"`
}

// QualityDetails explains a quality score.
type QualityDetails struct {
	SyntaxValid bool    `json:"syntax_valid"`
	SafetyScore float64 `json:"safety_score"`
	// UnsafePatterns names the unsafe kinds found: file_write, file_read,
	// network, code_execution, dangerous_import.
	UnsafePatterns   []string `json:"unsafe_patterns"`
	ReadabilityScore float64  `json:"readability_score"`
	// Imports are the top-level modules the code imports.
	Imports      []string `json:"imports"`
	ImportsScore float64  `json:"imports_score"`
}

// PerformanceMetric is performance.
type PerformanceMetric struct {
	Score       float64                 `json:"performance_score"`
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
	Timing           string  `json:"timing"`
	// WallSeconds is the wall time of the code's own execution, when the
	// server reported it.
	WallSeconds float64 `json:"wall_seconds,omitempty"`
	Ran         bool    `json:"ran"`
	// ExecutionTimeScore is the time part, out of 0.3.
	ExecutionTimeScore float64 `json:"execution_time_score"`
	// TimeComplexity and SpaceComplexity are guesses from the code ("O(n)").
	TimeComplexity       string  `json:"time_complexity"`
	TimeComplexityScore  float64 `json:"time_complexity_score"`
	SpaceComplexity      string  `json:"space_complexity"`
	SpaceComplexityScore float64 `json:"space_complexity_score"`
	CodeLines            int     `json:"code_lines"`
}

// How a code case's execution was timed (PerformanceDetails.Timing).
const (
	TimingCodeCPU  = "code_cpu"
	TimingToolCall = "tool_call"
)

// ToolPerformanceDetails explains a tool case's performance score.
type ToolPerformanceDetails struct {
	Seconds       float64 `json:"seconds"`
	Tokens        int     `json:"tokens"`
	ToolCalls     int     `json:"tool_calls"`
	Budget        Budget  `json:"budget"`
	TimeScore     float64 `json:"time_score"`
	TokenScore    float64 `json:"token_score"`
	ToolCallScore float64 `json:"tool_call_score"`
}

// UnderstandingMetric is prompt understanding.
type UnderstandingMetric struct {
	Score float64 `json:"understanding_score"`
	// NotApplicable is true when the question gives nothing to check (a tool
	// case whose question names no entity, a code case whose code the
	// server did not read); the score is then written as null.
	NotApplicable bool                  `json:"not_applicable,omitempty"`
	Details       *UnderstandingDetails `json:"details,omitempty"`
	ToolDetails   *EntityDetails        `json:"-"` // written as details
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
	ColumnExtractionScore         float64 `json:"column_extraction_score"`
	NLParsingScore                float64 `json:"nl_parsing_score"`
	StatisticalUnderstandingScore float64 `json:"statistical_understanding_score"`
	// ExtractedColumns are the dataset columns the code uses.
	ExtractedColumns []string `json:"extracted_columns"`
	// MentionedColumns are the dataset columns the question names.
	MentionedColumns []string `json:"mentioned_columns"`
	// StatisticalOperations are the operations asked for and performed.
	StatisticalOperations []string `json:"statistical_operations"`
	// RequestedOperations are the operations the question asks for.
	RequestedOperations []string `json:"requested_operations"`
	// NLPatterns are the phrasings (top N, filtering, ...) asked for and
	// carried out; RequestedPatterns are those asked for.
	NLPatterns        []string `json:"nl_patterns"`
	RequestedPatterns []string `json:"requested_patterns"`
}

// EntityDetails explains a tool case's understanding score.
type EntityDetails struct {
	Entities        []Entity `json:"entities"`
	MissingEntities []string `json:"missing_entities"`
	// Untaken are numbers of the question that no call could carry (every
	// call took only paths), left out of the score.
	Untaken []string `json:"untaken_entities,omitempty"`
}

// Entity is something a question names that a tool call should carry on:
// a gene, a variant, a position, an identifier, a term or a number.
type Entity struct {
	Text  string `json:"text"`
	Kind  string `json:"kind"`
	Found bool   `json:"found"`
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
	Score float64 `json:"coverage_score"`
	// NotApplicable is true when the case states no requirement to cover (a
	// tool case without expected tools or facts, a code case whose code the
	// server did not read); the score is then written as null.
	NotApplicable bool                 `json:"not_applicable,omitempty"`
	Details       *CoverageDetails     `json:"details,omitempty"`
	ToolDetails   *ToolCoverageDetails `json:"-"` // written as details
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
	FilterConditionsCoverage float64  `json:"filter_conditions_coverage"`
	GroupbyColumnsCoverage   float64  `json:"groupby_columns_coverage"`
	SortingCoverage          float64  `json:"sorting_coverage"`
	JoinConditionsCoverage   float64  `json:"join_conditions_coverage"`
	MissingRequirements      []string `json:"missing_requirements"`
	// Requirements are what the question was read to ask ("filter: more
	// than 150000", "group by: department", "sort order: descending").
	Requirements []string `json:"requirements"`
}

// ToolCoverageDetails explains a tool case's coverage score.
type ToolCoverageDetails struct {
	ExpectedToolsCoverage float64  `json:"expected_tools_coverage"`
	RequiredFactsCoverage float64  `json:"required_facts_coverage"`
	CalledTools           []string `json:"called_tools"`
	MissingTools          []string `json:"missing_tools"`
	MissingFacts          []string `json:"missing_facts"`
	MissingRequirements   []string `json:"missing_requirements"`
}

// RecoveryMetric is error recovery.
type RecoveryMetric struct {
	HasError     bool   `json:"has_error"`
	ErrorMessage string `json:"error_message"`
	// ErrorClass is the class of the first error.
	ErrorClass            string `json:"error_class,omitempty"`
	RecoveryAttemptsCount int    `json:"recovery_attempts_count"`
	// SuccessfulRecoveries counts the attempts that succeeded (at most one
	// for a code case, whose loop stops at the first success).
	SuccessfulRecoveries int `json:"successful_recoveries"`
	// RecoverySuccess is true when the error was recovered: the last code
	// attempt succeeded, or every failed tool was later called successfully.
	RecoverySuccess bool `json:"recovery_success"`
	// RecoverySuccessRate is SuccessfulRecoveries / RecoveryAttemptsCount,
	// the guide's successful_recoveries / total_attempts; ErrorFixQuality
	// the mean fix quality of the attempts. Without attempts neither
	// applies: both are written as null.
	RecoverySuccessRate float64 `json:"recovery_success_rate"`
	ErrorFixQuality     float64 `json:"error_fix_quality"`
	RecoveryScore       float64 `json:"recovery_score"`
	// MaxRecoveryAttempts is the limit the attempts were counted against
	// (code cases only).
	MaxRecoveryAttempts int               `json:"max_recovery_attempts,omitempty"`
	RecoveryDetails     []RecoveryAttempt `json:"recovery_details"`
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
	AttemptNumber int `json:"attempt_number"`
	// Tool is the retried tool (tool cases only).
	Tool    string `json:"tool,omitempty"`
	Success bool   `json:"success"`
	// Error is the attempt's error message, null when it succeeded.
	Error      *string `json:"error"`
	ErrorClass string  `json:"error_class,omitempty"`
	FixQuality float64 `json:"fix_quality"`
}

// MetricsEntry is the metrics of one evaluated case, one element of
// metrics.json: the case, then the guide's blocks at the top level
// (correctness, quality, performance, prompt_understanding,
// requirement_coverage, error_recovery) and the overall score.
type MetricsEntry struct {
	Case     string `json:"case"`
	Category string `json:"category"`
	Kind     Kind   `json:"kind"`
	Model    string `json:"model"`
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
	Summary MetricsSummary `json:"summary"`
}

// MetricsSummary aggregates the metrics of a run's cases. Each average is
// taken over the entries where its metric applies, says over how many, and
// is null over none.
type MetricsSummary struct {
	Entries int `json:"entries"`
	// The guide's averages, each with the number of entries it is taken
	// over.
	AverageUnderstandingScore *float64 `json:"average_understanding_score"`
	UnderstandingEntries      int      `json:"understanding_entries"`
	AverageCoverageScore      *float64 `json:"average_coverage_score"`
	CoverageEntries           int      `json:"coverage_entries"`
	AverageRecoveryScore      *float64 `json:"average_recovery_score"`
	RecoveryEntries           int      `json:"recovery_entries"`
	// AverageOverallScore is over every entry (null without entries).
	AverageOverallScore *float64 `json:"average_overall_score"`
	// ErrorsEncountered counts entries whose first execution (code) or some
	// tool call (tool) failed.
	ErrorsEncountered int `json:"errors_encountered"`
	// TotalRecoveryAttempts and SuccessfulRecoveries add up the entries'
	// recovery attempts and the successful ones among them, so successful
	// recoveries never exceed attempts.
	TotalRecoveryAttempts int `json:"total_recovery_attempts"`
	SuccessfulRecoveries  int `json:"successful_recoveries"`
	// RecoverySuccessRate is SuccessfulRecoveries / TotalRecoveryAttempts,
	// the guide's definition (null without attempts).
	RecoverySuccessRate *float64 `json:"recovery_success_rate"`
	// RecoveredErrors counts the entries with an error that recovered;
	// ErrorRecoveryRate is RecoveredErrors / ErrorsEncountered (null
	// without errors).
	RecoveredErrors   int      `json:"recovered_errors"`
	ErrorRecoveryRate *float64 `json:"error_recovery_rate"`
	// AverageScores holds every metric's average over the entries where it
	// applies, and AverageEntries how many those are; a metric that applies
	// nowhere is absent from both.
	AverageScores  map[string]float64      `json:"average_scores"`
	AverageEntries map[string]int          `json:"average_entries"`
	ByCategory     map[string]MetricsGroup `json:"by_category"`
	ByKind         map[Kind]MetricsGroup   `json:"by_kind"`
	ByModel        map[string]MetricsGroup `json:"by_model"`
}

// MetricsGroup aggregates the entries of one category, kind or model.
type MetricsGroup struct {
	Entries             int                `json:"entries"`
	AverageOverallScore *float64           `json:"average_overall_score"`
	AverageScores       map[string]float64 `json:"average_scores"`
	AverageEntries      map[string]int     `json:"average_entries"`
}
