package labelled

import (
	"maps"
	"slices"

	"github.com/mcpeval/mcpeval/evaltest/eval"
	"github.com/mcpeval/mcpeval/internal/grading"
)

// Pair is one labelled answer's label ("yes" or "no") and the verdict it
// got ("yes", "no" or Undecided), the set of labels it belongs to
// (Label.Set; "" for none) and where that set comes from.
type Pair struct {
	Label, Verdict, Set string
	// Provenance, Author, Commit and Spent are the label's (eval.Label).
	Provenance, Author, Commit, Spent string
}

// PairOf pairs a label with the verdict it got.
func PairOf(l eval.Label, verdict string) Pair {
	return Pair{Label: l.Verdict, Verdict: verdict, Set: l.Set, Provenance: l.Provenance, Author: l.Author, Commit: l.Commit, Spent: l.Spent}
}

// AgreeBySet compares all pairs, and the pairs of each named set apart,
// in the order of the sets' names; the pairs of no set form a set named by
// their provenance ("beside-the-checks").
func AgreeBySet(pairs []Pair) (eval.Agreement, []eval.SetAgreement) {
	bySet := map[string][]Pair{}
	for _, p := range pairs {
		set := p.Set
		if set == "" {
			set = p.Provenance // the labels of no set, by where they come from
		}
		if set != "" {
			bySet[set] = append(bySet[set], p)
		}
	}
	var sets []eval.SetAgreement
	for _, name := range slices.Sorted(maps.Keys(bySet)) {
		ps := bySet[name]
		sa := eval.SetAgreement{Set: name, Provenance: ps[0].Provenance, Author: ps[0].Author, Commit: ps[0].Commit, Spent: ps[0].Spent, Agreement: Agree(ps)}
		for _, p := range ps {
			if p.Provenance != sa.Provenance || p.Author != sa.Author || p.Commit != sa.Commit || p.Spent != sa.Spent {
				sa.Provenance, sa.Author, sa.Commit, sa.Spent = "mixed", "", "", ""
				break
			}
		}
		sets = append(sets, sa)
	}
	return Agree(pairs), sets
}

// Undecided is the verdict of a labelled answer nothing decided.
const Undecided = grading.Undecided

// Agree compares verdicts with labels, "yes" being the positive class; an
// undecided verdict counts apart.
func Agree(pairs []Pair) eval.Agreement {
	var a eval.Agreement
	c := &a.Confusion
	for _, p := range pairs {
		switch {
		case p.Label == "yes" && p.Verdict == Undecided:
			c.YesUndecided++
		case p.Verdict == Undecided:
			c.NoUndecided++
		case p.Label == "yes" && p.Verdict == "yes":
			c.YesYes++
		case p.Label == "yes":
			c.YesNo++
		case p.Verdict == "yes":
			c.NoYes++
		default:
			c.NoNo++
		}
	}
	a.Undecided = c.YesUndecided + c.NoUndecided
	a.Items = len(pairs)
	if a.Items == 0 {
		return a
	}
	a.WrongPassed = ratio(c.NoYes, c.NoYes+c.NoNo+c.NoUndecided)
	a.RightFailed = ratio(c.YesNo, c.YesYes+c.YesNo+c.YesUndecided)
	n := c.YesYes + c.YesNo + c.NoYes + c.NoNo
	a.Decided = float64(n) / float64(a.Items)
	if n == 0 {
		return a
	}
	a.Agreement = float64(c.YesYes+c.NoNo) / float64(n)
	a.PassPrecision = ratio(c.YesYes, c.YesYes+c.NoYes)
	a.FailPrecision = ratio(c.NoNo, c.NoNo+c.YesNo)
	a.TPR = ratio(c.YesYes, c.YesYes+c.YesNo)
	a.TNR = ratio(c.NoNo, c.NoNo+c.NoYes)
	a.Kappa = kappa(*c)
	return a
}

// kappa is Cohen's kappa, (po - pe) / (1 - pe): po the observed agreement,
// pe the agreement expected by chance from the rates of "yes" among labels
// and among verdicts. It is nil when pe is 1 (every label and every verdict
// the same), where kappa is undefined.
func kappa(c eval.Confusion) *float64 {
	n := float64(c.YesYes + c.YesNo + c.NoYes + c.NoNo)
	po := float64(c.YesYes+c.NoNo) / n
	labelYes := float64(c.YesYes+c.YesNo) / n
	verdictYes := float64(c.YesYes+c.NoYes) / n
	pe := labelYes*verdictYes + (1-labelYes)*(1-verdictYes)
	if pe >= 1 {
		return nil
	}
	k := (po - pe) / (1 - pe)
	return &k
}

func ratio(a, b int) *float64 {
	if b == 0 {
		return nil
	}
	r := float64(a) / float64(b)
	return &r
}
