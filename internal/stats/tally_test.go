package stats

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpeval/mcpeval/evaltest/eval"
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

// Ten cases that all pass have a pass rate of exactly 1, as summary.json
// shows it (a sum of tenths is not).
func TestGroupPassRateIsExact(t *testing.T) {
	var cases []eval.CaseResult
	for i := range 10 {
		cases = append(cases, CaseResultOf(runs(fmt.Sprint(i), "X", eval.Pass)))
	}
	assert.Equal(t, 1.0, Group(cases).PassRate)
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
	require.Len(t, models, 3, "every model asked for is there")
	good, bad, absent := models[0], models[1], models[2]
	assert.Equal(t, eval.ModelResult{Model: "absent", Low: 0, High: 1, PassAtK: []float64{}, PassHatK: []float64{}}, absent, "no run")
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
	assert.Equal(t, 1, bad.NotRun)
	assert.InDelta(t, 0.6, bad.PassRate, 1e-12)
	assert.InDelta(t, 0.02/6, bad.CostPerPass, 1e-12)
	require.Len(t, pairs, 3)
	first := pairs[0]
	assert.Equal(t, eval.ModelPair{A: "good", B: "bad", Cases: 10, OnlyA: 4, OnlyB: 0, McNemarP: McNemar(4, 0),
		AdjustedP: first.AdjustedP, Uplift: first.Uplift, UpliftLow: first.UpliftLow, UpliftHigh: first.UpliftHigh, Confidence: first.Confidence}, first)
	assert.InDelta(t, 0.125, first.McNemarP, 1e-12)
	assert.InDelta(t, 3*0.125, first.AdjustedP, 1e-12, "Holm over the three pairs: the smallest p times 3")
	// bad passes 4 cases fewer of 10: -0.4. Not rejected at the first
	// Holm step, so every pair's interval is at 1-0.05/3: of the 4 cases
	// that differ, the chance π that one goes bad's way is at most
	// 1-(0.05/6)^(1/4) (Clopper-Pearson), scaled by 4/10.
	assert.InDelta(t, -0.4, first.Uplift, 1e-12)
	assert.InDelta(t, 1-0.05/3, first.Confidence, 1e-12)
	assert.InDelta(t, -0.4, first.UpliftLow, 1e-9)
	assert.InDelta(t, 0.4*(2*(1-math.Pow(0.05/6, 0.25))-1), first.UpliftHigh, 1e-9)
	noShared := pairs[1]
	assert.Equal(t, eval.ModelPair{A: "good", B: "absent", McNemarP: 1, AdjustedP: 1, UpliftLow: -1, UpliftHigh: 1, Confidence: 1 - 0.05/3}, noShared, "no shared case: nothing known")
}

// The judge's requests are the judge's: each model's cost is its own, and
// the judge's is counted once, apart.
func TestModelsLeaveTheJudgeOut(t *testing.T) {
	judge := eval.Usage{PromptTokens: 100, TotalTokens: 110, Requests: 1, CostUSD: 0.001}
	var recs []eval.Record
	for _, model := range []string{"priced", "unpriced"} {
		for _, name := range []string{"x", "y"} {
			own := eval.Usage{PromptTokens: 1000, TotalTokens: 1200, Requests: 2, CostUSD: 0.01}
			if model == "unpriced" {
				own = eval.Usage{PromptTokens: 1000, TotalTokens: 1200, Requests: 2, Unpriced: 2}
			}
			u := own
			u.Add(judge)
			recs = append(recs, eval.Record{Name: name, Model: model, Status: eval.Pass, Usage: u, JudgeUsage: &judge, JudgeModel: "j"})
		}
	}
	models, _ := Models(recs, []string{"priced", "unpriced"})
	assert.InDelta(t, 0.02, models[0].CostUSD, 1e-12)
	assert.InDelta(t, 0.01, models[0].CostPerPass, 1e-12)
	assert.Equal(t, 1200.0, models[0].MeanTokens)
	assert.Zero(t, models[1].CostUSD)
	assert.Equal(t, 4, models[1].Unpriced)
	assert.Equal(t, &eval.JudgeCost{Model: "j", Requests: 4, CostUSD: 0.004}, roundCost(Judge(recs)))
	assert.Nil(t, Judge(recs[:0]))

	// A cached result's judges were paid by an earlier run, unless this
	// run graded it again.
	recs[0].Cached = true
	recs[1].Cached, recs[1].Regraded = true, true
	assert.Equal(t, &eval.JudgeCost{Model: "j", Requests: 3, CostUSD: 0.003}, roundCost(Judge(recs)))
}

func roundCost(j *eval.JudgeCost) *eval.JudgeCost {
	j.CostUSD = math.Round(j.CostUSD*1e9) / 1e9
	return j
}

// Repeats of a case are not independent runs: ten cases that each pass
// all or none of their three runs are ten observations, not thirty.
func TestClusteredWilson(t *testing.T) {
	tests := []struct {
		name          string
		passes, runs  []int
		asIndependent [2]int // the plain Wilson interval it must equal
	}{
		{"one run per case is the plain interval", []int{1, 1, 0, 1, 0, 1, 1, 0, 1, 1}, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, [2]int{7, 10}},
		{"cases all or nothing: as many runs as cases", []int{3, 3, 0, 3, 0, 3, 3, 0, 3, 3}, []int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3}, [2]int{7, 10}},
		{"every case passing always: the plain interval", []int{3, 3, 3}, []int{3, 3, 3}, [2]int{9, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := ClusteredWilson(tt.passes, tt.runs, 1.96)
			wlo, whi := Wilson(tt.asIndependent[0], tt.asIndependent[1], 1.96)
			assert.InDelta(t, wlo, lo, 1e-12)
			assert.InDelta(t, whi, hi, 1e-12)
		})
	}
	// Every case passing 2 of its 3 runs: nothing between the cases, the
	// runs count in full.
	lo, hi := ClusteredWilson([]int{2, 2, 2, 2}, []int{3, 3, 3, 3}, 1.96)
	wlo, whi := Wilson(8, 12, 1.96)
	assert.InDelta(t, wlo, lo, 1e-12)
	assert.InDelta(t, whi, hi, 1e-12)
	// In between: wider than thirty independent runs, narrower than ten.
	passes := []int{3, 2, 0, 3, 1, 3, 3, 0, 2, 3}
	runs := []int{3, 3, 3, 3, 3, 3, 3, 3, 3, 3}
	lo, hi = ClusteredWilson(passes, runs, 1.96)
	ilo, ihi := Wilson(20, 30, 1.96)
	tlo, thi := wilson(20.0/30, 10, 1.96)
	assert.Greater(t, hi-lo, ihi-ilo)
	assert.Less(t, hi-lo, thi-tlo)
	lo, hi = ClusteredWilson(nil, nil, 1.96)
	assert.Equal(t, [2]float64{0, 1}, [2]float64{lo, hi})
}
