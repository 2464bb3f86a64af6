package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Over many random families of paired comparisons, every interval
// excludes 0 exactly when its adjusted p is below the level, holds its
// change, and the adjusted p is Holm's.
func TestHolmPairedIntervalsAgreeWithAdjustedP(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 5))
	checked, excluded := 0, 0
	for trial := range 1500 {
		m := 1 + rng.IntN(40)
		alpha := []float64{0.05, 0.01, 0.1, 0.2, 0.001 + 0.3*rng.Float64()}[trial%5]
		pairs := make([]Paired, m)
		ps := make([]float64, m)
		for i := range pairs {
			n := rng.IntN(60)
			a := 0
			if n > 0 {
				a = rng.IntN(n + 1)
			}
			b := 0
			if n-a > 0 {
				// Lopsided often, so that many comparisons are rejected.
				b = rng.IntN(n - a + 1)
				if rng.IntN(3) == 0 {
					a = 0
				}
			}
			pairs[i] = Paired{OnlyA: a, OnlyB: b, Cases: n}
			ps[i] = McNemar(a, b)
		}
		got := HolmPaired(pairs, alpha)
		require.Len(t, got, m)
		holm := Holm(ps)
		for i, g := range got {
			p := pairs[i]
			assert.Equal(t, holm[i], g.AdjustedP, "Holm's adjusted p")
			excludes := g.Low > 0 || g.High < 0
			require.Equalf(t, g.AdjustedP < alpha, excludes,
				"trial %d, pair %+v of %d at alpha %g: adjusted p %g, interval [%g, %g]", trial, p, m, alpha, g.AdjustedP, g.Low, g.High)
			assert.LessOrEqual(t, g.Low, g.Diff+1e-12, "%+v", p)
			assert.GreaterOrEqual(t, g.High, g.Diff-1e-12, "%+v", p)
			assert.GreaterOrEqual(t, g.Low, -1.0)
			assert.LessOrEqual(t, g.High, 1.0)
			assert.GreaterOrEqual(t, g.Confidence, 1-alpha)
			checked++
			if excludes {
				excluded++
			}
		}
	}
	// The check met both outcomes many times.
	assert.Greater(t, excluded, 500)
	assert.Greater(t, checked-excluded, 500)
}

// The interval of one comparison alone is the exact Clopper–Pearson
// interval of the discordant cases, scaled: all of 10 differing cases
// going one way bound π below by 0.025^(1/10).
func TestHolmPairedKnownIntervals(t *testing.T) {
	tests := []struct {
		name      string
		pair      Paired
		low, high float64
	}{
		{"all ten differing cases to the second", Paired{OnlyB: 10, Cases: 10}, 2*math.Pow(0.025, 0.1) - 1, 1},
		{"all ten to the first, of twenty", Paired{OnlyA: 10, Cases: 20}, -0.5, 0.5 * (1 - 2*math.Pow(0.025, 0.1))},
		{"one each way: symmetric", Paired{OnlyA: 1, OnlyB: 1, Cases: 10}, -0.2 * (1 - 2*0.01257911), 0.2 * (1 - 2*0.01257911)},
		{"no case differs", Paired{Cases: 10}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HolmPaired([]Paired{tt.pair}, 0.05)[0]
			assert.InDelta(t, tt.low, got.Low, 1e-6)
			assert.InDelta(t, tt.high, got.High, 1e-6)
			assert.InDelta(t, 0.95, got.Confidence, 1e-12)
		})
	}
}

// In a family the intervals widen with the Holm step: the smallest p is
// weighed against all m, and a comparison past the first not rejected
// takes that step's weight.
func TestHolmPairedLevels(t *testing.T) {
	pairs := []Paired{{OnlyB: 12, Cases: 20}, {OnlyB: 3, Cases: 20}, {OnlyB: 20, Cases: 20}, {OnlyA: 2, OnlyB: 2, Cases: 20}}
	got := HolmPaired(pairs, 0.05)
	// Ranks by p: 20/20 first (weight 4), 12/20 second (3), 3/20 third:
	// not rejected, weight 2, and the last takes the same.
	assert.InDelta(t, 1-0.05/4, got[2].Confidence, 1e-12)
	assert.InDelta(t, 1-0.05/3, got[0].Confidence, 1e-12)
	assert.InDelta(t, 1-0.05/2, got[1].Confidence, 1e-12)
	assert.InDelta(t, 1-0.05/2, got[3].Confidence, 1e-12)
	alone := HolmPaired(pairs[:1], 0.05)[0]
	assert.Less(t, got[0].Low, alone.Low, "adjusted for the family, wider than alone")
	assert.Positive(t, got[0].Low)
	assert.Negative(t, got[1].Low)
}
