package stats

import (
	"cmp"
	"math"
	"slices"
)

// The regression gate: is a run worse than its baseline? Two decisions,
// each at half the gate's level, so that two runs of an unchanged model
// fail the gate at most at that level:
//
//   - the run as a whole: the exact one-sided Wilcoxon signed-rank test of
//     the cases' pass-rate differences (each case is one pair; with one run
//     per case it is the exact sign test, McNemar's);
//   - each case: the exact one-sided Fisher test of its passes and fails in
//     the two runs, corrected for the number of cases tested with the
//     Benjamini–Hochberg procedure (a false discovery rate). A case whose
//     counts could not show a significant drop even alone (it passed every
//     run of both, or has too few runs) is not counted as tested.

// CaseCounts are one case's runs and passes in the baseline and now.
type CaseCounts struct {
	BaseRuns, BasePasses int
	Runs, Passes         int
}

// CaseVerdict is the gate's reading of one case.
type CaseVerdict struct {
	// P is the one-sided Fisher exact test that the case passes less often
	// now; 1 for a case without runs on either side.
	P float64
	// Tested is true when the case counts in the correction: its counts
	// could give a P at or below the case level.
	Tested bool
	// AdjustedP is P after the Benjamini–Hochberg correction over the
	// tested cases (1 for a case not tested); Flagged is true when it is at
	// or below the case level.
	AdjustedP float64
	Flagged   bool
}

// GateResult is the gate's decision on a run against its baseline.
type GateResult struct {
	// Alpha is the gate's level: its false-alarm rate for two runs of an
	// unchanged model. RunLevel and CaseLevel are its two halves.
	Alpha, RunLevel, CaseLevel float64
	// Worse and Better count the cases whose pass rate fell and rose; RunP
	// is the signed-rank test that the run is worse, RunWorse whether it is
	// at or below RunLevel.
	Worse, Better int
	RunP          float64
	RunWorse      bool
	// Cases are the cases' verdicts, in the order given; Tested counts the
	// cases tested and Flagged those flagged.
	Cases           []CaseVerdict
	Tested, Flagged int
	// Significant is true when the run is worse or some case is flagged:
	// the gate fails.
	Significant bool
}

// RegressionGate decides whether the run is worse than its baseline at
// level alpha (0 < alpha < 1), from the counts of the cases both ran.
func RegressionGate(cases []CaseCounts, alpha float64) GateResult {
	g := GateResult{Alpha: alpha, RunLevel: alpha / 2, CaseLevel: alpha / 2, Cases: make([]CaseVerdict, len(cases))}
	var diffs []fraction
	var tested []int
	for i, c := range cases {
		v := CaseVerdict{P: 1, AdjustedP: 1}
		if c.BaseRuns > 0 && c.Runs > 0 {
			d := fraction{c.Passes*c.BaseRuns - c.BasePasses*c.Runs, c.Runs * c.BaseRuns}
			switch {
			case d.num < 0:
				g.Worse++
			case d.num > 0:
				g.Better++
			}
			diffs = append(diffs, d)
			v.P = FisherWorse(c.BasePasses, c.BaseRuns-c.BasePasses, c.Passes, c.Runs-c.Passes)
			v.Tested = minFisherWorse(c.BaseRuns, c.Runs, c.BasePasses+c.Passes) <= g.CaseLevel
		}
		if v.Tested {
			tested = append(tested, i)
		}
		g.Cases[i] = v
	}
	g.RunP = SignedRankWorse(diffs)
	g.RunWorse = g.RunP <= g.RunLevel
	g.Tested = len(tested)
	p := make([]float64, len(tested))
	for j, i := range tested {
		p[j] = g.Cases[i].P
	}
	for j, q := range BenjaminiHochberg(p) {
		v := &g.Cases[tested[j]]
		v.AdjustedP, v.Flagged = q, q <= g.CaseLevel
		if v.Flagged {
			g.Flagged++
		}
	}
	g.Significant = g.RunWorse || g.Flagged > 0
	return g
}

// FisherWorse is the one-sided Fisher exact test of the 2×2 table
//
//	a b   (baseline passes, fails)
//	c d   (passes, fails now)
//
// against fewer passes now: the probability, with the margins fixed, of a
// baseline with a passes or more.
func FisherWorse(a, b, c, d int) float64 {
	row1, col1, n := a+b, a+c, a+b+c+d
	if row1 == 0 || row1 == n {
		return 1
	}
	p := 0.0
	for x := a; x <= min(row1, col1); x++ {
		p += hypergeometric(x, row1, col1, n)
	}
	return math.Min(1, p)
}

// minFisherWorse is the smallest FisherWorse can be for a case with these
// runs and passes in all: every pass in the baseline.
func minFisherWorse(baseRuns, runs, passes int) float64 {
	a := min(baseRuns, passes)
	return FisherWorse(a, baseRuns-a, passes-a, runs-(passes-a))
}

// hypergeometric is the probability of x passes in a row of row1 runs when
// col1 of all n runs passed.
func hypergeometric(x, row1, col1, n int) float64 {
	return math.Exp(logChoose(row1, x) + logChoose(n-row1, col1-x) - logChoose(n, col1))
}

// BenjaminiHochberg returns the Benjamini–Hochberg adjusted p-values of p,
// in its order: p_(i) × m / i, made monotone from the largest down and
// capped at 1. Rejecting those at or below q keeps the false discovery
// rate at q.
func BenjaminiHochberg(p []float64) []float64 {
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	out := make([]float64, m)
	running := 1.0
	for rank := m; rank >= 1; rank-- {
		i := order[rank-1]
		running = math.Min(running, p[i]*float64(m)/float64(rank))
		out[i] = running
	}
	return out
}

// fraction is an exact difference of two pass rates, num/den with den > 0.
type fraction struct{ num, den int }

// compareAbs orders fractions by absolute value.
func compareAbs(a, b fraction) int {
	return cmp.Compare(abs(a.num)*b.den, abs(b.num)*a.den)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// exactSignedRank is the most non-zero differences whose signed-rank
// distribution is computed exactly; beyond it the normal approximation
// with the tie correction is close and the exact count slow.
const exactSignedRank = 400

// SignedRankWorse is the one-sided Wilcoxon signed-rank test that the
// differences lean negative: zeros are dropped, the others ranked by
// absolute value (ties share their mean rank), and the p-value is the
// chance, with every sign equally likely to be either way, of a sum of the
// negative differences' ranks at least the one observed. With up to
// exactSignedRank differences it is exact (ties included), beyond it the
// normal approximation. No difference: 1.
func SignedRankWorse(diffs []fraction) float64 { return signedRank(diffs, exactSignedRank) }

// signedRank is SignedRankWorse, exact up to exactUpTo differences.
func signedRank(diffs []fraction, exactUpTo int) float64 {
	nonzero := slices.DeleteFunc(slices.Clone(diffs), func(d fraction) bool { return d.num == 0 })
	n := len(nonzero)
	if n == 0 {
		return 1
	}
	slices.SortFunc(nonzero, compareAbs)
	// Doubled mean ranks are integers: ranks i+1 … j of a tie share
	// (i+1+j)/2, doubled i+1+j.
	ranks := make([]int, n)
	observed, total := 0, 0
	for i := 0; i < n; {
		j := i + 1
		for j < n && compareAbs(nonzero[i], nonzero[j]) == 0 {
			j++
		}
		for k := i; k < j; k++ {
			ranks[k] = i + 1 + j
			total += ranks[k]
			if nonzero[k].num < 0 {
				observed += ranks[k]
			}
		}
		i = j
	}
	if n > exactUpTo {
		sumSquares := 0.0
		for _, r := range ranks {
			sumSquares += float64(r) * float64(r)
		}
		z := (float64(observed) - 0.5 - float64(total)/2) / math.Sqrt(sumSquares/4)
		return math.Min(1, 0.5*math.Erfc(z/math.Sqrt2))
	}
	// dist[s] is the chance that the ranks given a negative sign sum to s.
	dist := make([]float64, total+1)
	dist[0] = 1
	reach := 0
	for _, r := range ranks {
		for s := reach; s >= 0; s-- {
			if dist[s] != 0 {
				dist[s+r] += dist[s] / 2
				dist[s] /= 2
			}
		}
		reach += r
	}
	p := 0.0
	for s := observed; s <= total; s++ {
		p += dist[s]
	}
	return math.Min(1, p)
}

// Holm returns the Holm-adjusted p-values of p, in p's order: each
// p-value, in ascending order, times the number of those not smaller,
// never below the one before, at most 1. Rejecting the adjusted values
// below a level keeps the chance of any false rejection below it.
func Holm(p []float64) []float64 {
	order := make([]int, len(p))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	out := make([]float64, len(p))
	prev := 0.0
	for rank, i := range order {
		adj := min(1, float64(len(p)-rank)*p[i])
		prev = max(prev, adj)
		out[i] = prev
	}
	return out
}

// PairedDifference is the difference of two paired proportions over n
// pairs, b/n less a/n where a and b count the pairs only the first, or
// only the second, succeeded in, with a 95% interval: the adjusted Wald
// interval of Agresti and Min (2005), which adds half a pair to each
// cell. It is 0 in [-1, 1] without pairs.
func PairedDifference(a, b, n int) (diff, low, high float64) {
	if n <= 0 {
		return 0, -1, 1
	}
	diff = float64(b-a) / float64(n)
	aa, bb, nn := float64(a)+0.5, float64(b)+0.5, float64(n)+2
	d := (bb - aa) / nn
	se := math.Sqrt(max((bb+aa)-(bb-aa)*(bb-aa)/nn, 0)) / nn
	return diff, max(d-1.96*se, -1), min(d+1.96*se, 1)
}
