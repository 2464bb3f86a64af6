// Package stats holds the statistics of repeated runs and of comparisons:
// the unbiased pass@k and pass^k estimators, Wilson score intervals, and the
// exact McNemar and Fisher tests. Everything is a pure function of counts.
package stats

import "math"

// PassAtK is the unbiased estimate of pass@k, the chance that at least one
// of k runs drawn from n runs with c passes passes: 1 − C(n−c, k) / C(n, k).
// It is NaN unless 0 < k ≤ n and 0 ≤ c ≤ n.
func PassAtK(n, c, k int) float64 {
	if !valid(n, c, k) {
		return math.NaN()
	}
	return 1 - ratio(n-c, n, k)
}

// PassHatK is the unbiased estimate of pass^k, the chance that k runs drawn
// from n runs with c passes all pass: C(c, k) / C(n, k). It is NaN unless
// 0 < k ≤ n and 0 ≤ c ≤ n.
func PassHatK(n, c, k int) float64 {
	if !valid(n, c, k) {
		return math.NaN()
	}
	return ratio(c, n, k)
}

func valid(n, c, k int) bool { return k > 0 && k <= n && c >= 0 && c <= n }

// ratio is C(a, k) / C(n, k) for a ≤ n, as a product that neither
// overflows nor loses precision: ∏_{i<k} (a−i) / (n−i).
func ratio(a, n, k int) float64 {
	if a < k {
		return 0
	}
	r := 1.0
	for i := range k {
		r *= float64(a-i) / float64(n-i)
	}
	return r
}

// Wilson returns the Wilson score interval of a proportion with the given
// successes out of n at the confidence that z gives (1.96 for 95%). With
// n = 0 it is [0, 1].
func Wilson(successes, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	return wilson(float64(successes)/float64(n), float64(n), z)
}

// wilson is the Wilson score interval of the proportion p observed over a
// sample of size nn (which may be fractional: an effective sample size).
func wilson(p, nn, z float64) (lo, hi float64) {
	z2 := z * z
	center := (p + z2/(2*nn)) / (1 + z2/nn)
	half := z / (1 + z2/nn) * math.Sqrt(p*(1-p)/nn+z2/(4*nn*nn))
	return math.Max(0, center-half), math.Min(1, center+half)
}

// McNemar is the two-sided exact McNemar test of paired outcomes: b pairs
// changed one way (passed before, failed after) and c the other way. It is
// the binomial test of min(b, c) in b + c trials at one half; with no
// changed pair the p-value is 1.
func McNemar(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	tail := 0.0
	for i := 0; i <= min(b, c); i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

// Fisher is the two-sided Fisher exact test of the 2×2 table
//
//	a b
//	c d
//
// (for example passes and fails of a case in two runs): the sum of the
// probabilities of every table with the same margins that is no more
// likely than the one observed.
func Fisher(a, b, c, d int) float64 {
	row1, col1, n := a+b, a+c, a+b+c+d
	if n == 0 {
		return 1
	}
	prob := func(x int) float64 {
		return math.Exp(logChoose(row1, x) + logChoose(n-row1, col1-x) - logChoose(n, col1))
	}
	observed := prob(a)
	p := 0.0
	for x := max(0, col1+row1-n); x <= min(row1, col1); x++ {
		if px := prob(x); px <= observed*(1+1e-7) {
			p += px
		}
	}
	return math.Min(1, p)
}

// logChoose is log C(n, k).
func logChoose(n, k int) float64 {
	if k < 0 || k > n {
		return math.Inf(-1)
	}
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
