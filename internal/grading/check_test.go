package grading

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/evalcase"
)

// parseOne loads a single case from YAML lines given after the required
// fields, so checks see the values the YAML decoder really produces.
func parseOne(t *testing.T, extra ...string) eval.Case {
	t.Helper()
	cases, err := evalcase.Parse("check.yaml", []byte(caseYAML("c", extra...)))
	require.NoError(t, err)
	require.Len(t, cases, 1)
	return cases[0]
}

func TestCheckAnswerText(t *testing.T) {
	tests := []struct {
		name   string
		checks []string // YAML lines under `checks:`
		answer string
		want   []string
	}{
		{"contains ignores case", []string{`contains: ["NUTM2G"]`}, "The gene is nutm2g.", []string{"pass"}},
		{"contains lower in upper answer", []string{`contains: ["nutm2g"]`}, "NUTM2G", []string{"pass"}},
		{"contains missing", []string{`contains: ["NUTM2G"]`}, "The gene is NUTM2.", []string{"fail"}},
		{"each contains is one check", []string{`contains: ["NUTM2G", "benign"]`}, "NUTM2G is Benign", []string{"pass", "pass"}},
		{"not_contains ignores case", []string{`not_contains: ["BRCA1"]`}, "unrelated to brca1", []string{"fail"}},
		{"not_contains absent", []string{`not_contains: ["BRCA1"]`}, "NUTM2G", []string{"pass"}},
		{"regexp matches", []string{`regexp: ['p\.(P63S|Pro63Ser)']`}, "The change is p.Pro63Ser.", []string{"pass"}},
		{"regexp is case-sensitive", []string{`regexp: ['p\.P63S']`}, "P.p63s", []string{"fail"}},
		{"regexp with (?i)", []string{`regexp: ['(?i)p\.P63S']`}, "P.p63s", []string{"pass"}},
		{"regexp dot is escaped", []string{`regexp: ['^8\.103$']`}, "81103", []string{"fail"}},
		{
			"all kinds in order",
			[]string{`contains: [a]`, `not_contains: [z]`, `regexp: ['\d']`, `numbers: [{value: 1}]`},
			"a 1", []string{"pass", "pass", "pass", "pass"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseOne(t, append([]string{"checks:"}, indent(tt.checks)...)...)
			c.Expected = tt.answer // every word accounted for: these read the matching alone
			got := CheckAnswer(c, tt.answer)
			require.Len(t, got, len(tt.want))
			for i, r := range got {
				assert.Equal(t, tt.want[i], outcomeOf(r), "%s: %s", r.Check, r.Detail)
				assert.NotEmpty(t, r.Check)
				if r.Passed {
					assert.Empty(t, r.Detail)
				} else {
					assert.NotEmpty(t, r.Detail, "a failed check says why")
				}
			}
		})
	}
}

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return out
}

func TestCheckAnswerNames(t *testing.T) {
	c := parseOne(t, "checks:", `  contains: ["NUTM2G"]`, `  not_contains: ["BRCA1"]`, `  regexp: ['p\.P63S']`,
		"  numbers: [{value: 8.103, tolerance: 0.001}]")
	got := CheckAnswer(c, "nothing")
	assert.Equal(t, []eval.CheckResult{
		{Check: `contains "NUTM2G"`, Passed: false, Detail: "not found in the answer"},
		{Check: `not_contains "BRCA1"`, Passed: true},
		{Check: `regexp "p\\.P63S"`, Passed: false, Detail: "no match in the answer"},
		{Check: "number 8.103 ± 0.001", Passed: false, Detail: "no such number in the answer"},
	}, got)
}

func TestCheckAnswerNumbers(t *testing.T) {
	tests := []struct {
		answer    string
		value     float64
		tolerance float64
		passed    bool
	}{
		{"There are 1,234.5 reads.", 1234.5, 0, true},
		{"There are 1,234,567 reads.", 1234567, 0, true},
		{"The change is -2.5 units.", -2.5, 0, true},
		{"The change is -2.5 units.", 2.5, 0, false},
		{"The change is −0.35 (U+2212).", -0.35, 0, true},
		{`{"oe_lof": 0.35, "pli": 0}`, 0.35, 0, true},
		{`{"gnomad":{"oe_lof":0.35}}`, 0.35, 0.001, true},
		{`{"cadd_phred": 8.103}`, 8.1, 0.001, false},
		{`{"cadd_phred": 8.103}`, 8.1, 0.003, true},
		{`{"cadd_phred": 8.103}`, 8.103, 0, true},
		{"CADD phred is 8.1", 8.103, 0.001, false},
		{"Chr9:99694174 C>T", 99694174, 0, true},
		{"chr9-99694174", 99694174, 0, true},
		{"NM_001045477.4:c.187C>T", 187, 0, true},
		{"NM_001045477.4:c.187C>T", 0.187, 0, false},
		{`"positions": [1,234]`, 234, 0, true},
		{`"positions": [100,200,300]`, 200, 0, true},
		{`"scores": [0.5,0.25]`, 0.25, 0, true},
		{"p = 1e-3", 0.001, 0, true},
		{"about .5 of them", 0.5, 0, true},
		{"the value is 1000000.1", 1000000.1, 0, true},
		{"Yes, NUTM2G has 99 reported variants in ClinVar.", 99, 0, true},
		{"Yes, NUTM2G has 99 reported variants in ClinVar.", 98, 0.5, false},
		{"NUTM2G", 2, 0, true}, // digits inside identifiers count too
		{"no numbers here", 0, 100, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			c := eval.Case{Expected: tt.answer, Checks: eval.Checks{Numbers: []eval.NumberCheck{{Value: tt.value, Tolerance: tt.tolerance}}}}
			got := CheckAnswer(c, tt.answer)
			require.Len(t, got, 1)
			assert.Equal(t, tt.passed, got[0].Passed, "%v ± %v in %q (numbers found: %v)", tt.value, tt.tolerance, tt.answer, Numbers(tt.answer))
		})
	}
}

func TestCheckAnswerInvalidRegexpBuiltInCode(t *testing.T) {
	c := eval.Case{Checks: eval.Checks{Regexp: []string{"("}}}
	var got []eval.CheckResult
	require.NotPanics(t, func() { got = CheckAnswer(c, "anything") })
	require.Len(t, got, 1)
	assert.False(t, got[0].Passed)
	assert.Contains(t, got[0].Detail, "missing closing )")
}

func TestCheckTools(t *testing.T) {
	dbnsfp := eval.ToolCall{Name: "get_variant_dbnsfp", Arguments: `{"chr": "9", "pos": 99694174, "ref": "C", "alt": "T"}`}
	convert := eval.ToolCall{Name: "convert_hgvs_to_genomic", Arguments: `{"hgvs_variant": "NM_001045477.4:c.187C>T"}`}
	tests := []struct {
		name  string
		tools []string // YAML lines under `tools:`
		calls []eval.ToolCall
		want  []string
	}{
		{"must_call made", []string{"must_call: [convert_hgvs_to_genomic]"}, []eval.ToolCall{convert}, []string{"pass"}},
		{"must_call missing", []string{"must_call: [convert_hgvs_to_genomic]"}, []eval.ToolCall{dbnsfp}, []string{"fail"}},
		{"must_call no calls", []string{"must_call: [convert_hgvs_to_genomic]"}, nil, []string{"fail"}},
		{"must_call is exact on tool names", []string{"must_call: [Convert_HGVS_To_Genomic]"}, []eval.ToolCall{convert}, []string{"fail"}},
		{"must_not_call absent", []string{"must_not_call: [search_pubmed]"}, []eval.ToolCall{convert}, []string{"pass"}},
		{"must_not_call made", []string{"must_not_call: [search_pubmed]"}, []eval.ToolCall{convert, {Name: "search_pubmed", Arguments: "{}"}}, []string{"fail"}},
		{
			"args subset, number sent for a string",
			[]string{"args:", "  - tool: get_variant_dbnsfp", `    args: {chr: "9", pos: "99694174"}`},
			[]eval.ToolCall{convert, dbnsfp}, []string{"pass"},
		},
		{
			"args subset, string sent for a YAML integer",
			[]string{"args:", "  - tool: get_variant_dbnsfp", "    args: {chr: 9, pos: 99694174}"},
			[]eval.ToolCall{{Name: "get_variant_dbnsfp", Arguments: `{"chr": "9", "pos": "99694174"}`}}, []string{"pass"},
		},
		{
			"args strings ignore case and surrounding space",
			[]string{"args:", "  - tool: get_gene_by_symbol", "    args: {gene_symbol: NUTM2G}"},
			[]eval.ToolCall{{Name: "get_gene_by_symbol", Arguments: `{"gene_symbol": " nutm2g "}`}}, []string{"pass"},
		},
		{
			"args floats and booleans",
			[]string{"args:", "  - tool: t", "    args: {score: 0.5, strict: true}"},
			[]eval.ToolCall{{Name: "t", Arguments: `{"score": 0.50, "strict": "TRUE"}`}}, []string{"pass"},
		},
		{
			"args nested values",
			[]string{"args:", "  - tool: t", "    args: {filter: {gene: NUTM2G, min: 1}}"},
			[]eval.ToolCall{{Name: "t", Arguments: `{"filter": {"min": 1, "gene": "nutm2g"}}`}}, []string{"pass"},
		},
		{
			"args wrong value",
			[]string{"args:", "  - tool: get_variant_dbnsfp", `    args: {chr: "9", pos: "99694175"}`},
			[]eval.ToolCall{dbnsfp}, []string{"fail"},
		},
		{
			"args missing key",
			[]string{"args:", "  - tool: get_variant_dbnsfp", `    args: {build: hg19}`},
			[]eval.ToolCall{dbnsfp}, []string{"fail"},
		},
		{
			"args right values, other tool",
			[]string{"args:", "  - tool: get_variant_annotation", `    args: {chr: "9"}`},
			[]eval.ToolCall{dbnsfp}, []string{"fail"},
		},
		{
			"args exact with extra argument",
			[]string{"args:", "  - tool: get_variant_dbnsfp", `    args: {chr: "9", pos: "99694174"}`, "    exact: true"},
			[]eval.ToolCall{dbnsfp}, []string{"fail"},
		},
		{
			"args exact equal",
			[]string{"args:", "  - tool: get_variant_dbnsfp", `    args: {chr: "9", pos: 99694174, ref: C, alt: T}`, "    exact: true"},
			[]eval.ToolCall{dbnsfp}, []string{"pass"},
		},
		{
			"args matched by a later call",
			[]string{"args:", "  - tool: get_variant_dbnsfp", `    args: {pos: "99694174"}`},
			[]eval.ToolCall{{Name: "get_variant_dbnsfp", Arguments: `{"pos": 1}`}, dbnsfp}, []string{"pass"},
		},
		{"max_calls within", []string{"max_calls: 2"}, []eval.ToolCall{convert, dbnsfp}, []string{"pass"}},
		{"max_calls exceeded", []string{"max_calls: 1"}, []eval.ToolCall{convert, dbnsfp}, []string{"fail"}},
		{"no expectations", nil, []eval.ToolCall{convert}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra := []string{}
			if tt.tools != nil {
				extra = append([]string{"tools:"}, indent(tt.tools)...)
			}
			c := parseOne(t, extra...)
			got := CheckTools(c, tt.calls)
			require.Len(t, got, len(tt.want))
			for i, r := range got {
				assert.Equal(t, tt.want[i], outcomeOf(r), "%s: %s", r.Check, r.Detail)
				if !r.Passed {
					assert.NotEmpty(t, r.Detail)
				}
			}
		})
	}
}

func TestCheckToolsNames(t *testing.T) {
	c := parseOne(t, "tools:", "  must_call: [a]", "  must_not_call: [b]", "  args: [{tool: a, args: {x: 1}, exact: true}]", "  max_calls: 1")
	got := CheckTools(c, []eval.ToolCall{{Name: "a", Arguments: `{"x": 1}`}, {Name: "b", Arguments: `{}`}})
	assert.Equal(t, []eval.CheckResult{
		{Check: "must_call a", Passed: true},
		{Check: "must_not_call b", Passed: false, Detail: "was called"},
		{Check: `args a {"x":1} (exact)`, Passed: true},
		{Check: "max_calls 1", Passed: false, Detail: "2 calls made"},
	}, got)
}

func TestCheckToolsMalformedArguments(t *testing.T) {
	c := parseOne(t, "tools:", "  args:", "    - tool: t", `      args: {chr: "9"}`)
	for _, args := range []string{
		``, `{`, `{"chr": "9"`, `null`, `[]`, `["chr", "9"]`, `"chr=9"`, `9`, `{"chr": }`,
		`{"chr": "9"} trailing`, "\x00\xff", `{"chr": {"nested": "9"}}`, `{"chr": ["9"]}`, `{"CHR": "9"}`,
	} {
		t.Run(args, func(t *testing.T) {
			var got []eval.CheckResult
			require.NotPanics(t, func() { got = CheckTools(c, []eval.ToolCall{{Name: "t", Arguments: args}}) })
			require.Len(t, got, 1)
			assert.False(t, got[0].Passed, "arguments %q must not match", args)
		})
	}
	// A well-formed call after malformed ones still matches.
	got := CheckTools(c, []eval.ToolCall{{Name: "t", Arguments: `{`}, {Name: "t", Arguments: `{"chr": 9}`}})
	assert.True(t, got[0].Passed)
}

func TestFailed(t *testing.T) {
	checks := []eval.CheckResult{
		{Check: "a", Passed: true},
		{Check: "b", Passed: false, Detail: "x"},
		{Check: "c", Passed: true},
		{Check: "d", Passed: false, Detail: "y"},
	}
	assert.Equal(t, []eval.CheckResult{checks[1], checks[3]}, Failed(checks))
	assert.Empty(t, Failed(checks[:1]))
	assert.Empty(t, Failed(nil))

	// End to end: an answer and calls that satisfy some checks only.
	c := parseOne(t, "checks: {contains: [NUTM2G, BRCA1]}", "tools: {must_call: [convert_hgvs_to_genomic]}")
	all := append(CheckAnswer(c, "NUTM2G"), CheckTools(c, nil)...)
	failed := Failed(all)
	require.Len(t, failed, 2)
	assert.Equal(t, `contains "BRCA1"`, failed[0].Check)
	assert.Equal(t, "must_call convert_hgvs_to_genomic", failed[1].Check)
}

// A call that never reached a server (bad JSON, unknown tool, too many in a
// turn) is an attempt, not a use of the tool.
func TestToolChecksIgnoreCallsThatNeverRan(t *testing.T) {
	c := eval.Case{Tools: eval.ToolExpect{
		MustCall:    []string{"get_gene_by_symbol"},
		MustNotCall: []string{"search_pubmed"},
		Args:        []eval.ArgMatch{{Tool: "get_gene_by_symbol", Args: map[string]any{"gene_symbol": "NUTM2G"}}},
		MaxCalls:    1,
	}}
	calls := []eval.ToolCall{
		{Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"NUTM2G"}`, NotRun: true},
		{Name: "search_pubmed", Arguments: `{`, NotRun: true},
	}
	got := map[string]eval.CheckResult{}
	for _, r := range CheckTools(c, calls) {
		got[r.Check] = r
	}
	assert.False(t, got["must_call get_gene_by_symbol"].Passed)
	assert.Contains(t, got["must_call get_gene_by_symbol"].Detail, "never run")
	assert.False(t, got["must_not_call search_pubmed"].Passed, "an attempted forbidden call still counts")
	assert.False(t, got[`args get_gene_by_symbol {"gene_symbol":"NUTM2G"}`].Passed)
	assert.False(t, got["max_calls 1"].Passed, "attempts count toward max_calls")
}

func TestExpectedError(t *testing.T) {
	c := eval.Case{Reference: []eval.RefCall{
		{Tool: "get_gene_by_symbol", Args: map[string]any{"gene_symbol": "NOTAGENE"}, ExpectError: true},
		{Tool: "get_gene_by_symbol", Args: map[string]any{"gene_symbol": "TP53"}},
	}}
	failed := func(name, args string) eval.ToolCall {
		return eval.ToolCall{Name: name, Arguments: args, IsError: true}
	}
	tests := []struct {
		name string
		call eval.ToolCall
		want bool
	}{
		{"the expected failure, arguments compared loosely", failed("get_gene_by_symbol", `{"gene_symbol":"notagene ","extra":1}`), true},
		{"other arguments", failed("get_gene_by_symbol", `{"gene_symbol":"TP53"}`), false},
		{"another tool", failed("get_gene_by_id", `{"gene_symbol":"NOTAGENE"}`), false},
		{"not an error", eval.ToolCall{Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"NOTAGENE"}`}, false},
		{"never run", eval.ToolCall{Name: "get_gene_by_symbol", Arguments: `{"gene_symbol":"NOTAGENE"}`, IsError: true, NotRun: true}, false},
		{"arguments that are not JSON", failed("get_gene_by_symbol", `{"gene_symbol":`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, ExpectedError(c, tt.call))
		})
	}
}
