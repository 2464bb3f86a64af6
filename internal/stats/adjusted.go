package stats

import (
	"cmp"
	"math"
	"slices"
)

// Paired is a paired comparison of two arms on the cases both ran:
// OnlyA cases only the first passed, OnlyB only the second, of Cases.
type Paired struct {
	OnlyA, OnlyB, Cases int
}

// Adjusted is a paired comparison read as one of a family of tests: its
// exact McNemar p, that p adjusted (Holm) over the family, and the change
// from the first to the second ((OnlyB−OnlyA)/Cases) with an interval
// adjusted the same way. The interval excludes 0 exactly when AdjustedP is
// below the family's level: both come from the one test.
type Adjusted struct {
	P, AdjustedP float64
	Diff         float64
	Low, High    float64
	// Confidence is the interval's own confidence (0.95 alone; higher
	// in a family: 1 − alpha/(the Holm weight of its step)).
	Confidence float64
}

// HolmPaired tests each comparison (the exact McNemar test) and adjusts
// the p-values over them (Holm); each interval inverts the same test at
// the Holm step's level, so that it excludes no change exactly when the
// adjusted p is below alpha.
//
// The interval is conditional on the cases that differ (d of n): the exact
// (Clopper–Pearson) interval of π, the chance that such a case is one
// the second passed, at level alpha/w, scaled to the change in pass rate,
// d/n·(2π−1). Its weight w is the Holm weight of the comparison's rank k
// among the p-values in ascending order (m−k, counting from 0) while the
// step-down rejects; from the first rank it stops at, every later one
// takes that rank's weight. A rejected comparison's interval then leaves
// out π = ½ because its own p is below alpha/w; one not rejected keeps
// it because its p is at least that of the rank the step-down stopped at.
// Without a case that differs the interval is [0, 0]: no change seen;
// without a shared case [−1, 1].
func HolmPaired(pairs []Paired, alpha float64) []Adjusted {
	m := len(pairs)
	out := make([]Adjusted, m)
	ps := make([]float64, m)
	for i, p := range pairs {
		ps[i] = McNemar(p.OnlyA, p.OnlyB)
	}
	adjusted := Holm(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	// The same order Holm steps down in.
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	stop := m
	for rank, i := range order {
		if !(adjusted[i] < alpha) {
			stop = rank
			break
		}
	}
	for rank, i := range order {
		weight := m - min(rank, stop)
		p := pairs[i]
		low, high := pairedInterval(p, alpha, weight)
		out[i] = Adjusted{P: ps[i], AdjustedP: adjusted[i], Low: low, High: high,
			Confidence: 1 - alpha/float64(weight)}
		if p.Cases > 0 {
			out[i].Diff = float64(p.OnlyB-p.OnlyA) / float64(p.Cases)
		}
	}
	return out
}

// pairedInterval is the change in pass rate that the McNemar test, its p
// weighted by weight, does not reject at alpha (see HolmPaired).
func pairedInterval(p Paired, alpha float64, weight int) (low, high float64) {
	d := p.OnlyA + p.OnlyB
	switch {
	case p.Cases <= 0:
		return -1, 1 // no shared case: nothing known
	case d == 0:
		return 0, 0
	}
	w := float64(weight)
	b := p.OnlyB
	// accept says whether π is in the interval: the two-sided test of π,
	// weighted, is not below alpha. At π = ½ it is McNemar's p itself.
	accept := func(pi float64) bool { return min(1, w*binomialTwoSided(b, d, pi)) >= alpha }
	hat := float64(b) / float64(d)
	lo, hi := 0.0, 1.0
	if b > 0 {
		lo = bisect(accept, 0, hat) // accept(0) is false, accept(hat) true
	}
	if b < d {
		hi = bisect(accept, 1, hat)
	}
	// The interval holds π = ½ exactly when the test does not reject it,
	// whatever the bisection's last step did.
	if accept(0.5) {
		lo, hi = min(lo, 0.5), max(hi, 0.5)
	} else if lo <= 0.5 && 0.5 <= hi {
		if hat > 0.5 {
			lo = math.Nextafter(0.5, 1)
		} else {
			hi = math.Nextafter(0.5, 0)
		}
	}
	scale := float64(d) / float64(p.Cases)
	return scale * (2*lo - 1), scale * (2*hi - 1)
}

// bisect finds the edge between out (not accepted) and in (accepted),
// returning the accepted side's end.
func bisect(accept func(float64) bool, out, in float64) float64 {
	for range 80 {
		mid := (out + in) / 2
		if mid == out || mid == in {
			break
		}
		if accept(mid) {
			in = mid
		} else {
			out = mid
		}
	}
	return in
}

// binomialTwoSided is the two-sided test of b successes in n trials at
// the chance pi: twice the smaller tail, at most 1. At pi = ½ it is the
// exact McNemar test of b against n−b.
func binomialTwoSided(b, n int, pi float64) float64 {
	if pi == 0.5 {
		return McNemar(n-b, b)
	}
	if pi <= 0 || pi >= 1 {
		if b == 0 && pi <= 0 || b == n && pi >= 1 {
			return 1
		}
		return 0
	}
	below, above := 0.0, 0.0 // P(X ≤ b), P(X ≥ b)
	logPi, logRest, logC := math.Log(pi), math.Log1p(-pi), 0.0
	for i := 0; i <= n; i++ {
		if i > 0 {
			logC += math.Log(float64(n-i+1)) - math.Log(float64(i)) // log C(n, i)
		}
		t := math.Exp(logC + float64(i)*logPi + float64(n-i)*logRest)
		if i <= b {
			below += t
		}
		if i >= b {
			above += t
		}
	}
	return math.Min(1, 2*math.Min(below, above))
}
