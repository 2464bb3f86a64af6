package scoring

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func TestToolUnderstanding(t *testing.T) {
	tests := []struct {
		name     string
		question string
		calls    []eval.ToolCall
		score    float64
		missing  []string
	}{
		{name: "gene symbol, case-insensitive", question: "Does NUTM2G have OMIM entries?",
			calls: []eval.ToolCall{call("get_omim_by_gene_symbol", map[string]any{"gene_symbol": "nutm2g"})},
			score: 1, missing: []string{}},
		{name: "position as chr and pos arguments", question: "Is Chr9:99694174 C>T in gnomAD?",
			calls: []eval.ToolCall{call("get_gnomad_variant", map[string]any{"chr": "9", "pos": 99694174.0, "ref": "C", "alt": "T"})},
			score: 1, missing: []string{}},
		{name: "position as one string", question: "Is Chr9:99694174 C>T in gnomAD?",
			calls: []eval.ToolCall{call("liftover", map[string]any{"variant": "chr9:99694174 C>T"})},
			score: 1, missing: []string{}},
		{name: "wrong chromosome", question: "Is Chr9:99694174 C>T in gnomAD?",
			calls: []eval.ToolCall{call("get_gnomad_variant", map[string]any{"chr": "19", "pos": "99694174"})},
			score: 0, missing: []string{"Chr9:99694174"}},
		{name: "HGVS carried, gene not", question: "Is NM_001045477.4:c.187C>T in NUTM2G?",
			calls: []eval.ToolCall{call("convert_hgvs_to_genomic", map[string]any{"hgvs_variant": "NM_001045477.4:c.187C>T"})},
			score: 0.5, missing: []string{"NUTM2G"}},
		{name: "protein change in another notation", question: "Which variants give p.P63S?",
			calls: []eval.ToolCall{call("convert_protein_variant", map[string]any{"protein_variant": "NUTM2G:p.Pro63Ser"})},
			score: 1, missing: []string{}},
		{name: "entity inside a search query", question: "Papers about TP53 since 2020",
			calls: []eval.ToolCall{call("search_pubmed", map[string]any{"query": "TP53 cancer 2020", "max_results": 50.0})},
			score: 1, missing: []string{}},
		{name: "no tool call", question: "What is TP53?", score: 0, missing: []string{"TP53"}},
		{name: "gene reached by its Entrez id: the result names it", question: "Which tissue expresses MECP2 most?",
			calls: []eval.ToolCall{withResult(call("get_gtex_expression", map[string]any{"entrez_id": "4204"}),
				`{"entrezId": 4204, "gene": "MECP2", "data": {"Brain": 12.5}}`)},
			score: 1, missing: []string{}},
		{name: "another gene's Entrez id", question: "Which tissue expresses MECP2 most?",
			calls: []eval.ToolCall{withResult(call("get_gtex_expression", map[string]any{"entrez_id": "7157"}),
				`{"entrezId": 7157, "gene": "TP53", "data": {"Brain": 12.5}}`)},
			score: 0, missing: []string{"MECP2"}},
		{name: "an error result ties nothing", question: "Which tissue expresses MECP2 most?",
			calls: []eval.ToolCall{withError(withResult(call("get_gtex_expression", map[string]any{"entrez_id": "TP53"}),
				`entrez_id must be numeric; did you mean MECP2?`))},
			score: 0, missing: []string{"MECP2"}},
		{name: "a number in a result is no evidence", question: "Genes with more than 150 variants near TP53?",
			calls: []eval.ToolCall{withResult(call("get_gene_by_symbol", map[string]any{"gene_symbol": "TP53"}),
				`{"symbol": "TP53", "variants": 150}`)},
			score: 0.5, missing: []string{"150"}},
		{name: "a quoted term inside a longer query", question: "Which genes go with 'blue toe syndrome'?",
			calls: []eval.ToolCall{call("search_omim_by_disease_name", map[string]any{"disease_name": "Blue toe syndrome, OMIM"})},
			score: 1, missing: []string{}},
		{name: "a term's words out of order", question: "Which HPO terms match 'haemolytic anaemia'?",
			calls: []eval.ToolCall{call("search_hpo_terms", map[string]any{"phenotype_query": "anaemia haemolytic"})},
			score: 0, missing: []string{"haemolytic anaemia"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := toolUnderstanding(tt.question, tt.calls)
			assert.False(t, u.NotApplicable)
			assert.Nil(t, u.Details)
			require.NotNil(t, u.ToolDetails)
			assert.InDelta(t, tt.score, u.Score, 1e-4)
			assert.Equal(t, tt.missing, u.ToolDetails.MissingEntities)
		})
	}
}

// Numbers of the question count only when some call takes a value: tools
// that take nothing but paths could carry none (MCP-Atlas's tasks read CSV
// files and compute from them).
func TestToolUnderstandingOfToolsThatTakePaths(t *testing.T) {
	question := "What's the average age of the suspects in assaults from 2017 to 2020?"
	read := []eval.ToolCall{
		call("list_allowed_directories", map[string]any{}),
		call("list_directory", map[string]any{"path": "/data"}),
		call("read_file", map[string]any{"path": "/data/Crime_records.csv"}),
		call("read_multiple_files", map[string]any{"paths": []any{"a.csv", "/data/b.csv"}}),
	}
	u := toolUnderstanding(question, read)
	assert.True(t, u.NotApplicable, "no call could take a number: %+v", u.ToolDetails)
	assert.Equal(t, []string{"2017", "2020"}, u.ToolDetails.Untaken)

	searched := append(slices.Clone(read), call("search_crimes", map[string]any{"category": "assault"}))
	u = toolUnderstanding(question, searched)
	assert.False(t, u.NotApplicable)
	assert.Equal(t, 0.0, u.Score, "a call took a value, but not the years")
	assert.Equal(t, []string{"2017", "2020"}, u.ToolDetails.MissingEntities)

	u = toolUnderstanding(question, []eval.ToolCall{call("search_crimes", map[string]any{"from": 2017.0, "to": "2020"})})
	assert.Equal(t, 1.0, u.Score)
}

func TestIsPath(t *testing.T) {
	tests := []struct {
		key, value string
		want       bool
	}{
		{"path", "anything", true},
		{"file_path", "x", true},
		{"source", "x", true},
		{"", "/data/Crime_records.csv", true},
		{"", "./notes", true},
		{"", `C:\data\x.csv`, true},
		{"", "Pet Care 2023 Weekly Financials.csv", false},
		{"name", "notes.txt", true},
		{"pathway_id", "hsa04115", false},
		{"profile", "x", false},
		{"direction", "up", false},
		{"variant", "17-43044295-A/G", false},
		{"unit", "mg/dL", false},
		{"organism", "E.coli", false},
		{"gene_symbol", "BRCA1/BRCA2", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, isPath(tt.key, tt.value), "%s=%s", tt.key, tt.value)
	}
}

func TestToolUnderstandingWithoutEntitiesIsNotApplicable(t *testing.T) {
	u := toolUnderstanding("Which genes cause seizures?", []eval.ToolCall{call("search_hpo_terms",
		map[string]any{"phenotype_query": "seizures"})})
	assert.True(t, u.NotApplicable)
	assert.Empty(t, u.ToolDetails.Entities)
}

func TestToolCoverage(t *testing.T) {
	calls := []eval.ToolCall{{Name: "get_gene_by_symbol", Server: "marrvel"}, {Name: "get_clinvar_by_gene_symbol"}, {Name: "get_gene_by_symbol", Server: "marrvel"}}
	terms := func(spellings ...string) eval.Terms {
		var out eval.Terms
		for _, s := range spellings {
			out = append(out, eval.Term{Any: strings.Split(s, "|")})
		}
		return out
	}
	score := func(v float64) *float64 { return &v }
	tests := []struct {
		name            string
		answer          string
		passed          bool
		mustCall, other []string
		facts           eval.Terms
		claims          []eval.ClaimResult
		score           float64
		notApplicable   bool
		missingTools    []string
		missingFacts    []string
	}{
		{name: "all covered", answer: "NUTM2G has 99 reported variants in ClinVar, score 0.160.",
			mustCall: []string{"get_clinvar_by_gene_symbol"}, facts: terms("99", "clinvar", "0.16"),
			score: 1, missingTools: []string{}, missingFacts: []string{}},
		{name: "a tool and a fact missing", answer: "NUTM2G has 98 variants.",
			mustCall: []string{"get_clinvar_by_gene_symbol", "get_gnomad_by_gene_symbol"}, facts: terms("99", "NUTM2G"),
			score: (0.5 + 0.5) / 2, missingTools: []string{"get_gnomad_by_gene_symbol"}, missingFacts: []string{"99"}},
		{name: "facts are whole words", answer: "It has 199 variants and is benignant.",
			facts: terms("99", "benign"), score: 0, missingTools: []string{}, missingFacts: []string{"99", "benign"}},
		{name: "phrase fact", answer: "PolyPhen-2 HumDiv: Benign. HumVar: benign",
			facts: terms("humvar: benign", "p.P63S"), score: 0.5, missingTools: []string{}, missingFacts: []string{"p.P63S"}},
		{name: "any spelling of a term", answer: "The change is Pro63Ser; no fly ortholog is listed.",
			facts: terms("p.P63S|Pro63Ser", "not listed|absent"), score: 1, missingTools: []string{}, missingFacts: []string{}},
		{name: "only tools given", answer: "", mustCall: []string{"get_gene_by_symbol"},
			score: 1, missingTools: []string{}, missingFacts: []string{}},
		{name: "tools named with their server", answer: "", mustCall: []string{"marrvel/get_gene_by_symbol", "other/get_gene_by_symbol"},
			score: 0.5, missingTools: []string{"other/get_gene_by_symbol"}, missingFacts: []string{}},
		{name: "other tools reached the facts", answer: "NUTM2G has 99 variants.", passed: true, other: []string{"get_gnomad_by_gene_symbol"},
			facts: terms("99"), score: 1, missingTools: []string{}, missingFacts: []string{}},
		{name: "a failed case's facts excuse no tool", answer: "NUTM2G has 99 variants.", other: []string{"get_gnomad_by_gene_symbol"},
			facts: terms("99"), score: 0.5, missingTools: []string{"get_gnomad_by_gene_symbol"}, missingFacts: []string{}},
		{name: "an absence is not its word stated", answer: "A fly ortholog is listed; the variant is pathogenic.",
			facts: terms("not listed", "not pathogenic"), score: 0, missingTools: []string{}, missingFacts: []string{"not listed", "not pathogenic"}},
		{name: "other tools missed the facts", answer: "NUTM2G has 98 variants.", other: []string{"get_gnomad_by_gene_symbol"},
			facts: terms("99"), score: 0, missingTools: []string{"get_gnomad_by_gene_symbol"}, missingFacts: []string{"99"}},
		{name: "other tools and a pass without facts", answer: "Yes.", passed: true, other: []string{"get_gnomad_by_gene_symbol"},
			score: 1, missingTools: []string{}, missingFacts: []string{}},
		{name: "claims by their verdicts", answer: "anything",
			claims: []eval.ClaimResult{
				{Claim: "A", Verdict: eval.ClaimFulfilled, Score: score(1)},
				{Claim: "B", Verdict: eval.ClaimPartial, Score: score(0.5)},
				{Claim: "C", Verdict: eval.ClaimUndecided},
			},
			score: 0.75, missingTools: []string{}, missingFacts: []string{"B"}},
		{name: "nothing expected", answer: "anything", notApplicable: true,
			missingTools: []string{}, missingFacts: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := eval.Record{Response: tt.answer, ToolCalls: calls, Status: eval.Fail}
			if tt.passed {
				r.Status = eval.Pass
			}
			c := toolCoverage(r, requirements{mustCall: tt.mustCall, reference: tt.other, facts: tt.facts, claims: tt.claims})
			require.NotNil(t, c.ToolDetails)
			assert.Equal(t, tt.notApplicable, c.NotApplicable)
			assert.InDelta(t, tt.score, c.Score, 1e-4)
			assert.Equal(t, tt.missingTools, c.ToolDetails.MissingTools)
			assert.Equal(t, tt.missingFacts, c.ToolDetails.MissingFacts)
			assert.Len(t, c.ToolDetails.MissingRequirements, len(tt.missingTools)+len(tt.missingFacts))
			assert.Equal(t, []string{"get_gene_by_symbol", "get_clinvar_by_gene_symbol"}, c.ToolDetails.CalledTools)
		})
	}
}

func TestClassifyToolError(t *testing.T) {
	tests := []struct {
		msg  string
		want string
	}{
		{"context deadline exceeded", toolErrTimeout},
		{"504 Gateway toolErrTimeout", toolErrTimeout},
		{"HTTP 500: Internal Server Error", toolErrServer},
		{"dial tcp: connection refused", toolErrServer},
		{"Gene not found", toolErrNotFound},
		{"404 page", toolErrNotFound},
		{"tool 'get_genes' not found", toolErrNotFound},
		{"invalid arguments: missing required field 'chr'", toolErrInvalidArguments},
		{"position must be an integer", toolErrInvalidArguments},
		{"something odd happened", toolErrOther},
		// whole words only: "information" holds "format", "boundary" holds "bound".
		{"no information available for this boundary", toolErrOther},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, classifyToolError(tt.msg), tt.msg)
	}
}

func failedCall(name, msg string) eval.ToolCall {
	return eval.ToolCall{Name: name, IsError: true, Result: msg}
}

func TestToolRecovery(t *testing.T) {
	tests := []struct {
		name      string
		calls     []eval.ToolCall
		hasError  bool
		recovered bool
		qualities []float64
		successes int
		score     float64
	}{
		{name: "no error", calls: []eval.ToolCall{{Name: "a"}, {Name: "b"}}, score: 1},
		{name: "retried and recovered: one success in two attempts",
			calls:    []eval.ToolCall{failedCall("a", "invalid argument"), failedCall("a", "invalid argument"), {Name: "a"}},
			hasError: true, recovered: true, qualities: []float64{0.1, 1.0}, successes: 1,
			score: 0.5*0.5 + 0.3*0.55 + 0.2*2.0/3},
		{name: "error class changed, never recovered",
			calls:    []eval.ToolCall{failedCall("a", "invalid argument"), failedCall("a", "not found"), {Name: "b"}},
			hasError: true, qualities: []float64{0.5}, score: 0.3*0.5 + 0.2/3},
		// Upstream's port counted this as a successful recovery without an
		// attempt, so a run reported more successes than attempts.
		{name: "worked around without a retry: no attempt, no recovery",
			calls:    []eval.ToolCall{failedCall("a", "timeout"), {Name: "b"}},
			hasError: true, score: 0},
		{name: "two tools failed, one retried with success",
			calls:    []eval.ToolCall{failedCall("a", "500"), failedCall("b", "404"), {Name: "a"}},
			hasError: true, qualities: []float64{1.0}, successes: 1, score: 0.5 + 0.3 + 0.2/3},
		{name: "two tools failed, both retried with success",
			calls:    []eval.ToolCall{failedCall("a", "500"), failedCall("b", "404"), {Name: "b"}, {Name: "a"}},
			hasError: true, recovered: true, qualities: []float64{1.0, 1.0}, successes: 2, score: 0.5 + 0.3 + 0.2*2.0/3},
		{name: "unrecovered and not retried", calls: []eval.ToolCall{failedCall("a", "boom")},
			hasError: true, score: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := toolRecovery(tt.calls)
			assert.Equal(t, tt.hasError, r.HasError)
			assert.Equal(t, tt.recovered, r.RecoverySuccess)
			assert.InDelta(t, tt.score, r.RecoveryScore, 1e-4)
			require.Len(t, r.RecoveryDetails, len(tt.qualities))
			for i, q := range tt.qualities {
				assert.Equal(t, q, r.RecoveryDetails[i].FixQuality)
				assert.NotEmpty(t, r.RecoveryDetails[i].Tool)
			}
			assert.Equal(t, tt.successes, r.SuccessfulRecoveries)
			assert.LessOrEqual(t, r.SuccessfulRecoveries, r.RecoveryAttemptsCount, "successes are attempts")
			if r.RecoveryAttemptsCount > 0 {
				assert.InDelta(t, float64(tt.successes)/float64(r.RecoveryAttemptsCount), r.RecoverySuccessRate, 1e-4)
			}
		})
	}
	assert.Equal(t, "a: invalid argument", toolRecovery(tests[1].calls).ErrorMessage)
	assert.Equal(t, toolErrInvalidArguments, toolRecovery(tests[1].calls).ErrorClass)
}

func TestToolPerformance(t *testing.T) {
	tests := []struct {
		name                 string
		seconds              float64
		tokens, calls        int
		budget               eval.Budget
		timeS, tokenS, callS float64
	}{
		{name: "within default budget", seconds: 30, tokens: 20_000, calls: 8, timeS: 1, tokenS: 1, callS: 1},
		{name: "twice the default budget", seconds: 120, tokens: 40_000, calls: 16, timeS: 0.5, tokenS: 0.5, callS: 0.5},
		{name: "own budget", seconds: 20, tokens: 500, calls: 4, budget: eval.Budget{Seconds: 10, Tokens: 1000, ToolCalls: 1},
			timeS: 0.5, tokenS: 1, callS: 0.25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := toolPerformance(tt.seconds, tt.tokens, tt.calls, tt.budget)
			d := p.ToolDetails
			assert.Equal(t, tt.timeS, d.TimeScore)
			assert.Equal(t, tt.tokenS, d.TokenScore)
			assert.Equal(t, tt.callS, d.ToolCallScore)
			assert.InDelta(t, (tt.timeS+tt.tokenS+tt.callS)/3, p.Score, 1e-4)
		})
	}
	d := toolPerformance(1, 1, 1, eval.Budget{}).ToolDetails
	assert.Equal(t, eval.Budget{Seconds: eval.DefaultBudgetSeconds, Tokens: eval.DefaultBudgetTokens, ToolCalls: eval.DefaultBudgetToolCalls}, d.Budget)
}

// ScoreTool reads everything from the case and the record: expected tools
// from must_call and the reference, facts from contains, the budget, and
// arguments whether or not they are JSON.
func TestScoreToolReadsCaseAndRecord(t *testing.T) {
	c := eval.Case{
		Tools:     eval.ToolExpect{MustCall: []string{"get_gnomad_variant"}},
		Reference: []eval.RefCall{{Tool: "liftover_hg19_to_hg38"}, {Tool: "get_gene_by_symbol", ExpectError: true}},
		Checks:    eval.Checks{Contains: eval.Terms{{Any: []string{"0 times"}}, {Any: []string{"v4.1"}}}},
		Budget:    eval.Budget{Tokens: 617},
	}
	r := eval.Record{
		Question: "Is Chr9:99694174 C>T in gnomAD?",
		Response: "It is found 0 times.",
		Status:   eval.Pass,
		Seconds:  3.5,
		Usage:    eval.Usage{TotalTokens: 1234},
		ToolCalls: []eval.ToolCall{
			{Name: "get_gnomad_variant", Arguments: `{"chr":"9","pos":99694174}`, Result: "upstream 503", IsError: true},
			{Name: "get_gnomad_variant", Arguments: `not json chr9:99694174`, Result: `{"ok":1}`, DurationMS: 12},
		},
	}
	m := ScoreTool(c, r)
	assert.Equal(t, 1.0, m.PromptUnderstanding.Score, "both the JSON and the raw arguments carry the position")
	assert.True(t, m.ErrorRecovery.RecoverySuccess)
	assert.Equal(t, toolErrServer, m.ErrorRecovery.ErrorClass)
	assert.Equal(t, "get_gnomad_variant: upstream 503", m.ErrorRecovery.ErrorMessage)
	assert.Equal(t, []string{"liftover_hg19_to_hg38"}, m.RequirementCoverage.ToolDetails.MissingTools,
		"expected: must_call and reference calls not expected to fail, the facts not reached otherwise")
	assert.Equal(t, []string{"v4.1"}, m.RequirementCoverage.ToolDetails.MissingFacts)
	assert.Equal(t, 617, m.Performance.ToolDetails.Budget.Tokens)
	assert.InDelta(t, 617.0/1234, m.Performance.ToolDetails.TokenScore, 1e-9)
	assert.Equal(t, 1.0, m.Correctness.Score)
}

// call is a tool call with JSON arguments.
func withResult(c eval.ToolCall, result string) eval.ToolCall {
	c.Result = result
	return c
}

func withError(c eval.ToolCall) eval.ToolCall {
	c.IsError = true
	return c
}

func call(name string, args map[string]any) eval.ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return eval.ToolCall{Name: name, Arguments: string(b)}
}
