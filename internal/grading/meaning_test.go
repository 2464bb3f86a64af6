package grading

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Checks mean what they say: whole words, units, negative patterns, and no
// evidence taken from the question repeated in the answer.
func TestChecksMeanWhatTheySay(t *testing.T) {
	tests := []struct {
		name     string
		question string
		checks   []string // YAML lines under `checks:`
		answer   string
		want     []string
	}{
		{"whole word found", "", []string{`contains: [pathogenic]`}, "It is Pathogenic.", []string{"pass"}},
		{"inside a longer word", "", []string{`contains: [pathogenic]`}, "It is nonpathogenic.", []string{"fail"}},
		{"hyphen ends a word", "", []string{`contains: [Rett]`}, "Rett-like features", []string{"pass"}},
		{"digits inside a longer number", "", []string{`contains: ["10,452"]`}, "110,452 homozygotes", []string{"fail"}},
		{"digits as the number", "", []string{`contains: ["10,452"]`}, "10,452 homozygotes", []string{"pass"}},
		{"gene symbol inside a longer symbol", "", []string{`contains: [Nutm2]`}, "The ortholog is Nutm2f.", []string{"fail"}},
		{"phrase across a line break", "", []string{`contains: ["likely benign"]`}, "likely\n  benign", []string{"pass"}},
		{"phrase ending in punctuation", "", []string{`contains: ["p.P63S)"]`}, "change (p.P63S)", []string{"pass"}},
		{"identifier with colon", "", []string{`contains: ["HP:0001878"]`}, `"id":"HP:0001878"`, []string{"pass"}},
		{"identifier prefix of a longer one", "", []string{`contains: ["HP:000187"]`}, `HP:0001878`, []string{"fail"}},
		{"substring asked for", "", []string{`contains: [pathogenic]`, `substring: true`}, "nonpathogenic", []string{"pass"}},
		{"not_contains is whole-word too", "", []string{`not_contains: [tolerant]`}, "intolerant", []string{"pass"}},
		{"not_contains substring", "", []string{`not_contains: [tolerant]`, `substring: true`}, "intolerant", []string{"fail"}},
		{"not_regexp absent", "", []string{`not_regexp: ['(?i)\bnot\s+pathogenic']`}, "Pathogenic for Rett syndrome", []string{"pass"}},
		{"not_regexp present", "", []string{`not_regexp: ['(?i)\bnot\s+pathogenic']`}, "It is not pathogenic.", []string{"fail"}},
		{"unit attached", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: TPM}]`}, "63.18 TPM in pancreas", []string{"pass"}},
		{"unit attached without space", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: TPM}]`}, "63.18TPM", []string{"pass"}},
		{"unit in parentheses", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: TPM}]`}, "pancreas, 63.18 (TPM)", []string{"pass"}},
		{"unit spelled out", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: [TPM, transcripts per million]}]`}, "63.18 transcripts  per million", []string{"pass"}},
		{"other unit attached", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: TPM}]`}, "63.18 RPKM (not TPM)", []string{"fail"}},
		{"bare number, unit named elsewhere", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: TPM}]`}, "median TPM: pancreas 63.18", []string{"pass"}},
		{"bare number, unit in JSON", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: TPM}]`}, `{"unit":"median TPM","data":{"Pancreas":63.18}}`, []string{"pass"}},
		{"bare number, no unit anywhere", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: TPM}]`}, "pancreas: 63.18", []string{"fail"}},
		{"number followed by a plain word", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: TPM}]`}, "63.18 in the pancreas (TPM)", []string{"pass"}},
		{"percent", "", []string{`numbers: [{value: 1.7, tolerance: 0.05, unit: ["%", percent]}]`}, "about 1.7% of alleles", []string{"pass"}},
		{"percent spelled out", "", []string{`numbers: [{value: 1.7, tolerance: 0.05, unit: ["%", percent]}]`}, "about 1.7 percent", []string{"pass"}},
		{"fraction is not percent", "", []string{`numbers: [{value: 1.7, tolerance: 0.05, unit: ["%", percent]}]`}, "frequency 1.7 per thousand", []string{"fail"}},
		{"none as an item of a list", "", []string{`contains: [Drama, Comedy]`}, "Genres: None, Drama, Comedy", []string{"pass", "pass"}},
		{"unit on another number only", "", []string{`numbers: [{value: 63.18, tolerance: 0.005, unit: TPM}]`}, "63.18 RPKM, 6.12 TPM", []string{"fail"}},
		{
			"question echoed back", "Is Chr9:99694174 C>T present in gnomAD?",
			[]string{`regexp: ['(?i)present']`}, "Is Chr9:99694174 C>T present in gnomAD?", []string{"fail"},
		},
		{
			"question echoed back fails negative checks too", "Is Chr9:99694174 C>T present in gnomAD?",
			[]string{`not_contains: [absent]`, `not_regexp: [xyz]`}, "  is chr9:99694174 c>t PRESENT in gnomAD ", []string{"fail", "fail"},
		},
		{
			"echo plus a real answer", "Is Chr9:99694174 C>T present in gnomAD?",
			[]string{`regexp: ['(?i)present']`}, "Is Chr9:99694174 C>T present in gnomAD? Yes, it is present: 4 alleles.", []string{"pass"},
		},
		{
			"echo plus a non-answer", "Is Chr9:99694174 C>T present in gnomAD?",
			[]string{`regexp: ['(?i)present']`}, "You asked: is Chr9:99694174 C>T present in gnomAD. I cannot tell.", []string{"fail"},
		},
		{
			"a term of the question repeated in a real answer", "Which tissue expresses NUTM2G the most according to GTEx?",
			[]string{`contains: [NUTM2G]`}, "NUTM2G is most expressed in the testis.", []string{"pass"},
		},
		{
			"negation inside the echo does not count", "How many alleles are pathogenic (not likely pathogenic) in ClinVar?",
			[]string{`not_regexp: ['(?i)likely pathogenic']`, `numbers: [{value: 33}]`},
			"How many alleles are pathogenic (not likely pathogenic) in ClinVar? 33.", []string{"pass", "pass"},
		},
		{
			"numbers of the question are no evidence", "What is the hg38 position of chr9:99694174 on chromosome 9?",
			[]string{`numbers: [{value: 99694174}]`}, "the hg38 position of chr9:99694174 on chromosome 9 is unknown", []string{"fail"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseOne(t, append([]string{"checks:"}, indent(tt.checks)...)...)
			c.Input = tt.question
			c.Expected = tt.answer // every word accounted for: these read the matching alone
			got := CheckAnswer(c, tt.answer)
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

// A predicate may deny every item of a list before it; a negator standing
// as an item of a list denies nothing.
func TestListsAndTheirPredicate(t *testing.T) {
	c := parseOne(t, "checks:", "  contains: [Drama, Comedy]")
	c.Input = "Which genres stand out by count? Rank them."
	c.Expected = "1. Drama (10), 2. Comedy (8)"
	tests := []struct {
		answer string
		want   []string
	}{
		{"1. Drama (10), 2. Comedy (8)", []string{"pass", "pass"}},
		{"Genres: None, Drama, Comedy", []string{"pass", "pass"}},
		{"None, Drama, Comedy", []string{"pass", "pass"}},
		{"Drama and Comedy are absent.", []string{"fail", "fail"}},
		{"Drama, Comedy are absent.", []string{"undecided", "fail"}},
		{"Genres: none (Drama, Comedy are absent)", []string{"undecided", "fail"}},
		{"Drama: none. Comedy: none.", []string{"undecided", "undecided"}},
	}
	for _, tt := range tests {
		got := CheckAnswer(c, tt.answer)
		require.Len(t, got, len(tt.want))
		for i, r := range got {
			assert.Equal(t, tt.want[i], outcomeOf(r), "%q, %s: %s", tt.answer, r.Check, r.Detail)
		}
	}
}

// A comma that opens a clause of its own, or a contrast, lists nothing:
// the negation after it denies no item before it.
func TestCommasThatListNothing(t *testing.T) {
	for _, answer := range []string{"The gene is BRCA1, not BRCA2.", "BRCA1, which is not rare, leads."} {
		c := parseOne(t, "checks:", "  contains: [BRCA1]")
		c.Expected = answer // every word accounted for
		got := CheckAnswer(c, answer)
		require.Len(t, got, 1)
		assert.Equal(t, "pass", outcomeOf(got[0]), "%s: %s", answer, got[0].Detail)
	}
}

func TestCheckNamesSayWhatIsChecked(t *testing.T) {
	c := parseOne(t, "checks:", `  contains: [a]`, `  substring: true`, `  not_regexp: ['b+']`,
		`  numbers: [{value: 63.18, tolerance: 0.005, unit: [TPM, transcripts per million]}]`)
	c.Expected = "a bbb 63.18 RPKM"
	got := CheckAnswer(c, "a bbb 63.18 RPKM")
	assert.Equal(t, []eval.CheckResult{
		{Check: `contains "a" (substring)`, Passed: true},
		{Check: `not_regexp "b+"`, Passed: false, Detail: `matches "bbb" in the answer`},
		{Check: "number 63.18 ± 0.005 TPM or transcripts per million", Passed: false, Detail: `no such number in "TPM" in the answer`},
	}, got)
	echo := CheckAnswer(eval.Case{Input: "Is it a, b or c today?", Checks: eval.Checks{Contains: eval.Terms{{Any: []string{"a"}}}}}, "is it a, b or c today")
	assert.Equal(t, []eval.CheckResult{{Check: `contains "a"`, Detail: "the answer only repeats the question"}}, echo)
}

func TestWithoutEcho(t *testing.T) {
	q := "What is the CADD phred score for the variant NM_001045477.4:c.187C>T?"
	tests := []struct {
		answer, want string
		onlyEcho     bool
	}{
		{"8.103", "8.103", false},
		{q, "\n", true},
		{"The CADD phred score for the variant NM_001045477.4:c.187C>T is 8.103.", "\n is 8.103.", false},
		{"CADD phred score: 8.103", "CADD phred score: 8.103", false},                                                                 // four words only
		{"what IS the cadd PHRED score?!", "\n", true},                                                                                // case and punctuation do not matter
		{"score for the variant NM_001045477.4:c.187C>T — unknown", "score for the variant NM_001045477.4:c.187C>T — unknown", false}, // half the question is a restatement
		{"the CADD phred score for the variant is 8.103", "\n is 8.103", false},                                                       // six words, 60% of the question
		{"", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			got, only := withoutEcho(q, tt.answer)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.onlyEcho, only)
		})
	}
	short := "Gene of rs28934906?"
	got, only := withoutEcho(short, "Gene of rs28934906: MECP2")
	assert.Equal(t, "\n MECP2", got, "a question shorter than five words is an echo when repeated whole")
	assert.False(t, only)
	got, _ = withoutEcho("Is there an interaction between NUTM2G and MECP2 in STRING?", "No. STRING has no interaction between NUTM2G and MECP2.")
	assert.Equal(t, "No. STRING has no interaction between NUTM2G and MECP2.", got, "a restatement of part of the question is the answer's own")
	two := "Tell me about the variant NM_001045477.4:c.187C>T. According to REVEL, how is this variant classified?"
	got, only = withoutEcho(two, "According to REVEL, how is this variant classified? Benign, 0.027.")
	assert.Equal(t, "\n Benign, 0.027.", got, "a whole sentence of the question is an echo")
	assert.False(t, only)
	got, _ = withoutEcho("", "anything")
	assert.Equal(t, "anything", got)
	big := strings.Repeat("word ", 200_000)
	require.NotPanics(t, func() { withoutEcho(q, big) })
}
