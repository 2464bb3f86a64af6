package scoring

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpeval/mcpeval/internal/result"
)

// Call is one tool call of an agent.
type Call struct {
	Name string
	Args map[string]any
	// IsError is true when the call failed; Error holds the error text.
	IsError    bool
	Error      string
	DurationMS float64
}

func (c Call) failed() bool { return c.IsError || c.Error != "" }

// Budget is what a tool case may spend before its performance score drops.
// Zero fields take the defaults.
type Budget struct {
	Seconds   float64 `json:"seconds"`
	Tokens    int     `json:"tokens"`
	ToolCalls int     `json:"tool_calls"`
}

// Default budget of a tool case.
const (
	DefaultBudgetSeconds   = 60
	DefaultBudgetTokens    = 20_000
	DefaultBudgetToolCalls = 8
)

func (b Budget) withDefaults() Budget {
	if b.Seconds <= 0 {
		b.Seconds = DefaultBudgetSeconds
	}
	if b.Tokens <= 0 {
		b.Tokens = DefaultBudgetTokens
	}
	if b.ToolCalls <= 0 {
		b.ToolCalls = DefaultBudgetToolCalls
	}
	return b
}

// ToolCase is a case answered by an agent with MCP tool calls.
type ToolCase struct {
	Question string
	Answer   string
	Calls    []Call
	// ExpectedTools should be called; RequiredFacts should appear in the answer.
	ExpectedTools []string
	RequiredFacts []string
	// Passed is the case's verdict.
	Passed  bool
	Seconds float64
	Tokens  int
	Budget  Budget
}

// NewToolCase reads a tool case from an evaluated record. ExpectedTools,
// RequiredFacts and Budget are left for the caller, who knows the case.
func NewToolCase(r result.Record) ToolCase {
	return ToolCase{
		Question: r.Question,
		Answer:   r.Response,
		Calls:    CallsFromRecord(r.ToolCalls),
		Passed:   r.Status == result.Pass,
		Seconds:  r.Seconds,
		Tokens:   r.Usage.TotalTokens,
	}
}

// CallsFromRecord converts recorded tool calls. Arguments that are not a
// JSON object are kept whole under the key "arguments".
func CallsFromRecord(calls []result.ToolCall) []Call {
	out := make([]Call, 0, len(calls))
	for _, tc := range calls {
		c := Call{Name: tc.Name, IsError: tc.IsError, DurationMS: tc.DurationMS}
		if err := json.Unmarshal([]byte(tc.Arguments), &c.Args); err != nil || c.Args == nil {
			c.Args = map[string]any{"arguments": tc.Arguments}
		}
		if tc.IsError {
			c.Error = tc.Result
		}
		out = append(out, c)
	}
	return out
}

// ToolCorrectnessDetails is the verdict a tool case's correctness rests on.
type ToolCorrectnessDetails struct {
	Passed bool `json:"passed"`
}

// ToolCorrectness is the verdict: 1 if the case passed, else 0.
func ToolCorrectness(passed bool) CorrectnessMetric {
	return CorrectnessMetric{Score: b2f(passed), ToolDetails: &ToolCorrectnessDetails{Passed: passed}}
}

// EntityDetails explains a tool case's understanding score.
type EntityDetails struct {
	Entities        []Entity `json:"entities"`
	MissingEntities []string `json:"missing_entities"`
}

// ToolUnderstanding is the share of the question's entities (see Entities)
// that reach the arguments of some tool call. Comparison is normalised:
// case-insensitive, "chr9" equals "9", "0.160" equals "0.16", "p.Pro63Ser"
// equals "p.P63S", and a position matches separate chromosome and position
// arguments. A question without entities gives nothing to check: the metric
// is not applicable (score 0, left out of the overall score).
func ToolUnderstanding(question string, calls []Call) UnderstandingMetric {
	atoms := map[string]bool{}
	for _, c := range calls {
		for a := range argumentAtoms(c.Args) {
			atoms[a] = true
		}
	}
	d := &EntityDetails{Entities: Entities(question), MissingEntities: []string{}}
	if d.Entities == nil {
		d.Entities = []Entity{}
	}
	found := 0
	for i, e := range d.Entities {
		d.Entities[i].Found = e.found(atoms)
		if d.Entities[i].Found {
			found++
		} else {
			d.MissingEntities = append(d.MissingEntities, e.Text)
		}
	}
	if len(d.Entities) == 0 {
		return UnderstandingMetric{NotApplicable: true, ToolDetails: d}
	}
	return UnderstandingMetric{Score: share(found, len(d.Entities)), ToolDetails: d}
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

// ToolCoverage is the mean of two shares: expected tools that were called
// and required facts that appear in the answer (as whole words,
// case-insensitive, numbers compared by value). A list that is empty is left
// out of the mean; with both empty the metric is not applicable.
func ToolCoverage(answer string, calls []Call, expectedTools, requiredFacts []string) CoverageMetric {
	d := &ToolCoverageDetails{CalledTools: []string{}, MissingTools: []string{}, MissingFacts: []string{},
		MissingRequirements: []string{}}
	for _, c := range calls {
		if !slices.Contains(d.CalledTools, c.Name) {
			d.CalledTools = append(d.CalledTools, c.Name)
		}
	}
	for _, t := range expectedTools {
		if !slices.Contains(d.CalledTools, t) {
			d.MissingTools = append(d.MissingTools, t)
			d.MissingRequirements = append(d.MissingRequirements, "Expected tool not called: "+t)
		}
	}
	answerWords := factWords(answer)
	for _, f := range requiredFacts {
		fw := factWords(f)
		if len(fw) == 0 || countPhrases(answerWords, [][]string{fw}) == 0 {
			d.MissingFacts = append(d.MissingFacts, f)
			d.MissingRequirements = append(d.MissingRequirements, "Required fact missing: "+f)
		}
	}
	d.ExpectedToolsCoverage = share(len(expectedTools)-len(d.MissingTools), len(expectedTools))
	d.RequiredFactsCoverage = share(len(requiredFacts)-len(d.MissingFacts), len(requiredFacts))

	var parts []float64
	if len(expectedTools) > 0 {
		parts = append(parts, d.ExpectedToolsCoverage)
	}
	if len(requiredFacts) > 0 {
		parts = append(parts, d.RequiredFactsCoverage)
	}
	if len(parts) == 0 {
		return CoverageMetric{NotApplicable: true, ToolDetails: d}
	}
	total := 0.0
	for _, p := range parts {
		total += p
	}
	return CoverageMetric{Score: unit(total / float64(len(parts))), ToolDetails: d}
}

// factWords splits text into words for fact matching, numbers in canonical
// form and clause marks dropped.
func factWords(s string) []string {
	var out []string
	for _, w := range words(s) {
		if !isWordRune([]rune(w)[0]) {
			continue
		}
		if n, ok := canonicalNumber(w); ok {
			w = n
		}
		out = append(out, w)
	}
	return out
}

// Tool error classes.
const (
	InvalidArguments = "invalid_arguments"
	NotFound         = "not_found"
	ServerError      = "server_error"
	Timeout          = "timeout"
	OtherToolError   = "other"
)

// toolErrorCues classify tool error texts, first match wins.
var toolErrorCues = []struct {
	class string
	cues  [][]string
}{
	{Timeout, phrases("timeout", "timed out", "time out", "deadline exceeded", "timeouterror", "504")},
	{ServerError, phrases("500", "502", "503", "internal server error", "server error", "service unavailable",
		"bad gateway", "connection refused", "connection reset", "connection error", "econnrefused", "unavailable")},
	{NotFound, phrases("not found", "404", "no data", "no result", "no results", "does not exist", "no such",
		"unknown tool", "no record", "no records", "no match", "no matches")},
	{InvalidArguments, phrases("invalid", "validation", "missing required", "required", "argument", "arguments",
		"parameter", "parameters", "400", "422", "bad request", "unexpected keyword", "must be", "malformed")},
}

// ClassifyToolError returns the class of a tool error text: timeout,
// server_error, not_found, invalid_arguments or other (checked in that
// order, on whole words).
func ClassifyToolError(msg string) string {
	toks := words(msg)
	for _, k := range toolErrorCues {
		if hasPhrase(toks, k.cues) {
			return k.class
		}
	}
	return OtherToolError
}

// ToolRecovery scores recovery from failed tool calls with the formula of
// Recovery. Every failed call of a tool opens an error; the later calls of
// the same tool are its recovery attempts, up to its first success (fix
// quality 1.0, else 0.5 when the error class changed, 0.1 when not). The
// case recovered when every failed tool later succeeded, or when the case
// passed anyway; a case that passed without retrying has fix quality 1.0
// (the answer worked around the error). No failed call: has_error false,
// score 1.0. Unlike code cases, tool retries are not capped: the budget
// covers their cost.
func ToolRecovery(calls []Call, passed bool) RecoveryMetric {
	m := RecoveryMetric{RecoveryDetails: []RecoveryAttempt{}}
	open := map[string]string{} // failed tool -> class of its last error
	for _, c := range calls {
		msg := c.Error
		if msg == "" {
			msg = "tool error"
		}
		previous, retry := open[c.Name]
		switch {
		case retry:
			step := RecoveryAttempt{AttemptNumber: len(m.RecoveryDetails) + 1, Tool: c.Name,
				Success: !c.failed(), FixQuality: fixSucceeded}
			if c.failed() {
				step.Error = &msg
				step.ErrorClass = ClassifyToolError(msg)
				step.FixQuality = fixQuality(previous, step.ErrorClass)
				open[c.Name] = step.ErrorClass
			} else {
				delete(open, c.Name)
			}
			m.RecoveryDetails = append(m.RecoveryDetails, step)
		case c.failed():
			if !m.HasError {
				m.HasError = true
				m.ErrorMessage = fmt.Sprintf("%s: %s", c.Name, msg)
				m.ErrorClass = ClassifyToolError(msg)
			}
			open[c.Name] = ClassifyToolError(msg)
		}
	}
	if !m.HasError {
		m.RecoveryScore = 1
		return m
	}
	m.RecoverySuccess = len(open) == 0 || passed
	m.finish()
	if m.RecoverySuccess && m.RecoveryAttemptsCount == 0 {
		m.ErrorFixQuality = fixSucceeded
		m.RecoveryScore = unit(0.5 + 0.3*fixSucceeded)
	}
	return m
}

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

// ToolPerformance compares time, tokens and tool calls with the budget:
// each scores 1.0 within budget and budget/actual beyond it (half at twice
// the budget); the score is their mean.
func ToolPerformance(seconds float64, tokens, toolCalls int, budget Budget) PerformanceMetric {
	b := budget.withDefaults()
	d := &ToolPerformanceDetails{Seconds: seconds, Tokens: tokens, ToolCalls: toolCalls, Budget: b,
		TimeScore:     withinBudget(seconds, b.Seconds),
		TokenScore:    withinBudget(float64(tokens), float64(b.Tokens)),
		ToolCallScore: withinBudget(float64(toolCalls), float64(b.ToolCalls)),
	}
	return PerformanceMetric{Score: unit((d.TimeScore + d.TokenScore + d.ToolCallScore) / 3), ToolDetails: d}
}

func withinBudget(actual, budget float64) float64 {
	if actual <= budget {
		return 1
	}
	return unit(budget / actual)
}
