package scoring

import "slices"

// Metric names, as used in weights and summaries.
const (
	MetricCorrectness   = "correctness"
	MetricQuality       = "quality"
	MetricPerformance   = "performance"
	MetricUnderstanding = "understanding"
	MetricCoverage      = "coverage"
	MetricRecovery      = "recovery"
)

// Case kinds.
const (
	KindCode = "code"
	KindTool = "tool"
)

// Weights are the guide's weights of the six metrics in the overall score.
func Weights() map[string]float64 {
	return map[string]float64{
		MetricCorrectness:   0.25,
		MetricQuality:       0.20,
		MetricPerformance:   0.15,
		MetricUnderstanding: 0.15,
		MetricCoverage:      0.15,
		MetricRecovery:      0.10,
	}
}

// metricOrder lists the metrics in the guide's order.
var metricOrder = []string{MetricCorrectness, MetricQuality, MetricPerformance, MetricUnderstanding,
	MetricCoverage, MetricRecovery}

// OverallMetric is the weighted overall score.
type OverallMetric struct {
	Score float64 `json:"overall_score"`
	// Weights are the weights used, renormalised over the applicable metrics.
	Weights       map[string]float64 `json:"weights"`
	NotApplicable []string           `json:"not_applicable"`
}

// Overall combines metric scores with the guide's weights (0.25 correctness,
// 0.20 quality, 0.15 performance, 0.15 understanding, 0.15 coverage, 0.10
// recovery). scores holds the applicable metrics by name; a metric absent
// from it is not applicable, and the weights of the others are scaled to sum
// to 1.
func Overall(scores map[string]float64) OverallMetric {
	o := OverallMetric{Weights: map[string]float64{}, NotApplicable: []string{}}
	weights := Weights()
	total := 0.0
	for _, name := range metricOrder {
		if _, ok := scores[name]; ok {
			total += weights[name]
		} else {
			o.NotApplicable = append(o.NotApplicable, name)
		}
	}
	if total == 0 {
		return o
	}
	sum := 0.0
	for _, name := range metricOrder {
		if s, ok := scores[name]; ok {
			o.Weights[name] = unit(weights[name] / total)
			sum += weights[name] / total * unit(s)
		}
	}
	o.Score = unit(sum)
	return o
}

// Metrics holds the six metrics and the overall score of one case. Quality
// is nil for tool cases; understanding and coverage may be not applicable.
type Metrics struct {
	Kind                string              `json:"kind"`
	Correctness         CorrectnessMetric   `json:"correctness"`
	Quality             *QualityMetric      `json:"quality,omitempty"`
	Performance         PerformanceMetric   `json:"performance"`
	PromptUnderstanding UnderstandingMetric `json:"prompt_understanding"`
	RequirementCoverage CoverageMetric      `json:"requirement_coverage"`
	ErrorRecovery       RecoveryMetric      `json:"error_recovery"`
	Overall             OverallMetric       `json:"overall"`
}

// Scores returns the scores of the applicable metrics by name.
func (m Metrics) Scores() map[string]float64 {
	s := map[string]float64{
		MetricCorrectness: m.Correctness.Score,
		MetricPerformance: m.Performance.Score,
		MetricRecovery:    m.ErrorRecovery.RecoveryScore,
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

// CodeCase is a question about a table answered with pandas code.
type CodeCase struct {
	Question string
	Columns  []string
	// Attempts are the first execution and the recovery attempts, in order;
	// the last one holds the final code.
	Attempts []Attempt
	// ResultMatches is true when the final result matches the expected answer.
	ResultMatches bool
	// MaxRecoveryAttempts limits the recovery attempts that count (0 means
	// DefaultMaxRecoveryAttempts).
	MaxRecoveryAttempts int
}

// ScoreCode computes all six metrics of a code case. Understanding,
// coverage, quality and performance judge the final code (the last counted
// attempt); recovery judges the way there.
func ScoreCode(c CodeCase) Metrics {
	maxAttempts := c.MaxRecoveryAttempts
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxRecoveryAttempts
	}
	attempts := c.Attempts[:min(len(c.Attempts), maxAttempts+1)]
	if i := slices.IndexFunc(attempts, func(a Attempt) bool { return a.Success }); i >= 0 {
		attempts = attempts[:i+1]
	}
	var final Attempt
	if len(attempts) > 0 {
		final = attempts[len(attempts)-1]
	}
	parses := final.SyntaxValid || final.Success // code that ran did parse
	quality := Quality(final.Code, parses)
	m := Metrics{
		Kind:                KindCode,
		Correctness:         Correctness(parses, final.Success, c.ResultMatches && final.Success),
		Quality:             &quality,
		Performance:         Performance(final.Seconds, final.Code, final.Success),
		PromptUnderstanding: Understanding(c.Question, c.Columns, final.Code),
		RequirementCoverage: Coverage(c.Question, c.Columns, final.Code),
		ErrorRecovery:       Recovery(attempts, maxAttempts),
	}
	m.Overall = Overall(m.Scores())
	return m
}

// ScoreTool computes the metrics of a tool case; quality does not apply.
func ScoreTool(c ToolCase) Metrics {
	m := Metrics{
		Kind:                KindTool,
		Correctness:         ToolCorrectness(c.Passed),
		Performance:         ToolPerformance(c.Seconds, c.Tokens, len(c.Calls), c.Budget),
		PromptUnderstanding: ToolUnderstanding(c.Question, c.Calls),
		RequirementCoverage: ToolCoverage(c.Answer, c.Calls, c.ExpectedTools, c.RequiredFacts),
		ErrorRecovery:       ToolRecovery(c.Calls, c.Passed),
	}
	m.Overall = Overall(m.Scores())
	return m
}
