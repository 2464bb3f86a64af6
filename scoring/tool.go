package scoring

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mcpeval/mcpeval/evaltest/eval"
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
// names its HPO term). Plain numbers count only in the arguments, and only
// when some call takes a value: calls that take nothing but paths (reading
// files, listing folders) could carry no number of the question, which the
// model then applies to what it read; such numbers are listed apart and left
// out. Comparison is normalised: case-insensitive, "chr9" equals "9",
// "0.160" equals "0.16", "p.Pro63Ser" equals "p.P63S", a position matches
// separate chromosome and position values, a term its words in order. A
// question without entities gives nothing to check: the metric is not
// applicable (left out of the overall score).
func toolUnderstanding(question string, calls []eval.ToolCall) eval.UnderstandingMetric {
	var args, results grading.Atoms
	takesValues := false
	for _, c := range calls {
		a := callArgs(c)
		args.Merge(grading.ArgumentAtoms(a))
		takesValues = takesValues || carriesValues("", a)
		if !c.IsError && !c.NotRun && c.Result != "" {
			results.Merge(grading.ResultAtoms(c.Result))
		}
	}
	d := &eval.EntityDetails{Entities: []eval.Entity{}, MissingEntities: []string{}}
	found := 0
	for _, e := range grading.FindEntities(question) {
		if !e.Identifies() && !takesValues && len(calls) > 0 {
			d.Untaken = append(d.Untaken, e.Text)
			continue
		}
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

// carriesValues reports whether an argument value, under the given key,
// holds anything but paths: a number, or a text that is no file or folder
// name.
func carriesValues(key string, v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if carriesValues(k, x) {
				return true
			}
		}
	case []any:
		for _, x := range v {
			if carriesValues(key, x) {
				return true
			}
		}
	case float64:
		return true
	case string:
		return strings.TrimSpace(v) != "" && !isPath(key, v)
	}
	return false
}

// pathKeys are argument names, or words of them, that take paths.
var pathKeys = []string{"path", "paths", "file", "files", "filename", "filepath", "dir", "dirs", "directory",
	"folder", "root", "roots", "source", "destination"}

// fileExtensions are the endings that make a text a file's name.
var fileExtensions = []string{".csv", ".tsv", ".json", ".jsonl", ".txt", ".md", ".yaml", ".yml", ".xml", ".html",
	".pdf", ".xlsx", ".xls", ".parquet", ".log", ".sql", ".db", ".png", ".jpg", ".py", ".go", ".js", ".ts"}

// isPath reports whether an argument's text is a path: given under a key
// named for one, or written as one ("/data/x.csv", "./notes", "notes.txt").
func isPath(key, v string) bool {
	words := strings.FieldsFunc(strings.ToLower(key), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if slices.ContainsFunc(words, func(w string) bool { return slices.Contains(pathKeys, w) }) {
		return true
	}
	v = strings.TrimSpace(v)
	for _, p := range []string{"/", "./", "../", "~/"} {
		if strings.HasPrefix(v, p) {
			return true
		}
	}
	if len(v) > 2 && v[1] == ':' && (v[2] == '\\' || v[2] == '/') {
		return true // C:\data
	}
	return !strings.ContainsAny(v, " \t\n") && slices.Contains(fileExtensions, strings.ToLower(path.Ext(v)))
}

// requirements are what a tool case asks an answer to cover.
type requirements struct {
	// mustCall are tools the case requires; reference the other tools of
	// its reference trajectory, one way to reach its facts.
	mustCall, reference []string
	// facts are terms the answer must state (any spelling); claims the
	// judge's verdicts on the statements it must make.
	facts  eval.Terms
	claims []eval.ClaimResult
}

// toolCoverage is the mean of two shares: expected tools that were called
// and required facts the answer covers. A required fact is a contains term,
// covered when the answer holds any of its spellings (as whole words,
// case-insensitive, numbers compared by value; "not X" and "no X" also by
// X), or a claim, covered by its verdict (fulfilled 1, partial 0.5, not 0;
// undecided claims are left out). The expected tools are the must_call
// tools and the reference trajectory's; a reference tool not called counts
// as covered when the answer reached every required fact some other way
// (or, with none, when the case passed): other tools may lead to the same
// facts. A list that is empty is left out of the mean; with both empty the
// metric is not applicable.
func toolCoverage(r eval.Record, req requirements) eval.CoverageMetric {
	d := &eval.ToolCoverageDetails{CalledTools: []string{}, MissingTools: []string{}, MissingFacts: []string{},
		MissingRequirements: []string{}}
	for _, c := range r.ToolCalls {
		if !slices.Contains(d.CalledTools, c.Name) {
			d.CalledTools = append(d.CalledTools, c.Name)
		}
	}

	answerWords := factWords(r.Response)
	covered, wanted := 0.0, 0
	for _, t := range req.facts {
		if len(t.Any) == 0 {
			continue
		}
		wanted++
		if slices.ContainsFunc(t.Any, func(sp string) bool { return statesFact(answerWords, sp) }) {
			covered++
			continue
		}
		d.MissingFacts = append(d.MissingFacts, t.Any[0])
		d.MissingRequirements = append(d.MissingRequirements, "Required fact missing: "+t.Any[0])
	}
	for _, c := range req.claims {
		if c.Score == nil {
			continue
		}
		wanted++
		covered += *c.Score
		if *c.Score < 1 {
			d.MissingFacts = append(d.MissingFacts, c.Claim)
			d.MissingRequirements = append(d.MissingRequirements, fmt.Sprintf("Claim %s: %s", c.Verdict, c.Claim))
		}
	}
	reached := len(d.MissingFacts) == 0 && r.Status == eval.Pass

	expected := len(req.mustCall) + len(req.reference)
	for i, t := range append(slices.Clone(req.mustCall), req.reference...) {
		called := slices.ContainsFunc(r.ToolCalls, func(c eval.ToolCall) bool { return c.Is(t) }) // "server/tool" too
		if called || i >= len(req.mustCall) && reached {
			continue
		}
		d.MissingTools = append(d.MissingTools, t)
		d.MissingRequirements = append(d.MissingRequirements, "Expected tool not called: "+t)
	}
	d.ExpectedToolsCoverage = share(expected-len(d.MissingTools), expected)
	d.RequiredFactsCoverage = 1
	if wanted > 0 {
		d.RequiredFactsCoverage = unit(covered / float64(wanted))
	}

	var parts []float64
	if expected > 0 {
		parts = append(parts, d.ExpectedToolsCoverage)
	}
	if wanted > 0 {
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

// statesFact reports whether the answer's words hold a spelling of a fact;
// a fact spelt as an absence ("not X", "no X") also by X with a word of
// absence at most four words before it or three after it ("X is absent",
// "there isn't any X").
func statesFact(answerWords []string, spelling string) bool {
	spelling = strings.TrimSuffix(strings.TrimSpace(spelling), "*")
	if fw := factWords(spelling); len(fw) > 0 && grading.CountPhrases(answerWords, [][]string{fw}) > 0 {
		return true
	}
	lower := strings.ToLower(spelling)
	for _, p := range []string{"not ", "no "} {
		rest := factWords(strings.TrimSpace(spelling[min(len(p), len(spelling)):]))
		if !strings.HasPrefix(lower, p) || len(rest) == 0 {
			continue
		}
		for i := 0; i+len(rest) <= len(answerWords); i++ {
			if slices.Equal(answerWords[i:i+len(rest)], rest) &&
				(slices.ContainsFunc(answerWords[max(0, i-4):i], absenceWord) ||
					slices.ContainsFunc(answerWords[i+len(rest):min(len(answerWords), i+len(rest)+3)], absenceWord)) {
				return true
			}
		}
	}
	return false
}

// absenceWord reports whether a word says something is not there.
func absenceWord(w string) bool {
	switch w {
	case "not", "no", "none", "never", "without", "absent", "missing", "lacks", "lack", "nothing", "isn't", "aren't",
		"wasn't", "doesn't", "don't", "n't", "neither", "nor":
		return true
	}
	return strings.HasSuffix(w, "n't")
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
