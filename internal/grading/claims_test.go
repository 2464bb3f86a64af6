package grading

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// A judge's verdicts on claims must fit the answer: a claim said to be
// made is quoted from the answer, and a claim that states values is quoted
// where the answer gives one of them.
func TestClaimVerdictsFitTheAnswer(t *testing.T) {
	claims := []eval.Claim{{Text: "The average profit for the first five weeks was $6,446.20."}, {Text: "The store sells pet food."}}
	answer := "The first five weeks averaged $6,446.20 in profit. Pet food is its main line."
	tests := []struct {
		name, args, want string // want: the verdicts, or "unclear"
	}{
		{"quoted", `{"claims":[{"claim":1,"verdict":"fulfilled","reason":"r","quote":"The first five weeks averaged $6,446.20 in profit."},{"claim":2,"verdict":"fulfilled","reason":"r","quote":"Pet food is its main line."}]}`, "fulfilled fulfilled"},
		{"a claim not made quotes nothing", `{"claims":[{"claim":1,"verdict":"not","reason":"r","quote":""},{"claim":2,"verdict":"partial","reason":"r","quote":"Pet food"}]}`, "not partial"},
		{"fulfilled without a quote", `{"claims":[{"claim":1,"verdict":"fulfilled","reason":"r","quote":""},{"claim":2,"verdict":"fulfilled","reason":"r","quote":"Pet food"}]}`, "unclear"},
		{"a quote not in the answer", `{"claims":[{"claim":1,"verdict":"fulfilled","reason":"r","quote":"averaged $6,446.20"},{"claim":2,"verdict":"fulfilled","reason":"r","quote":"Dog food"}]}`, "unclear"},
		{"a quote without the claim's value", `{"claims":[{"claim":1,"verdict":"fulfilled","reason":"r","quote":"in profit"},{"claim":2,"verdict":"fulfilled","reason":"r","quote":"Pet food"}]}`, "unclear"},
		{"a verdict missing", `{"claims":[{"claim":1,"verdict":"fulfilled","reason":"r","quote":"$6,446.20"}]}`, "unclear"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := eval.Message{Role: "assistant", ToolCalls: []eval.MessageToolCall{{ID: "a", Type: "function",
				Function: eval.FunctionCall{Name: claimsTool, Arguments: tt.args}}}}
			vs, why := parseClaims(m, len(claims), graded{question: "How did the pet store do?", answer: answer}, claims)
			if tt.want == "unclear" {
				assert.NotEmpty(t, why)
				assert.Nil(t, vs)
				return
			}
			require.Empty(t, why)
			got := ""
			for i, v := range vs {
				if i > 0 {
					got += " "
				}
				got += v.verdict
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// A claim's checks read the other claims' values as the answer's own, not
// as rivals of the claim's value.
func TestClaimChecksTakeTheOtherClaimsAsOwn(t *testing.T) {
	c := eval.Case{Input: "Find the average profit for the first five weeks at the pet store, and for the last five.", Claims: []eval.Claim{
		{Text: "The average profit for the first five weeks was $6,446.20."},
		{Text: "The average profit for the last five weeks was $6,786.60.", Checks: eval.Checks{Numbers: []eval.NumberCheck{{Value: 6786.60, Tolerance: 0.005}}}},
	}}
	got := claimChecks(c, c.ReferenceAnswer())
	require.Len(t, got[1], 1)
	assert.Equal(t, "pass", outcomeOf(got[1][0]), got[1][0].Detail)
	got = claimChecks(c, "The average profit for the last five weeks was $6,786.80.")
	assert.Equal(t, "fail", outcomeOf(got[1][0]), got[1][0].Detail)
}
