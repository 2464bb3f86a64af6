package stats

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/internal/eval"
)

func runs(name, category string, statuses ...eval.Status) []eval.Record {
	var out []eval.Record
	for i, s := range statuses {
		out = append(out, eval.Record{Name: name, Category: category, Repeat: i, Status: s, File: "c.yaml", Line: len(name)})
	}
	return out
}

func TestTallyRepeats(t *testing.T) {
	P, F, E := eval.Pass, eval.Fail, eval.Error
	var recs []eval.Record
	recs = append(recs, runs("flaky", "B", P, F, P, E, P)...)
	recs = append(recs, runs("solid", "A", P, P, P, P, P)...)
	recs = append(recs, runs("broken", "A", F, F, F, F, F)...)
	// Repeats finish in any order.
	recs[0], recs[4] = recs[4], recs[0]

	overall, categories, cases := Tally(recs)
	require.Len(t, cases, 3)
	byName := map[string]eval.CaseResult{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	f := byName["flaky"]
	assert.Equal(t, 5, f.Runs)
	assert.Equal(t, 3, f.Passes)
	assert.Equal(t, []eval.Status{P, F, P, E, P}, f.Statuses, "by repeat")
	assert.InDelta(t, 0.6, f.PassRate, 1e-12)
	assert.InDelta(t, 0.9, f.PassAtK[1], 1e-12)
	assert.InDelta(t, 0.3, f.PassHatK[1], 1e-12)
	assert.Len(t, f.PassAtK, 5)
	assert.True(t, f.Flaky)
	assert.False(t, byName["solid"].Flaky)
	assert.False(t, byName["broken"].Flaky)

	assert.Equal(t, []string{"solid", "broken", "flaky"}, []string{cases[0].Name, cases[1].Name, cases[2].Name},
		"category, then file and line")
	require.Len(t, categories, 2)
	assert.Equal(t, "A", categories[0].Name)
	assert.InDelta(t, 0.5, categories[0].PassRate, 1e-12)
	assert.Equal(t, 0, categories[0].Flaky)

	assert.Equal(t, 3, overall.Cases)
	assert.Equal(t, 15, overall.Runs)
	assert.Equal(t, 8, overall.Passes)
	assert.InDelta(t, (1+0+0.6)/3, overall.PassRate, 1e-12)
	assert.InDelta(t, (1+0+0.9)/3, overall.PassAtK[1], 1e-12)
	assert.InDelta(t, (1+0+0.3)/3, overall.PassHatK[1], 1e-12)
	assert.Equal(t, 1, overall.Flaky)
}

// A case that ran fewer times counts only towards the k it reached.
func TestGroupOfUnevenRepeats(t *testing.T) {
	a := CaseResultOf(runs("a", "X", eval.Pass, eval.Fail))
	b := CaseResultOf(runs("b", "X", eval.Pass))
	g := Group([]eval.CaseResult{a, b})
	assert.Equal(t, []float64{0.75, 1}, g.PassAtK)
	assert.Equal(t, []float64{0.75, 0}, g.PassHatK)
	empty := Group(nil)
	assert.Zero(t, empty.PassRate)
	assert.Empty(t, empty.PassAtK)
}

func TestCaseSet(t *testing.T) {
	a := []eval.CaseResult{{Name: "x"}, {Name: "y"}}
	b := []eval.CaseResult{{Name: "y"}, {Name: "x", Model: "other"}, {Name: "x"}}
	assert.Equal(t, CaseSet(a), CaseSet(b), "order, models and repeats do not matter")
	assert.NotEqual(t, CaseSet(a), CaseSet(a[:1]))
}

func TestModels(t *testing.T) {
	var recs []eval.Record
	add := func(model, name string, status eval.Status, cost, seconds float64, tokens, calls int) {
		recs = append(recs, eval.Record{Name: name, Model: model, Status: status, Seconds: seconds,
			Usage: eval.Usage{TotalTokens: tokens, CostUSD: cost}, ToolCalls: make([]eval.ToolCall, calls)})
	}
	for i := range 10 {
		name := string(rune('a' + i))
		add("good", name, eval.Pass, 0.01, float64(i+1), 1000, 2)
		status := eval.Pass
		if i < 4 {
			status = eval.Fail
		}
		add("bad", name, status, 0.002, 1, 500, 1)
	}
	add("bad", "k", eval.NotRun, 0, 0, 0, 0) // never started: no outcome
	models, pairs := Models(recs, nil)
	assert.Equal(t, "bad", models[0].Model, "by name without an order")
	models, pairs = Models(recs, []string{"good", "bad", "absent"})
	require.Len(t, models, 2)
	good, bad := models[0], models[1]
	assert.Equal(t, "good", good.Model)
	assert.Equal(t, 10, good.Runs)
	assert.Equal(t, 1.0, good.PassRate)
	assert.InDelta(t, 0.7225, good.Low, 1e-4)
	assert.Equal(t, 1.0, good.High)
	assert.InDelta(t, 0.1, good.CostUSD, 1e-12)
	assert.InDelta(t, 0.01, good.CostPerPass, 1e-12)
	assert.Equal(t, 1000.0, good.MeanTokens)
	assert.Equal(t, 2.0, good.ToolCallsPerRun)
	assert.Equal(t, 5.0, good.LatencyP50)
	assert.Equal(t, 10.0, good.LatencyP95)
	assert.Equal(t, 10, bad.Runs, "the case that never started is not a run")
	assert.InDelta(t, 0.6, bad.PassRate, 1e-12)
	assert.InDelta(t, 0.02/6, bad.CostPerPass, 1e-12)
	require.Len(t, pairs, 1)
	assert.Equal(t, eval.ModelPair{A: "good", B: "bad", Cases: 10, OnlyA: 4, OnlyB: 0, McNemarP: McNemar(4, 0)}, pairs[0])
	assert.InDelta(t, 0.125, pairs[0].McNemarP, 1e-12)
}
