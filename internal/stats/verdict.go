package stats

import (
	"slices"

	"github.com/mcpeval/mcpeval/evaltest/eval"
)

// Verdicts gives every arm but the baseline (the arm whose ArmInfo says
// Baseline) its verdict against it, from the records: on the cases both
// ran (passed: most of a case's runs passed), the cases it improved and
// regressed, the exact McNemar test of those counts adjusted (Holm) over
// the arms compared, and so better, worse or inconclusive at Alpha; its
// change in tool definition tokens and in cost per passed run. Nothing
// without a baseline arm.
func Verdicts(records []eval.Record, models []eval.ModelResult) []eval.ArmVerdict {
	base := slices.IndexFunc(models, func(m eval.ModelResult) bool { return m.Arm != nil && m.Arm.Baseline })
	if base < 0 {
		return nil
	}
	passed := casePasses(records)
	b := models[base]
	var out []eval.ArmVerdict
	for _, m := range models {
		if m.Model == b.Model {
			continue
		}
		v := eval.ArmVerdict{Arm: m.Model, Baseline: b.Model, Alpha: Alpha, Improved: []string{}, Regressed: []string{},
			ToolTokensChange: m.ToolTokens - b.ToolTokens, CostPerPass: m.CostPerPass, BaselineCostPerPass: b.CostPerPass}
		for c, was := range passed[b.Model] {
			now, ok := passed[m.Model][c]
			if !ok {
				continue
			}
			v.Cases++
			switch {
			case now && !was:
				v.Improved = append(v.Improved, c)
			case was && !now:
				v.Regressed = append(v.Regressed, c)
			}
		}
		slices.Sort(v.Improved)
		slices.Sort(v.Regressed)
		if m.Passes > 0 && b.Passes > 0 && m.Unpriced == 0 && b.Unpriced == 0 {
			change := m.CostPerPass - b.CostPerPass
			v.CostPerPassChange = &change
		}
		out = append(out, v)
	}
	in := make([]Paired, len(out))
	for i, v := range out {
		in[i] = Paired{OnlyA: len(v.Regressed), OnlyB: len(v.Improved), Cases: v.Cases}
	}
	for i, a := range HolmPaired(in, Alpha) {
		v := &out[i]
		v.P, v.AdjustedP, v.Effect, v.Low, v.High, v.Confidence = a.P, a.AdjustedP, a.Diff, a.Low, a.High, a.Confidence
		switch {
		case a.AdjustedP < Alpha && a.Diff > 0:
			v.Verdict = eval.VerdictBetter
		case a.AdjustedP < Alpha && a.Diff < 0:
			v.Verdict = eval.VerdictWorse
		default:
			v.Verdict = eval.VerdictInconclusive
		}
	}
	return out
}

// casePasses is whether each arm passed each case, most of its runs.
func casePasses(records []eval.Record) map[string]map[string]bool {
	byRun := map[[2]string][]eval.Record{}
	for _, r := range records {
		if r.Status == eval.NotRun {
			continue
		}
		k := [2]string{r.ArmName(), r.Name}
		byRun[k] = append(byRun[k], r)
	}
	out := map[string]map[string]bool{}
	for k, runs := range byRun {
		c := CaseResultOf(runs)
		if out[k[0]] == nil {
			out[k[0]] = map[string]bool{}
		}
		out[k[0]][k[1]] = 2*c.Passes > c.Runs
	}
	return out
}
