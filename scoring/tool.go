package scoring

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpeval/mcpeval/internal/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// callArgs returns a call's arguments; arguments that are not a JSON
// object are kept whole under the key "arguments".
func callArgs(c eval.ToolCall) map[string]any {
	var args map[string]any
	if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil || args == nil {
		return map[string]any{"arguments": c.Arguments}
	}
	return args
}

// callError returns the error text of a failed call.
func callError(c eval.ToolCall) string {
	if c.IsError && c.Result != "" {
		return c.Result
	}
	return "tool error"
}

// toolCorrectness is the verdict: 1 if the case passed, else 0.
func toolCorrectness(passed bool) eval.CorrectnessMetric {
	return eval.CorrectnessMetric{Score: b2f(passed), ToolDetails: &eval.ToolCorrectnessDetails{Passed: passed}}
}

// toolUnderstanding is the share of the question's entities (see
// grading.FindEntities) that the model carried into its tool calls: an entity
// counts when it reaches the arguments of some call, or when the results
// of the successful calls hold it, tying what the model asked for to it (a
// gene looked up by its Entrez id: the result names the gene; a variant's
// gene: the conversion names it; a phenotype searched by name: the result
// names its HPO term). Plain numbers count only in the arguments.
// Comparison is normalised: case-insensitive, "chr9" equals "9", "0.160"
// equals "0.16", "p.Pro63Ser" equals "p.P63S", a position matches
// separate chromosome and position values, a term its words in order. A
// question without entities gives nothing to check: the metric is not
// applicable (left out of the overall score).
func toolUnderstanding(question string, calls []eval.ToolCall) eval.UnderstandingMetric {
	var args, results grading.Atoms
	for _, c := range calls {
		args.Merge(grading.ArgumentAtoms(callArgs(c)))
		if !c.IsError && !c.NotRun && c.Result != "" {
			results.Merge(grading.ResultAtoms(c.Result))
		}
	}
	d := &eval.EntityDetails{Entities: []eval.Entity{}, MissingEntities: []string{}}
	found := 0
	for _, e := range grading.FindEntities(question) {
		ent := eval.Entity{Text: e.Text, Kind: e.Kind}
		switch {
		case e.Found(args):
			ent.Found, ent.Via = true, eval.ViaArguments
		case e.Identifies() && e.Found(results):
			ent.Found, ent.Via = true, eval.ViaResults
		}
		d.Entities = append(d.Entities, ent)
		if ent.Found {
			found++
		} else {
			d.MissingEntities = append(d.MissingEntities, e.Text)
		}
	}
	if len(d.Entities) == 0 {
		return eval.UnderstandingMetric{NotApplicable: true, ToolDetails: d}
	}
	return eval.UnderstandingMetric{Score: share(found, len(d.Entities)), ToolDetails: d}
}

// toolCoverage is the mean of two shares: expected tools that were called
// and required facts that appear in the answer (as whole words,
// case-insensitive, numbers compared by value). A list that is empty is left
// out of the mean; with both empty the metric is not applicable.
func toolCoverage(answer string, calls []eval.ToolCall, expectedTools, requiredFacts []string) eval.CoverageMetric {
	d := &eval.ToolCoverageDetails{CalledTools: []string{}, MissingTools: []string{}, MissingFacts: []string{},
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
		if len(fw) == 0 || grading.CountPhrases(answerWords, [][]string{fw}) == 0 {
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
		return eval.CoverageMetric{NotApplicable: true, ToolDetails: d}
	}
	total := 0.0
	for _, p := range parts {
		total += p
	}
	return eval.CoverageMetric{Score: unit(total / float64(len(parts))), ToolDetails: d}
}

// factWords splits text into words for fact matching, numbers in canonical
// form and clause marks dropped.
func factWords(s string) []string {
	var out []string
	for _, w := range grading.Words(s) {
		if !grading.IsWordRune([]rune(w)[0]) {
			continue
		}
		if n, ok := grading.CanonicalNumber(w); ok {
			w = n
		}
		out = append(out, w)
	}
	return out
}

// Tool error classes.
const (
	toolErrInvalidArguments = "invalid_arguments"
	toolErrNotFound         = "not_found"
	toolErrServer           = "server_error"
	toolErrTimeout          = "timeout"
	toolErrOther            = "other"
)

// toolErrorCues classify tool error texts, first match wins.
var toolErrorCues = []struct {
	class string
	cues  [][]string
}{
	{toolErrTimeout, grading.Phrases("timeout", "timed out", "time out", "deadline exceeded", "timeouterror", "504")},
	{toolErrServer, grading.Phrases("500", "502", "503", "internal server error", "server error", "service unavailable",
		"bad gateway", "connection refused", "connection reset", "connection error", "econnrefused", "unavailable")},
	{toolErrNotFound, grading.Phrases("not found", "404", "no data", "no result", "no results", "does not exist", "no such",
		"unknown tool", "no record", "no records", "no match", "no matches")},
	{toolErrInvalidArguments, grading.Phrases("invalid", "validation", "missing required", "required", "argument", "arguments",
		"parameter", "parameters", "400", "422", "bad request", "unexpected keyword", "must be", "malformed")},
}

// classifyToolError returns the class of a tool error text: timeout,
// server_error, not_found, invalid_arguments or other (checked in that
// order, on whole words).
func classifyToolError(msg string) string {
	toks := grading.Words(msg)
	for _, k := range toolErrorCues {
		if grading.HasPhrase(toks, k.cues) {
			return k.class
		}
	}
	return toolErrOther
}

// toolRecovery scores recovery from failed tool calls with the formula of
// codeRecovery, counting only real attempts. Every failed call of a tool
// opens an error; the later calls of the same tool are its recovery
// attempts, up to its first success (fix quality 1.0, else 0.5 when the
// error class changed, 0.1 when not). The case recovered when every failed
// tool later succeeded. A failed tool never called again made no attempt:
// whatever the answer did instead, it is no recovery (the verdict judges the
// answer). No failed call: has_error false, score 1.0. Unlike code cases,
// tool retries are not capped: the budget covers their cost.
func toolRecovery(calls []eval.ToolCall) eval.RecoveryMetric {
	m := eval.RecoveryMetric{RecoveryDetails: []eval.RecoveryAttempt{}}
	open := map[string]string{} // failed tool -> class of its last error
	for _, c := range calls {
		msg := callError(c)
		previous, retry := open[c.Name]
		switch {
		case retry:
			step := eval.RecoveryAttempt{AttemptNumber: len(m.RecoveryDetails) + 1, Tool: c.Name,
				Success: !c.IsError, FixQuality: fixSucceeded}
			if c.IsError {
				step.Error = &msg
				step.ErrorClass = classifyToolError(msg)
				step.FixQuality = fixQuality(previous, step.ErrorClass)
				open[c.Name] = step.ErrorClass
			} else {
				delete(open, c.Name)
			}
			m.RecoveryDetails = append(m.RecoveryDetails, step)
		case c.IsError:
			if !m.HasError {
				m.HasError = true
				m.ErrorMessage = fmt.Sprintf("%s: %s", c.Name, msg)
				m.ErrorClass = classifyToolError(msg)
			}
			open[c.Name] = classifyToolError(msg)
		}
	}
	if !m.HasError {
		m.RecoveryScore = 1
		return m
	}
	m.RecoverySuccess = len(open) == 0
	finishRecovery(&m)
	return m
}

// toolPerformance compares time, tokens and tool calls with the budget:
// each scores 1.0 within budget and budget/actual beyond it (half at twice
// the budget); the score is their mean.
func toolPerformance(seconds float64, tokens, toolCalls int, budget eval.Budget) eval.PerformanceMetric {
	b := budget.WithDefaults()
	d := &eval.ToolPerformanceDetails{Seconds: seconds, Tokens: tokens, ToolCalls: toolCalls, Budget: b,
		TimeScore:     withinBudget(seconds, b.Seconds),
		TokenScore:    withinBudget(float64(tokens), float64(b.Tokens)),
		ToolCallScore: withinBudget(float64(toolCalls), float64(b.ToolCalls)),
	}
	return eval.PerformanceMetric{Score: unit((d.TimeScore + d.TokenScore + d.ToolCallScore) / 3), ToolDetails: d}
}

func withinBudget(actual, budget float64) float64 {
	if actual <= budget {
		return 1
	}
	return unit(budget / actual)
}
