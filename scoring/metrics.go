package scoring

import (
	"math"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// metricWeights are the guide's weights of the six metrics in the overall score.
func metricWeights() map[string]float64 {
	return map[string]float64{
		eval.MetricCorrectness:   0.25,
		eval.MetricQuality:       0.20,
		eval.MetricPerformance:   0.15,
		eval.MetricUnderstanding: 0.15,
		eval.MetricCoverage:      0.15,
		eval.MetricRecovery:      0.10,
	}
}

// overallScore combines metric scores with the guide's weights (0.25 correctness,
// 0.20 quality, 0.15 performance, 0.15 understanding, 0.15 coverage, 0.10
// recovery). scores holds the applicable metrics by name; a metric absent
// from it is not applicable, and the weights of the others are scaled to sum
// to 1.
func overallScore(scores map[string]float64) eval.OverallMetric {
	o := eval.OverallMetric{Weights: map[string]float64{}, NotApplicable: []string{}}
	weights := metricWeights()
	total := 0.0
	for _, name := range eval.MetricNames() {
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
	for _, name := range eval.MetricNames() {
		if s, ok := scores[name]; ok {
			o.Weights[name] = unit(weights[name] / total)
			sum += weights[name] / total * unit(s)
		}
	}
	o.Score = unit(sum)
	return o
}

// unit clamps a score into [0, 1] and rounds it to four decimals, so JSON
// output reads 0.3 rather than 0.30000000000000004.
func unit(x float64) float64 {
	if math.IsNaN(x) || x < 0 {
		return 0
	}
	if x > 1 {
		return 1
	}
	return math.Round(x*1e4) / 1e4
}

// share is found/wanted, and 1 when nothing was wanted.
func share(found, wanted int) float64 {
	if wanted <= 0 {
		return 1
	}
	return unit(float64(found) / float64(wanted))
}

// CodeCase is a question about a table answered with pandas code.
type CodeCase struct {
	// Question is the case's question, read for what it asks of the code.
	Question string
	// Columns are the columns of the datasets the final code ran on.
	Columns []string
	// Values lists, by column, the values of text columns with few
	// distinct values (list_datasets gives them); a question that names one
	// asks for a filter on it.
	Values map[string][]string
	// Attempts are the first execution and the recovery attempts, in order;
	// the last one holds the final code. Their Execution (what the server
	// measured and read of the code) feeds performance, understanding and
	// coverage; without it understanding and coverage are not applicable.
	Attempts []eval.Attempt
	// ResultMatches is true when the final result matches the expected answer.
	ResultMatches bool
	// MaxRecoveryAttempts limits the recovery attempts that count (0 means
	// defaultMaxRecoveryAttempts).
	MaxRecoveryAttempts int
}

// ScoreCode computes all six metrics of a code case. Understanding,
// coverage, quality and performance judge the final code (the last counted
// attempt); recovery judges the way there.
func ScoreCode(c CodeCase) eval.Metrics {
	maxAttempts := c.MaxRecoveryAttempts
	if maxAttempts <= 0 {
		maxAttempts = defaultMaxRecoveryAttempts
	}
	attempts := c.Attempts[:min(len(c.Attempts), maxAttempts+1)]
	if i := slices.IndexFunc(attempts, func(a eval.Attempt) bool { return !a.Failed }); i >= 0 {
		attempts = attempts[:i+1]
	}
	var final eval.Attempt
	if len(attempts) > 0 {
		final = attempts[len(attempts)-1]
	}
	if len(attempts) == 0 {
		return noCode(maxAttempts)
	}
	var facts *eval.CodeFacts
	if final.Execution != nil {
		facts = final.Execution.Facts
	}
	ran := len(attempts) > 0 && !final.Failed
	parses := ran || len(attempts) > 0 && ClassifyError(final.Output) != SyntaxError
	if facts != nil {
		parses = facts.Parsed
	}
	s := grading.Schema{Columns: c.Columns, Values: c.Values, Datasets: datasetNames(final.Dataset)}
	quality := codeQuality(final.Code, parses)
	m := eval.Metrics{
		Kind:                eval.KindCode,
		Correctness:         codeCorrectness(parses, ran, c.ResultMatches && ran),
		Quality:             &quality,
		Performance:         codePerformance(final, ran),
		PromptUnderstanding: codeUnderstanding(c.Question, s, facts),
		RequirementCoverage: codeCoverage(c.Question, s, facts),
		ErrorRecovery:       codeRecovery(attempts, maxAttempts),
	}
	m.Overall = overallScore(m.Scores())
	return m
}

// noCode is the metrics of a code case whose model ran no code:
// there is nothing to credit, so every metric of the code scores 0, and
// recovery, with nothing run that could fail, does not apply.
func noCode(maxAttempts int) eval.Metrics {
	const missing = "no code was written"
	m := eval.Metrics{
		Kind:        eval.KindCode,
		Correctness: codeCorrectness(false, false, false),
		Quality:     &eval.QualityMetric{Details: eval.QualityDetails{UnsafePatterns: []string{}, Imports: []string{}}},
		Performance: eval.PerformanceMetric{Details: &eval.PerformanceDetails{}},
		PromptUnderstanding: eval.UnderstandingMetric{Details: &eval.UnderstandingDetails{ExtractedColumns: []string{},
			MentionedColumns: []string{}, StatisticalOperations: []string{}, RequestedOperations: []string{},
			NLPatterns: []string{}, RequestedPatterns: []string{}}},
		RequirementCoverage: eval.CoverageMetric{Details: &eval.CoverageDetails{MissingRequirements: []string{missing}, Requirements: []string{}}},
		ErrorRecovery:       eval.RecoveryMetric{NotApplicable: true, MaxRecoveryAttempts: maxAttempts, RecoveryDetails: []eval.RecoveryAttempt{}},
	}
	m.Overall = overallScore(m.Scores())
	return m
}

// datasetNames splits a run_pandas dataset argument ("employees,
// departments.csv") into lower-case names.
func datasetNames(arg string) []string {
	var names []string
	for _, n := range strings.Split(arg, ",") {
		if n = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(n), ".csv")); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// ScoreTool computes the metrics of a finished tool case from its record;
// quality does not apply. The required facts are its contains checks
// (any spelling of a term) and its claims (as the judge decided them); the
// expected tools are its must_call tools, and those of its reference
// trajectory unless the answer reached the same facts with other tools;
// the budget is the case's. A case with turns is scored over its whole
// conversation: the user's every message, every turn's must_call tools,
// reference calls and contains checks (the first reply's too).
func ScoreTool(c eval.Case, r eval.Record) eval.Metrics {
	mustCall, facts, question := c.Tools.MustCall, c.Checks.Contains, r.Question
	if len(c.Turns) > 0 || c.FirstReply != nil {
		mustCall, facts = slices.Clone(mustCall), slices.Clone(facts)
		expects := make([]eval.ReplyExpect, 0, 1+len(c.Turns))
		if c.FirstReply != nil {
			expects = append(expects, *c.FirstReply)
		}
		for _, t := range c.Turns {
			expects = append(expects, t.ReplyExpect)
		}
		for _, t := range expects {
			for _, name := range t.Tools.MustCall {
				if !slices.Contains(mustCall, name) {
					mustCall = append(mustCall, name)
				}
			}
			facts = append(facts, t.Checks.Contains...)
		}
		question = strings.Join(c.UserMessages(), "\n")
		replies := make([]string, len(r.Turns))
		for i, t := range r.Turns {
			replies[i] = t.Reply
		}
		r.Response = strings.Join(replies, "\n") // a turn's facts are in its own reply
	}
	var reference []string
	for _, ref := range c.AllReference() {
		if !ref.ExpectError && !slices.Contains(mustCall, ref.Tool) && !slices.Contains(reference, ref.Tool) {
			reference = append(reference, ref.Tool)
		}
	}
	passed := r.Status == eval.Pass
	m := eval.Metrics{
		Kind:                eval.KindTool,
		Correctness:         toolCorrectness(passed),
		Performance:         toolPerformance(r.Seconds, r.Usage.TotalTokens, len(r.ToolCalls), c.Budget),
		PromptUnderstanding: toolUnderstanding(question, r.ToolCalls),
		RequirementCoverage: toolCoverage(r, requirements{
			mustCall: mustCall, reference: reference, facts: facts, claims: r.Claims,
		}),
		ErrorRecovery: toolRecovery(r.ToolCalls),
	}
	m.Overall = overallScore(m.Scores())
	return m
}

// RegradedCode returns a code case's metrics with the verdict passed in
// place of the one they were scored with (mcpeval rejudge grades an answer
// again): correctness and the overall score follow it; the metrics of the
// code itself, which no verdict changes, stay.
func RegradedCode(m eval.Metrics, passed bool) eval.Metrics {
	if d := m.Correctness.Details; d != nil {
		m.Correctness = codeCorrectness(d.Parses, d.Runs, passed && d.Runs)
		m.Overall = overallScore(m.Scores())
	}
	return m
}
