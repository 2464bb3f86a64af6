package grading

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// A term or value bound to a subject (of) holds only where the answer
// gives it to that subject: by naming it beside the value, or, when the
// answer names no subject at all, because the question asked about that
// subject alone.
func TestBindingToTheAskedSubject(t *testing.T) {
	tests := []struct {
		name, question, answer, want string
	}{
		{"named beside the value", "Is the BRCA1 variant pathogenic?", "The BRCA1 variant is pathogenic.", "pass"},
		{"the question names it alone", "Is the BRCA1 variant pathogenic?", "The variant is pathogenic.", "pass"},
		{"named elsewhere in the answer", "Is the variant pathogenic?", "BRCA1 carries it. The variant is pathogenic.", "pass"},
		{"given to another subject", "Is the BRCA1 variant pathogenic?", "The TP53 variant is pathogenic.", "fail"},
		{"no subject named anywhere", "Is the variant pathogenic?", "The variant is pathogenic.", "undecided"},
		{"the question names two", "Which of the BRCA1 and TP53 variants is pathogenic?", "The variant is pathogenic.", "undecided"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := parseOne(t, "checks:", "  contains: [{term: pathogenic, of: BRCA1, not_of: [TP53]}]")
			c.Input = tt.question
			c.Expected = "The BRCA1 variant is pathogenic."
			got := CheckAnswer(c, tt.answer)
			require.Len(t, got, 1)
			assert.Equal(t, tt.want, outcomeOf(got[0]), got[0].Detail)
		})
	}
}

// An unknown name where a name was expected is a rival, and the answer
// fails, when it stands alone; in a list of names it may be another name
// of the expected one (EBP50 is NHERF1), and the checks are not sure.
func TestRivalNames(t *testing.T) {
	c := parseOne(t, "checks:", "  contains: [NHERF1]")
	c.Input = "Which protein does STRING link to CFTR most strongly?"
	c.Expected = "NHERF1 is CFTR's strongest STRING partner."
	tests := []struct{ answer, want string }{
		{"NHERF1 is CFTR's strongest STRING partner.", "pass"},
		{"STX1A is CFTR's strongest STRING partner.", "fail"},
		{"STRING links CFTR to EBP50, GOPC and SLC26A3.", "undecided"},
	}
	for _, tt := range tests {
		got := CheckAnswer(c, tt.answer)
		require.Len(t, got, 1)
		assert.Equal(t, tt.want, outcomeOf(got[0]), "%s: %s", tt.answer, got[0].Detail)
	}
}

// The reference run holds a case's terms against the tool results: each
// found as a whole word in some result, or missing; terms the question
// gives, absences, numbers and derived words are not looked for.
func TestTermFacts(t *testing.T) {
	checks := eval.Checks{Contains: eval.Terms{
		{Any: []string{"pathogenic"}},
		{Any: []string{"Rett", "Rett syndrome"}},
		{Any: []string{"no fly ortholog"}},
		{Any: []string{"MECP2"}},
		{Any: []string{"8.103"}},
		{Any: []string{"higher"}},
		{Any: []string{"benign"}},
		{Any: []string{"path"}},
	}}
	results := []string{`{"gene":"MECP2","clinicalSignificance":"Pathogenic","condition":"Rett syndrome","note":"nonbenign; pathway"}`}
	got := TermFacts(checks, "How is MECP2 c.473C>T classified?", results, nil)
	assert.Equal(t, []eval.Fact{
		{Fact: "pathogenic", Status: eval.FactFound},
		{Fact: "Rett", Status: eval.FactFound},
		{Fact: "benign", Status: eval.FactMissing},
		{Fact: "path", Status: eval.FactMissing},
	}, got)

	checks.Substring = true
	got = TermFacts(checks, "How is MECP2 c.473C>T classified?", results, nil)
	assert.Equal(t, eval.FactFound, got[2].Status, "with substring: true, inside a word too")
	assert.Equal(t, eval.FactFound, got[3].Status)
}

// An aside right after a value names its owner ("672 (BRCA1)") unless it
// states a value of its own ("672 (BRCA2, for reference, is 675)").
func TestAsidesThatNameAnOwner(t *testing.T) {
	tests := []struct{ answer, want string }{
		{"Entrez IDs: TP53 is 7157 and BRCA1 is 672 (BRCA2, for reference, is 675).", "pass"},
		{"Entrez IDs: TP53 is 7157 and 672 (BRCA2).", "fail"},
	}
	for _, tt := range tests {
		c := parseOne(t, "checks:", "  numbers: [{value: 672, of: BRCA1}]")
		c.Input = "What are the Entrez IDs of TP53 and BRCA1?"
		c.Expected = tt.answer // every word accounted for
		got := CheckAnswer(c, tt.answer)
		require.Len(t, got, 1)
		assert.Equal(t, tt.want, outcomeOf(got[0]), "%s: %s", tt.answer, got[0].Detail)
	}
}
