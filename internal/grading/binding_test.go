package grading

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
