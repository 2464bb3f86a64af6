package labelled

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

func ptr(v float64) *float64 { return &v }

func TestAgree(t *testing.T) {
	p := func(label, verdict string, n int) []Pair {
		out := make([]Pair, n)
		for i := range out {
			out[i] = Pair{Label: label, Verdict: verdict}
		}
		return out
	}
	join := func(parts ...[]Pair) []Pair {
		var out []Pair
		for _, x := range parts {
			out = append(out, x...)
		}
		return out
	}
	tests := []struct {
		name  string
		pairs []Pair
		want  eval.Agreement
	}{
		{"none", nil, eval.Agreement{}},
		{"perfect", join(p("yes", "yes", 5), p("no", "no", 5)),
			eval.Agreement{Items: 10, Agreement: 1, TPR: ptr(1), TNR: ptr(1), Kappa: ptr(1), Confusion: eval.Confusion{YesYes: 5, NoNo: 5}}},
		{"says yes to everything", join(p("yes", "yes", 5), p("no", "yes", 5)),
			eval.Agreement{Items: 10, Agreement: 0.5, TPR: ptr(1), TNR: ptr(0), Kappa: ptr(0), Confusion: eval.Confusion{YesYes: 5, NoYes: 5}}},
		{"always wrong", join(p("yes", "no", 4), p("no", "yes", 4)),
			eval.Agreement{Items: 8, Agreement: 0, TPR: ptr(0), TNR: ptr(0), Kappa: ptr(-1), Confusion: eval.Confusion{YesNo: 4, NoYes: 4}}},
		// po = 0.85, pe = 0.5*0.55 + 0.5*0.45 = 0.5: kappa = 0.7.
		{"mostly right", join(p("yes", "yes", 9), p("yes", "no", 1), p("no", "yes", 2), p("no", "no", 8)),
			eval.Agreement{Items: 20, Agreement: 0.85, TPR: ptr(0.9), TNR: ptr(0.8), Kappa: ptr(0.7), Confusion: eval.Confusion{YesYes: 9, YesNo: 1, NoYes: 2, NoNo: 8}}},
		{"only yes labels, only yes verdicts", p("yes", "yes", 3),
			eval.Agreement{Items: 3, Agreement: 1, TPR: ptr(1), Confusion: eval.Confusion{YesYes: 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Agree(tt.pairs)
			assert.Equal(t, tt.want.Items, got.Items)
			assert.InDelta(t, tt.want.Agreement, got.Agreement, 1e-9)
			assert.Equal(t, tt.want.Confusion, got.Confusion)
			for name, pair := range map[string][2]*float64{"tpr": {tt.want.TPR, got.TPR}, "tnr": {tt.want.TNR, got.TNR}, "kappa": {tt.want.Kappa, got.Kappa}} {
				if pair[0] == nil {
					assert.Nil(t, pair[1], name)
					continue
				}
				require.NotNil(t, pair[1], name)
				assert.InDelta(t, *pair[0], *pair[1], 1e-9, name)
			}
		})
	}
}
