package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// bruteSignedRank is the signed-rank p-value by enumerating every sign
// assignment of the non-zero differences, with mean ranks computed on
// float values.
func bruteSignedRank(d []fraction) float64 {
	var vals []float64
	for _, x := range d {
		if x.num != 0 {
			vals = append(vals, float64(x.num)/float64(x.den))
		}
	}
	n := len(vals)
	if n == 0 {
		return 1
	}
	rank := make([]float64, n)
	for i := range vals {
		less, equal := 0, 0
		for j := range vals {
			switch {
			case math.Abs(math.Abs(vals[j])-math.Abs(vals[i])) < 1e-12:
				equal++
			case math.Abs(vals[j]) < math.Abs(vals[i]):
				less++
			}
		}
		rank[i] = float64(less) + float64(equal+1)/2
	}
	observed := 0.0
	for i, v := range vals {
		if v < 0 {
			observed += rank[i]
		}
	}
	hits := 0
	for mask := 0; mask < 1<<n; mask++ {
		s := 0.0
		for i := range n {
			if mask&(1<<i) != 0 {
				s += rank[i]
			}
		}
		if s >= observed-1e-9 {
			hits++
		}
	}
	return float64(hits) / float64(int(1)<<n)
}

func TestSignedRankWorse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := 1 + r.IntN(12)
		d := make([]fraction, n)
		for i := range d {
			runs := 1 + r.IntN(4)
			d[i] = fraction{r.IntN(2*runs+1) - runs, runs} // many ties, some zeros
		}
		assert.InDelta(t, bruteSignedRank(d), SignedRankWorse(d), 1e-12, "%v", d)
	}
	// Without repeats it is the sign test: k worse of n changed.
	d := []fraction{{-1, 1}, {-1, 1}, {-1, 1}, {-1, 1}, {1, 1}, {0, 1}}
	assert.InDelta(t, 6.0/32, SignedRankWorse(d), 1e-12, "P(Bin(5, 1/2) >= 4)")
	assert.Equal(t, 0.5, SignedRankWorse([]fraction{{-1, 1}}))
	assert.Equal(t, 1.0, SignedRankWorse(nil))
	assert.Equal(t, 1.0, SignedRankWorse([]fraction{{0, 3}}))
	assert.Equal(t, 1.0/32, SignedRankWorse([]fraction{{-1, 5}, {-2, 5}, {-3, 5}, {-4, 5}, {-1, 1}}), "all worse, no tie")
	// 2/3 − 1/3 and 1/3 − 0 are one tie, whatever the floating point says.
	assert.Equal(t, SignedRankWorse([]fraction{{-1, 3}, {-1, 3}}), SignedRankWorse([]fraction{{-3, 9}, {-1, 3}}))
}

func TestSignedRankNormalApproximation(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, worse := range []float64{0.5, 0.56} { // the share of negative differences
		d := make([]fraction, exactSignedRank+1)
		for i := range d {
			d[i] = fraction{1 + r.IntN(5), 5}
			if r.Float64() < worse {
				d[i].num = -d[i].num
			}
		}
		exact, approx := signedRank(d, len(d)), signedRank(d, 0)
		assert.InDelta(t, exact, approx, 0.002+0.05*exact, "%.2f worse: %g exact", worse, exact)
		assert.Equal(t, approx, SignedRankWorse(d), "beyond exactSignedRank the approximation")
	}
}

// bruteFisherWorse enumerates the baseline passes at least as many as
// observed, with the margins fixed.
func bruteFisherWorse(a, b, c, d int) float64 {
	row1, col1, n := a+b, a+c, a+b+c+d
	p := 0.0
	for x := a; x <= min(row1, col1); x++ {
		p += choose(row1, x) * choose(n-row1, col1-x) / choose(n, col1)
	}
	return p
}

func TestFisherWorse(t *testing.T) {
	assert.InDelta(t, 1.0/252, FisherWorse(5, 0, 0, 5), 1e-12, "5/5 to 0/5")
	assert.InDelta(t, 8.0/11440, FisherWorse(8, 0, 1, 7), 1e-12, "8/8 to 1/8")
	assert.InDelta(t, 1.0, FisherWorse(0, 5, 5, 0), 1e-12, "a rise is no evidence of a drop")
	for a := 0; a <= 5; a++ {
		for c := 0; c <= 4; c++ {
			assert.InDelta(t, bruteFisherWorse(a, 5-a, c, 4-c), FisherWorse(a, 5-a, c, 4-c), 1e-12, "%d/5 to %d/4", a, c)
			if 5*c < 4*a { // a drop: one side of the two-sided test
				assert.LessOrEqual(t, FisherWorse(a, 5-a, c, 4-c), Fisher(a, 5-a, c, 4-c)+1e-12)
			}
		}
	}
	assert.InDelta(t, 5.0/210, minFisherWorse(5, 5, 4), 1e-12, "4 passes in 10 runs: at best 4/5 to 0/5")
	assert.Equal(t, 1.0, minFisherWorse(5, 5, 10), "every run passed: nothing can drop")
	assert.Equal(t, 0.5, minFisherWorse(1, 1, 1), "one run each: never below 1/2")
}

func TestBenjaminiHochberg(t *testing.T) {
	// Sorted: 0.0001, 0.0004, 0.0019, 0.0201, 0.0298; each p × 5 / rank.
	p := []float64{0.0201, 0.0001, 0.0004, 0.0298, 0.0019}
	q := BenjaminiHochberg(p)
	assert.InDeltaSlice(t, []float64{0.025125, 0.0005, 0.001, 0.0298, 0.0019 * 5 / 3}, q, 1e-12)
	assert.Equal(t, []float64{1}, BenjaminiHochberg([]float64{1}))
	assert.Empty(t, BenjaminiHochberg(nil))
}

func TestRegressionGateDecisions(t *testing.T) {
	same := func(n, runs, passes int) []CaseCounts {
		out := make([]CaseCounts, n)
		for i := range out {
			out[i] = CaseCounts{BaseRuns: runs, BasePasses: passes, Runs: runs, Passes: passes}
		}
		return out
	}
	t.Run("one case of ten drops from 8/8 to 1/8", func(t *testing.T) {
		cases := same(10, 8, 8)
		cases[3].Passes = 1
		g := RegressionGate(cases, 0.05)
		assert.True(t, g.Significant)
		assert.False(t, g.RunWorse, "one case of ten is no evidence against the run")
		assert.Equal(t, 1, g.Tested, "cases that passed every run of both runs cannot drop")
		assert.True(t, g.Cases[3].Flagged)
		assert.InDelta(t, 8.0/11440, g.Cases[3].AdjustedP, 1e-12)
	})
	t.Run("no repeats: the sign test alone decides", func(t *testing.T) {
		cases := same(40, 1, 1)
		for i := range 12 {
			cases[i].Passes = 0
		}
		g := RegressionGate(cases, 0.05)
		assert.Equal(t, 0, g.Tested)
		assert.InDelta(t, math.Pow(2, -12), g.RunP, 1e-15)
		assert.True(t, g.RunWorse)
		assert.Equal(t, 12, g.Worse)
	})
	t.Run("one regression and one fix", func(t *testing.T) {
		cases := same(40, 1, 1)
		cases[0].Passes = 0
		cases[1].BasePasses = 0
		g := RegressionGate(cases, 0.05)
		assert.False(t, g.Significant)
		assert.Equal(t, 1, g.Worse)
		assert.Equal(t, 1, g.Better)
	})
	t.Run("a case only one run has is not counted", func(t *testing.T) {
		g := RegressionGate([]CaseCounts{{BaseRuns: 5, BasePasses: 5}}, 0.05)
		assert.Equal(t, CaseVerdict{P: 1, AdjustedP: 1}, g.Cases[0])
		assert.Equal(t, 1.0, g.RunP)
		assert.False(t, g.Significant)
	})
}

// simulatePair draws a baseline and a run of cases, each run of case i
// passing with chance base[i] and now[i].
func simulatePair(r *rand.Rand, base, now []float64, repeats int) []CaseCounts {
	draw := func(p float64) int {
		n := 0
		for range repeats {
			if r.Float64() < p {
				n++
			}
		}
		return n
	}
	out := make([]CaseCounts, len(base))
	for i := range out {
		out[i] = CaseCounts{BaseRuns: repeats, BasePasses: draw(base[i]), Runs: repeats, Passes: draw(now[i])}
	}
	return out
}

// The gate's false-alarm rate and power, by simulation: 40 cases of 5
// repeats, every run passing with chance 1/2. Two runs of the same model
// must fail the gate at most at its level; a fifth of the cases going from
// 5/5 to 0/5 must fail it nearly always.
func TestRegressionGateSimulation(t *testing.T) {
	const cases, repeats, alpha = 40, 5, 0.05
	r := rand.New(rand.NewPCG(2026, 26))
	half := make([]float64, cases)
	for i := range half {
		half[i] = 0.5
	}
	for _, pairs := range []int{200, 2000} {
		gs := gates(r, pairs, half, half, repeats, alpha)
		alarms := count(gs, func(g GateResult) bool { return g.Significant })
		rate := float64(alarms) / float64(pairs)
		t.Logf("same model, %d pairs of runs (40 cases × 5 repeats, pass chance 0.5): %d false alarms (%.2f%%; the run test %d, the case flags %d), level %.2f",
			pairs, alarms, 100*rate, count(gs, func(g GateResult) bool { return g.RunWorse }),
			count(gs, func(g GateResult) bool { return g.Flagged > 0 }), alpha)
		assert.LessOrEqual(t, rate, alpha)
	}

	// Any mix of flakiness: each case's chance drawn at random, once.
	mixed := make([]float64, cases)
	for i := range mixed {
		mixed[i] = r.Float64()
	}
	for _, chances := range [][]float64{mixed, slices.Repeat([]float64{0.9}, cases)} {
		gs := gates(r, 1000, chances, chances, repeats, alpha)
		alarms := count(gs, func(g GateResult) bool { return g.Significant })
		t.Logf("same model, 1000 pairs, cases passing with chances from %.2f to %.2f: %d false alarms (%.2f%%)",
			slices.Min(chances), slices.Max(chances), alarms, float64(alarms)/10)
		assert.LessOrEqual(t, float64(alarms)/1000, alpha)
	}

	before, after := clone(half), clone(half)
	for i := range 8 { // a fifth of the cases: always passed, now always fail
		before[i], after[i] = 1, 0
	}
	const pairs = 200
	gs := gates(r, pairs, before, after, repeats, alpha)
	caught := count(gs, func(g GateResult) bool { return g.Significant })
	allFlagged := count(gs, func(g GateResult) bool {
		return !slices.ContainsFunc(g.Cases[:8], func(v CaseVerdict) bool { return !v.Flagged })
	})
	noisyFlagged := count(gs, func(g GateResult) bool {
		return slices.ContainsFunc(g.Cases[8:], func(v CaseVerdict) bool { return v.Flagged })
	})
	t.Logf("8 of 40 cases from 5/5 to 0/5, %d pairs: caught in %d (%.1f%%; the run test %d, all 8 cases flagged in %d); an unchanged case flagged in %d",
		pairs, caught, 100*float64(caught)/pairs, count(gs, func(g GateResult) bool { return g.RunWorse }), allFlagged, noisyFlagged)
	assert.GreaterOrEqual(t, float64(caught)/pairs, 0.95)
}

// gates runs the gate on n simulated pairs of runs (see simulatePair).
func gates(r *rand.Rand, n int, before, after []float64, repeats int, alpha float64) []GateResult {
	out := make([]GateResult, n)
	for i := range out {
		out[i] = RegressionGate(simulatePair(r, before, after, repeats), alpha)
	}
	return out
}

// count counts the results for which f holds.
func count(gs []GateResult, f func(GateResult) bool) int {
	n := 0
	for _, g := range gs {
		if f(g) {
			n++
		}
	}
	return n
}

func clone(p []float64) []float64 { return append([]float64(nil), p...) }

func TestHolm(t *testing.T) {
	// Sorted 0.01, 0.02, 0.04: 3×0.01, 2×0.02, 1×0.04, each at least the one before.
	assert.Equal(t, []float64{0.04, 0.03, 0.04}, roundAll(Holm([]float64{0.04, 0.01, 0.02})))
	assert.Equal(t, []float64{1, 1}, Holm([]float64{0.6, 0.9}))
	assert.Empty(t, Holm(nil))
}

func roundAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*1e12) / 1e12
	}
	return out
}

// The fewest repeats that let the gate flag a case at alpha 0.05: the
// strongest drop, every baseline run passing and every run now failing,
// has p = 1/C(b+n, b), which must reach alpha/2 = 0.025, so C(b+n, b) >= 40.
// With the same -count on both sides that is 4 (4/4 -> 0/4: p = 1/70); with
// 3 (3/3 -> 0/3: p = 1/20 = 0.05) no case is ever flagged. A lone tested
// case is flagged at its p; beside another tested case the correction
// needs more.
func TestRegressionGateMinimumRepeats(t *testing.T) {
	drop := func(b, n int) CaseCounts { return CaseCounts{BaseRuns: b, BasePasses: b, Runs: n, Passes: 0} }
	tests := []struct {
		name    string
		cases   []CaseCounts
		flagged bool
	}{
		{"1 on each side", []CaseCounts{drop(1, 1)}, false},
		{"2 on each side", []CaseCounts{drop(2, 2)}, false},
		{"3 on each side", []CaseCounts{drop(3, 3)}, false},
		{"4 on each side", []CaseCounts{drop(4, 4)}, true},
		{"3 and 5", []CaseCounts{drop(3, 5)}, true},
		{"2 and 8", []CaseCounts{drop(2, 8)}, true},
		{"2 and 7", []CaseCounts{drop(2, 7)}, false},
		{"4 on each side, beside a case tested and unchanged", []CaseCounts{drop(4, 4), {BaseRuns: 4, BasePasses: 2, Runs: 4, Passes: 2}}, false},
		{"5 on each side, beside it", []CaseCounts{drop(5, 5), {BaseRuns: 5, BasePasses: 3, Runs: 5, Passes: 2}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := RegressionGate(tt.cases, 0.05)
			assert.Equal(t, tt.flagged, g.Cases[0].Flagged, "p %g, adjusted %g, %d tested", g.Cases[0].P, g.Cases[0].AdjustedP, g.Tested)
		})
	}
	assert.InDelta(t, 1.0/70, FisherWorse(4, 0, 0, 4), 1e-12)
	assert.InDelta(t, 1.0/20, FisherWorse(3, 0, 0, 3), 1e-12)
}
